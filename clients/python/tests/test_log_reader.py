"""A worker outlives the reader of its log: a collector that dies, or one that stops reading (session 72).

Until session 72 the first log line after the reader of standard error had gone ended the worker with SIGPIPE
(exit status 141 from a shell), its sessions and state file unwritten; and a reader that stopped reading, once the
pipe behind it was full, blocked the lane in the write of its statistics line: the worker answered nothing, and did not
stop on SIGTERM.
"""

import os
import signal
import time

from conftest import RunningWorker
from stroke_client import Consumer, Producer

CHECK = [(20, 100, 0), (32, 116, 40), (44, 148, 80), (100, 80, 160), (190, 0, 240)]


def answered(worker: RunningWorker, session: str) -> list:
    """The kinds of the events a stroke sent to `worker` for `session` gets."""
    with Consumer(worker.output, prefixes=[session]) as events, Producer(worker.input) as producer:
        producer.wait_for_all_buckets()
        events.wait_until_subscribed(producer)
        producer.send_stroke(session, CHECK)
        kinds = []
        for event in events.iter(timeout=10):
            kinds.append(event.kind)
            if event.kind in ("match", "nomatch"):
                break
        return kinds


def test_worker_outlives_a_log_reader_that_went_away(tmp_path):
    state = tmp_path / "sessions.json"
    worker = RunningWorker("--stats-interval", "1", "--state-file", str(state))
    worker.process.stderr.close()
    # Statistics are logged every second: two of them meet the broken pipe.
    time.sleep(2.5)
    assert worker.process.poll() is None, "the worker ended: status %s" % worker.process.returncode
    assert "match" in answered(worker, "reader-gone")
    worker.process.send_signal(signal.SIGTERM)
    assert worker.process.wait(timeout=20) == 0
    # Its graceful stop still wrote the state file, with the session's numbering.
    assert state.exists() and "reader-gone" in state.read_text()


def test_worker_goes_on_while_its_log_reader_reads_nothing():
    worker = RunningWorker("--stats-interval", "1")
    try:
        # The reader stops reading: fill the pipe behind the worker's log, then let it log for a while.
        os.set_blocking(worker.process.stderr.fileno(), False)
        filler = os.open("/proc/%d/fd/2" % worker.process.pid, os.O_WRONLY | os.O_NONBLOCK)
        try:
            while True:
                os.write(filler, b"." * 4096)
        except BlockingIOError:
            pass
        try:
            while True:
                os.write(filler, b".")
        except BlockingIOError:
            pass
        finally:
            os.close(filler)
        time.sleep(2.5)
        assert worker.process.poll() is None, "the worker ended: status %s" % worker.process.returncode
        assert "match" in answered(worker, "reader-asleep")
    finally:
        worker.process.send_signal(signal.SIGTERM)
        code = worker.process.wait(timeout=20)
        worker.process.stderr.close()
    assert code == 0
