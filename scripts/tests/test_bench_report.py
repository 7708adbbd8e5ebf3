"""scripts/bench-report.py: the arithmetic, the report of a directory of runs, and taking runs with a stand-in bench."""

import importlib.util
import json
import os
import stat
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "bench-report.py")
spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
bench_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_report)


def throughput_row(encoding="binary", points=32, sessions=1000, ratio=0.37, worker=388_000.0, raw=1_000_000.0):
    return {
        "encoding": encoding,
        "pointsPerMessage": points,
        "sessions": sessions,
        "ratio": ratio,
        "workerMessagesPerSecond": worker,
        "workerPointsPerSecond": worker * points,
        "rawMessagesPerSecond": raw,
        "rawPointsPerSecond": raw * points,
        "workerCPU": {"lane": 1.5, "recognition": 1.0, "io": 0.5, "other": 0.0, "laneWaiting": 0.4},
        "rawCPUMicroseconds": 0.6,
        "producerCPUMicroseconds": 0.9,
        "producerCPUWorkerRunMicroseconds": 0.8,
        "counterCPUMicroseconds": 0.2,
        "machineBusyWorker": 0.8,
        "machineBusyRaw": 1.0,
    }


def full_run(ratios, p99, raw_p99, bytes_per_session=216.0, at48=2.5, at10000=150.0):
    return {
        "throughput": [
            throughput_row("binary", 1, 1000, ratio=0.64, worker=1_300_000.0),
            throughput_row("binary", 32, 1000, ratio=ratios[0]),
            throughput_row("binary", 32, 10000, ratio=ratios[1]),
            throughput_row("json", 32, 1000, ratio=ratios[2]),
        ],
        "latency": {
            "offeredMessagesPerSecond": 650_000.0,
            "p50Us": 300.0,
            "p99Us": p99,
            "p999Us": 2 * p99,
            "rawP50Us": 190.0,
            "rawP99Us": raw_p99,
            "rawP999Us": 2 * raw_p99,
        },
        "memory": {
            "bytesPerSession": bytes_per_session,
            "idleSessions": 100_000,
            "residentBytesEmpty": 31e6,
            "residentBytesLoaded": 52e6,
        },
        "recognizer": [{"templates": 48, "microseconds": at48}, {"templates": 10000, "microseconds": at10000}],
        "detectorNanosecondsPerPoint": 42.0,
        "detectorNanosecondsPerSinglePoint": 45.0,
    }


def write(directory, name, content):
    path = os.path.join(directory, name)
    with open(path, "w") as file:
        file.write(content if isinstance(content, str) else json.dumps(content))
    return path


# MARK: - Arithmetic


def test_accounted_ratio_and_allowed_worker_cpu():
    row = throughput_row()
    # (b / (p′ + w + c)) ÷ (b′ / (p + r)) = (0.8 / (0.8 + 3.0 + 0.2)) ÷ (1.0 / (0.9 + 0.6)) = 0.2 × 1.5
    assert bench_report.worker_cpu(row) == pytest.approx(3.0)
    assert bench_report.accounted_ratio(row) == pytest.approx(0.3)
    # w = (b / b′)(p + r) / 0.5 − p′ − c = 0.8 × 1.5 × 2 − 0.8 − 0.2
    allowed = bench_report.allowed_worker_cpu(row, 0.5)
    assert allowed == pytest.approx(1.4)
    # At the allowed CPU the accounted ratio is the target itself.
    row["workerCPU"] = {"lane": allowed, "recognition": 0.0, "io": 0.0}
    assert bench_report.accounted_ratio(row) == pytest.approx(0.5)


def test_raw_runs_are_accounted_each_on_its_own():
    row = throughput_row()
    # A fast raw run (1.0 µs a message at 100% busy buys 1.0) and a slow one that spent more a message (2.0 µs at
    # 80%: 0.4): the raw side is their mean, 0.7, where the means of their figures (1.5 µs at 90%) would buy 0.6.
    row["rawRuns"] = [
        {"messagesPerSecond": 2e6, "consumerCPUMicroseconds": 0.5, "producerCPUMicroseconds": 0.5, "machineBusy": 1.0},
        {"messagesPerSecond": 8e5, "consumerCPUMicroseconds": 0.9, "producerCPUMicroseconds": 1.1, "machineBusy": 0.8},
    ]
    assert bench_report.accounted_raw_rate(row) == pytest.approx(0.7)
    assert bench_report.accounted_ratio(row) == pytest.approx(0.2 / 0.7)
    allowed = bench_report.allowed_worker_cpu(row, 0.5)
    row["workerCPU"] = {"lane": allowed, "recognition": 0.0, "io": 0.0}
    assert bench_report.accounted_ratio(row) == pytest.approx(0.5)


def test_median_row_and_spread():
    rows = [throughput_row(ratio=value) for value in (0.39, 0.35, 0.37)]
    assert bench_report.median_row(rows)["ratio"] == 0.37
    assert bench_report.spread([0.39, 0.35, 0.37]) == "0.37 (0.35–0.39)"
    assert bench_report.spread([0.37, 0.37]) == "0.37"


def test_helper_waits_column():
    row = throughput_row()
    assert bench_report.helper_waits(row) == "–"
    row["helperWaits"] = {"share": 0.384, "perSecond": 221.4, "strokesOffloaded": 0.95}
    assert bench_report.helper_waits(row) == "38% (221)"
    table = bench_report.throughput_table([(("binary", 32, 1000), [row])])
    assert table[0].count("|") == table[1].count("|") == table[2].count("|")
    assert table[2].endswith("| 38% (221) |")


def test_latency_notes_say_when_the_worker_sat_below_the_echo():
    def run(name, p50, raw_p50):
        return {"_name": name, "latency": {"p50Us": p50, "rawP50Us": raw_p50}}

    notes = bench_report.latency_notes([run("R1", 239.0, 418.0), run("R2", 309.0, 141.0)], [])
    assert notes == ["- At half capacity (R1, R2) the worker's p50 sat from 179 µs below to 168 µs above the echo's."]
    notes = bench_report.latency_notes([run("R1", 100.0, 150.0), run("R2", 100.0, 120.0)], [])
    assert notes == ["- At half capacity (R1, R2) the worker's p50 sat from 50 µs below to 20 µs below the echo's."]


def test_latency_verdict_counts_the_margin():
    assert bench_report.latency_verdict({"p99Us": 600.0, "rawP99Us": 500.0}) == (True, 0.0)
    met, excess = bench_report.latency_verdict({"p99Us": 1290.0, "rawP99Us": 541.0})
    assert not met and excess == pytest.approx(649.0)


# MARK: - Summary


def test_summary_judges_the_medians_of_the_runs(tmp_path):
    write(tmp_path, "R1.json", full_run((0.35, 0.28, 0.34), p99=4600.0, raw_p99=1350.0))
    write(tmp_path, "R2.json", full_run((0.39, 0.31, 0.38), p99=400.0, raw_p99=350.0, bytes_per_session=229.0))
    write(tmp_path, "R3.json", full_run((0.37, 0.29, 0.35), p99=4810.0, raw_p99=518.0, bytes_per_session=213.0))
    write(tmp_path, "V1.json", {"latency": full_run((0, 0, 0), p99=1290.0, raw_p99=541.0)["latency"]})
    write(tmp_path, "stalls-V1.txt", "process 0: 3 gaps over 0.5 ms in 10 s, 4.0 ms in all; largest 1.70, 0.60 ms\n")
    light = full_run((0, 0, 0), p99=380.0, raw_p99=270.0)["latency"]
    write(tmp_path, "L1.json", {"latency": dict(light, offeredMessagesPerSecond=50_000.0, p50Us=110.0, rawP50Us=80.0)})
    write(tmp_path, "L2.json", {"latency": dict(light, offeredMessagesPerSecond=50_000.0, p50Us=105.0, rawP50Us=80.0,
                                                p99Us=360.0)})
    for name, seconds in (("R1", "117.32"), ("R2", "113.90"), ("R3", "121.06")):
        write(tmp_path, f"{name}.seconds", seconds + "\n")
    text = bench_report.summary(str(tmp_path))
    assert "(R1, R2, R3, V1, L1, L2)" in text
    assert "| worker ÷ raw ≥ 0.5, binary, 1 point per message, 1,000 sessions | 0.64 | ✓ |" in text
    assert "| worker ÷ raw ≥ 0.5, binary, 32 points per message, 1,000 / 10,000 sessions | 0.37 / 0.29 | ✗ / ✗ |" in text
    assert "| worker ÷ raw ≥ 0.25, JSON, 32 points per message, 1,000 sessions | 0.35 | ✓ |" in text
    # The medians of the p99s (4.60 ms) and of the raw ones (518 µs), not one run's pair.
    assert "| 4.60 ms against 518 µs (raw) | ✗ |" in text
    assert "| 216 bytes, 100,000 sessions | ✓ |" in text
    assert "| 2.50 µs, 150.0 µs | ✓ |" in text
    assert "| binary, 32 pt, 1,000 | 0.37 (0.35–0.39) |" in text
    assert "| R2 | 650 k | 300 µs / 400 µs / 800 µs | 190 µs / 350 µs / 700 µs | met | not watched |" in text
    assert "| V1 | 650 k | 300 µs / 1.29 ms / 2.58 ms | 190 µs / 541 µs / 1.08 ms | missed by 649 µs | 1.7 ms |" in text
    assert "- Memory: 216 (213–229) bytes per idle session" in text
    assert "- Checkmark detector: 42.0 ns per point in whole strokes; 45.0 fed one point at a time." in text
    assert "| L1 | 50 k | 110 µs / 380 µs / 760 µs | 80 µs / 270 µs / 540 µs | missed by 10 µs | not watched |" in text
    # 300 − 190 in every run at half capacity; 30 and 25 at the light load.
    assert "- At half capacity (R1, R2, R3, V1) the worker's p50 sat 110 µs above the echo's." in text
    assert (
        "- At a light load (L1, L2, 50 k msg/s) the target was met in 1 of 2 runs: p99 380 µs, 360 µs against the "
        "echo's 270 µs, 270 µs; the worker's p50 sat 25–30 µs above the echo's." in text
    )
    assert "- Each full run (`stroke-bench --json`) took 117.3 (113.9–121.1) s of wall-clock time: under the issue's 5 " \
        "minutes." in text
    assert "Synthetic strokes" not in text


def test_summary_says_when_a_run_drew_synthetic_strokes(tmp_path):
    synthetic = dict(full_run([0.6] * 8, 900.0, 500.0), strokes="synthetic")
    write(tmp_path, "R1.json", dict(full_run([0.6] * 8, 900.0, 500.0), strokes="../shared/datasets/dollar1"))
    write(tmp_path, "R2.json", synthetic)
    write(tmp_path, "L1.json", {"latency": synthetic["latency"], "strokes": "synthetic"})
    text = bench_report.summary(str(tmp_path))
    assert "**Synthetic strokes** in R2, L1: stroke-bench found no data set" in text


def test_summary_refuses_what_is_not_a_report(tmp_path):
    write(tmp_path, "R1.json", '{"throughput": [')
    with pytest.raises(SystemExit, match="R1.json is not a stroke-bench --json report"):
        bench_report.summary(str(tmp_path))
    os.remove(tmp_path / "R1.json")
    with pytest.raises(SystemExit, match="no R1.json, V1.json or L1.json"):
        bench_report.summary(str(tmp_path))


# MARK: - Taking runs


STAND_IN = """#!{python}
import json, sys
arguments = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(" ".join(arguments) + "\\n")
if "--only" in arguments:
    capacity = float(arguments[arguments.index("--capacity") + 1])
    print(json.dumps({{"latency": {{"offeredMessagesPerSecond": capacity / 2, "p50Us": 300.0, "p99Us": 900.0,
        "p999Us": 1800.0, "rawP50Us": 190.0, "rawP99Us": 850.0, "rawP999Us": 1700.0}}}}))
else:
    print(json.dumps({run}))
"""


def test_run_takes_full_runs_then_latency_runs_at_their_capacity(tmp_path, capsys):
    log = str(tmp_path / "calls.txt")
    bench = write(tmp_path, "stand-in-bench", STAND_IN.format(
        python=sys.executable, log=log, run=repr(full_run((0.37, 0.29, 0.35), p99=900.0, raw_p99=850.0))))
    os.chmod(bench, os.stat(bench).st_mode | stat.S_IXUSR)
    out = str(tmp_path / "runs")
    sys.argv = ["bench-report.py", "run", "--out", out, "--runs", "2", "--latency-runs", "1", "--light-runs", "1",
                "--bench", bench, "--dataset", "/nowhere", "--stall-seconds", "0"]
    bench_report.main()
    calls = open(log).read().splitlines()
    assert calls == [
        "--json --dataset /nowhere",
        "--json --dataset /nowhere",
        # Half of the R runs' median binary 1-point capacity at 1,000 sessions (1.3 M msg/s).
        "--json --dataset /nowhere --only latency --capacity 1300000 --runs 1",
        # The light load, 50 k msg/s: half of the capacity passed.
        "--json --dataset /nowhere --only latency --capacity 100000 --runs 1",
    ]
    assert sorted(name for name in os.listdir(out) if name.endswith(".json")) == [
        "L1.json", "R1.json", "R2.json", "V1.json"]
    assert sorted(name for name in os.listdir(out) if name.endswith(".seconds")) == [
        "L1.seconds", "R1.seconds", "R2.seconds", "V1.seconds"]
    text = capsys.readouterr().out
    assert "| V1 | 650 k | 300 µs / 900 µs / 1.80 ms | 190 µs / 850 µs / 1.70 ms | met | not watched |" in text
    assert "| L1 | 50 k | 300 µs / 900 µs / 1.80 ms | 190 µs / 850 µs / 1.70 ms | met | not watched |" in text
    assert "of wall-clock time: under the issue's 5 minutes." in text


def test_run_reports_a_failed_bench(tmp_path):
    bench = write(tmp_path, "failing-bench", f"#!{sys.executable}\nimport sys\nsys.exit(3)\n")
    os.chmod(bench, os.stat(bench).st_mode | stat.S_IXUSR)
    sys.argv = ["bench-report.py", "run", "--out", str(tmp_path / "runs"), "--runs", "1", "--latency-runs", "0",
                "--light-runs", "0", "--bench", bench, "--stall-seconds", "0"]
    with pytest.raises(SystemExit, match=r"R1 failed \(exit 3\); see R1.err"):
        bench_report.main()


def test_run_refuses_a_missing_bench(tmp_path, capsys):
    sys.argv = ["bench-report.py", "run", "--out", str(tmp_path / "runs"), "--bench", str(tmp_path / "nothing")]
    with pytest.raises(SystemExit):
        bench_report.main()
    assert "is not an executable stroke-bench (make release builds it)" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "runs")


def test_summary_names_the_host_and_says_when_runs_differ(tmp_path):
    host = {"cpu": "AMD EPYC", "cpuFamily": 26, "cpuModel": 2, "cores": 2, "kernel": "6.1.0", "libzmq": "4.3.4"}
    for name in ("R1", "R2"):
        write(tmp_path, f"{name}.json", dict(full_run([0.5] * 3, 900.0, 850.0), host=host))
    text = bench_report.summary(str(tmp_path))
    assert "Host: AMD EPYC (family 26, model 2), 2 cores, Linux 6.1.0, libzmq 4.3.4." in text
    write(tmp_path, "R3.json", dict(full_run([0.5] * 3, 900.0, 850.0), host={**host, "cpuFamily": 25, "cpuModel": 17}))
    text = bench_report.summary(str(tmp_path))
    assert "Hosts differ between the runs:" in text
    assert "- R3: AMD EPYC (family 25, model 17), 2 cores, Linux 6.1.0, libzmq 4.3.4" in text
    # Runs taken before stroke-bench named its host: no line.
    assert bench_report.host_lines([{"_name": "R1"}]) == []
