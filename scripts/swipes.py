#!/usr/bin/env python3
"""How a library of swipes answers swipes drawn as a finger draws them, and strokes that are not swipes.

Generates seeded swipes in each direction of the library (its gestures named swipe_<direction>): straight or
bowed (an arc whose height is up to --bow of its length), tilted up to --tilt degrees off their direction, some
with a hook at the end as a finger lifts (up to 10% of the length, turned 30-150 degrees), shaken by a little
jitter, 60-400 units long, sampled at 125 Hz at 0.3-3 units a millisecond. Each is recognized as a worker would
at its end (`stroke-tool recognize --json`), and the report says at several thresholds how many matched their
own direction, another, or nothing, and how often the checkmark detector fired on them.

With --dataset (the $1 logs: none of their 16 gestures is a swipe), it also says how many of those strokes the
library takes for a swipe at each threshold: what a library of swipes alone costs, and what it costs beside
the gestures of the built-in library (`stroke-tool library add FILE --library Libraries/swipes.json`).

A library with no swipes (`--library default`, the built-in one) gets swipes in all eight directions: the report
then says how many it takes for one of its gestures ("another"), where "nomatch" is the right answer.

Usage: scripts/swipes.py [--library FILE|default] [--count N] [--seed S] [--tilt DEG] [--bow F] [--dataset DIR]
                         [--thresholds 0.5,0.6,...] [--tool PATH] [--json]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

DIRECTIONS = {
    "right": 0, "down_right": 45, "down": 90, "down_left": 135,
    "left": 180, "up_left": 225, "up": 270, "up_right": 315,
}  # degrees, y down (touch convention)


def swipe(rng, degrees, tilt, bow):
    """One swipe of direction `degrees`: [[x, y, t], ...]."""
    angle = math.radians(degrees + rng.uniform(-tilt, tilt))
    length = rng.uniform(60, 400)
    height = rng.uniform(-bow, bow) * length
    speed = rng.uniform(0.3, 3.0)  # units per ms
    jitter = rng.uniform(0, 1.5)
    count = max(4, int(length / speed / 8))  # one point every 8 ms
    ux, uy = math.cos(angle), math.sin(angle)
    points = []
    for i in range(count + 1):
        u = i / count
        along, across = u * length, 4 * height * u * (1 - u)
        x = 100 + along * ux - across * uy + rng.uniform(-jitter, jitter)
        y = 100 + along * uy + across * ux + rng.uniform(-jitter, jitter)
        points.append([x, y, i * 8])
    if rng.random() < 0.3:  # a hook as the finger lifts
        hook = rng.uniform(0, 0.1) * length
        turn = math.radians(rng.choice([-1, 1]) * rng.uniform(30, 150))
        hx, hy = math.cos(angle + turn), math.sin(angle + turn)
        steps = max(1, int(hook / speed / 8))
        x, y, t = points[-1]
        for j in range(1, steps + 1):
            points.append([x + hx * hook * j / steps, y + hy * hook * j / steps, t + j * 8])
    return points


def run_tool(command):
    """`command` (stroke-tool and its arguments) run to its end: its standard output; what it says when it fails,
    or cannot run at all, ends the script with status 1."""
    try:
        run = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:  # no such tool (a release build not made), or not executable
        sys.exit(f"swipes.py: cannot run {command[0]}: {error.strerror} (make release builds it; --tool names another)")
    if run.returncode != 0:
        sys.exit(f"swipes.py: {' '.join(command)} failed: {run.stderr.strip()}")
    return run.stdout


def recognize(tool, library, source):
    """`stroke-tool recognize --json` over `source` (["--strokes", FILE] or ["--dataset", DIR]): one dict each."""
    output = run_tool([tool, "recognize", *source, "--json"] + (["--library", library] if library else []))
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def best(answer, threshold, own):
    """The name the answer would match at `threshold`: at the library's own threshold `own`, its match (which the
    checkmark detector's verdict may have chosen between close candidates); at another, its best candidate, if that
    scores enough."""
    if abs(threshold - own) < 1e-9:
        return answer.get("match")
    candidates = answer.get("candidates") or []
    return candidates[0]["name"] if candidates and candidates[0]["score"] >= threshold else None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", default=os.path.join(root, "Libraries", "swipes.json"))
    parser.add_argument("--count", type=int, default=250, help="swipes per direction (default 250)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tilt", type=float, default=15, help="degrees off the direction, at most (default 15)")
    parser.add_argument("--bow", type=float, default=0.15, help="an arc's height over its length (default 0.15)")
    parser.add_argument("--dataset", help="$1 logs, none of them swipes: how many the library takes for one")
    parser.add_argument("--thresholds", help="scores a match needs (default: the library's own, and 0.5 to 0.75)")
    parser.add_argument("--tool", default=os.path.join(root, ".build", "release", "stroke-tool"))
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("--count: at least 1, got %d" % args.count)
    try:
        asked = [float(t) for t in (args.thresholds or "0.5,0.55,0.6,0.65,0.7,0.75").split(",")]
    except ValueError:
        asked = []
    if not asked or not all(0 <= t <= 1 for t in asked):
        parser.error("--thresholds: scores from 0 to 1, separated by commas, got %r" % args.thresholds)
    if args.library == "default":
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "default.json")
            run_tool([args.tool, "library", "export-default", "-o", path])
            with open(path) as file:
                library = json.load(file)
    else:
        # A file stroke-tool refuses (or none) is said as it says it, before the script reads it.
        run_tool([args.tool, "library", "list", args.library])
        with open(args.library) as file:
            library = json.load(file)
    names = sorted({t["name"] for t in library["templates"]})
    own = library.get("minimumScore", 0.5)
    thresholds = sorted({own, *asked})
    directions = {n: DIRECTIONS[n[len("swipe_"):]] for n in names if n.startswith("swipe_")
                  and n[len("swipe_"):] in DIRECTIONS}
    if not directions:  # no swipes: every answer but nomatch is a gesture taken for a swipe
        directions = {f"swipe_{name}": degrees for name, degrees in DIRECTIONS.items()}
    rng = random.Random(args.seed)
    strokes = [{"name": name, "points": swipe(rng, degrees, args.tilt, args.bow)}
               for name, degrees in sorted(directions.items()) for _ in range(args.count)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(strokes, file)
    try:
        answers = recognize(args.tool, args.library, ["--strokes", file.name])
    finally:
        os.unlink(file.name)
    report = {"library": args.library, "swipes": len(answers), "seed": args.seed, "tilt": args.tilt,
              "bow": args.bow, "checkmarkFired": sum(1 for a in answers if a.get("checkmarkPointIndex") is not None) / len(answers),
              "thresholds": []}
    others = recognize(args.tool, args.library, ["--dataset", args.dataset]) if args.dataset else None
    for threshold in thresholds:
        matched = [best(a, threshold, own) for a in answers]
        row = {"threshold": threshold, "libraryThreshold": abs(threshold - own) < 1e-9,
               "own": sum(m == a["expected"] for m, a in zip(matched, answers)) / len(answers),
               "other": sum(m is not None and m != a["expected"] for m, a in zip(matched, answers)) / len(answers),
               "none": sum(m is None for m in matched) / len(answers)}
        if others is not None:
            taken = [best(a, threshold, own) for a in others]
            row["nonSwipesTakenForSwipes"] = sum(1 for m in taken if m in directions) / len(others)
            row["nonSwipesMatchedOwn"] = sum(m == a.get("expected") for m, a in zip(taken, others)) / len(others)
        report["thresholds"].append(row)
    if others is not None:
        report["nonSwipes"] = len(others)
    if args.json:
        print(json.dumps(report))
        return
    print(f"{report['swipes']} swipes ({args.count} per direction, seed {args.seed}, tilted up to {args.tilt:g} "
          f"degrees, bowed up to {args.bow:g}) against {args.library}; "
          f"checkmark detector fired on {100 * report['checkmarkFired']:.2f}%")
    for row in report["thresholds"]:
        mark = " (the library's)" if row["libraryThreshold"] else ""
        line = (f"  at {row['threshold']:.2f}{mark}: own direction {100 * row['own']:.2f}%, another "
                f"{100 * row['other']:.2f}%, nomatch {100 * row['none']:.2f}%")
        if others is not None:
            line += (f"; of {len(others)} strokes that are no swipe, {100 * row['nonSwipesTakenForSwipes']:.2f}% "
                     f"taken for one, {100 * row['nonSwipesMatchedOwn']:.2f}% their own gesture")
        print(line)


if __name__ == "__main__":
    main()
