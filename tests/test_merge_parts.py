"""merge --jobs: the workers write their documents' share of the gold and of the adjudication
listings as they vote, and the parent joins the shares (spanagree.pipeline.parts).

Whatever --to and whichever listings, --jobs 2 writes byte for byte what --jobs 1 writes, prints
the same summary and warnings, and a document refused in a later shard leaves nothing written.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from spanagree.cli import main
from spanagree.pipeline import parts
from conftest import generated



@pytest.fixture(autouse=True)
def joined_parts(monkeypatch, small_shards):
    """Shard these small corpora, and count the joins of parts the workers wrote."""
    joined = []
    for cls, method in ((parts.GoldParts, "write"), (parts.ListingParts, "write_rows")):
        original = getattr(cls, method)

        def counted(self, *args, _original=original, _name=cls.__name__, **kwargs):
            joined.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, counted)
    return joined


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """30 generated documents, three annotators, in BRAT and in CoNLL."""
    return generated(tmp_path_factory.mktemp("corpus"), docs=30, annotators=3, formats=("brat", "conll"))


def refused_at_the_end(folder) -> list:
    """Two JSON-lines annotators of 40 documents in ``folder``; the last document's text has a
    double space, which CoNLL cannot write."""
    lines = [{"id": f"d{n}", "text": f"Ana met Bo in Porto {n}", "spans": [{"start": 0, "end": 3, "label": "PER"}]}
             for n in range(40)]
    lines[-1]["text"] = "Ana met  Bo"
    inputs = []
    for name in ("ann1", "ann2"):
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        inputs.append(path)
    return inputs


def merged(capsys, tmp_path, inputs, jobs: str, to: str, extra=()):
    """Run merge; its exit code, stdout (JSON without the options echo), stderr and every output's bytes."""
    out = tmp_path / f"run{jobs}"
    out.mkdir()
    outputs = {"gold": out / ("gold" if to == "brat" else f"gold.{to}"), "adjudicate": out / "adjudicate.csv",
               "all": out / "all.json", "report": out / "report.html"}
    code = main(["merge", *map(str, inputs), "--to", to, "--out", str(outputs["gold"]),
                 "--adjudicate", str(outputs["adjudicate"]), "--adjudicate-all", str(outputs["all"]),
                 "--match", "overlap", "--output", "json", "--jobs", jobs, *extra])
    captured = capsys.readouterr()
    summary = json.loads(captured.out) if code == 0 else None
    if summary is not None:
        summary.pop("options")
    written = {}
    for name, path in outputs.items():
        if path.is_dir():
            written[name] = {str(f.relative_to(path)): f.read_bytes() for f in sorted(path.rglob("*"))}
        elif path.exists():
            written[name] = path.read_bytes()
    if "all" in written:  # the options echo names the paths of this run
        listing = json.loads(written["all"])
        listing["options"] = None
        written["all"] = listing
    if "report" in written:  # so does the report's
        written["report"] = written["report"].replace(str(out).encode(), b"OUT").replace(
            f'"jobs":{jobs}'.encode(), b'"jobs":N')
    return code, summary, captured.err, written


@pytest.mark.parametrize("to", ["brat", "conll", "jsonl", "xml"])
@pytest.mark.slow
def test_jobs_write_the_same_gold_and_listings(to, corpus, tmp_path, capsys, joined_parts):
    inputs = ([corpus / "conll" / f"ann{k}.conll" for k in (1, 2, 3)] if to == "conll"
              else [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)])
    one = merged(capsys, tmp_path, inputs, "1", to)
    # one process writes only a BRAT gold as it votes (its files move into place); the rest after
    assert joined_parts == (["GoldParts"] if to == "brat" else [])
    joined_parts.clear()
    two = merged(capsys, tmp_path, inputs, "2", to)
    # the gold (BRAT: the parts of a format written to one file), --adjudicate and --adjudicate-all joined
    assert sorted(joined_parts) == ["GoldParts", "ListingParts", "ListingParts"]
    assert one[0] == two[0] == 0
    assert one == two
    gold = one[3]["gold"]
    documents = {"brat": lambda: len(gold) // 2, "conll": lambda: gold.count(b"-DOCSTART-"),
                 "jsonl": lambda: gold.count(b"\n"), "xml": lambda: gold.count(b"<doc id=")}
    assert documents[to]() == one[1]["documents"] == 30
    rows = list(csv.reader(io.StringIO(one[3]["adjudicate"].decode("utf-8"))))
    assert len(rows) - 1 == one[1]["to_adjudicate"] > 0
    assert len(one[3]["all"]["clusters"]) == one[1]["not_unanimous"] > one[1]["to_adjudicate"]


@pytest.mark.slow
def test_jobs_write_the_same_report_and_json_listing(corpus, tmp_path, capsys, joined_parts):
    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)]
    runs = [merged(capsys, tmp_path, inputs, jobs, "jsonl", ["--report", str(tmp_path / f"run{jobs}" / "report.html")])
            for jobs in ("1", "2")]
    assert runs[0] == runs[1] and b"<html" in runs[0][3]["report"]


def test_a_document_refused_in_a_later_shard_writes_nothing(tmp_path, capsys, joined_parts):
    """The last document's text has a double space: CoNLL cannot write it. The worker that votes
    on it marks it; the parent meets the error where one process does, after the same warnings,
    and nothing is written."""
    inputs = refused_at_the_end(tmp_path)
    one = merged(capsys, tmp_path, inputs, "1", "conll")
    two = merged(capsys, tmp_path, inputs, "2", "conll")
    assert joined_parts == ["GoldParts"]
    assert one[0] == two[0] == 2
    assert one[2] == two[2]
    assert "document 'd39': sentence 1 has an empty token" in one[2]
    assert one[3] == two[3] == {}
    assert sorted(p.name for p in tmp_path.rglob("*") if p.parent.name.startswith("run")) == []


def test_one_process_writes_a_brat_gold_as_it_votes_what_the_writer_writes(corpus, tmp_path, capsys, joined_parts):
    """merge --jobs 1 --to brat writes each document's files as it votes (no second reading of
    the clusters): byte for byte what the BRAT writer writes from the vote afterwards."""
    from spanagree import vote

    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2, 3)]
    assert main(["merge", *map(str, inputs), "--to", "brat", "--out", str(tmp_path / "cli"), "--match", "overlap",
                 "--min-votes", "2"]) == 0
    assert joined_parts == ["GoldParts"]
    vote(inputs, 2, match="overlap").write(tmp_path / "api", "brat")
    assert joined_parts == ["GoldParts"]  # the API's vote planned no outputs: the writer wrote them all
    cli, api = (sorted(p.relative_to(tmp_path / where) for p in (tmp_path / where).rglob("*")) for where in ("cli", "api"))
    assert cli == api and len(cli) == 60
    assert all((tmp_path / "cli" / p).read_bytes() == (tmp_path / "api" / p).read_bytes() for p in cli)


def test_a_document_brat_refuses_leaves_nothing_written_by_one_process(tmp_path, capsys, joined_parts):
    """A label with a space, which BRAT cannot write, in the 31st of 40 documents: merge --jobs 1
    --to brat has written 30 documents' files as it voted, and still leaves nothing behind."""
    lines = [{"id": f"d{n:02}", "text": f"Ana met Bo in Porto {n}",
              "spans": [{"start": 0, "end": 3, "label": "PER" if n != 30 else "A PERSON"}]} for n in range(40)]
    inputs = []
    for name in ("ann1", "ann2"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        inputs.append(path)
    out = tmp_path / "out" / "gold"
    code = main(["merge", *map(str, inputs), "--to", "brat", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "document 'd30': label 'A PERSON' has whitespace" in err and "Traceback" not in err
    assert joined_parts == ["GoldParts"]
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").rglob("*")) == []


def test_an_output_inside_an_input_is_still_refused(corpus, tmp_path, capsys):
    inputs = [corpus / "brat" / f"ann{k}" for k in (1, 2)]
    code = main(["merge", *map(str, inputs), "--to", "brat", "--out", str(inputs[0] / "gold"), "--jobs", "2"])
    assert code == 2
    assert "gold" in capsys.readouterr().err and not (inputs[0] / "gold").exists()
