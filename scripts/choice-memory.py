#!/usr/bin/env python3
"""Memory of the gestures sessions choose: what a real stroke-worker's resident memory grows by when its sessions
choose the gestures they may match (`options` with `gestures`, Protocol/README.md §4).

Starts a worker on free loopback ports (one lane), opens SESSIONS sessions (an `options` message each), notes the
resident memory, then has every session choose the same three gestures, then each a list of its own (two names),
then all of them again (`"*"`), noting the memory after each step (each step ends with a stroke of another session
whose result says the lane has handled everything before it). Prints the growth per session. With
`--gesture-scores`, has every session raise one gesture's threshold instead (`gestureScores`, session 49).

Before session 87 it took the resident memory's MiB for millions of bytes: its bytes a session were 4.6% low.

Usage: scripts/choice-memory.py [--worker PATH] [--sessions N] [--gesture-scores]
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from soak import resident_bytes, start_worker  # noqa: E402
from stroke_client import Consumer, Producer  # noqa: E402

STROKE = [(100 + i, 100 + (i % 7) * 3, 16.0 * i) for i in range(20)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--sessions", type=int, default=100_000, help="sessions (default 100000)")
    parser.add_argument("--gesture-scores", action="store_true",
                        help="measure one gesture's score for every session (gestureScores) instead of choices")
    args = parser.parse_args()
    if args.sessions < 1:
        parser.error("--sessions: at least 1, got %d" % args.sessions)
    process, (input_endpoint, output_endpoint) = start_worker(args.worker, idle_timeout=3600)
    try:
        with Consumer(output_endpoint, prefixes=["sync-"]) as consumer, \
                Producer(input_endpoint, binary=True) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)

            def settled(tag: str) -> float:
                producer.send_stroke("sync-" + tag, STROKE, batch=32)
                while True:
                    event = consumer.receive(timeout=60)
                    if event is None:
                        sys.exit("choice-memory: the worker did not answer")
                    if event.kind in ("match", "nomatch"):
                        return resident_bytes(process.pid)

            empty = settled("0")
            for s in range(args.sessions):
                producer.set_options("m-%d" % s, checkmark=False)
            held = settled("1")
            if args.gesture_scores:
                for s in range(args.sessions):
                    producer.set_options("m-%d" % s, gesture_scores={"fire": 0.75})
                scored = settled("2")
                print("%d sessions: %.1f MB empty, %.1f MB held (%.0f B a session)" % (
                    args.sessions, empty / 1e6, held / 1e6, (held - empty) / args.sessions))
                print("one gesture's score for each session (gestureScores): +%.0f B a session" % (
                    (scored - held) / args.sessions))
                return 0
            for s in range(args.sessions):
                producer.set_options("m-%d" % s, gestures=["circle", "x", "check"])
            shared = settled("2")
            for s in range(args.sessions):
                producer.set_options("m-%d" % s, gestures=["g%d" % s, "circle"])
            own = settled("3")
            for s in range(args.sessions):
                producer.set_options("m-%d" % s, gestures="*")
            lifted = settled("4")
    finally:
        process.terminate()
        process.wait(timeout=10)
    per = 1 / args.sessions
    print("%d sessions: %.1f MB empty, %.1f MB held (%.0f B a session)" % (
        args.sessions, empty / 1e6, held / 1e6, (held - empty) * per))
    print("the same 3 gestures chosen by every session: +%.0f B a session" % ((shared - held) * per))
    print("a list of its own (2 names) for each session: +%.0f B a session" % ((own - held) * per))
    print("every choice lifted (\"*\"): %.1f MB (the allocator keeps what it had)" % (lifted / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
