"""The measuring scripts (choice-memory.py, learned-memory.py, soak.py, swipes.py): memory is read in bytes, and
what they cannot measure or run is said, with no traceback, before anything starts."""

import importlib.util
import os
import subprocess
import sys

SCRIPTS = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, SCRIPTS)
spec = importlib.util.spec_from_file_location("soak", os.path.join(SCRIPTS, "soak.py"))
soak = importlib.util.module_from_spec(spec)
spec.loader.exec_module(soak)


def run(script: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *arguments], capture_output=True,
                          text=True, timeout=60)


def test_resident_memory_is_read_in_bytes():
    # /proc gives VmRSS in KiB. Before session 87 choice-memory.py took its MiB for millions of bytes: 1,536 KiB
    # were 1,500,000 bytes, not 1,572,864, and its bytes a session were 4.6% low.
    status = ["Name:\tstroke-worker\n", "VmPeak:\t  9000 kB\n", "VmRSS:\t    1536 kB\n", "RssAnon:\t 1000 kB\n"]
    assert soak.vm_rss_bytes(status) == 1_572_864
    assert soak.vm_rss_bytes(["Name:\tgone\n"]) == 0
    assert soak.resident_bytes(os.getpid()) > 0


def test_counts_that_measure_nothing_are_refused_before_a_worker_starts():
    for script, arguments, said in [
        ("choice-memory.py", ["--sessions", "0"], "--sessions: at least 1, got 0"),
        ("learned-memory.py", ["--sessions", "-3"], "--sessions: at least 1, got -3"),
        ("learned-memory.py", ["--per-session", "1,x"], "--per-session: whole numbers from 1 to 1000"),
        ("learned-memory.py", ["--per-session", "0"], "--per-session: whole numbers from 1 to 1000"),
    ]:
        result = run(script, *arguments, "--worker", "/nonexistent/stroke-worker")
        assert result.returncode == 2, (script, arguments, result.stderr)
        assert said in result.stderr, (script, arguments, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_worker_that_cannot_run_is_named_without_a_traceback():
    for script in ("choice-memory.py", "learned-memory.py", "soak.py"):
        result = run(script, "--worker", "/nonexistent/stroke-worker")
        assert result.returncode == 1, (script, result.stderr)
        assert "cannot run the worker /nonexistent/stroke-worker: No such file or directory" in result.stderr, (
            script, result.stderr)
        assert result.stderr.startswith(script + ":"), result.stderr
        assert "Traceback" not in result.stderr


def stroke_tool() -> str:
    """The stroke-tool beside the worker the tests run (`STROKE_WORKER_BIN`), else the debug build's."""
    worker = os.environ.get("STROKE_WORKER_BIN", os.path.join(SCRIPTS, "..", ".build", "debug", "stroke-worker"))
    return os.path.join(os.path.dirname(worker), "stroke-tool")


def test_swipes_refuses_what_it_cannot_measure_and_says_what_the_tool_said():
    for arguments, said in [
        (["--count", "0"], "--count: at least 1, got 0"),
        (["--thresholds", "0.5,x"], "--thresholds: scores from 0 to 1"),
        (["--thresholds", "1.5"], "--thresholds: scores from 0 to 1"),
    ]:
        result = run("swipes.py", *arguments, "--tool", "/nonexistent/stroke-tool")
        assert result.returncode == 2 and said in result.stderr, (arguments, result.stderr)
    result = run("swipes.py", "--tool", "/nonexistent/stroke-tool")
    assert result.returncode == 1
    assert result.stderr.startswith("swipes.py: cannot run /nonexistent/stroke-tool: No such file or directory")
    # A library file that is not there was a traceback of the script's own open().
    result = run("swipes.py", "--tool", stroke_tool(), "--library", "/nonexistent/swipes.json")
    assert result.returncode == 1
    assert "library list /nonexistent/swipes.json failed:" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
