#!/usr/bin/env python3
"""How long the host takes the CPU away from a process that wants it all the time.

Each of PROCESSES processes (one per core by default) reads the monotonic clock in a tight loop for SECONDS
seconds and notes every gap between two reads longer than THRESHOLD milliseconds: time in which it did not run.
On an idle machine the gaps are the host's (its other tenants, its hypervisor) or the kernel's, not any
benchmark's. Run it before a latency benchmark to see what the host's stalls alone do to a p99.

Usage: scripts/stalls.py [--seconds S] [--processes N] [--threshold MS]
"""

import argparse
import multiprocessing
import os
import time


def watch(seconds: float, threshold_ns: int, results) -> None:
    gaps = []
    now = time.monotonic_ns()
    end = now + int(seconds * 1e9)
    last = now
    while now < end:
        now = time.monotonic_ns()
        if now - last > threshold_ns:
            gaps.append(now - last)
        last = now
    results.put(gaps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each process watches (default 10)")
    parser.add_argument(
        "--processes", type=int, default=os.cpu_count() or 1, help="watching processes (default: one per core)"
    )
    parser.add_argument("--threshold", type=float, default=0.5, help="smallest gap noted, in ms (default 0.5)")
    args = parser.parse_args()
    if args.seconds <= 0 or args.processes < 1 or args.threshold <= 0:
        parser.error("--seconds and --threshold must be positive, --processes at least 1")
    results = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=watch, args=(args.seconds, int(args.threshold * 1e6), results))
        for _ in range(args.processes)
    ]
    for worker in workers:
        worker.start()
    gaps = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    for index, found in enumerate(gaps):
        found_ms = sorted(gap / 1e6 for gap in found)
        largest = ", ".join(f"{gap:.2f}" for gap in found_ms[-5:][::-1]) or "none"
        print(
            f"process {index}: {len(found_ms)} gaps over {args.threshold} ms in {args.seconds:g} s, "
            f"{sum(found_ms):.1f} ms in all; largest {largest} ms"
        )


if __name__ == "__main__":
    main()
