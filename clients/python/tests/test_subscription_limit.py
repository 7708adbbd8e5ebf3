"""A consumer that subscribes to ever more prefixes has its connection cut, and costs no one else an event.

libzmq keeps every subscription a consumer sends, in a tree of about a node per byte, for as long as the connection
lasts, and bounds neither their number nor their total. Before session 90 a raw subscriber that sent 100,000
distinct prefixes of 1,000 bytes (100 MB) took a worker from 28.8 to 3,107.6 MB resident and a proxy to 6,112.1 MB (it
keeps them twice, on either side), and neither logged anything. Now the owner of the output socket reads every subscription and unsubscription with the connection it came
on, and cuts a connection whose prefixes pass `--max-subscription-bytes` (each counted as its bytes and 64), with a
warning that names its peer; a worker's bound output and a proxy's bound backend alike.
"""

import re
import subprocess

import zmq

from conftest import LogTail, free_port, http_get, pings_answered, worker_binary
from stroke_client import Consumer, Producer

LIMIT = 65536


def greedy_subscriber(context: zmq.Context, endpoint: str) -> zmq.Socket:
    """A raw subscriber (XSUB) that never connects again once cut, and sends distinct prefixes of 100 bytes, each
    counted as 164, up to the first past the limit."""
    greedy = context.socket(zmq.XSUB)
    greedy.setsockopt(zmq.LINGER, 0)
    greedy.setsockopt(zmq.RECONNECT_IVL, -1)
    greedy.setsockopt(zmq.SNDHWM, 0)
    greedy.connect(endpoint)
    for index in range(LIMIT // 164 + 1):
        greedy.send(b"\x01" + (b"greedy-%06d-" % index).ljust(100, b"g"))
    return greedy


class Target:
    """A worker with `--metrics`, or a proxy with `--metrics`: where publishers or producers connect, where
    subscribers do, the log to read and the metric that counts the cuts."""

    def __init__(self, kind: str) -> None:
        self.metrics = "127.0.0.1:%d" % free_port()
        limit = ["--max-subscription-bytes", str(LIMIT), "--metrics", self.metrics]
        if kind == "proxy":
            command = [worker_binary(), "proxy", "--frontend", "tcp://127.0.0.1:*", "--backend",
                       "tcp://127.0.0.1:*", *limit]
            ready, names, self.counter = "proxy listening", ("frontend", "backend"), "stroke_proxy_subscribers_cut_total"
        else:
            command = [worker_binary(), "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*",
                       "--stats-interval", "0", "--lanes", "1", *limit]
            ready, names, self.counter = "listening", ("input", "output"), "stroke_worker_subscribers_cut_total"
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        self.log = []
        self.tail = LogTail(self.process.stderr, self.log)
        line = self.tail.wait_for(ready, since=0)
        self.input, self.output = (re.search(r'%s[:=]"?([^\s",]+)' % name, line).group(1) for name in names)

    def cuts(self) -> int:
        status, body = http_get(self.metrics, "/metrics")
        assert status == 200
        return int(re.search(r"^%s(?:\{[^}]*\})? (\d+)$" % self.counter, body, re.MULTILINE).group(1))

    def stop(self) -> None:
        self.process.terminate()
        assert self.process.wait(timeout=20) == 0, "".join(self.log)


def test_a_worker_cuts_a_consumer_past_the_limit_and_keeps_the_others():
    target = Target("worker")
    context = zmq.Context()
    try:
        with Consumer(target.output, prefixes=["steady"]) as consumer, Producer(target.input) as producer:
            producer.wait_for_worker()
            consumer.wait_until_read(producer, ["steady"])
            # Under the limit, subscribing and letting go of 1,000 sessions in turn (164 KB in all) is never cut.
            churner = context.socket(zmq.SUB)
            churner.setsockopt(zmq.SNDHWM, 0)  # a SUB socket drops the subscriptions past its high-water mark
            churner.connect(target.output)
            for index in range(1000):
                prefix = (b"session-%06d-" % index).ljust(100, b"c")
                churner.subscribe(prefix)
                churner.unsubscribe(prefix)
            # The churner's messages all reach the worker before the flood: it pings its own session until the pong
            # comes back (its subscription, sent last, is then in place).
            churner.subscribe(b"churner")
            for seq in range(200):
                producer.ping("churner", seq=seq)
                if churner.poll(50):
                    break
            assert churner.poll(0), "the churner's subscription never reached the worker"
            greedy = greedy_subscriber(context, target.output)
            line = target.tail.wait_for("passed the limit", since=0)
            assert " warning " in line, line
            assert re.search(r'"?peer"?[=:]"?127\.0\.0\.1:\d+', line), line
            assert target.cuts() == 1
            # The steady consumer and the churner still receive every answer.
            assert pings_answered(producer, consumer, "steady", range(10)) == set(range(10))
            while churner.poll(200):
                churner.recv_multipart()
            producer.ping("churner", seq=1000)
            assert churner.poll(5000), "the churner received nothing"
            assert target.cuts() == 1, "".join(target.log)
            greedy.close()
            churner.close()
    finally:
        context.destroy(linger=0)
        target.stop()


def test_a_proxy_cuts_a_subscriber_past_the_limit():
    target = Target("proxy")
    context = zmq.Context()
    try:
        publisher = context.socket(zmq.PUB)
        publisher.connect(target.input)
        steady = context.socket(zmq.SUB)
        steady.subscribe(b"steady")
        steady.connect(target.output)
        # Until the steady subscription has gone through the proxy to the publisher.
        for _ in range(200):
            publisher.send_multipart([b"steady", b"hello"])
            if steady.poll(50):
                break
        assert steady.recv_multipart() == [b"steady", b"hello"]
        greedy = greedy_subscriber(context, target.output)
        line = target.tail.wait_for("passed the limit", since=0)
        assert re.search(r'"?peer"?[=:]"?127\.0\.0\.1:\d+', line), line
        assert target.cuts() == 1
        while steady.poll(0):
            steady.recv_multipart()
        publisher.send_multipart([b"steady", b"after"])
        assert steady.poll(5000)
        assert steady.recv_multipart() == [b"steady", b"after"]
        greedy.close()
        publisher.close()
        steady.close()
    finally:
        context.destroy(linger=0)
        target.stop()
