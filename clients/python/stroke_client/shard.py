"""Shard keys and input topics (Protocol/README.md, section 2)."""

from typing import List

BUCKET_COUNT = 4096


def fnv1a32(data: bytes) -> int:
    """FNV-1a, 32-bit, of ``data``."""
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def bucket(session: str) -> int:
    """The bucket (0-4095) of a session id."""
    return fnv1a32(_encoded(session)) % BUCKET_COUNT


def _encoded(session: str, what: str = "a session id") -> bytes:
    """The session id's (or prefix's: ``what``) UTF-8 bytes; TypeError for one that is not a str, ValueError for one
    UTF-8 cannot carry (a lone surrogate, such as "\ud800": before version 1.13 Python's own codec error, which named
    no session id)."""
    if not isinstance(session, str):
        raise TypeError("%s is a str, got %s %r" % (what, type(session).__name__, session))
    try:
        return session.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError("%s is text that UTF-8 carries; %r has a lone surrogate at character %d"
                         % (what, session, error.start)) from None


def topic(session: str) -> bytes:
    """The input topic of a session: ``<3 hex digits>/<session id>``."""
    encoded = _encoded(session)
    if not 1 <= len(encoded) <= 128:
        shown = session if len(session) <= 40 else session[:40] + "..."
        raise ValueError("a session id is 1-128 bytes of UTF-8, not %d: %r" % (len(encoded), shown))
    if session.startswith("$"):
        raise ValueError("a session id does not start with '$' (the worker's own topics do): %r" % session)
    control = next((i for i, b in enumerate(encoded) if b < 0x20 or b == 0x7F), None)
    if control is not None:
        raise ValueError("a session id has no control characters; %r has one at byte %d" % (session, control))
    return b"%03x/" % (fnv1a32(encoded) % BUCKET_COUNT) + encoded


def shard_prefixes(index: int, count: int) -> List[bytes]:
    """The subscription prefixes of worker ``index`` of ``count``."""
    if not 0 <= index < count <= BUCKET_COUNT:
        raise ValueError("shard index must be in 0..count-1, count in 1..4096")
    if count == 1:
        return [b""]
    return [b"%03x/" % b for b in range(index, BUCKET_COUNT, count)]
