#!/usr/bin/env bash
# Builds the C client and runs it against a worker of its own: proof that Protocol/ is enough without our
# libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
cc -O2 -Wall -Wextra -Werror -o .build/send_stroke clients/c/send_stroke.c -lzmq
# STROKE_INPUT and STROKE_OUTPUT are set by with-worker.sh for the inner shell. Once against one lane, once
# against two, whose subscriptions arrive bucket by bucket.
passed=0
for lanes in 1 2; do
    # shellcheck disable=SC2016
    out=$(STROKE_WORKER_LANES=$lanes scripts/with-worker.sh "${1:-.build/debug/stroke-worker}" 5585 5586 -- \
        sh -c '.build/send_stroke "$STROKE_INPUT" "$STROKE_OUTPUT" c-client-test')
    echo "$out"
    if echo "$out" | grep -q '"event":"match","session":"c-client-test"'; then
        passed=$((passed + 1))
    fi
done
echo "C client: $passed passed, $((2 - passed)) failed"
[ "$passed" -eq 2 ]
