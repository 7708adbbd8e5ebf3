#!/usr/bin/env python3
"""Runs the workers' health check of Deploy/docker-compose.yml against a real stroke-worker, as Compose would run
it in the container: it must pass while the worker runs, and fail once the worker is gone.

Compose cannot run here (no Docker engine), so the check's command is taken from the file and run with bash on
this machine, against a worker whose metrics port stands in for the container's 9100.

Usage: scripts/verify-compose-health.py WORKER_BINARY
"""

import os
import signal
import socket
import subprocess
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def probe(command, port: int) -> int:
    argv = [part.replace("9100", str(port)) for part in command[1:]]
    return subprocess.run(argv, capture_output=True, timeout=10).returncode


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(ROOT, "Deploy", "docker-compose.yml")) as handle:
        compose = yaml.safe_load(handle)
    command = compose["x-worker"]["healthcheck"]["test"]
    if command[0] != "CMD" or "9100" not in " ".join(command):
        print("verify-compose-health: the check is not a CMD on port 9100: %r" % command, file=sys.stderr)
        return 1
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    worker = subprocess.Popen(
        [sys.argv[1], "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval", "0",
         "--metrics", "127.0.0.1:%d" % port], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        healthy = probe(command, port)
        while healthy != 0 and time.monotonic() < deadline:
            time.sleep(0.1)
            healthy = probe(command, port)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=20)
    gone = probe(command, port)
    if healthy != 0 or gone == 0:
        print("verify-compose-health: the check gave %d with the worker running and %d without it"
              % (healthy, gone), file=sys.stderr)
        return 1
    print("compose health check: passes while the worker runs, fails without it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
