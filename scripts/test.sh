#!/usr/bin/env bash
# The whole test suite: formatting, vet, Go tests (which include the attack
# corpus through the gate and the Rego unit tests), and the Rego tests again
# through the CLI as a user runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "test: Go is required" >&2; exit 1; }
bash scripts/ensure-bwrap.sh
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
# the small build (bin/toolgate) compiles without OPA
go build -tags toolgate_small ./...
go test -count=1 ./...
# The sandbox's goroutines (boxes made ahead, watchdogs, cgroups handed on,
# the mount namespace's thread) under the race detector (cgo is needed).
if command -v gcc >/dev/null; then
	CGO_ENABLED=1 go test -count=1 -race ./sandbox
fi
bash scripts/build.sh
bin/toolgate policy test
