#!/usr/bin/env bash
# Checks Deploy/systemd with systemd-analyze verify: every key known, every command there. The units name
# /usr/local/bin/stroke-worker; here they run the binary given (default: the release build) instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-.build/release/stroke-worker}")
units=$(mktemp -d)
trap 'rm -rf "$units"' EXIT
for unit in Deploy/systemd/*.service; do
    sed "s|/usr/local/bin/stroke-worker|$bin|g" "$unit" >"$units/$(basename "$unit")"
done
# An instance of the template unit stands for it.
mv "$units/stroke-worker@.service" "$units/stroke-worker@0.service"
cp "$units/stroke-worker@0.service" "$units/stroke-worker@.service"
# verify exits 0 on unknown keys, so any message at all fails the check.
out=$(cd "$units" && systemd-analyze verify --man=no ./stroke-input-proxy.service ./stroke-results-proxy.service \
    ./stroke-worker@0.service 2>&1) || true
if [ -n "$out" ]; then
    echo "$out"
    echo "systemd units: failed"
    exit 1
fi
echo "systemd units: 3 verified"
