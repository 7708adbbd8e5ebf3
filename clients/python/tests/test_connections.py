"""The worker says what becomes of its connections (session 73).

Before session 73 a worker told to connect to an endpoint where nothing answered (a proxy not started yet, a typo in
its name, a firewall) logged nothing and showed nothing: it said `listening` and waited in silence, and a connection
lost later went as unnoticed. Now the first failed attempt is a warning, a lasting outage is logged again every
minute, the connection and its loss are logged, and `/metrics` counts the connections open on each side and the
failed attempts; `/readyz` answers 503 while an endpoint the worker connects to has no connection.
"""

import os
import re
import signal
import socket
import subprocess
import time

import pytest
import zmq

from conftest import LogTail, RunningWorker, free_port, http_get, worker_binary


def wait_for_log(worker: RunningWorker, text: str, since: int = None) -> str:
    """The first line of the worker's log that contains `text`, from line `since` on (default: from now on)."""
    if not hasattr(worker, "tail"):
        worker.tail = LogTail(worker.process.stderr, worker.log)
    return worker.tail.wait_for(text, since)


def get(worker: RunningWorker, path: str) -> tuple:
    """The status and body of the worker's answer to `GET path` on its `--metrics` address."""
    return http_get(re.search(r'metrics:([^\s"]+)', "".join(worker.log)).group(1), path)


def metrics(worker: RunningWorker) -> dict:
    """The worker's `/metrics` samples by name, labels left out."""
    status, text = get(worker, "/metrics")
    assert status == 200
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.split(" ")
            samples[name.split("{")[0]] = float(value)
    return samples


def wait_for_metric(worker: RunningWorker, name: str, value: float, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while metrics(worker)[name] != value:
        assert time.monotonic() < deadline, "%s stayed %s, not %s" % (name, metrics(worker)[name], value)
        time.sleep(0.05)


def test_an_input_that_does_not_answer_is_logged_counted_and_its_connection_too():
    port = free_port()
    endpoint = "tcp://127.0.0.1:%d" % port
    worker = RunningWorker("--input", "connect:" + endpoint, "--metrics", "127.0.0.1:0")
    context = zmq.Context()
    try:
        warning = wait_for_log(worker, "input cannot connect yet", since=0)
        assert "endpoint=" + endpoint in warning
        assert metrics(worker)["stroke_worker_connect_retries_total"] >= 1
        assert metrics(worker)["stroke_worker_input_connections"] == 0
        # Live, but not ready: it serves nobody until its input is connected.
        assert get(worker, "/healthz") == (200, "ok\n")
        assert get(worker, "/readyz") == (503, "not connected: input %s\n" % endpoint)

        # A producer that binds where the worker connects: the worker says it connected, after how long.
        producer = context.socket(zmq.XPUB)
        producer.linger = 0
        producer.bind(endpoint)
        connected = wait_for_log(worker, "input connected")
        assert "endpoint=" + endpoint in connected and "attempts=" in connected
        wait_for_metric(worker, "stroke_worker_input_connections", 1)
        assert get(worker, "/readyz") == (200, "ok\n")

        consumer = context.socket(zmq.SUB)
        consumer.linger = 0
        consumer.connect(worker.output)
        wait_for_metric(worker, "stroke_worker_output_connections", 1)

        # The producer goes away: the loss is logged and the count falls.
        producer.close()
        assert "endpoint=" + endpoint in wait_for_log(worker, "input connection lost")
        wait_for_metric(worker, "stroke_worker_input_connections", 0)
        assert get(worker, "/readyz") == (503, "not connected: input %s\n" % endpoint)
        consumer.close()
        wait_for_metric(worker, "stroke_worker_output_connections", 0)
        assert metrics(worker)["stroke_worker_disconnections_total"] >= 2
    finally:
        context.term()
        assert worker.stop() == 0


def test_several_lanes_name_and_watch_the_endpoints_they_connect_to():
    endpoint = "tcp://127.0.0.1:%d" % free_port()
    # The second --lanes wins over the fixture's one.
    worker = RunningWorker("--input", "connect:" + endpoint, "--lanes", "2", "--metrics", "127.0.0.1:0")
    context = zmq.Context()
    try:
        listening = next(line for line in worker.log if "listening" in line)
        # Before session 73 the input forwarder left its connect endpoints out of the `listening` record.
        assert "input:connect:" + endpoint in listening
        assert "endpoint=" + endpoint in wait_for_log(worker, "input cannot connect yet", since=0)
        # The forwarder's endpoints count for readiness as a lane's do.
        assert get(worker, "/readyz") == (503, "not connected: input %s\n" % endpoint)
        producer = context.socket(zmq.XPUB)
        producer.linger = 0
        producer.bind(endpoint)
        wait_for_log(worker, "input connected")
        wait_for_metric(worker, "stroke_worker_input_connections", 1)
        assert get(worker, "/readyz") == (200, "ok\n")
        producer.close()
    finally:
        context.term()
        assert worker.stop() == 0


def test_a_proxy_says_when_an_endpoint_it_connects_to_does_not_answer():
    endpoint = "tcp://127.0.0.1:%d" % free_port()
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", "--frontend", "connect:" + endpoint, "--backend", "bind:tcp://127.0.0.1:*"],
        stderr=subprocess.PIPE, text=True)
    log = []
    try:
        # Both records, in either order: the first attempt can fail before the proxy logs that it listens.
        tail = LogTail(proxy.stderr, log)
        warning = tail.wait_for("frontend cannot connect yet", since=0)
        tail.wait_for("proxy listening", since=0)
        assert "endpoint=" + endpoint in warning
        # The `proxy listening` record names the endpoint it connects to as well.
        assert "frontend=connect:" + endpoint in "".join(log)
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()


def keys_with_only_another_authorized(tmp_path):
    """Key pairs `proxy`, `worker` and `other` made by `stroke-tool keygen` in tmp_path, and `authorized`, a client
    key list that admits `other` only; returns the list's path."""
    tool = os.path.join(os.path.dirname(worker_binary()), "stroke-tool")
    for name in ("proxy", "worker", "other"):
        subprocess.run([tool, "keygen", "-o", str(tmp_path / name)], check=True, capture_output=True)
    authorized = tmp_path / "authorized"
    authorized.write_text((tmp_path / "other.pub").read_text())
    return authorized


def stop_proxy(proxy) -> None:
    proxy.terminate()
    assert proxy.wait(timeout=20) == 0
    proxy.stderr.close()


@pytest.mark.parametrize("side,lanes", [("input", "1"), ("input", "2"), ("output", "1"), ("output", "2")])
def test_a_worker_whose_key_its_proxy_refuses_connects_once_the_key_is_authorized(tmp_path, side, lanes):
    """libzmq gives an endpoint up after the peer refused the key (session 73 had the worker say so and stay not
    ready until restarted); the worker connects again after a back-off, so adding its key to the proxy's list and
    reloading the proxy is enough. With one lane the lane's own socket connects again, with two the forwarder's."""
    authorized = keys_with_only_another_authorized(tmp_path)
    endpoint = "tcp://127.0.0.1:%d" % free_port()
    # The worker's input connects to the proxy's XPUB side (its backend), its output to the XSUB side (frontend).
    sides = ["--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:" + endpoint]
    if side == "output":
        sides = ["--frontend", "bind:" + endpoint, "--backend", "bind:tcp://127.0.0.1:*"]
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", *sides, "--curve-secret-key", str(tmp_path / "proxy.key"),
         "--curve-authorized-keys", str(authorized), "--metrics", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    proxy_log = []
    worker = None
    try:
        proxy_tail = LogTail(proxy.stderr, proxy_log)
        proxy_metrics = re.search(r"metrics=(\S+)", proxy_tail.wait_for("proxy listening", since=0)).group(1)
        worker = RunningWorker(
            "--" + side, "connect:" + endpoint, "--curve-server-key", str(tmp_path / "proxy.pub"),
            "--curve-secret-key", str(tmp_path / "worker.key"), "--metrics", "127.0.0.1:0", "--lanes", lanes)
        line = wait_for_log(worker, "%s handshake failed; connecting again later" % side, since=0)
        assert " error " in line and "endpoint=" + endpoint in line and "ZAP status 400" in line, line
        assert "retrySeconds=1.0" in line, line
        assert get(worker, "/readyz") == (503, "not connected: %s %s\n" % (side, endpoint))
        # Refused again after its first wait: libzmq alone would not have tried.
        proxy_tail.wait_for("client refused", since=0)
        wait_for_metric(worker, "stroke_worker_handshakes_failed_total", 2)
        assert get(worker, "/readyz")[0] == 503
        # The key authorized and the list reloaded: the next attempt (2 s after the second failure) connects.
        authorized.write_text(authorized.read_text() + (tmp_path / "worker.pub").read_text())
        proxy.send_signal(signal.SIGHUP)
        connected = wait_for_log(worker, "%s connected" % side, since=0)
        assert "endpoint=" + endpoint in connected and "attempts=" in connected, connected
        # The log record comes a moment before the watch hands its state over.
        deadline = time.monotonic() + 5
        while get(worker, "/readyz") != (200, "ok\n"):
            assert time.monotonic() < deadline, get(worker, "/readyz")
            time.sleep(0.05)
        assert metrics(worker)["stroke_worker_%s_connections" % side] == 1
        # The proxy counted the refusals (`stroke-worker proxy --metrics`).
        exposition = http_get(proxy_metrics, "/metrics")[1]
        refused = re.search(r"^stroke_proxy_handshakes_refused_total (\d+)$", exposition, re.M)
        assert int(refused.group(1)) >= 2
    finally:
        if worker is not None:
            assert worker.stop() == 0
        stop_proxy(proxy)


def test_with_handshake_retry_0_a_refused_worker_stays_given_up(tmp_path):
    authorized = keys_with_only_another_authorized(tmp_path)
    endpoint = "tcp://127.0.0.1:%d" % free_port()
    proxy = subprocess.Popen(
        [worker_binary(), "proxy", "--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:" + endpoint,
         "--curve-secret-key", str(tmp_path / "proxy.key"), "--curve-authorized-keys", str(authorized)],
        stderr=subprocess.PIPE, text=True)
    worker = None
    try:
        LogTail(proxy.stderr, []).wait_for("proxy listening", since=0)
        worker = RunningWorker(
            "--input", "connect:" + endpoint, "--curve-server-key", str(tmp_path / "proxy.pub"),
            "--curve-secret-key", str(tmp_path / "worker.key"), "--metrics", "127.0.0.1:0", "--handshake-retry", "0")
        line = wait_for_log(worker, "input handshake failed; not connecting again", since=0)
        assert " error " in line and "ZAP status 400" in line, line
        time.sleep(2.5)  # a retry would have come after 1 s
        assert metrics(worker)["stroke_worker_handshakes_failed_total"] == 1
        assert get(worker, "/readyz") == (503, "not connected: input %s\n" % endpoint)
    finally:
        if worker is not None:
            assert worker.stop() == 0
        stop_proxy(proxy)


def test_an_input_pointed_at_a_socket_of_the_wrong_type_says_so_and_connects_once_the_right_one_is_there():
    """A worker's input (a SUB) told to connect to a proxy's frontend (an XSUB) instead of its backend: libzmq closes
    the connection before the handshake, reports no handshake event and never connects there again (libzmq 4.3.4 and
    4.3.5). Until session 74 the worker logged nothing of it and waited for ever; now it warns, naming what the
    input needs, and connects again after a back-off, so that the right socket there is taken without a restart."""
    context = zmq.Context()
    wrong = context.socket(zmq.XSUB)
    port = wrong.bind_to_random_port("tcp://127.0.0.1")
    endpoint = "tcp://127.0.0.1:%d" % port
    worker = RunningWorker("--input", "connect:" + endpoint, "--metrics", "127.0.0.1:0")
    try:
        line = wait_for_log(worker, "input connection ended before its handshake; connecting again later", since=0)
        assert " warning " in line and "endpoint=" + endpoint in line, line
        assert "input needs a PUB or XPUB socket" in line and "retrySeconds=1.0" in line, line
        assert get(worker, "/readyz") == (503, "not connected: input %s\n" % endpoint)
        # The right socket at the same address: only the worker's own attempt can reach it.
        wrong.close(linger=0)
        right = context.socket(zmq.XPUB)
        deadline = time.monotonic() + 5
        while True:  # libzmq lets the old listener go on its I/O thread, a moment after the close
            try:
                right.bind(endpoint)
                break
            except zmq.ZMQError:
                assert time.monotonic() < deadline, "the port stayed taken"
                time.sleep(0.05)
        connected = wait_for_log(worker, "input connected")
        assert "endpoint=" + endpoint in connected, connected
        assert right.poll(5000), "the worker's subscriptions arrived"
        deadline = time.monotonic() + 5
        while get(worker, "/readyz") != (200, "ok\n"):
            assert time.monotonic() < deadline, get(worker, "/readyz")
            time.sleep(0.05)
        right.close(linger=0)
    finally:
        context.destroy(linger=0)
        assert worker.stop() == 0


def test_the_metrics_endpoint_answers_a_request_it_does_not_read_whole():
    """A request head over 8 KB gets 431 and a POST with a body 405, where they got a reset connection: the endpoint
    closed with the rest of the request unread, and the system reset the connection, answer and all (session 77)."""
    worker = RunningWorker("--metrics", "127.0.0.1:0")
    host, port = re.search(r'metrics:([^\s"]+)', "".join(worker.log)).group(1).rsplit(":", 1)
    try:
        for request, status in ((b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n", b"431"),
                                (b"POST /metrics HTTP/1.1\r\nContent-Length: 40000\r\n\r\n" + b"b" * 40000, b"405")):
            with socket.create_connection((host, int(port)), timeout=5) as connection:
                connection.sendall(request)
                answer = b""
                while True:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 " + status), answer[:60]
        assert get(worker, "/healthz")[0] == 200
    finally:
        assert worker.stop() == 0
