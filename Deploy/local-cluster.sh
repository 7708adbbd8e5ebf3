#!/usr/bin/env bash
# The Compose/Kubernetes topology as local processes on loopback: an input proxy, a results proxy and N
# sharded workers.
#
#   Deploy/local-cluster.sh start [N]        start the proxies and N workers (default 3); waits until ready
#   Deploy/local-cluster.sh stop             SIGTERM everything and wait (workers drain, exit 0)
#   Deploy/local-cluster.sh status           what runs
#   Deploy/local-cluster.sh kill-worker I    SIGKILL worker I (a crash)
#   Deploy/local-cluster.sh start-worker I   (re)start worker I
#   Deploy/local-cluster.sh reshard N        stop every worker (each writes its sessions to its state file), then
#                                            start N; each adopts the sessions of its buckets from the others' files
#
# Producers publish to tcp://127.0.0.1:$BASE_PORT (default 5655); consumers subscribe at
# tcp://127.0.0.1:$((BASE_PORT + 1)). Environment: STROKE_BIN (the stroke-worker binary), BASE_PORT, RUN_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${STROKE_BIN:-$here/../.build/release/stroke-worker}
base=${BASE_PORT:-5655}
run=${RUN_DIR:-$here/../.build/local-cluster}
producers=$base
consumers=$((base + 1))
workers_in=$((base + 2))
workers_out=$((base + 3))
mkdir -p "$run"

pid_of() { cat "$run/$1.pid" 2>/dev/null || true; }
alive() { local pid; pid=$(pid_of "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

launch() {
    local name=$1
    shift
    "$@" >"$run/$name.log" 2>&1 &
    echo $! >"$run/$name.pid"
}

wait_for() {
    local name=$1 pattern=$2
    for _ in $(seq 1 200); do
        grep -q "$pattern" "$run/$name.log" 2>/dev/null && return 0
        alive "$name" || { echo "$name exited:" >&2; cat "$run/$name.log" >&2; return 1; }
        sleep 0.05
    done
    echo "$name did not become ready" >&2
    return 1
}

start_worker() {
    local index=$1 count
    count=$(cat "$run/shards")
    mkdir -p "$run/state/worker-$index"
    launch "worker-$index" "$bin" --shard "$index/$count" \
        --input "connect:tcp://127.0.0.1:$workers_in" --output "connect:tcp://127.0.0.1:$workers_out" \
        --stats-interval "${STATS_INTERVAL:-1}" --health-file "$run/worker-$index.healthy" \
        --state-file "$run/state/worker-$index/sessions.json" --adopt-state "$run/state"
    wait_for "worker-$index" "listening"
    # Ready as Kubernetes' readiness probe (/readyz) means it: connected to both proxies, handshakes done.
    wait_for "worker-$index" "input connected"
    wait_for "worker-$index" "output connected"
}

stop_process() {
    local name=$1 pid
    pid=$(pid_of "$name")
    [ -n "$pid" ] || return 0
    if kill -TERM "$pid" 2>/dev/null; then
        for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -f "$run/$name.pid"
}

stop_workers() {
    for file in "$run"/worker-*.pid; do
        [ -e "$file" ] || continue
        stop_process "$(basename "$file" .pid)"
    done
}

case "${1:-}" in
start)
    count=${2:-3}
    echo "$count" >"$run/shards"
    rm -rf "$run/state"
    launch input-proxy "$bin" proxy --frontend "bind:tcp://127.0.0.1:$producers" \
        --backend "bind:tcp://127.0.0.1:$workers_in" --control "bind:tcp://127.0.0.1:$((base + 4))"
    launch results-proxy "$bin" proxy --frontend "bind:tcp://127.0.0.1:$workers_out" \
        --backend "bind:tcp://127.0.0.1:$consumers" --control "bind:tcp://127.0.0.1:$((base + 5))"
    wait_for input-proxy "proxy listening"
    wait_for results-proxy "proxy listening"
    for index in $(seq 0 $((count - 1))); do start_worker "$index"; done
    echo "cluster up: $count workers; producers → tcp://127.0.0.1:$producers, consumers ← tcp://127.0.0.1:$consumers"
    ;;
stop)
    stop_workers
    stop_process input-proxy
    stop_process results-proxy
    echo "cluster stopped"
    ;;
status)
    for file in "$run"/*.pid; do
        [ -e "$file" ] || continue
        name=$(basename "$file" .pid)
        if alive "$name"; then echo "$name: running (pid $(pid_of "$name"))"; else echo "$name: dead"; fi
    done
    ;;
kill-worker)
    pid=$(pid_of "worker-$2")
    [ -n "$pid" ] && kill -KILL "$pid"
    rm -f "$run/worker-$2.pid"
    ;;
start-worker)
    start_worker "$2"
    ;;
reshard)
    stop_workers
    echo "$2" >"$run/shards"
    for index in $(seq 0 $(($2 - 1))); do start_worker "$index"; done
    echo "resharded: $2 workers"
    ;;
*)
    sed -n '2,14p' "$0"
    exit 2
    ;;
esac
