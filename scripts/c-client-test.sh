#!/usr/bin/env bash
# Builds the C client and runs it against a worker of its own: proof that Protocol/ is enough without our
# libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
cc -O2 -Wall -Wextra -Werror -o .build/send_stroke clients/c/send_stroke.c -lzmq
# STROKE_INPUT and STROKE_OUTPUT are set by with-worker.sh for the inner shell.
# shellcheck disable=SC2016
out=$(scripts/with-worker.sh "${1:-.build/debug/stroke-worker}" 5585 5586 -- \
    sh -c '.build/send_stroke "$STROKE_INPUT" "$STROKE_OUTPUT" c-client-test')
echo "$out"
echo "$out" | grep -q '"event":"match","session":"c-client-test"' && echo "C client: 1 passed, 0 failed"
