"""`stroke-worker proxy --metrics` (session 74): what a fleet's proxies forward, and whether they can.

Before session 74 a proxy showed nothing of its traffic but through `--control` STATISTICS, and nothing of its
connections at all: its own log said when an endpoint it connects to did not answer, but no probe could ask.
"""

import re
import subprocess
import threading
import time

import zmq

from conftest import LogTail, free_port, http_get as get, worker_binary


def samples(address: str) -> dict:
    """`/metrics` as {name{labels}: value}."""
    status, text = get(address, "/metrics")
    assert status == 200
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines() if line and not line.startswith("#")}


def wait_for(condition, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_proxy_serves_its_counts_its_connections_and_whether_it_is_ready():
    subscriber_endpoint = "tcp://127.0.0.1:%d" % free_port()
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", "--frontend", "bind:tcp://127.0.0.1:*",
         "--backend", "connect:" + subscriber_endpoint, "--metrics", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    context = zmq.Context()
    stop = threading.Event()
    reader = None
    try:
        listening = LogTail(proxy.stderr, []).wait_for("proxy listening", since=0)
        address = re.search(r"metrics=(\S+)", listening).group(1)
        frontend = re.search(r"frontend=(\S+)", listening).group(1)
        wait_for(lambda: get(address, "/healthz") == (200, "ok\n"), "the proxy is live")
        # Nothing listens where its backend connects: live, not ready.
        assert get(address, "/readyz") == (503, "not connected: backend %s\n" % subscriber_endpoint)
        assert samples(address)["stroke_proxy_up"] == 1

        received = []
        subscriber = context.socket(zmq.SUB)
        subscriber.setsockopt(zmq.SUBSCRIBE, b"")
        subscriber.bind(subscriber_endpoint)

        def receive():
            # A bound SUB sends its subscription only once its thread calls into it (zeromq/libzmq#2267).
            while not stop.is_set():
                if subscriber.poll(50):
                    received.append(subscriber.recv_multipart())

        reader = threading.Thread(target=receive)
        reader.start()
        wait_for(lambda: get(address, "/readyz") == (200, "ok\n"), "ready once the backend connected")

        publisher = context.socket(zmq.XPUB)
        publisher.connect(frontend)
        publisher.rcvtimeo = 10000
        publisher.recv()  # the subscription came up through the proxy
        for index in range(100):
            publisher.send_multipart([b"abc/session", b"payload %03d" % index])
        wait_for(lambda: len(received) == 100, "the subscriber got every message")
        wait_for(lambda: samples(address)['stroke_proxy_frames_total{side="backend",direction="out"}'] == 200,
                 "the counts handed over within a turn of the loop")
        counts = samples(address)
        assert counts['stroke_proxy_frames_total{side="frontend",direction="in"}'] == 200
        assert counts['stroke_proxy_bytes_total{side="frontend",direction="in"}'] == 100 * (11 + 11)
        assert counts['stroke_proxy_bytes_total{side="backend",direction="out"}'] == 100 * (11 + 11)
        assert counts['stroke_proxy_frames_total{side="backend",direction="in"}'] >= 1  # the subscription
        assert counts['stroke_proxy_connections{side="frontend"}'] == 1
        assert counts['stroke_proxy_connections{side="backend"}'] == 1
        publisher.close(linger=0)
    finally:
        stop.set()
        if reader is not None:
            reader.join()
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()
        context.destroy(linger=0)


def test_a_proxy_held_back_by_a_slow_subscriber_stays_live_and_says_it_waits():
    """With `--no-drop`, a subscriber a high-water mark behind holds every message back. Until session 75 the proxy's
    loop stopped turning while it waited, so that after 5 s `/healthz` answered 503 and the watchdog stopped: the
    liveness probe or systemd then restarted a proxy that was only applying backpressure, its queues lost."""
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", "--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:tcp://127.0.0.1:*",
         "--no-drop", "--hwm", "10", "--consumer-timeout", "0", "--metrics", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    context = zmq.Context()
    sender = None
    messages, payload = 2000, b"x" * 16384
    try:
        listening = LogTail(proxy.stderr, []).wait_for("proxy listening", since=0)
        address = re.search(r"metrics=(\S+)", listening).group(1)
        frontend = re.search(r"frontend=(\S+)", listening).group(1)
        backend = re.search(r"backend=(\S+)", listening).group(1)
        subscriber = context.socket(zmq.SUB)
        subscriber.setsockopt(zmq.RCVHWM, 10)
        subscriber.setsockopt(zmq.RCVBUF, 4096)
        subscriber.setsockopt(zmq.SUBSCRIBE, b"")
        subscriber.connect(backend)
        publisher = context.socket(zmq.XPUB)
        publisher.setsockopt(zmq.XPUB_NODROP, 1)
        publisher.connect(frontend)
        publisher.rcvtimeo = 10000
        publisher.recv()  # the subscription came up through the proxy

        def send():
            # 32 MB: far more than the high-water marks and the sockets' buffers hold; blocks while the proxy waits.
            for index in range(messages):
                publisher.send_multipart([b"abc/session", b"%05d" % index + payload])

        sender = threading.Thread(target=send)
        sender.start()
        wait_for(lambda: samples(address)["stroke_proxy_waiting"] == 1, "the proxy waits for the subscriber")
        time.sleep(6)  # longer than the 5 s after which a loop that does not turn is not live
        assert get(address, "/healthz") == (200, "ok\n")
        counts = samples(address)
        assert counts["stroke_proxy_up"] == 1
        assert counts["stroke_proxy_waiting"] == 1
        assert counts["stroke_proxy_send_waits_total"] >= 30  # 100 ms each, over 6 s
        # The subscriber reads at last: everything arrives, in order, and the proxy no longer waits.
        subscriber.rcvtimeo = 10000
        received = [int(subscriber.recv_multipart()[1][:5]) for _ in range(messages)]
        assert received == list(range(messages))
        wait_for(lambda: samples(address)["stroke_proxy_waiting"] == 0, "the proxy no longer waits")
    finally:
        if sender is not None:
            sender.join(timeout=20)
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()
        context.destroy(linger=0)
