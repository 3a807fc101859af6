# make build   bin/toolgate and bin/toolgate-hook
# make test    the whole suite (scripts/test.sh)
# make bench   the benchmark table (scripts/bench.sh); BENCHFLAGS="-quick -rows 1,2 -json out.json"
.PHONY: build test bench

build:
	mkdir -p bin
	CGO_ENABLED=0 go build -o bin/ ./cmd/...

test:
	bash scripts/test.sh

bench:
	bash scripts/bench.sh $(BENCHFLAGS)
