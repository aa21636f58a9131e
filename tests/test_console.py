"""Issue 32, point 1: a signal while the command is still starting (importing the command line,
which takes tenths of a second, more on a loaded machine) ends it promptly with one line and
128 + the signal's number — not with a traceback, and not silently."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DEMO

ROOT = Path(__file__).resolve().parent.parent

# The ``spanagree`` script as pyproject.toml declares it, run with the import of the command line
# slowed to seconds, so that the signal surely falls in the window this test is about.
START = """
import importlib, sys, time
class SlowCommandLine:
    def find_spec(self, name, path=None, target=None):
        if name == "spanagree.cli":
            time.sleep(3)
        return None
sys.meta_path.insert(0, SlowCommandLine())
module, function = sys.argv.pop(1).split(":")
sys.argv[0] = "spanagree"
sys.exit(getattr(importlib.import_module(module), function)())
"""


def entry_point() -> str:
    scripts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project.scripts]", 1)[1]
    return scripts.split("[", 1)[0].strip().split("=", 1)[1].strip().strip('"')


def caught(pid: int) -> int:
    """The signals ``pid`` has handlers for (``SigCgt`` of /proc/PID/status), as a bit mask."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16)
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc (Linux) to see the handlers")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_a_signal_while_starting_is_one_line_and_its_status(signum):
    paths = [str(DEMO / "jsonl" / f"ann{k}.jsonl") for k in (1, 2, 3)]
    process = subprocess.Popen([sys.executable, "-c", START, entry_point(), "agree", *paths],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Python catches SIGINT from its start, SIGTERM never: once SIGTERM is caught, the script's
    # handlers are in place; a second at most, and the signal comes while the command line is
    # still being imported (three seconds)
    deadline = time.monotonic() + 1
    while not caught(process.pid) & (1 << (signal.SIGTERM - 1)) and time.monotonic() < deadline:
        time.sleep(0.001)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err.decode()) == (128 + signum, "spanagree: interrupted\n")
    assert out == b""
