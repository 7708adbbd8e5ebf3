"""The Python client against the protocol's vectors and schemas, and against the real stroke-worker."""

import asyncio
import json
import math
import os
import re
import signal
import socket as socketlib
import subprocess
import sys
import threading
import time

import jsonschema
import pytest
import zmq
import zmq.asyncio

from stroke_client import (BINARY_MAGIC, BUCKET_COUNT, AsyncConsumer, Consumer, CurveKeys, Event, KeyRefused,
                           Producer, bucket, decode_binary, decode_event, encode_binary, encode_json, fnv1a32,
                           load_keys, shard_prefixes, topic)
from stroke_client.replay import load_logs, replay

from conftest import LogTail, RunningWorker, free_port, worker_binary


def schema(protocol_dir: str, name: str) -> dict:
    with open(os.path.join(protocol_dir, "schemas", name)) as handle:
        return json.load(handle)


def vectors(protocol_dir: str, name: str) -> dict:
    with open(os.path.join(protocol_dir, "vectors", name)) as handle:
        return json.load(handle)


# MARK: - Offline: the protocol folder


def test_shard_key_vectors(protocol_dir):
    data = vectors(protocol_dir, "shard-keys.json")
    for vector in data["vectors"]:
        session = vector["session"]
        assert "0x%08x" % fnv1a32(session.encode()) == vector["fnv1a"]
        assert bucket(session) == vector["bucket"]
        assert topic(session) == vector["topic"].encode()
    for entry in data["shardPrefixes"]:
        index, count = map(int, entry["shard"].split("/"))
        prefixes = shard_prefixes(index, count)
        assert len(prefixes) == entry["count"]
        assert [p.decode() for p in prefixes[:3]] == entry["first"]


def test_a_session_id_the_protocol_refuses_is_said_with_what_is_wrong():
    # Before 1.10.0 each said all the rules at once, with nothing of the id; bytes failed with an AttributeError.
    for session, expected in [
        ("x" * 129, "not 129: 'xxxx"),
        ("", "not 0: ''"),
        ("$system", "does not start with '$'"),
        ("a\x01b", "has one at byte 1"),
    ]:
        with pytest.raises(ValueError, match=re.escape(expected)):
            topic(session)
    for function in (topic, bucket):
        with pytest.raises(TypeError, match="a session id is a str, got bytes"):
            function(b"player-1")
        # Before 1.13 the codec's own error, naming no session id.
        with pytest.raises(ValueError, match=re.escape("'ab\\ud800' has a lone surrogate at character 2")):
            function("ab\ud800")
    assert topic("é" * 64) == b"%03x/" % bucket("é" * 64) + ("é" * 64).encode()


def test_a_mistyped_curve_key_is_said_as_one():
    with pytest.raises(FileNotFoundError, match=re.escape("neither a 40-character Z85 key (this is 39 characters) "
                                                          "nor a key file")):
        CurveKeys("x" * 39)


def test_an_endpoint_that_is_no_str_is_refused_saying_so():
    # Before 1.13: AttributeError: 'list' object has no attribute 'partition', or a TypeError about bytes-like objects.
    for endpoint in (["tcp://127.0.0.1:5555"], b"tcp://127.0.0.1:5555", None):
        for make in (Producer, Consumer, AsyncConsumer):
            with pytest.raises(TypeError, match="an endpoint is a str, such as 'tcp://127.0.0.1:5555', got "):
                make(endpoint)


def test_prefixes_and_sessions_given_as_one_str_are_refused():
    # Iterated, a str is its characters: before 1.13 prefixes="room-7/" subscribed to every session starting with
    # r, o, m, -, 7 or /, and the room's consumer took in other rooms' events; wait_until_read(producer, "player-1")
    # pinged sessions p, l, a, ... and returned before that session's events were in.
    for make in (Consumer, AsyncConsumer):
        with pytest.raises(TypeError, match=re.escape("prefixes is a list of str, such as ['room-7/'], not a str")):
            make("tcp://127.0.0.1:5556", prefixes="room-7/")
        with pytest.raises(TypeError, match="prefixes holds str, not bytes"):
            make("tcp://127.0.0.1:5556", prefixes=[b"room-7/"])
        with pytest.raises(ValueError, match="has a lone surrogate at character 1"):
            make("tcp://127.0.0.1:5556", prefixes=["a\udc00"])
    with Producer("tcp://127.0.0.1:5555") as producer, Consumer("tcp://127.0.0.1:5556", prefixes=["room-7/"]) as c:
        with pytest.raises(TypeError, match=re.escape("sessions is a list of str, such as ['player-1'], not a str")):
            c.wait_until_read(producer, "player-1", timeout=0.1)
        assert c.wait_until_read(producer, [], timeout=0.1) is None


def test_a_prefix_longer_than_any_session_id_is_refused():
    # Before 1.14 it was subscribed to and matched nothing; over 1 KiB, a worker (since session 88) cuts the
    # consumer, whose libzmq then connected again and again. 128 bytes, the longest session id, is a prefix.
    for make in (Consumer, AsyncConsumer):
        with pytest.raises(ValueError, match=re.escape("'%s...' is 130 bytes, longer than any session id (128)"
                                                       % ("\u00e9" * 40))):
            make("tcp://127.0.0.1:5556", prefixes=["room/", "\u00e9" * 65])
        make("tcp://127.0.0.1:5556", prefixes=["s" * 128]).close()


def test_binary_vectors(protocol_dir):
    for vector in vectors(protocol_dir, "binary.json")["vectors"]:
        payload = bytes.fromhex(vector["hex"])
        if "error" in vector:
            with pytest.raises(ValueError, match=vector["error"]):
                decode_binary(payload)
            continue
        decoded = decode_binary(payload)
        expected = vector["decoded"]
        assert decoded == expected
        assert encode_binary(expected["type"], expected["seq"], expected["stroke"], expected["pointer"],
                             expected["points"], last=expected.get("last", False)) == payload


def test_json_messages_follow_the_schema(protocol_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "input.schema.json"))
    messages = [
        encode_json("begin", 1, 7, 2, [(1, 2, 3)]),
        encode_json("points", 2, 7, 0, [(1, 2, 3), (4, 5, 6, 0.5)]),
        encode_json("end", 3, 7),
        encode_json("cancel", 4, 7),
        encode_json("options", 5, library="default", orientation="invariant", checkmark=False),
        encode_json("close", 6),
        encode_json("end", 7, 7, learn="fire ball"),
        encode_json("options", 8, forget="*"),
        encode_json("options", 9, gestures=["check", "fire ball"]),
        encode_json("options", 10, gestures="*"),
        encode_json("ping", None),
        encode_json("ping", 11),
        encode_json("options", 12, minimumSize=20),
        encode_json("options", 13, minimumSize=0.02),
        encode_json("options", 14, followTilt=False),
        encode_json("options", 15, minimumScore=0.65),
        encode_json("options", 16, minimumScore=0),
        encode_json("options", 17, gestureScores={"fire ball": 0.8, "check": 0}),
        encode_json("options", 18, gestureScores={}),
        encode_json("options", 19, tilt=-45, followTilt=True),
    ]
    for message in messages:
        validator.validate(json.loads(message))
    for scenario in vectors(protocol_dir, "scenarios.json")["scenarios"]:
        for message in scenario["messages"]:
            if "json" in message and not scenario["name"].startswith(("wrong types", "bad topics")):
                validator.validate(message["json"])
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"type": "points", "seq": 1, "stroke": 1, "points": []})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"type": "close"})  # only a ping may go without seq
    with pytest.raises(ValueError):
        encode_json("close", None)
    for size in (-1, float("inf"), float("nan"), True, "20"):
        with pytest.raises(ValueError):
            encode_json("options", 1, minimumSize=size)
    for score in (-0.1, 1.5, float("nan"), True, "0.7"):
        with pytest.raises(ValueError):
            encode_json("options", 1, minimumScore=score)
    for scores in ({"a": 1.5}, {"a": -0.1}, {"a": True}, {"*": 0.5}, {"": 0.5}, ["a"], "a",
                   {"g%d" % i: 0.5 for i in range(33)}):
        with pytest.raises(ValueError):
            encode_json("options", 1, gestureScores=scores)
    for bad in ({"*": 0.5}, {"a": 1.5}, {"g%d" % i: 0.5 for i in range(33)}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({"type": "options", "seq": 1, "gestureScores": bad})
    for follow in (1, "no"):
        with pytest.raises(ValueError):
            encode_json("options", 1, followTilt=follow)
    # Session 81: library, orientation, checkmark and forget went out as given, for the worker to refuse.
    for option, bad in (("library", 5), ("library", ""), ("orientation", "sideways"), ("checkmark", 1),
                        ("checkmark", "yes"), ("forget", ""), ("forget", 3), ("forget", "x" * 65)):
        with pytest.raises(ValueError, match=option):
            encode_json("options", 1, **{option: bad})
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({"type": "options", "seq": 1, option: bad})
    good = json.loads(encode_json("options", 1, library="spells", orientation="invariant", checkmark=False,
                                  forget="*"))
    validator.validate(good)
    assert good == {"type": "options", "seq": 1, "library": "spells", "orientation": "invariant",
                    "checkmark": False, "forget": "*"}
    for tilt in (46, -46, 1.5, True, "10"):
        with pytest.raises(ValueError):
            encode_json("options", 1, tilt=tilt)
    for bad in (46, 1.5, "10"):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({"type": "options", "seq": 1, "tilt": bad})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"type": "options", "seq": 1, "followTilt": "no"})
    with pytest.raises(ValueError):
        encode_json("points", 1, 1, points=[(float("nan"), 0, 0)])
    for name in ("", "*", "x" * 65):
        with pytest.raises(ValueError):
            encode_json("end", 1, 1, learn=name)
    with pytest.raises(ValueError):
        encode_json("points", 1, 1, points=[(1, 2, 3)], learn="bolt")
    for bad in ({"type": "end", "seq": 1, "stroke": 1, "learn": "*"},
                {"type": "begin", "seq": 1, "stroke": 1, "learn": "bolt"},
                {"type": "options", "seq": 1, "forget": ""},
                {"type": "options", "seq": 1, "gestures": []},
                {"type": "options", "seq": 1, "gestures": ["check", "*"]},
                {"type": "options", "seq": 1, "gestures": "check"}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)


def test_a_nomatch_outside_the_choice_names_the_gesture(protocol_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    event = {"v": 1, "event": "nomatch", "session": "p", "eventSeq": 3, "seq": 9, "stroke": 2, "pointer": 0,
             "reason": "not_chosen", "unchosen": {"name": "check", "score": 0.91, "learned": True},
             "candidates": [{"name": "circle", "score": 0.4}], "points": 40, "library": "default"}
    validator.validate(event)
    for bad in ({"unchosen": None}, {"unchosen": {"name": "check"}}, {"unchosen": {"name": "x", "score": 0}}):
        changed = {**event, **bad}
        if bad["unchosen"] is None:
            del changed["unchosen"]
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(changed)


def test_a_session_reset_says_whether_the_session_needs_teaching_again(protocol_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    reset = {"v": 1, "event": "error", "session": "p", "eventSeq": 1, "seq": 9, "code": "session_reset",
             "message": "the worker restarted from its checkpoint"}
    restored = dict(reset, restored=True)
    for fields in (reset, restored):
        validator.validate(fields)
    assert not validator.is_valid(dict(reset, restored=False)), "written only when true"
    event = lambda fields: Event(b"p", fields, 0, 0.0)  # noqa: E731
    assert event(reset).needs_reteach and not event(restored).needs_reteach
    assert event(dict(reset, code="session_restart")).needs_reteach
    assert event({"v": 1, "event": "closed", "session": "p", "eventSeq": 4, "seq": 9, "reason": "idle"}).needs_reteach
    assert not event(dict(reset, code="sequence_gap")).needs_reteach
    assert not event({"v": 1, "event": "match", "session": "p", "eventSeq": 2, "seq": 9}).needs_reteach


def test_template_library_schema(protocol_dir, tmp_path):
    library = {"format": "stroke-worker/template-library", "version": 1, "name": "t", "orientation": "sensitive",
               "templates": [{"name": "a", "points": [[0, 0], [1, 1]]}]}
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "template-library.schema.json"))
    validator.validate(library)
    # Strokes either way round: version 2 only; then at most 4 strokes a template, in any order or as drawn.
    assert not validator.is_valid(dict(library, strokeDirection="any"))
    either = dict(library, version=2, strokeDirection="any")
    validator.validate(either)
    assert not validator.is_valid(dict(either, strokeDirection="backwards"))
    comb = [{"name": "comb", "strokes": [[[k, 0], [k, 5]] for k in range(5)]}]
    validator.validate(dict(library, version=2, strokeOrder="drawn", templates=comb))
    assert not validator.is_valid(dict(either, strokeOrder="drawn", templates=comb))
    assert not validator.is_valid(dict(either, templates=comb))
    # A gesture's own threshold: version 3 only, a score from 0 to 1 under a non-empty name.
    strict = dict(library, version=3, gestures={"a": {"minimumScore": 0.8}, "b": {"minimumScore": 0}})
    validator.validate(strict)
    assert not validator.is_valid(dict(strict, version=2))
    assert not validator.is_valid(dict(library, gestures=strict["gestures"]))
    for bad in [{"a": {"minimumScore": 1.5}}, {"a": 0.8}, {"": {"minimumScore": 0.8}}, {"a": {}},
                {"a\x07": {"minimumScore": 0.8}}]:
        assert not validator.is_valid(dict(strict, gestures=bad)), bad
    # Names without control characters (session 78, as the worker's loader checks them); any other character goes.
    assert not validator.is_valid(dict(library, name="t\nx"))
    assert not validator.is_valid(dict(library, templates=[{"name": "a\x7f", "points": [[0, 0], [1, 1]]}]))
    validator.validate(dict(library, name="zaubersprüche ✨",
                            templates=[{"name": "zap ⚡", "points": [[0, 0], [1, 1]]}]))
    # A gesture's name as sessions choose it (session 86): at most 64 characters, not "*"; a library's name is free.
    validator.validate(dict(library, name="n" * 65, templates=[{"name": "g" * 64, "points": [[0, 0], [1, 1]]}]))
    for name in ["g" * 65, "*"]:
        assert not validator.is_valid(dict(library, templates=[{"name": name, "points": [[0, 0], [1, 1]]}])), name
        assert not validator.is_valid(dict(strict, gestures={name: {"minimumScore": 0.8}})), name
    # A score that stands for a gesture's nearest templates: version 4 only, 1 to 8 of them.
    nearest = dict(strict, version=4, neighbors=3)
    validator.validate(nearest)
    assert not validator.is_valid(dict(nearest, version=3))
    for bad in [0, 9, 2.5, "3"]:
        assert not validator.is_valid(dict(nearest, neighbors=bad)), bad


@pytest.mark.parametrize("endpoint", ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:5555x", "tcp://127.0.0.1:-1",
                                      "tcp://127.0.0.1:0", "tcp://127.0.0.1", "127.0.0.1:5555"])
def test_an_endpoint_libzmq_would_misread_is_refused(endpoint):
    """libzmq takes tcp://127.0.0.1:99999 as port 34463 and :5555x as 5555, without a word: refused here, as the
    worker refuses them, with what is wrong."""
    for make in (lambda: Producer(endpoint), lambda: Consumer(endpoint)):
        with pytest.raises(ValueError, match=re.escape(endpoint) + ": (the port must|expected)"):
            make()
    with Producer("tcp://127.0.0.1:0", bind=True) as bound:
        assert re.fullmatch(r"tcp://127\.0\.0\.1:\d+", bound.endpoint)


def test_a_connect_to_the_wildcard_host_is_refused_with_why():
    """Session 81: `Consumer("tcp://*:5556")` raised libzmq's bare "Invalid argument"."""
    for make in (lambda: Producer("tcp://*:5555"), lambda: Consumer("tcp://*:5556")):
        with pytest.raises(ValueError, match=re.escape("tcp://*:") + r"\d+: \* \(every address\) is for binding"):
            make()
    with Producer("tcp://*:0", bind=True) as bound:
        assert bound.endpoint.startswith("tcp://0.0.0.0:")


def test_consumer_surfaces_event_gaps():
    context = zmq.Context()
    publisher = context.socket(zmq.XPUB)
    port = publisher.bind_to_random_port("tcp://127.0.0.1")
    gaps = []
    consumer = Consumer("tcp://127.0.0.1:%d" % port, prefixes=["s"], context=context,
                        on_gap=lambda session, last, number: gaps.append((session, last, number)))
    assert publisher.poll(5000)
    publisher.recv()  # the subscription
    for number in (1, 2, 5):
        event = {"v": 1, "event": "error", "session": "s", "eventSeq": number, "seq": None, "code": "x",
                 "message": "m"}
        publisher.send_multipart([b"s", json.dumps(event).encode()])
    received = [consumer.receive(timeout=5) for _ in range(3)]
    assert [e.gap for e in received] == [0, 0, 2]
    assert gaps == [("s", 2, 5)] and consumer.gaps == 2
    assert consumer.sessions_held == 1
    # A closed session is let go (until session 78 every session seen was held for good: a consumer of a game with
    # millions of sessions over its life grew by each); when it starts again, it counts from 1, and a jump in its
    # new numbering is still seen.
    closed = {"v": 1, "event": "closed", "session": "s", "eventSeq": 6, "seq": None, "reason": "idle"}
    publisher.send_multipart([b"s", json.dumps(closed).encode()])
    assert consumer.receive(timeout=5).kind == "closed" and consumer.sessions_held == 0
    for number in (1, 3):
        event = {"v": 1, "event": "error", "session": "s", "eventSeq": number, "seq": None, "code": "x",
                 "message": "m"}
        publisher.send_multipart([b"s", json.dumps(event).encode()])
    assert [consumer.receive(timeout=5).gap for _ in range(2)] == [0, 1]
    assert gaps == [("s", 2, 5), ("s", 1, 3)] and consumer.gaps == 3 and consumer.sessions_held == 1
    consumer.close()
    publisher.close()
    context.term()


def test_async_consumer_surfaces_event_gaps():
    async def scenario():
        context = zmq.asyncio.Context()
        publisher = context.socket(zmq.XPUB)
        port = publisher.bind_to_random_port("tcp://127.0.0.1")
        gaps = []
        async with AsyncConsumer("tcp://127.0.0.1:%d" % port, prefixes=["s"], context=context,
                                 on_gap=lambda session, last, number: gaps.append((session, last, number))) as consumer:
            assert await publisher.poll(5000)
            await publisher.recv()  # the subscription
            for number in (1, 2, 5):
                event = {"v": 1, "event": "error", "session": "s", "eventSeq": number, "seq": None, "code": "x",
                         "message": "m"}
                await publisher.send_multipart([b"s", json.dumps(event).encode()])
            received = [event async for event in consumer.iter(timeout=1)]
            assert await consumer.receive(timeout=0.05) is None
        assert [e.gap for e in received] == [0, 0, 2] and [e.get("eventSeq") for e in received] == [1, 2, 5]
        assert gaps == [("s", 2, 5)] and consumer.gaps == 2
        publisher.close()
        context.term()

    asyncio.run(scenario())


UNDECODABLE = [
    ([b"s"], "a message of 1 frames on topic s"),
    ([b"s", b"{}", b"{}"], "a message of 3 frames on topic s"),
    ([b"s", b"\xff{"], "an event on topic s: not JSON"),
    ([b"s", b'{"v": 2, "event": "pong"}'], "an event on topic s: not a wire protocol v1 event"),
    ([b"s", b'{"v": 1, "event": "error", "session": "s", "eventSeq": "3"}'], "eventSeq: '3' is not a whole number"),
    ([b"s", b'{"v": 1, "event": "pong", "session": "s", "eventSeq": 0, "seq": [1]}'], "seq: [1] is not a whole"),
    ([b"s", b'{"v": 1, "event": 7, "session": "s", "eventSeq": 3}'], "event: 7 is not a string"),
    ([b"s", b'{"v": 1, "event": "error", "session": 5, "eventSeq": 3}'], "session: 5 is not a string or null"),
]


def error_event(number: int) -> bytes:
    return json.dumps({"v": 1, "event": "error", "session": "s", "eventSeq": number, "seq": None, "code": "x",
                       "message": "m"}).encode()


@pytest.mark.parametrize("message,words", UNDECODABLE)
def test_a_message_that_is_not_an_event_is_skipped_as_an_event_lost(message, words, caplog):
    context = zmq.Context()
    try:
        publisher = context.socket(zmq.XPUB)
        port = publisher.bind_to_random_port("tcp://127.0.0.1")
        told = []
        consumer = Consumer("tcp://127.0.0.1:%d" % port, prefixes=["s"], context=context,
                            on_undecodable=lambda topic, error: told.append((topic, str(error))))
        assert publisher.poll(5000)
        publisher.recv()  # the subscription
        for frames in ([b"s", error_event(1)], message, [b"s", error_event(3)], [b"s", error_event(4)]):
            publisher.send_multipart(frames)
        # Before 1.11 the message raised ValueError out of the loop, or TypeError (an eventSeq or seq of another
        # type), or was passed on (an event or session of another type).
        received = [event for event in consumer.iter(timeout=1)]
        assert [(e.get("eventSeq"), e.gap) for e in received] == [(1, 0), (3, 1), (4, 0)]
        assert told == [(b"s", told[0][1])] and words in told[0][1], told
        assert consumer.undecodable == 1
        consumer.close()
        # By default the message is logged as a warning, and skipped.
        with caplog.at_level("WARNING", logger="stroke_client"):
            consumer = Consumer("tcp://127.0.0.1:%d" % port, prefixes=["s"], context=context)
            while publisher.poll(5000) and publisher.recv() != b"\x01s":
                pass  # the first consumer's unsubscription, then the second's subscription
            publisher.send_multipart(message)
            publisher.send_multipart([b"s", error_event(1)])
            assert consumer.receive(timeout=5).get("eventSeq") == 1 and consumer.undecodable == 1
        assert any(words in record.getMessage() for record in caplog.records), caplog.records
    finally:
        context.destroy(linger=0)


def test_an_undecodable_handler_that_raises_ends_receive():
    async def scenario():
        context = zmq.asyncio.Context()
        try:
            publisher = context.socket(zmq.XPUB)
            port = publisher.bind_to_random_port("tcp://127.0.0.1")

            def refuse(topic, error):
                raise RuntimeError("refused %s: %s" % (topic.decode(), error))

            async with AsyncConsumer("tcp://127.0.0.1:%d" % port, prefixes=["s"], context=context,
                                     on_undecodable=refuse) as consumer:
                assert await publisher.poll(5000)
                await publisher.recv()
                await publisher.send_multipart([b"s", b"[]"])
                await publisher.send_multipart([b"s", error_event(1)])
                with pytest.raises(RuntimeError, match="refused s: an event on topic s: not a wire protocol v1"):
                    await consumer.receive(timeout=5)
                # The consumer reads on: the next event is there.
                assert (await consumer.receive(timeout=5)).get("eventSeq") == 1
        finally:
            context.destroy(linger=0)

    asyncio.run(scenario())


# MARK: - Against the real worker


def read_stroke(fixtures_dir: str, gesture: str):
    return next(points for path, name, points in load_logs(fixtures_dir) if name == gesture)


def test_an_async_consumer_receives_the_match(worker, fixtures_dir):
    points = read_stroke(fixtures_dir, "check")

    async def scenario():
        with Producer(worker.input, binary=True) as producer:
            async with AsyncConsumer(worker.output, prefixes=["async-player"]) as consumer:
                producer.wait_for_worker()
                await consumer.wait_until_subscribed(producer)
                stroke = producer.send_stroke("async-player", points, batch=16)
                kinds = []
                async for event in consumer:
                    kinds.append(event.kind)
                    if event.kind == "match":
                        assert event.get("name") == "check" and event.get("stroke") == stroke
                        break
                return kinds

    assert asyncio.run(asyncio.wait_for(scenario(), timeout=10)) == ["checkmark", "match"]


@pytest.mark.parametrize("binary,batch", [(False, 1), (True, 1), (True, 8), (False, 64)])
def test_a_check_stroke_is_recognized(worker, protocol_dir, fixtures_dir, binary, batch):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    points = read_stroke(fixtures_dir, "check")
    with Consumer(worker.output, prefixes=["player-1"]) as consumer, \
            Producer(worker.input, binary=binary) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        stroke = producer.send_stroke("player-1", points, batch=batch, pointer=3)
        events = []
        for event in consumer.iter(timeout=5):
            validator.validate(event.fields)
            events.append(event)
            if event.kind in ("match", "nomatch"):
                break
    assert [e.kind for e in events] == ["checkmark", "match"]
    assert events[1].get("name") == "check" and events[1].get("stroke") == stroke
    assert abs(events[1].get("rotation")) <= 30  # turned from its template, within the built-in library's bound
    assert events[0].get("pointer") == 3 and 0 < events[0].get("pointIndex") < len(points) - 1
    assert [e.get("eventSeq") for e in events] == [1, 2] and all(e.gap == 0 for e in events)


def bolt(k: int):
    """A "Z" (not a gesture of the built-in library), a little different for each ``k``."""
    corners = [(0, 0), (60 + (k % 3) * 4, 2), (4, 58 - (k % 2) * 3), (62, 60)]
    points = []
    for segment in range(3):
        (x0, y0), (x1, y1) = corners[segment], corners[segment + 1]
        for step in range(12):
            u = step / 12
            points.append((100 + x0 + (x1 - x0) * u + k, 100 + y0 + (y1 - y0) * u, 1000 + 16 * len(points)))
    points.append((100 + corners[3][0] + k, 100 + corners[3][1], 1000 + 16 * len(points)))
    return points


@pytest.mark.parametrize("binary", [False, True])
def test_a_session_learns_a_gesture_of_its_own(worker, protocol_dir, binary):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    session = "wizard-%d" % binary
    with Consumer(worker.output, prefixes=[session]) as consumer, \
            Producer(worker.input, binary=binary) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)

        def result(points, **fields):
            producer.send_stroke(session, points, batch=8, **fields)
            event = consumer.receive(timeout=5)
            assert event is not None
            validator.validate(event.fields)
            return event

        learned = result(bolt(0), learn="bolt")
        assert learned.kind == "learned" and learned.get("name") == "bolt" and learned.get("templates") == 1
        matched = result(bolt(1))
        assert matched.kind == "match" and matched.get("name") == "bolt" and matched.get("learned") is True
        assert matched.get("candidates")[0] == {"name": "bolt", "score": matched.get("score"), "learned": True}
        producer.set_options(session, forget="bolt")
        after = result(bolt(1))
        assert after.get("name") != "bolt" and "learned" not in after.fields
        # Taught again, then the producer starts over (session_restart: the worker forgets), and reteaches.
        assert result(bolt(0), learn="bolt").kind == "learned"
        producer.forget(session)
        producer.send(session, "begin", producer.new_stroke_id(session), points=[(1, 2, 3)])
        restart = consumer.receive(timeout=5)
        assert restart is not None and restart.get("code") == "session_restart"
        assert "1 learned template forgotten" in restart.get("message")
        assert producer.reteach(session) == 1
        assert consumer.receive(timeout=5).kind == "learned"
        assert result(bolt(2)).get("learned") is True


@pytest.mark.parametrize("binary", [False, True])
def test_a_gesture_named_beyond_the_basic_plane(worker, binary):
    # json.dumps escapes an emoji as a surrogate pair ("\\ud83d\\udd25"), which the worker must read as one character.
    session = "emoji-%d" % binary
    with Consumer(worker.output, prefixes=[session]) as consumer, \
            Producer(worker.input, binary=binary) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        producer.send_stroke(session, bolt(0), batch=8, learn="\U0001F525 fire")
        learned = consumer.receive(timeout=5)
        assert learned is not None and learned.kind == "learned", learned and learned.fields
        assert learned.get("name") == "\U0001F525 fire"
        producer.send_stroke(session, bolt(1), batch=8)
        matched = consumer.receive(timeout=5)
        assert matched.kind == "match" and matched.get("name") == "\U0001F525 fire"


def line(a, b, t0):
    """A straight stroke from ``a`` to ``b``: 11 points 16 ms apart."""
    return [(a[0] + (b[0] - a[0]) * k / 10, a[1] + (b[1] - a[1]) * k / 10, t0 + 16 * k) for k in range(11)]


@pytest.mark.parametrize("binary", [False, True])
def test_gestures_of_several_strokes(protocol_dir, tmp_path, binary):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    library = {"format": "stroke-worker/template-library", "version": 2, "name": "symbols",
               "orientation": "sensitive",
               "templates": [{"name": "x", "strokes": [[[0, 0], [90, 90]], [[90, 0], [0, 90]]]},
                             {"name": "plus", "strokes": [[[0, 45], [90, 45]], [[45, 0], [45, 90]]]}]}
    jsonschema.validate(library, schema(protocol_dir, "template-library.schema.json"))
    path = tmp_path / "symbols.json"
    path.write_text(json.dumps(library))
    running = RunningWorker("--library", str(path))
    session = "scribe-%d" % binary
    try:
        with Consumer(running.output, prefixes=[session]) as consumer, \
                Producer(running.input, binary=binary) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)

            def next_event():
                event = consumer.receive(timeout=5)
                assert event is not None
                validator.validate(event.fields)
                return event

            producer.set_options(session, library="symbols", multistroke=300)
            # Ended by "last": the x's second stroke first, drawn the other way.
            ids = producer.send_gesture(session, [line((0, 90), (90, 0), 1000), line((90, 90), (0, 0), 1300)])
            x = next_event()
            assert x.kind == "match" and x.get("name") == "x" and x.get("strokes") == ids
            # Ended by the wait: two strokes, no "last"; the result comes once 300 ms pass.
            first = producer.send_stroke(session, line((45, 0), (45, 90), 2000), batch=4)
            second = producer.send_stroke(session, line((0, 45), (90, 45), 2300), batch=4)
            plus = next_event()
            assert plus.kind == "match" and plus.get("name") == "plus" and plus.get("strokes") == [first, second]
            # A T the session learns, then draws again.
            tee = [line((0, 0), (90, 0), 3000), line((45, 0), (45, 90), 3300)]
            learned = producer.send_gesture(session, tee, learn="tee")
            event = next_event()
            assert event.kind == "learned" and event.get("strokes") == learned and event.get("templates") == 1
            producer.send_gesture(session, [line((2, 3), (92, 1), 4000), line((46, 2), (44, 88), 4300)])
            again = next_event()
            assert again.get("name") == "tee" and again.get("learned") is True
            # After a restart the worker forgot it; reteach sends the gesture again, grouping included.
            producer.forget(session)
            producer.send(session, "options", checkmark=True, binary=False)
            restart = next_event()
            assert restart.get("code") == "session_restart" and "learned template forgotten" in restart.get("message")
            assert producer.reteach(session) == 1  # the library and the grouping too, then the gesture
            assert next_event().kind == "learned"
            producer.send_gesture(session, [line((1, 1), (91, 2), 5000), line((45, 1), (46, 90), 5300)])
            restored = next_event()
            assert restored.get("name") == "tee" and restored.get("library") == "symbols"
    finally:
        assert running.stop() == 0


def test_a_library_either_way_round(protocol_dir, tmp_path):
    """A library file with "strokeDirection": "any" matches a circle drawn the other way, and says so."""
    circle = [[50 + 40 * math.cos(-2 * math.pi * k / 32), 50 + 40 * math.sin(-2 * math.pi * k / 32)]
              for k in range(33)]
    library = {"format": "stroke-worker/template-library", "version": 2, "name": "round",
               "orientation": "sensitive", "strokeDirection": "any",
               "templates": [{"name": "circle", "points": circle},
                             {"name": "zigzag", "points": [[0, 0], [25, 60], [50, 0], [75, 60], [100, 0]]}]}
    jsonschema.validate(library, schema(protocol_dir, "template-library.schema.json"))
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    path = tmp_path / "round.json"
    path.write_text(json.dumps(library))
    running = RunningWorker("--library", str(path))
    try:
        with Consumer(running.output, prefixes=["round-player"]) as consumer, \
                Producer(running.input) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)
            producer.set_options("round-player", library="round")
            results = []
            for direction in (-1, 1):  # as the template was drawn, then the other way round
                points = [(200 + 60 * math.cos(direction * 2 * math.pi * k / 40),
                           200 + 60 * math.sin(direction * 2 * math.pi * k / 40), 16 * k) for k in range(41)]
                producer.send_stroke("round-player", points, batch=8)
                for event in consumer.iter(timeout=5):
                    validator.validate(event.fields)
                    if event.kind in ("match", "nomatch"):
                        results.append(event)
                        break
            assert [e.get("name") for e in results] == ["circle", "circle"]
            assert [e.get("backward") for e in results] == [None, True]
            assert results[1].get("candidates")[0].get("backward") is True
    finally:
        assert running.stop() == 0


def test_gestures_encoding():
    assert json.loads(encode_json("options", 1, gestures=("x", "v")))["gestures"] == ["x", "v"]
    assert json.loads(encode_json("options", 1, gestures="*"))["gestures"] == "*"
    for bad in ([], "check", ["*"], [""], ["x" * 65], [7], ["g%d" % k for k in range(33)]):
        with pytest.raises(ValueError):
            encode_json("options", 1, gestures=bad)


def test_a_session_chooses_its_gestures(worker, protocol_dir, fixtures_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    points = read_stroke(fixtures_dir, "check")
    with Consumer(worker.output, prefixes=["chooser", "other"]) as consumer, \
            Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)

        def result(session):
            producer.send_stroke(session, points, batch=16)
            for event in consumer.iter(timeout=5):
                validator.validate(event.fields)
                if event.kind in ("match", "nomatch") and event.session == session:
                    return event
            raise AssertionError("no result for %s" % session)

        producer.set_options("chooser", gestures=["circle", "rectangle"], checkmark=False)
        narrowed = result("chooser")
        # A check looks like neither: no match, and the event names the check it is, outside the choice.
        assert {c["name"] for c in narrowed.get("candidates")} == {"circle", "rectangle"}
        assert narrowed.kind == "nomatch" and narrowed.get("reason") == "not_chosen"
        assert narrowed.get("unchosen")["name"] == "check"
        assert result("other").get("name") == "check"
        producer.set_options("chooser", gestures=["v", "check"])
        assert result("chooser").get("name") == "check"
        # The producer starts the session over: the worker forgets the choice, and reteach sets it again.
        producer.set_options("chooser", gestures=["circle", "rectangle"])
        producer.forget("chooser")
        producer.send("chooser", "options", checkmark=False, binary=False)
        restart = consumer.receive(timeout=5)
        assert restart is not None and restart.get("code") == "session_restart"
        assert result("chooser").get("name") == "check"  # forgotten by the worker
        assert producer.reteach("chooser") == 0
        restored = result("chooser")
        assert {c["name"] for c in restored.get("candidates")} == {"circle", "rectangle"}
        producer.set_options("chooser", gestures="*")
        widened = result("chooser")
        assert widened.get("name") == "check" and len(widened.get("candidates")) == 3


def stroke_result(producer, consumer, session, points, validator):
    """Sends ``points`` as one stroke of ``session`` and returns its ``match`` or ``nomatch``, every event on the way
    checked against the event schema."""
    producer.send_stroke(session, points, batch=16)
    for event in consumer.iter(timeout=5):
        validator.validate(event.fields)
        if event.kind in ("match", "nomatch"):
            return event
    raise AssertionError("no result")


def start_over(producer, consumer, session):
    """Numbers ``session`` from 1 again, as a restarted producer does, with an ``options`` message that turns its
    checkmark detector off; the worker answers ``session_restart`` and forgets the session's other options."""
    producer.forget(session)
    producer.send(session, "options", checkmark=False, binary=False)
    restart = consumer.receive(timeout=5)
    assert restart is not None and restart.get("code") == "session_restart"


def test_a_tap_is_too_small_to_match(worker, protocol_dir, fixtures_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    tap = [(200.2, 300.1, 0), (199.4, 300.6, 8), (200.6, 300.9, 16), (200.3, 300.0, 24)]
    check = read_stroke(fixtures_dir, "check")
    with Consumer(worker.output, prefixes=["tapper"]) as consumer, Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)

        def result(points):
            return stroke_result(producer, consumer, "tapper", points, validator)

        producer.set_options("tapper", checkmark=False)
        assert result(tap).kind == "match"  # a pixel of noise, scaled up, is a shape
        producer.set_options("tapper", minimum_size=20)
        small = result(tap)
        assert small.kind == "nomatch" and small.get("reason") == "too_small"
        assert small.get("bounds") == [199.4, 300.0, 200.6, 300.9]
        assert result(check).get("name") == "check"
        # The producer starts over: the worker forgets the option, and reteach sends it again.
        start_over(producer, consumer, "tapper")
        assert result(tap).kind == "match"
        producer.reteach("tapper")
        assert result(tap).get("reason") == "too_small"


def test_a_session_raises_its_threshold(worker, protocol_dir, fixtures_dir):
    """``minimum_score`` above a stroke's score turns it away as below_threshold, with its candidates; 0 gives the
    library's threshold back; a producer that starts over has it sent again by reteach."""
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    check = read_stroke(fixtures_dir, "check")
    with Consumer(worker.output, prefixes=["strict"]) as consumer, Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)

        def result(points):
            return stroke_result(producer, consumer, "strict", points, validator)

        producer.set_options("strict", checkmark=False)
        plain = result(check)
        assert plain.kind == "match" and plain.get("name") == "check"
        producer.set_options("strict", minimum_score=min(1.0, plain.get("score") + 0.01))
        turned_away = result(check)
        assert turned_away.kind == "nomatch" and turned_away.get("reason") == "below_threshold"
        assert turned_away.get("candidates")[0]["name"] == "check"
        producer.set_options("strict", minimum_score=0)
        assert result(check).get("name") == "check"
        producer.set_options("strict", minimum_score=0.99)
        start_over(producer, consumer, "strict")
        assert result(check).kind == "match"
        producer.reteach("strict")
        assert result(check).get("reason") == "below_threshold"


def test_a_session_raises_one_gestures_threshold(worker, protocol_dir, fixtures_dir):
    """``gesture_scores`` above a check's score turns checks away, not arrows; ``{}`` drops it; reteach sends it
    again to a producer that starts over."""
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    check = read_stroke(fixtures_dir, "check")
    arrow = read_stroke(fixtures_dir, "arrow")
    with Consumer(worker.output, prefixes=["picky"]) as consumer, Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)

        def result(points):
            return stroke_result(producer, consumer, "picky", points, validator)

        producer.set_options("picky", checkmark=False, gesture_scores={"check": 0.99})
        assert result(check).get("reason") == "below_threshold"
        assert result(arrow).get("name") == "arrow"
        producer.set_options("picky", gesture_scores={})
        assert result(check).get("name") == "check"
        producer.set_options("picky", gesture_scores={"check": 0.99})
        start_over(producer, consumer, "picky")
        assert result(check).kind == "match"
        producer.reteach("picky")
        assert result(check).get("reason") == "below_threshold"


def tilted(points, degrees: float):
    """``points`` turned about the origin by ``degrees``, clockwise on a screen whose y grows downward."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [(x * c - y * s, x * s + y * c, t) for x, y, t in points]


@pytest.mark.parametrize("mode", [(), ("--recognition-offload", "always"), ("--recognition-thread", "on")])
def test_a_tilted_players_check_fires_once_the_tilt_is_followed(protocol_dir, fixtures_dir, mode):
    """Three open shapes drawn 35 degrees clockwise, then a check drawn alike: the worker follows the tilt their
    matches show, whichever thread recognizes them, and the check fires the detector as an upright one does.
    With --checkmark-follow-tilt off it does not, and a session's own followTilt option wins either way."""
    logs = {os.path.relpath(path, fixtures_dir): points for path, _, points in load_logs(fixtures_dir)}
    shapes = [logs[os.path.join("s02", "medium", name)] for name in ("arrow01.xml", "left_curly_brace01.xml",
                                                                      "arrow02.xml")]
    check = logs[os.path.join("s02", "medium", "check02.xml")]
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    followed, judged_as_drawn = ["checkmark", "match"], ["match"]
    for follow, option, expected in (("on", None, followed), ("off", None, judged_as_drawn),
                                     ("off", True, followed), ("on", False, judged_as_drawn)):
        running = RunningWorker(*mode, "--checkmark-follow-tilt", follow)
        try:
            with Consumer(running.output, prefixes=["tilted"]) as consumer, \
                    Producer(running.input, binary=True) as producer:
                producer.wait_for_worker()
                consumer.wait_until_subscribed(producer)

                def kinds(points):
                    producer.send_stroke("tilted", tilted(points, 35), batch=8)
                    seen = []
                    for event in consumer.iter(timeout=5):
                        validator.validate(event.fields)
                        seen.append(event.kind)
                        if event.kind in ("match", "nomatch"):
                            return seen, event
                    raise AssertionError("no result")

                if option is not None:
                    producer.set_options("tilted", follow_tilt=option)
                for shape in shapes:
                    assert kinds(shape)[0][-1] == "match"
                seen, result = kinds(check)
                assert seen == expected, (mode, follow, option)
                if expected == followed:
                    assert result.get("name") == "check"
        finally:
            assert running.stop() == 0


def tilted_hand(fixtures_dir):
    """Subject s02's strokes drawn 45 degrees clockwise: three shapes whose matches show the tilt (an arrow, a curly
    brace, an arrow), and a square bracket that the built-in library misses as drawn."""
    logs = {os.path.relpath(path, fixtures_dir): points for path, _, points in load_logs(fixtures_dir)}

    def log(name):
        return tilted(logs[os.path.join("s02", "medium", name)], 45)

    return [log(name) for name in ("arrow01.xml", "left_curly_brace03.xml", "arrow02.xml")], \
        log("left_sq_bracket01.xml")


@pytest.mark.parametrize("mode", [(), ("--recognition-offload", "always")])
def test_a_tilted_players_gesture_of_two_strokes_is_matched_turned_back(protocol_dir, fixtures_dir, mode):
    """In a session that groups strokes, a bracket drawn 45 degrees clockwise in two strokes is not matched at first;
    after three gestures of one stroke drawn alike, whose matches show the tilt, it is, with its rotation as drawn."""
    shapes, bracket = tilted_hand(fixtures_dir)
    halves = [bracket[:len(bracket) // 2 + 1], bracket[len(bracket) // 2:]]
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    running = RunningWorker(*mode)
    try:
        with Consumer(running.output, prefixes=["grouped"]) as consumer, \
                Producer(running.input, binary=True) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)
            producer.set_options("grouped", checkmark=False, multistroke=500)

            def result(strokes):
                producer.send_gesture("grouped", strokes, batch=8)
                for event in consumer.iter(timeout=5):
                    validator.validate(event.fields)
                    if event.kind in ("match", "nomatch"):
                        return event
                raise AssertionError("no result")

            assert result(halves).get("name") != "left_sq_bracket"
            for shape in shapes:
                assert result([shape]).kind == "match"
            turned = result(halves)
            assert turned.get("name") == "left_sq_bracket", turned.fields
            assert len(turned.get("strokes")) == 2 and abs(turned.get("rotation") - 45) <= 15, turned.fields
    finally:
        assert running.stop() == 0


def test_a_players_tilt_given_back_to_their_next_session(worker, protocol_dir, fixtures_dir):
    """A bracket drawn 45 degrees clockwise is not matched in a fresh session; after its session closes, the
    ``closed`` event's ``tilt`` given to the player's next session (``set_options(tilt=...)``) has the first such
    bracket matched; ``reteach`` gives it again to a producer that starts over."""
    shapes, bracket = tilted_hand(fixtures_dir)
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    with Consumer(worker.output, prefixes=["hand-"]) as consumer, Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        producer.set_options("hand-1", checkmark=False)
        assert stroke_result(producer, consumer, "hand-1", bracket, validator).get("name") != "left_sq_bracket"
        for shape in shapes:
            assert stroke_result(producer, consumer, "hand-1", shape, validator).kind == "match"
        producer.close_session("hand-1")
        closed = consumer.receive(timeout=5)
        validator.validate(closed.fields)
        assert closed.kind == "closed" and abs(closed.get("tilt") - 45) <= 15, closed.fields
        producer.set_options("hand-2", checkmark=False, tilt=closed.get("tilt"))
        assert stroke_result(producer, consumer, "hand-2", bracket, validator).get("name") == "left_sq_bracket"
        start_over(producer, consumer, "hand-2")
        assert stroke_result(producer, consumer, "hand-2", bracket, validator).get("name") != "left_sq_bracket"
        start_over(producer, consumer, "hand-2")
        producer.reteach("hand-2")
        assert stroke_result(producer, consumer, "hand-2", bracket, validator).get("name") == "left_sq_bracket"


def test_the_aim_example_runs(worker):
    """clients/python/examples/aim.py (part of `make demo`): arrows drawn every which way, each matched as the one
    taught and aimed by its rotation to within 5 degrees."""
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "aim.py")
    result = subprocess.run([sys.executable, example, "--input", worker.input, "--output", worker.output],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("shoot toward") == 7 and "aimed to within" in result.stdout


def test_the_swipes_example_runs():
    """clients/python/examples/swipes.py (part of `make demo`): swipes matched by Libraries/swipes.json, and a tap
    too small to match, answered with where it was."""
    library = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Libraries", "swipes.json")
    running = RunningWorker("--library", library)
    try:
        example = os.path.join(os.path.dirname(__file__), "..", "examples", "swipes.py")
        result = subprocess.run([sys.executable, example, "--input", running.input, "--output", running.output],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "5 of 5 answered as meant" in result.stdout and "too_small at (120, 340)" in result.stdout
    finally:
        assert running.stop() == 0


def test_multistroke_encoding():
    assert json.loads(encode_json("options", 1, multistroke=0)) == {"type": "options", "seq": 1, "multistroke": 0}
    assert json.loads(encode_json("end", 2, 3, last=True))["last"] is True
    for bad in (-1, 10001, 1.5, True, "500"):
        with pytest.raises(ValueError):
            encode_json("options", 1, multistroke=bad)
    with pytest.raises(ValueError):
        encode_json("begin", 1, 1, last=True)
    payload = encode_binary("end", 4, 5, last=True)
    assert payload[3] == 2 and decode_binary(payload) == {"type": "end", "seq": 4, "stroke": 5, "pointer": 0,
                                                           "points": [], "last": True}
    with pytest.raises(ValueError):
        encode_binary("points", 1, 1, [(1, 2, 3)], last=True)
    with pytest.raises(ValueError):
        decode_binary(bytes([payload[0], payload[1], 1, 2]) + payload[4:])


def test_a_closed_producer_or_consumer_says_so():
    """Session 86: pyzmq's own errors said "Socket operation on non-socket" and "Operation not supported"."""
    producer = Producer("tcp://127.0.0.1:1")
    producer.close()
    with pytest.raises(ValueError, match="send on a closed Producer"):
        producer.send("s", "begin", 1, points=[(1, 2, 3)])
    with pytest.raises(ValueError, match="ping on a closed Producer"):
        producer.ping("s")
    consumer = Consumer("tcp://127.0.0.1:1", prefixes=["s"])
    consumer.close()
    for timeout in (0.01, None):
        with pytest.raises(ValueError, match="receive on a closed Consumer"):
            consumer.receive(timeout=timeout)
    context = zmq.asyncio.Context()
    waiting = AsyncConsumer("tcp://127.0.0.1:1", prefixes=["s"], context=context)
    waiting.close()
    with pytest.raises(ValueError, match="receive on a closed AsyncConsumer"):
        asyncio.run(waiting.receive(timeout=0.01))
    context.term()


def test_numbers_the_wire_cannot_carry_are_refused_and_take_no_seq():
    for encode in (encode_json, encode_binary):
        for seq, stroke, pointer in ((-1, 1, 0), (1 << 32, 1, 0), (1, 1 << 32, 0), (1, 1, 1 << 16), (1, -2, 0)):
            with pytest.raises(ValueError, match="is a whole number from 0 to"):
                encode("points", seq, stroke, pointer, [(1, 2, 3)])
    assert decode_binary(encode_binary("points", (1 << 32) - 1, (1 << 32) - 1, (1 << 16) - 1, [(1, 2, 3)]))["seq"] \
        == (1 << 32) - 1
    with pytest.raises(ValueError, match="32-bit floats"):
        encode_binary("points", 1, 1, 0, [(1e39, 2, 3)])
    with pytest.raises(ValueError, match="32-bit floats"):
        encode_binary("points", 1, 1, 0, [(1, 2, 3, -1e39)])
    # A producer sends binary where the binary form carries the points (a time beyond 32-bit floats is an f64),
    # JSON where it would turn a coordinate into an infinity; a message it refuses takes no sequence number.
    producer = Producer("tcp://127.0.0.1:1", binary=True)
    sent = []
    producer.socket.send_multipart = sent.append
    try:
        producer.send("s", "begin", stroke=1, points=[(1, 2, 1e300)])
        producer.send("s", "points", stroke=1, points=[(1e300, 2, 3)])
        with pytest.raises(ValueError):
            producer.send("s", "points", stroke=1, pointer=1 << 16, points=[(1, 2, 3)])
        with pytest.raises(ValueError):
            producer.send("s", "points", stroke=1, points=[(float("nan"), 2, 3)])
        producer.send("s", "end", stroke=1)
        with pytest.raises(ValueError):
            producer.send_stroke("s", [(0, 0, 0), (1, 1, 1), (float("inf"), 2, 2)])  # nothing of it goes out
        # Session 78: a gesture whose last stroke held a bad point went out but for that stroke (the worker matched
        # the others as the whole gesture); a batch or a message beyond 65,535 points left a stroke open, or raised
        # only once its begin had gone out.
        with pytest.raises(ValueError):
            producer.send_gesture("s", [[(0, 0, 0), (1, 1, 1)], [(0, 0, 2), (float("nan"), 1, 3)]])
        long = [(1, 2, 3)] * 65536
        for batch in (0, -1, 65536, 2.5, True):
            with pytest.raises(ValueError, match="batch: 1 to 65535 points a message"):
                producer.send_stroke("s", long, batch=batch)
            with pytest.raises(ValueError, match="batch: 1 to 65535 points a message"):
                producer.send_gesture("s", [long[:3]], batch=batch)
        for binary in (True, False):
            with pytest.raises(ValueError, match="at most 65535 points, got 65536"):
                producer.send("s", "points", stroke=1, points=long, binary=binary)
            # Session 86: a points message without points went out, taking a number, and came back invalid_field;
            # so did an options message of no option, and a binary producer sent stroke 0 for a stroke not given.
            with pytest.raises(ValueError, match="a points message carries at least one point"):
                producer.send("s", "points", stroke=1, points=[], binary=binary)
            with pytest.raises(ValueError, match="begin needs a stroke id"):
                producer.send("s", "begin", points=[(1, 2, 3)], binary=binary)
        with pytest.raises(ValueError, match="an options message sets at least one of checkmark, followTilt"):
            producer.set_options("s")
        producer.send("s", "end", stroke=1)
    finally:
        producer.close()
    assert [payload[0] == BINARY_MAGIC for _, payload in sent] == [True, False, True, True]
    assert [decode_binary(payload)["seq"] for _, payload in sent if payload[0] == BINARY_MAGIC] == [1, 3, 4]
    assert json.loads(sent[1][1]) == {"type": "points", "seq": 2, "stroke": 1, "points": [[1e300, 2, 3]]}
    assert decode_binary(sent[2][1])["seq"] == 3


def test_the_learn_gesture_example_runs(worker):
    """clients/python/examples/learn_gesture.py (part of `make demo`) teaches, matches and forgets a gesture, and
    takes back one that the learned event's nearest says is too like the library's caret."""
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "learn_gesture.py")
    result = subprocess.run([sys.executable, example, "--input", worker.input, "--output", worker.output],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("lightning (learned)") == 2 and "caret" in result.stdout
    assert "(nearest: question_mark" in result.stdout and "too like caret" in result.stdout


def test_the_symbols_example_runs(worker):
    """clients/python/examples/symbols.py (part of `make demo`) teaches and draws gestures of several strokes."""
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "symbols.py")
    result = subprocess.run([sys.executable, example, "--input", worker.input, "--output", worker.output],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("learned") == 4 and "caret" in result.stdout


def test_the_spells_example_runs(worker):
    """clients/python/examples/spells.py (part of `make demo`): allowed spells cast, others named, not cast."""
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "spells.py")
    result = subprocess.run([sys.executable, example, "--input", worker.input, "--output", worker.output],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not now: rectangle" in result.stdout and "cast circle" in result.stdout


def test_a_ping_is_answered_and_the_subscription_probe_is_no_error(protocol_dir, fixtures_dir):
    """A ping gets its pong (outside the session's numbering, creating no state); wait_until_subscribed pings, so a
    worker that only answered probes counts pings and no errors."""
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    running = RunningWorker("--shard", "0/1")
    try:
        with Consumer(running.output, prefixes=["pinged"]) as consumer, \
                Producer(running.input) as producer:
            producer.wait_for_worker()
            consumer.wait_until_subscribed(producer)
            producer.ping("pinged", seq=41)
            pong = consumer.receive(timeout=5)
            assert pong is not None and pong.kind == "pong", pong
            validator.validate(pong.fields)
            assert (pong.session, pong.get("seq"), pong.get("eventSeq")) == ("pinged", 41, 0)
            assert (pong.get("shard"), pong.get("known")) == ("0/1", False)
            producer.send_stroke("pinged", read_stroke(fixtures_dir, "circle"), batch=8)
            assert consumer.receive(timeout=5).kind == "match"
            producer.ping("pinged")
            pong = consumer.receive(timeout=5)
            assert (pong.kind, pong.get("seq"), pong.get("known")) == ("pong", None, True)
            # The session's numbering went on as if there had been no ping: the next stroke is numbered on.
            producer.send_stroke("pinged", read_stroke(fixtures_dir, "circle"), batch=8)
            match = consumer.receive(timeout=5)
            assert (match.kind, match.get("eventSeq"), match.gap) == ("match", 2, 0)
    finally:
        assert running.stop() == 0
    stopped = next(line for line in running.process_log() if " stopped " in line)
    assert re.search(r"\bpings=([0-9]+)", stopped) and int(re.search(r"\bpings=([0-9]+)", stopped).group(1)) >= 3
    assert "errors." not in stopped, stopped


def test_first_messages_are_not_lost(worker, fixtures_dir):
    """wait_for_worker() (XPUB) means the very first messages of a new producer arrive."""
    points = read_stroke(fixtures_dir, "circle")
    context = zmq.Context()
    with Consumer(worker.output, prefixes=["fresh-"], context=context) as consumer:
        setup = Producer(worker.input, context=context)
        setup.wait_for_worker()
        consumer.wait_until_subscribed(setup)
        setup.close()
        for attempt in range(3):
            with Producer(worker.input, context=context) as producer:
                producer.wait_for_worker()
                producer.send_stroke("fresh-%d" % attempt, points, batch=len(points))
            event = consumer.receive(timeout=5)
            assert event is not None and event.kind == "match" and event.get("name") == "circle"
            assert event.get("seq") == 3
    context.term()


def test_a_restarted_producer_goes_on_with_its_session(worker, fixtures_dir):
    """A producer process that restarts numbers its session's messages from 1 again: the worker starts the session
    over (session_restart) instead of dropping everything as late until the session idles out."""
    points = read_stroke(fixtures_dir, "circle")
    context = zmq.Context()
    with Consumer(worker.output, prefixes=["restarting"], context=context) as consumer:
        events = []
        for incarnation in range(2):
            with Producer(worker.input, context=context) as producer:
                producer.wait_for_worker()
                if incarnation == 0:
                    consumer.wait_until_subscribed(producer)
                    # It dies in the middle of a stroke.
                    producer.send_stroke("restarting", points, batch=len(points))
                    producer.send("restarting", "begin", 2, points=points[:1])
                else:
                    producer.send_stroke("restarting", points, batch=len(points))
            while True:
                event = consumer.receive(timeout=5)
                assert event is not None, "events so far: %s" % [e.fields for e in events]
                events.append(event)
                if event.kind in ("match", "nomatch"):
                    break
    context.term()
    assert [e.kind for e in events] == ["match", "error", "match"]
    assert events[1].get("code") == "session_restart" and events[1].get("seq") == 1
    assert events[2].get("name") == "circle" and events[2].get("seq") == 3
    assert [e.get("eventSeq") for e in events] == [1, 2, 3]


def test_forget_starts_a_sessions_numbering_over():
    producer = Producer("tcp://127.0.0.1:1")
    try:
        assert [producer.next_seq("s"), producer.next_seq("s"), producer.new_stroke_id("s")] == [1, 2, 1]
        producer.forget("s")
        assert [producer.next_seq("s"), producer.new_stroke_id("s")] == [1, 1]
        assert producer.close_session("s") == 2
        assert producer.next_seq("s") == 1
    finally:
        producer.close()


def test_all_buckets_of_a_two_lane_worker(fixtures_dir):
    """wait_for_all_buckets(): behind a worker's two lanes, each subscribing to its own buckets, the first
    messages to sessions in every bucket arrive."""
    running = RunningWorker("--lanes", "2")
    try:
        points = read_stroke(fixtures_dir, "circle")
        context = zmq.Context()
        sessions = ["spread-%d" % k for k in range(64)]
        with Consumer(running.output, prefixes=["spread-"], context=context) as consumer:
            setup = Producer(running.input, context=context)
            setup.wait_for_all_buckets()
            consumer.wait_until_subscribed(setup)
            setup.close()
            with Producer(running.input, context=context) as producer:
                producer.wait_for_all_buckets()
                assert len({bucket(session) % 2 for session in sessions}) == 2, "both lanes are used (bucket mod 2)"
                for session in sessions:
                    producer.send_stroke(session, points, batch=len(points))
                events = [consumer.receive(timeout=5) for _ in sessions]
        assert all(e is not None and e.kind == "match" and e.get("name") == "circle" for e in events)
        assert sorted(e.topic.decode() for e in events) == sorted(sessions)
        assert all(e.get("seq") == 3 and e.gap == 0 for e in events)
        context.term()
    finally:
        assert running.stop() == 0


def test_all_buckets_timeout_says_what_is_missing():
    """The TimeoutError of wait_for_all_buckets() says what the buckets without a subscription suggest: no worker
    at all at that endpoint, the shards no worker serves, or else the first buckets missing."""

    def timeout_message(buckets):
        """wait_for_all_buckets()'s message, and the endpoint, for a producer whose one subscriber took these
        buckets' prefixes, as workers behind a proxy do."""
        context = zmq.Context()
        producer = Producer("tcp://127.0.0.1:0", context=context, bind=True)
        try:
            if buckets:
                socket = context.socket(zmq.SUB)
                socket.setsockopt(zmq.SNDHWM, 0)  # thousands of subscriptions: none held back
                for prefix in buckets:
                    socket.setsockopt(zmq.SUBSCRIBE, b"%03x/" % prefix)
                socket.connect(producer.endpoint)
                deadline = time.monotonic() + 10
                while len(producer.subscribed_buckets()) < len(buckets) and time.monotonic() < deadline:
                    time.sleep(0.01)
            with pytest.raises(TimeoutError) as raised:
                producer.wait_for_all_buckets(timeout=0.2)
            return str(raised.value), producer.endpoint
        finally:
            context.destroy(linger=0)

    message, endpoint = timeout_message([])
    assert "no worker subscribed through %s" % endpoint in message
    # Workers 0/3 and 1/3 run, 2/3 does not.
    message, _ = timeout_message([b for b in range(BUCKET_COUNT) if b % 3 != 2])
    assert "no worker serves shard 2/3 (buckets mod 3 = 2)" in message
    # Every bucket but two that no shard count explains.
    message, _ = timeout_message([b for b in range(BUCKET_COUNT) if b not in (5, 4095)])
    assert "missing buckets 5, 4095" in message


def test_an_unanswered_probe_says_which_half_of_the_way_is_missing(worker):
    """Session 81: wait_until_subscribed() and wait_until_read() timed out with only "the worker did not answer the
    probe" or "no pong": the same for a producer no worker reads, a worker without the session's bucket, and a
    consumer connected where the worker's events are not. The producer's subscriptions tell them apart."""
    context = zmq.Context()
    try:
        # No worker at the producer's endpoint; the consumer at the real worker's output.
        lonely = Producer("tcp://127.0.0.1:0", context=context, bind=True)
        with Consumer(worker.output, context=context) as consumer:
            with pytest.raises(TimeoutError) as raised:
                consumer.wait_until_subscribed(lonely, timeout=0.3)
            assert "no worker has subscribed at the producer's %s" % lonely.endpoint in str(raised.value)
            # A subscriber that holds one bucket only, as one of several lanes or workers does.
            partial = context.socket(zmq.SUB)
            partial.setsockopt(zmq.SUBSCRIBE, b"%03x/" % ((bucket("s-1") + 1) % BUCKET_COUNT))
            partial.connect(lonely.endpoint)
            deadline = time.monotonic() + 10
            while not lonely.subscribed_buckets() and time.monotonic() < deadline:
                time.sleep(0.01)
            with pytest.raises(TimeoutError) as raised:
                consumer.wait_until_read(lonely, ["s-1"], timeout=0.3)
            assert "no pong within 0.3 s for: s-1 (no worker subscribed at the producer's" in str(raised.value)
            assert "to bucket %d of these sessions (1 of 4096 buckets covered)" % bucket("s-1") in str(raised.value)
            partial.close(linger=0)
        lonely.close()
        # The worker reads the producer, but the consumer listens where no worker publishes.
        producer = Producer(worker.input, context=context)
        producer.wait_for_worker(timeout=10)
        elsewhere = "tcp://127.0.0.1:%d" % free_port()
        with Consumer(elsewhere, context=context) as consumer:
            with pytest.raises(TimeoutError) as raised:
                consumer.wait_until_subscribed(producer, timeout=0.3)
            assert ("a worker subscribed at the producer's %s, so its answers did not reach this consumer at %s"
                    % (producer.endpoint, elsewhere)) in str(raised.value)
        producer.close()
    finally:
        context.destroy(linger=0)


def test_all_buckets_again_after_a_worker_leaves():
    """wait_for_all_buckets() counts the subscriptions in force: a subscriber that leaves takes its buckets with
    it (unsubscriptions), and its successor's subscriptions bring them back."""
    context = zmq.Context()
    producer = Producer("tcp://127.0.0.1:0", context=context, bind=True)
    try:
        assert producer.socket.getsockopt(zmq.RCVHWM) == 100_000
        endpoint = producer.socket.getsockopt_string(zmq.LAST_ENDPOINT)

        def worker(index):
            """A SUB socket subscribed as worker index/2 behind a proxy is: its buckets' prefixes."""
            socket = context.socket(zmq.SUB)
            socket.setsockopt(zmq.SNDHWM, 0)
            for prefix in range(index, BUCKET_COUNT, 2):
                socket.setsockopt(zmq.SUBSCRIBE, b"%03x/" % prefix)
            socket.connect(endpoint)
            return socket

        even, odd = worker(0), worker(1)
        producer.wait_for_all_buckets(timeout=10)
        odd.close(linger=0)
        deadline = time.monotonic() + 10
        while len(producer.subscribed_buckets()) > BUCKET_COUNT // 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert producer.subscribed_buckets() == set(range(0, BUCKET_COUNT, 2))
        with pytest.raises(TimeoutError):
            producer.wait_for_all_buckets(timeout=0.3)
        successor = worker(1)
        producer.wait_for_all_buckets(timeout=10)
        assert len(producer.subscriptions) == BUCKET_COUNT + BUCKET_COUNT // 2, "every subscription, in order"
        even.close(linger=0)
        successor.close(linger=0)
    finally:
        producer.close()
        context.term()


def test_curve_key_files(tmp_path):
    """load_keys() reads bare keys with comments and certificates' lines, and names a bad line."""
    first_public, first_secret = zmq.curve_keypair()
    second_public, _ = zmq.curve_keypair()
    keys = tmp_path / "keys"
    keys.write_text("# players\n%s\n\n  %s\n" % (first_public.decode(), second_public.decode()))
    assert load_keys(str(keys)) == [first_public, second_public]
    certificate = tmp_path / "client.key"
    certificate.write_text('curve\n    public-key = "%s"\n    secret-key = "%s"\n'
                           % (first_public.decode(), first_secret.decode()))
    assert load_keys(str(certificate), "secret-key") == [first_secret]
    assert CurveKeys(second_public, str(certificate)).public_key == first_public
    keys.write_text("%s\nnot a key\n" % first_public.decode())
    with pytest.raises(ValueError, match="line 2"):
        load_keys(str(keys))


def test_curve_worker_admits_only_listed_clients(fixtures_dir, tmp_path):
    """A worker with --curve-secret-key and --curve-authorized-keys answers a listed CURVE client, refuses
    another key at the handshake (and logs it), and admits that key once it is listed and SIGHUP arrives."""
    server_public, server_secret = zmq.curve_keypair()
    client_public, client_secret = zmq.curve_keypair()
    (tmp_path / "server.key").write_text(server_secret.decode() + "\n")
    (tmp_path / "authorized").write_text("# the game server\n%s\n" % client_public.decode())
    running = RunningWorker("--curve-secret-key", str(tmp_path / "server.key"),
                            "--curve-authorized-keys", str(tmp_path / "authorized"))
    try:
        points = read_stroke(fixtures_dir, "circle")
        context = zmq.Context()
        listed = CurveKeys(server_public, client_secret)
        with Consumer(running.output, prefixes=["curve-"], context=context, curve=listed, system=True) as consumer, \
                Producer(running.input, context=context, curve=listed) as producer:
            producer.wait_for_all_buckets()
            consumer.wait_until_subscribed(producer)
            producer.send_stroke("curve-1", points, batch=8)
            event = consumer.receive(timeout=5)
            assert event is not None and event.kind == "match" and event.get("name") == "circle"
            stranger_keys = CurveKeys(server_public)
            stranger = Producer(running.input, context=context, curve=stranger_keys)
            with pytest.raises(KeyRefused) as refused:
                stranger.wait_for_worker(timeout=5)
            assert refused.value.status == 400
            stranger.close()
            # Listed now, and SIGHUP makes the worker read the file again: the same key is admitted.
            with open(tmp_path / "authorized", "a") as handle:
                handle.write(stranger_keys.public_key.decode() + "\n")
            running.process.send_signal(signal.SIGHUP)
            # The worker reads the file when it handles the signal: a handshake made before that is refused, and
            # libzmq does not try a refused handshake again (KeyRefused); so connect anew until admitted.
            deadline = time.monotonic() + 10
            while True:
                admitted = Producer(running.input, context=context, curve=stranger_keys)
                try:
                    admitted.wait_for_worker(timeout=1)
                    break
                except (TimeoutError, KeyRefused):
                    if time.monotonic() > deadline:
                        raise
                finally:
                    admitted.close()
        context.term()
    finally:
        assert running.stop() == 0
    log = running.process_log()
    assert any("client refused" in line for line in log)
    assert any("authorized client keys reloaded" in line and "keys=2" in line for line in log)


def test_curve_clients_learn_that_their_key_is_refused_or_revoked(fixtures_dir, tmp_path):
    """A CURVE client whose key the worker refuses raises KeyRefused instead of waiting in silence: a consumer or
    producer with an unlisted key at once, and clients whose key a reload takes away once the worker has cut them
    (the consumer at once, the producer after its next message). A client with a listed key goes on."""
    server_public, server_secret = zmq.curve_keypair()
    kept_public, kept_secret = zmq.curve_keypair()
    revoked_public, revoked_secret = zmq.curve_keypair()
    (tmp_path / "server.key").write_text(server_secret.decode() + "\n")
    authorized = tmp_path / "authorized"
    authorized.write_text("%s\n%s\n" % (kept_public.decode(), revoked_public.decode()))
    running = RunningWorker("--curve-secret-key", str(tmp_path / "server.key"),
                            "--curve-authorized-keys", str(authorized))
    try:
        points = read_stroke(fixtures_dir, "circle")
        context = zmq.Context()
        kept, revoked = CurveKeys(server_public, kept_secret), CurveKeys(server_public, revoked_secret)
        with Consumer(running.output, prefixes=["refused-"], context=context, curve=CurveKeys(server_public)) \
                as stranger:
            # With no timeout, a receive would wait for ever without KeyRefused: on a thread of its own, given 10 s.
            outcome = {}

            def receive_for_ever():
                try:
                    outcome["returned"] = stranger.receive()
                except KeyRefused as error:
                    outcome["refused"] = error
            waiting = threading.Thread(target=receive_for_ever, daemon=True)
            waiting.start()
            waiting.join(10)
            assert "refused" in outcome, outcome
            assert outcome["refused"].status == 400 and outcome["refused"].endpoint == running.output

        async def stranger_async():
            async with AsyncConsumer(running.output, curve=CurveKeys(server_public)) as consumer:
                with pytest.raises(KeyRefused):
                    await asyncio.wait_for(consumer.receive(), 10)
        asyncio.run(stranger_async())

        with Consumer(running.output, prefixes=["refused-"], context=context, curve=kept) as staying, \
                Consumer(running.output, prefixes=["refused-"], context=context, curve=revoked) as leaving, \
                Producer(running.input, context=context, curve=revoked) as producer, \
                Producer(running.input, context=context, curve=kept) as other:
            producer.wait_for_all_buckets()
            other.wait_for_all_buckets()
            staying.wait_until_subscribed(producer)
            leaving.wait_until_subscribed(producer)
            producer.send_stroke("refused-1", points, batch=8)
            for consumer in (staying, leaving):
                event = consumer.receive(timeout=5)
                assert event is not None and event.kind == "match" and event.get("name") == "circle"
            authorized.write_text(kept_public.decode() + "\n")
            running.process.send_signal(signal.SIGHUP)
            with pytest.raises(KeyRefused):
                leaving.receive(timeout=10)
            # The producer is cut at its next message and refused when it connects again; until then its messages
            # are dropped by the worker. (A producer looks at its handshakes every 64 messages.)
            deadline = time.monotonic() + 10
            with pytest.raises(KeyRefused):
                while time.monotonic() < deadline:
                    producer.send("refused-2", "cancel", 1)
                    time.sleep(0.005)
            other.send_stroke("refused-3", points, batch=8)
            event = staying.receive(timeout=5)
            assert event is not None and event.session == "refused-3" and event.get("name") == "circle"
        context.term()
    finally:
        assert running.stop() == 0
    log = running.process_log()
    assert any("consumer connection of a revoked client key cut" in line for line in log)
    assert any("connection of a revoked client key cut" in line and "consumer" not in line for line in log)


def test_curve_proxy_cuts_a_revoked_publisher_and_subscriber(tmp_path):
    """`stroke-worker proxy` with listed client keys: after the file drops a key and SIGHUP arrives, a subscriber
    connected with it is cut at once, and a publisher's next message is dropped and its connection cut, while
    another publisher's messages still reach another subscriber."""
    server_public, server_secret = zmq.curve_keypair()
    keys = {name: zmq.curve_keypair() for name in ("revoked", "kept", "consumer")}
    (tmp_path / "server.key").write_text(server_secret.decode() + "\n")
    authorized = tmp_path / "authorized"
    authorized.write_text("".join(public.decode() + "\n" for public, _ in keys.values()))
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", "--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:tcp://127.0.0.1:*",
         "--curve-secret-key", str(tmp_path / "server.key"), "--curve-authorized-keys", str(authorized)],
        stderr=subprocess.PIPE, text=True)
    read_log_until = LogTail(proxy.stderr, []).wait_for

    context = zmq.Context()
    try:
        listening = read_log_until("proxy listening")
        frontend = re.search(r"frontend=(\S+)", listening).group(1)
        backend = re.search(r"backend=(\S+)", listening).group(1)

        def client(kind, name, endpoint):
            socket = context.socket(kind)
            socket.curve_serverkey = server_public
            socket.curve_publickey, socket.curve_secretkey = keys[name]
            socket.linger = 0
            if kind == zmq.SUB:
                socket.setsockopt(zmq.SUBSCRIBE, b"")
                socket.rcvtimeo = 5000
            else:
                socket.rcvtimeo = 10000
            socket.connect(endpoint)
            return socket

        consumer = client(zmq.SUB, "consumer", backend)
        watcher = client(zmq.SUB, "revoked", backend)
        publishers = {name: client(zmq.XPUB, name, frontend) for name in ("revoked", "kept")}
        for publisher in publishers.values():
            publisher.recv()  # the consumer's subscription came up through the proxy
        # The watcher's subscription may follow the consumer's: probe until it receives.
        for _ in range(100):
            publishers["kept"].send_multipart([b"probe", b""])
            if watcher.poll(50):
                break
        for socket in (consumer, watcher):
            while socket.poll(100):
                socket.recv_multipart()
        for name, publisher in publishers.items():
            publisher.send_multipart([name.encode(), b"before"])
        for socket in (consumer, watcher):
            assert sorted(tuple(socket.recv_multipart()) for _ in range(2)) == [(b"kept", b"before"),
                                                                                (b"revoked", b"before")]
        authorized.write_text("".join(keys[name][0].decode() + "\n" for name in ("kept", "consumer")))
        proxy.send_signal(signal.SIGHUP)
        read_log_until("authorized client keys reloaded")
        read_log_until("consumer connection of a revoked client key cut")
        publishers["revoked"].send_multipart([b"revoked", b"after"])
        read_log_until("connection of a revoked client key cut")
        publishers["kept"].send_multipart([b"kept", b"after"])
        assert consumer.recv_multipart() == [b"kept", b"after"]
        assert not watcher.poll(500), "the revoked subscriber still receives"
    finally:
        context.destroy(0)
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0


def test_bad_input_gets_errors_and_other_sessions_are_served(worker, protocol_dir, fixtures_dir):
    validator = jsonschema.Draft202012Validator(schema(protocol_dir, "event.schema.json"))
    points = read_stroke(fixtures_dir, "star")
    with Consumer(worker.output, prefixes=["bad", "good"], system=True) as consumer, \
            Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        producer.socket.send_multipart([topic("bad"), b"{not json"])
        producer.socket.send_multipart([topic("bad"), encode_binary("points", 1, 1, 0, [(1, 2, 3)])[:-4]])
        producer.socket.send_multipart([b"nope", b"{}"])
        producer.send("bad", "end", 1)
        producer.send("bad", "begin", 2, seq=5)
        producer.send_stroke("good", points, batch=4)
        codes, results = [], []
        for event in consumer.iter(timeout=3):
            validator.validate(event.fields)
            if event.kind == "error":
                codes.append(event.get("code"))
            elif event.kind == "match":
                results.append(event.get("name"))
    assert codes == ["malformed_json", "malformed_binary", "bad_topic", "unknown_stroke", "sequence_gap"]
    assert results == ["star"]


def test_two_fingers_and_options(worker, fixtures_dir):
    check = read_stroke(fixtures_dir, "check")
    circle = read_stroke(fixtures_dir, "circle")
    with Consumer(worker.output, prefixes=["multi"]) as consumer, Producer(worker.input) as producer:
        producer.wait_for_worker()
        consumer.wait_until_subscribed(producer)
        producer.set_options("multi", checkmark=False, library="default")
        producer.send("multi", "begin", 1, 0, check[:1])
        producer.send("multi", "begin", 2, 1, circle[:1])
        for k in range(1, max(len(check), len(circle))):
            if k < len(check):
                producer.send("multi", "points", 1, 0, [check[k]])
            if k < len(circle):
                producer.send("multi", "points", 2, 1, [circle[k]])
        producer.send("multi", "end", 2, 1)
        producer.send("multi", "end", 1, 0)
        producer.close_session("multi")
        # After close, the session's numbering starts over: the next stroke begins a new session, without error.
        producer.send_stroke("multi", circle, batch=len(circle))
        kinds = [(e.kind, e.get("stroke"), e.get("pointer"), e.get("name") or e.get("reason"))
                 for e in consumer.iter(timeout=3)]
    assert kinds == [("match", 2, 1, "circle"), ("match", 1, 0, "check"), ("closed", None, None, "closed"),
                     ("match", 1, 0, "circle")]


def test_replay_matches_the_recognizer(worker, fixtures_dir):
    report = replay(fixtures_dir, worker.input, worker.output, sessions=8, batch=4)
    assert report["answered"] == report["strokes"] == len(load_logs(fixtures_dir))
    assert report["accuracy"] >= 0.95
    assert report["checkmark"]["truePositiveRate"] == 1.0
    assert report["eventGaps"] == 0


def test_replay_refuses_counts_below_one_and_says_a_misread_endpoint_without_a_traceback(fixtures_dir, capsys):
    """Session 81: --sessions 0, --batch 0 or --limit -1 ran into the worker's timeouts, and an error ended in a
    traceback."""
    from stroke_client.replay import main as replay_main

    for option, value in (("--sessions", "0"), ("--batch", "-2"), ("--limit", "0"), ("--batch", "x")):
        with pytest.raises(SystemExit) as exited:
            replay_main(["--dataset", fixtures_dir, option, value])
        assert exited.value.code == 2
        assert "argument %s:" % option in capsys.readouterr().err
    assert replay_main(["--dataset", fixtures_dir, "--input", "tcp://127.0.0.1:99999"]) == 1
    assert capsys.readouterr().err.startswith("replay: tcp://127.0.0.1:99999: the port must be a number")


def test_a_log_that_is_not_one_is_named_and_every_number_is_read(tmp_path, capsys):
    """Session 86: a log without points ended the replay with an IndexError (once connected to a worker), and a
    point written ``T="5.5"`` or ``X="1e2"`` was left out of its stroke without a word. The gesture is the log's
    Name, as the worker's own reader takes it, whatever the file is called."""
    head = '\ufeff<?xml version="1.0" encoding="utf-8"?>\n'
    good = tmp_path / "good" / "s01" / "fast"
    good.mkdir(parents=True)
    (good / "stroke.xml").write_text(head + '<Gesture Name="zigzag07" Subject="1">\n'
                                     '  <Point T="5.5" X="1e2" Y="-3" />\n  <Point X="4" Y="2.25" T="17" />\n'
                                     '</Gesture>\n', encoding="utf-8")
    assert load_logs(str(tmp_path / "good")) == [
        (str(good / "stroke.xml"), "zigzag", [(100.0, -3.0, 5.5), (4.0, 2.25, 17.0)])]
    bad = {
        "empty.xml": ('<Gesture Name="check01"></Gesture>', "no <Point> elements"),
        "nameless.xml": ('<Gesture Subject="1"><Point X="1" Y="2" T="3" /></Gesture>',
                         "no <Gesture> element with a Name"),
        "digits.xml": ('<Gesture Name="01"><Point X="1" Y="2" T="3" /></Gesture>', "no <Gesture> element with a Name"),
        "point.xml": ('<Gesture Name="x01"><Point X="1" Y="2" T="3" /><Point X="nan" Y="2" T="4" /></Gesture>',
                      'point 1 lacks a numeric X, Y or T: <Point X="nan" Y="2" T="4" />'),
        "missing.xml": ('<Gesture Name="x01"><Point X="1" T="3" /></Gesture>', "point 0 lacks a numeric X, Y or T"),
        "cut.xml": ('<Gesture Name="x01"><Point X="1" Y="2" T="3" />', "not a readable XML log"),
    }
    for name, (text, message) in bad.items():
        directory = tmp_path / name[:-4]
        directory.mkdir()
        (directory / name).write_text(head + text, encoding="utf-8")
        with pytest.raises(ValueError) as raised:
            load_logs(str(directory))
        assert str(raised.value).startswith(str(directory / name) + ": " + message), (name, str(raised.value))
        # The replay says so and exits 1 before it connects: no worker is needed to find out.
        from stroke_client.replay import main as replay_main

        assert replay_main(["--dataset", str(directory), "--input", "tcp://127.0.0.1:9"]) == 1
        assert capsys.readouterr().err.startswith("replay: %s: %s" % (directory / name, message))


def test_a_data_set_linked_subject_by_subject_is_read_whole_and_a_loop_once(tmp_path, fixtures_dir):
    """Session 87: os.walk followed no link below the data set's folder, so the subjects of a data set assembled
    from links were left out without a word (the worker's own reader now follows them too)."""
    real = load_logs(fixtures_dir)
    assert real
    linked = tmp_path / "linked"
    linked.mkdir()
    for subject in ("s02", "s03"):
        os.symlink(os.path.join(fixtures_dir, subject), linked / subject)
    os.symlink("..", linked / "up")  # a loop: read once
    logs = load_logs(str(linked))
    assert [(gesture, points) for _, gesture, points in logs] == [(gesture, points) for _, gesture, points in real]
    assert all(path.startswith(str(linked / "s0")) for path, _, _ in logs)


class NotifySocket:
    """A datagram socket standing in for systemd's NOTIFY_SOCKET."""

    def __init__(self, path) -> None:
        self.path = str(path)
        self.socket = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_DGRAM)
        self.socket.bind(self.path)
        self.socket.settimeout(10)

    def next_starting_with(self, prefix: str) -> str:
        for _ in range(200):
            message = self.socket.recv(4096).decode()
            if message.startswith(prefix):
                return message
        raise AssertionError("no %s among 200 notifications" % prefix)

    def close(self) -> None:
        self.socket.close()


def test_systemd_notifications_of_worker_and_proxy(tmp_path):
    """Under systemd's Type=notify the worker says READY=1 once it receives, pings WATCHDOG=1 at half of
    WATCHDOG_USEC, brackets a SIGHUP with RELOADING=1 and READY=1, and says STOPPING=1 on SIGTERM; the proxy
    says READY=1 once bound, pings WATCHDOG=1 while its forwarding loop turns (session 74), and says STOPPING=1."""
    notify = NotifySocket(tmp_path / "notify")
    try:
        running = RunningWorker(env={"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"})
        try:
            assert notify.next_starting_with("READY=1") == "READY=1\nSTATUS=receiving on " + running.input
            assert notify.next_starting_with("WATCHDOG=1") == "WATCHDOG=1"
            running.process.send_signal(signal.SIGHUP)
            assert "\nMONOTONIC_USEC=" in notify.next_starting_with("RELOADING=1")
            assert notify.next_starting_with("READY=1") == "READY=1"
        finally:
            assert running.stop() == 0
        assert notify.next_starting_with("STOPPING=1") == "STOPPING=1"

        proxy = subprocess.Popen(
            [worker_binary(), "proxy", "--frontend", "tcp://127.0.0.1:*", "--backend", "tcp://127.0.0.1:*"],
            stderr=subprocess.DEVNULL, env={**os.environ, "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"})
        try:
            assert notify.next_starting_with("READY=1").startswith("READY=1\nSTATUS=forwarding tcp://127.0.0.1:")
            assert notify.next_starting_with("WATCHDOG=1") == "WATCHDOG=1"
            proxy.terminate()
            assert notify.next_starting_with("STOPPING=1") == "STOPPING=1"
        finally:
            proxy.terminate()
            assert proxy.wait(timeout=20) == 0
    finally:
        notify.close()
