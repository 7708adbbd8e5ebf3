"""IPv6 endpoints (session 72): an address in brackets works as is, and --ipv6 on binds both families.

Before session 72 the worker refused `tcp://[::1]:5555` with libzmq's "No such device": libzmq takes IPv6 only on a
socket with its IPv6 option, which nothing set.
"""

import re
import socket
import subprocess

import pytest
import zmq

from conftest import RunningWorker, worker_binary
from test_log_reader import answered


def loopback_ipv6() -> bool:
    """Whether this machine has IPv6 on its loopback."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not loopback_ipv6(), reason="no IPv6 on the loopback")


def endpoints(worker: RunningWorker, role: str) -> list:
    """Every `role` (input or output) endpoint the worker's "listening" line names (the fixture binds 127.0.0.1 first,
    the test's own come after)."""
    line = next(line for line in worker.log if "listening" in line)
    return re.findall(role + r':(tcp://[^\s"]+)', line)


class Peer:
    """Where a producer and a consumer reach a worker."""

    def __init__(self, input: str, output: str) -> None:
        self.input = input
        self.output = output


def test_worker_binds_and_answers_on_an_ipv6_address():
    worker = RunningWorker("--input", "tcp://[::1]:*", "--output", "tcp://[::1]:*")
    try:
        inputs, outputs = endpoints(worker, "input"), endpoints(worker, "output")
        assert inputs[1].startswith("tcp://[::1]:") and outputs[1].startswith("tcp://[::1]:"), (inputs, outputs)
        # The Python client turns IPv6 on for such an address too.
        assert "match" in answered(Peer(inputs[1], outputs[1]), "over-ipv6")
    finally:
        assert worker.stop() == 0


def test_ipv6_on_binds_both_families():
    worker = RunningWorker("--input", "tcp://*:*", "--output", "tcp://*:*", "--ipv6", "on")
    try:
        # The wildcard endpoints, after the fixture's 127.0.0.1 ones: bound to both families.
        input_port = endpoints(worker, "input")[1].rsplit(":", 1)[1]
        output_port = endpoints(worker, "output")[1].rsplit(":", 1)[1]
        for host, session in (("127.0.0.1", "dual-stack-4"), ("[::1]", "dual-stack-6")):
            peer = Peer("tcp://%s:%s" % (host, input_port), "tcp://%s:%s" % (host, output_port))
            assert "match" in answered(peer, session)
    finally:
        assert worker.stop() == 0


def test_proxy_takes_ipv6_addresses():
    proxy = subprocess.Popen([worker_binary(), "proxy", "--frontend", "tcp://[::1]:*", "--backend", "tcp://[::1]:*"],
                             stderr=subprocess.PIPE, text=True)
    try:
        line = proxy.stderr.readline()
        assert "listening" in line and re.search(r"frontend=tcp://\[::1\]:\d+", line), line
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()



def test_clients_set_ipv6_where_needed_or_asked():
    """libzmq's IPv6 option: off for an IPv4 address, on for one in brackets, on everywhere with ipv6=True (a host
    name then resolves to IPv6 addresses too; this machine's resolver has no IPv6 name to try it on)."""
    from stroke_client import AsyncConsumer, Consumer, Producer

    cases = [("tcp://127.0.0.1:5999", False, 0), ("tcp://[::1]:5999", False, 1), ("tcp://localhost:5999", True, 1)]
    for endpoint, asked, expected in cases:
        with Producer(endpoint, ipv6=asked) as producer, Consumer(endpoint, ipv6=asked) as consumer:
            assert producer.socket.getsockopt(zmq.IPV6) == expected, endpoint
            assert consumer.socket.getsockopt(zmq.IPV6) == expected, endpoint
        consumer = AsyncConsumer(endpoint, ipv6=asked)
        try:
            assert consumer.socket.getsockopt(zmq.IPV6) == expected, endpoint
        finally:
            consumer.close()
