#!/usr/bin/env python3
"""A player teaches the worker a gesture of their own, then draws it again: "draw your own spell".

Sends a "Z" to a session with ``learn="lightning"`` (the worker answers ``learned``, naming the gesture the Z comes
nearest to: the question mark, which a Z is taken for once forgotten), then two Z's drawn a little
differently and a caret, printing each answer: the Z's match ``lightning`` (``learned``: true), the caret matches
the built-in ``caret``. Then the session forgets it, and a Z is no longer ``lightning``. Last, a caret taught as
``hat`` comes nearest to the built-in caret, too near for a spell of its own: the game forgets it again.

Usage: python3 learn_gesture.py [--input ENDPOINT] [--output ENDPOINT]   (default: STROKE_INPUT/STROKE_OUTPUT or
the worker's own defaults)
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from stroke_client import Consumer, Producer  # noqa: E402


def zigzag(wobble: float):
    """A "Z" of 37 points, 16 ms apart: right, down to the left, right."""
    corners = [(0, 0), (80 + wobble, 4), (6, 76 - wobble), (84, 80)]
    points = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        for step in range(12):
            u = step / 12
            points.append((100 + x0 + (x1 - x0) * u, 100 + y0 + (y1 - y0) * u, 16.0 * len(points)))
    points.append((100 + corners[-1][0], 100 + corners[-1][1], 16.0 * len(points)))
    return points


# How near (the learned event's nearest score) a new spell may come to one the game has: a recorded check scores
# about 0.85 against the built-in library's check, a Z 0.55 against the question mark.
TOO_NEAR = 0.8


def caret():
    """A "^" of 25 points: up to the right, then down to the right."""
    return [(100 + 2.5 * k, 160 - 5.0 * (12 - abs(k - 12)), 16.0 * k) for k in range(25)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    args = parser.parse_args()
    session = "wizard-7"
    with Consumer(args.output, prefixes=[session]) as events, Producer(args.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)

        def answer(what: str, points, **fields):
            producer.send_stroke(session, points, batch=8, **fields)
            event = events.receive(timeout=5)
            if event is None:
                print("%-28s no answer within 5 s" % what)
                return None
            name = event.get("name", event.get("reason", event.get("code")))
            extra = " (learned)" if event.get("learned") else ""
            nearest = event.get("nearest")
            if nearest:  # a learned event: the other gesture it comes nearest to
                extra += " (nearest: %s %.2f)" % (nearest["name"], nearest["score"])
            print("%-28s %-8s %s%s" % (what, event.kind, name, extra))
            return event

        taught = answer("teach a Z as 'lightning':", zigzag(0), learn="lightning")
        first = answer("draw a Z:", zigzag(6))
        second = answer("draw another Z:", zigzag(-5))
        other = answer("draw a caret:", caret())
        producer.set_options(session, forget="lightning")
        after = answer("forget it, draw a Z:", zigzag(6))
        # A spell too like one the game has: the learned event's nearest says so, and the game takes it back.
        hat = answer("teach a caret as 'hat':", caret(), learn="hat")
        near = (hat or {}).get("nearest") or {}
        refused = near.get("score", 0) >= TOO_NEAR
        if refused:
            producer.set_options(session, forget="hat")
            print("%-28s %s" % ("", "too like %s (%.2f >= %.2f): forgotten, draw another" % (
                near.get("name"), near.get("score"), TOO_NEAR)))
    ok = (taught is not None and taught.kind == "learned"
          and all(e is not None and e.get("name") == "lightning" and e.get("learned") for e in (first, second))
          and other is not None and other.get("name") == "caret"
          and after is not None and after.get("name") != "lightning"
          and hat is not None and near.get("name") == "caret" and refused)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
