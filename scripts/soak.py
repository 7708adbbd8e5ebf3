#!/usr/bin/env python3
"""Soak: a real stroke-worker under random strokes over many sessions, mixed with bad input of every kind.

Starts the worker on free loopback ports (idle timeout 2 s), sends random strokes (JSON or binary, in batches of
1 to 16 points; a share of them learned as the session's own gestures, and now and then forgotten; now and then
a session starts or stops grouping its strokes into gestures of several strokes, and a tenth of the strokes end
with `last`; a share of the sessions pinged first) to SESSIONS
sessions for SECONDS seconds, a share of them replaced by bad messages (bytes that are no message, bad topics,
wrong frame counts, sequence numbers far ahead, a producer starting over from 1, oversized payloads), and reads
every event. Every 10 s it prints the worker's resident memory and the events by
kind; at the end it waits for the idle sessions to be evicted, stops the worker with SIGTERM and checks:
- the worker ran throughout and exited 0;
- no event was lost (each session's `eventSeq` has no gap), and every ping got its pong;
- every session the worker held was closed by the idle sweep;
- the resident memory after the sweep is within `--memory-margin` MiB of its level after the first 10 s.
Exits 1 if a check fails.

Usage: scripts/soak.py [--seconds S] [--sessions N] [--bad-share F] [--learn-share F] [--group-share F]
                      [--ping-share F] [--worker PATH] [--memory-margin N]
"""

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Iterable, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from stroke_client import Consumer, Producer  # noqa: E402
from stroke_client.shard import topic  # noqa: E402


def start_worker(path: str, idle_timeout: int = 2, extra: Sequence[str] = ()):
    """A worker of one lane on free loopback ports, and its input and output endpoints, once it listens; `extra`:
    more options. Exits with a message when it cannot run or does not start within 20 s."""
    try:
        process = subprocess.Popen(
            [path, "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--idle-timeout",
             str(idle_timeout), "--stats-interval", "0", "--lanes", "1", *extra],
            stderr=subprocess.PIPE, text=True)
    except OSError as error:  # no such file (a release build not made), or not executable
        sys.exit(f"{os.path.basename(sys.argv[0])}: cannot run the worker {path}: {error.strerror} "
                 "(make release builds it; --worker names another)")
    deadline = time.monotonic() + 20
    log = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        log.append(line)
        if "listening" in line:
            endpoints = re.search(r'input:([^\s"]+)', line).group(1), re.search(r'output:([^\s"]+)', line).group(1)
            # Keep reading its log, so that it never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
            return process, endpoints
    process.kill()
    sys.exit(f"{os.path.basename(sys.argv[0])}: the worker did not start:\n" + "".join(log[-20:]))


def vm_rss_bytes(status: Iterable[str]) -> int:
    """The resident memory in bytes that the lines of a /proc/PID/status give (VmRSS, in KiB); 0 without it."""
    for line in status:
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def resident_bytes(pid: int) -> int:
    """The process's resident memory in bytes."""
    with open(f"/proc/{pid}/status") as status:
        return vm_rss_bytes(status)


def resident_mib(pid: int) -> float:
    """The process's resident memory in MiB (2^20 bytes)."""
    return resident_bytes(pid) / 2**20


def random_stroke(rng: random.Random):
    x, y, t = rng.uniform(0, 500), rng.uniform(0, 500), 0.0
    points = []
    for _ in range(rng.randrange(2, 120)):
        x += rng.uniform(-8, 8)
        y += rng.uniform(-8, 8)
        t += rng.uniform(5, 20)
        points.append((x, y, t))
    return points


def send_bad(producer: Producer, session: str, rng: random.Random) -> None:
    socket = producer.socket
    kind = rng.randrange(7)
    if kind == 0:
        socket.send_multipart([topic(session), bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))])
    elif kind == 1:
        socket.send_multipart([b"zzz/" + session.encode(), b'{"type":"begin","seq":1,"stroke":1}'])
    elif kind == 2:
        socket.send_multipart([topic(session)])
    elif kind == 3:
        # Far ahead: the session's later messages are late until its producer starts over.
        producer.send(session, "points", 77, points=[(1, 2, 3)], seq=producer.next_seq(session) + 1000)
    elif kind == 4:
        # The producer starts over from 1.
        producer.forget(session)
        producer.send(session, "begin", producer.new_stroke_id(session), points=[(1, 2, 3)])
    elif kind == 5:
        socket.send_multipart([topic(session), b"{" * 2_000_000])
    else:
        socket.send_multipart([topic(session), b'{"type":"end","seq":1,"stroke":' + b"9" * 40 + b"}"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long traffic is sent (default 60)")
    parser.add_argument("--sessions", type=int, default=5000, help="sessions drawn from (default 5000)")
    parser.add_argument("--bad-share", type=float, default=0.03, help="share of bad messages (default 0.03)")
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--memory-margin", type=float, default=32.0,
                        help="MiB the memory after the sweep may exceed its level after 10 s (default 32)")
    parser.add_argument("--learn-share", type=float, default=0.05,
                        help="share of strokes the session learns as a gesture of its own (default 0.05)")
    parser.add_argument("--group-share", type=float, default=0.05,
                        help="share of strokes before which the session sets its multistroke wait to 0, 50 or "
                             "200 ms (default 0.05)")
    parser.add_argument("--ping-share", type=float, default=0.02,
                        help="share of strokes before which the session is pinged (default 0.02): every ping must "
                             "get its pong")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if (args.seconds <= 0 or args.sessions < 1 or not 0 <= args.bad_share <= 1 or not 0 <= args.learn_share <= 1
            or not 0 <= args.group_share <= 1 or not 0 <= args.ping_share <= 1):
        parser.error("--seconds must be positive, --sessions at least 1, the shares in 0...1")
    rng = random.Random(args.seed)
    worker, (input_endpoint, output_endpoint) = start_worker(args.worker)
    events, codes, last_event, gaps, held = {}, {}, {}, 0, set()
    grouped = too_small = 0
    failures = []

    def take(event) -> None:
        nonlocal gaps, grouped, too_small
        events[event.kind] = events.get(event.kind, 0) + 1
        if event.get("strokes") and event.kind in ("match", "nomatch"):
            grouped += 1
        if event.kind == "nomatch" and event.get("reason") == "too_small":
            too_small += 1
        if event.kind == "error":
            codes[event.get("code")] = codes.get(event.get("code"), 0) + 1
        session = event.topic.decode()
        number = event.get("eventSeq") or 0
        # A session closed by the sweep starts its numbering over when it comes back.
        if number and number != last_event.get(session, 0) + 1 and not (number == 1 and session not in held):
            gaps += 1
        if number:
            last_event[session] = number
            held.add(session)
        if event.kind == "closed":
            held.discard(session)
            last_event.pop(session, None)

    sent = bad = pings = 0
    baseline = None
    with Consumer(output_endpoint) as consumer, Producer(input_endpoint, binary=False) as producer:
        producer.wait_for_all_buckets()
        consumer.wait_until_subscribed(producer)
        started = last_report = time.monotonic()
        print(f"soak: worker pid {worker.pid}, {resident_mib(worker.pid):.1f} MiB at start", flush=True)
        while time.monotonic() - started < args.seconds:
            session = f"soak-{rng.randrange(args.sessions)}"
            if rng.random() < args.bad_share:
                send_bad(producer, session, rng)
                bad += 1
                sent += 1
            else:
                points = random_stroke(rng)
                producer.binary = rng.random() < 0.5
                batch = rng.randrange(1, 17)
                # Now and then the session learns the stroke, or forgets what it learned.
                learn = "g%d" % rng.randrange(4) if rng.random() < args.learn_share else None
                if rng.random() < args.ping_share:
                    producer.ping(session, seq=pings)
                    pings += 1
                    sent += 1
                if rng.random() < args.group_share:
                    producer.set_options(session, multistroke=rng.choice([0, 50, 200]))
                    sent += 1
                # As often, the session sets a minimum size (strokes of a few points here are small).
                if rng.random() < args.group_share:
                    producer.set_options(session, minimum_size=rng.choice([0, 10, 40]))
                    sent += 1
                # And a threshold of its own, or stops and starts following its tilt (session 46's options), and
                # some gestures' own thresholds (session 49), and a player's tilt given back (session 50).
                if rng.random() < args.group_share:
                    producer.set_options(session, minimum_score=rng.choice([0, 0.6, 0.8]),
                                         follow_tilt=rng.random() < 0.5,
                                         gesture_scores=rng.choice([None, {}, {"check": 0.8, "g0": 0.7}]),
                                         tilt=rng.choice([None, -45, 0, 20]))
                    sent += 1
                producer.send_stroke(session, points, batch=batch, learn=learn, last=rng.random() < 0.1)
                sent += 2 + (len(points) - 2) // batch + 1
                if rng.random() < args.learn_share / 4:
                    producer.set_options(session, forget=rng.choice(["*", "g0", "g1"]))
                    sent += 1
            while (event := consumer.receive(timeout=0)) is not None:
                take(event)
            now = time.monotonic()
            if now - last_report >= 10:
                last_report = now
                memory = resident_mib(worker.pid)
                baseline = memory if baseline is None else baseline
                print(f"soak: {now - started:4.0f} s, {memory:.1f} MiB, about {sent} messages ({bad} bad), events "
                      f"{dict(sorted(events.items()))}", flush=True)
            if worker.poll() is not None:
                failures.append(f"the worker exited early with {worker.returncode}")
                break
        # The sweep closes the sessions idle for 2 s, once a second.
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            event = consumer.receive(timeout=0.1)
            if event is not None:
                take(event)
    memory = resident_mib(worker.pid) if worker.poll() is None else 0.0
    print(f"soak: after the idle sweep {memory:.1f} MiB; events {dict(sorted(events.items()))}", flush=True)
    print(f"soak: errors by code {dict(sorted(codes.items(), key=lambda item: -item[1]))}", flush=True)
    print(f"soak: {grouped} results of sessions that grouped their strokes, {too_small} strokes too small",
          flush=True)
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
        try:
            code = worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            code = None
        if code != 0:
            failures.append(f"the worker exited with {code} on SIGTERM")
    if gaps:
        failures.append(f"{gaps} gaps in sessions' event numbers: events were lost")
    if events.get("pong", 0) != pings:
        failures.append(f"{pings} pings were answered with {events.get('pong', 0)} pongs")
    if held:
        failures.append(f"{len(held)} sessions were never closed by the idle sweep")
    if baseline is not None and memory > baseline + args.memory_margin:
        failures.append(f"memory grew from {baseline:.1f} to {memory:.1f} MiB")
    for failure in failures:
        print(f"soak: FAILED: {failure}")
    if not failures:
        print("soak: passed (ran throughout, exited 0, no event lost, every session closed, memory flat)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
