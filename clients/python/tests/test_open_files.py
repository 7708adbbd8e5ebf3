"""A worker started under a low soft limit on open files raises it to the hard limit (session 72).

Each producer's and consumer's connection takes a file. Past the limit libzmq cannot accept a connection, and its
I/O thread tries again at once, keeping a core busy while no new producer gets in: before session 72 a worker under
`ulimit -S -n 64` with 100 idle connections open spun a core at 100% and answered no new producer.
"""

import resource
import socket

from conftest import RunningWorker
from test_log_reader import answered


def low_soft_limit() -> None:
    """In the worker's process before it starts: a soft limit of 64 open files under the hard limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))


def test_worker_takes_producers_beyond_a_low_soft_limit():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard == resource.RLIM_INFINITY or hard >= 1024, "this test needs a hard limit of at least 1,024"
    worker = RunningWorker(preexec_fn=low_soft_limit)
    idle = []
    try:
        assert any("open files limit raised" in line and "from=64" in line for line in worker.log), worker.log
        host, port = worker.input.rsplit("//", 1)[1].rsplit(":", 1)
        for _ in range(100):
            idle.append(socket.create_connection((host, int(port))))
        # A producer and a consumer beyond the 64 files of the soft limit it started with.
        assert "match" in answered(worker, "past-the-soft-limit")
    finally:
        for connection in idle:
            connection.close()
        assert worker.stop() == 0
