"""scripts/ab.py: the order of the runs, the sign test, the per-pair quotients, the command lines, and a whole
comparison against stand-in builds."""

import importlib.util
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "ab.py")
spec = importlib.util.spec_from_file_location("ab", SCRIPT)
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)


def throughput(rate, lane=0.8, helper=0.9, io=0.4, busy=0.87, waits=0.3):
    return {"throughput": [{"workerMessagesPerSecond": rate, "machineBusyWorker": busy,
                            "workerCPU": {"lane": lane, "recognition": helper, "io": io},
                            "helperWaits": {"share": waits, "perSecond": 200, "strokesOffloaded": 1.0}}]}


def test_order_alternates_so_that_drift_favours_neither_side():
    assert ab.order(4) == [("A", "B"), ("B", "A"), ("A", "B"), ("B", "A")]
    assert ab.order(1) == [("A", "B")]


def test_sign_test_is_two_sided_and_exact():
    assert ab.sign_test(4, 4) == 0.125
    assert ab.sign_test(0, 4) == 0.125
    assert ab.sign_test(2, 4) == 1.0
    assert abs(ab.sign_test(9, 10) - 22 / 1024) < 1e-12
    assert ab.sign_test(0, 0) == 1.0


def test_quotients_read_above_one_as_b_faster_for_rates_and_for_times():
    runs = [{"pair": 1, "order": ["A", "B"], "A": throughput(600_000), "B": throughput(660_000)},
            {"pair": 2, "order": ["B", "A"], "A": throughput(600_000), "B": throughput(570_000)}]
    quotients, lines = ab.summarize("throughput", runs)
    assert [round(q, 3) for q in quotients] == [1.1, 0.95]
    assert "B faster in 1 of 2 pairs" in lines[-1]
    assert "CPU 0.80 / 0.90 / 0.40 µs, busy 87%, helper waits 30%" in lines[0]
    timed = [{"pair": 1, "order": ["A", "B"], "A": {"recognizer": [{"templates": 128, "microseconds": 4.0}]},
              "B": {"recognizer": [{"templates": 128, "microseconds": 3.2}]}}]
    quotients, lines = ab.summarize("recognizer", timed)
    assert quotients == [1.25]
    assert "B faster in 1 of 1 pairs" in lines[-1]


def test_throughput_runs_one_benchmark_against_each_sides_worker(tmp_path):
    args = ab.argparse.Namespace(a="/a", b="/b", case="binary-32", sessions=10000, messages=4000000,
                                 a_worker_args="", b_worker_args="--recognition-offload off",
                                 templates="builtin", dataset="/data")
    a = ab.command("throughput", args, "A")
    b = ab.command("throughput", args, "B")
    assert a[0] == b[0] == "/a/stroke-bench"
    assert a[a.index("--worker") + 1] == "/a/stroke-worker"
    assert b[b.index("--worker") + 1] == "/b/stroke-worker"
    assert "--worker-args" not in a and b[b.index("--worker-args") + 1] == "--recognition-offload off"
    assert b[b.index("--sessions") + 1] == "10000"
    processor = ab.command("processor", args, "B")
    assert processor[0] == "/b/stroke-bench" and "--worker" not in processor


def stand_in(directory, body):
    """A build directory whose `stroke-bench` is a Python script and whose `stroke-worker` does nothing."""
    os.makedirs(directory)
    bench = os.path.join(directory, "stroke-bench")
    with open(bench, "w") as out:
        out.write("#!" + sys.executable + "\nimport json, os, sys\n" + body)
    worker = os.path.join(directory, "stroke-worker")
    with open(worker, "w") as out:
        out.write("#!/bin/sh\nexit 0\n")
    for path in (bench, worker):
        os.chmod(path, 0o755)


def test_a_whole_comparison_against_stand_in_builds(tmp_path):
    # A's benchmark runs both sides: the rate it prints depends on which worker it was given, and on B's
    # environment setting.
    body = ("worker = sys.argv[sys.argv.index('--worker') + 1]\n"
            "rate = 660000 if '/b/' in worker and os.environ.get('SPEED') == 'fast' else 600000\n"
            "print(json.dumps({'throughput': [{'workerMessagesPerSecond': rate, 'machineBusyWorker': 0.9,"
            " 'workerCPU': {'lane': 0.8, 'recognition': 0.9, 'io': 0.4}}]}))\n")
    stand_in(tmp_path / "a", body)
    stand_in(tmp_path / "b", "sys.exit('B\\'s own benchmark must not run')\n")
    saved = tmp_path / "runs.json"
    done = subprocess.run(
        [sys.executable, SCRIPT, str(tmp_path / "a"), str(tmp_path / "b"), "--pairs", "3", "--b-env", "SPEED=fast",
         "--json", str(saved), "--dataset", str(tmp_path)], capture_output=True, text=True, check=True)
    assert "B faster in 3 of 3 pairs, sign test p = 0.25" in done.stdout
    assert "median 1.100" in done.stdout
    runs = json.loads(saved.read_text())
    assert [pair["order"] for pair in runs["runs"]] == [["A", "B"], ["B", "A"], ["A", "B"]]
    again = subprocess.run([sys.executable, SCRIPT, "--report", str(saved)], capture_output=True, text=True,
                           check=True)
    assert "B faster in 3 of 3 pairs" in again.stdout and again.stdout.count("pair ") == 3


def test_a_failing_run_stops_the_comparison_with_its_error(tmp_path):
    stand_in(tmp_path / "a", "sys.exit('no dataset here')\n")
    stand_in(tmp_path / "b", "sys.exit(1)\n")
    done = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "a"), str(tmp_path / "b"), "--pairs", "1"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "no dataset here" in done.stderr


def test_a_directory_without_the_builds_is_refused(tmp_path):
    os.makedirs(tmp_path / "empty")
    done = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "empty"), str(tmp_path / "empty")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "has no executable stroke-bench" in done.stderr


def test_an_environment_setting_without_a_value_is_refused(tmp_path):
    stand_in(tmp_path / "a", "sys.exit(1)\n")
    done = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "a"), str(tmp_path / "a"), "--b-env", "SPEED"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "an environment setting is K=V, not 'SPEED'" in done.stderr
