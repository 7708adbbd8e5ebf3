"""scripts/perf-worker.py: reading perf's report, grouping by library, the Markdown, and finding the worker."""

import importlib.util
import os
import shutil
import signal
import subprocess
import time

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "perf-worker.py")
spec = importlib.util.spec_from_file_location("perf_worker", SCRIPT)
perf_worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perf_worker)

# The shape of `perf report --stdio --no-children -g none -F sample,comm,dso,sym -t '|'`.
REPORT = """\
# To display the perf.data header info, please use --header/--header-only options.
#
# Samples: 1K of event 'cpu-clock:ppp'
#
# Samples|Command|Shared Object|Symbol
#
840        |lane-0     |stroke-worker          |[.] $s17StrokeRecognition17CheckmarkDetectorV5StateV3addyyF
520        |recognize-0|stroke-worker          |[.] $s24RecognitionKernels15MatchingKernelsO7elasticyyFZ
100        |lane-0     |libzmq.so.5.2.4        |[.] 0x000000000003c524
60         |lane-0     |libc.so.6              |[.] _int_malloc
20         |lane-0     |libc.so.6              |[.] unlink_chunk.constprop.0
40         |lane-0     |libc.so.6              |[.] __memmove_avx512_unaligned_erms
30         |lane-0     |libswiftCore.so        |[.] swift_retain
50         |lane-0     |[kernel.kallsyms]      |[k] finish_task_switch.isra.0
10         |lane-0     |libm.so.6              |[.] __ieee754_atan2_fma
5          |lane-0     |libc.so.6              |[.] __getpid
25         |ZMQbg/IO/0 |[kernel.kallsyms]      |[k] _raw_spin_unlock_irqrestore
15         |ZMQbg/IO/0 |libzmq.so.5.2.4        |[.] zmq::ypipe_t|odd
8          |recognize-0|libc.so.6              |[.] free
2          |recognize-0|[unknown]              |[.] 0x00007f0000000000
not a row
"""


def test_rows_are_read_and_headers_skipped():
    rows = perf_worker.parse_report(REPORT)
    assert len(rows) == 14
    assert rows[0] == (840, "lane-0", "stroke-worker", "$s17StrokeRecognition17CheckmarkDetectorV5StateV3addyyF")
    # The kernel's marker goes; a separator inside a symbol stays part of it.
    assert rows[7] == (50, "lane-0", "[kernel.kallsyms]", "finish_task_switch.isra.0")
    assert rows[11] == (15, "ZMQbg/IO/0", "libzmq.so.5.2.4", "zmq::ypipe_t|odd")


@pytest.mark.parametrize(
    "dso, symbol, group",
    [
        ("stroke-worker", "$s12StrokeWorker4LaneV3runyyF", "worker code"),
        ("libzmq.so.5.2.4", "0x3c524", "libzmq"),
        ("libc.so.6", "_int_malloc", "malloc/free"),
        ("libc.so.6", "malloc", "malloc/free"),
        ("libc.so.6", "unlink_chunk.constprop.0", "malloc/free"),
        ("libc.so.6", "__libc_free", "malloc/free"),
        ("libc.so.6", "cfree@GLIBC_2.2.5", "malloc/free"),
        ("libc.so.6", "__memmove_avx512_unaligned_erms", "memcpy"),
        ("libc.so.6", "__memcpy_avx_unaligned_erms", "memcpy"),
        ("libc.so.6", "__getpid", "libc, libm"),
        ("libm.so.6", "__ieee754_atan2_fma", "libc, libm"),
        ("libswiftCore.so", "swift_release", "Swift runtime"),
        ("[kernel.kallsyms]", "do_syscall_64", "kernel"),
        ("[unknown]", "0x7f00", "other"),
        ("/usr/lib/x86_64-linux-gnu/libzmq.so.5", "zmq_msg_recv", "libzmq"),
    ],
)
def test_libraries_are_grouped(dso, symbol, group):
    assert perf_worker.group_of(dso, symbol) == group


def test_threads_are_summed_and_ordered():
    threads = perf_worker.summarize(perf_worker.parse_report(REPORT))
    assert list(threads) == ["lane-0", "recognize-0", "ZMQbg/IO/0"]
    lane = threads["lane-0"]
    assert lane["samples"] == 840 + 100 + 60 + 20 + 40 + 30 + 50 + 10 + 5
    assert lane["groups"]["worker code"] == 840
    assert lane["groups"]["malloc/free"] == 80
    assert lane["groups"]["memcpy"] == 40
    assert lane["groups"]["libc, libm"] == 15
    assert sum(lane["groups"].values()) == lane["samples"]
    assert threads["recognize-0"]["groups"]["other"] == 2


def test_the_report_gives_shares_and_names():
    threads = perf_worker.summarize(perf_worker.parse_report(REPORT))
    names = {"$s17StrokeRecognition17CheckmarkDetectorV5StateV3addyyF": "CheckmarkDetector.State.add()"}
    text = perf_worker.render(threads, 2, names, "title")
    total = sum(entry["samples"] for entry in threads.values())
    assert total == 1725
    lines = text.splitlines()
    assert lines[0] == "# title"
    lane_row = next(line for line in lines if line.startswith("| lane-0 |"))
    # 1,155 of 1,725 samples; of the lane's, 840 its own code and 100 libzmq.
    assert lane_row.startswith("| lane-0 | 67.0% | 72.7% | 8.7% | 6.9% | 3.5% | 2.6% | 4.3% | 1.3% | 0.0% |")
    section = lines[lines.index("## lane-0 (67.0% of the samples)"):]
    assert section[4] == "| 72.7% | CheckmarkDetector.State.add() | stroke-worker |"
    assert section[5] == "| 8.7% | 0x000000000003c524 | libzmq.so.5.2.4 |"
    # `top` functions per thread, and a separator in a name is escaped for the table.
    assert not section[6].startswith("| ")
    assert "| zmq::ypipe_t\\|odd |" in text


def test_children_are_found_by_parent_and_name():
    child = subprocess.Popen(["sleep", "30"])
    # A grandchild of the same name, under a shell: not the test's child.
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & wait"], start_new_session=True)
    try:
        for _ in range(200):
            if perf_worker.children(shell.pid, "sleep"):
                break
            time.sleep(0.01)
        assert len(perf_worker.children(shell.pid, "sleep")) == 1
        assert perf_worker.children(os.getpid(), "sleep") == [child.pid]
        assert perf_worker.children(os.getpid(), "stroke-worker") == []
    finally:
        child.kill()
        child.wait()
        os.killpg(shell.pid, signal.SIGKILL)
        shell.wait()


def test_batched_cases_send_more_messages_by_default():
    # stroke-bench sends a quarter of --messages in a 32-point case, and 3 M batched messages ended too soon.
    assert perf_worker.default_messages("binary-1") == 12_000_000
    assert perf_worker.default_messages("json-32") // 4 == 6_000_000


def test_a_missing_bench_is_refused_before_anything_runs(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(perf_worker.shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(SystemExit) as error:
        perf_worker.main(["--bench", str(tmp_path / "no-such-bench")])
    assert "is missing; run make release" in str(error.value)


def test_a_missing_perf_is_named(monkeypatch):
    monkeypatch.setattr(perf_worker.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as error:
        perf_worker.main([])
    assert "perf is not installed" in str(error.value)


def test_a_bench_without_a_worker_is_reported(monkeypatch, tmp_path):
    # A stand-in bench that exits at once: no worker ever appears under it.
    bench = tmp_path / "bench"
    bench.write_text("#!/bin/sh\necho '  binary 32 pt/msg'\nexit 0\n")
    bench.chmod(0o755)
    monkeypatch.setattr(perf_worker.shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(SystemExit) as error:
        perf_worker.main(["--bench", str(bench), "--wait", "5"])
    assert "no stroke-worker appeared under the benchmark" in str(error.value)


# MARK: - The scheduler's timeline (--sched)


def timehist_line(end_ms, cpu, task, delay_ms, run_ms):
    """A line as `perf sched timehist` prints it (times in seconds, then milliseconds)."""
    return f"{end_ms / 1000:15.6f} [{cpu:04d}]  {task:<30s} {0:9.3f} {delay_ms:9.3f} {run_ms:9.3f} "


def timeline():
    # CPU 1 idles over 0-10 ms and 20-24 ms. lane-0 waits 2-6 ms, then runs on CPU 0 until 9: the other core was
    # idle all along its wait. The helper waits 8-12 and runs on CPU 1 from 12: its own core idled 8-10. The
    # producer waits 21-22 on CPU 0 while CPU 1 idles. CPU 0 is never idle.
    lines = [
        "           time    cpu  task name                       wait time  sch delay   run time",
        "                        [tid/pid]                          (msec)     (msec)     (msec)",
        "--------------- ------  ------------------------------  ---------  ---------  ---------",
        timehist_line(2, 0, "ZMQbg/IO/0[557/550]", 0, 2),
        timehist_line(6, 0, "stroke-bench[561/600]", 0, 4),
        timehist_line(9, 0, "lane-0[555/550]", 4, 3),
        timehist_line(10, 1, "<idle>", 0, 10),
        timehist_line(12, 1, "kworker/1:2-eve[28268]", 0, 2),
        timehist_line(16, 1, "recognize-0[558/550]", 4, 4),
        timehist_line(20, 1, "lane-0[555/550]", 0, 4),
        timehist_line(21, 0, "ZMQbg/IO/0[557/550]", 0, 12),
        timehist_line(24, 1, "<idle>", 0, 4),
        timehist_line(24, 0, "stroke-bench[600]", 1, 2),
        "not a line of the timeline",
    ]
    return "\n".join(lines)


def test_the_timeline_is_read():
    rows = perf_worker.parse_timehist(timeline())
    assert len(rows) == 10
    assert rows[0] == (2.0, 0, "ZMQbg/IO/0", 550, 0.0, 2.0)
    assert rows[3] == (10.0, 1, "<idle>", None, 0.0, 10.0)
    # A process's first thread shows its own id alone.
    assert rows[9] == (24.0, 0, "stroke-bench", 600, 1.0, 2.0)
    assert rows[4][2:4] == ("kworker/1:2-eve", 28268)


def test_overlaps():
    assert perf_worker.overlap([(0, 10), (20, 24)], 8, 22) == 4
    assert perf_worker.overlap([(0, 10)], 10, 12) == 0
    assert perf_worker.union_overlap([(0, 10), (20, 24)], [(2, 6), (8, 12), (21, 22)]) == 4 + 2 + 1
    # Waits that overlap each other count once.
    assert perf_worker.union_overlap([(0, 10)], [(2, 6), (4, 8)]) == 6


def test_waits_are_told_apart_by_the_core_that_idled():
    result = perf_worker.schedule(perf_worker.parse_timehist(timeline()), {550: "worker", 600: "benchmark"})
    assert result["cpus"] == 2
    assert result["span"] == 24
    assert result["idle"] == 14
    # Waiting while a core idled: lane 2-6, helper 8-10, producer 21-22.
    assert result["idleWhileWaiting"] == 4 + 2 + 1
    lane = result["threads"]["lane-0 (worker)"]
    assert (lane["run"], lane["waits"], lane["waiting"]) == (7, 1, 4)
    assert (lane["idleHere"], lane["idleElsewhere"]) == (0, 4)
    helper = result["threads"]["recognize-0 (worker)"]
    assert (helper["idleHere"], helper["idleElsewhere"]) == (2, 0)
    producer = result["threads"]["stroke-bench (benchmark)"]
    assert (producer["run"], producer["waits"], producer["idleHere"], producer["idleElsewhere"]) == (6, 1, 0, 1)
    assert list(result["threads"])[0] == "ZMQbg/IO/0 (worker)"
    assert "kworker/1:2-eve (pid 28268)" in result["threads"]


def test_the_schedule_report():
    result = perf_worker.schedule(perf_worker.parse_timehist(timeline()), {550: "worker"})
    text = perf_worker.render_schedule(result, "title", 2)
    lines = text.splitlines()
    assert lines[0] == "# title"
    # 48 ms of capacity, 14 idle; 7 of them while a thread waited.
    assert lines[2] == (
        "0.02 s on 2 CPUs: busy 70.8% of their time; idle while some thread waited, runnable, for a core 14.6%.")
    assert lines[6] == "| ZMQbg/IO/0 (worker) | 14.0 ms | 0.0 ms | 0 | 0.0 ms | 0.0 ms |"
    assert lines[7] == "| lane-0 (worker) | 7.0 ms | 4.0 ms | 1 | 0.0 ms | 4.0 ms |"
    assert lines[8] == ""
    assert perf_worker.render_schedule(perf_worker.schedule([], {}), "empty", 2).splitlines()[2] == (
        "No scheduler events were recorded.")


def test_a_failed_recording_stops_the_benchmark_and_its_worker(monkeypatch, tmp_path):
    # A stand-in bench whose child is named stroke-worker (a copy of sleep), and a perf that fails.
    worker = tmp_path / "stroke-worker"
    shutil.copy(shutil.which("sleep"), worker)
    bench = tmp_path / "bench"
    bench.write_text(f"#!/bin/sh\n{worker} 60 &\nwait\n")
    bench.chmod(0o755)
    monkeypatch.setattr(perf_worker.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(
        perf_worker.subprocess, "run", lambda command, **_: subprocess.CompletedProcess(command, 1, "", "denied"))
    found = []
    real_children = perf_worker.children

    def spy(pid, name):
        result = real_children(pid, name)
        found.extend(result)
        return result

    monkeypatch.setattr(perf_worker, "children", spy)
    with pytest.raises(SystemExit) as error:
        perf_worker.main(["--bench", str(bench), "--delay", "0", "--wait", "10"])
    assert "perf record failed: denied" in str(error.value)
    assert found
    for pid in set(found):
        for _ in range(200):
            try:
                with open(f"/proc/{pid}/stat") as file:
                    state = file.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                break  # gone
            if state == "Z":
                break  # killed, not yet reaped by whoever adopted it
            time.sleep(0.01)
        else:
            pytest.fail(f"the stand-in worker {pid} still runs")
