#!/usr/bin/env python3
"""Sessions adopted at a change of the shard count (`--adopt-state`): how long a worker's start takes, and that
every session comes back once.

Writes the state files of 3 workers (shards 0/3, 1/3, 2/3) that stopped with SESSIONS sessions each (every tenth
chose two gestures), as a graceful stop leaves them. Times the start of a worker on one of them as before (0/3,
its own file alone), then the change to 2 workers: 0/2 on the first file and 1/2 on the second, one after the
other, each adopting from the directory of all three (to its `listening` line, then SIGTERM). Checks that the two
new workers restored every session exactly once between them, as the log's counts say.

With --learning-every K, every Kth session also learned a gesture (a template of 32 points, as a worker keeps
one), as sessions of a game that teaches gestures hold.

Usage: scripts/adopt-state.py [--worker PATH] [--sessions N] [--learning-every K]
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from stroke_client import bucket  # noqa: E402


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_files(directory, per_worker, learning_every=0):
    """The state files of workers 0/3, 1/3 and 2/3; returns their paths."""
    sessions = {index: [] for index in range(3)}
    k = 0
    while min(len(held) for held in sessions.values()) < per_worker:
        session = "player-%d" % k
        k += 1
        held = sessions[bucket(session) % 3]
        if len(held) < per_worker:
            # As a worker writes a session since session 47: its id first.
            entry = {"session": session, "checkmark": True, "eventSeq": 5, "library": "default", "multistroke": 0,
                     "seq": 9}
            if k % 10 == 0:
                entry["gestures"] = ["check", "v"]
            if learning_every and k % learning_every == 0:
                entry["learned"] = [{"name": "bolt", "points": [[round(100 + 40 * (j % 5) + 0.37 * j, 3),
                                                                 round(100 + 7.5 * j, 3)] for j in range(32)]}]
            held.append(entry)
    paths = []
    for index, held in sessions.items():
        os.makedirs(os.path.join(directory, "worker-%d" % index))
        path = os.path.join(directory, "worker-%d" % index, "sessions.json")
        with open(path, "w") as handle:
            # As a worker writes it: the shard whose sessions these are, and when (to the millisecond).
            saved_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
            json.dump({"format": "stroke-worker-state", "version": 1, "shard": "%d/3" % index,
                       "savedAt": saved_at.replace("+00:00", "Z"), "sessions": held}, handle)
        paths.append(path)
    return paths


def start_and_stop(worker, arguments):
    """Starts a worker, waits for `listening`, stops it; returns (start seconds, sessions restored)."""
    command = [worker, "--input", "bind:tcp://127.0.0.1:%d" % free_port(),
               "--output", "bind:tcp://127.0.0.1:%d" % free_port(), "--stats-interval", "0"] + arguments
    began = time.monotonic()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "listening" in line:
            break
    started = time.monotonic() - began
    process.send_signal(signal.SIGTERM)
    lines += process.stderr.read().splitlines()
    if process.wait() != 0:
        sys.exit("the worker exited %d:\n%s" % (process.returncode, "".join(lines[-20:])))
    restored = sum(int(match.group(1)) for line in lines for match in [re.search(r" restored=(\d+)", line)]
                   if match)
    return started, restored


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", default=os.path.join(ROOT, ".build", "release", "stroke-worker"))
    parser.add_argument("--sessions", type=int, default=100_000, help="sessions per old worker (default 100000)")
    parser.add_argument("--learning-every", type=int, default=0,
                        help="every Kth session learned a gesture (default 0: none)")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="stroke-adopt-")
    try:
        first, second, _ = write_files(directory, args.sessions, args.learning_every)
        backup = directory + ".orig"
        shutil.copytree(directory, backup)
        seconds, restored = start_and_stop(args.worker, ["--shard", "0/3", "--state-file", first])
        print("before, 0/3 on its own file: started in %.3f s, %d sessions restored" % (seconds, restored))
        shutil.rmtree(directory)
        shutil.copytree(backup, directory)
        shutil.rmtree(backup)
        total = 0
        for shard, own in [("0/2", first), ("1/2", second)]:
            seconds, restored = start_and_stop(
                args.worker, ["--shard", shard, "--state-file", own, "--adopt-state", directory])
            total += restored
            print("after, %s adopting from all three: started in %.3f s, %d sessions restored" % (
                shard, seconds, restored))
        ok = total == 3 * args.sessions
        print("%s: the 2 new workers restored %d sessions of %d" % ("ok" if ok else "FAIL", total, 3 * args.sessions))
        return 0 if ok else 1
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
