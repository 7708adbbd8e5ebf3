#!/usr/bin/env python3
"""What the proxy's own forwarding loop costs against libzmq's proxy.

`stroke-worker proxy --max-message-bytes 0 --max-subscription-bytes 0` forwards with libzmq's zmq_proxy_steerable,
unless it admits listed client keys (--curve-authorized-keys): it then runs a loop of its own that reads who sent each
message, so that a reload that revokes a key can cut that client's connection. It runs that loop too when a side connects (connect:ADDR), so that an
endpoint libzmq gave up after a refused handshake can be connected again (--handshake-retry; the input and output
forwarders of a worker with several lanes do the same). This runs the two alternately on 127.0.0.1, a pyzmq publisher
and subscriber on either side, and prints the rate that arrives and the proxy's CPU time per message (from /proc: both
its threads, CURVE's encryption included).

By default both sides are CURVE, the clients' key listed or not. With --connect there is no CURVE: the proxy's
backend connects to the subscriber, with --handshake-retry 0 and both limits 0 (libzmq's proxy) or the default
(the loop of its own).

Usage: scripts/proxy-filtering.py [--worker PATH] [--rounds N] [--messages N] [--connect]
"""
import argparse
import os
import subprocess
import tempfile
import threading
import time

import zmq

# The options that keep libzmq's proxy: no largest message size (session 89), no limit on subscriptions (session 90).
LIBZMQ_PROXY = ["--max-message-bytes", "0", "--max-subscription-bytes", "0"]

def run(worker, directory, keys, filtering, port, messages, connect=False):
    server_public, client_public, client_secret = keys
    args = [worker, "proxy", "--frontend", f"bind:tcp://127.0.0.1:{port}", "--hwm", "1000000"]
    if connect:
        # The subscriber binds and the proxy connects to it; --handshake-retry 0 and both limits 0 keep libzmq's proxy
        # (since session 89 a frontend with a largest message size runs the loop of its own, since session 90 a
        # backend with a limit on subscriptions).
        args += ["--backend", f"connect:tcp://127.0.0.1:{port + 1}"]
        args += [] if filtering else ["--handshake-retry", "0", *LIBZMQ_PROXY]
    else:
        args += ["--backend", f"bind:tcp://127.0.0.1:{port + 1}", "--curve-secret-key", f"{directory}/server.key"]
        args += ["--curve-authorized-keys", f"{directory}/clients.keys"] if filtering else LIBZMQ_PROXY
    proxy = subprocess.Popen(args, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    context = zmq.Context()
    try:
        sockets = []
        for kind, endpoint in ((zmq.XPUB, port), (zmq.SUB, port + 1)):
            socket = context.socket(kind)
            if not connect:
                socket.curve_serverkey = server_public
                socket.curve_publickey = client_public
                socket.curve_secretkey = client_secret
            socket.setsockopt(zmq.SNDHWM, 0)
            socket.setsockopt(zmq.RCVHWM, 0)
            socket.linger = 0
            if kind == zmq.SUB:
                socket.setsockopt(zmq.SUBSCRIBE, b"")
            if connect and kind == zmq.SUB:
                socket.bind(f"tcp://127.0.0.1:{endpoint}")
            else:
                socket.connect(f"tcp://127.0.0.1:{endpoint}")
            sockets.append(socket)
        publisher, subscriber = sockets
        # A bound SUB attaches a connection, and sends it its subscription, only when its thread calls into it
        # (libzmq's zeromq/libzmq#2267): it polls while the publisher waits.
        while not publisher.poll(100):
            subscriber.poll(0)
        publisher.recv()  # the subscription came up through the proxy: nothing sent from now on is lost
        subscriber.rcvtimeo = 5000
        received = [0]

        def receive():
            try:
                while received[0] < messages:
                    subscriber.recv_multipart()
                    received[0] += 1
            except zmq.Again:
                pass

        started = time.perf_counter()
        thread = threading.Thread(target=receive)
        thread.start()
        for _ in range(messages):
            publisher.send_multipart([b"abc/session", b"x" * 32])
        thread.join()
        elapsed = time.perf_counter() - started
        fields = open(f"/proc/{proxy.pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return received[0] / elapsed, cpu * 1e6 / max(received[0], 1)
    finally:
        proxy.terminate()
        proxy.wait()
        context.destroy(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", default=".build/release/stroke-worker")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--messages", type=int, default=400_000)
    parser.add_argument("--connect", action="store_true", help="no CURVE; the proxy's backend connects")
    options = parser.parse_args()
    server_public, server_secret = zmq.curve_keypair()
    client_public, client_secret = zmq.curve_keypair()
    with tempfile.TemporaryDirectory() as directory:
        with open(f"{directory}/server.key", "w") as file:
            file.write(server_secret.decode() + "\n")
        with open(f"{directory}/clients.keys", "w") as file:
            file.write(client_public.decode() + "\n")
        keys = (server_public, client_public, client_secret)
        for round_ in range(options.rounds):
            port = 7100 + 10 * round_
            plain = run(options.worker, directory, keys, False, port, options.messages, options.connect)
            own = run(options.worker, directory, keys, True, port + 5, options.messages, options.connect)
            print(f"round {round_ + 1}: libzmq's proxy {plain[0] / 1e3:.0f} k msg/s, "
                  f"{plain[1]:.2f} µs CPU per message; "
                  f"the filtering loop {own[0] / 1e3:.0f} k msg/s, {own[1]:.2f} µs CPU per message")


if __name__ == "__main__":
    main()
