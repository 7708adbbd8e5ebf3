"""scripts/latency-episodes.py: a stall tells from a slowdown in a stroke-bench latency trace."""

import importlib.util
import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "latency-episodes.py")
spec = importlib.util.spec_from_file_location("latency_episodes", SCRIPT)
latency_episodes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(latency_episodes)


def stall(start: float, length: float, every: float = 100.0) -> list:
    """Strokes sent every `every` µs into and after a stall of `length` µs at half capacity: the one sent as it
    begins waits all of it, the rest less (S - t/2), and the backlog is gone after 2S."""
    return [(start + t, 200.0 + max(0.0, length - t / 2)) for t in range(0, int(2 * length) + 1000, int(every))]


def slowdown(start: float, length: float, served: float, every: float = 100.0) -> list:
    """Strokes sent every `every` µs while the peer serves `served` of the load for `length` µs, then drains."""
    built = length * (1 - served) / served
    strokes = []
    for t in range(0, int(length + 2 * built) + 1000, int(every)):
        backlog = t * (1 - served) / served if t <= length else max(0.0, built - (t - length) / 2)
        strokes.append((start + t, 200.0 + backlog))
    return strokes


def test_a_stall_is_sudden_and_a_slowdown_gradual():
    samples = [(t, 200.0) for t in range(0, 10_000, 100)]
    samples += stall(10_000, 3_000)
    samples += [(t, 200.0) for t in range(30_000, 40_000, 100)]
    samples += slowdown(40_000, 20_000, served=0.8)
    found = latency_episodes.episodes(sorted(samples), base=500, above=1500)
    assert len(found) == 2
    stall_episode, slow_episode = found
    assert stall_episode.peak == pytest.approx(3_200)
    assert stall_episode.rise == pytest.approx(100)
    assert (stall_episode.begin, stall_episode.peak_sent) == (9_900, 10_000)
    assert latency_episodes.is_sudden(found[0])
    # At 80% of the load for 20 ms the backlog builds to 5 ms over those 20 ms; the episode begins when the latency
    # leaves the base (a backlog of 300 µs, 1.2 ms in), so the rise is 18.8 ms.
    assert slow_episode.peak == pytest.approx(5_200, abs=30)
    assert slow_episode.rise == pytest.approx(18_800, abs=200)
    assert not latency_episodes.is_sudden(found[1])


def test_an_episode_needs_a_peak_over_the_bound():
    samples = [(t, 900.0 if 1_000 <= t < 2_000 else 200.0) for t in range(0, 5_000, 100)]
    assert latency_episodes.episodes(samples, base=500, above=1500) == []


def test_the_report_of_a_trace(tmp_path):
    trace = tmp_path / "trace.csv"
    lines = ["run,peer,sent_us,latency_us,lateness_us"]
    for sent, latency in stall(0, 4_000):
        lines.append(f"0,raw,{sent:.1f},{latency:.1f},0.0")
    for sent, latency in slowdown(0, 10_000, served=0.7):
        lines.append(f"0,worker,{sent:.1f},{latency:.1f},0.0")
    trace.write_text("\n".join(lines) + "\n")
    result = subprocess.run([sys.executable, SCRIPT, str(trace)], capture_output=True, text=True, check=True)
    worker, raw = result.stdout.splitlines()
    assert worker.startswith("run 0 worker:") and "0 sudden" in worker and "1 gradual" in worker
    assert raw.startswith("run 0 raw:") and "1 sudden" in raw and "0 gradual" in raw


def test_a_file_that_is_not_a_trace_is_refused(tmp_path):
    trace = tmp_path / "other.csv"
    trace.write_text("a,b\n1,2\n")
    result = subprocess.run([sys.executable, SCRIPT, str(trace)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "not a stroke-bench latency trace" in result.stderr


def test_what_ran_during_an_episode(tmp_path):
    # A stall of 3 ms from 10 ms on (the trace's clock, µs): a kernel thread held CPU 1 for it, CPU 0 stayed idle.
    trace = tmp_path / "trace.csv"
    lines = ["run,peer,sent_us,latency_us,lateness_us"]
    lines += [f"0,worker,{t:.1f},200.0,0.0" for t in range(0, 10_000, 100)]
    lines += [f"0,worker,{sent:.1f},{latency:.1f},0.0" for sent, latency in stall(10_000, 3_000)]
    trace.write_text("\n".join(lines) + "\n")
    timehist = tmp_path / "timehist.txt"
    timehist.write_text(
        "           time    cpu  task name                       wait time  sch delay   run time\n"
        "                        [tid/pid]                          (msec)     (msec)     (msec)\n"
        "--------------- ------  ------------------------------  ---------  ---------  ---------\n"
        "       0.010000 [0001]  lane-0[20/10]                       0.000      0.010      1.000 \n"
        "       0.013000 [0001]  kdamond.0[83]                       0.000      0.005      3.000 \n"
        "       0.013000 [0000]  <idle>                              0.000      0.000      3.000 \n"
    )
    result = subprocess.run(
        [sys.executable, SCRIPT, str(trace), "--timehist", str(timehist)], capture_output=True, text=True, check=True
    )
    summary, episode = result.stdout.splitlines()
    assert "1 sudden" in summary
    # From the peak's send (10 ms) for as long as the peak (3.2 ms): CPU 1 ran the kernel thread 3 of those 3.2 ms.
    assert episode.startswith("  sudden, peak 3.2 ms: CPU 0: <idle> 94%; CPU 1: kdamond.0[83] 94%")


def test_a_timehist_without_slices_is_refused(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("run,peer,sent_us,latency_us,lateness_us\n0,worker,0.0,200.0,0.0\n")
    timehist = tmp_path / "timehist.txt"
    timehist.write_text("not perf output\n")
    result = subprocess.run(
        [sys.executable, SCRIPT, str(trace), "--timehist", str(timehist)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "no `perf sched timehist` lines" in result.stderr
