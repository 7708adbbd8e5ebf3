"""A producer that never finishes a message has its connection cut, and costs no one else a message.

libzmq counts a socket's high-water mark in whole messages and keeps the frames of a message whose last frame has
not arrived in memory, out of the reader's sight, however many there are (`ZMQ_MAXMSGSIZE` bounds one frame). libzmq's
own senders send nothing of a message before its last frame, but a peer that speaks ZMTP itself can: before session
89 one that flagged every frame "more" grew a worker's or a proxy's memory as fast as it sent, and the worker logged
nothing: 400 MiB sent in frames of 64 KiB took a worker from 28.7 to 429.5 MB resident (432.2 MB with two lanes), and
20 MB of empty frames to 641.3 MB (libzmq keeps 64 bytes for a frame of 2 on the wire). Now the connection watch
compares what the system received on each producer's connection with what the reader noted of it, and cuts a
connection that sent a frame of the disconnecting size and 4 MiB more without finishing a message, with a warning
that names its peer.
"""

import re
import socket
import struct
import subprocess
import threading
import time

import pytest
import zmq

from conftest import LogTail, free_port, http_get, pings_answered, worker_binary
from stroke_client import Consumer, Producer
from stroke_client.shard import topic

# --max-message-bytes: a producer is disconnected at a frame of 4 times this, 256 KiB, and at 4.25 MiB of a message
# it never finishes (a frame of 256 KiB and 4 MiB).
MAX_MESSAGE_BYTES = "65536"


def zmtp_frame(data: bytes, more: bool) -> bytes:
    """A ZMTP 3 message frame (RFC 23): flags, a size of one byte or of eight, the body."""
    flags = 0x01 if more else 0x00
    if len(data) > 255:
        return bytes([flags | 0x02]) + struct.pack(">Q", len(data)) + data
    return bytes([flags, len(data)]) + data


def send_unfinished(endpoint: str, frames: int) -> bool:
    """Connects to `endpoint` as a PUB socket speaking ZMTP 3.0 itself (NULL mechanism), sends a topic and then
    `frames` frames of 64 KiB, every one flagged "more": a message that never ends. Then goes on with an empty frame
    every 50 ms, for 20 s at most. Says whether the other side ended the connection."""
    host, port = endpoint.rsplit("/", 1)[-1].rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=20)
    try:
        greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + bytes([3, 0]) + b"NULL".ljust(20, b"\x00") + b"\x00" * 32
        ready = bytes([5]) + b"READY" + bytes([11]) + b"Socket-Type" + struct.pack(">I", 3) + b"PUB"
        raw.sendall(greeting + bytes([0x04, len(ready)]) + ready)

        def drain() -> None:  # the worker's greeting, READY and subscriptions
            try:
                while raw.recv(65536):
                    pass
            except OSError:
                pass

        threading.Thread(target=drain, daemon=True).start()
        chunk = zmtp_frame(b"u" * 65536, more=True)
        try:
            raw.sendall(zmtp_frame(topic("unfinished"), more=True))
            for _ in range(frames):
                raw.sendall(chunk)
            for _ in range(400):
                raw.sendall(zmtp_frame(b"", more=True))
                time.sleep(0.05)
        except OSError:  # reset or broken pipe: ended by the other side
            return True
        return False
    finally:
        raw.close()


class Target:
    """A worker of `lanes` lanes with `--metrics`, or a proxy with `--metrics` and a worker behind it: where
    producers connect, where consumers do, the log to read and the metric that counts the cuts."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.processes = []
        self.metrics = "127.0.0.1:%d" % free_port()
        if kind == "proxy":
            proxy = subprocess.Popen(
                [worker_binary(), "proxy", "--frontend", "tcp://127.0.0.1:*", "--backend", "tcp://127.0.0.1:*",
                 "--max-message-bytes", str(4 * int(MAX_MESSAGE_BYTES)), "--metrics", self.metrics],
                stderr=subprocess.PIPE, text=True)
            self.processes.append(proxy)
            self.log = []
            self.tail = LogTail(proxy.stderr, self.log)
            line = self.tail.wait_for("proxy listening", since=0)
            fields = dict(field.split("=", 1) for field in line.split() if "=" in field)
            self.input = fields["frontend"]
            self.counter = "stroke_proxy_unfinished_messages_cut_total"
            worker = self.start_worker("--input", "connect:" + fields["backend"])
            self.output = re.search(r'output:([^\s"]+)', self.tail_of(worker).wait_for("listening", since=0)).group(1)
        else:
            worker = self.start_worker("--lanes", kind, "--metrics", self.metrics)
            self.log = []
            self.tail = LogTail(worker.stderr, self.log)
            line = self.tail.wait_for("listening", since=0)
            self.input = re.search(r'input:([^\s"]+)', line).group(1)
            self.output = re.search(r'output:([^\s"]+)', line).group(1)
            self.counter = "stroke_worker_unfinished_messages_cut_total"

    def start_worker(self, *extra: str) -> subprocess.Popen:
        worker = subprocess.Popen(
            [worker_binary(), "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval",
             "0", "--max-message-bytes", MAX_MESSAGE_BYTES, *extra], stderr=subprocess.PIPE, text=True)
        self.processes.append(worker)
        return worker

    def tail_of(self, worker: subprocess.Popen) -> LogTail:
        self.worker_log = []
        return LogTail(worker.stderr, self.worker_log)

    def cuts(self) -> int:
        status, body = http_get(self.metrics, "/metrics")
        assert status == 200
        return int(re.search(r"^%s(?:\{[^}]*\})? (\d+)$" % self.counter, body, re.MULTILINE).group(1))

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            assert process.wait(timeout=20) == 0, "".join(self.log)


@pytest.mark.parametrize("kind", ["1", "2", "proxy"], ids=["one-lane", "two-lanes", "proxy"])
def test_a_producer_that_never_finishes_a_message_is_cut_and_a_busy_one_is_not(kind):
    target = Target(kind)
    try:
        with Consumer(target.output, prefixes=["steady"]) as consumer, Producer(target.input) as steady:
            if kind == "2":
                steady.wait_for_all_buckets()
            else:
                steady.wait_for_worker()
            consumer.wait_until_read(steady, ["steady"])
            busy_monitor = steady.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
            # A busy producer first: 24 MiB of whole messages of 48 KiB (each refused as no stroke message, under
            # the size that disconnects), far past the limit, at the rate the network takes them.
            for _ in range(512):
                steady.socket.send_multipart([topic("busy"), b"b" * 49152])
            steady.ping("steady", seq=0)
            assert consumer.receive(timeout=20).kind == "pong"
            # 40 MiB of a message that never ends: the connection is cut long before its end.
            assert send_unfinished(target.input, 640), "".join(target.log)
            line = target.tail.wait_for("without finishing a message", since=0)
            assert " warning " in line, line
            assert re.search(r'"?peer"?[=:]"?127\.0\.0\.1:\d+', line), line
            assert target.cuts() == 1
            # The steady producer was neither cut nor held back: its pings are answered.
            assert pings_answered(steady, consumer, "steady", range(1, 11)) == set(range(1, 11))
            assert busy_monitor.poll(0) == 0, "the busy producer was disconnected"
            steady.socket.disable_monitor()
            busy_monitor.close()
    finally:
        target.stop()
