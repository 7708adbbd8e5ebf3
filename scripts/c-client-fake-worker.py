#!/usr/bin/env python3
"""A stand-in for the worker that answers as two sessions would, for scripts/c-client-test.sh: the C client must take
only its own session's events, where another session's id starts with its own (events are subscribed to by prefix,
Protocol/README.md section 1). Its events are compact JSON, as the worker writes them.

Binds a SUB at INPUT and a PUB at OUTPUT. Each ping of SESSION is answered with a message of one frame on SESSION's
topic, a pong of SESSION-2, then one of SESSION; the end of a stroke with a match of SESSION-2 first, then a match of
SESSION in a message of three frames, then a nomatch of SESSION. A client that takes the other session's events, or
takes a message of other than two frames for an event, reports a match (or loses its place among the frames and
the pong or the nomatch); one that takes its own events and nothing else reports no match (exit status 1). Exits
after the stroke's answer, or after TIMEOUT seconds.

Usage: c-client-fake-worker.py INPUT OUTPUT SESSION [TIMEOUT]
"""
import json
import sys
import time

import zmq


def main() -> None:
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    input_endpoint, output_endpoint, session = sys.argv[1:4]
    deadline = time.monotonic() + (float(sys.argv[4]) if len(sys.argv) == 5 else 20.0)
    other = session + "-2"
    context = zmq.Context()
    intake = context.socket(zmq.SUB)
    intake.setsockopt(zmq.SUBSCRIBE, b"")
    intake.bind(input_endpoint)
    events = context.socket(zmq.PUB)
    events.bind(output_endpoint)

    def publish(name: str, fields: dict) -> None:
        payload = json.dumps(dict(fields, v=1, session=name), separators=(",", ":"))
        events.send_multipart([name.encode(), payload.encode()])

    while time.monotonic() < deadline:
        if not intake.poll(100):
            continue
        frames = intake.recv_multipart()
        if len(frames) != 2:
            continue
        payload = frames[1]
        if payload.startswith(b"{") and json.loads(payload).get("type") == "ping":
            events.send(session.encode())  # one frame: no event
            for name in (other, session):
                publish(name, {"event": "pong", "eventSeq": 0, "seq": None, "shard": "0/1", "known": False})
        elif payload[:1] == b"\xb1" and len(payload) >= 16 and payload[2] == 3:  # a binary end
            seq = int.from_bytes(payload[4:8], "little")
            stroke = int.from_bytes(payload[8:12], "little")
            answer = {"eventSeq": 1, "seq": seq, "stroke": stroke, "pointer": 0, "points": 48, "library": "default"}
            publish(other, dict(answer, event="match", name="check", score=0.9, candidates=[]))
            match = json.dumps(dict(answer, v=1, session=session, event="match", name="check", score=0.9,
                                    candidates=[]), separators=(",", ":"))
            events.send_multipart([session.encode(), match.encode(), b"x"])  # three frames: no event
            publish(session, dict(answer, event="nomatch", reason="below_threshold", candidates=[]))
            break
    time.sleep(0.5)  # the events leave before the sockets close
    events.close(linger=1000)
    intake.close(linger=0)
    context.term()


if __name__ == "__main__":
    main()
