#!/usr/bin/env python3
"""A game allows a few spells at a time: what the player may cast is matched, what they may not is named, not cast.

The session chooses the gestures it may match (``set_options(gestures=[...])``): a circle and a triangle. Recorded
strokes (the few shipped under Tests/, or ``--dataset``) are then drawn: a circle and a triangle are cast; a
rectangle and a star, which the game does not allow now, come back as ``nomatch`` with ``reason`` ``not_chosen`` and
the gesture drawn in ``unchosen`` ("not now"), not as the allowed spell they look a little like (the rectangle
scores above the library's threshold as a circle: a worker with ``--choice-margin inf`` casts it as one). With
``gestures="*"`` the star is a star again.

Usage: python3 spells.py [--input ENDPOINT] [--output ENDPOINT] [--dataset DIR]   (default: STROKE_INPUT/STROKE_OUTPUT
or the worker's own defaults, and the strokes shipped with the tests)
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from stroke_client import Consumer, Producer  # noqa: E402
from stroke_client.replay import load_logs  # noqa: E402

SHIPPED = os.path.join(HERE, "..", "..", "..", "Tests", "StrokeRecognitionTests", "Fixtures", "dollar1-mini")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    parser.add_argument("--dataset", default=SHIPPED, help="$1-format logs to draw the strokes from")
    args = parser.parse_args()
    strokes = {}
    for _, gesture, points in load_logs(args.dataset):
        strokes.setdefault(gesture, points)
    missing = {"circle", "triangle", "rectangle", "star"} - strokes.keys()
    if missing:
        print("no %s in %s" % (", ".join(sorted(missing)), args.dataset))
        return 1
    session = "duel-9/alice"
    with Consumer(args.output, prefixes=[session]) as events, Producer(args.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)

        def draw(gesture: str):
            producer.send_stroke(session, strokes[gesture], batch=8)
            for event in events.iter(timeout=5):
                if event.kind == "match":
                    print("draw a %-11s -> cast %s" % (gesture + ":", event.get("name")))
                    return event
                if event.kind == "nomatch":
                    unchosen = event.get("unchosen")
                    why = ("not now: %s" % unchosen["name"]) if unchosen else event.get("reason")
                    print("draw a %-11s -> no spell (%s)" % (gesture + ":", why))
                    return event
            print("draw a %-11s -> no answer within 5 s" % (gesture + ":"))
            return None

        print("The game allows a circle and a triangle:")
        producer.set_options(session, gestures=["circle", "triangle"])
        allowed = [draw("circle"), draw("triangle")]
        refused = [draw("rectangle"), draw("star")]
        print("Every spell again:")
        producer.set_options(session, gestures="*")
        star = draw("star")
    ok = (all(e is not None and e.kind == "match" for e in allowed)
          and [e.get("name") for e in allowed] == ["circle", "triangle"]
          and all(e is not None and e.kind == "nomatch" and e.get("reason") == "not_chosen" for e in refused)
          and [e.get("unchosen")["name"] for e in refused] == ["rectangle", "star"]
          and star is not None and star.get("name") == "star")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
