#!/usr/bin/env bash
# Instructions per message of the worker's per-message work, by function: the processor benchmark
# (`stroke-bench --only processor --quick`) under Valgrind's callgrind, counting only inside the processor's batch
# handling. Unlike timings on a shared host, the counts repeat from run to run (to within 0.1%), so a change to a
# hot path shows its effect at once (instructions are not cycles: a cache miss or a long dependency chain costs time
# without showing here; confirm with the benchmark).
#
# Usage: scripts/profile.sh [CASE] [SESSIONS]   (defaults: binary-32 1000; CASE as `stroke-bench --cases`)
# Needs a release build (`make release`) and valgrind (`apt-get install valgrind`). DATASET picks the strokes
# (default ../shared/datasets/dollar1; synthetic ones when it is absent). TOP sets how many functions are listed
# (default 15). BENCH names the `stroke-bench` binary to count (default .build/release/stroke-bench): copies of two
# builds compare a change without rebuilding in between. TILT=DEG starts every session with that tilt estimate
# (`stroke-bench --tilt`), so that the checkmark detector turns each message's points.
set -euo pipefail
# Swift seeds its hash functions per process; a fixed seed keeps the counts from varying with it.
export SWIFT_DETERMINISTIC_HASHING=1

case_name=${1:-binary-32}
sessions=${2:-1000}
# Without DATASET, the default where it exists; stroke-bench refuses a --dataset without the data set.
dataset=${DATASET:-}
if [ -z "$dataset" ] && [ -d ../shared/datasets/dollar1 ]; then dataset=../shared/datasets/dollar1; fi
top=${TOP:-15}
bench=${BENCH:-.build/release/stroke-bench}

command -v valgrind >/dev/null || { echo "profile.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
[ -x "$bench" ] || { echo "profile.sh: $bench is missing; run make release" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    --toggle-collect='*SessionProcessor*handle5batch*CountingSink*' \
    "$bench" --only processor --quick --json --runs 1 --cases "$case_name" --sessions "$sessions" \
    ${dataset:+--dataset "$dataset"} ${TILT:+--tilt "$TILT"} >"$work/report.json" 2>"$work/valgrind.log" || {
    echo "profile.sh: valgrind failed; its log:" >&2
    tail -20 "$work/valgrind.log" >&2
    exit 1
}
messages=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["processor"][0]["messages"])' \
    "$work/report.json")
callgrind_annotate --auto=no "$work/callgrind.out" 2>/dev/null | swift demangle --simplified | python3 -c '
import re, sys
messages, top = int(sys.argv[1]), int(sys.argv[2])
total, rows = None, []
for line in sys.stdin:
    match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
    if not match or match.group(2).startswith("=>"):
        continue
    count = int(match.group(1).replace(",", ""))
    if "PROGRAM TOTALS" in match.group(2):
        total = count
        continue
    # "file:symbol [object]" -> the symbol, cut to one line.
    name = match.group(2).rsplit(" [", 1)[0]
    name = name.split(":", 1)[1] if re.match(r"[^ ]*\.(swift|c|S|h):|\?\?\?:|//<", name) else name
    name = name if len(name) <= 100 else name[:97] + "..."
    rows.append((count, name))
if total is None or messages == 0:
    sys.exit("profile.sh: no instruction counts were collected")
# Inlined code is listed once per source file: add up the rows of one function.
sums = {}
for count, name in rows:
    sums[name] = sums.get(name, 0) + count
rows = sorted(((count, name) for name, count in sums.items()), reverse=True)
print(f"{total / messages:,.0f} instructions per message ({messages:,} messages, {total:,} instructions)")
print("per message  share  function (self)")
for count, name in rows[:top]:
    print(f"{count / messages:11,.0f}  {100 * count / total:4.1f}%  {name}")
' "$messages" "$top"
