#!/usr/bin/env bash
# Builds toolgate and pipes a mix of real tool calls through `toolgate check`
# with the embedded default policy, in a throwaway workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "demo: Go is required (https://go.dev/dl/)" >&2; exit 1; }
bash scripts/ensure-bwrap.sh
mkdir -p bin
bash scripts/build.sh

demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
ws=$demo/workspace home=$demo/home
mkdir -p "$ws/src" "$ws/build" "$ws/.git/hooks" "$home/.ssh" "$home/.aws"
echo 'package main' > "$ws/src/main.go"
echo 'FAKE KEY' > "$home/.ssh/id_rsa"
echo '[default]' > "$home/.aws/credentials"
ln -s "$home" "$ws/link_to_home"

echo "toolgate check --workspace $ws  (HOME=$home)"
echo
HOME=$home bin/toolgate check --workspace "$ws" < examples/demo.jsonl |
while IFS= read -r line; do
	if command -v jq >/dev/null; then
		printf '%s\n' "$line" | jq -r '"\(.decision | ascii_upcase | .[0:5])\t\(.id)\t\(if (.reasons|length) > 0 then (.reasons[0].rule + ": " + .reasons[0].message) else "" end)"' | cut -c1-160
	else
		printf '%s\n' "$line"
	fi
done

echo
echo "toolgate run --workspace $ws --approve deny --timeout 3  (exec inside bubblewrap)"
echo
HOME=$home bin/toolgate run --workspace "$ws" --approve deny --timeout 3 < examples/run.jsonl |
while IFS= read -r line; do
	if command -v jq >/dev/null; then
		printf '%s\n' "$line" | jq -r '"\(.decision | ascii_upcase | .[0:5])\t\(.id)\texit=\(.exit_code // "-")\t\(.output | gsub("\n"; "⏎") | .[0:110])"'
	else
		printf '%s\n' "$line"
	fi
done

echo
echo "toolgate audit verify / show  (every decision above was logged: $home/.local/state/toolgate/audit.jsonl)"
echo
HOME=$home bin/toolgate audit verify "$home/.local/state/toolgate/audit.jsonl"
HOME=$home bin/toolgate audit show --decision deny "$home/.local/state/toolgate/audit.jsonl" | tail -6
