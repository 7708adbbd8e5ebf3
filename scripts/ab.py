#!/usr/bin/env python3
"""Compares two builds in alternating pairs of `stroke-bench` runs: is B faster than A, or is it the host's noise?

Each pair runs A and B once each, in the order A B, then B A, A B, ... (so that a host that drifts faster or slower
during the comparison favours neither), and the comparison is made within each pair: B's rate over A's. The summary
gives the median and range of those quotients, how many pairs B won, and a two-sided sign test's p: with 4 pairs
even 4 wins of 4 gives p = 0.125, so a change within a few per cent needs many pairs (or `make profile`, whose
instruction counts repeat) before it is told from the noise.

A and B are directories that hold the builds (`stroke-worker`, `stroke-bench`), copies of `.build/release` made
before and after a change. The throughput section (the default) runs A's `stroke-bench` against each side's
`stroke-worker` (`--worker`), so that both sides get the same load; the processor and recognizer sections, whose
code is in `stroke-bench` itself, run each side's own.

Usage:
  scripts/ab.py A B [--pairs 4] [--section throughput|processor|recognizer] [--case binary-32] [--sessions 1000]
                [--messages 4000000] [--templates builtin] [--a-worker-args ARGS] [--b-worker-args ARGS]
                [--a-env K=V ...] [--b-env K=V ...] [--dataset DIR] [--json FILE]
  scripts/ab.py --report FILE      (the runs of an earlier --json, summarized again)
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_dataset():
    """The data set beside the checkout, or None (stroke-bench then says it draws synthetic strokes)."""
    path = os.path.join(ROOT, "..", "shared", "datasets", "dollar1")
    return path if os.path.isdir(path) else None


def order(pairs):
    """The sides of each pair in the order they run: A B, B A, A B, ..."""
    return [("A", "B") if index % 2 == 0 else ("B", "A") for index in range(pairs)]


def sign_test(wins, pairs):
    """Two-sided p of `wins` of `pairs` under the hypothesis that either side wins a pair half the time."""
    if pairs == 0:
        return 1.0
    extreme = max(wins, pairs - wins)
    tail = sum(math.comb(pairs, k) for k in range(extreme, pairs + 1)) / 2 ** pairs
    return min(1.0, 2 * tail)


def measure(section, report):
    """The figure a section's report is compared by, and whether higher is better: the worker's messages a
    second (throughput), the processor's messages a second, or µs per recognition (recognizer, its first row)."""
    if section == "throughput":
        return report["throughput"][0]["workerMessagesPerSecond"], True
    if section == "processor":
        return report["processor"][0]["messagesPerSecond"], True
    if section == "recognizer":
        return report["recognizer"][0]["microseconds"], False
    raise ValueError(f"unknown section {section}")


def details(section, report):
    """A run's figures beside the measure, as text: for throughput the worker's CPU a message (lane / helper /
    I/O), how busy the machine was, and how long the lane waited for its helper."""
    if section != "throughput":
        return ""
    row = report["throughput"][0]
    cpu = row.get("workerCPU", {})
    text = "CPU {:.2f} / {:.2f} / {:.2f} µs, busy {:.0%}".format(
        cpu.get("lane", 0), cpu.get("recognition", 0), cpu.get("io", 0), row.get("machineBusyWorker", 0))
    waits = row.get("helperWaits")
    if waits:
        text += ", helper waits {:.0%}".format(waits["share"])
    return text


def summarize(section, runs):
    """Per pair, B's figure over A's (above 1: B faster, whichever way the figure goes), and the summary lines."""
    lines = []
    quotients = []
    for pair in runs:
        a, higher = measure(section, pair["A"])
        b, _ = measure(section, pair["B"])
        quotient = b / a if higher else a / b
        quotients.append(quotient)
        lines.append("pair {} ({}): A {} ({}), B {} ({}): B/A {:.3f}".format(
            pair["pair"], " ".join(pair["order"]), format_figure(section, a), details(section, pair["A"]),
            format_figure(section, b), details(section, pair["B"]), quotient))
    if quotients:
        wins = sum(1 for q in quotients if q > 1)
        lines.append("B/A (above 1: B faster): median {:.3f}, range {:.3f}–{:.3f}; B faster in {} of {} pairs, "
                     "sign test p = {:.2f}".format(statistics.median(quotients), min(quotients), max(quotients),
                                                   wins, len(quotients), sign_test(wins, len(quotients))))
    return quotients, lines


def format_figure(section, value):
    if section == "recognizer":
        return "{:.2f} µs".format(value)
    return "{:,.0f} msg/s".format(value)


def command(section, args, side):
    """The `stroke-bench` command line of one run of `side` ("A" or "B")."""
    home = args.a if side == "A" else args.b
    if section == "throughput":
        bench = os.path.join(args.a, "stroke-bench")
        cmd = [bench, "--json", "--only", "throughput", "--runs", "1", "--cases", args.case,
               "--sessions", str(args.sessions), "--messages", str(args.messages),
               "--worker", os.path.join(home, "stroke-worker")]
        extra = args.a_worker_args if side == "A" else args.b_worker_args
        if extra:
            cmd += ["--worker-args", extra]
    elif section == "processor":
        cmd = [os.path.join(home, "stroke-bench"), "--json", "--only", "processor", "--runs", "1",
               "--cases", args.case, "--sessions", str(args.sessions)]
    else:
        cmd = [os.path.join(home, "stroke-bench"), "--json", "--only", "recognizer", "--runs", "1",
               "--templates", args.templates, "--learned", "0", "--among", "0"]
    return cmd + (["--dataset", args.dataset] if args.dataset else [])


def environment(settings):
    """The environment of a run: this one's, with the side's `K=V` settings."""
    env = dict(os.environ)
    for setting in settings or []:
        key, _, value = setting.partition("=")
        env[key] = value
    return env


def run(args):
    runs = []
    for index, sides in enumerate(order(args.pairs), start=1):
        pair = {"pair": index, "order": list(sides)}
        for side in sides:
            cmd = command(args.section, args, side)
            env = environment(args.a_env if side == "A" else args.b_env)
            done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit("ab.py: {} failed ({}):\n{}".format(" ".join(cmd), done.returncode, done.stderr[-2000:]))
            pair[side] = json.loads(done.stdout)
        runs.append(pair)
        print(summarize(args.section, [pair])[1][0], flush=True)
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", nargs="?", help="directory of build A (stroke-worker, stroke-bench)")
    parser.add_argument("b", nargs="?", help="directory of build B")
    parser.add_argument("--pairs", type=int, default=4, help="pairs of runs (default 4)")
    parser.add_argument("--section", choices=["throughput", "processor", "recognizer"], default="throughput")
    parser.add_argument("--case", default="binary-32", help="ENCODING-POINTS (default binary-32)")
    parser.add_argument("--sessions", type=int, default=1000, help="concurrent sessions (default 1000)")
    parser.add_argument("--messages", type=int, default=4000000,
                        help="stroke-bench --messages for throughput (default 4000000: 1,000,000 32-point ones)")
    parser.add_argument("--templates", default="builtin", help="recognizer library (default builtin)")
    parser.add_argument("--a-worker-args", default="", help="stroke-bench --worker-args for A's worker")
    parser.add_argument("--b-worker-args", default="", help="stroke-bench --worker-args for B's worker")
    parser.add_argument("--a-env", action="append", help="K=V in the environment of A's runs (repeatable)")
    parser.add_argument("--b-env", action="append", help="K=V in the environment of B's runs (repeatable)")
    parser.add_argument(
        "--dataset", default=default_dataset(),
        help="stroke-bench --dataset (default ../shared/datasets/dollar1 if there)",
    )
    parser.add_argument("--json", help="write the runs (each side's stroke-bench report, per pair) to FILE")
    parser.add_argument("--report", help="summarize the runs of an earlier --json instead of running")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as source:
            saved = json.load(source)
        _, lines = summarize(saved["section"], saved["runs"])
        print("\n".join(lines))
        return
    if not args.a or not args.b:
        parser.error("two build directories, A and B, are needed (or --report FILE)")
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    for setting in (args.a_env or []) + (args.b_env or []):
        if "=" not in setting or setting.startswith("="):
            parser.error(f"an environment setting is K=V, not {setting!r}")
    for home in (args.a, args.b):
        for name in ("stroke-bench", "stroke-worker"):
            if not os.access(os.path.join(home, name), os.X_OK):
                parser.error(f"{home} has no executable {name} (copy .build/release's there)")
    runs = run(args)
    if args.json:
        with open(args.json, "w") as target:
            json.dump({"section": args.section, "a": args.a, "b": args.b, "runs": runs}, target)
    print(summarize(args.section, runs)[1][-1])


if __name__ == "__main__":
    main()
