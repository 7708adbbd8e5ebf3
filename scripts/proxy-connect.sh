#!/usr/bin/env bash
# What the forwarding loop of `stroke-worker proxy` costs when a side connects, against libzmq's proxy, at the rate a
# C publisher drives it (the Python one of scripts/proxy-filtering.py sends 130–150 k msg/s; this one about 1.2 M).
#
# A side that connects (connect:ADDR) runs the proxy's own loop, so that an endpoint libzmq gave up after a refused
# handshake can be connected again between two of its polls (--handshake-retry), and so does a frontend whose frames
# have a largest size (--max-message-bytes), so that a publisher that never finishes a message can be found and cut
# (session 89), and so does a backend with a limit on subscriptions (--max-subscription-bytes, session 90);
# --handshake-retry 0 --max-message-bytes 0 --max-subscription-bytes 0 keeps libzmq's zmq_proxy_steerable. The
# forwarders of a worker with several lanes do the same. Each round runs the two one after the other on 127.0.0.1:
# the proxy's frontend bound, its backend connecting to a SUB the driver binds, the driver's XPUB sending COUNT
# two-frame messages (an 11-byte topic, a 200-byte payload) and counting what arrives; it prints the rate and the
# proxy's CPU time per message (from /proc: all its threads).
#
# Usage: scripts/proxy-connect.sh [ROUNDS] [COUNT]   (defaults: 6 3000000; needs cc and libzmq3-dev, and a release
# build, `make release`). docs/Performance.md, "Connecting again after a refused handshake", has the figures.
set -euo pipefail
rounds=${1:-6}
count=${2:-3000000}
worker=${WORKER:-.build/release/stroke-worker}
[ -x "$worker" ] || { echo "proxy-connect.sh: $worker is missing; run make release" >&2; exit 2; }
command -v cc >/dev/null || { echo "proxy-connect.sh: no C compiler (cc)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/driver.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* User and system time of process `pid` in seconds (fields 14 and 15 of /proc/PID/stat). */
static double cpu_seconds(int pid) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    size_t size = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[size] = 0;
    char *field = strrchr(text, ')');
    if (!field) return 0;
    unsigned long user = 0, system = 0;
    /* After the command's closing parenthesis: state (3) ... utime (14), stime (15). */
    if (sscanf(field + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) != 2) return 0;
    return (double)(user + system) / sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    int pid = atoi(argv[1]);
    long count = atol(argv[4]);
    char frontend[64], backend[64], frame[256], payload[200];
    snprintf(frontend, sizeof frontend, "tcp://127.0.0.1:%s", argv[2]);
    snprintf(backend, sizeof backend, "tcp://127.0.0.1:%s", argv[3]);
    memset(payload, 'x', sizeof payload);
    void *context = zmq_ctx_new();
    int unlimited = 0;
    void *sub = zmq_socket(context, ZMQ_SUB);
    zmq_setsockopt(sub, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0);
    void *pub = zmq_socket(context, ZMQ_XPUB);
    zmq_setsockopt(pub, ZMQ_SNDHWM, &unlimited, sizeof unlimited);
    if (zmq_bind(sub, backend) != 0 || zmq_connect(pub, frontend) != 0) return 1;
    /* The subscription reaches the publisher through the proxy; a bound SUB sends it only once its thread calls
       into it (zeromq/libzmq#2267), so both are polled. */
    zmq_pollitem_t items[] = {{pub, 0, ZMQ_POLLIN, 0}, {sub, 0, ZMQ_POLLIN, 0}};
    double deadline = now() + 10;
    do {
        zmq_poll(items, 2, 100);
        if (now() > deadline) return 1;
    } while (!(items[0].revents & ZMQ_POLLIN));
    zmq_recv(pub, frame, sizeof frame, 0);
    double cpu = cpu_seconds(pid), started = now();
    long sent = 0, received = 0;
    while (received < count && now() - started < 60) {
        for (int i = 0; i < 256 && sent < count; i++, sent++) {
            zmq_send(pub, "abc/session", 11, ZMQ_SNDMORE);
            zmq_send(pub, payload, sizeof payload, 0);
        }
        zmq_msg_t message;
        zmq_msg_init(&message);
        while (zmq_msg_recv(&message, sub, ZMQ_DONTWAIT) >= 0) {
            if (!zmq_msg_more(&message)) received++;
        }
        zmq_msg_close(&message);
        if (sent >= count) {
            zmq_pollitem_t input = {sub, 0, ZMQ_POLLIN, 0};
            zmq_poll(&input, 1, 100);
        }
    }
    double elapsed = now() - started;
    cpu = cpu_seconds(pid) - cpu;
    printf("%.0f k msg/s, %.3f µs of the proxy's CPU a message (%ld of %ld arrived)\n", received / elapsed / 1e3,
           received ? cpu * 1e6 / received : 0, received, count);
    zmq_close(pub);
    zmq_close(sub);
    zmq_ctx_term(context);
    return received == count ? 0 : 1;
}
EOF
cc -O2 -o "$work/driver" "$work/driver.c" -lzmq

for round in $(seq 1 "$rounds"); do
    for loop in libzmq own; do
        port=$((7600 + 10 * round))
        retry=()
        if [ "$loop" = libzmq ]; then retry=(--handshake-retry 0 --max-message-bytes 0 --max-subscription-bytes 0); else port=$((port + 5)); fi
        "$worker" proxy --frontend "bind:tcp://127.0.0.1:$port" --backend "connect:tcp://127.0.0.1:$((port + 1))" \
            --hwm 0 "${retry[@]}" 2>/dev/null &
        proxy=$!
        sleep 0.5
        label="libzmq's proxy"
        [ "$loop" = own ] && label="the loop of its own"
        echo "round $round, $label: $("$work/driver" "$proxy" "$port" "$((port + 1))" "$count" || true)"
        kill "$proxy"
        wait "$proxy" 2>/dev/null || true
    done
done
