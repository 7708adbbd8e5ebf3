#!/usr/bin/env python3
"""Sessions across a restart (`--state-file`): what a real stroke-worker's state file costs, and that it works.

Starts a worker on free loopback ports with a state file, opens SESSIONS sessions (an `options` message each;
every tenth chooses two gestures), has LEARNING of them learn a gesture (`end` with `learn`), and waits until the
worker has answered all of them. Then stops it (SIGTERM) and times the stop, notes the file's size, starts a
worker again on the same file and times its start (to its `listening` line), and checks the restored sessions: a
learning session's next stroke is matched as its learned gesture, with the next `eventSeq` and no error, and a
plain session's next message is taken with no `session_reset`. The same stop and start without a state file are
timed for comparison.

Then a crash: the same sessions in a worker that writes a checkpoint every second (`--checkpoint-interval 1`),
killed (SIGKILL) once the file holds them, and started again. A learning session and one that chose gestures come
back from the checkpoint (`session_reset` with `"restored": true`, the learned gesture matched); a session with
nothing a new one lacks is not in it (a plain `session_reset`).

Usage: scripts/state-file.py [--worker PATH] [--sessions N] [--learning L] [--choosing-every K]
"""

import argparse
import atexit
import importlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from stroke_client import Consumer, Producer  # noqa: E402

stroke = importlib.import_module("learned-memory").stroke  # a "Z" of 37 points, a little different for each k


def free_ports(count: int):
    sockets = [socket.socket() for _ in range(count)]
    for each in sockets:
        each.bind(("127.0.0.1", 0))
    ports = [each.getsockname()[1] for each in sockets]
    for each in sockets:
        each.close()
    return ports


def start(worker: str, state_file, ports, checkpoint_interval=None):
    """Starts a worker on `ports` (input, output), where the clients of the last one find it again; returns it,
    its endpoints, the seconds to its `listening` line and its log so far."""
    arguments = [worker, "--input", "tcp://127.0.0.1:%d" % ports[0], "--output", "tcp://127.0.0.1:%d" % ports[1],
                 "--stats-interval", "0", "--lanes", "1", "--idle-timeout", "3600"]
    if state_file:
        arguments += ["--state-file", state_file]
    if checkpoint_interval is not None:
        arguments += ["--checkpoint-interval", str(checkpoint_interval)]
    started = time.monotonic()
    process = subprocess.Popen(arguments, stderr=subprocess.PIPE, text=True)
    atexit.register(process.kill)  # no worker outlives a failed check
    log = []
    while True:
        line = process.stderr.readline()
        if not line:
            sys.exit("state-file: the worker did not start:\n" + "".join(log))
        log.append(line)
        if "listening" in line:
            ready = time.monotonic() - started
            endpoints = re.search(r'input:([^\s"]+)', line).group(1), re.search(r'output:([^\s"]+)', line).group(1)
            threading.Thread(target=lambda: [log.append(rest) for rest in process.stderr], daemon=True).start()
            return process, endpoints, ready, log


def stop(process) -> float:
    started = time.monotonic()
    process.terminate()
    process.wait(timeout=120)
    return time.monotonic() - started


def fill(endpoints, sessions: int, learning: int, choosing: int = 10) -> Producer:
    """Opens the sessions and teaches some; returns the producer (its numbering goes on after the restart)."""
    producer = Producer(endpoints[0], binary=True)
    with Consumer(endpoints[1], prefixes=["learn-"]) as consumer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        for s in range(sessions):
            if s % choosing == 0:
                producer.set_options("s-%d" % s, gestures=["circle", "check"])
            else:
                producer.set_options("s-%d" % s, checkmark=True)
        for s in range(learning):
            producer.send_stroke("learn-%d" % s, stroke(s), batch=37, learn="bolt")
        learned = 0
        while learned < learning:
            event = consumer.receive(timeout=30)
            if event is None:
                sys.exit("state-file: %d of %d learned events" % (learned, learning))
            learned += event.kind == "learned"
    return producer


def check(endpoints, producer: Producer, learning: int) -> str:
    """A learning session's next stroke and a plain session's next message, after the restart."""
    with Consumer(endpoints[1], prefixes=["learn-0", "s-1"]) as consumer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        producer.send_stroke("learn-0", stroke(1), batch=37)
        producer.send_stroke("s-1", stroke(2), batch=37)
        seen = {}
        while len(seen) < 2:
            event = consumer.receive(timeout=10)
            if event is None:
                return "no answer after the restart: %r" % seen
            if event.kind == "error":
                return "error after the restart: %r" % event.fields
            seen[event.session] = event
        match = seen["learn-0"]
        if match.kind != "match" or match.get("name") != "bolt" or not match.get("learned"):
            return "the learned gesture was not matched: %r" % match.fields
        if match.get("eventSeq") != 2:
            return "eventSeq %r after the restart, 2 expected" % match.get("eventSeq")
        return "ok"


def last_checkpoint(log) -> dict:
    """What the worker's last `checkpoint written` line says: its sessions, and the milliseconds the slowest
    lane took to make its part and the checkpoint thread took to write the file."""
    written = [line for line in list(log) if "checkpoint written" in line]
    fields = dict(re.findall(r"(\w+)=(\S+)", written[-1])) if written else {}
    return {"sessions": int(fields.get("sessions", -1)),
            "laneMilliseconds": float(fields.get("laneMilliseconds", "nan")),
            "writeMilliseconds": float(fields.get("writeMilliseconds", "nan"))}


def wait_for_checkpoint(path: str, expected: int, log) -> dict:
    """Waits (up to 120 s) until the state file is a checkpoint of `expected` sessions; returns what the worker
    logged of it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with open(path) as file:
                contents = json.load(file)
            if contents.get("checkpoint") and len(contents["sessions"]) == expected:
                return dict(last_checkpoint(log), fileBytes=os.path.getsize(path))
        except (OSError, ValueError):
            pass  # not written yet, or being renamed into place
        time.sleep(0.1)
    sys.exit("state-file: no checkpoint of %d sessions within 120 s" % expected)


def check_crash(endpoints, producer: Producer, choosing: int) -> str:
    """After the crash: the learning session and one that chose gestures are restored, a plain one is not."""
    expected = {"learn-0": True, "s-0": True, "s-1": choosing == 1}
    with Consumer(endpoints[1], prefixes=list(expected)) as consumer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        for session in expected:
            producer.send_stroke(session, stroke(3), batch=37)
        events = {}
        while sum(len(seen) for seen in events.values()) < 2 * len(expected):
            event = consumer.receive(timeout=10)
            if event is None:
                return "no answer after the crash: %r" % events
            if event.session in expected:
                events.setdefault(event.session, []).append(event)
    for session, restored in expected.items():
        reset, answer = events[session][:2]
        if reset.get("code") != "session_reset" or (reset.get("restored") is True) != restored:
            return "%s: %r, a session_reset with restored %s expected" % (session, reset.fields, restored)
        if reset.get("eventSeq") != 1 or answer.get("eventSeq") != 2:
            return "%s: events numbered %r, %r after the crash" % (session, reset.get("eventSeq"),
                                                                  answer.get("eventSeq"))
        if reset.needs_reteach == restored:
            return "%s: needs_reteach %s" % (session, reset.needs_reteach)
    match = events["learn-0"][1]
    if match.kind != "match" or match.get("name") != "bolt" or not match.get("learned"):
        return "the learned gesture was not matched after the crash: %r" % match.fields
    return "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--learning", type=int, default=1_000)
    parser.add_argument("--choosing-every", type=int, default=10, metavar="K",
                        help="in the crash, every K-th session chooses gestures (and is in the checkpoint)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sessions.json")
        report = {"sessions": options.sessions + options.learning, "learning": options.learning}
        for kept in (False, True):
            ports = free_ports(2)
            process, endpoints, _, _ = start(options.worker, path if kept else None, ports)
            producer = fill(endpoints, options.sessions, options.learning)
            stopped = stop(process)
            size = os.path.getsize(path) if kept and os.path.exists(path) else 0
            process, endpoints, ready, log = start(options.worker, path if kept else None, ports)
            if kept:
                report["fileBytes"] = size
                report["bytesPerSession"] = round(size / report["sessions"])
                report["stopSeconds"], report["startSeconds"] = round(stopped, 3), round(ready, 3)
                restored = [json.loads(line) if line.startswith("{") else line for line in log if "restored" in line]
                report["restoredLog"] = [str(entry).strip() for entry in restored]
                report["check"] = check(endpoints, producer, options.learning)
                # The lane's whole checkpoint of what it restored, right after the start.
                for _ in range(100):
                    if any("checkpoint written" in line for line in list(log)):
                        break
                    time.sleep(0.1)
                report["checkpointAfterStart"] = last_checkpoint(log)
            else:
                report["stopSecondsWithout"], report["startSecondsWithout"] = round(stopped, 3), round(ready, 3)
            producer.close()
            stop(process)
        # A crash after a checkpoint: every K-th session chose gestures, and the learning ones learned one.
        # A file of its own: the sessions the last worker wrote at its stop would take these numbers as repeats.
        path = os.path.join(folder, "crash.json")
        ports = free_ports(2)
        process, endpoints, _, log = start(options.worker, path, ports, checkpoint_interval=1)
        every = options.choosing_every
        producer = fill(endpoints, options.sessions, options.learning, every)
        report["checkpoint"] = wait_for_checkpoint(path, (options.sessions + every - 1) // every + options.learning, log)
        process.kill()
        process.wait()
        process, endpoints, ready, _ = start(options.worker, path, ports)
        report["checkpoint"]["startSeconds"] = round(ready, 3)
        report["checkAfterCrash"] = check_crash(endpoints, producer, every)
        producer.close()
        stop(process)
        print(json.dumps(report, indent=1))
        return 0 if report.get("check") == "ok" and report["checkAfterCrash"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
