"""Issue 32, point 3: ``--force`` never replaces a folder with a file, or a file with a folder.

A single-file output (``--errors``, ``--report``, ``merge``'s adjudication lists, a single-file
``--out``) given an existing folder, or a folder output (BRAT's ``--out``, ``--plots``) given an
existing file, is refused with exit 2 before anything is read, and the folder or file is left as
it was — ``--force`` or not. Folders given as folder outputs keep their rules (replaced with
``--force``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from spanagree.errors import UsageError
from spanagree.outputs import check_destination, write_text

from conftest import DEMO, run

ANN1 = DEMO / "jsonl" / "ann1.jsonl"
ANN2 = DEMO / "jsonl" / "ann2.jsonl"


def corpus_folder(tmp_path: Path) -> Path:
    """A folder of 20 files, as the user's corpus that became one CSV in the issue."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for number in range(20):
        (folder / f"doc{number}.txt").write_text(f"document {number}\n")
    return folder


def digest(path: Path) -> str:
    """The content of a file or a whole folder (names and bytes)."""
    hashed = hashlib.sha256()
    for item in sorted([path, *path.rglob("*")] if path.is_dir() else [path]):
        hashed.update(str(item.relative_to(path.parent)).encode())
        if item.is_file():
            hashed.update(item.read_bytes())
    return hashed.hexdigest()


def refusal(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("command", [
    ["agree", ANN1, ANN2, "--errors"],
    ["agree", ANN1, ANN2, "--report"],
    ["score", ANN1, ANN2, "--errors"],
    ["score", ANN1, ANN2, "--report"],
    ["merge", ANN1, ANN2, "--to", "jsonl", "--out"],
    ["merge", ANN1, ANN2, "--to", "brat", "--out", "OUT", "--adjudicate"],
    ["convert", ANN1, "--to", "conll", "--out"],
], ids=["agree-errors", "agree-report", "score-errors", "score-report", "merge-out", "merge-adjudicate",
        "convert-out"])
def test_a_folder_given_as_a_single_file_output_is_refused_and_kept(tmp_path, capsys, command):
    folder = corpus_folder(tmp_path)
    before = digest(folder)
    arguments = [str(tmp_path / "gold") if part == "OUT" else part for part in command]
    code, _, err = run(capsys, *arguments, folder, "--force")
    assert code == 2
    line = refusal(err)
    assert line.startswith(f"spanagree: error: {folder}: ") and "is a folder, and it is written as one file" in line
    assert "even with --force" in line
    assert digest(folder) == before
    assert not (tmp_path / "gold").exists()  # refused before anything was read or written


@pytest.mark.parametrize("command", [
    ["merge", ANN1, ANN2, "--to", "brat", "--out"],
    ["convert", ANN1, "--to", "brat", "--out"],
    ["agree", ANN1, ANN2, "--plots"],
], ids=["merge-brat", "convert-brat", "plots"])
def test_a_file_given_as_a_folder_output_is_refused_and_kept(tmp_path, capsys, command):
    existing = tmp_path / "results.csv"
    existing.write_text("kept,as,it,was\n")
    code, _, err = run(capsys, *command, existing, "--force")
    assert code == 2
    line = refusal(err)
    assert line.startswith(f"spanagree: error: {existing}: ") and "is a file, and it is written as a folder" in line
    assert existing.read_text() == "kept,as,it,was\n"


def test_a_folder_output_still_replaces_a_folder_with_force(tmp_path, capsys):
    folder = corpus_folder(tmp_path)
    code, out, err = run(capsys, "convert", ANN1, "--to", "brat", "--out", folder, "--force")
    assert code == 0, err
    assert sorted(p.suffix for p in folder.iterdir()) == [".ann"] * 10 + [".txt"] * 10
    assert not (folder / "doc0.txt").exists()


def test_the_library_refuses_in_the_apis_words(tmp_path):
    folder = corpus_folder(tmp_path)
    with pytest.raises(UsageError, match=r"even with force=True: give another path"):
        write_text(folder, "a,b\n", force=True, what="errors file")
    assert len(list(folder.iterdir())) == 20
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="is a folder, and it is written as one file"):
        check_destination(empty, force=True, folder=False)
    assert check_destination(empty, force=True, folder=True) == empty  # a folder where one is written
    assert check_destination(empty, force=True) == empty  # either, as before
