#!/usr/bin/env python3
"""Memory of learned gestures: what a real stroke-worker's resident memory grows by per template sessions learn.

For each K in --per-session, starts a worker on free loopback ports, opens SESSIONS sessions (each ends one
stroke, so each is held), notes the resident memory, then has every session learn K templates (`end` with
`learn`, Protocol/README.md §4.1), waits for every `learned` event and notes the memory again. Prints the growth
per template and per session, and checks that every stroke was learned. With `--strokes 2`, each template is a
gesture of two strokes (the Z cut at its first corner; the sessions group their strokes, §4.2), which the worker
matches in either order and direction.

Usage: scripts/learned-memory.py [--worker PATH] [--sessions N] [--per-session K,K,...] [--strokes 1|2]
"""

import argparse
import os
import signal
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from soak import resident_bytes, start_worker  # noqa: E402
from stroke_client import Consumer, Producer  # noqa: E402


def stroke(k: int):
    """A "Z" of 37 points, a little different for each ``k``."""
    corners = [(0, 0), (60 + k % 7, 2 + k % 3), (4, 58 - k % 5), (62, 60)]
    points = []
    for segment in range(3):
        (x0, y0), (x1, y1) = corners[segment], corners[segment + 1]
        for step in range(12):
            u = step / 12
            points.append((100 + x0 + (x1 - x0) * u, 100 + y0 + (y1 - y0) * u, 16.0 * len(points)))
    points.append((100 + corners[3][0], 100 + corners[3][1], 16.0 * len(points)))
    return points


def drain(consumer: Consumer, count: int, kinds: tuple) -> int:
    """How many of `count` events of the `kinds` came (within 60 s, and 5 s of each other)."""
    seen = 0
    deadline = time.monotonic() + 60
    while seen < count and time.monotonic() < deadline:
        event = consumer.receive(timeout=5)
        if event is None:
            break
        if event.kind in kinds:
            seen += 1
    return seen


def measure(worker: str, sessions: int, per_session: int, strokes: int = 1) -> dict:
    # Room for every template sent (the worker's limits are 32 a session and 50,000 in all by default: 32 for each of
    # 2,000 sessions went past the second, and the run failed), and no session closed as idle while the events are
    # read (after 2 s, as the soak's workers close them).
    process, (input_endpoint, output_endpoint) = start_worker(
        worker, idle_timeout=3600,
        extra=["--max-session-templates", str(per_session), "--max-learned-templates", str(sessions * per_session)])
    try:
        with Consumer(output_endpoint, prefixes=["m-"]) as consumer, Producer(input_endpoint, binary=True) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)
            for s in range(sessions):
                if strokes > 1:
                    producer.set_options("m-%d" % s, multistroke=1000)
                producer.send_stroke("m-%d" % s, stroke(s), batch=37, last=strokes > 1)
            # Each stroke's answer, a match or not (the built-in library has no Z: before session 87 only matches
            # were counted, none came, and every run failed after waiting 5 s for them).
            opened = drain(consumer, sessions, ("match", "nomatch"))
            time.sleep(0.5)
            before = resident_bytes(process.pid)
            for k in range(per_session):
                for s in range(sessions):
                    if strokes > 1:
                        points = stroke(s + k)
                        producer.send_gesture("m-%d" % s, [points[:13], points[12:]], batch=37, learn="g%d" % k)
                    else:
                        producer.send_stroke("m-%d" % s, stroke(s + k), batch=37, learn="g%d" % k)
            learned = drain(consumer, sessions * per_session, ("learned",))
            time.sleep(0.5)
            after = resident_bytes(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    templates = sessions * per_session
    return {"perSession": per_session, "sessions": opened, "learned": learned, "templates": templates,
            "beforeMB": before / 1e6, "afterMB": after / 1e6,
            "bytesPerTemplate": (after - before) / max(1, learned),
            "bytesPerSession": (after - before) / sessions}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--sessions", type=int, default=2000, help="sessions (default 2000)")
    parser.add_argument("--per-session", default="1,8,32",
                        help="templates each session learns, a run each (default 1,8,32)")
    parser.add_argument("--strokes", type=int, choices=(1, 2), default=1)
    args = parser.parse_args()
    if args.sessions < 1:
        parser.error("--sessions: at least 1, got %d" % args.sessions)
    try:
        counts = [int(k) for k in args.per_session.split(",")]
    except ValueError:
        counts = []
    if not counts or not all(1 <= k <= 1000 for k in counts):
        parser.error("--per-session: whole numbers from 1 to 1000, separated by commas, got %r" % args.per_session)
    failed = False
    for per_session in counts:
        row = measure(args.worker, args.sessions, per_session, args.strokes)
        print("%(perSession)2d per session, %(sessions)d sessions: %(beforeMB).1f -> %(afterMB).1f MB, "
              "%(bytesPerTemplate).0f bytes per template, %(bytesPerSession).0f per session" % row, flush=True)
        if row["sessions"] != args.sessions or row["learned"] != row["templates"]:
            print("learned-memory: %d of %d sessions answered, %d of %d strokes learned" % (
                row["sessions"], args.sessions, row["learned"], row["templates"]), file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
