"""A FIFO given as an input path without ``--from`` (a shell's ``<(...)``): opened once, the bytes
format detection reads given again to the reader (:func:`spanagree.formats.files.shared_pipe`).

Each FIFO is fed by a writer thread; the command runs in a process of its own with a timeout, so
that a hang fails the test instead of stopping the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from spanagree.formats.files import SharedPipe, open_file, shared_pipe
from conftest import DEMO


def fed(path, data: bytes) -> threading.Thread:
    """A FIFO at ``path`` and a thread writing ``data`` into it (started)."""
    os.mkfifo(path)

    def write():
        try:
            with open(path, "wb") as pipe:
                pipe.write(data)
        except BrokenPipeError:  # the reader closed early: the test's assertions say so
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def spanagree(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spanagree.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=60)


def pair_counts(document: dict) -> list[tuple]:
    return [(p["a"], p["b"], p["c"]) for p in document["pairs"]]


@pytest.mark.parametrize("folder, suffix, named", [
    ("conll", ".conll", ""),  # a shell's <(...): no extension, told CoNLL
    ("jsonl", ".jsonl", ".jsonl"),
    ("xml", ".xml", ".xml"),
    ("docbin", ".spacy", ".spacy"),
])
def test_fifos_without_from(tmp_path, folder, suffix, named):
    """Two FIFOs: their format told without ``--from``, each opened once, the figures of the files."""
    files = [DEMO / folder / f"ann{k}{suffix}" for k in (1, 2)]
    fifos = [tmp_path / f"ann{k}{named}" for k in (1, 2)]
    writers = [fed(fifo, path.read_bytes()) for fifo, path in zip(fifos, files)]
    piped = spanagree("agree", *fifos, "--output", "json")
    for writer in writers:
        writer.join(10)
    assert piped.returncode == 0, piped.stderr
    from_files = spanagree("agree", *files, "--output", "json")
    assert pair_counts(json.loads(piped.stdout)) == pair_counts(json.loads(from_files.stdout))
    assert pair_counts(json.loads(piped.stdout))[0][0] > 0


def test_a_fifo_detection_reads_by_content(tmp_path):
    """A Label Studio export in a FIFO named ``.json``: detection reads its head (a JSON list: Label
    Studio), and the reader reads the head again, then the rest."""
    export = DEMO / "labelstudio" / "demo.json"
    fifo = tmp_path / "export.json"
    writer = fed(fifo, export.read_bytes())
    piped = spanagree("agree", fifo, "--output", "json")
    writer.join(10)
    assert piped.returncode == 0, piped.stderr
    from_file = spanagree("agree", export, "--output", "json")
    assert json.loads(piped.stdout)["annotators"] == json.loads(from_file.stdout)["annotators"]
    assert pair_counts(json.loads(piped.stdout)) == pair_counts(json.loads(from_file.stdout))


def test_the_head_is_read_again(tmp_path):
    """What :meth:`SharedPipe.peek` read comes first in every opening; the pipe is forgotten once
    read to its end and closed (a new writer is read anew)."""
    fifo = tmp_path / "p"
    data = b"-DOCSTART-\tO\n\nEU\tB-ORG\n" * 1000
    writer = fed(fifo, data)
    pipe = shared_pipe(fifo)
    assert isinstance(pipe, SharedPipe) and pipe.peek(10) == data[:10]
    open_file(str(fifo), "CoNLL").close()  # a reader's check: nothing consumed
    with open_file(str(fifo), "CoNLL") as file:
        assert file.read() == data
    writer.join(10)
    os.remove(fifo)
    again = fed(fifo, b"second writer\n")  # the path opened anew, not the pipe read to its end
    with open_file(str(fifo), "CoNLL") as file:
        assert file.read() == b"second writer\n"
    again.join(10)
