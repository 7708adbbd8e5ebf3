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

Usage: scripts/latency-episodes.py TRACE [--base US] [--above US]
"""

import argparse
import csv
import statistics
import sys


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


def episodes(samples: list, base: float, above: float) -> list:
    """Each episode as (peak latency, rise, length), in µs: rise from its beginning to its peak's send, length to
    its last stroke over `base`."""
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
            found.append(
                (samples[peak_at][1], samples[peak_at][0] - begin, samples[end - 1][0] - begin)
            )
        index = end
    return found


def is_sudden(episode: tuple) -> bool:
    peak, rise, _ = episode
    return rise < peak


def span(values: list, scale: float = 1000.0, unit: str = "ms") -> str:
    if not values:
        return "none"
    low, high = min(values) / scale, max(values) / scale
    return f"{low:.1f} {unit}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f} {unit}"


def describe(run: int, peer: str, samples: list, base: float, above: float) -> str:
    latencies = sorted(latency for _, latency in samples)
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    found = episodes(samples, base, above)
    sudden = [episode for episode in found if is_sudden(episode)]
    gradual = [episode for episode in found if not is_sudden(episode)]
    return (
        f"run {run} {peer}: {len(samples)} strokes, p50 {p50:.0f} µs, p99 {p99:.0f} µs; {len(found)} episodes peaking "
        f"over {above:.0f} µs: {len(sudden)} sudden (peaks {span([e[0] for e in sudden])}), {len(gradual)} gradual "
        f"(peaks {span([e[0] for e in gradual])}, built up over {span([e[1] for e in gradual])})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--base", type=float, default=500.0, help="µs an episode stays above (default 500)")
    parser.add_argument("--above", type=float, default=1500.0, help="µs an episode peaks above (default 1500)")
    args = parser.parse_args()
    if not 0 < args.base <= args.above:
        parser.error("--base must be positive and no more than --above")
    try:
        strokes = read_trace(args.trace)
    except OSError as error:
        raise SystemExit(f"latency-episodes: {error}")
    if not strokes:
        raise SystemExit(f"latency-episodes: {args.trace} holds no strokes")
    for (run, peer), samples in sorted(strokes.items(), key=lambda item: (item[0][0], item[0][1] != "worker")):
        print(describe(run, peer, samples, args.base, args.above))


if __name__ == "__main__":
    sys.exit(main())
