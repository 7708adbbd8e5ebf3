"""A producer that sends and closes its connection while the worker is behind loses nothing.

Whatever the worker has not read yet of such a producer's messages waits in the worker's TCP receive buffer. If
the worker then writes anything on that connection (a ZMTP heartbeat did, every 5 s, until session 70), the
producer's system answers with a reset and the worker's system discards those messages. The worker is stopped
(SIGSTOP) while the producer sends and closes, for longer than the heartbeat interval it used to have, so that
it would write one the moment it runs again, before reading.
"""

import os
import signal
import time

import zmq

from conftest import RunningWorker
from stroke_client.client import Consumer, Producer

# A stroke of 40 points, sent as two binary messages of up to 32 points and an end.
POINTS = [(100 + 3 * i, 200 + 2 * i, 10.0 * i) for i in range(40)]


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
