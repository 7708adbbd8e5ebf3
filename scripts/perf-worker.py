#!/usr/bin/env python3
"""Where the real worker's threads spend their time under the throughput benchmark's load, by function and library.

`make profile` counts the instructions of the worker's per-message code in one process, without sockets: it
repeats to 0.1% but sees neither libzmq, nor the allocator, nor the kernel's wake-ups, nor the cache misses of
threads that share two cores. This script samples the real thing: it starts one throughput case of stroke-bench
(`--only throughput --cases CASE --sessions N --runs 1`), waits for the benchmark's stroke-worker process, lets it
run for `--delay` seconds, records it with `perf record` for `--seconds`, and prints Markdown: each thread's share
of the worker's samples, split by library (the worker's own code, libzmq, malloc and free, memcpy, the Swift
runtime's reference counting, the kernel, the rest of libc and libm), then each thread's top functions. The
benchmark's own throughput lines follow.

With `--sched` it records the scheduler instead (`perf sched record`, the whole machine: the benchmark's
producer and result counter share the two cores) and prints how busy the machine was, and for each thread its
run time and the time it waited, runnable, for a core: in all, and while a core was idle. A wait that ends on a
core that was idle is the wake-up of an idle virtual CPU; one that ends on a busy core while another was idle is
the scheduler's placement. Either leaves capacity unused that the CPU accounting of Benchmarks.md counts as idle.

Usage:
  scripts/perf-worker.py [--sched] [--case binary-32] [--sessions 1000] [--seconds 3] [--delay 1] [--top 15]
                         [--messages N] [--bench PATH] [--dataset DIR] [--keep FILE]
  scripts/perf-worker.py [--sched] --report FILE [--top 15]    (a recording made before, with --keep)

Needs perf (Debian: `apt-get install linux-perf`) and permission to record another process (root, or
kernel.perf_event_paranoid ≤ 1). Samples are not instructions: a function that waits for memory shows here and
not in `make profile`, and the counts move from run to run with the host.
"""

import argparse
import bisect
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# MARK: - Reading perf's report

#: Libraries as the report groups them, in its columns' order.
GROUPS = ["worker code", "libzmq", "malloc/free", "memcpy", "Swift runtime", "kernel", "libc, libm", "other"]

MALLOC = ("malloc", "free", "cfree", "realloc", "calloc", "tcache", "unlink_chunk", "malloc_consolidate",
          "_int_malloc", "_int_free", "__libc_malloc", "__libc_free", "_int_realloc", "sysmalloc", "arena_get")
MEMCPY = ("memcpy", "memmove", "memset", "__memcpy", "__memmove", "__memset")


def group_of(dso: str, symbol: str) -> str:
    """The library group of a sample in `dso` (perf's shared-object column) at `symbol`."""
    name = os.path.basename(dso.strip())
    bare = symbol.strip().lstrip("_")
    if name == "stroke-worker":
        return "worker code"
    if name.startswith("libzmq"):
        return "libzmq"
    if name.startswith("libc.so") or name.startswith("libc-"):
        if any(bare.startswith(word.lstrip("_")) for word in MALLOC):
            return "malloc/free"
        if any(bare.startswith(word.lstrip("_")) for word in MEMCPY):
            return "memcpy"
        return "libc, libm"
    if name.startswith("libm.so") or name.startswith("libm-"):
        return "libc, libm"
    if name.startswith("libswiftCore") or name.startswith("libswift_") or name.startswith("libFoundation"):
        return "Swift runtime"
    if "kernel" in name or name.startswith("[k"):
        return "kernel"
    return "other"


def parse_report(text: str) -> list:
    """Rows `(samples, thread, dso, symbol)` of `perf report -F sample,comm,dso,sym -t '|'` output."""
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("|")
        if len(fields) < 4:
            continue
        try:
            samples = int(fields[0].strip())
        except ValueError:
            continue
        symbol = "|".join(fields[3:]).strip()
        # "[.] name" (user space) or "[k] name" (kernel).
        if symbol[:3] in ("[.]", "[k]"):
            symbol = symbol[3:].strip()
        rows.append((samples, fields[1].strip(), fields[2].strip(), symbol))
    return rows


def summarize(rows: list) -> dict:
    """Per thread: its samples, its samples by library group, and by (symbol, dso), largest first."""
    threads = {}
    for samples, thread, dso, symbol in rows:
        entry = threads.setdefault(thread, {"samples": 0, "groups": dict.fromkeys(GROUPS, 0), "functions": {}})
        entry["samples"] += samples
        entry["groups"][group_of(dso, symbol)] += samples
        key = (symbol, os.path.basename(dso))
        entry["functions"][key] = entry["functions"].get(key, 0) + samples
    return dict(sorted(threads.items(), key=lambda item: -item[1]["samples"]))


def demangle(names: list) -> dict:
    """Swift's simplified names for `names` (those `swift demangle` knows; the rest as they are)."""
    swift = shutil.which("swift")
    if not names or swift is None:
        return {name: name for name in names}
    result = subprocess.run([swift, "demangle", "--simplified"], input="\n".join(names), capture_output=True,
                            text=True)
    lines = result.stdout.split("\n")
    if result.returncode != 0 or len(lines) < len(names):
        return {name: name for name in names}
    return dict(zip(names, lines))


def percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def render(threads: dict, top: int, names: dict, title: str) -> str:
    """The Markdown report of `summarize`'s result."""
    total = sum(entry["samples"] for entry in threads.values())
    out = [f"# {title}", "", f"{total:,} samples of the worker process.", ""]
    out.append("| thread | share | " + " | ".join(GROUPS) + " |")
    out.append("| --- | --- | " + " | ".join("---" for _ in GROUPS) + " |")
    for thread, entry in threads.items():
        cells = [percent(entry["groups"][group], entry["samples"]) for group in GROUPS]
        out.append(f"| {thread} | {percent(entry['samples'], total)} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("Each library's share is of the thread's own samples.")
    for thread, entry in threads.items():
        out += ["", f"## {thread} ({percent(entry['samples'], total)} of the samples)", ""]
        out.append("| share of the thread | function | library |")
        out.append("| --- | --- | --- |")
        functions = sorted(entry["functions"].items(), key=lambda item: -item[1])[:top]
        for (symbol, dso), samples in functions:
            name = names.get(symbol, symbol).replace("|", "\\|")
            name = name if len(name) <= 110 else name[:107] + "..."
            out.append(f"| {percent(samples, entry['samples'])} | {name} | {dso} |")
    return "\n".join(out) + "\n"


def report(data: str, top: int, title: str) -> str:
    """Reads a `perf record` file and renders it."""
    result = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--no-children", "-g", "none", "-F", "sample,comm,dso,sym",
         "-t", "|"], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"perf-worker: perf report failed: {result.stderr.strip()[-500:]}")
    threads = summarize(parse_report(result.stdout))
    if not threads:
        raise SystemExit("perf-worker: the recording holds no samples")
    symbols = sorted({symbol for entry in threads.values() for symbol, _ in entry["functions"]})
    return render(threads, top, demangle(symbols), title)


# MARK: - Reading perf's scheduler timeline

#: A line of `perf sched timehist`: time (s), [cpu], task (name[tid/pid]), wait, scheduling delay, run time (ms).
TIMEHIST = re.compile(r"^\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
TASK = re.compile(r"^(.*?)\[(-?\d+)(?:/(-?\d+))?\]$")


def parse_timehist(text: str) -> list:
    """Rows `(end_ms, cpu, name, pid, delay_ms, run_ms)`: a task (or `<idle>`) ran on `cpu` for `run_ms` until
    `end_ms`, after waiting `delay_ms` runnable for it; `pid` is the process (the thread's own id for a process's
    first thread), None for `<idle>`."""
    rows = []
    for line in text.splitlines():
        match = TIMEHIST.match(line)
        if match is None:
            continue
        end, cpu, task, _, delay, run = match.groups()
        task = task.strip()
        named = TASK.match(task)
        name, pid = task, None
        if named is not None:
            name = named.group(1)
            pid = int(named.group(3) if named.group(3) is not None else named.group(2))
        if name.startswith("<idle>"):
            name, pid = "<idle>", None
        rows.append((float(end) * 1000.0, int(cpu), name, pid, float(delay), float(run)))
    return rows


def overlap(intervals: list, start: float, end: float) -> float:
    """How long `[start, end]` overlaps the sorted, disjoint `intervals` (found by bisection: a recording holds
    tens of thousands of waits and of idle spans)."""
    total = 0.0
    # The last interval that starts before `start` may reach into it; every earlier one ends before it.
    index = max(0, bisect.bisect_left(intervals, (start, float("-inf"))) - 1)
    while index < len(intervals) and intervals[index][0] < end:
        low, high = intervals[index]
        if high > start:
            total += min(end, high) - max(start, low)
        index += 1
    return total


def union_overlap(first: list, second: list) -> float:
    """How long some interval of `first` and some interval of `second` hold at once."""
    events = sorted([(low, 0, 1) for low, _ in first] + [(high, 0, -1) for _, high in first]
                    + [(low, 1, 1) for low, _ in second] + [(high, 1, -1) for _, high in second])
    open_count, last, total = [0, 0], None, 0.0
    for time_point, which, step in events:
        if last is not None and open_count[0] > 0 and open_count[1] > 0:
            total += time_point - last
        open_count[which] += step
        last = time_point
    return total


def schedule(rows: list, labels: dict) -> dict:
    """The machine's idle time and each thread's run time and waits, from `parse_timehist` rows. `labels` names
    processes by pid (the worker's threads are told from the benchmark's that way)."""
    if not rows:
        return {"span": 0.0, "cpus": 0, "idle": 0.0, "idleWhileWaiting": 0.0, "threads": {}}
    start = min(end - run - delay for end, _, _, _, delay, run in rows)
    finish = max(end for end, *_ in rows)
    cpus = sorted({cpu for _, cpu, *_ in rows})
    idle = {cpu: [] for cpu in cpus}
    waits = []  # (thread, cpu it then ran on, start, end)
    threads = {}
    for end, cpu, name, pid, delay, run in rows:
        if name == "<idle>":
            idle[cpu].append((end - run, end))
            continue
        key = f"{name} ({labels.get(pid, f'pid {pid}')})"
        entry = threads.setdefault(key, {"run": 0.0, "waits": 0, "waiting": 0.0, "idleHere": 0.0, "idleElsewhere": 0.0})
        entry["run"] += run
        if delay > 0:
            waits.append((key, cpu, end - run - delay, end - run))
            entry["waits"] += 1
            entry["waiting"] += delay
    for cpu in cpus:
        idle[cpu].sort()
    # Idle spans are only known once every row is read: the waits are measured against them after.
    for key, cpu, begin, finish_wait in waits:
        threads[key]["idleHere"] += overlap(idle[cpu], begin, finish_wait)
        threads[key]["idleElsewhere"] += sum(overlap(idle[other], begin, finish_wait) for other in cpus if other != cpu)
    all_idle = sorted(interval for cpu in cpus for interval in idle[cpu])
    return {
        "span": finish - start,
        "cpus": len(cpus),
        "idle": sum(high - low for low, high in all_idle),
        "idleWhileWaiting": union_overlap(all_idle, sorted((begin, end) for _, _, begin, end in waits)),
        "threads": dict(sorted(threads.items(), key=lambda item: -item[1]["run"])),
    }


def render_schedule(result: dict, title: str, top: int) -> str:
    """The Markdown report of `schedule`'s result."""
    span, cpus = result["span"], result["cpus"]
    capacity = span * cpus
    out = [f"# {title}", ""]
    if capacity <= 0:
        return "\n".join(out + ["No scheduler events were recorded.", ""])
    out.append(
        f"{span / 1000:.2f} s on {cpus} CPUs: busy {percent(capacity - result['idle'], capacity)} of their time; "
        f"idle while some thread waited, runnable, for a core {percent(result['idleWhileWaiting'], capacity)}.")
    out += ["", "| thread | ran | waited for a core | waits | of which a core was idle: the one it then ran on |"
            " another |", "| --- | --- | --- | --- | --- | --- |"]
    for key, entry in list(result["threads"].items())[:top]:
        out.append(
            f"| {key} | {entry['run']:.1f} ms | {entry['waiting']:.1f} ms | {entry['waits']:,} | "
            f"{entry['idleHere']:.1f} ms | {entry['idleElsewhere']:.1f} ms |")
    out += ["", "Times are summed over the recording; a thread's waits may overlap another's."]
    return "\n".join(out) + "\n"


def report_schedule(data: str, title: str, top: int, labels: dict) -> str:
    """Reads a `perf sched record` file and renders it."""
    result = subprocess.run(["perf", "sched", "timehist", "-i", data], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"perf-worker: perf sched timehist failed: {result.stderr.strip()[-500:]}")
    return render_schedule(schedule(parse_timehist(result.stdout), labels), title, top)


# MARK: - Recording


def children(pid: int, name: str) -> list:
    """Pids of the live processes named `name` whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                stat = file.read()
        except OSError:
            continue
        # "pid (comm) state ppid …": the name may hold spaces and parentheses, so split at the last ")".
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if comm == name and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def default_messages(case: str) -> int:
    """`--messages` for a case: stroke-bench sends a quarter of it in a 32-point case, and 3 M batched messages
    (12 M) ended before `--delay` and `--seconds` of the default had passed once the worker handled 650 k a second."""
    return 24_000_000 if case.endswith("-32") else 12_000_000


def record(args) -> str:
    """Runs the benchmark case, records its worker, and returns the report (with the benchmark's lines)."""
    if shutil.which("perf") is None:
        raise SystemExit("perf-worker: perf is not installed (Debian: apt-get install linux-perf)")
    if not os.access(args.bench, os.X_OK):
        raise SystemExit(f"perf-worker: {args.bench} is missing; run make release")
    command = [args.bench, "--only", "throughput", "--cases", args.case, "--sessions", str(args.sessions),
               "--runs", "1", "--messages", str(args.messages or default_messages(args.case))]
    if args.dataset:
        command += ["--dataset", args.dataset]
    work = tempfile.mkdtemp(prefix="perf-worker.")
    data = args.keep or os.path.join(work, "perf.data")
    workers = []
    with open(os.path.join(work, "bench.txt"), "w+") as output:
        bench = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + args.wait
            while not workers:
                if bench.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(
                        f"perf-worker: no stroke-worker appeared under the benchmark ({' '.join(command)})")
                time.sleep(0.02)
                workers = children(bench.pid, "stroke-worker")
            worker = workers[0]
            time.sleep(args.delay)
            if args.sched:
                perf_command = ["perf", "sched", "record", "-q", "-a", "-o", data, "--", "sleep", str(args.seconds)]
            else:
                perf_command = ["perf", "record", "-q", "-o", data, "-p", str(worker), "--", "sleep",
                                str(args.seconds)]
            perf = subprocess.run(perf_command, capture_output=True, text=True)
            if perf.returncode != 0:
                raise SystemExit(f"perf-worker: perf record failed: {perf.stderr.strip()[-500:]}")
            whole = os.path.exists(f"/proc/{worker}")
            bench.wait()
            output.seek(0)
            lines = [line.rstrip() for line in output if line.startswith("  ")]
            if args.sched:
                labels = {worker: "worker", bench.pid: "benchmark"}
                title = f"Scheduling, {args.case} at {args.sessions:,} sessions"
                text = report_schedule(data, title, args.top, labels)
            else:
                title = f"The worker's threads: {args.case} at {args.sessions:,} sessions, {args.seconds:g} s recorded"
                text = report(data, args.top, title)
        finally:
            # A benchmark stopped early leaves its worker behind: stop both.
            if bench.poll() is None:
                for pid in workers:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                bench.kill()
                bench.wait()
            shutil.rmtree(work, ignore_errors=True)
    if not whole:
        text += "\nThe worker's run ended before the recording did: raise --messages.\n"
    if bench.returncode != 0:
        text += f"\nstroke-bench exited with {bench.returncode}.\n"
    text += "\nThe benchmark's figures for the whole case:\n\n```\n" + "\n".join(lines) + "\n```\n"
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", default="binary-32", help="a throughput case, ENCODING-POINTS (default binary-32)")
    parser.add_argument("--sessions", type=int, default=1000, help="concurrent sessions (default 1000)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds recorded (default 3)")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds of the worker's run before (default 1)")
    parser.add_argument("--top", type=int, default=15, help="functions listed per thread (default 15)")
    parser.add_argument("--messages", type=int, default=None,
                        help="stroke-bench --messages: the run must outlast delay + seconds (default "
                             "12000000 for single points, 24000000 for 32-point cases, of which stroke-bench "
                             "sends a quarter)")
    parser.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the worker (default 120)")
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build", "release", "stroke-bench"))
    parser.add_argument("--dataset", default=None, help="stroke-bench --dataset")
    parser.add_argument("--keep", default=None, help="keep the perf recording in this file")
    parser.add_argument("--report", default=None, help="report a recording kept before, without running anything")
    parser.add_argument("--sched", action="store_true", help="record the scheduler, not the worker's functions")
    args = parser.parse_args(argv)
    if args.report and args.sched:
        sys.stdout.write(report_schedule(args.report, f"Scheduling ({args.report})", args.top, {}))
    elif args.report:
        sys.stdout.write(report(args.report, args.top, f"The worker's threads ({args.report})"))
    else:
        sys.stdout.write(record(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
