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
# A count is 1-4096 workers and a worker's index one of 0 to count - 1 (else exit 2); `start` while a cluster runs
# in RUN_DIR, `start-worker` of a worker that runs and `kill-worker` or `reshard` without one exit 1, changing
# nothing (before session 86, `start` deleted the running workers' state files and lost track of its proxies, and
# `start-worker` ran a second worker for the same shard).
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

usage() {
    sed -n '2,18p' "$0" | cut -c3-
}

# Exits 2, saying why, unless $2 is a whole number from $3 to $4; $1 names it.
whole_number() {
    if ! [[ $2 =~ ^[0-9]+$ ]] || ((10#$2 < $3 || 10#$2 > $4)); then
        echo "local-cluster.sh: $1 is a whole number from $3 to $4, got '$2'" >&2
        exit 2
    fi
}

# The processes of RUN_DIR that run, by name.
running() {
    local file name
    for file in "$run"/*.pid; do
        [ -e "$file" ] || continue
        name=$(basename "$file" .pid)
        if alive "$name"; then echo "$name"; fi
    done
}

# Exits 1 unless the proxies run: workers without them never become ready.
require_cluster() {
    if ! alive input-proxy || ! alive results-proxy || ! [ -s "$run/shards" ]; then
        echo "local-cluster.sh: no cluster runs in $run: start it first" >&2
        exit 1
    fi
}

# Exits 2 unless $1 is the index of a worker of the running cluster's count.
worker_index() {
    local count
    count=$(cat "$run/shards")
    whole_number "a worker's index" "$1" 0 $((count - 1))
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
    whole_number "the count of workers" "$count" 1 4096
    count=$((10#$count))
    if [ -n "$(running)" ]; then
        echo "local-cluster.sh: a cluster runs in $run ($(running | tr '\n' ' ' | sed 's/ $//')): stop it first" >&2
        exit 1
    fi
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
    require_cluster
    worker_index "${2:-}"
    index=$((10#$2))
    if ! alive "worker-$index"; then
        echo "local-cluster.sh: worker-$index does not run" >&2
        exit 1
    fi
    kill -KILL "$(pid_of "worker-$index")"
    rm -f "$run/worker-$index.pid"
    ;;
start-worker)
    require_cluster
    worker_index "${2:-}"
    index=$((10#$2))
    if alive "worker-$index"; then
        echo "local-cluster.sh: worker-$index runs already (pid $(pid_of "worker-$index"))" >&2
        exit 1
    fi
    start_worker "$index"
    ;;
reshard)
    whole_number "the count of workers" "${2:-}" 1 4096
    count=$((10#$2))
    require_cluster
    stop_workers
    echo "$count" >"$run/shards"
    for index in $(seq 0 $((count - 1))); do start_worker "$index"; done
    echo "resharded: $count workers"
    ;;
-h | --help | help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
