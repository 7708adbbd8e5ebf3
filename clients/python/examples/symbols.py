#!/usr/bin/env python3
"""A player writes symbols of several strokes: a plus and an equals sign, taught once, then drawn again.

The session groups its strokes into gestures (``multistroke``: a gesture waits 400 ms for its next stroke). The
player teaches a plus and an equals sign, two strokes each (``learn`` on the last stroke's end: the worker answers
``learned`` with both strokes' ids). Then a plus drawn again is answered once the player has stopped for 400 ms,
an equals sign at once (its last stroke's end says ``last``), and a caret of one stroke by the built-in library,
after the wait too. Each answer lists the strokes it took.

Usage: python3 symbols.py [--input ENDPOINT] [--output ENDPOINT]   (default: STROKE_INPUT/STROKE_OUTPUT or the
worker's own defaults)
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from stroke_client import Consumer, Producer  # noqa: E402


def line(a, b, t0=0.0):
    """A straight stroke from ``a`` to ``b``: 13 points 16 ms apart."""
    return [(a[0] + (b[0] - a[0]) * k / 12, a[1] + (b[1] - a[1]) * k / 12, t0 + 16.0 * k) for k in range(13)]


def plus(wobble=0.0):
    return [line((100, 150 + wobble), (200, 150 - wobble)), line((150 - wobble, 100), (150 + wobble, 200), 500)]


def equals(wobble=0.0):
    return [line((100, 130), (200, 130 + wobble)), line((100 + wobble, 170), (200, 170), 500)]


def caret():
    """A "^" of 25 points: up to the right, then down to the right."""
    return [(100 + 2.5 * k, 160 - 5.0 * (12 - abs(k - 12)), 16.0 * k) for k in range(25)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    args = parser.parse_args()
    session = "scribe-3"
    with Consumer(args.output, prefixes=[session]) as events, Producer(args.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)
        producer.set_options(session, multistroke=400)

        def answer(what: str, send):
            started = time.monotonic()
            send()
            event = events.receive(timeout=5)
            if event is None:
                print("%-34s no answer within 5 s" % what)
                return None
            name = event.get("name", event.get("reason", event.get("code")))
            extra = " (learned)" if event.get("learned") else ""
            print("%-34s %-8s %-7s strokes %-8s after %3.0f ms%s" % (
                what, event.kind, name, event.get("strokes"), (time.monotonic() - started) * 1000, extra))
            return event

        taught = [
            answer("teach a plus (2 strokes):", lambda: producer.send_gesture(session, plus(), learn="plus")),
            answer("teach an equals sign (2 strokes):",
                   lambda: producer.send_gesture(session, equals(), learn="equals")),
        ]

        def without_last(strokes):
            for points in strokes:
                producer.send_stroke(session, points, batch=8)

        drawn = answer("draw a plus, then stop:", lambda: without_last(plus(6)))
        ended = answer("draw an equals sign, last:", lambda: producer.send_gesture(session, equals(-5)))
        alone = answer("draw a caret (1 stroke), stop:", lambda: without_last([caret()]))
    ok = (all(e is not None and e.kind == "learned" and len(e.get("strokes")) == 2 for e in taught)
          and drawn is not None and drawn.get("name") == "plus" and len(drawn.get("strokes")) == 2
          and ended is not None and ended.get("name") == "equals"
          and alone is not None and alone.get("name") == "caret" and len(alone.get("strokes")) == 1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
