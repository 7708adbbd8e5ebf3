#!/usr/bin/env python3
"""A player steers with swipes and taps to select: the library of swipes, and taps too small to be a gesture.

The worker loads the library of swipes shipped with it (``--library Libraries/swipes.json``, one straight template
for each of 8 directions). The session picks it (``library``: ``swipes``) and sets a minimum size of 20 pixels
(``minimumSize``): a stroke smaller than that on both sides, a tap, is answered ``nomatch`` with reason
``too_small`` and its ``bounds``, which say where the player tapped, instead of being scaled up into a shape. The
player swipes right, up-left (a little off the diagonal), down (bowed, as a thumb draws it), taps, and swipes
left with a hook as the finger lifts.

Usage: python3 swipes.py [--input ENDPOINT] [--output ENDPOINT]   (default: STROKE_INPUT/STROKE_OUTPUT or the
worker's own defaults; the worker runs with --library Libraries/swipes.json)
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from stroke_client import Consumer, Producer  # noqa: E402


def swipe(degrees, length=180.0, bow=0.0, hook=0.0, start=(200.0, 300.0)):
    """A swipe in direction ``degrees`` (y down: 90 is down), bowed ``bow`` of its length to the side, with a hook
    of ``hook`` of its length turned back as the finger lifts: a point every 8 ms."""
    angle = math.radians(degrees)
    ux, uy = math.cos(angle), math.sin(angle)
    points = []
    for k in range(25):
        u = k / 24
        along, across = u * length, 4 * bow * length * u * (1 - u)
        points.append((start[0] + along * ux - across * uy, start[1] + along * uy + across * ux, 8.0 * k))
    x, y, t = points[-1]
    for k in range(1, 4 if hook else 0):
        back = angle + math.radians(120)
        points.append((x + hook * length * k / 3 * math.cos(back), y + hook * length * k / 3 * math.sin(back),
                       t + 8.0 * k))
    return points


def tap(at=(120.0, 340.0)):
    """A finger that lands and lifts: four points within a pixel."""
    return [(at[0] + dx, at[1] + dy, 8.0 * k) for k, (dx, dy) in enumerate([(0, 0), (0.6, -0.4), (0.2, 0.7),
                                                                          (-0.3, 0.2)])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    args = parser.parse_args()
    session = "pilot-7"
    moves = [
        ("swipe right", swipe(0), "swipe_right"),
        ("swipe up-left, 10 degrees off", swipe(235), "swipe_up_left"),
        ("swipe down, bowed", swipe(90, bow=0.1), "swipe_down"),
        ("tap", tap(), None),
        ("swipe left, hooked at the end", swipe(180, hook=0.08), "swipe_left"),
    ]
    right = 0
    with Consumer(args.output, prefixes=[session]) as events, Producer(args.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)
        producer.set_options(session, library="swipes", minimum_size=20, checkmark=False)
        for what, points, meant in moves:
            producer.send_stroke(session, points, batch=8)
            event = events.receive(timeout=5)
            while event is not None and event.kind not in ("match", "nomatch", "error"):
                event = events.receive(timeout=5)
            if event is None:
                print("%-32s no answer within 5 s" % what)
                continue
            if event.kind == "error":
                print("%-32s error %s: %s (does the worker run with --library Libraries/swipes.json?)"
                      % (what, event.get("code"), event.get("message")))
                return 1
            if event.kind == "match":
                print("%-32s %s %.2f" % (what, event.get("name"), event.get("score")))
                right += event.get("name") == meant
            else:
                bounds = event.get("bounds")
                where = " at (%.0f, %.0f)" % ((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2) \
                    if bounds else ""
                print("%-32s nomatch %s%s" % (what, event.get("reason"), where))
                right += meant is None and event.get("reason") == "too_small"
    print("%d of %d answered as meant" % (right, len(moves)))
    return 0 if right == len(moves) else 1


if __name__ == "__main__":
    sys.exit(main())
