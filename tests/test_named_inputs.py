"""Issue 26, point 4: ``NAME=PATH`` names an input on every command, and the name is used
everywhere a span set's name appears (each pair's ``annotators``, listings, the report, merge's
summary); a container named so gives its one span set the name (exports from separate installs
all saying ``completed_by: 1``), or each of several ``NAME/its name``."""

from __future__ import annotations

import csv
import io
import json

import pytest

from spanagree import agree
from spanagree.pipeline import NamedPath, named_input

from conftest import DEMO, run, same_under

ANN = [DEMO / "jsonl" / f"ann{number}.jsonl" for number in (1, 2, 3)]


def test_named_input_parses_name_equals_path(tmp_path):
    assert named_input("alice=ann1.jsonl") == NamedPath("alice", "ann1.jsonl")
    assert named_input(" alice =a=b.jsonl") == NamedPath("alice", "a=b.jsonl")  # the first = splits
    for plain in ("ann1.jsonl", "=ann1.jsonl", "alice=", "C:/x.jsonl"):
        assert named_input(plain) == plain
    existing = tmp_path / "run=3.jsonl"  # a path that exists and holds = stays a path
    existing.write_text("")
    assert named_input(str(existing)) == str(existing)


def test_agree_names_pairs_listings_and_report(tmp_path, capsys):
    errors, report = tmp_path / "errors.csv", tmp_path / "report.html"
    code, out, err = run(capsys, "agree", f"alice={ANN[0]}", f"bob={ANN[1]}", ANN[2], "--output", "json",
                         "--errors", errors, "--report", report)
    assert code == 0, err
    result = json.loads(out)
    assert result["annotators"] == ["alice", "bob", "ann3"]
    assert [pair["annotators"] for pair in result["pairs"]] == [["alice", "bob"], ["alice", "ann3"],
                                                                 ["bob", "ann3"]]
    rows = list(csv.DictReader(io.StringIO(errors.read_text())))
    assert {(row["first"], row["second"]) for row in rows} == {("alice", "bob"), ("alice", "ann3"), ("bob", "ann3")}
    page = report.read_text()
    assert '"alice"' in page and '"bob"' in page and '"ann1"' not in page
    # the same figures as unnamed
    code, plain, _ = run(capsys, "agree", *ANN, "--output", "json")
    unnamed = json.loads(plain)
    assert [p["f1"] for p in unnamed["pairs"]] == [p["f1"] for p in result["pairs"]]


def test_score_and_merge_use_the_names(tmp_path, capsys):
    code, out, err = run(capsys, "score", f"gold={ANN[0]}", f"system={ANN[1]}", "--output", "json")
    assert code == 0, err
    scored = json.loads(out)
    assert (scored["gold"], scored["prediction"]) == ("gold", "system")
    code, out, err = run(capsys, "merge", f"a={ANN[0]}", f"b={ANN[1]}", f"c={ANN[2]}", "--to", "jsonl",
                         "--out", tmp_path / "gold.jsonl", "--output", "json")
    assert code == 0, err
    assert json.loads(out)["annotators"] == ["a", "b", "c"]


def test_exports_from_separate_installs_are_told_apart_by_name(tmp_path, capsys):
    """Label Studio exports that all say ``completed_by: 1`` came out as ``1, 1#2, 1#3``."""
    exports = []
    for number, source in enumerate(ANN, 1):
        converted = tmp_path / f"install{number}.json"
        code, _, err = run(capsys, "convert", source, "--to", "labelstudio", "--out", converted)
        assert code == 0, err
        tasks = json.loads(converted.read_text())
        for task in tasks:
            for annotation in task["annotations"]:
                annotation["completed_by"] = 1
        converted.write_text(json.dumps(tasks))
        exports.append(converted)
    code, out, _ = run(capsys, "agree", *exports, "--output", "json")
    assert json.loads(out)["annotators"] == ["1", "1#2", "1#3"]
    named = [f"{name}={path}" for name, path in zip(("ana", "ben", "cy"), exports)]
    code, out, err = run(capsys, "agree", *named, "--output", "json")
    assert code == 0, err
    assert json.loads(out)["annotators"] == ["ana", "ben", "cy"]
    code, plain, _ = run(capsys, "agree", *ANN, "--output", "json")
    counts = [[(p["a"], p["b"], p["c"]) for p in json.loads(document)["pairs"]] for document in (out, plain)]
    assert counts[0] == counts[1]


def test_a_container_of_several_prefixes_each_name(capsys):
    export = DEMO / "labelstudio" / "demo.json"
    code, out, err = run(capsys, "agree", f"x={export}", "--output", "json")
    assert code == 0, err
    names = json.loads(out)["annotators"]
    assert names == ["x/ann1@example.org", "x/ann2@example.org", "x/ann3@example.org"]
    code, out, err = run(capsys, "agree", f"x={export}", "--annotators", "x/ann3@example.org,x/ann1@example.org",
                         "--output", "json")
    assert code == 0, err
    assert json.loads(out)["annotators"] == ["x/ann3@example.org", "x/ann1@example.org"]


def test_two_inputs_of_one_name_are_refused(capsys):
    code, _, err = run(capsys, "agree", f"alice={ANN[0]}", f"alice={ANN[1]}")
    assert code == 2
    assert err == ("spanagree: error: two inputs are named 'alice': give each input its own name "
                   "(NAME=PATH)\n")


def test_a_missing_named_path_names_the_path(capsys, tmp_path):
    code, _, err = run(capsys, "agree", f"alice={tmp_path / 'nothere.jsonl'}", ANN[1])
    assert code != 0 and "Traceback" not in err
    assert str(tmp_path / "nothere.jsonl") in err and "alice=" not in err


def test_the_library_takes_named_paths():
    result = agree([NamedPath("alice", ANN[0]), NamedPath("bob", ANN[1])])
    assert [(pair.first, pair.second) for pair in result.pairs] == [("alice", "bob")]


def test_names_hold_under_jobs(tmp_path, capsys, small_shards):
    same_under(capsys, ["agree", f"alice={ANN[0]}", f"bob={ANN[1]}", f"cy={ANN[2]}", "--output", "json"],
               calls=small_shards)
    out = run(capsys, "agree", f"alice={ANN[0]}", f"bob={ANN[1]}", "--output", "json", "--jobs", "2")[1]
    assert json.loads(out)["annotators"] == ["alice", "bob"]


def test_convert_writes_the_name_where_the_format_writes_one(tmp_path, capsys):
    """``convert NAME=PATH``: Label Studio's ``completed_by`` says the name (and reads back as that
    annotator); without a name it says the file stem, as before."""
    named, plain = tmp_path / "named.json", tmp_path / "plain.json"
    code, out, err = run(capsys, "convert", f"alice={ANN[0]}", "--to", "labelstudio", "--out", named)
    assert (code, err) == (0, "") and out == f"wrote 10 documents, 75 spans to {named} (labelstudio)\n"
    assert run(capsys, "convert", ANN[0], "--to", "labelstudio", "--out", plain)[0] == 0
    emails = [{annotation["completed_by"]["email"] for task in json.loads(path.read_text()) for annotation in
               task["annotations"]} for path in (named, plain)]
    assert emails == [{"alice"}, {"ann1"}]
    code, out, err = run(capsys, "agree", named, ANN[1], "--output", "json")
    assert code == 0, err
    assert json.loads(out)["annotators"] == ["alice", "ann2"]
    # a container's one annotator, chosen by --annotators, takes the name too
    again = tmp_path / "again.json"
    code, _, err = run(capsys, "convert", f"bob={DEMO / 'labelstudio' / 'demo.json'}", "--annotators",
                       "ann2@example.org", "--to", "labelstudio", "--out", again)
    assert code == 0, err
    assert {a["completed_by"]["email"] for task in json.loads(again.read_text()) for a in task["annotations"]} == {"bob"}


@pytest.mark.parametrize("to, out", [("brat", "brat"), ("jsonl", "x.jsonl"), ("conll", "x.conll"),
                                     ("xml", "x.xml"), ("webanno", "webanno"), ("docbin", "x.spacy")])
def test_convert_takes_a_name_where_nothing_is_written(tmp_path, capsys, to, out):
    """Formats that write no annotator take ``NAME=PATH`` without error and write what they write
    without it, byte for byte."""
    named, plain = tmp_path / "named", tmp_path / "plain"
    source = DEMO / "conll" / "ann1.conll"  # CoNLL-shaped texts, no discontinuous span: every format writes it
    for folder, given in ((named, f"carol={source}"), (plain, str(source))):
        folder.mkdir()
        code, _, err = run(capsys, "convert", given, "--to", to, "--out", folder / out)
        assert code == 0, err

    def files(folder):
        return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    assert files(named) == files(plain) and files(plain)


def test_convert_library_name():
    from spanagree.formats import convert, read

    def converted(tmp, **name):
        dest = tmp / "out.json"
        convert(ANN[1], dest, to="labelstudio", **name)
        return read(dest).name

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        assert (converted(Path(first), name="dora"), converted(Path(second))) == ("dora", "ann2")
