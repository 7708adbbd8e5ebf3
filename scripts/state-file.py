#!/usr/bin/env python3
"""Sessions across a restart (`--state-file`): what a real stroke-worker's state file costs, and that it works.

Starts a worker on free loopback ports with a state file, opens SESSIONS sessions (an `options` message each;
every tenth chooses two gestures), has LEARNING of them learn a gesture (`end` with `learn`), and waits until the
worker has answered all of them. Then stops it (SIGTERM) and times the stop, notes the file's size, starts a
worker again on the same file and times its start (to its `listening` line), and checks the restored sessions: a
learning session's next stroke is matched as its learned gesture, with the next `eventSeq` and no error, and a
plain session's next message is taken with no `session_reset`. The same stop and start without a state file are
timed for comparison.

Usage: scripts/state-file.py [--worker PATH] [--sessions N] [--learning K]
"""

import argparse
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


def start(worker: str, state_file, ports):
    """Starts a worker on `ports` (input, output), where the clients of the last one find it again; returns it,
    its endpoints, the seconds to its `listening` line and its log so far."""
    arguments = [worker, "--input", "tcp://127.0.0.1:%d" % ports[0], "--output", "tcp://127.0.0.1:%d" % ports[1],
                 "--stats-interval", "0", "--lanes", "1", "--idle-timeout", "3600"]
    if state_file:
        arguments += ["--state-file", state_file]
    started = time.monotonic()
    process = subprocess.Popen(arguments, stderr=subprocess.PIPE, text=True)
    log = []
    while True:
        line = process.stderr.readline()
        if not line:
            sys.exit("state-file: the worker did not start:\n" + "".join(log))
        log.append(line)
        if "listening" in line:
            ready = time.monotonic() - started
            endpoints = re.search(r"input:(\S+)", line).group(1), re.search(r"output:(\S+)", line).group(1)
            threading.Thread(target=lambda: [log.append(rest) for rest in process.stderr], daemon=True).start()
            return process, endpoints, ready, log


def stop(process) -> float:
    started = time.monotonic()
    process.terminate()
    process.wait(timeout=120)
    return time.monotonic() - started


def fill(endpoints, sessions: int, learning: int) -> Producer:
    """Opens the sessions and teaches some; returns the producer (its numbering goes on after the restart)."""
    producer = Producer(endpoints[0], binary=True)
    with Consumer(endpoints[1], prefixes=["learn-"]) as consumer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        for s in range(sessions):
            if s % 10 == 0:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--learning", type=int, default=1_000)
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
            else:
                report["stopSecondsWithout"], report["startSecondsWithout"] = round(stopped, 3), round(ready, 3)
            producer.close()
            stop(process)
        print(json.dumps(report, indent=1))
        return 0 if report.get("check") == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
