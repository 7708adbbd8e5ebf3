#!/usr/bin/env bash
# Runs a command against a stroke-worker of its own, then stops the worker with SIGTERM and checks that it
# exited 0. The command sees STROKE_INPUT and STROKE_OUTPUT.
#   scripts/with-worker.sh BIN INPUT_PORT OUTPUT_PORT -- COMMAND...
# STROKE_TEST_HOST: the address both bind to (default 127.0.0.1; "[::1]" for IPv6).
set -euo pipefail
bin=$1 input_port=$2 output_port=$3
shift 3
[ "${1:-}" = "--" ] && shift
host=${STROKE_TEST_HOST:-127.0.0.1}
export STROKE_INPUT="tcp://${host}:${input_port}" STROKE_OUTPUT="tcp://${host}:${output_port}"
log=$(mktemp)
"$bin" --input "$STROKE_INPUT" --output "$STROKE_OUTPUT" --stats-interval 0 2>"$log" &
worker=$!
trap 'kill -TERM "$worker" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    grep -q "listening" "$log" && break
    kill -0 "$worker" 2>/dev/null || { cat "$log"; exit 1; }
    sleep 0.1
done
status=0
"$@" || status=$?
kill -TERM "$worker"
worker_status=0
wait "$worker" || worker_status=$?
trap - EXIT
if [ "$worker_status" -ne 0 ]; then
    echo "stroke-worker exited with $worker_status" >&2
    cat "$log" >&2
    exit 1
fi
rm -f "$log"
exit "$status"
