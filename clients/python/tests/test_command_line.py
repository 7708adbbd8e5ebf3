"""What the worker and its proxy refuse before they start (session 76), each with the option named: a command line
they cannot read with status 2, a configuration they cannot run with 1.

libzmq 4.3 keeps a TCP port's low 16 bits and ignores what follows its digits: before, `--input tcp://127.0.0.1:99999`
listened on 34463 without a word. A `--state-file` that was a pipe, a directory or a device was moved aside as
unreadable and had a regular file renamed over its name at the stop (as root, `/dev/null` itself). The proxy took an
argument that was no option, and a negative `--hwm` failed in libzmq with only "Invalid argument". An `inproc://`
endpoint, which no other process can reach, is refused too (session 78).
"""

import json
import os
import socket
import subprocess
import time

import pytest
import zmq

from conftest import RunningWorker, worker_binary


def refused(*arguments: str, status: int = 2) -> str:
    """The worker's (or `proxy`'s) complaint, once it exited with `status` without starting."""
    result = subprocess.run([worker_binary(), *arguments], capture_output=True, text=True, timeout=20)
    assert result.returncode == status, (result.returncode, result.stderr)
    assert "listening" not in result.stderr
    return result.stderr


@pytest.mark.parametrize("endpoint, problem", [
    ("tcp://127.0.0.1:99999", 'the port must be a number in 1...65535 (or * or 0 to bind any free port), got "99999"'),
    ("tcp://127.0.0.1:5555x", 'got "5555x"'),
    ("connect:tcp://127.0.0.1:0", 'the port must be a number in 1...65535, got "0"'),
    ("127.0.0.1:5555", "expected TRANSPORT://ADDRESS"),
    # Session 78: the worker listened there for nobody; the proxy's own inproc names were "already in use".
    ("inproc://strokes", "inproc:// reaches only this process's own threads, so no other process could connect"),
])
def test_an_endpoint_libzmq_would_misread_is_refused(endpoint, problem):
    error = refused("--input", endpoint, "--output", "tcp://127.0.0.1:0")
    assert "--input " in error and problem in error
    error = refused("proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", endpoint)
    assert "--backend " in error and problem in error


def test_two_endpoints_on_one_address_are_refused_naming_both():
    """Session 80: `--input tcp://127.0.0.1:P --output tcp://127.0.0.1:P` failed in libzmq with "Address already in
    use", which reads as another process holding the port; an input connected to the worker's own output took its
    events back as input, each answered with an error event that came back in turn."""
    error = refused("--input", "tcp://127.0.0.1:25901", "--output", "tcp://*:25901", status=1)
    assert "--output bind:tcp://*:25901 listens where --input bind:tcp://127.0.0.1:25901 does" in error
    error = refused("--input", "connect:tcp://127.0.0.1:25902", "--output", "tcp://127.0.0.1:25902", status=1)
    assert "connects to this worker's own --output bind:tcp://127.0.0.1:25902" in error
    # The proxy's, like the worker's, with status 1 (2 before session 86, as if an option could not be read).
    error = refused("proxy", "--frontend", "tcp://127.0.0.1:25903", "--backend", "tcp://127.0.0.1:25904",
                    "--metrics", "127.0.0.1:25904", status=1)
    assert "--metrics 127.0.0.1:25904 listens where --backend bind:tcp://127.0.0.1:25904 does" in error


def test_a_port_taken_by_another_process_stops_the_start_without_talk_of_draining():
    """Session 80: a worker whose input could not bind logged "shutting down: intake stopped, draining" after the
    error, though it had taken nothing in."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        error = refused("--input", f"tcp://127.0.0.1:{port}", "--output", "tcp://127.0.0.1:0", status=1)
    assert "Address already in use" in error
    assert "stopping before the start completed" in error and "draining" not in error


def test_a_taken_metrics_port_is_no_usage_error():
    """Session 85: a --metrics port another process held ended the worker and the proxy with status 2 and "See
    stroke-worker --help.", as a misspelt option does, where a taken --input ended it with status 1."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = f"127.0.0.1:{holder.getsockname()[1]}"
        error = refused("--input", "tcp://127.0.0.1:0", "--output", "tcp://127.0.0.1:0", "--metrics", taken, status=1)
        assert f"stroke-worker: --metrics {taken}: another process listens on this address" in error, error
        assert "--help" not in error
        error = refused("proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0", "--metrics",
                        taken, status=1)
        assert f"stroke-worker proxy: --metrics {taken}: another process listens on this address" in error, error


@pytest.mark.parametrize("side", ["--input", "--output"])
def test_a_taken_port_is_said_with_its_option_and_stops_a_worker_of_several_lanes(side):
    """Session 81: with --lanes 2, a worker whose output (or input) address another process held logged the error
    and then hung, even through SIGTERM (its output forwarder was never told to stop); and the error named neither
    the option nor a way out, only libzmq's "zmq_bind(…): Address already in use"."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = f"tcp://127.0.0.1:{holder.getsockname()[1]}"
        other = "--output" if side == "--input" else "--input"
        for lanes in ("1", "2"):
            error = refused(side, taken, other, "tcp://127.0.0.1:0", "--lanes", lanes, status=1)
            assert f"stroke-worker: {side} bind:{taken}: another process listens on this address" in error, error
            assert "or * for one the system chooses" in error
        error = refused("proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0", "--control",
                        taken, status=1)
        assert f"stroke-worker proxy: --control bind:{taken}: another process listens on this address" in error


def test_an_address_the_worker_cannot_listen_on_is_said_with_its_option_and_a_way_out(tmp_path):
    """Session 81: a socket's directory that does not exist, or an address no interface has, was libzmq's
    "zmq_bind(…): No such file or directory" or "Cannot assign requested address" alone."""
    missing = tmp_path / "no-such-dir" / "out.sock"
    error = refused("--input", "tcp://127.0.0.1:0", "--output", f"ipc://{missing}", status=1)
    assert f"--output bind:ipc://{missing}: the directory {missing.parent} does not exist" in error, error
    error = refused("proxy", "--frontend", "tcp://192.0.2.1:5", "--backend", "tcp://127.0.0.1:0", status=1)
    assert "--frontend bind:tcp://192.0.2.1:5: no network interface of this machine has that address" in error


def test_a_state_file_that_is_no_regular_file_is_refused_and_left_as_it_is(tmp_path):
    pipe = tmp_path / "state.fifo"
    os.mkfifo(pipe)
    for path, kind in [(pipe, "a pipe"), (tmp_path, "a directory")]:
        error = refused("--state-file", str(path), "--input", "tcp://127.0.0.1:0", "--output", "tcp://127.0.0.1:0",
                        status=1)
        assert f"--state-file {path}: it is {kind}; a state file is a regular file" in error
    assert pipe.is_fifo() and sorted(os.listdir(tmp_path)) == ["state.fifo"]


def test_a_state_file_that_cannot_be_written_at_the_stop_is_an_error_exit(tmp_path):
    """Session 81: a worker whose state file could not be written at the stop (its directory gone) logged the
    error and exited 0, as after a clean stop, though its sessions' numbering, options and learned gestures were
    lost. A stop with no session to keep stays a clean one."""
    from stroke_client import Consumer, Producer

    for sessions in (0, 1):
        directory = tmp_path / f"state-{sessions}"
        directory.mkdir()
        # No checkpoints: the one a worker writes right after its start raced the removal of its folder below (a
        # staging file listed, then renamed before it was removed: FileNotFoundError, and the worker left running).
        worker = RunningWorker("--state-file", str(directory / "sessions.json"), "--checkpoint-interval", "0")
        try:
            if sessions:
                with Producer(worker.input) as producer, Consumer(worker.output, prefixes=["keeper"]) as consumer:
                    producer.wait_for_worker()
                    producer.set_options("keeper", gestures=["check", "v"])
                    consumer.wait_until_read(producer, ["keeper"])
            for leftover in directory.iterdir():
                leftover.unlink()
            directory.rmdir()
        except BaseException:
            worker.stop()
            raise
        status = worker.stop()
        log = "".join(worker.process_log())
        assert "state file not written" in log
        if sessions:
            assert status == 1, log
            assert ("stroke-worker: io: the state file was not written at the stop, so 1 session's numbering, "
                    "options and learned gestures were not kept") in log
        else:
            assert status == 0, log


def test_a_state_file_named_by_one_character_is_written(tmp_path):
    """Session 87: `--state-file s` (a name of one character, in the working directory) crashed the worker where it
    wrote the file, at its checkpoints and at its stop (Foundation's NSString.deletingLastPathComponent traps on
    such a path), and every session it held was lost."""
    from stroke_client import Consumer, Producer

    worker = RunningWorker("--state-file", "s", "--checkpoint-interval", "1", cwd=str(tmp_path))
    try:
        with Producer(worker.input) as producer, Consumer(worker.output, prefixes=["keeper"]) as consumer:
            producer.wait_for_worker()
            producer.set_options("keeper", gestures=["check", "v"])
            consumer.wait_until_read(producer, ["keeper"])
        time.sleep(1.5)  # a checkpoint or two
    finally:
        status = worker.stop()
    log = "".join(worker.process_log())
    assert status == 0, log
    with open(tmp_path / "s") as handle:
        saved = json.load(handle)
    assert [session["session"] for session in saved["sessions"]] == ["keeper"], saved


def test_a_state_file_under_a_folder_named_tilde_is_that_file_not_one_in_the_home_directory(tmp_path):
    """Session 87: the worker opened, read and wrote its state file with POSIX calls, which take `~` as a name, but
    removed it once read, and moved one it could not read aside, with Foundation's FileManager, which takes `~` and
    `~/...` for the home directory: `--state-file ~` (given where no shell expands it: a systemd unit, a container's
    arguments) moved the home directory aside, or removed it whole, and `--state-file ~/sessions.json` left its own
    file in place and acted on the home directory's. Here the folder `~` is the working directory's own."""
    from stroke_client import Consumer, Producer

    folder = tmp_path / "~"
    folder.mkdir()
    (folder / "sessions.json").write_text("not a state file\n")
    worker = RunningWorker("--state-file", "~/sessions.json", cwd=str(tmp_path))
    try:
        # Moved aside (before: the home directory's sessions.json was looked for, and this one left to be overwritten).
        assert (folder / "sessions.json.unreadable").read_text() == "not a state file\n"
        with Producer(worker.input) as producer, Consumer(worker.output, prefixes=["keeper"]) as consumer:
            producer.wait_for_worker()
            producer.set_options("keeper", gestures=["check", "v"])
            consumer.wait_until_read(producer, ["keeper"])
    finally:
        status = worker.stop()
    assert status == 0, "".join(worker.process_log())
    assert json.loads((folder / "sessions.json").read_text())["sessions"][0]["session"] == "keeper"
    # Read, then removed (before: the home directory's was removed, and this one stayed).
    worker = RunningWorker("--state-file", "~/sessions.json", "--checkpoint-interval", "0", cwd=str(tmp_path))
    try:
        assert not (folder / "sessions.json").exists(), "".join(worker.log)
    finally:
        status = worker.stop()
    assert status == 0, "".join(worker.process_log())
    assert json.loads((folder / "sessions.json").read_text())["sessions"][0]["session"] == "keeper"


def test_the_proxy_refuses_a_stray_argument_and_a_negative_high_water_mark():
    sides = ["--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0"]
    assert 'unexpected argument "yes"' in refused("proxy", *sides, "--no-drop", "yes")
    assert "--hwm -1 is outside 0...10000000" in refused("proxy", *sides, "--hwm", "-1")
    assert "--max-message-bytes -1 is outside 0...2147483647" in refused("proxy", *sides, "--max-message-bytes", "-1")
    assert '--max-message-bytes: cannot read "4M"' in refused("proxy", *sides, "--max-message-bytes", "4M")


def test_a_metrics_port_out_of_range_is_refused_before_anything_listens():
    """Session 77: `--metrics 127.0.0.1:99999` said only "expected HOST:PORT", and only after the worker had said
    `listening` and started its lanes; the proxy the same. Session 86: the worker, like the proxy, with status 2 (it
    gave 1, as for a configuration it could read but not run)."""
    problem = '--metrics 127.0.0.1:99999: the port must be a number in 0...65535 (0: any free one), got "99999"'
    assert problem in refused("--metrics", "127.0.0.1:99999", "--input", "tcp://127.0.0.1:0", "--output",
                              "tcp://127.0.0.1:0", status=2)
    assert problem in refused("proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0",
                              "--metrics", "127.0.0.1:99999", status=2)


def test_an_adopt_state_path_with_nothing_there_is_named_in_a_warning(tmp_path):
    """Session 77: a misspelt `--adopt-state` path adopted nothing without a word."""
    missing = tmp_path / "no-such-dir"
    worker = RunningWorker("--adopt-state", str(missing))
    log = "".join(worker.process_log())
    assert worker.stop() == 0
    log += "".join(worker.process_log())
    assert "--adopt-state: nothing at this path; no sessions adopted from it" in log and str(missing) in log


def test_a_misspelt_environment_variable_is_named_in_a_warning_and_a_bad_value_names_its_variable():
    """Session 78: `STROKE_WORKER_LANE=2` (for `STROKE_WORKER_LANES`) left the default without a word, and
    `STROKE_WORKER_LANES=abc` was refused as "--lanes: cannot read", an option the operator never typed."""
    worker = RunningWorker(env={"STROKE_WORKER_LANE": "2"})
    try:
        warnings = [line for line in worker.log if "environment variables that name no option" in line]
        assert len(warnings) == 1 and " warning " in warnings[0], worker.log
        assert "STROKE_WORKER_LANE (STROKE_WORKER_LANES?)" in warnings[0]
    finally:
        assert worker.stop() == 0
    result = subprocess.run([worker_binary(), "--input", "tcp://127.0.0.1:0"], capture_output=True, text=True,
                            timeout=20, env={**os.environ, "STROKE_WORKER_LANES": "abc"})
    assert result.returncode == 2 and '--lanes (from STROKE_WORKER_LANES): cannot read "abc"' in result.stderr


def test_the_proxy_names_the_variable_of_a_bad_value_and_warns_of_a_misspelt_one():
    """The proxy as the worker (session 78): STROKE_PROXY_HWM=-1 was "--hwm -1 is outside …", STROKE_PROXY_NODROP
    (for STROKE_PROXY_NO_DROP) was passed over without a word."""
    sides = ["proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0"]
    result = subprocess.run([worker_binary(), *sides], capture_output=True, text=True, timeout=20,
                            env={**os.environ, "STROKE_PROXY_HWM": "-1"})
    assert result.returncode == 2 and "--hwm (from STROKE_PROXY_HWM) -1 is outside 0...10000000" in result.stderr
    proxy = subprocess.Popen([worker_binary(), *sides], stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "STROKE_PROXY_NODROP": "1"})
    try:
        line = proxy.stderr.readline()
        assert " warning " in line and "STROKE_PROXY_NODROP (STROKE_PROXY_NO_DROP?)" in line, line
        assert "proxy listening" in proxy.stderr.readline()  # its signals handled from here on
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()



def test_the_proxy_refuses_a_no_drop_variable_it_cannot_read():
    """Session 88: STROKE_PROXY_NO_DROP took 1, true, yes and on for the flag and anything else for none:
    `STROKE_PROXY_NO_DROP=enabled` ran the proxy dropping a slow subscriber's messages without a word."""
    sides = ["proxy", "--frontend", "tcp://127.0.0.1:0", "--backend", "tcp://127.0.0.1:0"]
    result = subprocess.run([worker_binary(), *sides], capture_output=True, text=True, timeout=20,
                            env={**os.environ, "STROKE_PROXY_NO_DROP": "enabled"})
    assert result.returncode == 2, result.stderr
    assert ('--no-drop (from STROKE_PROXY_NO_DROP): 1, true, yes or on to set it; 0, false, no or off not to, '
            'got "enabled"') in result.stderr


def start_proxy_with_control(*extra: str) -> tuple[subprocess.Popen, dict]:
    """A proxy on ports the system chooses, with `--control`, and the fields of its `proxy listening` line."""
    proxy = subprocess.Popen([worker_binary(), "proxy", "--frontend", "tcp://127.0.0.1:*", "--backend",
                              "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*", *extra], stderr=subprocess.PIPE,
                             text=True)
    line = proxy.stderr.readline()
    while line and "proxy listening" not in line:
        line = proxy.stderr.readline()
    return proxy, dict(field.split("=", 1) for field in line.split() if "=" in field)


def control_socket(context: zmq.Context, endpoint: str) -> zmq.Socket:
    control = context.socket(zmq.REQ)
    control.setsockopt(zmq.LINGER, 0)
    control.setsockopt(zmq.RCVTIMEO, 5000)
    control.connect(endpoint)
    return control


# libzmq's proxy forwards only where the loop of its own has nothing to do: no --metrics, since session 89 no
# largest message size to find a publisher that never finishes a message by, and since session 90 no limit on a
# subscriber's subscriptions.
LIBZMQ_PROXY = ["--max-message-bytes", "0", "--max-subscription-bytes", "0"]


@pytest.mark.parametrize("extra", [LIBZMQ_PROXY, ["--metrics", "127.0.0.1:0"]], ids=["libzmq-proxy", "own-loop"])
def test_the_proxy_answers_a_control_command_it_does_not_know_and_goes_on(extra):
    """Session 88: the control relay passed every request on to the proxy, and libzmq's proxy ends the process on a
    command it does not know ("E: invalid command sent to proxy", then an assertion): `pause` in lowercase, `STATS`
    or an empty request sent to `--control` aborted the proxy, and with it every producer's and consumer's traffic.
    The loop of its own (with `--metrics`) went on, but answered `OK` to such a command as to one it had taken."""
    proxy, fields = start_proxy_with_control(*extra)
    context = zmq.Context()
    try:
        control = control_socket(context, fields["control"])
        for request in [b"pause", b"STATS", b"", b"PAUSE\n", b"TERMINATE now", "t\u00e9rminer\x07".encode()]:
            control.send(request)
            answer = control.recv().decode()
            assert answer.startswith("ERROR unknown command "), (request, answer)
            assert answer.endswith(": PAUSE, RESUME, TERMINATE or STATISTICS"), (request, answer)
        assert '"t\u00e9rminer\\u0007"' in answer  # quoted, and the control character written as an escape
        control.send(b"x" * 1000)
        assert len(control.recv()) < 150  # what arrived is shown by its beginning only
        assert proxy.poll() is None
        control.send(b"STATISTICS")
        assert len(control.recv().split()) == 8
        control.send(b"TERMINATE")
        assert control.recv() == b"OK"
        assert proxy.wait(timeout=20) == 0
    finally:
        context.destroy(linger=0)
        if proxy.poll() is None:
            proxy.terminate()
            proxy.wait(timeout=20)
        proxy.stderr.close()


def test_a_statistics_request_the_proxy_cannot_answer_in_time_is_an_error_and_the_next_answer_is_current():
    """libzmq's proxy held in a send to a subscriber behind (`--no-drop`) reads its control socket only once the
    send is done. Before session 88 the relay answered such a `STATISTICS` with an empty reply after its second of
    waiting, and the proxy's answer, when it came, was taken for the next request's: every later answer was one
    request behind."""
    proxy, fields = start_proxy_with_control("--no-drop", "--hwm", "100", "--consumer-timeout", "0", *LIBZMQ_PROXY)
    context = zmq.Context()
    try:
        publisher = context.socket(zmq.XPUB)
        publisher.setsockopt(zmq.XPUB_NODROP, 1)
        publisher.setsockopt(zmq.RCVTIMEO, 10000)
        publisher.connect(fields["frontend"])
        stuck = context.socket(zmq.SUB)
        stuck.setsockopt(zmq.RCVHWM, 10)
        stuck.setsockopt(zmq.RCVBUF, 4096)
        stuck.setsockopt(zmq.SUBSCRIBE, b"")
        stuck.connect(fields["backend"])
        assert publisher.recv() == b"\x01"  # the subscription came up through the proxy
        # Sent until the publisher's own queue is full: the proxy is then held in its send to `stuck`.
        sent, payload = 0, b"x" * 300
        end = time.monotonic() + 20
        while sent < 100000 and time.monotonic() < end:
            try:
                publisher.send(payload, zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                time.sleep(0.2)
                try:
                    publisher.send(payload, zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    break
        control = control_socket(context, fields["control"])
        control.send(b"STATISTICS")
        answer = control.recv().decode()
        assert answer.startswith("ERROR the proxy did not answer within 1000 ms"), answer
        stuck.setsockopt(zmq.RCVTIMEO, 10000)
        for _ in range(sent):
            stuck.recv()
        control.send(b"STATISTICS")
        counts = [int(number) for number in control.recv().split()]
        assert len(counts) == 8 and counts[0] == sent and counts[6] == sent, (counts, sent)
        control.send(b"STATISTICS")
        assert [int(number) for number in control.recv().split()][0] == sent
    finally:
        context.destroy(linger=0)
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()


def test_the_proxy_listening_line_names_its_control_socket_and_a_control_that_cannot_bind_stops_it():
    """Session 81: `proxy listening` named the frontend, the backend and the metrics, not `--control`, so a control
    socket on a port the system chose could not be found; and a control address that could not be bound was logged
    after the proxy had been said to listen (and, under systemd, to be ready)."""
    sides = ["proxy", "--frontend", "tcp://127.0.0.1:*", "--backend", "tcp://127.0.0.1:*"]
    proxy = subprocess.Popen([worker_binary(), *sides, "--control", "tcp://127.0.0.1:*"], stderr=subprocess.PIPE,
                             text=True)
    try:
        line = proxy.stderr.readline()
        assert "proxy listening" in line, line
        fields = dict(field.split("=", 1) for field in line.split() if "=" in field)
        assert fields["control"].startswith("tcp://127.0.0.1:") and not fields["control"].endswith(":*"), line
        context = zmq.Context()
        control = context.socket(zmq.REQ)
        control.setsockopt(zmq.LINGER, 0)
        control.setsockopt(zmq.RCVTIMEO, 5000)
        control.connect(fields["control"])
        control.send(b"STATISTICS")
        assert len(control.recv().split()) == 8  # the proxy's eight counters, at the address the line gave
        control.close()
        context.term()
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=20) == 0
        proxy.stderr.close()
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = subprocess.run([worker_binary(), *sides, "--control", f"tcp://127.0.0.1:{port}"],
                                capture_output=True, text=True, timeout=20)
    assert result.returncode == 1 and "Address already in use" in result.stderr, result.stderr
    assert "proxy listening" not in result.stderr
