"""A reload (SIGHUP) that leaves a library with no templates.

A library of no templates is allowed (its sessions match only the gestures they learn, Protocol/README.md 4.1), so
the reload succeeds; but one that held templates and has none after the reload is more likely a file written wrong:
every stroke of its sessions is a nomatch from then on. Until session 78 the log said only `mine=0 templates` at
the info level; the worker now warns, naming the library and how many templates it held.
"""

import json
import signal
import time

from conftest import RunningWorker


def write_library(path, templates) -> None:
    with open(path, "w") as file:
        json.dump({"format": "stroke-worker/template-library", "version": 1, "name": "mine",
                   "orientation": "sensitive", "maxRotationDegrees": 30, "minimumScore": 0.65,
                   "templates": templates}, file)


def test_a_reload_that_empties_a_library_is_warned_about(tmp_path):
    path = tmp_path / "mine.json"
    write_library(path, [{"name": "swipe_right", "points": [[0, 0], [100, 0]]},
                         {"name": "swipe_down", "points": [[0, 0], [0, 100]]}])
    worker = RunningWorker("--library", str(path))
    try:
        write_library(path, [])
        worker.process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        # Reloaded again, still empty: it held none before this one, so no second warning.
        worker.process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
    finally:
        assert worker.stop() == 0
    log = worker.process_log()
    reloads = [line for line in log if "template libraries reloaded" in line and 'mine="0 templates"' in line]
    assert len(reloads) == 2, log
    warnings = [line for line in log if "reloaded with no templates" in line]
    assert len(warnings) == 1 and " warning " in warnings[0], log
    assert "library=mine" in warnings[0] and "templatesBefore=2" in warnings[0], warnings
