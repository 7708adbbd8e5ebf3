"""CURVE encryption for connections to a worker or proxy started with ``--curve-secret-key`` (README, Security)."""

import errno
import os
import re
from typing import List, Optional, Union

import zmq
from zmq.utils import z85

_CERT_LINE = re.compile(r'^\s*([A-Za-z_-]+)\s*=\s*"?([^"]*)"?\s*$')


def _is_key(text: str) -> bool:
    if len(text) != 40:
        return False
    try:
        return len(z85.decode(text.encode("ascii"))) == 32
    except (ValueError, UnicodeEncodeError, KeyError):
        return False


def load_keys(path: str, field: str = "public-key") -> List[bytes]:
    """The keys in a key file, as Z85 bytes: bare 40-character keys one per line (``#`` comments), or a ZeroMQ
    certificate's ``field = "..."`` lines (``stroke-tool keygen``, ``zmq.auth.create_certificates``)."""
    keys = []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if _is_key(line):
                keys.append(line.encode("ascii"))
                continue
            if not line or line.startswith("#") or line in ("curve", "metadata"):
                continue
            match = _CERT_LINE.match(line)
            if match:
                if match.group(1) == field:
                    if not _is_key(match.group(2)):
                        raise ValueError("%s, line %d: not a 40-character Z85 key" % (path, number))
                    keys.append(match.group(2).encode("ascii"))
                continue
            raise ValueError("%s, line %d: not a 40-character Z85 key" % (path, number))
    return keys


def load_key(path: str, field: str = "public-key") -> bytes:
    """The one key of a key file (see :func:`load_keys`)."""
    keys = load_keys(path, field)
    if len(keys) != 1:
        raise ValueError("%s: expected one %s, found %d" % (path, field, len(keys)))
    return keys[0]


class CurveKeys:
    """What a CURVE client needs: the server's public key, and a key pair of its own.

    ``secret_key`` may be a key or the path of a key file (``stroke-tool keygen -o``); without one, a new pair
    is made for this client (enough where the server admits any client that knows its key). ``server_key`` may
    be a key or the path of the server's ``.pub`` file.
    """

    def __init__(self, server_key: Union[str, bytes], secret_key: Optional[Union[str, bytes]] = None) -> None:
        self.server_key = self._key(server_key, "public-key")
        if secret_key is None:
            self.public_key, self.secret_key = zmq.curve_keypair()
        else:
            self.secret_key = self._key(secret_key, "secret-key")
            self.public_key = zmq.curve_public(self.secret_key)

    @staticmethod
    def _key(value: Union[str, bytes], field: str) -> bytes:
        text = value.decode("ascii") if isinstance(value, bytes) else value
        if _is_key(text):
            return text.encode("ascii")
        if not os.path.exists(text):
            # Before version 1.13 a mistyped key was said only as a file that does not exist.
            raise FileNotFoundError(errno.ENOENT, "neither a 40-character Z85 key (this is %d characters) nor a key "
                                    "file" % len(text), text)
        return load_key(text, field)

    def apply(self, socket: zmq.Socket) -> None:
        """Makes ``socket`` a CURVE client of the server (before it connects)."""
        socket.curve_serverkey = self.server_key
        socket.curve_publickey = self.public_key
        socket.curve_secretkey = self.secret_key
