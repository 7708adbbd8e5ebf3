#!/usr/bin/env python3
"""Writes the seed inputs and dictionaries of the coverage-guided fuzz targets (`stroke-fuzz`, `make fuzz-coverage`).

For each target, DIR/seeds/TARGET holds small valid inputs to mutate and DIR/TARGET.dict the words libFuzzer may
splice in (JSON keys and values of the formats), all taken from the repository: the protocol's scenarios and binary
vectors (Protocol/vectors), its schemas' property names, the swipes library, and state files and checkmark tunings
written here the way the worker writes and reads them.

Usage: scripts/fuzz-seeds.py DIR
"""

import json
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIOS = json.loads((ROOT / "Protocol/vectors/scenarios.json").read_text())["scenarios"]
BINARY = json.loads((ROOT / "Protocol/vectors/binary.json").read_text())["vectors"]


def payload(message):
    """A scenario message's payload bytes, or None for a message given as raw frames."""
    if "json" in message:
        return json.dumps(message["json"], separators=(",", ":")).encode()
    if "text" in message:
        return message["text"].encode()
    if "hex" in message:
        return bytes.fromhex(message["hex"])
    return None


def shard_key(session):
    """The shard key of a session id: FNV-1a-32 of its bytes, modulo 4096, in three lowercase hex digits."""
    value = 0x811C9DC5
    for byte in session.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "%03x" % (value % 4096)


def processor_input(scenario, configuration=0):
    """A scenario in the processor target's framing (FuzzTarget+Processor.swift): a byte of configuration bits
    (0: the worker's defaults), then per message a control byte (the topic: 0-3 the fuzzed sessions in order of
    appearance, 6 a topic given inline, 7 a message of 1 or 3 frames), a 16-bit little-endian length and the
    payload."""
    sessions, out = {}, bytearray([configuration])
    for message in scenario["messages"]:
        if "frames" in message:
            frames = [frame.encode() for frame in message["frames"]]
            first = frames[0] if frames else b""
            out += bytes([7 | (32 if len(frames) == 3 else 0)]) + struct.pack("<H", len(first)) + first
            continue
        topic = message["topic"]
        key, _, session = topic.partition("/")
        # Only a topic with its session's own shard key goes to a fuzzed session; others (bad keys) stay as given.
        session = session if key == shard_key(session) else None
        if session is not None and len(sessions) < 4 and session not in sessions:
            sessions[session] = len(sessions)
        body = payload(message)
        if session in sessions:
            out += bytes([sessions[session]]) + struct.pack("<H", len(body)) + body
        else:
            raw = topic.encode()[:39]
            out += bytes([6, len(raw)]) + raw + struct.pack("<H", len(body)) + body
    return bytes(out)


def events():
    """Event payloads: the fields each scenario expects, completed as the worker writes them."""
    found = []
    for scenario in SCENARIOS:
        for event in scenario.get("events", []):
            fields = {k: v for k, v in event.items() if k != "topic" and not str(v).startswith("@")}
            fields.setdefault("v", 1)
            found.append(json.dumps(fields, separators=(",", ":")).encode())
    found.append(b'{"v":1,"event":"match","session":"s","eventSeq":3,"stroke":1,"pointer":0,"name":"check",'
                 b'"score":0.91,"rotation":-2.5,"candidates":[{"name":"check","score":0.91},{"name":"v","score":0.8}],'
                 b'"points":40,"library":"default","strokes":[1,2],"bounds":[0,0,10,20]}')
    found.append(b'{"v":1,"event":"closed","session":"s","eventSeq":9,"reason":"idle","tilt":12}')
    return found


def state_files():
    """State files of the kinds the worker writes: at a stop, a checkpoint, a departed file."""
    session = {"session": "s", "seq": 4, "eventSeq": 7, "library": "default", "checkmark": True, "multistroke": 0}
    full = dict(session, session="t", orientation="invariant", followTilt=True,
                tilt={"degrees": -20, "samples": 3}, multistroke=500, gestures=["check", "v"], minimumSize=20,
                minimumScore=0.65, gestureScores={"check": 0.75},
                learned=[{"name": "zed", "points": [[0, 0], [10, 0], [0, 10], [10, 10]]},
                         {"name": "plus", "strokes": [[[0, 5], [10, 5]], [[5, 0], [5, 10]]]}])
    header = {"format": "stroke-worker-state", "version": 1}
    return [
        json.dumps(dict(header, sessions=[session, full])).encode(),
        json.dumps(dict(header, checkpoint=True, shard="1/3", savedAt="2026-12-04T15:00:00.123Z",
                        sessions=[full])).encode(),
        json.dumps(dict(header, shard="0/2", keptBy="1/2", savedAt="2026-12-04T15:00:00.000Z",
                        sessions=[session])).encode(),
        # Sessions before the format: read in a second pass.
        json.dumps({"sessions": [session], **header}).encode(),
    ]


def checkmark_tunings():
    return [
        b"{}",
        b'{"fireRatio":1.3}',
        json.dumps({"initialSpacing": 2.5, "capacity": 64, "minimumLegPoints": 3, "firstLegDirection": [0, 120],
                    "secondLegDirection": [-92, -30], "turn": [58, 165], "firstLegMaxCurl": 1.5,
                    "secondLegMaxCurl": 1.18, "minimumSharpness": 0.5, "firstLegMaxTurn": 0.5,
                    "secondLegMaxTurn": 0.3, "fireRatio": 1.15, "steepFireRatio": 1.45, "steepAngle": 50,
                    "steepFirstAngle": 40, "compareHeights": True, "earlyFireFactor": 0.85, "earlyFireSpeed": 1.2,
                    "minimumDuration": 100, "minimumFirstLegDuration": 60,
                    "squareCornerTolerance": 10}).encode(),
    ]


def libraries():
    swipes = (ROOT / "Libraries/swipes.json").read_bytes()
    several = {"format": "stroke-worker/template-library", "version": 4, "name": "symbols",
               "orientation": "sensitive", "maxRotationDegrees": 30, "minimumScore": 0.6,
               "elasticDeadZoneDegrees": 10, "strokeOrder": "any", "strokeDirection": "any", "neighbors": 3,
               "gestures": {"plus": {"minimumScore": 0.7}},
               "templates": [{"name": "plus", "strokes": [[[0, 5], [10, 5]], [[5, 0], [5, 10]]]},
                             {"name": "check", "points": [[0, 5], [3, 9], [10, 0]]},
                             {"name": "check", "points": [[0, 4], [4, 10], [11, 0]]}]}
    return [swipes, json.dumps(several).encode()]


def words(*schemas):
    """JSON keys and enumerated values of the schemas, quoted as they appear in a document."""
    found = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    found.update(f'"{name}"' for name in value)
                if key in ("enum", "const"):
                    for item in value if isinstance(value, list) else [value]:
                        if isinstance(item, str):
                            found.add(f'"{item}"')
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for schema in schemas:
        walk(json.loads((ROOT / "Protocol/schemas" / schema).read_text()))
    return found


def write_dict(path, entries):
    lines = []
    for entry in sorted(entries):
        escaped = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c) for c in entry)
        lines.append(f'"{escaped}"')
    path.write_text("\n".join(lines) + "\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    seeds = {
        "input": [p for s in SCENARIOS for m in s["messages"] if (p := payload(m)) is not None]
        + [bytes.fromhex(v["hex"]) for v in BINARY],
        "processor": [processor_input(s) for s in SCENARIOS]
        + [processor_input(s, bits) for s in SCENARIOS[:2] for bits in (1, 2, 4, 8, 16, 32)],
        "event": events(),
        "library": libraries(),
        "state": state_files(),
        "checkmark": checkmark_tunings(),
    }
    punctuation = {"{", "}", "[", "]", ":", ",", "null", "true", "false", "-1", "1e308", "0.5"}
    dictionaries = {
        "input": words("input.schema.json") | punctuation,
        "processor": words("input.schema.json") | punctuation,
        "event": words("event.schema.json") | punctuation,
        "library": words("template-library.schema.json") | punctuation,
        "state": {'"' + w + '"' for w in ("format", "stroke-worker-state", "version", "checkpoint", "savedAt",
                                          "shard", "keptBy", "sessions", "session", "seq", "eventSeq", "library",
                                          "default", "checkmark", "multistroke", "orientation", "followTilt",
                                          "tilt", "degrees", "samples", "gestures", "minimumSize", "minimumScore",
                                          "gestureScores", "learned", "name", "points", "strokes")} | punctuation,
        "checkmark": {f'"{key}"' for key in json.loads(checkmark_tunings()[2])} | punctuation,
    }
    for target, inputs in seeds.items():
        directory = out / "seeds" / target
        directory.mkdir(parents=True, exist_ok=True)
        for index, data in enumerate(inputs):
            (directory / f"seed-{index:03d}").write_bytes(data)
        write_dict(out / f"{target}.dict", dictionaries[target])
    print(f"fuzz-seeds: {sum(len(v) for v in seeds.values())} seeds for {len(seeds)} targets in {out}")


if __name__ == "__main__":
    main()
