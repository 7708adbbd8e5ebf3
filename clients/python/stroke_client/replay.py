"""Replay $1-format XML logs into a running stroke-worker and report what comes back.

    python -m stroke_client.replay --dataset ../shared/datasets/dollar1 [--speed recorded|fast]
        [--sessions 16] [--batch 1] [--binary] [--input tcp://127.0.0.1:5555] [--output tcp://127.0.0.1:5556]

Reports accuracy (match name = gesture), checkmark true/false-positive rates and median lead, and the
end-to-end latency from the stroke's end message to its match event (p50/p99).
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
import threading
import time
from typing import Dict, List, Optional, Tuple
from xml.etree import ElementTree

import zmq

from .client import Consumer, Producer

def read_log(path: str) -> Tuple[str, List[Tuple[float, float, float]]]:
    """The gesture and points of one $1-format log: ``<Gesture Name="check01" …>`` with ``<Point X= Y= T= />``
    children. The gesture is the ``Name`` without its repetition number (``check01`` → ``check``), as the worker's
    own reader (``DollarLog``) takes it.

    Raises ``ValueError`` naming the file for one that is not such a log: not XML, no ``<Gesture>`` with a
    ``Name``, a point without a finite number in ``X``, ``Y`` or ``T``, or no points (before version 1.12, a
    log without points ended the replay with an ``IndexError``, and a point written ``T="5.5"`` or ``X="1e3"`` was
    left out of its stroke without a word).
    """
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        raise ValueError("%s: not a readable XML log: %s" % (path, error)) from None
    gesture_element = root if root.tag == "Gesture" else root.find(".//Gesture")
    name = gesture_element.get("Name", "") if gesture_element is not None else ""
    gesture = re.sub(r"\d+$", "", name)
    if gesture_element is None or not gesture:
        raise ValueError("%s: no <Gesture> element with a Name" % path)
    points = []
    for index, point in enumerate(root.iter("Point")):
        try:
            x, y, t = (float(point.get(key, "")) for key in ("X", "Y", "T"))
        except ValueError:
            x = y = t = math.nan
        if not all(math.isfinite(value) for value in (x, y, t)):
            raise ValueError("%s: point %d lacks a numeric X, Y or T: %s" % (
                path, index, ElementTree.tostring(point, encoding="unicode").strip()))
        points.append((x, y, t))
    if not points:
        raise ValueError("%s: no <Point> elements" % path)
    return gesture, points


def load_logs(directory: str, limit: Optional[int] = None) -> List[Tuple[str, str, List[Tuple[float, float, float]]]]:
    """(path, gesture, points) of every ``sNN/<speed>/<gesture>NN.xml`` below ``directory``, sorted by path.

    Raises ``ValueError`` for a file that is not a log (``read_log``).
    """
    # Through links (a data set assembled from links to its subjects; version 1.13, before which they were left
    # out), each folder once by its first path (a link back up the tree would loop).
    paths, seen = [], set()
    for root, folders, files in os.walk(directory, followlinks=True):
        folders.sort()
        real = os.path.realpath(root)
        if real in seen:
            folders[:] = []
            continue
        seen.add(real)
        paths += [os.path.join(root, name) for name in files if name.endswith(".xml")]
    paths.sort()
    logs = []
    for path in paths[:limit] if limit else paths:
        gesture, points = read_log(path)
        logs.append((path, gesture, points))
    return logs


def percentile(values: List[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def replay(dataset: str, input_endpoint: str, output_endpoint: str, sessions: int = 16, batch: int = 1,
           binary: bool = False, recorded_speed: bool = False, limit: Optional[int] = None,
           timeout: float = 30.0, verbose: bool = False) -> Dict[str, object]:
    """Stream every log (round-robin over ``sessions`` sessions, in parallel) and collect the results."""
    logs = load_logs(dataset, limit)
    if not logs:
        raise SystemExit("no .xml logs below %s" % dataset)
    context = zmq.Context()
    run = "replay-%x-" % (int(time.time() * 1000) & 0xFFFFFFFF)  # fresh session ids for every run
    consumer = Consumer(output_endpoint, prefixes=[run], context=context)
    producer = Producer(input_endpoint, context=context, binary=binary)
    producer.wait_for_all_buckets()
    consumer.wait_until_subscribed(producer)
    expected: Dict[Tuple[str, int], Tuple[str, str]] = {}
    end_sent: Dict[Tuple[str, int], float] = {}
    results: Dict[Tuple[str, int], Dict[str, object]] = {}
    checkmarks: Dict[Tuple[str, int], Dict[str, object]] = {}
    spans: Dict[Tuple[str, int], Tuple[float, float]] = {}  # each stroke's first and last point's time
    done = threading.Event()

    def receive() -> None:
        while not done.is_set() or len(results) < len(expected):
            event = consumer.receive(timeout=0.2)
            if event is None:
                if done.is_set() and time.monotonic() > deadline[0]:
                    return
                continue
            key = (event.session, event.get("stroke"))
            if event.kind == "checkmark":
                checkmarks[key] = event.fields
            elif event.kind in ("match", "nomatch"):
                event.fields["_latency"] = event.received_at - end_sent.get(key, event.received_at)
                results[key] = event.fields
                if verbose:
                    print("%-10s %-18s -> %s" % (event.session, expected.get(key, ("", "?"))[1],
                                                 event.get("name") or "no match"))

    deadline = [float("inf")]
    receiver = threading.Thread(target=receive, daemon=True)
    receiver.start()
    # A schedule: each session draws its logs one after another (100 ms apart), each message due at its
    # recorded time; sessions run side by side, so their messages interleave as they would live.
    schedule = []
    for k in range(sessions):
        session = "%s%d" % (run, k)
        clock = 0.0
        for order, (path, gesture, points) in enumerate(logs[k::sessions]):
            stroke = producer.new_stroke_id(session)
            expected[(session, stroke)] = (path, gesture)
            t0 = points[0][2]
            spans[(session, stroke)] = (t0, points[-1][2])
            schedule.append((clock, k, order, 0, session, "begin", stroke, points[:1]))
            for index in range(1, len(points), max(1, batch)):
                chunk = points[index:index + max(1, batch)]
                schedule.append((clock + (chunk[-1][2] - t0) / 1000.0, k, order, index, session, "points", stroke,
                                 chunk))
            clock += (points[-1][2] - t0) / 1000.0
            schedule.append((clock, k, order, len(points), session, "end", stroke, []))
            clock += 0.1
    schedule.sort(key=lambda item: item[:4])
    started = time.monotonic()
    for due, _, _, _, session, kind, stroke, chunk in schedule:
        if recorded_speed:
            wait = due - (time.monotonic() - started)
            if wait > 0:
                time.sleep(wait)
        if kind == "end":
            end_sent[(session, stroke)] = time.monotonic()
        producer.send(session, kind, stroke, points=chunk)
    sent_seconds = time.monotonic() - started
    deadline[0] = time.monotonic() + timeout
    done.set()
    receiver.join(timeout + 1)
    producer.close()
    consumer.close()
    context.term()

    total = len(expected)
    correct = sum(1 for key, (_, gesture) in expected.items() if results.get(key, {}).get("name") == gesture)
    checks = [key for key, (_, gesture) in expected.items() if gesture == "check"]
    others = [key for key, (_, gesture) in expected.items() if gesture != "check"]
    leads = []
    for key in checks:
        if key in checkmarks:
            first, last = spans[key]
            duration = last - first
            leads.append((last - float(checkmarks[key]["t"])) / duration if duration > 0 else 0.0)
    latencies = [float(r["_latency"]) * 1e6 for r in results.values()]
    return {
        "strokes": total,
        "answered": len(results),
        "accuracy": correct / total if total else 0.0,
        "checkmark": {
            "truePositiveRate": sum(1 for k in checks if k in checkmarks) / len(checks) if checks else 0.0,
            "falsePositiveRate": sum(1 for k in others if k in checkmarks) / len(others) if others else 0.0,
            "medianLeadFraction": statistics.median(leads) if leads else 0.0,
        },
        "latencyMicroseconds": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)},
        "sendSeconds": sent_seconds,
        "messages": len(schedule),
        "eventGaps": consumer.gaps,
    }


def _count(text: str) -> int:
    """A whole number of at least 1, for argparse (before version 1.9, 0 or less ran into the worker's timeouts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a whole number, got %r" % text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1, got %d" % value)
    return value


def main(argv: Optional[List[str]] = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, help="directory of $1-format XML logs")
    parser.add_argument("--input", default=os.environ.get("STROKE_INPUT", "tcp://127.0.0.1:5555"))
    parser.add_argument("--output", default=os.environ.get("STROKE_OUTPUT", "tcp://127.0.0.1:5556"))
    parser.add_argument("--sessions", type=_count, default=16, help="sessions drawing at once (default 16)")
    parser.add_argument("--batch", type=_count, default=1, help="points per message (default 1)")
    parser.add_argument("--binary", action="store_true", help="binary payloads instead of JSON")
    parser.add_argument("--speed", choices=["fast", "recorded"], default="fast",
                        help="as fast as possible, or about the recorded pace (default fast)")
    parser.add_argument("--limit", type=_count, help="replay only the first N logs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="print each result as it arrives")
    args = parser.parse_args(argv)
    try:
        report = replay(args.dataset, args.input, args.output, sessions=args.sessions, batch=args.batch,
                        binary=args.binary, recorded_speed=args.speed == "recorded", limit=args.limit,
                        verbose=args.verbose)
    except (TimeoutError, ConnectionError, ValueError) as error:
        # No worker there, a refused key, an endpoint libzmq would misread: said, without a traceback.
        print("replay: %s" % error, file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        check = report["checkmark"]
        latency = report["latencyMicroseconds"]
        print("replayed %d strokes, %d answered, in %.2f s" % (report["strokes"], report["answered"],
                                                             report["sendSeconds"]))
        print("accuracy: %.2f%%" % (100 * report["accuracy"]))
        print("checkmark: true positives %.2f%%, false positives %.2f%%, median lead %.3f" % (
            100 * check["truePositiveRate"], 100 * check["falsePositiveRate"], check["medianLeadFraction"]))
        print("end -> match latency: p50 %.0f us, p99 %.0f us; event gaps: %d" % (
            latency["p50"], latency["p99"], report["eventGaps"]))
    return 0 if report["answered"] == report["strokes"] else 1


if __name__ == "__main__":
    sys.exit(main())
