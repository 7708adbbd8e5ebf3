"""Payload codecs (Protocol/README.md, sections 3, 4 and 6)."""

import json
import math
import struct
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

BINARY_MAGIC = 0xB1
BINARY_VERSION = 1
_TYPES = {"begin": 1, "points": 2, "end": 3, "cancel": 4, "close": 5}
_NAMES = {value: key for key, value in _TYPES.items()}
_HEADER = struct.Struct("<BBBBIIHH")

Point = Union[Tuple[float, float, float], Tuple[float, float, float, float], Sequence[float]]


def check_point(point: Point) -> List[float]:
    """The point as a list of floats, ``[x, y, t]`` or ``[x, y, t, pressure]``; ValueError where it is no such point
    or holds a NaN or an infinity."""
    values = [float(v) for v in point]
    if len(values) not in (3, 4):
        raise ValueError("a point is (x, y, t) or (x, y, t, pressure)")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("point values must be finite")
    return values


#: The largest magnitude a binary payload's 32-bit ``x``, ``y`` and ``pressure`` carry; beyond, they would read
#: back as infinite (the worker then refuses the message, ``non_finite``).
FLOAT32_MAX = 3.4028234663852886e38


def binary_can_carry(points: Iterable[Point]) -> bool:
    """Whether the binary form carries ``points`` (finite ones) without turning a coordinate or a pressure into an
    infinity: each within 32-bit floats' range. Where it cannot, :class:`Producer` sends JSON instead."""
    return all(abs(float(v)) <= FLOAT32_MAX for p in points for i, v in enumerate(p) if i != 2)


def _check_numbering(seq: Optional[int], stroke: Optional[int], pointer: int) -> None:
    """Refuses numbers the wire cannot carry: ``seq`` and ``stroke`` are 32-bit, ``pointer`` 16-bit, none negative
    (the worker would refuse the message; the binary form could not even be packed)."""
    for name, value, bits in (("seq", seq, 32), ("stroke", stroke, 32), ("pointer", pointer, 16)):
        if value is not None and (isinstance(value, bool) or not 0 <= int(value) < 1 << bits):
            raise ValueError("%s is a whole number from 0 to %d, got %r" % (name, (1 << bits) - 1, value))


def _valid_name(name: str) -> bool:
    """A gesture's name: 1 to 64 UTF-8 bytes, other than ``"*"``."""
    return 0 < len(name.encode("utf-8")) <= 64 and name != "*"


def _check_gestures(gestures: Any) -> Any:
    """``"*"``, or a list of 1 to 32 gesture names (each 1 to 64 UTF-8 bytes, other than ``"*"``)."""
    if gestures == "*":
        return gestures
    if isinstance(gestures, str) or not isinstance(gestures, (list, tuple)) or not 0 < len(gestures) <= 32:
        raise ValueError("gestures is '*' or a list of 1 to 32 gesture names")
    for name in gestures:
        if not isinstance(name, str) or not 0 < len(name.encode("utf-8")) <= 64 or name == "*":
            raise ValueError("a gesture's name is 1 to 64 UTF-8 bytes, other than '*'")
    return list(gestures)


# Both forms (Protocol/README.md, section 4): the worker answers such a message with invalid_field. Before version
# 1.12 it went out, taking a sequence number.
_EMPTY_POINTS = "a points message carries at least one point"


def encode_json(
    kind: str,
    seq: Optional[int],
    stroke: Optional[int] = None,
    pointer: int = 0,
    points: Iterable[Point] = (),
    **options: Any,
) -> bytes:
    """Encode an input message in the JSON form.

    ``options`` are the fields of an ``options`` message: ``library``, ``orientation``, ``checkmark``,
    ``forget`` (a learned gesture's name, or ``"*"`` for all), ``multistroke`` (milliseconds a gesture waits for
    its next stroke, 0 to 10000), ``gestures`` (the only gestures the session's strokes may match: a list of 1 to 32
    names, or ``"*"`` for all of them again), ``minimumSize`` (in the producer's coordinates, what the longer side of
    a stroke's bounding box must reach for it to be matched: smaller, a tap, it gets a ``nomatch`` ``too_small``;
    0 matches every stroke), ``followTilt`` (``True`` or ``False``: whether the checkmark detector judges the
    session's strokes turned back by the tilt its matches show; ``False`` also forgets the estimate),
    ``minimumScore`` (0 to 1: the score the session's strokes must reach to match, as well as their library's
    threshold; 0 leaves the library's alone), ``gestureScores`` (a dict of at most 32 gesture names to scores from 0
    to 1: the score each of those gestures needs, as well as its library's threshold and ``minimumScore``; ``{}``
    drops them), ``tilt`` (a whole number of degrees from -45 to 45, clockwise on a screen whose y grows downward:
    the tilt of the player's hand that the session's estimate starts from, as a ``closed`` event's ``tilt`` gave
    it); and for an ``end`` message ``learn`` (the name under which the session learns
    the stroke instead of matching it) and ``last`` (``True``: the stroke ends its session's gesture).

    ``seq`` may be ``None`` in a ``ping`` alone, which is outside the session's numbering (its ``pong`` then
    answers ``seq`` null).
    """
    if kind not in _TYPES and kind not in ("options", "ping"):
        raise ValueError("unknown message type %r" % kind)
    _check_numbering(seq, stroke, pointer)
    message: Dict[str, Any] = {"type": kind}
    if seq is not None:
        message["seq"] = int(seq)
    elif kind != "ping":
        raise ValueError("%s needs a seq" % kind)
    if kind in ("begin", "points", "end", "cancel"):
        if stroke is None:
            raise ValueError("%s needs a stroke id" % kind)
        message["stroke"] = int(stroke)
        if pointer:
            message["pointer"] = int(pointer)
    encoded_points = [check_point(p) for p in points]
    if kind == "points" and not encoded_points:
        raise ValueError(_EMPTY_POINTS)
    if encoded_points:
        message["points"] = encoded_points
    # Checked here as the other options are (before version 1.9 they went out as given: the worker answered a bad
    # one with an error event, and reteach() sent it again).
    if options.get("library") is not None:
        if not isinstance(options["library"], str) or not options["library"]:
            raise ValueError("library is the name of a template library the worker loaded, a non-empty string")
        message["library"] = options["library"]
    if options.get("orientation") is not None:
        if options["orientation"] not in ("sensitive", "invariant"):
            raise ValueError("orientation is 'sensitive' or 'invariant', got %r" % (options["orientation"],))
        message["orientation"] = options["orientation"]
    if options.get("forget") is not None:
        forget = options["forget"]
        if not isinstance(forget, str) or not (forget == "*" or _valid_name(forget)):
            raise ValueError("forget is a learned gesture's name (1 to 64 UTF-8 bytes) or '*' for all of them")
        message["forget"] = forget
    for switch in ("checkmark", "followTilt"):
        if options.get(switch) is not None:
            if not isinstance(options[switch], bool):
                raise ValueError("%s is True or False" % switch)
            message[switch] = options[switch]
    if options.get("tilt") is not None:
        tilt = options["tilt"]
        if isinstance(tilt, bool) or not isinstance(tilt, int) or not -45 <= tilt <= 45:
            raise ValueError("tilt is a whole number of degrees from -45 to 45")
        message["tilt"] = tilt
    if options.get("minimumScore") is not None:
        score = options["minimumScore"]
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
            raise ValueError("minimumScore is a score from 0 to 1")
        message["minimumScore"] = score
    if options.get("gestureScores") is not None:
        scores = options["gestureScores"]
        if not isinstance(scores, dict) or len(scores) > 32 or not all(
                isinstance(name, str) and _valid_name(name) and not isinstance(score, bool)
                and isinstance(score, (int, float)) and 0 <= score <= 1 for name, score in scores.items()):
            raise ValueError("gestureScores is a dict of at most 32 gesture names to scores from 0 to 1")
        message["gestureScores"] = dict(scores)
    if options.get("multistroke") is not None:
        gap = options["multistroke"]
        if isinstance(gap, bool) or not isinstance(gap, int) or not 0 <= gap <= 10000:
            raise ValueError("multistroke is a whole number of milliseconds from 0 to 10000")
        message["multistroke"] = gap
    if options.get("gestures") is not None:
        message["gestures"] = _check_gestures(options["gestures"])
    if options.get("minimumSize") is not None:
        size = options["minimumSize"]
        if isinstance(size, bool) or not isinstance(size, (int, float)) or not 0 <= size < float("inf"):
            raise ValueError("minimumSize is a finite size of at least 0, in the producer's coordinates")
        message["minimumSize"] = size
    if options.get("last"):
        if kind != "end":
            raise ValueError("last is a field of end messages")
        message["last"] = True
    if options.get("learn") is not None:
        if kind != "end":
            raise ValueError("learn is a field of end messages")
        name = options["learn"]
        if not isinstance(name, str) or not 0 < len(name.encode("utf-8")) <= 64 or name == "*":
            raise ValueError("a learned gesture's name is 1 to 64 UTF-8 bytes, other than '*'")
        message["learn"] = name
    # The worker answers an options message of no option with invalid_field (before version 1.12 set_options()
    # sent one, taking a sequence number).
    if kind == "options" and not _OPTION_FIELDS & message.keys():
        raise ValueError("an options message sets at least one of %s" % ", ".join(sorted(_OPTION_FIELDS)))
    return json.dumps(message, separators=(",", ":")).encode("utf-8")


_OPTION_FIELDS = frozenset(("library", "orientation", "checkmark", "followTilt", "tilt", "forget", "multistroke",
                            "gestures", "minimumSize", "minimumScore", "gestureScores"))


def encode_binary(kind: str, seq: int, stroke: int = 0, pointer: int = 0, points: Iterable[Point] = (),
                  last: bool = False) -> bytes:
    """Encode an input message in the compact little-endian binary form (not for ``options``). ``last`` (flag
    bit 1, ``end`` only): the stroke ends its session's gesture."""
    if kind not in _TYPES:
        raise ValueError("binary messages are begin, points, end, cancel or close")
    if last and kind != "end":
        raise ValueError("last is a field of end messages")
    _check_numbering(seq, stroke, pointer)
    encoded_points = [check_point(p) for p in points]
    if kind == "points" and not encoded_points:
        raise ValueError(_EMPTY_POINTS)
    if not binary_can_carry(encoded_points):
        raise ValueError("a binary payload carries x, y and pressure as 32-bit floats, at most %g in magnitude: "
                         "send this message as JSON" % FLOAT32_MAX)
    if len(encoded_points) > 65535:
        raise ValueError("at most 65535 points per binary message")
    pressure = any(len(p) == 4 for p in encoded_points)
    parts = [_HEADER.pack(BINARY_MAGIC, BINARY_VERSION, _TYPES[kind], (1 if pressure else 0) | (2 if last else 0), seq, stroke, pointer,
                          len(encoded_points))]
    for p in encoded_points:
        parts.append(struct.pack("<ffd", p[0], p[1], p[2]))
        if pressure:
            parts.append(struct.pack("<f", p[3] if len(p) == 4 else 0.0))
    return b"".join(parts)


def decode_binary(payload: bytes) -> Dict[str, Any]:
    """Decode a binary input message into the fields of its JSON form."""
    if len(payload) < _HEADER.size or payload[0] != BINARY_MAGIC:
        raise ValueError("malformed_binary: too short or no magic byte")
    magic, version, kind, flags, seq, stroke, pointer, count = _HEADER.unpack_from(payload)
    if version != BINARY_VERSION:
        raise ValueError("unsupported_version: %d" % version)
    if kind not in _NAMES:
        raise ValueError("unknown_type: %d" % kind)
    if flags & ~3:
        raise ValueError("malformed_binary: unknown flags 0x%02x" % flags)
    if flags & 2 and _NAMES.get(kind) != "end":
        raise ValueError("malformed_binary: the last-stroke flag belongs to end messages")
    if kind == 2 and count == 0:
        raise ValueError("invalid_field: a points message needs points")
    stride = 20 if flags & 1 else 16
    if len(payload) != _HEADER.size + count * stride:
        raise ValueError("malformed_binary: length does not match the point count")
    points = []
    offset = _HEADER.size
    for _ in range(count):
        x, y, t = struct.unpack_from("<ffd", payload, offset)
        point = [x, y, t]
        if flags & 1:
            point.append(struct.unpack_from("<f", payload, offset + 16)[0])
        if not all(math.isfinite(v) for v in point):
            raise ValueError("non_finite: point values must be finite")
        points.append(point)
        offset += stride
    message = {"type": _NAMES[kind], "seq": seq, "stroke": stroke, "pointer": pointer, "points": points}
    if flags & 2:
        message["last"] = True
    return message


def decode_event(payload: bytes) -> Dict[str, Any]:
    """Decode an output event (a JSON object). Raises ``ValueError`` for a payload that is not an event of protocol
    v1, or whose ``event``, ``session``, ``eventSeq`` or ``seq`` is not of its type (section 6)."""
    try:
        event = json.loads(payload.decode("utf-8"))
    except ValueError as error:  # not UTF-8, or not JSON
        raise ValueError("not JSON: %s: %r" % (error, payload[:80])) from None
    if not isinstance(event, dict) or event.get("v") != 1 or "event" not in event:
        raise ValueError("not a wire protocol v1 event: %r" % (payload[:80],))
    for field, check, kind in _EVENT_FIELDS:
        if field in event and not check(event[field]):
            raise ValueError("%s: %r is not %s" % (field, event[field], kind))
    return event


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The fields a consumer reads to count and route events, with their types (section 6).
_EVENT_FIELDS = (
    ("event", lambda value: isinstance(value, str), "a string"),
    ("session", lambda value: value is None or isinstance(value, str), "a string or null"),
    ("eventSeq", _whole, "a whole number"),
    ("seq", lambda value: value is None or _whole(value), "a whole number or null"),
)
