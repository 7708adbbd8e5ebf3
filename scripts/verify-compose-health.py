#!/usr/bin/env python3
"""Runs the health checks of Deploy/docker-compose.yml against a real stroke-worker and a real proxy, as Compose
would run them in their containers: each must pass while its process runs, and fail once it is gone.

Compose cannot run here (no Docker engine), so each check's command is taken from the file and run with bash on
this machine, against a process whose metrics port stands in for the container's (9100 for the workers, 9101 for
the proxies).

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


def probe(command, container_port: str, port: int) -> int:
    argv = [part.replace(container_port, str(port)) for part in command[1:]]
    return subprocess.run(argv, capture_output=True, timeout=10).returncode


def verify(name: str, command, container_port: str, arguments) -> bool:
    """Whether `command` passes while the process `arguments` (with its metrics port) runs, and fails after."""
    if command[0] != "CMD" or container_port not in " ".join(command):
        print("verify-compose-health: the %s check is not a CMD on port %s: %r" % (name, container_port, command),
              file=sys.stderr)
        return False
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    process = subprocess.Popen(arguments + ["--metrics", "127.0.0.1:%d" % port], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        healthy = probe(command, container_port, port)
        while healthy != 0 and time.monotonic() < deadline:
            time.sleep(0.1)
            healthy = probe(command, container_port, port)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
    gone = probe(command, container_port, port)
    if healthy != 0 or gone == 0:
        print("verify-compose-health: the %s check gave %d with it running and %d without it"
              % (name, healthy, gone), file=sys.stderr)
        return False
    print("compose health check of the %s: passes while it runs, fails without it" % name)
    return True


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    with open(os.path.join(ROOT, "Deploy", "docker-compose.yml")) as handle:
        compose = yaml.safe_load(handle)
    worker = verify(
        "workers", compose["x-worker"]["healthcheck"]["test"], "9100",
        [binary, "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "--stats-interval", "0"])
    proxies = all(
        verify(name, compose["services"][name]["healthcheck"]["test"], "9101",
               [binary, "proxy", "--frontend", "bind:tcp://127.0.0.1:*", "--backend", "bind:tcp://127.0.0.1:*"])
        for name in ("input-proxy", "results-proxy"))
    return 0 if worker and proxies else 1


if __name__ == "__main__":
    sys.exit(main())
