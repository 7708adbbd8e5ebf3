"""A CURVE client's view of its handshakes: whether the server refused its key (README, "Encryption and client
keys")."""

from typing import Optional

import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message


class KeyRefused(ConnectionError):
    """The server refused this client's CURVE key at the handshake: a worker or proxy that lists its clients
    (``--curve-authorized-keys``) does not list this key, or no longer does (a reload took it away and cut the
    connection). ``status`` is the ZAP status code (400 for a refused key), ``endpoint`` the one connected to.

    libzmq does not try a refused handshake again: once the key is listed (again), make a new client.
    """

    def __init__(self, endpoint: str, status: int) -> None:
        super().__init__("%s refused this client's CURVE key (status %d): the key is not, or no longer, authorized"
                         % (endpoint, status))
        self.endpoint = endpoint
        self.status = status


class _Handshakes:
    """Watches a CURVE client socket's handshakes through a libzmq socket monitor, for a refusal of its key.

    The monitor is a socket of the client's own kind (plain or asyncio), so that waits can poll it beside the
    client's socket; it is read without waiting, through a plain view of it."""

    def __init__(self, socket: zmq.Socket) -> None:
        self.monitor = socket.get_monitor_socket(zmq.EVENT_HANDSHAKE_FAILED_AUTH)
        self._view = zmq.Socket.shadow(self.monitor.underlying)
        self._socket = socket
        self._refusal: Optional[tuple] = None
        self._countdown = 1
        self.poller = (zmq.asyncio.Poller() if isinstance(socket, zmq.asyncio.Socket) else zmq.Poller())
        self.poller.register(socket, zmq.POLLIN)
        self.poller.register(self.monitor, zmq.POLLIN)

    def check(self) -> None:
        """Raise :class:`KeyRefused` if the server refused the key (reads what the monitor reported, without
        waiting)."""
        while self._refusal is None and self._view.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            event = parse_monitor_message(self._view.recv_multipart())
            if event["event"] == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                endpoint = event["endpoint"]
                if isinstance(endpoint, bytes):
                    endpoint = endpoint.decode("utf-8", "replace")
                self._refusal = (endpoint, event["value"])
        if self._refusal is not None:
            raise KeyRefused(*self._refusal)

    def check_sometimes(self) -> None:
        """:meth:`check` on every 64th call (and on every call once the key was refused): cheap enough for each
        message a producer sends, where a check each time took half again the time of the send."""
        if self._refusal is None:
            self._countdown -= 1
            if self._countdown > 0:
                return
            self._countdown = 64
        self.check()

    def wait(self, timeout_ms: Optional[int]) -> bool:
        """Wait up to ``timeout_ms`` (None: forever) for a message on the client's socket: True once one is queued,
        False on timeout; raises :class:`KeyRefused` when the key is refused and nothing is queued."""
        if self._socket.poll(0):
            return True
        self.check()
        ready = dict(self.poller.poll(timeout_ms))
        if self._socket in ready:
            return True
        self.check()
        return False

    async def wait_async(self, timeout_ms: Optional[int]) -> bool:
        """:meth:`wait` for an asyncio socket."""
        if await self._socket.poll(0):
            return True
        self.check()
        ready = dict(await self.poller.poll(timeout_ms))
        if self._socket in ready:
            return True
        self.check()
        return False

    def close(self) -> None:
        """Stop monitoring and close the monitor (before the client's socket closes)."""
        try:
            self._socket.disable_monitor()
        except zmq.ZMQError:
            pass
        self.monitor.close(0)
