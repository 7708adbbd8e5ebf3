#!/usr/bin/env python3
"""Checks the recognition targets on the $1 logs, so that a change that costs accuracy fails `make test`.

The figures are deterministic (seeded), so each bound is a regression guard, not a timing: issue 2's targets for the
recognizer (user-dependent E = 1, 3, 9 over 30 trials; the built-in library's recipe on subjects left out of it) and
the checkmark detector (true positives, false positives, median lead), the detector's hold on strokes as a phone
delivers them (`stroke-tool robustness`: 60-240 Hz, a finger's noise, whole pixels), as handwriting that leans to
the right draws them (`shear=-0.2`: 1.29% false positives before session 26 compared the legs' heights, 0.62% since
session 27) and as a shakier finger draws them (`jitter=0.01`, noise of 1% of the stroke's size: 1.07% false
positives, most of them pigtails, before session 27 limited the turn within each leg, 0.49% since), the recognizer's
accuracy on subjects left out of its library under each of these and tilted by 10° either way (`rotate=10`: 98.50%
before session 27 let the checkmark detector's verdict decide between close candidates, 99.17% since), and a gesture
a session learns from one stroke (`stroke-tool learned`; bounds just under what session 24 measured: 99.44%, 99.33%,
0.03%), and gestures cut into two strokes (`stroke-tool multistroke`; session 25 measured 99.46% in the order drawn,
98.21% in any order and direction, 99.33% and 99.33% in a library of both kinds), and libraries whose strokes go
either way round (`--stroke-direction any`; session 30 measured 99.62% as recorded and 99.46% drawn backward, on
subjects left out; the detector firing on 2.09% of the other strokes drawn backward since session 32 treats the
square corner of an L as none of a check's, 3.78% before), and sessions that choose their gestures (`--among 4`, `--among-others 4`; session 31 measured
99.79% of strokes of chosen gestures recognized, and 98.79% of strokes of other gestures turned away), and the
strokes of a gesture the library lacks turned away (session 31 raised the built-in library's threshold from 0.5 to
0.55: 35.71% turned away, against 13.71%), and random strokes of no gesture at all turned away (`stroke-tool
scribbles`; session 32 measured 73.15% of 2,000 at 0.55, and the detector firing on 1.05%), and the library of
swipes in Libraries/swipes.json, alone and beside the built-in gestures (`scripts/swipes.py`; session 42 measured
99.95% and 99.90% of 2,000 synthetic swipes in their own direction, and 0.29% and none of the $1 strokes taken for
a swipe; session 83: 1.20% of the swipes taken for a gesture by the built-in library, which holds no line, where
36.55% were before a straight stroke matched only a straight template), and a match's `rotation` on strokes turned
by random angles (session 43 measured 2,398 of 2,400 matched as drawn with the built-in templates in any
orientation, the rotation following the turn to at most 0.10 degrees), and
strokes tilted by 20 and 30 degrees either way (session 44 let the elastic stage compare strokes turned past a
library's dead zone of 10 degrees as if drawn upright: 99.00-99.29% and 98.33-98.58%, against 95.08-96.38% and
80.25-84.00% before; the built-in library's threshold went from 0.55 to 0.59 with it, turning away as many strokes
of unknown gestures as before under every perturbation), and the checkmark detector of a tilted player's session,
which follows the tilt its matches show (`stroke-tool tilt`; session 45 measured 98.67-100% of checks fired at 30
degrees either way, against 39.33% and 56.67% as drawn, and 2.00-3.33% of v's at -20 degrees, against 20.00%;
session 49 had the library follow it too: 99.46-99.67% recognized at 30 and 45 degrees either way, against
97.67-98.54% and 76.62-79.08% as drawn; session 50 its gestures of two strokes, in a session that groups them:
97.50-98.17% at 30 and 45 degrees, against 57.67-60.67% and 1.33-2.17% as drawn).
Session 48 scored each gesture by its 3 nearest templates (`neighbors`) and set the threshold to 0.6: 99.75% on
subjects left out, 46.88% of the strokes of a gesture the library lacks turned away (36.25% before) and 84.70% of
the scribbles (76.95%); at a session's 0.65, 99.17%, 71.96% and 94.75%. The bounds of those rose with it, just
under what it measured.

Usage: scripts/accuracy-check.py [--tool PATH] [--dataset DIR]   (skips, and passes, when DIR is absent)
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from xml.etree import ElementTree

PHONE_LIKE = ["rate=60", "rate=120", "rate=240", "rate=120,jitter=0.005,quantize=1", "jitter=0.005"]
LEANING = ["shear=-0.2"]
SHAKY = ["jitter=0.01"]
TILTED = ["rotate=10", "rotate=-10"]
FAR_TILTED = ["rotate=20", "rotate=-20", "rotate=30", "rotate=-30"]


def run(tool, *arguments):
    output = subprocess.run([tool, *arguments, "--json"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def left_out(tool, dataset, *arguments):
    """`stroke-tool eval` of each subject against the built-in library's recipe built from the others (8 strokes per
    gesture): the fraction of all their strokes counted right."""
    subjects = sorted(entry for entry in os.listdir(dataset) if os.path.isdir(os.path.join(dataset, entry)))
    # The built-in library's threshold and the templates a score stands for, as `stroke-tool library list default`
    # says them.
    listing = subprocess.run([tool, "library", "list", "default"], check=True, capture_output=True, text=True).stdout
    threshold = listing.split("minimum score ")[1].split(",")[0]
    neighbors = listing.split("scores of the ")[1].split(" ")[0] if "scores of the " in listing else "1"
    right = tests = 0
    with tempfile.TemporaryDirectory() as folder:
        for subject in subjects:
            library = os.path.join(folder, subject + ".json")
            others = [argument for other in subjects if other != subject for argument in ("--subjects", other)]
            subprocess.run([tool, "library", "build", "--per-gesture", "8", "--dataset", dataset, *others,
                            "--minimum-score", threshold, "--neighbors", neighbors, "-o", library], check=True,
                           capture_output=True)
            report = run(tool, "eval", "--dataset", dataset, "--protocol", "user-independent", "--library", library,
                         "--subjects", subject, *arguments)[0]
            right += round(report["accuracy"] * report["tests"])
            tests += report["tests"]
    return right / max(tests, 1)


def swipe_report(options, library):
    """`scripts/swipes.py` against `library`, with the $1 logs as strokes that are no swipe: the report, and its row
    at the library's own threshold."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swipes.py")
    output = subprocess.run([sys.executable, script, "--tool", options.tool, "--library", library, "--dataset",
                             options.dataset, "--json"], check=True, capture_output=True, text=True).stdout
    report = json.loads(output)
    return report, next(row for row in report["thresholds"] if row["libraryThreshold"])


def rotation_report(options):
    """Each stroke of the logs turned by a seeded random angle, both matched with the built-in templates in any
    orientation: the fraction of strokes matched as the same gesture both ways, and of those, the fraction whose
    `rotation` turned stroke less as drawn is the turn to within 1 degree (the event rounds to 0.1)."""
    strokes = []
    for folder, _, files in sorted(os.walk(options.dataset)):
        for name in sorted(files):
            if name.endswith(".xml"):
                root = ElementTree.parse(os.path.join(folder, name)).getroot()
                points = [[float(p.get("X")), float(p.get("Y")), float(p.get("T"))] for p in root.iter("Point")]
                strokes.append((root.get("Name").rstrip("0123456789"), points))
    rng = random.Random(43)
    turns = [rng.uniform(-180, 180) for _ in strokes]
    with tempfile.TemporaryDirectory() as folder:
        library = os.path.join(folder, "invariant.json")
        subprocess.run([options.tool, "library", "export-default", "-o", library], check=True, capture_output=True)
        with open(library) as file:
            content = json.load(file)
        content["orientation"] = "invariant"
        with open(library, "w") as file:
            json.dump(content, file)
        answers = []
        for label, angles in (("drawn", [0.0] * len(strokes)), ("turned", turns)):
            entries = []
            for (name, points), degrees in zip(strokes, angles):
                c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
                entries.append({"name": name, "points": [[x * c - y * s, x * s + y * c, t] for x, y, t in points]})
            path = os.path.join(folder, label + ".json")
            with open(path, "w") as file:
                json.dump(entries, file)
            answers.append(run(options.tool, "recognize", "--strokes", path, "--library", library))
    same = [(a, b, turn) for a, b, turn in zip(answers[0], answers[1], turns) if a.get("match") == b.get("match")
            and a.get("match") is not None]
    within = sum(1 for a, b, turn in same if abs((b["rotation"] - a["rotation"] - turn + 180) % 360 - 180) <= 1)
    return len(same) / max(len(strokes), 1), within / max(len(same), 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default=".build/release/stroke-tool")
    parser.add_argument("--dataset", default="../shared/datasets/dollar1")
    options = parser.parse_args()
    if not os.path.isdir(options.dataset):
        print("accuracy-check: skipped (no %s)" % options.dataset)
        return 0
    checks = []

    def check(name, value, bound, at_least=True):
        ok = value >= bound if at_least else value <= bound
        checks.append(ok)
        print("%s %-58s %.4f %s %.4f" % ("ok  " if ok else "FAIL", name, value, ">=" if at_least else "<=", bound))

    for templates, bound in [(1, 0.993), (3, 0.997), (9, 0.998)]:
        report = run(options.tool, "eval", "--dataset", options.dataset, "--templates-per-gesture",
                     str(templates), "--trials", "30")[0]
        noun = "template" if templates == 1 else "templates"
        check("user-dependent accuracy, %d %s per gesture" % (templates, noun), report["accuracy"], bound)
    rows = run(options.tool, "robustness", "--dataset", options.dataset,
               "--perturbations", ";".join(["none"] + PHONE_LIKE + LEANING + SHAKY + TILTED))[0]["rows"]
    unchanged = rows[0]
    check("accuracy with each subject left out of the library", unchanged["accuracy"], 0.99)
    check("a gesture the library lacks, turned away (each subject left out)", unchanged["unknownRejected"], 0.45)
    check("checkmark true positives", unchanged["checkmark"]["truePositiveRate"], 0.97)
    check("checkmark false positives", unchanged["checkmark"]["falsePositiveRate"], 0.01, at_least=False)
    check("checkmark median lead", unchanged["checkmark"]["medianLeadFraction"], 0.20)
    for row in rows[1:]:
        check("accuracy with each subject left out, %s" % row["perturbation"], row["accuracy"], 0.99)
        check("checkmark true positives, %s" % row["perturbation"], row["checkmark"]["truePositiveRate"], 0.97)
        check("checkmark false positives, %s" % row["perturbation"], row["checkmark"]["falsePositiveRate"], 0.01,
              at_least=False)
    # Hands that tilt further (session 44: the elastic stage compares strokes turned past 10 degrees upright; 99.00%
    # and 99.29% at 20 degrees either way, 98.33% and 98.58% at 30, against 95.08%, 96.38%, 84.00% and 80.25%
    # compared as drawn). The detector knows upright checks only, so only the recognizer is held to these.
    for row in run(options.tool, "robustness", "--dataset", options.dataset,
                   "--perturbations", ";".join(FAR_TILTED))[0]["rows"]:
        bound = 0.985 if "20" in row["perturbation"] else 0.975
        check("accuracy with each subject left out, %s" % row["perturbation"], row["accuracy"], bound)
    learned = run(options.tool, "learned", "--dataset", options.dataset, "--templates-per-gesture", "1")[0]["rows"][0]
    check("a gesture learned from one stroke, recognized", learned["learnedRecognized"], 0.99)
    check("the library's gestures next to it, recognized", learned["othersRecognized"], 0.99)
    check("the library's gestures taken for the learned one", learned["othersTakenForLearned"], 0.005,
          at_least=False)
    pieces = run(options.tool, "multistroke", "--dataset", options.dataset, "--strokes", "2")[0]["rows"][0]
    check("gestures cut in two strokes, in the order drawn", pieces["drawnOrder"], 0.99)
    check("gestures cut in two strokes, in any order and direction", pieces["anyOrder"], 0.97)
    check("a library of both kinds: x, arrow, rectangle, triangle in two strokes", pieces["mixedCut"], 0.98)
    check("a library of both kinds: the other gestures, whole", pieces["mixedWhole"], 0.99)
    either = run(options.tool, "robustness", "--dataset", options.dataset, "--stroke-direction", "any",
                 "--perturbations", "none;reverse=1")[0]["rows"]
    check("either way round, each subject left out, as recorded", either[0]["accuracy"], 0.99)
    check("either way round, each subject left out, drawn backward", either[1]["accuracy"], 0.99)
    check("checkmark false positives on strokes drawn backward", either[1]["checkmark"]["falsePositiveRate"], 0.025,
          at_least=False)
    check("each subject left out, among 4 chosen gestures (its own and 3 others)",
          left_out(options.tool, options.dataset, "--among", "4"), 0.995)
    check("each subject left out, a gesture outside a choice of 4, turned away",
          left_out(options.tool, options.dataset, "--among-others", "4"), 0.98)
    scribbles = run(options.tool, "scribbles", "--count", "2000")[0]
    check("scribbles (strokes of no gesture) turned away by the built-in library", scribbles["turnedAway"], 0.83)
    check("checkmark fired on scribbles", scribbles["checkmarkFired"], 0.02, at_least=False)
    # Libraries/swipes.json (session 42: 99.95% of 2,000 swipes, 0.29% of the $1 strokes taken for one; beside the
    # built-in gestures 99.90%, none taken, the $1 strokes' answers unchanged).
    with tempfile.TemporaryDirectory() as folder:
        both = os.path.join(folder, "default-and-swipes.json")
        swipes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Libraries", "swipes.json")
        subprocess.run([options.tool, "library", "export-default", "-o", both], check=True, capture_output=True)
        subprocess.run([options.tool, "library", "add", both, "--library", swipes], check=True, capture_output=True)
        alone, alone_row = swipe_report(options, swipes)
        _, both_row = swipe_report(options, both)
        _, builtin_row = swipe_report(options, "default")
    check("swipes matched their direction (Libraries/swipes.json)", alone_row["own"], 0.995)
    check("the $1 strokes taken for a swipe by the swipes alone", alone_row["nonSwipesTakenForSwipes"], 0.01,
          at_least=False)
    check("checkmark fired on swipes", alone["checkmarkFired"], 0.005, at_least=False)
    check("swipes matched their direction beside the built-in gestures", both_row["own"], 0.995)
    check("the $1 strokes taken for a swipe beside the built-in gestures", both_row["nonSwipesTakenForSwipes"],
          0.002, at_least=False)
    check("the $1 strokes matched their gesture, built-in with swipes", both_row["nonSwipesMatchedOwn"], 0.999)
    # Swipes against the built-in library, which has none: a straight stroke matches only a straight template (session
    # 83: 1.20% taken for one of its gestures, the hooked ones; 36.55% before).
    check("swipes taken for a gesture by the built-in library", builtin_row["other"], 0.02, at_least=False)
    # A match's rotation (session 43: 2,398 of 2,400 turned strokes matched as drawn, the rotation following the turn
    # to at most 0.10 degrees).
    matched, followed = rotation_report(options)
    check("turned strokes matched as drawn, built-in templates in any orientation", matched, 0.995)
    check("of those, a match's rotation following the turn to within 1 degree", followed, 0.999)
    # A tilted player's checks (session 45: each subject's strokes, all tilted alike, as one session whose detector
    # judges them turned back by the tilt its matches show; checks fired at 30 degrees either way 98.67-100%, against
    # 39.33% and 56.67% as drawn; v's fired at -20 degrees 2.00-3.33%, against 20.00%; upright as drawn).
    tilt_rows = run(options.tool, "tilt", "--dataset", options.dataset, "--tilts", "-45,-30,-20,0,20,30,45")[0]["rows"]
    # (tilt, detector follows, library follows); the detector's guards read its row alone.
    both = {row["tilt"]: row for row in tilt_rows if row["matching"]}
    rows_by = {(row["tilt"], row["tracking"]): row for row in tilt_rows if not row["matching"]}
    for tilt in (-30, -20, 20, 30):
        check("checks a tilted player's session fires on, %+d degrees" % tilt, rows_by[(tilt, True)]["checksFired"],
              0.98)
        check("other strokes it fires on, %+d degrees" % tilt, rows_by[(tilt, True)]["othersFired"], 0.005,
              at_least=False)
    check("v's a tilted player's session fires on, -20 degrees", rows_by[(-20, True)]["vsFired"], 0.05,
          at_least=False)
    upright = (rows_by[(0, True)], rows_by[(0, False)])
    check("an upright player's session followed: checks fired, as drawn less followed", upright[1]["checksFired"]
          - upright[0]["checksFired"], 0, at_least=False)
    check("an upright player's session followed: others fired, followed less as drawn", upright[0]["othersFired"]
          - upright[1]["othersFired"], 0, at_least=False)
    # The library following the tilt too (`--match-follow-tilt`, session 49): 99.46-99.67% recognized at 30 and 45
    # degrees either way, against 97.67-98.54% and 76.62-79.08% as drawn; upright as drawn (99.75%).
    for tilt in (-45, -30, 30, 45):
        check("strokes of a tilted player's session recognized, library following, %+d degrees" % tilt,
              both[tilt]["accuracy"], 0.99)
    check("an upright player's session, library following: recognized as drawn less followed",
          rows_by[(0, False)]["accuracy"] - both[0]["accuracy"], 0, at_least=False)
    # A session given its player's tilt (`options` with `tilt`, session 50): each session's first 5 strokes at 30 and
    # 45 degrees either way 100% recognized, against 80-100% (-45: 80%, +45: 92%) when the estimate starts empty
    # (seeds 2-4: 96-100%, against 68-100%).
    given = run(options.tool, "tilt", "--dataset", options.dataset, "--tilts", "-45,-30,30,45", "--given-tilt")[0]["rows"]
    for row in given:
        if row["matching"]:
            check("first 5 strokes of a session given its tilt, %+d degrees" % row["tilt"],
                  row["firstStrokesAccuracy"], 0.96)
    # A tilted player's gestures of several strokes (session 50: x, arrow, rectangle and triangle cut in two, in any
    # order and directions, in a library of both kinds, turned back by the estimate the session's whole gestures
    # give): 97.50-98.17% of the cut ones and 99.22-99.61% of the whole ones recognized at 30 and 45 degrees either
    # way, against 1.33-2.17% and 57.67-60.67% of the cut ones as drawn.
    multistroke_rows = run(options.tool, "tilt", "--dataset", options.dataset, "--multistroke", "2", "--tilts",
                           "-45,-30,0,30,45")[0]["rows"]
    turned = {row["tilt"]: row for row in multistroke_rows if row["following"]}
    for tilt in (-45, -30, 30, 45):
        check("gestures of 2 strokes of a tilted player, following, %+d degrees" % tilt, turned[tilt]["cut"], 0.97)
        check("the same session's whole gestures, following, %+d degrees" % tilt, turned[tilt]["whole"], 0.99)
    drawn = {row["tilt"]: row for row in multistroke_rows if not row["following"]}
    check("an upright player's gestures of 2 strokes: as drawn less followed", abs(drawn[0]["cut"] - turned[0]["cut"]),
          0, at_least=False)
    # A session that raises its threshold to 0.65 (`options` with `minimumScore`, session 46: it answers as the
    # library with that threshold does): 99.38% of the strokes of subjects left out recognized, 61.92% of a gesture's
    # the library lacks and 91.55% of scribbles turned away; since session 48 (3 templates a score), 99.17%, 71.96%
    # and 94.75%.
    strict = run(options.tool, "robustness", "--dataset", options.dataset, "--perturbations", "none",
                 "--minimum-score", "0.65")[0]["rows"][0]
    check("a session at minimumScore 0.65: each subject left out, recognized", strict["accuracy"], 0.99)
    check("a session at minimumScore 0.65: a gesture the library lacks, turned away", strict["unknownRejected"], 0.70)
    strict_scribbles = run(options.tool, "scribbles", "--count", "2000", "--thresholds", "0.65")[0]
    check("a session at minimumScore 0.65: scribbles turned away", strict_scribbles["thresholds"][0]["turnedAway"],
          0.93)
    failed = checks.count(False)
    print("accuracy-check: %d passed, %d failed" % (len(checks) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
