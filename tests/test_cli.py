"""The command line: the JSON contract, exit codes, one-line errors, and never overwriting."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from spanagree.cli import main

TEXT = "Ana Ruiz met Bo Li in Porto ."


def jsonl(path, spans, doc="d1", text=TEXT):
    record = {"id": doc, "text": text, "spans": [{"start": s, "end": e, "label": l} for s, e, l in spans]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    # ann1  [Ana Ruiz]PER  [Bo Li]PER  [Porto]LOC
    # ann2  [Ana Ruiz]PER  [Bo]PER     [Porto]ORG
    ann1 = jsonl(tmp_path / "ann1.jsonl", [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC")])
    ann2 = jsonl(tmp_path / "ann2.jsonl", [(0, 8, "PER"), (13, 15, "PER"), (22, 27, "ORG")])
    return tmp_path, ann1, ann2


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_agree_json_contract(files, capsys):
    _, ann1, ann2 = files
    code, out, err = run(capsys, "agree", ann1, ann2, "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("spanagree", "options", "annotators", "documents", "match", "labels", "pairs", "mean_f1",
                "pooled_f1", "by_label"):
        assert key in data
    assert data["annotators"] == ["ann1", "ann2"]
    assert data["pairs"][0]["annotators"] == ["ann1", "ann2"]
    assert (data["pairs"][0]["a"], data["pairs"][0]["b"], data["pairs"][0]["c"]) == (1, 2, 2)
    assert data["mean_f1"] == pytest.approx(2 / 6)
    assert data["by_label"]["ORG"]["pairs"][0]["f1"] == 0
    assert data["by_label"]["ORG"]["mean_f1"] == 0
    assert data["options"]["match"] == "exact" and data["options"]["format"] is None
    # undefined rates are null, never NaN
    assert data["by_label"]["ORG"]["pairs"][0]["precision"] is None
    assert "NaN" not in out


def test_agree_table_and_csv(files, capsys):
    _, ann1, ann2 = files
    code, out, _ = run(capsys, "agree", ann1, ann2, "--match", "overlap", "--labels", "ignore", "--by", "label")
    assert code == 0
    assert "ann1 × ann2" in out and "mean pairwise F1 1.0000" in out
    code, out, _ = run(capsys, "agree", ann1, ann2, "--output", "csv")
    assert out.splitlines()[0] == "first,second,a,b,c,precision,recall,f1,jaccard"
    assert out.splitlines()[1].startswith("ann1,ann2,1.0,2.0,2.0,")


def test_score_json_one_and_several(files, capsys):
    _, ann1, ann2 = files
    code, out, _ = run(capsys, "score", ann1, ann2, "--match", "partial", "--output", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["a"], data["b"], data["c"]) == (1.5, 1.5, 1.5)
    assert data["errors"]["partial"] == 1 and data["errors"]["wrong_label"] == 1
    code, out, _ = run(capsys, "score", ann1, ann2, ann1, "--output", "json", "--beta", "2")
    data = json.loads(out)
    assert [p["prediction"] for p in data["predictions"]] == ["ann2", "ann1"]
    assert data["predictions"][1]["f1"] == 1 and data["predictions"][1]["f2"] == 1
    assert "spanagree" in data and "options" in data


def test_errors_file_and_refusal_to_overwrite(files, capsys):
    tmp_path, ann1, ann2 = files
    listing = tmp_path / "errors.csv"
    code, _, err = run(capsys, "score", ann1, ann2, "--errors", str(listing))
    assert code == 0, err
    rows = listing.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("prediction,document,kind,aligned,credit,gold_start")
    assert len(rows) == 1 + 2  # Bo Li/Bo boundary, Porto label
    before = listing.read_bytes()
    code, _, err = run(capsys, "score", ann1, ann2, "--errors", str(listing))
    assert code == 2 and "--force" in err and str(listing) in err
    assert listing.read_bytes() == before
    code, _, _ = run(capsys, "score", ann1, ann2, "--errors", str(listing), "--force", "--match", "overlap")
    assert code == 0 and listing.read_bytes() != before


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["agree", "missing.jsonl", "{ann1}"], 1, "missing.jsonl"),
        (["agree", "{ann1}", "{ann2}", "--match", "fuzzy"], 2, "fuzzy"),
        (["agree", "{ann1}"], 2, "at least two"),
        (["score", "{ann1}", "{ann2}", "--partial-credit", "2"], 2, "partial-credit"),
        (["agree", "{ann1}", "{bad}"], 1, "bad.jsonl:2"),
        (["agree", "{ann1}", "{ann2}", "--seed", "3"], 2, "--seed goes with --bootstrap"),
    ],
)
def test_bad_input_and_usage(files, capsys, argv, code, message):
    tmp_path, ann1, ann2 = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "d1", "text": "x", "spans": []}\n{"id": "d2", "text": \n', encoding="utf-8")
    argv = [a.format(ann1=ann1, ann2=ann2, bad=bad) for a in argv]
    got, out, err = run(capsys, *argv)
    assert got == code
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and out == ""


def test_no_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "doc.ann"
    bad.write_text("T1\tPER 0 5\tAna R\n", encoding="utf-8")
    process = subprocess.run([sys.executable, "-m", "spanagree.cli", "agree", str(tmp_path), str(tmp_path)],
                             capture_output=True, text=True)
    assert process.returncode == 1
    assert "Traceback" not in process.stderr
    assert "doc.ann" in process.stderr


def test_convert_round_trip_and_refusal(files, capsys):
    tmp_path, ann1, _ = files
    out_dir = tmp_path / "brat"
    code, out, err = run(capsys, "convert", ann1, "--to", "brat", "--out", str(out_dir))
    assert code == 0, err
    assert (out_dir / "d1.txt").read_text(encoding="utf-8") == TEXT
    assert (out_dir / "d1.ann").read_text(encoding="utf-8").count("\n") == 3
    back = tmp_path / "back.jsonl"
    code, _, err = run(capsys, "convert", str(out_dir), "--to", "jsonl", "--out", str(back))
    assert code == 0, err
    assert json.loads(back.read_text(encoding="utf-8")) == json.loads(open(ann1, encoding="utf-8").read())
    before = back.read_bytes()
    code, _, err = run(capsys, "convert", str(out_dir), "--to", "jsonl", "--out", str(back))
    assert code == 2 and back.read_bytes() == before
