#!/usr/bin/env python3
"""Per-thread CPU and context switches of running processes, and how much of the machine stayed idle.

Reads /proc twice, SECONDS apart, and prints one line per thread that used at least half a percent of a core:
its name, the share of a core it used, and its voluntary (it waited: for input, a lock, a wake-up) and
involuntary (it was preempted while it could run) context switches per second. The last line gives the
machine's idle time in cores. A thread that runs well under a whole core while it hardly ever switches
voluntarily is waiting for a core, not for work.

Usage: scripts/threads.py [--seconds N] PID [PID ...]   (default 4 seconds; Linux only)

Example, the worker and the benchmark's producer during a batched run (Benchmarks-history.md, session 18):
    stroke-bench --only throughput --cases binary-32 --sessions 1000 --runs 1 --messages 40000000 &
    sleep 20; scripts/threads.py $(pgrep -x stroke-worker) $(pgrep -f 'stroke-bench --only')
"""

import argparse
import os
import sys
import time


def threads(pids):
    """{(pid, tid): (name, CPU ticks, voluntary switches, involuntary switches)} for the live threads of pids."""
    found = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            base = f"/proc/{pid}/task/{tid}"
            try:
                with open(f"{base}/stat") as stat_file:
                    stat = stat_file.read()
                with open(f"{base}/status") as status_file:
                    status = status_file.read()
            except OSError:
                continue  # the thread ended between the two reads
            # The name is in parentheses and may hold spaces; utime and stime are fields 14 and 15.
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            ticks = int(fields[11]) + int(fields[12])
            switches = {}
            for line in status.splitlines():
                key, _, value = line.partition(":")
                if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                    switches[key] = int(value)
            found[(pid, tid)] = (
                name,
                ticks,
                switches.get("voluntary_ctxt_switches", 0),
                switches.get("nonvoluntary_ctxt_switches", 0),
            )
    return found


def machine():
    """The first line of /proc/stat: total and idle ticks of all cores."""
    with open("/proc/stat") as stat_file:
        values = [int(value) for value in stat_file.readline().split()[1:]]
    return sum(values), values[3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="how long to watch (default 4)")
    parser.add_argument("pids", nargs="+", help="process ids")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    before, (total_before, idle_before) = threads(args.pids), machine()
    time.sleep(args.seconds)
    after, (total_after, idle_after) = threads(args.pids), machine()
    if not after:
        sys.exit("threads.py: none of the processes is running")
    print(f"{'pid/tid':>14}  {'thread':16} {'cores':>6} {'voluntary/s':>12} {'involuntary/s':>14}")
    for key, (name, ticks, voluntary, involuntary) in sorted(after.items()):
        if key not in before:
            continue  # started while watching: no baseline
        _, ticks0, voluntary0, involuntary0 = before[key]
        cores = (ticks - ticks0) / ticks_per_second / args.seconds
        if cores < 0.005:
            continue
        print(
            f"{key[0] + '/' + key[1]:>14}  {name:16} {cores:6.2f} {(voluntary - voluntary0) / args.seconds:12.0f} "
            f"{(involuntary - involuntary0) / args.seconds:14.0f}"
        )
    cores = os.cpu_count() or 1
    idle = (idle_after - idle_before) / max(1, total_after - total_before) * cores
    print(f"machine idle: {idle:.2f} of {cores} cores")


if __name__ == "__main__":
    main()
