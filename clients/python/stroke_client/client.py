"""Producer and consumer sockets for stroke-worker (Protocol/README.md, sections 1, 5, 6 and 8)."""

import collections
import logging
import random
import time
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

import zmq
import zmq.asyncio

from .codec import Point, binary_can_carry, check_point, decode_event, encode_binary, encode_json
from .curve import CurveKeys
from .handshakes import _Handshakes
from .shard import BUCKET_COUNT, _encoded, bucket, topic

#: The most points one message carries (the binary form counts them in 16 bits; a worker's
#: ``--max-points-per-message`` is at most this, 4,096 by default).
MAX_POINTS_PER_MESSAGE = 65535

# The high-water mark of a producer's XPUB for the (un)subscriptions it receives (Producer).
SUBSCRIPTION_HIGH_WATER_MARK = 100_000


class Event:
    """One output event: its ``kind`` (``match``, ``checkmark``, ...), fields, and how many events of its
    session were lost just before it (``gap``, from ``eventSeq``)."""

    __slots__ = ("topic", "fields", "gap", "received_at")

    def __init__(self, topic: bytes, fields: Dict[str, Any], gap: int, received_at: float) -> None:
        self.topic = topic
        self.fields = fields
        self.gap = gap
        self.received_at = received_at

    @property
    def kind(self) -> str:
        """The event type."""
        return self.fields["event"]

    @property
    def session(self) -> Optional[str]:
        """The session id (``None`` for ``$system`` events)."""
        return self.fields.get("session")

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the event."""
        return self.fields.get(key, default)

    @property
    def needs_reteach(self) -> bool:
        """Whether the worker no longer holds the session's options and learned gestures, so that its producer
        should send them again (:meth:`Producer.reteach`): ``closed``, ``session_restart``, and ``session_reset``
        unless the worker brought them back from its checkpoint after a crash, or from another worker's state file
        after a change of the shard count (``"restored": true``)."""
        if self.kind == "closed":
            return True
        code = self.fields.get("code") if self.kind == "error" else None
        return code == "session_restart" or (code == "session_reset" and self.fields.get("restored") is not True)

    def __repr__(self) -> str:
        return "Event(%r, %r, gap=%d)" % (self.topic, self.fields, self.gap)


def _check_open(socket: zmq.Socket, what: str) -> None:
    """Raises ``ValueError`` (as Python's files do for I/O on a closed file) when ``socket`` is closed: before
    version 1.12 the call went on to pyzmq, whose error said only "Socket operation on non-socket" or "Operation not
    supported"."""
    if socket.closed:
        raise ValueError(what)


class Producer:
    """Sends touch strokes to stroke-worker.

    It uses an XPUB socket so that :meth:`wait_for_all_buckets` can wait for the worker's subscriptions: after it
    returns, nothing is lost to the slow joiner. Each session's sequence numbers are kept here.
    """

    def __init__(self, endpoint: str = "tcp://127.0.0.1:5555", context: Optional[zmq.Context] = None,
                 binary: bool = False, high_water_mark: int = 0, bind: bool = False,
                 curve: Optional[CurveKeys] = None, ipv6: bool = False) -> None:
        _check_endpoint(endpoint, binding=bind)  # before a socket exists that would then be left open
        self._context = context or zmq.Context.instance()
        self.socket = self._context.socket(zmq.XPUB)
        self.socket.setsockopt(zmq.SNDHWM, high_water_mark)
        # (Un)subscriptions arrive as messages, up to 4,096 per worker and twice that at a change of the shard count.
        # This XPUB acts on them as it reads them: above their number it takes them all in one read, instead of a
        # thousand at a time (the default high-water mark) while the rest wait in the connection.
        self.socket.setsockopt(zmq.RCVHWM, SUBSCRIPTION_HIGH_WATER_MARK)
        self.socket.setsockopt(zmq.LINGER, 2000)
        self._handshakes: Optional[_Handshakes] = None
        if curve is not None:
            curve.apply(self.socket)
            self._handshakes = _Handshakes(self.socket)
        _allow_ipv6(self.socket, endpoint, ipv6)
        (self.socket.bind if bind else self.socket.connect)(endpoint)
        # Where it binds or connects, with the port the system chose for a bind to port 0.
        self.endpoint = self.socket.getsockopt_string(zmq.LAST_ENDPOINT) or endpoint
        self.binary = binary
        self._sequences: Dict[str, int] = {}
        self._strokes: Dict[str, int] = {}
        # What each session was sent to learn, (name, strokes), and the options it was set, for reteach().
        self._taught: Dict[str, List[Tuple[str, List[List[Point]]]]] = {}
        self._options: Dict[str, Dict[str, Any]] = {}
        # Every subscription that arrived, in order; and the prefixes subscribed now (unsubscriptions taken out).
        self.subscriptions: List[bytes] = []
        self._subscribed: Set[bytes] = set()

    def __enter__(self) -> "Producer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket (pending messages linger up to 2 s)."""
        if self._handshakes is not None:
            self._handshakes.close()
        self.socket.close()

    def _poll(self, timeout_ms: int) -> bool:
        """Wait for a subscription message; with CURVE, raise :class:`KeyRefused` if the worker refused the key."""
        if self._handshakes is not None:
            return self._handshakes.wait(timeout_ms)
        return bool(self.socket.poll(timeout_ms))

    def _take(self, frame: bytes) -> None:
        """Note a subscription (``0x01`` and the prefix) or an unsubscription (``0x00``) that arrived."""
        if frame[:1] == b"\x01":
            self.subscriptions.append(frame[1:])
            self._subscribed.add(frame[1:])
        elif frame[:1] == b"\x00":
            self._subscribed.discard(frame[1:])

    def subscribed_buckets(self) -> Set[int]:
        """The shard buckets that the subscriptions in force now cover, once every (un)subscription that has
        arrived is read: a bucket without one is a bucket whose messages this XPUB drops."""
        while self._poll(0):
            self._take(self.socket.recv())
        if b"" in self._subscribed:
            return set(range(BUCKET_COUNT))
        covered = set()
        for prefix in self._subscribed:
            try:
                covered.add(int(prefix[:3], 16))
            except ValueError:
                pass
        return covered

    def wait_for_worker(self, timeout: float = 10.0, prefixes: int = 1) -> None:
        """Block until ``prefixes`` subscriptions arrived from workers (one worker serving all shards sends one;
        with several lanes or workers, use :meth:`wait_for_all_buckets`).

        Raises ``TimeoutError`` if none arrives in ``timeout`` seconds, :class:`KeyRefused` if the worker refused
        this client's CURVE key.
        """
        deadline = time.monotonic() + timeout
        while len(self.subscriptions) < prefixes:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._poll(int(remaining * 1000)):
                raise TimeoutError("no subscription from a worker within %.1f s" % timeout)
            self._take(self.socket.recv())

    def wait_for_all_buckets(self, timeout: float = 10.0) -> None:
        """Block until the subscriptions in force cover every one of the 4,096 shard buckets.

        A worker with one lane subscribes to everything at once; a worker with several lanes, or several workers
        behind a proxy, subscribe to their buckets' prefixes one by one, and until a bucket's subscription has
        arrived, this XPUB drops what is sent to it. A worker that stops takes its subscriptions with it, and its
        successor's arrive after its start: call this again after workers restart or the shard count changes,
        before sending. Raises ``TimeoutError`` after ``timeout`` seconds, :class:`KeyRefused` if the worker
        refused this client's CURVE key.
        """
        deadline = time.monotonic() + timeout
        while True:
            covered = len(self.subscribed_buckets())
            if covered >= BUCKET_COUNT:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._poll(int(remaining * 1000)):
                raise TimeoutError("subscriptions cover %d of %d buckets after %.1f s: %s"
                                   % (covered, BUCKET_COUNT, timeout, self._missing_buckets_hint()))

    def _missing_buckets_hint(self) -> str:
        """What the buckets without a subscription suggest: no worker at all, or the shards i/N that no worker
        serves (the missing buckets are exactly those with bucket mod N = i), else the first few missing."""
        covered = self.subscribed_buckets()
        if not covered:
            return ("no worker subscribed through %s: is one running and reachable there (its input endpoint, or "
                    "the input proxy's), and with CURVE, is this its public key?" % self.endpoint)
        missing = set(range(BUCKET_COUNT)) - covered
        for count in range(2, 65):
            indices = sorted({bucket % count for bucket in missing})
            if len(indices) < count and all(bucket % count not in indices for bucket in covered):
                shards = ", ".join("%d/%d" % (index, count) for index in indices)
                return "no worker serves shard %s (buckets mod %d = %s)" % (
                    shards, count, ", ".join(str(index) for index in indices))
        return "missing buckets %s%s" % (", ".join(str(bucket) for bucket in sorted(missing)[:8]),
                                          ", ..." if len(missing) > 8 else "")

    def _unanswered_hint(self, sessions: Sequence[str], consumer_endpoint: str) -> str:
        """Which half of the way pings of ``sessions`` went unanswered on, from the subscriptions that reached this
        producer: no worker subscribed here, none to these sessions' buckets, or the answers did not reach the
        consumer at ``consumer_endpoint``."""
        covered = self.subscribed_buckets()
        if not covered:
            return ("no worker has subscribed at the producer's %s: is one running and reachable there (its input "
                    "endpoint, or the input proxy's)?" % self.endpoint)
        uncovered = sorted({bucket(session) for session in sessions} - covered)
        if uncovered:
            return ("no worker subscribed at the producer's %s to bucket %s of these sessions (%d of %d buckets "
                    "covered): wait_for_all_buckets() waits until every bucket is"
                    % (self.endpoint, ", ".join(str(number) for number in uncovered[:8]), len(covered),
                       BUCKET_COUNT))
        return ("a worker subscribed at the producer's %s, so its answers did not reach this consumer at %s: is that "
                "the worker's output endpoint (or the results proxy's), and reachable?"
                % (self.endpoint, consumer_endpoint))

    def next_seq(self, session: str) -> int:
        """The next sequence number of ``session`` (1, 2, 3, ...)."""
        value = self._sequences.get(session, 0) + 1
        self._sequences[session] = value
        return value

    def send(self, session: str, kind: str, stroke: Optional[int] = None, pointer: int = 0,
             points: Sequence[Point] = (), seq: Optional[int] = None, binary: Optional[bool] = None,
             **options: Any) -> int:
        """Send one message; returns its sequence number. With CURVE, raises :class:`KeyRefused` once the worker
        has refused this client's key (looked at every 64 messages: a refused producer has no connection, and what
        it sends is lost)."""
        _check_open(self.socket, "send on a closed Producer")
        if self._handshakes is not None:
            self._handshakes.check_sometimes()
        numbered = seq is None
        seq = self._sequences.get(session, 0) + 1 if numbered else seq
        use_binary = self.binary if binary is None else binary
        # Binary where the binary form carries the message: not options, a stroke to learn, or coordinates beyond
        # 32-bit floats. A message refused here takes no sequence number, so that the session's numbering stays
        # without a gap.
        points = list(points)
        # The binary form has room for stroke 0 where JSON has no stroke: refused in both, as encode_json refuses
        # it (before version 1.12 a binary producer sent stroke 0 for a begin, points, end or cancel without one).
        if stroke is None and kind in ("begin", "points", "end", "cancel"):
            raise ValueError("%s needs a stroke id" % kind)
        if len(points) > MAX_POINTS_PER_MESSAGE:
            raise ValueError("a message carries at most %d points, got %d" % (MAX_POINTS_PER_MESSAGE, len(points)))
        if use_binary and kind != "options" and options.get("learn") is None and binary_can_carry(points):
            payload = encode_binary(kind, seq, stroke or 0, pointer, points, last=bool(options.get("last")))
        else:
            payload = encode_json(kind, seq, stroke, pointer, points, **options)
        self.socket.send_multipart([topic(session), payload])
        if numbered:
            self._sequences[session] = seq
        return seq

    def ping(self, session: str, seq: Optional[int] = None) -> None:
        """Send a ``ping`` for ``session``: the worker that holds the session's bucket answers with a ``pong`` event
        on the session's topic (``eventSeq`` 0; ``seq`` the one given here, or null; ``shard``, the worker's; and
        ``known``, whether it holds state for the session). It uses none of the session's sequence numbers and
        creates no state; for a session the worker holds, it counts as activity (the session is not closed as
        idle). A way to check the route to the worker and back, or to keep a pausing session open."""
        _check_open(self.socket, "ping on a closed Producer")
        if self._handshakes is not None:
            self._handshakes.check_sometimes()
        self.socket.send_multipart([topic(session), encode_json("ping", seq)])

    def new_stroke_id(self, session: str) -> int:
        """A fresh stroke id for ``session``."""
        value = self._strokes.get(session, 0) + 1
        self._strokes[session] = value
        return value

    def send_stroke(self, session: str, points: Sequence[Point], batch: int = 1, pointer: int = 0,
                    stroke: Optional[int] = None, pace: bool = False, learn: Optional[str] = None,
                    last: bool = False) -> int:
        """Send a whole stroke: ``begin`` with the first point, ``points`` messages of ``batch`` points, and
        ``end``. With ``pace``, sleep between messages to follow the points' timestamps (milliseconds). With
        ``learn``, the session learns the stroke as a gesture of that name (a ``learned`` event) instead of
        matching it; its later strokes are matched against it too. In a session that groups strokes into
        gestures (``set_options(multistroke=...)``), ``last`` ends the gesture with this stroke. Returns the
        stroke id."""
        stroke = self._send_stroke(session, points, batch, pointer, stroke, pace, learn=learn, last=last)
        if learn is not None:
            self._taught.setdefault(session, []).append((learn, [list(points)]))
        return stroke

    def send_gesture(self, session: str, strokes: Sequence[Sequence[Point]], batch: int = 32,
                     learn: Optional[str] = None) -> List[int]:
        """Send a gesture of several strokes, one after another, the last ``end`` with ``last`` so that the worker
        matches them together at once, without waiting for more; or with ``learn``, so that the session learns
        the whole gesture (Protocol/README.md, section 4.2). The session must group strokes:
        ``set_options(session, multistroke=MS)``, or a worker started with ``--multistroke MS``. Returns the
        strokes' ids."""
        if not strokes:
            raise ValueError("a gesture needs at least one stroke")
        # Every stroke before the first message: a bad point in a later one would leave the gesture open at the
        # worker, which would match the strokes sent so far as the whole gesture once it stopped waiting.
        checked = [_checked_stroke(points, batch) for points in strokes]
        ids = [self._send_stroke(session, points, batch) for points in checked[:-1]]
        ids.append(self._send_stroke(session, checked[-1], batch, learn=learn, last=learn is None))
        if learn is not None:
            self._taught.setdefault(session, []).append((learn, [list(points) for points in strokes]))
        return ids

    def _send_stroke(self, session: str, points: Sequence[Point], batch: int, pointer: int = 0,
                     stroke: Optional[int] = None, pace: bool = False, learn: Optional[str] = None,
                     last: bool = False) -> int:
        points = _checked_stroke(points, batch)
        stroke = self.new_stroke_id(session) if stroke is None else stroke
        self.send(session, "begin", stroke, pointer, points[:1])
        started = time.monotonic()
        t0 = float(points[0][2])
        body = points[1:]
        for start in range(0, len(body), batch):
            chunk = body[start:start + batch]
            if pace:
                wait = (float(chunk[-1][2]) - t0) / 1000.0 - (time.monotonic() - started)
                if wait > 0:
                    time.sleep(wait)
            self.send(session, "points", stroke, pointer, chunk)
        self.send(session, "end", stroke, pointer, learn=learn, last=last)
        return stroke

    def reteach(self, session: str, batch: int = 32) -> int:
        """Restore ``session`` in a worker that forgot it, as after a ``closed``, ``session_restart`` or
        ``session_reset`` event: the worker keeps a session's options and learned gestures only as long as its
        state (Protocol/README.md, sections 4 and 4.1). Sends one ``options`` message with the latest value of
        each option :meth:`set_options` set for it (library, orientation, checkmark, tilt following, multistroke,
        gestures, minimum size, minimum score, gesture scores), then every stroke or gesture it was sent to learn and has not been told to forget. A gesture of
        several strokes is sent with the session's grouping on (``multistroke``: 1000 ms if it was never set here).
        Returns how many gestures were sent."""
        taught = self._taught.pop(session, [])
        options = dict(self._options.get(session, {}))
        if any(len(strokes) > 1 for _, strokes in taught) and not options.get("multistroke"):
            options["multistroke"] = 1000
        if options:
            self.set_options(session, **options)
        for name, strokes in taught:
            if len(strokes) == 1:
                self.send_stroke(session, strokes[0], batch=batch, learn=name)
            else:
                self.send_gesture(session, strokes, batch=batch, learn=name)
        return len(taught)

    def set_options(self, session: str, library: Optional[str] = None, orientation: Optional[str] = None,
                    checkmark: Optional[bool] = None, forget: Optional[str] = None,
                    multistroke: Optional[int] = None, gestures: Optional[Union[str, Sequence[str]]] = None,
                    minimum_size: Optional[float] = None, follow_tilt: Optional[bool] = None,
                    minimum_score: Optional[float] = None,
                    gesture_scores: Optional[Dict[str, float]] = None, tilt: Optional[int] = None) -> int:
        """Send an ``options`` message (JSON). ``forget`` drops the session's learned gesture of that name
        (``"*"``: all of them). ``multistroke`` (milliseconds, 0 to 10000) groups the session's strokes into
        gestures of several strokes that wait that long for their next stroke; 0 matches every stroke alone.
        ``gestures`` (1 to 32 names) makes the session's strokes match only the gestures of those names, of its
        library and of those it learned (a game that expects one of a few spells now); ``"*"`` lifts that.
        ``minimum_size`` (in this producer's coordinates): a stroke whose bounding box is smaller on both sides, a
        tap or a finger's rest, gets a ``nomatch`` with reason ``too_small`` instead of a match; 0 matches every
        stroke. ``follow_tilt``: whether the checkmark detector, and the library unless the worker runs with
        ``--match-follow-tilt off``, judge the session's strokes turned back by the tilt its matches show (the
        worker's ``--checkmark-follow-tilt`` is the default); ``False`` also forgets the tilt
        estimated so far, as for a device handed to another player. ``minimum_score`` (0 to 1): the score the
        session's strokes must reach to match, as well as their library's own threshold (the higher applies), for a
        moment when a gesture must be drawn well; 0 leaves the library's alone. ``gesture_scores`` (a dict of at most
        32 gesture names to scores from 0 to 1): the score each of those gestures needs, as well as its library's
        threshold and ``minimum_score`` (the highest applies), for one spell that must be drawn well among others
        that need not be; it replaces the session's earlier ones, and ``{}`` drops them. ``tilt`` (whole degrees,
        -45 to 45): the tilt of the player's hand that the session's estimate starts from, as if its matches had
        shown it, so that the first strokes of a player whose tilt a game kept (a ``closed`` event's ``tilt``) are
        judged turned back at once; only where the session follows its tilt."""
        seq = self.send(session, "options", library=library, orientation=orientation, checkmark=checkmark,
                        forget=forget, multistroke=multistroke, gestures=gestures, minimumSize=minimum_size,
                        followTilt=follow_tilt, minimumScore=minimum_score, gestureScores=gesture_scores,
                        tilt=tilt, binary=False)
        # Forgotten once sent (an option the encoder refused forgets nothing).
        if forget is not None and session in self._taught:
            self._taught[session] = [(name, strokes) for name, strokes in self._taught[session]
                                     if forget != "*" and name != forget]
        # Remembered once sent (the encoder checked them), for reteach().
        remembered = self._options.setdefault(session, {})
        if follow_tilt is False or (follow_tilt and remembered.get("follow_tilt") is False):
            remembered.pop("tilt", None)  # following turned off, or on again, starts the estimate over
        for name, value in (("library", library), ("orientation", orientation), ("checkmark", checkmark),
                            ("multistroke", multistroke), ("gestures", gestures), ("minimum_size", minimum_size),
                            ("follow_tilt", follow_tilt), ("minimum_score", minimum_score),
                            ("gesture_scores", gesture_scores), ("tilt", tilt)):
            if value is not None:
                remembered[name] = list(value) if name == "gestures" and value != "*" else (
                    dict(value) if name == "gesture_scores" else value)
        if remembered.get("gestures") == "*":
            del remembered["gestures"]  # every gesture: what a restarted session has anyway
        return seq

    def forget(self, session: str) -> None:
        """Start ``session``'s numbering over, as a restarted producer does: its next message is seq 1, and the
        worker, if it still holds the session, answers ``session_restart`` and starts it afresh (open strokes
        dropped, options back to their defaults). A way out after ``sequence_late`` errors."""
        self._sequences.pop(session, None)
        self._strokes.pop(session, None)

    def close_session(self, session: str) -> int:
        """Send ``close``: the worker drops the session's state. The session's numbering then starts over, so
        that a later message to it begins a new session (without a ``session_reset`` error)."""
        seq = self.send(session, "close")
        self.forget(session)
        self._taught.pop(session, None)
        self._options.pop(session, None)
        return seq


def _checked_stroke(points: Sequence[Point], batch: int) -> List[List[float]]:
    """The stroke's points as :func:`check_point` gives them, every one checked before its first message is sent:
    a bad point halfway would leave the stroke open at the worker. ValueError for a stroke of no points, or a
    ``batch`` outside 1 to 65,535 points a message (the most a message carries)."""
    if not points:
        raise ValueError("a stroke needs at least one point")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_POINTS_PER_MESSAGE:
        raise ValueError("batch: 1 to %d points a message, got %r" % (MAX_POINTS_PER_MESSAGE, batch))
    return [check_point(point) for point in points]


def _subscriber(context: zmq.Context, endpoint: str, prefixes: Sequence[str], system: bool,
                curve: Optional[CurveKeys], ipv6: bool = False) -> Tuple[zmq.Socket, Optional[_Handshakes]]:
    """A SUB socket of ``context`` (plain or asyncio) connected to ``endpoint`` with these subscriptions, and with
    CURVE, the watch on its handshakes."""
    _check_endpoint(endpoint, binding=False)
    subscribed = _subscribed_prefixes(prefixes, system)  # checked before the socket is made
    socket = context.socket(zmq.SUB)
    socket.setsockopt(zmq.RCVHWM, 0)
    socket.setsockopt(zmq.LINGER, 0)
    handshakes = None
    if curve is not None:
        curve.apply(socket)
        handshakes = _Handshakes(socket)
    for prefix in subscribed:
        socket.setsockopt(zmq.SUBSCRIBE, prefix)
    _allow_ipv6(socket, endpoint, ipv6)
    socket.connect(endpoint)
    return socket, handshakes


def _check_endpoint(endpoint: str, binding: bool) -> None:
    """Raises ``ValueError`` for an endpoint libzmq would misread, as the worker refuses it: libzmq 4.3 keeps a TCP
    port's low 16 bits and ignores what follows its digits, so ``tcp://127.0.0.1:99999`` dials (or binds) port 34463
    and ``:5555x`` port 5555. A TCP port must be decimal digits in 1-65535 (``*`` or ``0`` to bind any free port); an
    endpoint needs ``TRANSPORT://``. TypeError for one that is no str (before version 1.13 a list or ``None`` was an
    ``AttributeError`` about ``partition``, and bytes a ``TypeError`` about bytes-like objects)."""
    if not isinstance(endpoint, str):
        raise TypeError("an endpoint is a str, such as 'tcp://127.0.0.1:5555', got %s %r"
                        % (type(endpoint).__name__, endpoint))
    transport, separator, address = endpoint.partition("://")
    if not separator or not transport:
        raise ValueError(f"{endpoint}: expected TRANSPORT://ADDRESS: tcp://HOST:PORT, ipc://PATH or inproc://NAME")
    if transport != "tcp":
        return
    address = address.split(";")[-1]  # SOURCE;HOST:PORT: the destination's port
    host, colon, port = address.rpartition(":")
    if not colon or not host or address.endswith("]"):
        raise ValueError(f"{endpoint}: expected tcp://HOST:PORT")
    if not binding and host == "*":  # libzmq says only "Invalid argument"
        raise ValueError(f"{endpoint}: * (every address) is for binding; a connect needs the host to reach, as "
                         "127.0.0.1")
    if binding and port == "*":
        return
    if not (port.isascii() and port.isdigit() and int(port) <= 65535 and (binding or int(port) > 0)):
        any_port = " (or * or 0 to bind any free port)" if binding else ""
        raise ValueError(f"{endpoint}: the port must be a number in 1...65535{any_port}, got {port!r}")


def _allow_ipv6(socket: zmq.Socket, endpoint: str, asked: bool = False) -> None:
    """Turns libzmq's IPv6 option on where asked (``ipv6=True``: a host name then resolves to IPv6 addresses too, as
    on an IPv6-only network) and for an endpoint with an IPv6 address (``tcp://[::1]:5556``), which libzmq refuses
    without it; other endpoints keep libzmq's default (IPv4 only)."""
    if asked or endpoint.startswith("tcp://["):
        socket.setsockopt(zmq.IPV6, 1)


def _log_undecodable(topic: bytes, error: ValueError) -> None:
    """What a consumer does by default with a message that is not an event: logs it, and goes on."""
    logging.getLogger("stroke_client").warning("skipped a message that is not an event: %s", error)


def _late_read_check(event: "Event", markers: Set[int]) -> bool:
    """Whether ``event`` is the pong of a ping that ``wait_until_read`` sent again, arriving after the wait."""
    return event.kind == "pong" and event.get("seq") in markers


def _encoded_ids(ids: Sequence[str], what: str) -> List[bytes]:
    """The UTF-8 bytes of each session id or prefix of ``ids``. TypeError for ``ids`` given as one str (or bytes)
    instead of a list: iterated, its characters would each be one, and ``prefixes="room-7/"`` subscribed to every
    session that starts with ``r``, ``o``, ``m``, ``-``, ``7`` or ``/`` (before version 1.13 it did, and a room's
    consumer took in other rooms' events; ``wait_until_read(producer, "player-1")`` pinged sessions ``p``, ``l``,
    ... and returned before that session's events were in); also for an element that is no str. ValueError for one
    UTF-8 cannot carry (a lone surrogate)."""
    if isinstance(ids, (str, bytes)):
        raise TypeError("%s is a list of str, such as [%r], not a %s itself" % (what, ids, type(ids).__name__))
    for value in ids:
        if not isinstance(value, str):
            raise TypeError("%s holds str, not %s %r" % (what, type(value).__name__, value))
    return [_encoded(value, "each of " + what) for value in ids]


def _subscribed_prefixes(prefixes: Sequence[str], system: bool) -> List[bytes]:
    """The topic prefixes a consumer subscribed to, as ``_subscriber`` subscribes them. ValueError for one longer
    than any session id (128 bytes of UTF-8), which would match no event (version 1.14; a worker disconnects a
    consumer whose subscription passes 1 KiB, and its libzmq connected again and again)."""
    subscribed = _encoded_ids(prefixes, "prefixes")
    for prefix in subscribed:
        if len(prefix) > 128:
            shown = prefix.decode("utf-8")
            shown = shown if len(shown) <= 40 else shown[:40] + "..."
            raise ValueError("the prefix %r is %d bytes, longer than any session id (128): it would match no event"
                             % (shown, len(prefix)))
    return subscribed + [b"$system"] if system else subscribed


class _Sequencer:
    """Turns received frames into events, noting per session how many events were lost before each (``gap``).

    It holds each session's last ``eventSeq`` until the session's ``closed`` event (a session that starts again
    counts from 1), so that a consumer that runs for weeks holds the sessions open now, not every one it saw."""

    def __init__(self, on_gap: Any) -> None:
        self.on_gap = on_gap
        self.last: Dict[str, int] = {}
        self.gaps = 0

    def event(self, frames: List[bytes]) -> Event:
        received_at = time.monotonic()
        topic = frames[0].decode("utf-8", "replace")
        if len(frames) != 2:
            raise ValueError("a message of %d frames on topic %s, not [topic, event]" % (len(frames), topic))
        try:
            fields = decode_event(frames[1])
        except ValueError as error:
            raise ValueError("an event on topic %s: %s" % (topic, error)) from None
        gap = 0
        session = fields.get("session")
        number = fields.get("eventSeq", 0)
        if session is not None and number:
            last = self.last.get(session)
            if last is not None and number > last + 1:
                gap = number - last - 1
                self.gaps += gap
                if self.on_gap:
                    self.on_gap(session, last, number)
            if fields.get("event") == "closed":
                self.last.pop(session, None)
            else:
                self.last[session] = number
        return Event(frames[0], fields, gap, received_at)


class _Probe:
    """A probe session for ``wait_until_subscribed``: subscribed to on ``socket`` until ``end()``; each ``send``
    sends the worker a ``ping`` for it, whose ``pong`` ``answered`` recognizes (or the ``unknown_type`` error of a
    worker older than the ping, on the same topic)."""

    def __init__(self, socket: zmq.Socket, timeout: float, endpoint: str) -> None:
        self.socket = socket
        self.endpoint = endpoint
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.session = ("probe-%d-%d" % (id(socket), int(time.monotonic() * 1000))).encode()
        socket.setsockopt(zmq.SUBSCRIBE, self.session)

    def send(self, producer: "Producer") -> None:
        if time.monotonic() > self.deadline:
            raise TimeoutError("the worker did not answer the probe within %.1f s: %s"
                               % (self.timeout, producer._unanswered_hint([self.session.decode()], self.endpoint)))
        producer.ping(self.session.decode())

    def answered(self, frames: List[bytes]) -> bool:
        return frames[0] == self.session

    def end(self) -> None:
        self.socket.setsockopt(zmq.UNSUBSCRIBE, self.session)


class _ReadCheck:
    """The pings of ``wait_until_read``: each session subscribed to on ``socket`` until ``end()``, pinged with a
    ``seq`` of its own (``marker``) until its ``pong`` comes back; ``keeps`` tells which other events the consumer
    itself subscribed to, and so keeps for its caller."""

    def __init__(self, socket: zmq.Socket, sessions: Sequence[str], timeout: float,
                 prefixes: Sequence[bytes], endpoint: str) -> None:
        self.socket = socket
        self.endpoint = endpoint
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.marker = random.randrange(1 << 31, 1 << 32)  # a ping's seq is a 32-bit number
        self.waiting = set(_encoded_ids(sessions, "sessions"))
        self.prefixes = prefixes
        self.added = sorted(self.waiting)
        self.sent_at = 0.0
        for session in self.added:
            socket.setsockopt(zmq.SUBSCRIBE, session)

    def send(self, producer: "Producer") -> None:
        """Pings the sessions not answered yet: at once, then every 200 ms (a ping that went out before the
        subscription reached the worker has its pong dropped there)."""
        now = time.monotonic()
        if now > self.deadline:
            missing = sorted(session.decode("utf-8", "replace") for session in self.waiting)
            raise TimeoutError("no pong within %.1f s for: %s (%s)" % (
                self.timeout, ", ".join(missing), producer._unanswered_hint(missing, self.endpoint)))
        if now - self.sent_at >= 0.2:
            self.sent_at = now
            for session in self.waiting:
                producer.ping(session.decode("utf-8"), seq=self.marker)

    def answered(self, frames: List[bytes]) -> bool:
        """Whether ``frames`` is the pong of one of these pings (that session is then no longer waited for)."""
        if len(frames) != 2 or frames[0] not in self.added:
            return False
        try:
            fields = decode_event(frames[1])
        except ValueError:
            return False
        if fields.get("event") != "pong" or fields.get("seq") != self.marker:
            return False
        self.waiting.discard(frames[0])
        return True

    def keeps(self, frames: List[bytes]) -> bool:
        """Whether an event that arrived meanwhile is one the consumer subscribed to itself."""
        return any(frames[0].startswith(prefix) for prefix in self.prefixes)

    def end(self) -> None:
        for session in self.added:
            self.socket.setsockopt(zmq.UNSUBSCRIBE, session)


class _EventQueue:
    """What :class:`Consumer` and :class:`AsyncConsumer` share: events kept while they waited for pongs, and the
    filtering of the pongs of their own pings. Each twin only reads its socket, blocking or awaited."""

    #: The SUB socket, plain or asyncio, that the twin sets up.
    socket: Any

    def _start_queue(self, prefixes: Sequence[str], system: bool, on_gap: Any, on_undecodable: Any) -> None:
        self._sequencer = _Sequencer(on_gap)
        self._on_undecodable = on_undecodable or _log_undecodable
        #: How many messages were skipped that were not events (``on_undecodable``).
        self.undecodable = 0
        self._prefixes = _subscribed_prefixes(prefixes, system)
        # Events that arrived during wait_until_subscribed or wait_until_read, in order, for receive().
        self._pending: "collections.deque[List[bytes]]" = collections.deque()
        # The seq of wait_until_read's pings: a pong that comes after the wait ended (a ping sent again) is dropped.
        self._markers: Set[int] = set()
        # The probe sessions of wait_until_subscribed: their late pongs are passed over.
        self._probes: Set[bytes] = set()

    @property
    def gaps(self) -> int:
        """Events lost so far, over all sessions."""
        return self._sequencer.gaps

    @property
    def sessions_held(self) -> int:
        """Sessions whose last ``eventSeq`` the consumer holds to see gaps: those with events seen and no ``closed``
        since (what its memory grows with)."""
        return len(self._sequencer.last)

    def _deliver(self, frames: List[bytes]) -> Optional[Event]:
        """The event for the caller in ``frames``, or ``None`` for a pong of the consumer's own pings."""
        if frames[0] in self._probes:
            return None
        try:
            event = self._sequencer.event(frames)
        except ValueError as error:
            self.undecodable += 1
            self._on_undecodable(frames[0], error)
            return None
        return None if _late_read_check(event, self._markers) else event

    def _next_pending(self) -> Optional[Event]:
        """The first kept event for the caller, or ``None`` when none is left."""
        while self._pending:
            event = self._deliver(self._pending.popleft())
            if event is not None:
                return event
        return None

    def _start_probe(self, timeout: float) -> _Probe:
        probe = _Probe(self.socket, timeout, self.endpoint)
        self._probes.add(probe.session)
        return probe

    def _probed(self, probe: _Probe, frames: List[bytes]) -> bool:
        """Whether ``frames`` answers the probe; any other event is kept."""
        if probe.answered(frames):
            return True
        self._pending.append(frames)
        return False

    def _start_read_check(self, sessions: Sequence[str], timeout: float) -> _ReadCheck:
        check = _ReadCheck(self.socket, sessions, timeout, self._prefixes, self.endpoint)
        self._markers.add(check.marker)
        return check

    def _checked(self, check: _ReadCheck, frames: List[bytes]) -> None:
        """Notes a pong of the read check, or keeps an event of the consumer's own subscriptions."""
        if not check.answered(frames) and check.keeps(frames):
            self._pending.append(frames)


class Consumer(_EventQueue):
    """Receives events from stroke-worker for sessions or prefixes of session ids (a game room).

    Iterating yields :class:`Event` objects whose ``gap`` tells how many events of that session were lost
    just before (a jump in ``eventSeq``); ``on_gap`` is also called when given. :class:`AsyncConsumer` is the same
    for asyncio.

    A message that is not an event of protocol v1 (not two frames, a payload that does not decode, or an
    ``event``, ``session``, ``eventSeq`` or ``seq`` of the wrong type) is skipped, as an event lost (its session's
    next event shows the gap), and counted in ``undecodable``: one bad message costs its session an event, not the
    consumer the rest of its sessions' events. ``on_undecodable(topic, error)`` is then called with its topic
    (bytes) and the ``ValueError`` that names it; by default the error is logged as a warning to the
    ``stroke_client`` logger. A callable that raises ends ``receive()`` with what it raised (before version 1.11 the
    ``ValueError`` was raised, and ended a ``for`` loop over the consumer).
    """

    def __init__(self, endpoint: str = "tcp://127.0.0.1:5556", prefixes: Sequence[str] = ("",),
                 context: Optional[zmq.Context] = None, on_gap: Any = None, system: bool = False,
                 curve: Optional[CurveKeys] = None, ipv6: bool = False, on_undecodable: Any = None) -> None:
        self._context = context or zmq.Context.instance()
        self.socket, self._handshakes = _subscriber(self._context, endpoint, prefixes, system, curve, ipv6)
        self.endpoint = endpoint
        self._start_queue(prefixes, system, on_gap, on_undecodable)

    def __enter__(self) -> "Consumer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket."""
        if self._handshakes is not None:
            self._handshakes.close()
        self.socket.close()

    def wait_until_subscribed(self, producer: Producer, timeout: float = 10.0) -> None:
        """Make sure the worker has our subscription: ping a probe session until its ``pong`` comes back (the worker
        holds no state for the probe session). The probe's events are passed over, now and when later pongs of
        its pings come; the events of the consumer's own subscriptions that arrive meanwhile are kept for
        :meth:`receive` (before version 1.7 they were thrown away)."""
        probe = self._start_probe(timeout)
        try:
            while True:
                probe.send(producer)
                if self._poll(50) and self._probed(probe, self.socket.recv_multipart()):
                    break
        finally:
            probe.end()

    def wait_until_read(self, producer: Producer, sessions: Sequence[str], timeout: float = 10.0) -> None:
        """Make sure the workers have read everything ``producer`` has sent for ``sessions``: ping each session
        and wait for its ``pong``. A worker reads a producer's messages in the order they were sent and answers
        each session's in order, so a session's ``pong`` comes after the events of all that was sent for it
        before. A producer that exits right after sending calls this before closing (README.md, "A producer that
        closes its connection right after sending"). Events that arrive meanwhile, of the sessions this consumer
        subscribed to, are kept for :meth:`receive`; the pongs of these pings are not. Raises ``TimeoutError``
        naming the sessions not answered within ``timeout`` seconds."""
        check = self._start_read_check(sessions, timeout)
        try:
            while check.waiting:
                check.send(producer)
                if self._poll(50):
                    self._checked(check, self.socket.recv_multipart())
        finally:
            check.end()

    def _poll(self, timeout_ms: Optional[int]) -> bool:
        """Wait for an event; with CURVE, raise :class:`KeyRefused` if the server refused the key."""
        if self._handshakes is not None:
            return self._handshakes.wait(timeout_ms)
        return timeout_ms is None or bool(self.socket.poll(timeout_ms))

    def receive(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, or ``None`` after ``timeout`` seconds (``None``: wait forever). With CURVE, raises
        :class:`KeyRefused` when the server refused this client's key (at the first handshake, or after a reload
        took the key away and cut the connection) and no event is left queued."""
        event = self._next_pending()
        if event is None:
            _check_open(self.socket, "receive on a closed Consumer")
        while event is None:
            if not self._poll(None if timeout is None else int(timeout * 1000)):
                return None
            event = self._deliver(self.socket.recv_multipart())
        return event

    def iter(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Iterate over events until none arrives for ``timeout`` seconds."""
        while True:
            event = self.receive(timeout)
            if event is None:
                return
            yield event

    def __iter__(self) -> Iterator[Event]:
        return self.iter(None)


class AsyncConsumer(_EventQueue):
    """:class:`Consumer` for asyncio (a game server on asyncio, aiohttp or FastAPI): ``await receive()``, and
    ``async for event in consumer``, on a socket of a ``zmq.asyncio.Context``, so that waiting for events never
    blocks the event loop.
    """

    def __init__(self, endpoint: str = "tcp://127.0.0.1:5556", prefixes: Sequence[str] = ("",),
                 context: Optional[zmq.asyncio.Context] = None, on_gap: Any = None, system: bool = False,
                 curve: Optional[CurveKeys] = None, ipv6: bool = False, on_undecodable: Any = None) -> None:
        self._context = context or zmq.asyncio.Context.instance()
        self.socket, self._handshakes = _subscriber(self._context, endpoint, prefixes, system, curve, ipv6)
        self.endpoint = endpoint
        self._start_queue(prefixes, system, on_gap, on_undecodable)

    async def __aenter__(self) -> "AsyncConsumer":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket."""
        if self._handshakes is not None:
            self._handshakes.close()
        self.socket.close()

    async def wait_until_subscribed(self, producer: Producer, timeout: float = 10.0) -> None:
        """As :meth:`Consumer.wait_until_subscribed`, without blocking the event loop. The producer's sends
        do not block (its high-water mark is unlimited by default)."""
        probe = self._start_probe(timeout)
        try:
            while True:
                probe.send(producer)
                if await self._poll(50) and self._probed(probe, await self.socket.recv_multipart()):
                    break
        finally:
            probe.end()

    async def wait_until_read(self, producer: Producer, sessions: Sequence[str], timeout: float = 10.0) -> None:
        """As :meth:`Consumer.wait_until_read`, without blocking the event loop."""
        check = self._start_read_check(sessions, timeout)
        try:
            while check.waiting:
                check.send(producer)
                if await self._poll(50):
                    self._checked(check, await self.socket.recv_multipart())
        finally:
            check.end()

    async def _poll(self, timeout_ms: Optional[int]) -> bool:
        """Wait for an event; with CURVE, raise :class:`KeyRefused` if the server refused the key."""
        if self._handshakes is not None:
            return await self._handshakes.wait_async(timeout_ms)
        return timeout_ms is None or bool(await self.socket.poll(timeout_ms))

    async def receive(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, or ``None`` after ``timeout`` seconds (``None``: wait forever); :class:`KeyRefused` as
        :meth:`Consumer.receive`."""
        event = self._next_pending()
        if event is None:
            _check_open(self.socket, "receive on a closed AsyncConsumer")
        while event is None:
            if not await self._poll(None if timeout is None else int(timeout * 1000)):
                return None
            event = self._deliver(await self.socket.recv_multipart())
        return event

    async def iter(self, timeout: Optional[float] = None) -> AsyncIterator[Event]:
        """Iterate over events until none arrives for ``timeout`` seconds."""
        while True:
            event = await self.receive(timeout)
            if event is None:
                return
            yield event

    def __aiter__(self) -> AsyncIterator[Event]:
        return self.iter(None)
