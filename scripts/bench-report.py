#!/usr/bin/env python3
"""Issue 6's figures from several runs of stroke-bench: takes the runs, then reports them against the targets.

The machine is noisy, so the targets are judged on medians of runs. `run` takes RUNS full runs
(`stroke-bench --json`, files R1.json…), LATENCY_RUNS runs of the latency section alone at half capacity
(`--only latency --capacity C --runs 1`, files V1.json…) and LIGHT_RUNS of it at a light load (50 k msg/s by default,
files L1.json…), each after `scripts/stalls.py` has watched the idle machine (stalls-R1.txt…), into a directory,
with each run's wall-clock time (R1.seconds…). `summary` reads such a directory and prints Markdown: every target
with the medians and a verdict, the throughput cases with the CPU each party spent per message in the run with the
median ratio, the ratio that CPU accounts for and the worker CPU a target allowed, the latency runs beside the
host's stalls before each, memory, the recognizer, and how long the full runs took (the issue asks for under 5
minutes). The tables of Benchmarks.md and docs/Performance.md come from it.

Usage:
  scripts/bench-report.py run --out DIR [--runs 3] [--latency-runs 3] [--capacity MSG_PER_S]
                          [--light-runs 3] [--light-load MSG_PER_S]
                          [--bench PATH] [--dataset DIR] [--stall-seconds 10]
  scripts/bench-report.py summary DIR
  scripts/bench-report.py DIR                (the same as summary)
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def default_dataset():
    """The data set beside the checkout, or None (stroke-bench then says it draws synthetic strokes)."""
    path = os.path.join(ROOT, "..", "shared", "datasets", "dollar1")
    return path if os.path.isdir(path) else None


# Issue 6's targets.
BINARY_RATIO = 0.5
JSON_RATIO = 0.25
LATENCY_MARGIN_US = 100.0
BYTES_PER_SESSION = 2048
SESSIONS = 100_000
RECOGNIZER_48_US = 5.0
RECOGNIZER_10000_US = 1000.0
FULL_RUN_SECONDS = 300.0

# MARK: - Reading runs


def load_runs(directory: str, prefix: str) -> list:
    """The runs `PREFIX1.json`, `PREFIX2.json`… in `directory`, in order, each with its name and stalls line."""
    runs = []
    pattern = re.compile(rf"^{prefix}(\d+)\.json$")
    names = sorted(
        (int(m.group(1)), m.group(0)) for m in map(pattern.match, os.listdir(directory)) if m is not None
    )
    for number, name in names:
        path = os.path.join(directory, name)
        try:
            with open(path) as file:
                report = json.load(file)
        except (OSError, json.JSONDecodeError) as error:
            raise SystemExit(f"bench-report: {path} is not a stroke-bench --json report: {error}")
        if not isinstance(report, dict):
            raise SystemExit(f"bench-report: {path} holds no JSON object")
        report["_name"] = f"{prefix}{number}"
        report["_stalls"] = largest_stalls(os.path.join(directory, f"stalls-{prefix}{number}.txt"))
        report["_seconds"] = wall_seconds(os.path.join(directory, f"{prefix}{number}.seconds"))
        runs.append(report)
    return runs


def wall_seconds(path: str) -> "float | None":
    """The wall-clock seconds a run took, as `run` wrote them; None without the file (runs taken before it did)."""
    try:
        with open(path) as file:
            return float(file.read().strip())
    except (OSError, ValueError):
        return None


def largest_stalls(path: str) -> list:
    """The largest gap each watching process saw in a `scripts/stalls.py` log, in ms; [] without the log."""
    try:
        with open(path) as file:
            text = file.read()
    except OSError:
        return []
    return [float(m.group(1)) for m in re.finditer(r"largest ([\d.]+)", text)]


def case_key(row: dict) -> tuple:
    return (row["encoding"], row["pointsPerMessage"], row["sessions"])


# MARK: - Arithmetic


def worker_cpu(row: dict) -> float:
    """The worker's CPU per message, µs: its lane, recognition helper, libzmq I/O and other threads."""
    cpu = row["workerCPU"]
    return cpu["lane"] + cpu["recognition"] + cpu["io"] + cpu.get("other", 0.0)


def accounted_raw_rate(row: dict) -> float:
    """What the raw runs' accounting buys, b′ / (p + r): the mean over the two raw runs of each one's own, as the raw
    rate is the mean of their rates (`rawRuns`); from the means of their figures for runs taken before stroke-bench
    recorded each (session 62)."""
    runs = row.get("rawRuns") or []
    if not runs:
        return row["machineBusyRaw"] / (row["producerCPUMicroseconds"] + row["rawCPUMicroseconds"])
    return sum(
        run["machineBusy"] / (run["producerCPUMicroseconds"] + run["consumerCPUMicroseconds"]) for run in runs
    ) / len(runs)


def accounted_ratio(row: dict) -> float:
    """The ratio the parties' CPU accounts for: (b / (p′ + w + c)) ÷ (b′ / (p + r)), Benchmarks.md's formula."""
    worker_rate = row["machineBusyWorker"] / (
        row["producerCPUWorkerRunMicroseconds"] + worker_cpu(row) + row["counterCPUMicroseconds"]
    )
    return worker_rate / accounted_raw_rate(row)


def allowed_worker_cpu(row: dict, target: float) -> float:
    """The worker CPU per message, µs, at which the accounted ratio reaches `target`, all else as measured:
    w = b / (target · b′ / (p + r)) − p′ − c."""
    allowed = row["machineBusyWorker"] / (target * accounted_raw_rate(row))
    return allowed - row["producerCPUWorkerRunMicroseconds"] - row["counterCPUMicroseconds"]


def ratio_target(row: dict) -> float:
    return BINARY_RATIO if row["encoding"] == "binary" else JSON_RATIO


def median_row(rows: list) -> dict:
    """The row with the median ratio (the lower middle one of an even count)."""
    ordered = sorted(rows, key=lambda row: row["ratio"])
    return ordered[(len(ordered) - 1) // 2]


def span(values: list, digits: int = 2) -> str:
    """The range of the values, as "low–high", or the one value where both ends round alike."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def spread(values: list, digits: int = 2) -> str:
    """The median, with the range when the values differ."""
    text = f"{statistics.median(values):.{digits}f}"
    bounds = span(values, digits)
    return text if "–" not in bounds else f"{text} ({bounds})"


def rate(value: float) -> str:
    return f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.0f} k"


def milliseconds(microseconds: float) -> str:
    return f"{microseconds:.0f} µs" if microseconds < 1000 else f"{microseconds / 1000:.2f} ms"


def latency_verdict(latency: dict) -> tuple:
    """Whether a latency run met p99 ≤ raw p99 + 100 µs, and by how much it missed (µs; ≤ 0 when met)."""
    excess = latency["p99Us"] - latency["rawP99Us"] - LATENCY_MARGIN_US
    return excess <= 0, excess


# MARK: - Report


def throughput_rows(runs: list) -> list:
    """Every throughput case of the runs, in the order they first appear: (case, its row in each run that has it)."""
    cases = {}
    for run in runs:
        for row in run.get("throughput", []):
            cases.setdefault(case_key(row), []).append(row)
    return list(cases.items())


def target_row(target: str, figures: str, met: bool) -> str:
    """A row of the targets' table for a target judged once."""
    return f"| {target} | {figures} | {'✓' if met else '✗'} |"


def targets_table(runs: list, cases: list) -> list:
    lines = ["| target | medians of the runs | status |", "| --- | --- | --- |"]
    for encoding, points, target in (("binary", 1, BINARY_RATIO), ("binary", 32, BINARY_RATIO),
                                     ("json", 1, JSON_RATIO), ("json", 32, JSON_RATIO)):
        found = [(key, rows) for key, rows in cases if key[0] == encoding and key[1] == points]
        if not found:
            continue
        medians = [statistics.median(row["ratio"] for row in rows) for _, rows in found]
        sessions = " / ".join(f"{key[2]:,}" for key, _ in found)
        status = " / ".join("✓" if value >= target else "✗" for value in medians)
        name = "JSON" if encoding == "json" else encoding
        lines.append(
            f"| worker ÷ raw ≥ {target}, {name}, {points} point{'s' if points > 1 else ''} per message, "
            f"{sessions} sessions | {' / '.join(f'{value:.2f}' for value in medians)} | {status} |"
        )
    latencies = [run["latency"] for run in runs if run.get("latency")]
    if latencies:
        p99 = statistics.median(latency["p99Us"] for latency in latencies)
        raw = statistics.median(latency["rawP99Us"] for latency in latencies)
        lines.append(target_row(
            "stroke end → match p99 ≤ raw p99 + 100 µs, at half capacity",
            f"{milliseconds(p99)} against {milliseconds(raw)} (raw)", p99 <= raw + LATENCY_MARGIN_US,
        ))
    memories = [run["memory"] for run in runs if run.get("memory")]
    if memories:
        per_session = statistics.median(memory["bytesPerSession"] for memory in memories)
        sessions = min(memory.get("idleSessions", 0) for memory in memories)
        lines.append(target_row(
            "≤ 2 KB per idle session; 100,000 sessions in one worker", f"{per_session:.0f} bytes, {sessions:,} sessions",
            per_session <= BYTES_PER_SESSION and sessions >= SESSIONS,
        ))
    at48 = recognizer_values(runs, 48)
    at10000 = recognizer_values(runs, 10000)
    if at48 and at10000:
        small, large = statistics.median(at48), statistics.median(at10000)
        lines.append(target_row(
            "recognizer ≤ 5 µs at 48 templates, ≤ 1 ms at 10,000", f"{small:.2f} µs, {large:.1f} µs",
            small <= RECOGNIZER_48_US and large <= RECOGNIZER_10000_US,
        ))
    return lines


def recognizer_values(runs: list, templates: int) -> list:
    return [row["microseconds"] for run in runs for row in run.get("recognizer", []) if row["templates"] == templates]


def helper_waits(row: dict) -> str:
    """The share of the run the worker's lanes waited for their recognition helpers, and the waits per second;
    "–" for a report from a stroke-bench that did not read them."""
    waits = row.get("helperWaits")
    if not waits:
        return "–"
    return f"{waits['share']:.0%} ({waits['perSecond']:.0f})"


def throughput_table(cases: list) -> list:
    lines = [
        "| case | ratio | worker msg/s | worker points/s | raw msg/s | raw points/s | worker CPU: lane / helper / "
        "I/O (lane waiting) | raw | producer (raw runs) | counter | busy: worker / raw | accounted ratio | "
        "worker CPU allowed / spent | lane waits for helper: share (per s) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (encoding, points, sessions), rows in cases:
        row = median_row(rows)
        cpu = row["workerCPU"]

        def middle(key: str) -> float:
            return statistics.median(run[key] for run in rows)

        name = "JSON" if encoding == "json" else encoding
        lines.append(
            f"| {name}, {points} pt, {sessions:,} | {spread([run['ratio'] for run in rows])} | "
            f"{rate(middle('workerMessagesPerSecond'))} | {rate(middle('workerPointsPerSecond'))} | "
            f"{rate(middle('rawMessagesPerSecond'))} | {rate(middle('rawPointsPerSecond'))} | "
            f"{cpu['lane']:.2f} / {cpu['recognition']:.2f} / {cpu['io']:.2f} ({cpu.get('laneWaiting', 0):.2f}) | "
            f"{row['rawCPUMicroseconds']:.2f} | {row['producerCPUWorkerRunMicroseconds']:.2f} "
            f"({row['producerCPUMicroseconds']:.2f}) | {row['counterCPUMicroseconds']:.2f} | "
            f"{row['machineBusyWorker']:.0%} / {row['machineBusyRaw']:.0%} | {accounted_ratio(row):.2f} | "
            f"{allowed_worker_cpu(row, ratio_target(row)):.2f} / {worker_cpu(row):.2f} | {helper_waits(row)} |"
        )
    errors = [(abs(accounted_ratio(row) - row["ratio"]), key) for key, rows in cases for row in rows]
    if errors:
        batched = [error for error, key in errors if key[0] == "binary" and key[1] > 1]
        lines.append("")
        lines.append(
            f"The accounted ratio was within {max(error for error, _ in errors):.3f} of the measured one in all "
            f"{len(errors)} rows of the runs"
            + (f", within {max(batched):.3f} in the {len(batched)} batched binary rows." if batched else ".")
        )
    return lines


def latency_table(runs: list) -> list:
    lines = [
        "| run | load (msg/s) | worker p50 / p99 / p99.9 | raw p50 / p99 / p99.9 | verdict | largest stalls "
        "before it |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        latency = run.get("latency")
        if not latency:
            continue
        met, excess = latency_verdict(latency)
        stalls = ", ".join(f"{value:.1f}" for value in run["_stalls"]) + " ms" if run["_stalls"] else "not watched"
        lines.append(
            f"| {run['_name']} | {rate(latency['offeredMessagesPerSecond'])} | {milliseconds(latency['p50Us'])} / "
            f"{milliseconds(latency['p99Us'])} / {milliseconds(latency['p999Us'])} | "
            f"{milliseconds(latency['rawP50Us'])} / {milliseconds(latency['rawP99Us'])} / "
            f"{milliseconds(latency.get('rawP999Us', 0))} | "
            f"{'met' if met else 'missed by ' + milliseconds(excess)} | {stalls} |"
        )
    return lines


def latency_notes(loaded: list, light: list) -> list:
    """How far the worker's p50 sat above the echo's at half capacity, and how the light-load runs fared."""
    lines = []

    def gaps(runs: list) -> str:
        """"sat 32–137 µs above", or where the worker's p50 was below the echo's in some run, "sat from 179 µs
        below to 168 µs above"."""
        values = [run["latency"]["p50Us"] - run["latency"]["rawP50Us"] for run in runs]
        if min(values) >= 0:
            return "sat " + span(values, 0) + " µs above"
        high = max(values)
        return (
            f"sat from {-min(values):.0f} µs below to {abs(high):.0f} µs {'above' if high >= 0 else 'below'}"
        )

    loaded = [run for run in loaded if run.get("latency")]
    light = [run for run in light if run.get("latency")]
    if loaded:
        lines.append(
            f"- At half capacity ({', '.join(run['_name'] for run in loaded)}) the worker's p50 {gaps(loaded)} "
            "the echo's."
        )
    if light:
        verdicts = [latency_verdict(run["latency"])[0] for run in light]
        load = rate(statistics.median(run["latency"]["offeredMessagesPerSecond"] for run in light))
        p99s = ", ".join(milliseconds(run["latency"]["p99Us"]) for run in light)
        raws = ", ".join(milliseconds(run["latency"]["rawP99Us"]) for run in light)
        lines.append(
            f"- At a light load ({', '.join(run['_name'] for run in light)}, {load} msg/s) the target was met in "
            f"{sum(verdicts)} of {len(light)} runs: p99 {p99s} against the echo's {raws}; the worker's p50 "
            f"{gaps(light)} the echo's."
        )
    return lines


def run_times(runs: list) -> list:
    """How long the full runs took, against the issue's bound, where `run` recorded it."""
    seconds = [run["_seconds"] for run in runs if run.get("_seconds") is not None]
    if not seconds:
        return []
    verdict = "under" if max(seconds) < FULL_RUN_SECONDS else "not under"
    return [
        f"- Each full run (`stroke-bench --json`) took {spread(seconds, 1)} s of wall-clock time: {verdict} the "
        f"issue's {FULL_RUN_SECONDS / 60:.0f} minutes."
    ]


def other_figures(runs: list) -> list:
    lines = []
    memories = [run["memory"] for run in runs if run.get("memory")]
    if memories:
        lines.append(
            f"- Memory: {spread([m['bytesPerSession'] for m in memories], 0)} bytes per idle session; "
            f"{spread([m['residentBytesEmpty'] / 1e6 for m in memories], 1)} MB empty, "
            f"{spread([m['residentBytesLoaded'] / 1e6 for m in memories], 1)} MB with "
            f"{memories[0].get('idleSessions', 0):,} sessions."
        )
    counts = sorted({row["templates"] for run in runs for row in run.get("recognizer", [])})
    if counts:
        figures = "; ".join(f"{count}: {spread(recognizer_values(runs, count))}" for count in counts)
        lines.append(f"- Recognizer, µs per recognition by templates in the library: {figures}.")
    for key, label, field in (
        ("recognizerLearned", "with a session's learned templates", "learned"),
        ("recognizerAmong", "among some of its gestures", "among"),
    ):
        values = {}
        for run in runs:
            for row in run.get(key, []):
                values.setdefault(row[field], []).append(row["microseconds"])
        if values:
            figures = "; ".join(f"{name}: {spread(times)}" for name, times in values.items())
            lines.append(f"- Recognizer {label} ({field}), µs: {figures}.")
    detector = [run["detectorNanosecondsPerPoint"] for run in runs if "detectorNanosecondsPerPoint" in run]
    single = [run["detectorNanosecondsPerSinglePoint"] for run in runs if "detectorNanosecondsPerSinglePoint" in run]
    if detector:
        one_at_a_time = f"; {spread(single, 1)} fed one point at a time" if single else ""
        lines.append(f"- Checkmark detector: {spread(detector, 1)} ns per point in whole strokes{one_at_a_time}.")
    return lines


def host_line(host: dict) -> str:
    """A run's host as stroke-bench's text report gives it (`host` in its JSON, since session 75)."""
    family = host.get("cpuFamily")
    model = host.get("cpuModel")
    numbers = "" if family is None else f" (family {family}" + ("" if model is None else f", model {model}") + ")"
    return f"{host.get('cpu', 'unknown')}{numbers}, {host.get('cores')} cores, Linux {host.get('kernel')}, " \
        f"libzmq {host.get('libzmq')}"


def host_lines(runs: list) -> list:
    """The host the runs measured, or each run's where they differ; nothing for runs older than session 75. Hosts of
    one size differ (session 75's ran the raw pair half as fast again as session 74's), which moves the ratios."""
    described = [(run["_name"], host_line(run["host"])) for run in runs if isinstance(run.get("host"), dict)]
    if not described:
        return []
    if len({line for _, line in described}) == 1:
        return [f"Host: {described[0][1]}."]
    return ["Hosts differ between the runs:"] + [f"- {name}: {line}" for name, line in described]


def summary(directory: str) -> str:
    full = load_runs(directory, "R")
    latency_only = load_runs(directory, "V")
    light = load_runs(directory, "L")
    every = full + latency_only + light
    if not every:
        raise SystemExit(f"bench-report: no R1.json, V1.json or L1.json in {directory}")
    cases = throughput_rows(full)
    names = ", ".join(run["_name"] for run in every)
    sections = [f"# stroke-bench runs in {directory} ({names})", ""]
    hosts = host_lines(every)
    if hosts:
        sections += hosts + [""]
    synthetic = [run["_name"] for run in every if run.get("strokes") == "synthetic"]
    if synthetic:
        sections += [
            f"**Synthetic strokes** in {', '.join(synthetic)}: stroke-bench found no data set, so these figures are not "
            "comparable with the data set's (`--dataset DIR`).",
            "",
        ]
    if full:
        sections += ["## Targets (medians of " + ", ".join(run["_name"] for run in full) + ")", ""]
        sections += targets_table(full, cases) + [""]
    if cases:
        sections += ["## Throughput (medians, ranges; CPU per message in µs in the run with the median ratio)", ""]
        sections += throughput_table(cases) + [""]
    if any(run.get("latency") for run in every):
        sections += ["## Latency", ""] + latency_table(every) + [""]
        sections += latency_notes(full + latency_only, light) + [""]
    others = other_figures(full) + run_times(full)
    if others:
        sections += ["## Memory and recognizer", ""] + others + [""]
    return "\n".join(sections)


# MARK: - Taking the runs


def take_runs(args: argparse.Namespace) -> None:
    os.makedirs(args.out, exist_ok=True)
    stalls = os.path.join(ROOT, "scripts", "stalls.py")

    def watch(name: str) -> None:
        if args.stall_seconds > 0:
            with open(os.path.join(args.out, f"stalls-{name}.txt"), "w") as log:
                subprocess.run(
                    [sys.executable, stalls, "--seconds", str(args.stall_seconds)], stdout=log, stderr=log, check=True
                )

    def bench(name: str, extra: list) -> dict:
        command = [args.bench, "--json"] + (["--dataset", args.dataset] if args.dataset else []) + extra
        print(f"bench-report: {name}: {' '.join(command)}", file=sys.stderr, flush=True)
        path = os.path.join(args.out, f"{name}.json")
        with open(path, "w") as out, open(os.path.join(args.out, f"{name}.err"), "w") as err:
            start = time.monotonic()
            result = subprocess.run(command, stdout=out, stderr=err)
            seconds = time.monotonic() - start
        if result.returncode != 0:
            raise SystemExit(f"bench-report: {name} failed (exit {result.returncode}); see {name}.err in {args.out}")
        with open(os.path.join(args.out, f"{name}.seconds"), "w") as file:
            file.write(f"{seconds:.2f}\n")
        with open(path) as file:
            return json.load(file)

    capacities = []
    for run in range(1, args.runs + 1):
        watch(f"R{run}")
        report = bench(f"R{run}", [])
        capacities += [
            row["workerMessagesPerSecond"] for row in report.get("throughput", []) if case_key(row) == ("binary", 1, 1000)
        ]
    capacity = args.capacity
    if capacity is None and args.latency_runs > 0:
        if not capacities:
            raise SystemExit("bench-report: no binary 1-point 1,000-session capacity measured; give --capacity")
        capacity = round(statistics.median(capacities), -4)
    for run in range(1, args.latency_runs + 1):
        watch(f"V{run}")
        bench(f"V{run}", ["--only", "latency", "--capacity", f"{capacity:.0f}", "--runs", "1"])
    # The latency section offers half the capacity it is given.
    for run in range(1, args.light_runs + 1):
        watch(f"L{run}")
        bench(f"L{run}", ["--only", "latency", "--capacity", f"{2 * args.light_load:.0f}", "--runs", "1"])


def main() -> None:
    arguments = sys.argv[1:]
    if arguments and arguments[0] not in ("run", "summary", "-h", "--help"):
        arguments = ["summary"] + arguments
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="take the runs into a directory")
    run.add_argument("--out", required=True, help="the directory for the runs' files")
    run.add_argument("--runs", type=int, default=3, help="full runs, R1… (default 3)")
    run.add_argument("--latency-runs", type=int, default=3, help="runs of the latency section alone, V1… (default 3)")
    run.add_argument(
        "--capacity", type=float, help="the capacity whose half the V runs offer (default: the R runs' median "
        "binary 1-point capacity at 1,000 sessions, to 10,000 msg/s)"
    )
    run.add_argument(
        "--light-runs", type=int, default=3, help="runs of the latency section alone at --light-load, L1… (default 3)"
    )
    run.add_argument(
        "--light-load", type=float, default=50_000, help="the light runs' offered load, msg/s (default 50000)"
    )
    run.add_argument("--bench", default=os.path.join(ROOT, ".build", "release", "stroke-bench"))
    run.add_argument(
        "--dataset", default=default_dataset(),
        help="stroke-bench --dataset (default ../shared/datasets/dollar1 if there)",
    )
    run.add_argument(
        "--stall-seconds", type=float, default=10, help="scripts/stalls.py before each run (default 10; 0: none)"
    )
    report = commands.add_parser("summary", help="report the runs in a directory")
    report.add_argument("directory")
    args = parser.parse_args(arguments)
    if args.command == "run":
        counts = (args.runs, args.latency_runs, args.light_runs)
        if min(counts) < 0 or sum(counts) == 0:
            parser.error("--runs, --latency-runs and --light-runs must not be negative, and one of them positive")
        if not args.light_load > 0:
            parser.error("--light-load must be positive")
        if args.capacity is not None and not args.capacity > 0:
            parser.error("--capacity must be positive")
        if not os.access(args.bench, os.X_OK):
            parser.error(f"{args.bench} is not an executable stroke-bench (make release builds it)")
        take_runs(args)
        print(summary(args.out))
    else:
        if not os.path.isdir(args.directory):
            parser.error(f"{args.directory} is not a directory")
        print(summary(args.directory))


if __name__ == "__main__":
    main()
