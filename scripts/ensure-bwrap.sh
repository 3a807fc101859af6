#!/usr/bin/env bash
# Installs bubblewrap when it is missing and this machine can install it
# (root with apt-get, dnf or apk). toolgate's exec refuses to run without it,
# and the sandbox tests skip (saying why) where it cannot run.
set -uo pipefail
command -v bwrap >/dev/null && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "note: bubblewrap (bwrap) is not installed; install it as root (apt-get install bubblewrap) for exec to run" >&2
	exit 0
fi
if command -v apt-get >/dev/null; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null 2>&1
elif command -v dnf >/dev/null; then
	dnf install -y -q bubblewrap >/dev/null 2>&1
elif command -v apk >/dev/null; then
	apk add -q bubblewrap >/dev/null 2>&1
fi
command -v bwrap >/dev/null || echo "note: could not install bubblewrap; exec will refuse to run" >&2
exit 0
