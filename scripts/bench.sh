#!/usr/bin/env bash
# Benchmarks, each measured side by side with its baseline in one run, and
# printed as ratios:
#   - the sandbox: `true` through toolgate's box vs a bare bwrap with the
#     same command line (target: at most 15% slower), and vs a minimal bwrap;
#   - the gate: one decision, cached and uncached;
#   - the audit log: appends per fsync mode, and verify throughput.
# Usage: scripts/bench.sh [ROUNDS]   (default 200 sandbox runs)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
bash scripts/ensure-bwrap.sh
out=$(go test ./sandbox -run '^$' -bench 'SandboxVsBare' -benchtime "${rounds}x" -count 1 2>&1) || { echo "$out" >&2; exit 1; }
echo "$out" | grep -E '^(Benchmark|--- SKIP|\s+bench_test)' || true
echo "$out" | awk '/^BenchmarkSandboxVsBare/ {
	for (i = 1; i <= NF; i++) { if ($(i+1) == "toolgate-ms") t = $i; if ($(i+1) == "bare-ms") b = $i; if ($(i+1) == "minimal-ms") m = $i }
	printf "sandbox: toolgate %.2f ms, bare bwrap (same profile) %.2f ms, minimal bwrap %.2f ms\n", t, b, m
	printf "ratio toolgate/bare = %.3f (%+.1f%%; target <= +15%%)\n", t / b, 100 * (t / b - 1)
	printf "ratio toolgate/minimal = %.3f\n", t / m
}'
go test ./gate -run '^$' -bench 'Decide$|DecideUncached' -benchtime 2000x -count 1 2>&1 | grep -E '^Benchmark' | awk '
	{ for (i = 1; i <= NF; i++) if ($(i+1) == "p50-ns") p[$1] = $i; print }
	END { for (k in p) if (k ~ /Uncached/) u = p[k]; else c = p[k]
	      if (u && c) printf "gate: cached p50 %.0f µs, uncached p50 %.0f µs, ratio uncached/cached = %.2f\n", c / 1000, u / 1000, u / c }'
go test ./audit -run '^$' -bench 'Append|Verify' -benchtime 1s -count 1 2>&1 | grep -E '^Benchmark' | awk '
	{ print }
	/Append\/always/ { a = $3 } /Append\/never/ { n = $3 }
	END { if (a && n) printf "audit: append with fsync always %.0f µs, never %.0f µs, ratio always/never = %.1f\n", a / 1000, n / 1000, a / n }'
