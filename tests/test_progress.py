"""The progress bar on standard error (a real pseudo-terminal), ``--quiet``, and ``--jobs`` capped at
the usable cores."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import warnings
from pathlib import Path

import pytest

from spanagree import SpanagreeWarning, agree
from spanagree.pipeline import estimate_documents, usable_jobs

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo"

#: Runs the command line with the bar's delay at 0 (this test's runs are shorter than a second).
SCRIPT = """
import sys
import spanagree.progress
import spanagree.pipeline.parallel as parallel
spanagree.progress.DELAY = 0
spanagree.progress.POLL = 0.01
processes = parallel.Processes


class SmallShards(processes):  # --jobs N sharding even these small corpora
    def __new__(cls, jobs, **thresholds):
        return processes(jobs, min_documents_per_job=1, min_spans_per_job=1)


parallel.Processes = SmallShards
from spanagree.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run(argv, *, terminal: bool) -> tuple[int, str, str]:
    """The command's exit code, stdout, and what its standard error showed (a pseudo-terminal's
    screen when ``terminal``, else a pipe's bytes)."""
    env = dict(os.environ, COLUMNS="100")
    if not terminal:
        done = subprocess.run([sys.executable, "-c", SCRIPT, *map(str, argv)], capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=300)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, *map(str, argv)], stdout=subprocess.PIPE,
                               stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    screen = b""
    while True:  # read until the child has ended and its terminal is drained (EIO once it is closed)
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
        elif process.poll() is not None and not select.select([master], [], [], 0.2)[0]:
            break
    out = process.stdout.read().decode("utf-8")
    process.wait(timeout=300)
    os.close(master)
    return process.returncode, out, screen.decode("utf-8", "replace")


BRAT = [DEMO / "brat" / name for name in ("ann1", "ann2", "ann3")]


@pytest.mark.slow
def test_a_terminal_shows_the_bar_and_stdout_stays_the_same():
    code, out, screen = run(["agree", *BRAT, "--output", "json"], terminal=True)
    assert code == 0
    assert "documents" in screen and "10/10" in screen        # the demo's 10 documents, counted to the end
    assert "\r" in screen                                      # drawn in place
    code, piped, err = run(["agree", *BRAT, "--output", "json"], terminal=False)
    assert code == 0 and "documents" not in err and "\r" not in err  # not a terminal: no bar
    assert json.loads(out) == json.loads(piped)


@pytest.mark.slow
def test_quiet_silences_the_bar_but_not_the_warnings():
    conll = DEMO / "conll"
    code, out, screen = run(["agree", conll / "ann1.conll", conll / "ann2.conll", "--only", "NOPE", "--quiet"],
                            terminal=True)
    assert code == 0
    assert "documents" not in screen and "\r" not in screen.replace("\r\n", "\n")
    assert "warning" in screen                                  # --only naming a label no input has
    assert json.loads(run(["agree", *BRAT, "--quiet", "--output", "json"], terminal=False)[1])["options"]["quiet"]


@pytest.mark.slow
def test_workers_report_their_progress(tmp_path):
    out_path = tmp_path / "gold.jsonl"
    code, out, screen = run(["merge", *BRAT, "--jobs", "2", "--to", "jsonl", "--out", out_path, "--output", "json"],
                            terminal=True)
    assert code == 0 and "10/10" in screen
    assert json.loads(out)["documents"] == 10


def test_the_totals_are_counted_without_reading():
    assert estimate_documents(DEMO / "brat" / "ann1", None) == 10
    assert estimate_documents(DEMO / "jsonl" / "ann1.jsonl", None) == 10
    assert estimate_documents(DEMO / "conll" / "ann1.conll", None) == 10
    assert estimate_documents(DEMO / "xml" / "ann1", None) is None


def test_jobs_are_capped_at_the_usable_cores():
    usable = len(os.sched_getaffinity(0))
    with pytest.warns(SpanagreeWarning, match=rf"^jobs={usable + 6}: this machine lets spanagree use {usable} core") \
            as caught:
        assert usable_jobs(usable + 6) == usable
    assert caught[0].message.command_line_message().startswith(f"--jobs {usable + 6}: this machine lets")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert usable_jobs(1) == 1
    with pytest.warns(SpanagreeWarning, match="this machine lets spanagree use"):
        result = agree(BRAT[:2], jobs=usable + 1)
    assert result.pooled.a > 0


@pytest.mark.slow
def test_the_bar_counts_each_document_once_when_parts_are_read_again(tmp_path):
    """JSON-lines files in different orders: the workers' byte ranges do not pair, the run is done
    again the ordinary way, and the bar starts again from 0 rather than counting past the total."""
    lines = (DEMO / "jsonl" / "ann2.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    reversed_copy = tmp_path / "ann2.jsonl"
    reversed_copy.write_text("".join(reversed(lines)), encoding="utf-8")
    code, out, screen = run(["agree", DEMO / "jsonl" / "ann1.jsonl", reversed_copy, "--jobs", "2", "--output",
                             "json"], terminal=True)
    assert code == 0 and "10/10" in screen
    import re

    assert max(int(n) for n in re.findall(r"(\d+)/10\b", screen)) == 10
    assert json.loads(out)["pairs"][0] == agree([DEMO / "jsonl" / "ann1.jsonl", reversed_copy]).to_dict()["pairs"][0]
