#!/usr/bin/env python3
"""Where a latency tail comes from: the episodes in a `stroke-bench --latency-trace FILE` trace.

An episode is a stretch of strokes, in the order their ends were sent, whose latency stays above BASE µs (default
500) and peaks above ABOVE µs (default 1500). It begins at the last stroke under BASE before the stretch. How the
latency got to its peak tells two causes apart:

- sudden: the peak came sooner after the episode began than the peak itself lasts (rise < peak latency). The peer
  stopped, or all but stopped: the host took its cores away for a while (a stall), and the first strokes sent into
  it waited for all of it.
- gradual: the latency built up over longer than its peak. The peer went on but more slowly than the load, for that
  long: it shared a core with another busy thread, say. A peer serving a fraction f of the load for D builds up a
  latency of D (1 - f) / f, so gradual means it served at least half the load.

With --timehist FILE, the output of `perf sched timehist` over the same run, each episode also lists what ran on
each CPU meanwhile. A sudden episode is listed from its peak's send for as long as the peak lasts, which is when the
stall was. A gradual one is listed from its beginning to its peak. Record both together, on one clock, with
`perf sched record -k CLOCK_MONOTONIC -o F -- stroke-bench … --latency-trace TRACE`, then run
`perf sched timehist -i F > TIMEHIST` (the trace's send times are CLOCK_MONOTONIC). perf's own writes show up in such
a run too: leave them out of the reading.

Usage: scripts/latency-episodes.py TRACE [--base US] [--above US] [--timehist TIMEHIST]
"""

import argparse
import collections
import csv
import re
import statistics
import sys
from typing import NamedTuple


def read_trace(path: str) -> dict:
    """{(run, peer): [(sent_us, latency_us), ...]} in the order the ends were sent."""
    strokes: dict = {}
    with open(path, newline="") as file:
        reader = csv.DictReader(file)
        missing = {"run", "peer", "sent_us", "latency_us"} - set(reader.fieldnames or [])
        if missing:
            raise SystemExit(f"latency-episodes: {path} is not a stroke-bench latency trace (no {sorted(missing)})")
        for line, row in enumerate(reader, start=2):
            try:
                key = (int(row["run"]), row["peer"])
                strokes.setdefault(key, []).append((float(row["sent_us"]), float(row["latency_us"])))
            except (TypeError, ValueError):
                raise SystemExit(f"latency-episodes: {path}:{line}: not a trace line: {row}")
    for samples in strokes.values():
        samples.sort()
    return strokes


class Episode(NamedTuple):
    """One episode, in µs: its peak latency, how long it took to get there (from its beginning to the send of the
    stroke that peaked), and when it began and that stroke was sent, on the trace's clock."""

    peak: float
    rise: float
    begin: float
    peak_sent: float


def episodes(samples: list, base: float, above: float) -> list:
    """The episodes of a run's strokes (`Episode`), in the order they began."""
    found = []
    index = 0
    while index < len(samples):
        if samples[index][1] < base:
            index += 1
            continue
        end = index
        while end < len(samples) and samples[end][1] >= base:
            end += 1
        peak_at = max(range(index, end), key=lambda k: samples[k][1])
        if samples[peak_at][1] > above:
            begin = samples[index - 1][0] if index > 0 else samples[index][0]
            peak_sent, peak = samples[peak_at]
            found.append(Episode(peak, peak_sent - begin, begin, peak_sent))
        index = end
    return found


def is_sudden(episode: Episode) -> bool:
    return episode.rise < episode.peak


# MARK: - What ran meanwhile

TIMEHIST_LINE = re.compile(
    r"^\s*(?P<time>\d+\.\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<task>.+?)\s+"
    r"(?P<wait>\d+\.\d+)\s+(?P<delay>\d+\.\d+)\s+(?P<run>\d+\.\d+)\s*$"
)


def read_timehist(path: str) -> list:
    """The slices `perf sched timehist` lists, as (start s, end s, cpu, task): each line is a task leaving a CPU
    after running `run time` ms on it. Task names keep their [tid/pid]."""
    slices = []
    with open(path) as file:
        for line in file:
            match = TIMEHIST_LINE.match(line)
            if match:
                end = float(match["time"])
                slices.append((end - float(match["run"]) / 1000, end, int(match["cpu"]), match["task"]))
    if not slices:
        raise SystemExit(f"latency-episodes: {path} holds no `perf sched timehist` lines")
    return slices


def what_ran(slices: list, start_s: float, end_s: float, top: int = 4) -> str:
    """The tasks that ran on each CPU between two times, the busiest first, as shares of that time."""
    length = end_s - start_s
    shares: dict = collections.defaultdict(lambda: collections.defaultdict(float))
    for begin, end, cpu, task in slices:
        overlap = min(end, end_s) - max(begin, start_s)
        if overlap > 0:
            shares[cpu][task] += overlap / length
    return "; ".join(
        f"CPU {cpu}: "
        + ", ".join(f"{task} {100 * share:.0f}%" for task, share in sorted(tasks.items(), key=lambda t: -t[1])[:top])
        for cpu, tasks in sorted(shares.items())
    ) or "nothing recorded"


def ran_during(episode: Episode, slices: list) -> str:
    """What ran while a sudden episode's stall lasted, or while a gradual one built up."""
    if is_sudden(episode):
        start_us, end_us = episode.peak_sent, episode.peak_sent + episode.peak
    else:
        start_us, end_us = episode.begin, episode.peak_sent
    return what_ran(slices, start_us / 1e6, end_us / 1e6)


def span(values: list, scale: float = 1000.0, unit: str = "ms") -> str:
    if not values:
        return "none"
    low, high = min(values) / scale, max(values) / scale
    return f"{low:.1f} {unit}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f} {unit}"


def describe(run: int, peer: str, samples: list, base: float, above: float, slices: "list | None" = None) -> str:
    latencies = sorted(latency for _, latency in samples)
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    found = episodes(samples, base, above)
    sudden = [episode for episode in found if is_sudden(episode)]
    gradual = [episode for episode in found if not is_sudden(episode)]
    text = (
        f"run {run} {peer}: {len(samples)} strokes, p50 {p50:.0f} µs, p99 {p99:.0f} µs; {len(found)} episodes peaking "
        f"over {above:.0f} µs: {len(sudden)} sudden"
        + (f" (peaks {span([e.peak for e in sudden])})" if sudden else "")
        + f", {len(gradual)} gradual"
        + (
            f" (peaks {span([e.peak for e in gradual])}, built up over {span([e.rise for e in gradual])})"
            if gradual
            else ""
        )
    )
    if slices is None:
        return text
    for episode in found:
        kind = "sudden" if is_sudden(episode) else "gradual"
        text += f"\n  {kind}, peak {episode.peak / 1000:.1f} ms: {ran_during(episode, slices)}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--base", type=float, default=500.0, help="µs an episode stays above (default 500)")
    parser.add_argument("--above", type=float, default=1500.0, help="µs an episode peaks above (default 1500)")
    parser.add_argument("--timehist", help="`perf sched timehist` of the same run: what ran on each CPU meanwhile")
    args = parser.parse_args()
    if not 0 < args.base <= args.above:
        parser.error("--base must be positive and no more than --above")
    try:
        strokes = read_trace(args.trace)
    except OSError as error:
        raise SystemExit(f"latency-episodes: {error}")
    if not strokes:
        raise SystemExit(f"latency-episodes: {args.trace} holds no strokes")
    try:
        slices = read_timehist(args.timehist) if args.timehist else None
    except OSError as error:
        raise SystemExit(f"latency-episodes: {error}")
    for (run, peer), samples in sorted(strokes.items(), key=lambda item: (item[0][0], item[0][1] != "worker")):
        print(describe(run, peer, samples, args.base, args.above, slices))


if __name__ == "__main__":
    sys.exit(main())
