"""A producer that sends and closes its connection while the worker is behind loses nothing.

Whatever the worker has not read yet of such a producer's messages waits in the worker's TCP receive buffer. If
the worker then writes anything on that connection (a ZMTP heartbeat did, every 5 s, until session 70), the
producer's system answers with a reset and the worker's system discards those messages. The worker is stopped
(SIGSTOP) while the producer sends and closes, for longer than the heartbeat interval it used to have, so that
it would write one the moment it runs again, before reading.
"""

import asyncio
import contextlib
import os
import signal
import time

import zmq
import zmq.asyncio

from conftest import RunningWorker
from stroke_client.client import AsyncConsumer, Consumer, Producer

# A stroke of 40 points, sent as two binary messages of up to 32 points and an end.
POINTS = [(100 + 3 * i, 200 + 2 * i, 10.0 * i) for i in range(40)]


@contextlib.contextmanager
def subscribed_pair(prefix: str):
    """A worker of its own, and a consumer of the sessions starting with `prefix` and a binary producer, subscribed to
    each other; the worker must exit 0 at the end."""
    worker = RunningWorker()
    context = zmq.Context()
    try:
        consumer = Consumer(worker.output, prefixes=[prefix], context=context)
        producer = Producer(worker.input, context=context, binary=True)
        producer.wait_for_all_buckets()
        consumer.wait_until_subscribed(producer)
        yield consumer, producer
    finally:
        context.destroy(linger=0)
        assert worker.stop() == 0


def answered_after_close(worker: RunningWorker, strokes: int, pause: float) -> int:
    """Strokes answered when a producer sends `strokes` to the stopped worker, closes, and the worker runs again
    `pause` seconds later."""
    context = zmq.Context()
    consumer = Consumer(worker.output, context=context)
    producer = Producer(worker.input, context=context, binary=True)
    try:
        producer.wait_for_all_buckets()
        consumer.wait_until_subscribed(producer)
        os.kill(worker.process.pid, signal.SIGSTOP)
        try:
            for index in range(strokes):
                producer.send_stroke("closing-%d" % (index % 50), POINTS, batch=32)
            producer.close()  # its messages are in the kernel's buffers (well under its 2-s linger)
            time.sleep(pause)
        finally:
            os.kill(worker.process.pid, signal.SIGCONT)
        answered = 0
        while answered < strokes:
            event = consumer.receive(timeout=5.0)
            if event is None:
                break
            if event.kind in ("match", "nomatch"):
                answered += 1
        return answered
    finally:
        consumer.close()
        context.term()


def test_a_producer_that_closes_while_the_worker_is_stopped_loses_nothing():
    # The input queue holds few messages, so that most of the producer's wait unread in the connection.
    worker = RunningWorker("--input-hwm", "10")
    try:
        # Longer than the 5-s heartbeat the worker had by default: with it, this answered 29 strokes of 300.
        assert answered_after_close(worker, 300, pause=5.5) == 300
    finally:
        assert worker.stop() == 0


def test_wait_until_read_returns_once_every_event_of_those_sessions_is_in():
    """`Consumer.wait_until_read` pings the sessions and waits for their pongs: since a worker answers each
    session in order, every event of what was sent before is then in the consumer (kept for `receive`, with the
    events that came while it waited), and the producer may close."""
    with subscribed_pair("read-") as (consumer, producer):
        sessions = ["read-%d" % index for index in range(20)]
        for index in range(300):
            producer.send_stroke(sessions[index % 20], POINTS, batch=32)
        consumer.wait_until_read(producer, sessions)
        producer.close()
        kinds = []
        while True:
            event = consumer.receive(timeout=0)  # all already in: nothing waited for
            if event is None:
                break
            kinds.append(event.kind)
        assert kinds.count("match") + kinds.count("nomatch") == 300
        assert "pong" not in kinds and consumer.gaps == 0



def test_wait_until_read_in_asyncio():
    worker = RunningWorker()
    try:
        async def run() -> list:
            context = zmq.asyncio.Context()
            events = AsyncConsumer(worker.output, prefixes=["aread-"], context=context)
            producer = Producer(worker.input, binary=True)
            try:
                producer.wait_for_all_buckets()
                await events.wait_until_subscribed(producer)
                producer.send_stroke("aread-1", POINTS, batch=32)
                await events.wait_until_read(producer, ["aread-1"], timeout=10.0)
                first = await events.receive(timeout=0)
                return [first.kind if first else None, await events.receive(timeout=0)]
            finally:
                producer.close()
                context.destroy(linger=0)

        kind, rest = asyncio.run(run())
        assert kind in ("match", "nomatch") and rest is None
    finally:
        assert worker.stop() == 0


def test_wait_until_subscribed_keeps_the_events_that_arrive_meanwhile():
    """A consumer that checks its subscription again while its sessions' events flow (after a worker restarted,
    say) loses none of them: until session 71, every event that arrived while the probe waited, and for 20 ms after
    its pong, was thrown away."""
    with subscribed_pair("live-") as (consumer, producer):
        for index in range(100):
            producer.send_stroke("live-%d" % (index % 10), POINTS, batch=32)
        consumer.wait_until_subscribed(producer)
        answered = 0
        while answered < 100:
            event = consumer.receive(timeout=5.0)
            if event is None:
                break
            assert not event.session.startswith("probe-")
            if event.kind in ("match", "nomatch"):
                answered += 1
        assert answered == 100 and consumer.gaps == 0

