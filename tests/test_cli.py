"""The command line: the JSON contract, exit codes, one-line errors, and never overwriting."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from spanagree.cli import main
from conftest import run

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
    assert "ann1 × ann2" in out and "mean pairwise F1  1.0000" in out
    assert "1 document, match overlap, labels ignore" in out and "per label: only with --labels strict" in out
    code, out, _ = run(capsys, "agree", ann1, ann2, "--output", "csv")
    assert out.splitlines()[0] == "first,second,a,b,c,precision,recall,f1,jaccard"
    assert out.splitlines()[1].startswith("ann1,ann2,1,2,2,")


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
        (["agree", "{ann1}", "{ann2}", "--seed", "3"], 2, "--seed goes with --bootstrap, --compare or --gamma"),
        (["agree", "{ann1}", "{ann2}", "--labels", "loose"], 2, "invalid choice: 'loose'"),
        (["agree", "{ann1}", "{ann2}", "--by", "pair"], 2, "choose among label, document (separated by commas), not 'pair'"),
        (["agree", "{ann1}", "{ann2}", "--output", "xml"], 2, "invalid choice: 'xml'"),
        (["agree", "{ann1}", "{ann2}", "--scheme", "biluo"], 2, "invalid choice: 'biluo'"),  # bio is iob2's alias
        (["agree", "{ann1}", "{ann2}", "--map", "PER"], 2, "--map takes OLD=NEW, got 'PER'"),
        (["agree", "{ann1}", "{ann2}", "--partial-credit", "half"], 2, "--partial-credit must be a number"),
        # the library's checks, as the command line says them
        (["agree", "{ann1}", "{ann2}", "--jobs", "0"], 2, "--jobs must be a whole number of processes, at least 1; got 0"),
        (["merge", "{ann1}", "{ann2}", "--to", "jsonl", "--out", "{ann1}.gold", "--jobs", "0"], 2,
         "--jobs must be a whole number of processes, at least 1; got 0"),
        (["agree", "{ann1}", "{ann2}", "--documents", "pairwise", "--unitizing"], 2,
         "--unitizing needs every annotator on every document (Krippendorff's unitizing alpha has no missing "
         "annotators); use --documents common"),
        (["score", "{ann1}", "{ann2}", "--beta", "-1"], 2, "--beta must be >= 0"),
        (["score", "{ann1}", "{ann2}", "--beta", "x"], 2, "invalid float value: 'x'"),
        (["score", "{ann1}"], 2, "score needs at least one prediction; the inputs hold one span set"),
        (["score", "{ann1}", "{other}"], 1, "document 'd1' has a different text in other than in ann1"),
        (["agree", "{ann1}", "{ann2}", "--bogus"], 2, "unrecognized arguments: --bogus"),
        (["agree", "{ann1}", "{elsewhere}"], 1, "no document is annotated by every annotator"),
    ],
)
def test_bad_input_and_usage(files, capsys, argv, code, message):
    tmp_path, ann1, ann2 = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "d1", "text": "x", "spans": []}\n{"id": "d2", "text": \n', encoding="utf-8")
    other = jsonl(tmp_path / "other.jsonl", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"))
    elsewhere = jsonl(tmp_path / "elsewhere.jsonl", [], doc="d9")
    argv = [a.format(ann1=ann1, ann2=ann2, bad=bad, other=other, elsewhere=elsewhere) for a in argv]
    got, out, err = run(capsys, *argv)
    assert got == code
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and out == ""


@pytest.mark.slow
def test_no_traceback_in_a_real_process(tmp_path, files):
    bad = tmp_path / "brat" / "doc.ann"
    bad.parent.mkdir()
    bad.write_text("T1\tPER 0 5\tAna R\n", encoding="utf-8")
    _, ann1, ann2 = files
    other = jsonl(tmp_path / "other.jsonl", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"))
    cases = [
        (["agree", str(bad.parent), str(bad.parent)], 1, "doc.ann"),                      # .ann without its .txt
        (["agree", ann1, str(tmp_path / "missing")], 1, "missing: no such file or folder"),
        (["agree", ann1, ann2, "--match", "fuzzy"], 2, "argument --match: invalid choice: 'fuzzy'"),
        (["score", ann1, other], 1, "document 'd1' has a different text"),
    ]
    for argv, code, message in cases:
        process = subprocess.run([sys.executable, "-m", "spanagree.cli", *argv], capture_output=True, text=True)
        assert process.returncode == code, (argv, process.stderr)
        assert "Traceback" not in process.stderr
        assert process.stderr.startswith("spanagree: error: ") and message in process.stderr, process.stderr
        assert len(process.stderr.strip().splitlines()) == 1 and process.stdout == ""


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


# -- the JSON contract (docs/design.md, "Contracts") -------------------------------------------------------

NUMBER = (int, float)
RATE = (float, int, type(None))  # null when undefined
COUNTS = {"a": NUMBER, "b": NUMBER, "c": NUMBER, "precision": RATE, "recall": RATE, "f1": RATE}
AGREE_PAIR = {"annotators": list, **COUNTS}
AGREE = {
    "spanagree": str, "options": dict, "annotators": list, "documents": int, "match": str, "labels": str,
    "pairs": [AGREE_PAIR], "mean_f1": RATE, "pooled_f1": RATE,
    "by_label": {"*": {"pairs": [AGREE_PAIR], "mean_f1": RATE}},
    # fields added beyond the first contract (fields are only ever added)
    "partial_credit": (float, str), "sd_f1": RATE, "pairs_with_undefined_f1": int, "pooled": dict,
    "matrix": {"annotators": list, "f1": list}, "left_out": dict, "notes": list,
}
SCORE_ONE = {
    **COUNTS, "by_label": {"*": COUNTS}, "errors": {k: int for k in (
        "correct", "partial", "wrong_label", "wrong_label_and_boundary", "missed", "spurious")},
    "prediction": str, "gold": str, "documents": int, "match": str, "labels": str, "beta": NUMBER,
    "confusion": {"rows": str, "columns": str, "labels": list, "matrix": list}, "missing_predictions": list,
    "notes": list,
}
OPTIONS = {"match", "labels", "partial_credit", "only", "map", "align_whitespace", "format", "scheme", "by"}


def conforms(data, schema, where="$"):
    """Every key of ``schema`` is in ``data`` with the right type (recursively); ``"*"`` = every key."""
    if isinstance(schema, dict):
        assert isinstance(data, dict), where
        for key, sub in schema.items():
            if key == "*":
                assert data, f"{where}: empty"
                for k, v in data.items():
                    conforms(v, sub, f"{where}.{k}")
            else:
                assert key in data, f"{where}: missing {key!r}"
                conforms(data[key], sub, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(data, list) and data, where
        for k, item in enumerate(data):
            conforms(item, schema[0], f"{where}[{k}]")
    else:
        assert isinstance(data, schema) and not isinstance(data, bool), f"{where}: {type(data).__name__}"


def test_agree_json_contract_on_the_demo(demo, capsys):
    from spanagree import __version__

    paths = [str(demo / "brat" / name) for name in ("ann1", "ann2", "ann3")]
    code, out, err = run(capsys, "agree", *paths, "--output", "json", "--match", "partial", "--only", "PER,ORG")
    assert code == 0, err
    data = json.loads(out)
    conforms(data, AGREE)
    assert data["spanagree"] == __version__
    assert OPTIONS <= set(data["options"]) and data["options"]["only"] == ["ORG", "PER"]
    assert data["options"]["partial_credit"] == 0.5 and data["options"]["match"] == "partial"
    assert [p["annotators"] for p in data["pairs"]] == [["ann1", "ann2"], ["ann1", "ann3"], ["ann2", "ann3"]]
    assert sorted(data["by_label"]) == ["ORG", "PER"]
    assert all(len(entry["pairs"]) == 3 for entry in data["by_label"].values())
    # the figures behind the keys: exact/strict on the demo (corpora/demo/README.md)
    code, out, _ = run(capsys, "agree", *paths, "--output", "json", "--by", "document")
    data = json.loads(out)
    assert [(p["a"], p["b"], p["c"]) for p in data["pairs"]] == [(61, 16, 12), (67, 10, 8), (56, 17, 19)]
    assert round(data["mean_f1"], 4) == 0.8172 and round(data["pooled_f1"], 4) == 0.8178
    assert (data["pooled"]["a"], data["pooled"]["b"], data["pooled"]["c"]) == (184, 43, 39)
    assert data["documents"] == 10 and len(data["by_document"]) == 10
    conforms(data["by_document"], {"*": {"pairs": [AGREE_PAIR], "mean_f1": RATE, "pooled_f1": RATE,
                                         "pairs_with_undefined_f1": int}})
    assert [p["a"] for p in data["by_document"]["clinic-02"]["pairs"]] == [4, 7, 4]


def test_score_json_contract_on_the_demo(demo, capsys):
    gold, ann2, ann3 = (str(demo / "brat" / name) for name in ("ann1", "ann2", "ann3"))
    code, out, err = run(capsys, "score", gold, ann2, "--output", "json", "--beta", "2")
    assert code == 0, err
    data = json.loads(out)
    conforms(data, {"spanagree": str, "options": dict, "f2": RATE, **SCORE_ONE})
    assert (data["a"], data["b"], data["c"]) == (61, 12, 16)  # b: ann2's spurious, c: missed of ann1's
    assert data["errors"] == {"correct": 61, "partial": 7, "wrong_label": 3, "wrong_label_and_boundary": 1,
                              "missed": 5, "spurious": 1}
    assert data["options"]["beta"] == 2.0 and OPTIONS <= set(data["options"])
    code, out, err = run(capsys, "score", gold, ann2, ann3, "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    conforms(data, {"spanagree": str, "options": dict, "gold": str, "predictions": [SCORE_ONE]})
    assert [p["prediction"] for p in data["predictions"]] == ["ann2", "ann3"]
    assert [(p["a"], p["b"], p["c"]) for p in data["predictions"]] == [(61, 12, 16), (67, 8, 10)]
    assert "spanagree" not in data["predictions"][0]  # the header is given once


def test_json_writes_null_never_nan(tmp_path, capsys):
    nothing = jsonl(tmp_path / "nothing.jsonl", [])
    also = jsonl(tmp_path / "also.jsonl", [])
    code, out, err = run(capsys, "agree", nothing, also, "--output", "json")
    assert code == 0
    data = json.loads(out)
    assert data["pairs"][0]["f1"] is None and data["mean_f1"] is None and data["pooled_f1"] is None
    assert data["pairs_with_undefined_f1"] == 1
    assert "NaN" not in out
    assert "spanagree: warning: nothing × also: precision, recall, F1 undefined (0/0), reported as NaN" in err


# -- the terminal table ------------------------------------------------------------------------

def test_agree_table_on_the_demo(demo, capsys):
    paths = [str(demo / "brat" / name) for name in ("ann1", "ann2", "ann3")]
    code, out, err = run(capsys, "agree", *paths, "--by", "label")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == ("spanagree agree: 3 annotators (ann1, ann2, ann3), 10 documents, match exact, "
                        "labels strict")
    assert lines[2].split() == ["pair", "a", "b", "c", "precision", "recall", "F1"]
    assert lines[4].split() == ["ann1", "×", "ann2", "61", "16", "12", "0.7922", "0.8356", "0.8133"]
    assert lines[5].split()[-4:] == ["8", "0.8701", "0.8933", "0.8816"]
    assert lines[6].split()[-1] == "0.7568"
    assert "mean pairwise F1  0.8172  (population SD 0.0510, over 3 of 3 pairs)" in out
    assert "pooled F1         0.8178  (a 184, b 43, c 39 summed over pairs)" in out
    matrix = lines[lines.index("pairwise F1") + 3:lines.index("pairwise F1") + 6]
    assert [row.split() for row in matrix] == [["ann1", "1.0000", "0.8133", "0.8816"],
                                               ["ann2", "0.8133", "1.0000", "0.7568"],
                                               ["ann3", "0.8816", "0.7568", "1.0000"]]
    per_label = {line.split()[0]: line.split()[1:] for line in lines[lines.index("F1 per label") + 3:][:5]}
    assert per_label["DRUG"] == ["0.8667", "1.0000", "0.8667", "0.9111", "0.9130"]
    code, out, _ = run(capsys, "agree", *paths, "--by", "document", "--match", "partial")
    assert "match partial, labels strict, partial credit 0.5" in out
    assert "64.5  12.5   8.5" in out
    doc = next(line for line in out.splitlines() if line.startswith("clinic-02"))
    assert doc.split()[1:4] == ["0.6429", "1.0000", "0.6429"]


def test_score_table_on_the_demo(demo, tmp_path, capsys):
    gold, ann2, ann3 = (str(demo / "brat" / name) for name in ("ann1", "ann2", "ann3"))
    listing = tmp_path / "errors.csv"
    code, out, err = run(capsys, "score", gold, ann2, ann3, "--by", "label", "--beta", "2", "--errors", str(listing))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "spanagree score: gold ann1, 10 documents, match exact, labels strict"
    assert lines[2].split() == ["rank", "prediction", "a", "b", "c", "precision", "recall", "F1", "F2"]
    assert lines[4].split() == ["1", "ann3", "67", "8", "10", "0.8933", "0.8701", "0.8816", "0.8747"]  # rank order
    assert lines[5].split() == ["2", "ann2", "61", "12", "16", "0.8356", "0.7922", "0.8133", "0.8005"]
    # --by label: a support column (the gold's spans) and the three averages under the labels
    per_label = lines[lines.index("per label: ann2") + 1:][:10]
    assert per_label[0].split() == ["label", "a", "b", "c", "precision", "recall", "F1", "F2", "support"]
    rows = {line.split()[0]: line.split() for line in per_label[2:7]}
    assert rows["ORG"] == ["ORG", "15", "2", "4", "0.8824", "0.7895", "0.8333", "0.8065", "19"]
    f1s = [float(row[6]) for row in rows.values()]
    supports = [int(row[8]) for row in rows.values()]
    assert per_label[7].split() == ["micro", "avg", "0.8356", "0.7922", "0.8133", "77"]       # = the overall figures
    assert per_label[8].split()[:2] == ["macro", "avg"]
    assert float(per_label[8].split()[4]) == pytest.approx(sum(f1s) / 5, abs=1e-4)
    assert float(per_label[9].split()[4]) == pytest.approx(sum(f * s for f, s in zip(f1s, supports)) / 77, abs=1e-4)
    kinds = lines[lines.index("spans by kind") + 3:][:2]
    assert [k.split() for k in kinds] == [["ann2", "61", "7", "3", "1", "5", "1"], ["ann3", "67", "4", "2", "0", "4", "2"]]
    confusion = lines[lines.index("label confusion: ann2") + 3:][:6]
    assert confusion[3].split() == ["gold", "ORG", ".", ".", "3", "16", ".", "."]  # ORG read as LOC three times
    assert confusion[5].split() == ["gold", "(none)", "1", ".", ".", ".", ".", "."]  # BRCA1 mutation, spurious
    rows = list(csv.reader(io.StringIO(listing.read_text(encoding="utf-8"))))
    assert len(rows) == 1 + 17 + 12  # header, ann2's 17 errors, ann3's 12
    assert ",".join(rows[1]).startswith("ann2,clinic-01,partial,False,0.0,0,14,0-14,PER,Mr. Tomas Berg,")
    code, out, _ = run(capsys, "score", gold, ann2, "--by", "document", "--match", "partial")
    doc = next(line for line in out.splitlines() if line.startswith("news-04"))
    assert doc.split() == ["news-04", "4.5", "1.5", "2.5", "0.7500", "0.6429", "0.6923"]


def test_score_csv_one_row_per_prediction(demo, capsys):
    gold, ann2, ann3 = (str(demo / "brat" / name) for name in ("ann1", "ann2", "ann3"))
    code, out, _ = run(capsys, "score", gold, ann2, ann3, "--output", "csv")
    lines = out.splitlines()
    assert lines[0].startswith("prediction,gold,documents,match,labels,partial_credit,beta,a,b,c,precision,recall,f1")
    assert [line.split(",")[:1] + line.split(",")[7:10] for line in lines[1:]] == [
        ["ann2", "61", "12", "16"], ["ann3", "67", "8", "10"]]


def test_every_option_is_documented():
    from pathlib import Path

    from spanagree.cli import build_parser

    docs = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("agree", "score"):
        for action in commands[name]._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in docs, f"{name} {option} is not in docs/cli.md"
                    if action.choices:
                        for choice in action.choices:
                            assert choice in docs, f"{name} {option} {choice}"


def test_the_json_examples_in_docs_cli_md_are_real_output(demo, capsys):
    """docs/cli.md shows the output of two commands on the demo corpus; it must stay true."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    docs = (root / "docs" / "cli.md").read_text(encoding="utf-8")
    examples = re.findall(r"— `spanagree (agree|score) (\S+) (\S+) --only DRUG --output json`:\n\n```json\n(.*?)```",
                          docs, re.S)
    assert [e[0] for e in examples] == ["agree", "score"]
    for command, first, second, shown in examples:
        code, out, err = run(capsys, command, str(root / first), str(root / second), "--only", "DRUG", "--output", "json")
        assert code == 0, err
        real, documented = json.loads(out), json.loads(shown)
        assert set(documented["options"]) <= set(real["options"])  # options may be added later
        for key in ("options", "spanagree"):
            real.pop(key), documented.pop(key)
        assert documented == real


@pytest.mark.parametrize("argv, message", [
    (["agree", "{ann1}", "{ann2}", "--match", "partial", "--partial-credit", "2"],
     "--partial-credit must be in (0, 1], got 2.0"),
    (["agree", "{ann1}", "{ann2}", "--map", "LOC"], "--map takes OLD=NEW, got 'LOC'"),
    (["merge", "{ann1}", "{ann2}", "--to", "jsonl", "--out", "{out}", "--min-votes", "3"],
     "--min-votes must be between 1 and the number of annotators (2), got 3"),
])
def test_the_command_line_names_its_flags_where_the_api_names_its_parameters(argv, message, tmp_path, capsys):
    """The library says partial_credit, label_map, min_votes; the command line says its flags."""
    from conftest import DEMO

    paths = {"ann1": str(DEMO / "brat" / "ann1"), "ann2": str(DEMO / "brat" / "ann2"), "out": str(tmp_path / "g.jsonl")}
    assert main([a.format(**paths) for a in argv]) == 2
    assert capsys.readouterr().err == f"spanagree: error: {message}\n"
