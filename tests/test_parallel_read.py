"""--jobs on BRAT folders: every process reads its own documents, and the run is that of one process.

The same stdout (JSON apart from ``options.jobs``, table, CSV), the same warnings in the same
order, the same notes and left-out documents, and the same one-line error and exit code, whichever
process meets the bad file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spanagree.pipeline import shards
from spanagree.pipeline.parallel import Processes
from spanagree.cli import main
from conftest import generated, same_under

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "corpora" / "demo" / "brat"


pytestmark = pytest.mark.usefixtures("small_shards")


def write_doc(folder: Path, doc_id: str, text: str, ann: str) -> None:
    base = folder.joinpath(*doc_id.split("/"))
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".txt").write_text(text, encoding="utf-8")
    base.with_suffix(".ann").write_text(ann, encoding="utf-8")


TEXT = "Ana met Bo in Porto and Lisbon."


def small_corpus(tmp_path: Path, documents: int = 12) -> list[Path]:
    """Two annotators, with: a document only one has, a text column that differs, relations,
    attributes and notes, a sub-folder, and a README.txt passed over."""
    folders = [tmp_path / "ann1", tmp_path / "ann2"]
    for k, folder in enumerate(folders):
        for d in range(documents):
            doc_id = f"sub/d{d:02d}" if d % 5 == 0 else f"d{d:02d}"
            lines = ["T1\tPER 0 3\tAna", f"T2\tPER 8 10\t{'Bo' if d != 7 or k == 0 else 'Bob'}"]
            if (d + k) % 3:
                lines.append("T3\tLOC 14 19\tPorto")
            if d % 4 == k:
                lines.append("T4\tLOC 24 30\tLisbon")
                lines.append("R1\tIn Arg1:T2 Arg2:T4")
                lines.append("A1\tNegation T1")
                lines.append("#1\tAnnotatorNotes T2\tsure")
            write_doc(folder, doc_id, TEXT, "\n".join(lines) + "\n")
        (folder / "docs").mkdir()
        (folder / "docs" / "README.txt").write_text("not a document\n")
    write_doc(folders[1], "only2", TEXT, "T1\tPER 0 3\tAna\n")
    return folders


@pytest.mark.parametrize("output", ["json", "table", "csv"])
@pytest.mark.parametrize("by", [None, "label", "document"])
@pytest.mark.slow
def test_demo_corpus(capsys, small_shards, output, by):
    argv = ["agree", *(str(DEMO / a) for a in ("ann1", "ann2", "ann3")), "--output", output]
    if by:
        argv += ["--by", by]
    assert same_under(capsys, calls=small_shards, argv=argv)[0] == 0


@pytest.mark.parametrize("options", [[], ["--match", "partial", "--partial-credit", "dice", "--labels", "ignore"],
                                     ["--match", "overlap", "--map", "LOC=PLACE", "--only", "PLACE,PER"],
                                     ["--bootstrap", "20", "--seed", "3"]])
@pytest.mark.slow
def test_generated_corpus(tmp_path, capsys, small_shards, options):
    generated(tmp_path, docs=40, annotators=3, formats=("brat",))
    argv = ["agree", *(str(tmp_path / "brat" / f"ann{k}") for k in (1, 2, 3)), "--format", "brat",
            "--output", "json", "--by", "document", *options]
    assert same_under(capsys, calls=small_shards, argv=argv)[0] == 0


@pytest.mark.slow
def test_warnings_notes_and_left_out(tmp_path, capsys, small_shards):
    folders = small_corpus(tmp_path)
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders), "--output", "json"])
    assert code == 0
    data = json.loads(out)
    assert data["left_out"] == {"not_annotated_by_everyone": ["only2"]}
    assert any("relation" in note for note in data["notes"]) and any("README.txt" in n for n in data["notes"])
    assert "d07.ann:2: T2's text column 'Bob'" in err and "left out" in err
    for output in ("table", "csv"):
        assert same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders), "--output", output])[0] == 0


def test_texts_that_differ_are_the_same_error(tmp_path, capsys, small_shards):
    folders = small_corpus(tmp_path)
    (folders[1] / "d09.txt").write_text(TEXT.replace("met", "saw"))
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders)])
    assert code == 1 and "d09" in err and "different text" in err


def test_texts_that_differ_with_align_whitespace(tmp_path, capsys, small_shards):
    folders = small_corpus(tmp_path)
    (folders[1] / "d09.txt").write_text(TEXT.replace("met", "saw"))
    (folders[1] / "d03.txt").write_text(TEXT.replace(" met ", "  met\n"))
    (folders[1] / "d03.ann").write_text("T1\tPER 0 3\tAna\nT2\tPER 9 11\tBo\nT3\tLOC 3 5\t  \n")
    code, out, err = same_under(capsys, ["agree", *map(str, folders), "--align-whitespace", "--output", "json"],
                                calls=small_shards)
    assert code == 0
    data = json.loads(out)
    assert data["left_out"]["texts_differ"] == ["d09"]
    assert any("through their non-whitespace" in note for note in data["notes"])


def test_nothing_left_to_compare(tmp_path, capsys, small_shards):
    folders = small_corpus(tmp_path, documents=4)
    for path in folders[1].rglob("*.txt"):
        if path.name != "README.txt":
            path.write_text("Something else entirely, not the same text at all.")
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders), "--align-whitespace"])
    assert code == 1 and "no document left to compare" in err


@pytest.mark.parametrize("bad", [["ann1/d08"], ["ann2/d02"], ["ann1/d08", "ann2/d02"], ["ann2/d11", "ann2/d01"]])
@pytest.mark.slow
def test_a_malformed_file_is_the_same_error(tmp_path, capsys, small_shards, bad):
    folders = small_corpus(tmp_path)
    for where in bad:
        (tmp_path / f"{where}.ann").write_text("T1\tPER 0 3\tAna\nT2\tPER x 5\tbad\n")
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders)])
    assert code == 1 and out == ""
    first = min(bad)  # the first in reading order: annotators in turn, documents by id
    assert err.strip().splitlines()[-1] == f"spanagree: error: {tmp_path / first}.ann:2: expected " \
        "'T<id>\\t<label> <start> <end>', got 'T2\\tPER x 5\\tbad'"


def test_bad_listing_and_single_files_read_in_this_process(tmp_path, capsys, small_shards):
    folders = small_corpus(tmp_path)
    (folders[1] / "d04.txt").unlink()  # a .ann without its .txt: found while listing
    code, out, err = same_under(capsys, calls=small_shards, argv=["agree", *map(str, folders)], sharded=False)
    assert code == 1 and "d04.txt is missing" in err
    shutil.copy(folders[0] / "d01.ann", tmp_path / "one.ann")
    shutil.copy(folders[0] / "d01.txt", tmp_path / "one.txt")
    assert shards.folder_listings([str(tmp_path / "one.ann"), str(folders[0])], None) is None


@pytest.mark.slow
def test_agree_chance_reads_its_shards_too(capsys, small_shards):
    """agree --chance tokenises each document where it is compared: BRAT folders are read in shards
    as without it (issue 17)."""
    argv = ["agree", str(DEMO / "ann1"), str(DEMO / "ann2"), "--chance", "--output", "json"]
    assert same_under(capsys, calls=small_shards, argv=argv, sharded=True)[0] == 0


@pytest.mark.slow
def test_score_chance_reads_its_shards_too(tmp_path, capsys, small_shards):
    """score --chance tokenises each document where the gold and the prediction are compared: BRAT
    folders are read in shards as without it, a gold document the prediction lacks included."""
    folders = small_corpus(tmp_path)
    argv = ["score", str(folders[1]), str(folders[0]), "--chance", "--output", "json"]
    code, out, err = same_under(capsys, calls=small_shards, argv=argv)
    assert code == 0 and "1 gold document(s) have no prediction and count as empty: only2" in err
    # 13 documents of "Ana met Bo in Porto and Lisbon." (8 tokens each)
    assert json.loads(out)["chance"]["tokens"] == 13 * 8


def test_too_few_documents_stay_in_one_process():
    """Too few documents to read in shards, and too few spans to compare in several processes."""
    from spanagree import agree

    folders = [str(DEMO / "ann1"), str(DEMO / "ann2")]
    jobs = Processes(2)  # 1,000 documents and 50,000 spans a process pay (not the module's small_shards)
    assert agree(folders, jobs=jobs).to_dict() == agree(folders).to_dict()
    assert jobs.mapped == []


@pytest.mark.parametrize("output", ["json", "table", "csv"])
@pytest.mark.slow
def test_score_reads_its_shards_too(tmp_path, capsys, small_shards, output):
    """score on BRAT folders: the gold's document the prediction lacks, the prediction's document
    the gold lacks, notes and warnings — all as in one process."""
    folders = small_corpus(tmp_path)
    gold, pred = folders[1], folders[0]  # the gold has "only2", which the prediction lacks
    errors = [tmp_path / f"errors{jobs}.csv" for jobs in (1, 2)]
    code, out, err = same_under(capsys, calls=small_shards, argv=["score", str(gold), str(pred), "--output", output])
    assert code == 0 and "1 gold document(s) have no prediction and count as empty: only2" in err
    for jobs, path in zip((1, 2), errors):
        assert main(["score", str(gold), str(pred), "--errors", str(path), "--jobs", str(jobs)]) == 0
        capsys.readouterr()
    assert errors[0].read_text() == errors[1].read_text() and errors[0].read_text().count("\n") > 1


@pytest.mark.slow
def test_merge_reads_its_shards_too(tmp_path, capsys, small_shards):
    """merge on BRAT folders: the same summary, the same gold files and the same adjudication list."""
    generated(tmp_path, docs=30, annotators=3, formats=("brat",))
    paths = [str(tmp_path / "brat" / f"ann{k}") for k in (1, 2, 3)]
    golds = []
    for jobs in ("1", "2"):
        before = len(small_shards)
        out, listing = tmp_path / f"gold{jobs}", tmp_path / f"adjudicate{jobs}.json"
        assert main(["merge", *paths, "--to", "jsonl", "--out", str(out), "--adjudicate", str(listing),
                     "--match", "overlap", "--output", "json", "--jobs", jobs]) == 0
        summary = json.loads(capsys.readouterr().out)
        summary["options"].pop("jobs"), summary["options"].pop("out"), summary["options"].pop("adjudicate")
        adjudication = json.loads(listing.read_text())
        for key in ("jobs", "out", "adjudicate"):
            adjudication["options"].pop(key)
        golds.append((summary, out.read_text(), adjudication))
        assert (len(small_shards) > before) == (jobs == "2")
    assert golds[0] == golds[1]
    assert golds[0][0]["clusters"] > 0 and golds[0][0]["documents"] == 30
