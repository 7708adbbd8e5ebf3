#!/usr/bin/env bash
# Builds the C client and runs it against a worker of its own: proof that Protocol/ is enough without our
# libraries. Each run must show the pong of the client's ping (its check that the worker has its subscription) and
# the match of its stroke.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
cc -O2 -Wall -Wextra -Werror -o .build/send_stroke clients/c/send_stroke.c -lzmq
bin=${1:-.build/debug/stroke-worker}
# STROKE_INPUT and STROKE_OUTPUT are set by with-worker.sh for the inner shell. Once against one lane, once
# against two, whose subscriptions arrive bucket by bucket, once over CURVE (the worker reads its key from
# the environment, the client takes the worker's public key from it), and once over IPv6 where the loopback has it
# (the worker and the client each set libzmq's IPv6 option for an address in brackets).
keys=$(mktemp -d)
trap 'rm -rf "$keys"' EXIT
"$(dirname "$bin")/stroke-tool" keygen -o "$keys/worker" >/dev/null
passed=0 expected=6 runs="lanes-1 lanes-2 curve"
if grep -qs '^00000000000000000000000000000001 ' /proc/net/if_inet6; then
    runs="$runs ipv6" expected=7
else
    echo "C client: no IPv6 on the loopback, the IPv6 run is left out"
fi
for run in $runs; do
    lanes=1 secret="" server="" host=127.0.0.1
    [ "$run" = lanes-2 ] && lanes=2
    [ "$run" = ipv6 ] && host="[::1]"
    if [ "$run" = curve ]; then
        secret="$keys/worker.key"
        server=$(grep -v '^#' "$keys/worker.pub" | head -1)
    fi
    # shellcheck disable=SC2016
    out=$(STROKE_WORKER_LANES=$lanes STROKE_WORKER_CURVE_SECRET_KEY=$secret STROKE_CURVE_SERVER_KEY=$server \
        STROKE_TEST_HOST=$host scripts/with-worker.sh "$bin" 5585 5586 -- sh -c '.build/send_stroke "$STROKE_INPUT" "$STROKE_OUTPUT" c-client-test')
    echo "$out"
    if echo "$out" | grep -q '"event":"pong","session":"c-client-test"' \
        && echo "$out" | grep -q '"event":"match","session":"c-client-test"'; then
        passed=$((passed + 1))
    fi
done
# A worker that lists its clients, and a client with a key it does not list: the client says the key was
# refused and exits 3, instead of waiting for a subscription that never comes.
grep -v '^#' "$keys/worker.pub" | head -1 > "$keys/others.keys"  # some other key than the client's
status=0
# shellcheck disable=SC2016
out=$(STROKE_WORKER_CURVE_SECRET_KEY="$keys/worker.key" STROKE_WORKER_CURVE_AUTHORIZED_KEYS="$keys/others.keys" \
    STROKE_CURVE_SERVER_KEY=$(grep -v '^#' "$keys/worker.pub" | head -1) \
    scripts/with-worker.sh "$bin" 5585 5586 -- sh -c '.build/send_stroke "$STROKE_INPUT" "$STROKE_OUTPUT" c-refused' \
    2>&1) || status=$?
echo "$out"
if [ "$status" -eq 3 ] && echo "$out" | grep -q "refused this client's CURVE key (status 400)"; then
    passed=$((passed + 1))
fi
# Another session whose id starts with the client's (c-client-test-2): its events reach the client's subscription, and
# a stand-in worker answers them first, a match of the other session before a nomatch of the client's. The client
# takes only its own: no match, status 1 (it took the other's match for its own before session 84). Before the
# nomatch comes a match of the client's session in a message of three frames, and before the pongs a message of one
# frame: no events, which the client passes over and says so (before session 86 it read their frames as events').
python3 scripts/c-client-fake-worker.py tcp://127.0.0.1:5587 tcp://127.0.0.1:5588 c-client-test &
fake=$!
status=0
out=$(.build/send_stroke tcp://127.0.0.1:5587 tcp://127.0.0.1:5588 c-client-test 2>&1) || status=$?
wait "$fake" || true
echo "$out"
if [ "$status" -eq 1 ] && echo "$out" | grep -q '"event":"nomatch"' && ! echo "$out" | grep -q 'c-client-test-2' \
    && echo "$out" | grep -q "skipped a message of 1 frame, not" \
    && echo "$out" | grep -q "skipped a message of 3 frames, not"; then
    passed=$((passed + 1))
fi
# Arguments libzmq would misread (a port it would wrap to 34463) or the protocol refuses (a session id of '$', one
# that is not UTF-8, which before session 87 went out and waited 10 s for a pong): status 2 at once, before any
# socket.
refusals=0
for args in "tcp://127.0.0.1:99999 tcp://127.0.0.1:5586 c-client-test" "tcp://127.0.0.1:5585 tcp://127.0.0.1:5586 \$x" \
    "tcp://127.0.0.1:5585 tcp://127.0.0.1:5586 $(printf 'c-client-\377')"; do
    status=0
    # shellcheck disable=SC2086
    out=$(.build/send_stroke $args 2>&1) || status=$?
    echo "$out"
    [ "$status" -eq 2 ] && refusals=$((refusals + 1))
done
# --help prints the usage (status 0; it was taken for an endpoint before session 81); a fourth argument is refused.
.build/send_stroke --help | grep -q "^usage: send_stroke" && refusals=$((refusals + 1))
status=0
.build/send_stroke tcp://127.0.0.1:5585 tcp://127.0.0.1:5586 c-client-test extra >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] && refusals=$((refusals + 1))
[ "$refusals" -eq 5 ] && passed=$((passed + 1))
echo "C client: $passed passed, $((expected - passed)) failed"
[ "$passed" -eq "$expected" ]
