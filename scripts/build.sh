#!/usr/bin/env bash
# Builds toolgate's three binaries into bin/, statically (no cgo: the
# dynamic loader costs every process several milliseconds):
#   bin/toolgate       the small build (-tags toolgate_small): check, run,
#                      hook, audit and tools on the embedded default policy,
#                      from the plan made when it was built; it starts in
#                      about half the time of the full build and hands
#                      everything else to toolgate-full
#   bin/toolgate-full  the full build (OPA's compiler and evaluator, the MCP
#                      proxy, serve, policy, explain): what a plain
#                      `go build ./cmd/toolgate` makes
#   bin/toolgate-hook  the small hook client of a `toolgate serve` daemon
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "build: Go is required" >&2; exit 1; }
mkdir -p bin
export CGO_ENABLED=0
go build -o bin/toolgate-full ./cmd/toolgate
go build -tags toolgate_small -o bin/toolgate ./cmd/toolgate
go build -o bin/toolgate-hook ./cmd/toolgate-hook
