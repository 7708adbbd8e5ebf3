"""A message far larger than a worker takes ends the connection it came on, and costs no one else a message.

A worker disconnects a producer whose message passes four times `--max-message-bytes` (`ZMQ_MAXMSGSIZE`), so that
such a message is never taken whole into memory. Before session 88 only a worker of one lane did: the input
forwarder of a worker of several lanes took any size and handed it to a lane, which refused it only then; and a
proxy forwarded any size, so that a worker behind it cut its connection to the proxy instead of the producer's, and
the messages of every other producer on their way to it were lost.
"""

import time

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from conftest import RunningWorker
from stroke_client import Consumer, Producer
from stroke_client.shard import topic
from test_command_line import start_proxy_with_control


def wait_for_event(monitor: zmq.Socket, wanted: int, timeout: float = 10.0) -> bool:
    """Whether the monitor reports `wanted` within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if monitor.poll(int(max(deadline - time.monotonic(), 0) * 1000) + 1):
            if recv_monitor_message(monitor)["event"] == wanted:
                return True
    return False


def send_oversized(endpoint: str, size: int, all_buckets: bool) -> bool:
    """Connects a producer to `endpoint`, sends one message whose payload is `size` bytes, and says whether its
    connection was then ended by the other side."""
    context = zmq.Context()
    try:
        with Producer(endpoint, context=context) as producer:
            monitor = producer.socket.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
            if all_buckets:
                producer.wait_for_all_buckets()
            else:
                producer.wait_for_worker()
            producer.socket.send_multipart([topic("too-large"), b"x" * size])
            cut = wait_for_event(monitor, zmq.EVENT_DISCONNECTED)
            producer.socket.disable_monitor()
            monitor.close()
            return cut
    finally:
        context.destroy(linger=0)


@pytest.mark.parametrize("lanes", ["1", "2"])
def test_a_worker_of_any_number_of_lanes_disconnects_a_producer_of_a_message_far_too_large(lanes):
    worker = RunningWorker("--lanes", lanes, "--max-message-bytes", "65536")
    try:
        with Consumer(worker.output, prefixes=["too-large", "other"]) as consumer:
            # Four times 65,536 bytes and one more: the producer is cut, and the worker never answers the message.
            assert send_oversized(worker.input, 4 * 65536 + 1, all_buckets=lanes != "1"), "".join(worker.log)
            with Producer(worker.input) as producer:
                if lanes == "1":
                    producer.wait_for_worker()
                else:
                    producer.wait_for_all_buckets()
                consumer.wait_until_read(producer, ["too-large", "other"])
                events = []
                while (event := consumer.receive(timeout=0.2)) is not None:
                    events.append(event)
                assert not [event for event in events if event.kind == "error"], events
                # One below the disconnecting size is read, and refused with an error event as too large.
                producer.socket.send_multipart([topic("other"), b"x" * (4 * 65536)])
                event = consumer.receive(timeout=10)
                assert event is not None and event.kind == "error" and event.session == "other", event
                assert "the limit is 65536" in event.get("message", ""), event.fields
    finally:
        assert worker.stop() == 0


def test_a_proxy_disconnects_a_producer_of_a_message_its_workers_would_disconnect_it_for():
    proxy, fields = start_proxy_with_control()
    worker = None
    try:
        worker = RunningWorker("--input", "connect:" + fields["backend"])
        with Consumer(worker.output, prefixes=["steady"]) as consumer, Producer(fields["frontend"]) as steady:
            steady.wait_for_worker()
            consumer.wait_until_read(steady, ["steady"])
            sent = 0

            def ping_for(seconds: float) -> None:
                nonlocal sent
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    steady.ping("steady", seq=sent)
                    sent += 1
                    time.sleep(0.002)

            ping_for(0.3)
            # Past a worker's default size (4 MiB): before, the worker cut its connection to the proxy for it, and
            # the pings on their way to it then were lost.
            assert send_oversized(fields["frontend"], 5 << 20, all_buckets=False)
            ping_for(0.5)
            answered = set()
            while (event := consumer.receive(timeout=2)) is not None:
                if event.kind == "pong":
                    answered.add(event.get("seq"))
            assert answered == set(range(sent)), sorted(set(range(sent)) - answered)[:20]
    finally:
        if worker is not None:
            assert worker.stop() == 0
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()


def subscribe_oversized(endpoint: str, size: int) -> bool:
    """Connects a raw XSUB to `endpoint`, sends one subscription of `size` bytes, and says whether its connection
    was then ended by the other side."""
    context = zmq.Context()
    try:
        subscriber = context.socket(zmq.XSUB)
        monitor = subscriber.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        subscriber.connect(endpoint)
        assert wait_for_event(monitor, zmq.EVENT_CONNECTED)
        subscriber.send(b"\x01" + b"x" * (size - 1))
        return wait_for_event(monitor, zmq.EVENT_DISCONNECTED)
    finally:
        context.destroy(linger=0)


@pytest.mark.parametrize("lanes", ["1", "2"])
def test_a_consumer_sending_a_message_longer_than_any_subscription_is_disconnected(lanes):
    """Session 88: a consumer's messages to the worker's output were read whatever their size, and libzmq keeps a
    subscription in a tree of about a node per byte: five subscriptions of 50 MiB took a worker to 1.5 GB resident
    (2.0 GB with two lanes). A consumer's message over 1 KiB now ends its connection; the longest topic, a session id
    of 128 bytes, is still subscribed to and answered."""
    worker = RunningWorker("--lanes", lanes)
    try:
        assert subscribe_oversized(worker.output, 1025), "".join(worker.log)
        longest = "s" * 128
        with Consumer(worker.output, prefixes=[longest]) as consumer, Producer(worker.input) as producer:
            if lanes == "1":
                producer.wait_for_worker()
            else:
                producer.wait_for_all_buckets()
            consumer.wait_until_read(producer, [longest])
            producer.ping(longest, seq=7)
            event = consumer.receive(timeout=10)
            assert event is not None and event.kind == "pong" and event.session == longest, event
    finally:
        assert worker.stop() == 0


def test_a_proxy_disconnects_a_subscriber_sending_a_message_longer_than_any_subscription():
    proxy, fields = start_proxy_with_control()
    try:
        assert subscribe_oversized(fields["backend"], 1025)
        assert proxy.poll() is None
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()
