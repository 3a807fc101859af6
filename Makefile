# make build   bin/toolgate (small build), bin/toolgate-full and bin/toolgate-hook (scripts/build.sh)
# make test    the whole suite (scripts/test.sh)
# make bench   the benchmark table (scripts/bench.sh); BENCHFLAGS="-quick -rows 1,2 -json out.json"
.PHONY: build test bench

build:
	bash scripts/build.sh

test:
	bash scripts/test.sh

bench:
	bash scripts/bench.sh $(BENCHFLAGS)
