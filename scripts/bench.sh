#!/usr/bin/env bash
# Benchmarks: builds bin/toolgate, then prints one table in which every
# figure is measured side by side with its baseline in the same run
# (interleaved rounds; medians, ranges and ratios). See
# internal/benchtool/doc.go for what each row measures and what it does not.
# Usage: scripts/bench.sh [-quick] [-rows 1,2,...] [-json FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "bench: Go is required" >&2; exit 1; }
bash scripts/ensure-bwrap.sh
bash scripts/build.sh
exec go run ./internal/benchtool -toolgate bin/toolgate "$@"
