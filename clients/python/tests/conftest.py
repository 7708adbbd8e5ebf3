"""Fixtures: a real stroke-worker process on free loopback ports."""

import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))


def worker_binary() -> str:
    """`STROKE_WORKER_BIN`, else the stroke-worker built last of `.build/release` and `.build/debug`: taking the
    release build whenever there was one tested a stale worker after a change built only for debug (`make test`
    builds debug; it passes the variable too)."""
    explicit = os.environ.get("STROKE_WORKER_BIN")
    if explicit:
        return explicit
    built = [path for path in (os.path.join(ROOT, ".build", configuration, "stroke-worker")
                               for configuration in ("release", "debug")) if os.path.exists(path)]
    if not built:
        pytest.skip("build stroke-worker first (swift build)")
    return max(built, key=os.path.getmtime)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(address: str, path: str) -> tuple:
    """The status and body of the answer to `GET path` at `address` (`HOST:PORT`), errors included."""
    try:
        with urllib.request.urlopen("http://%s%s" % (address, path), timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def pings_answered(producer, consumer, session: str, seqs: range, timeout: float = 10) -> set:
    """Pings `session` through `producer` with each of `seqs`, and returns the `seq`s of the pongs `consumer` receives
    within `timeout` seconds."""
    for seq in seqs:
        producer.ping(session, seq=seq)
    answered = set()
    deadline = time.monotonic() + timeout
    while len(answered) < len(seqs) and time.monotonic() < deadline:
        event = consumer.receive(timeout=1)
        if event is not None and event.kind == "pong":
            answered.add(event.get("seq"))
    return answered


class RunningWorker:
    def __init__(self, *extra: str, env: dict = None, preexec_fn=None, cwd: str = None) -> None:
        self.process = subprocess.Popen(
            # One lane: it subscribes to every topic, so even malformed topics reach it and get `bad_topic`
            # (with several lanes or shards they are filtered out by ZeroMQ before any worker sees them).
            [os.path.abspath(worker_binary()), "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*",
             "--stats-interval", "0", "--lanes", "1", *extra],
            stderr=subprocess.PIPE, text=True, env=None if env is None else {**os.environ, **env},
            preexec_fn=preexec_fn, cwd=cwd)
        deadline = time.monotonic() + 20
        self.log = []
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            self.log.append(line)
            if "listening" in line:
                self.input = re.search(r'input:([^\s"]+)', line).group(1)
                self.output = re.search(r'output:([^\s"]+)', line).group(1)
                return
        self.process.kill()
        raise RuntimeError("worker did not start: %s" % "".join(self.log))

    def stop(self) -> int:
        self.process.terminate()
        try:
            code = self.process.wait(timeout=20)
            self.log.extend(self.process.stderr.readlines())
            return code
        finally:
            self.process.stderr.close()

    def process_log(self) -> list:
        """The worker's log lines read so far (all of them after stop())."""
        return self.log


class LogTail:
    """A process's standard error, read line by line into `log` on a thread of its own.

    Not select() and readline(): readline() takes a whole chunk of the pipe into Python's buffer and returns one line
    of it, and select() then says nothing is left to read, so a line that came with another waits for the next one
    (test_connections.py's first version missed a proxy's warning that way in one start of four).
    """

    def __init__(self, stream, log: list) -> None:
        self.log = log
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        try:
            for line in stream:
                self.lines.put(line)
        except (OSError, ValueError):  # the stream was closed under the thread
            pass

    def wait_for(self, text: str, since: int = None, timeout: float = 10) -> str:
        """The first line that contains `text`, from line `since` of the log on (default: the lines not read yet)."""
        index = len(self.log) if since is None else since
        deadline = time.monotonic() + timeout
        while True:
            for line in self.log[index:]:
                if text in line:
                    return line
            index = len(self.log)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("no %r in the log: %s" % (text, "".join(self.log)))
            try:
                self.log.append(self.lines.get(timeout=remaining))
            except queue.Empty:
                pass


@pytest.fixture
def worker():
    running = RunningWorker()
    yield running
    assert running.stop() == 0


@pytest.fixture
def protocol_dir() -> str:
    return os.path.join(ROOT, "Protocol")


@pytest.fixture
def fixtures_dir() -> str:
    return os.path.join(ROOT, "Tests", "StrokeRecognitionTests", "Fixtures", "dollar1-mini")
