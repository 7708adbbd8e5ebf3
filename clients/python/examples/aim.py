#!/usr/bin/env python3
"""A player shoots an arrow the way they draw it: a match's ``rotation`` aims it.

A session set to match in any orientation (``orientation="invariant"``) is taught an arrow drawn pointing right,
as "shoot"; then the player draws arrows pointing every which way, a little shaky, and each match of ``shoot``
says in ``rotation`` how far it is turned from the one taught: the direction to shoot in, clockwise from the right
on the screen (y grows downward). Exits 1 if an arrow is not matched or is aimed more than 5 degrees off.

Usage: python3 aim.py [--input ENDPOINT] [--output ENDPOINT]   (default: STROKE_INPUT/STROKE_OUTPUT or the
worker's own defaults)
"""

import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from stroke_client import Consumer, Producer  # noqa: E402


def arrow(degrees: float, shake: float, seed: int):
    """An arrow drawn in one stroke, turned `degrees` clockwise from pointing right: the shaft to the tip, one barb,
    back to the tip, the other barb; 16 ms between points, each moved up to `shake` units at random."""
    corners = [(0, 0), (120, 0), (96, -22), (120, 0), (96, 22)]
    rng = random.Random(seed)
    turn = math.radians(degrees)
    c, s = math.cos(turn), math.sin(turn)
    points = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        steps = max(4, int(math.hypot(x1 - x0, y1 - y0) / 4))
        for step in range(steps):
            u = step / steps
            x = x0 + (x1 - x0) * u + rng.uniform(-shake, shake)
            y = y0 + (y1 - y0) * u + rng.uniform(-shake, shake)
            points.append((300 + x * c - y * s, 300 + x * s + y * c, 16.0 * len(points)))
    x, y = corners[-1]
    points.append((300 + x * c - y * s, 300 + x * s + y * c, 16.0 * len(points)))
    return points


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    args = parser.parse_args()
    session = "archer-3"
    with Consumer(args.output, prefixes=[session]) as events, Producer(args.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)
        producer.set_options(session, orientation="invariant", checkmark=False)
        producer.send_stroke(session, arrow(0, 0, 0), batch=8, learn="shoot")
        taught = events.receive(timeout=5)
        if taught is None or taught.kind != "learned":
            print("the arrow was not learned: %s" % (taught.fields if taught else "no answer within 5 s"))
            return 1
        print("taught an arrow pointing right as 'shoot'")
        worst = 0.0
        for seed, degrees in enumerate([0, 30, 90, 160, -45, -120, 180], start=1):
            producer.send_stroke(session, arrow(degrees, 2.5, seed), batch=8)
            event = events.receive(timeout=5)
            if event is None or event.kind != "match" or event.get("name") != "shoot":
                print("arrow drawn at %4d°: %s" % (degrees, event.fields if event else "no answer within 5 s"))
                return 1
            rotation = event.get("rotation")
            off = abs((rotation - degrees + 180) % 360 - 180)
            worst = max(worst, off)
            print("arrow drawn at %4d°: shoot toward %6.1f° (score %.3f, %.1f° off)" % (
                degrees, rotation, event.get("score"), off))
        print("aimed to within %.1f°" % worst)
        return 0 if worst <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
