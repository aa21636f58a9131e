"""Listings with context: ``agree --errors``, the ``context_before``/``context_after`` columns of every
listing (``--context N``), and ``merge --adjudicate-all`` (issue 13, part 2)."""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter

import pytest
from jsonschema import Draft202012Validator

from spanagree import agree, score
from spanagree.pipeline import parallel
from spanagree.report.schemas import schema
from spanagree.span import Span, SpanSet
from spanagree.voting import vote
from conftest import run

S = Span


def rows_of(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


# -- agree --errors: a worked example ---------------------------------------------------------------

#         0         1         2         3
#         0123456789012345678901234567890123456789
TEXT = "Ana Ruiz met\nBo Li in Rome, Italy today."
#  A      [=PER==]     [PER]  [LOC]                 A: 0-8 PER, 13-18 PER, 22-26 LOC
#  B      [=PER==]     [ORG]  [=====LOC===]         B: 0-8 PER, 13-18 ORG, 22-33 LOC, 34-39 LOC
#                                          [LOC]


def pair_example():
    texts = {"d": TEXT}
    a = SpanSet.from_spans("A", [S("d", (0, 8), "PER"), S("d", (13, 18), "PER"), S("d", (22, 26), "LOC")], texts)
    b = SpanSet.from_spans("B", [S("d", (0, 8), "PER"), S("d", (13, 18), "ORG"), S("d", (22, 33), "LOC"),
                                 S("d", (34, 39), "LOC")], texts)
    return a, b


def test_agree_errors_worked_example():
    a, b = pair_example()
    result = agree([a, b], errors=True, context=6)
    assert result.pairs[0].counts.astuple()[:3] == (1, 2, 3)  # a = Ana Ruiz; b: A's other two; c: B's other three
    listed = [(first, second, item.kind, item.pred and item.pred.fragments, item.gold and item.gold.fragments,
               item.context_before, item.context_after) for first, second, item in result.errors()]
    assert listed == [
        # same fragments, other label; 6 characters each side, the newline kept
        ("A", "B", "wrong_label", ((13, 18),), ((13, 18),), "a Ruiz met\n"[-6:], " in Ro"),
        # overlapping, same label: the hull is 22-33
        ("A", "B", "partial", ((22, 26),), ((22, 33),), "Li in ", " today"),
        # only the second (the reference) marked it: missed, counted in c
        ("A", "B", "missed", None, ((34, 39),), "Italy ", "."),
    ]
    # every span the first marked outside a: in b; every span of the second's: in c
    first_spans = sum(item.pred is not None for _, _, item in result.errors())
    second_spans = sum(item.gold is not None for _, _, item in result.errors())
    assert (first_spans, second_spans) == (2, 3)
    # swapping the annotators swaps the sides: missed becomes spurious
    swapped = agree([b, a], errors=True, context=6)
    assert [item.kind for _, _, item in swapped.errors()] == ["wrong_label", "partial", "spurious"]


def test_agree_errors_are_score_errors_with_the_second_as_gold():
    a, b = pair_example()
    listed = [item.as_pair_dict() for _, _, item in agree([a, b], errors=True).errors()]
    scored = [item.as_dict() for item in score(b, a, errors=True).errors()]
    renamed = [{key.replace("gold_", "second_").replace("pred_", "first_"): value for key, value in row.items()}
               for row in scored]
    assert listed == renamed and len(listed) == 3


def test_agree_errors_on_the_demo_count_b_and_c(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    listing = tmp_path / "disagreements.csv"
    code, out, err = run(capsys, "agree", *paths, "--errors", listing, "--output", "json")
    assert code == 0, err
    pairs = json.loads(out)["pairs"]
    rows = rows_of(listing)
    assert list(rows[0])[:6] == ["first", "second", "document", "kind", "aligned", "credit"]
    assert list(rows[0])[-2:] == ["context_before", "context_after"]
    for pair in pairs:  # exact, labels strict: b = the first's unpaired spans, c = the second's
        own = [r for r in rows if [r["first"], r["second"]] == pair["annotators"]]
        assert sum(r["first_start"] != "" for r in own) == pair["b"]
        assert sum(r["second_start"] != "" for r in own) == pair["c"]
        assert sum(r["kind"] == "spurious" for r in own) <= pair["b"]
    # docs/cli.md's table: b + c = 16+12, 10+8, 17+19 spans outside a; a row holds two of them when
    # the second alignment paired them (11, 6 and 13 pairs): 17, 12 and 23 rows
    assert Counter((r["first"], r["second"]) for r in rows) == Counter(
        {("ann1", "ann2"): 17, ("ann1", "ann3"): 12, ("ann2", "ann3"): 23})
    both = Counter((r["first"], r["second"]) for r in rows if r["first_start"] and r["second_start"])
    assert both == Counter({("ann1", "ann2"): 11, ("ann1", "ann3"): 6, ("ann2", "ann3"): 13})
    # the same listing as JSON, valid against its schema, the same rows
    as_json = tmp_path / "disagreements.json"
    code, _, err = run(capsys, "agree", *paths, "--errors", as_json)
    assert code == 0, err
    document = json.loads(as_json.read_text(encoding="utf-8"))
    Draft202012Validator(schema("disagreements")).validate(document)
    assert [(e["first"], e["document"], e["kind"], e["first_start"], e["second_start"], e["context_after"])
            for e in document["errors"]] == \
        [(r["first"], r["document"], r["kind"], int(r["first_start"]) if r["first_start"] else None,
          int(r["second_start"]) if r["second_start"] else None, r["context_after"]) for r in rows]


def test_agree_errors_output_safety(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2")]
    listing = tmp_path / "mine.csv"
    listing.write_text("keep me\n")
    code, _, err = run(capsys, "agree", *paths, "--errors", listing)
    assert code == 2 and "errors file exists and is not empty" in err and listing.read_text() == "keep me\n"
    code, _, err = run(capsys, "agree", *paths, "--errors", listing, "--force")
    assert code == 0 and rows_of(listing)
    code, _, err = run(capsys, "agree", *paths, "--errors", paths[0] / "clinic-01.ann", "--force")
    assert code == 2 and "errors file" in err and "input" in err
    code, _, err = run(capsys, "agree", *paths, "--context", "-1")
    assert code == 2 and err.strip() == "spanagree: error: --context must be a whole number of characters, 0 or more, got -1"


def corpus(k=3, documents=40, seed=7):
    rnd = random.Random(seed)
    texts = {f"doc{d:03d}": "".join(rnd.choice("ab c\n") for _ in range(200)) for d in range(documents)}
    sets = []
    for n in range(k):
        spans = []
        for doc in texts:
            for _ in range(rnd.randint(0, 12)):
                start = rnd.randrange(190)
                spans.append(S(doc, (start, start + rnd.randint(1, 9)), rnd.choice("PLO")))
        sets.append(SpanSet.from_spans(f"ann{n + 1}", spans, texts))
    return sets


@pytest.mark.slow
def test_agree_errors_are_the_same_under_jobs():
    spansets = corpus()
    one = agree(spansets, match="overlap", errors=True, jobs=1)
    assert len(one.errors()) > 100
    for number in (2, 3):
        jobs = parallel.Processes(number, min_spans_per_job=1)
        many = agree(spansets, match="overlap", errors=True, jobs=jobs)
        assert len(jobs.mapped) == 1 and jobs.mapped[0] > 1  # forked
        assert [(f, s, i.as_pair_dict()) for f, s, i in many.errors()] == \
            [(f, s, i.as_pair_dict()) for f, s, i in one.errors()]


@pytest.mark.slow
def test_cli_listings_are_the_same_under_jobs_on_brat(demo, tmp_path, capsys, small_shards):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    for jobs in ("1", "2"):
        assert run(capsys, "agree", *paths, "--errors", tmp_path / f"agree{jobs}.csv", "--jobs", jobs)[0] == 0
        assert run(capsys, "score", *paths, "--errors", tmp_path / f"score{jobs}.json", "--jobs", jobs)[0] == 0
    assert small_shards == [8, 8]  # forked: agree's and score's --jobs 2
    assert (tmp_path / "agree1.csv").read_bytes() == (tmp_path / "agree2.csv").read_bytes()
    assert (tmp_path / "score1.json").read_bytes() == (tmp_path / "score2.json").read_bytes()


@pytest.mark.parametrize("fmt", ["conll", "jsonl"])
def test_score_errors_are_the_same_under_jobs_on_files_read_in_parts(fmt, demo, tmp_path, capsys, small_shards):
    """The workers read their byte ranges of the files and spool their error items; the listing
    is the one process's, byte for byte, and as long as the error counts say."""
    paths = [demo / fmt / f"{name}.{fmt}" for name in ("ann1", "ann2", "ann3")]
    for jobs in ("1", "2"):
        code, out, _ = run(capsys, "score", *paths, "--errors", tmp_path / f"score{jobs}.csv", "--jobs", jobs,
                           "--output", "json")
        assert code == 0
    assert len(small_shards) == 1  # forked: --jobs 2
    listing = (tmp_path / "score1.csv").read_bytes()
    assert listing == (tmp_path / "score2.csv").read_bytes()
    summary = json.loads(out)
    wrong = sum(n for p in summary["predictions"] for kind, n in p["errors"].items() if kind != "correct")
    assert len(list(csv.DictReader(io.StringIO(listing.decode("utf-8"))))) == wrong > 0


# -- context in score --errors -----------------------------------------------------------------------

def test_score_errors_context_columns_round_trip(demo, tmp_path, capsys):
    gold, pred = demo / "brat" / "ann1", demo / "brat" / "ann2"
    for size in (0, 40, 5):
        listing = tmp_path / f"errors{size}.csv"
        code, _, err = run(capsys, "score", gold, pred, "--errors", listing, "--context", size)
        assert code == 0, err
        rows = rows_of(listing)
        assert list(rows[0])[-2:] == ["context_before", "context_after"]
        for row in rows:
            document = row["document"]
            text = (gold / f"{document}.txt").read_text(encoding="utf-8")
            starts = [int(row[f"{s}_start"]) for s in ("gold", "pred") if row[f"{s}_start"]]
            ends = [int(row[f"{s}_end"]) for s in ("gold", "pred") if row[f"{s}_end"]]
            start, end = min(starts), max(ends)
            # the csv module gives the newlines back as they are in the text
            assert row["context_before"] == text[max(start - size, 0):start]
            assert row["context_after"] == text[end:end + size]
    with_newline = [r for r in rows_of(tmp_path / "errors40.csv") if "\n" in r["context_before"] + r["context_after"]]
    assert with_newline  # the demo's documents have several lines: the CSV quoting carried them
    json_listing = tmp_path / "errors.json"
    assert run(capsys, "score", gold, pred, "--errors", json_listing)[0] == 0
    document = json.loads(json_listing.read_text(encoding="utf-8"))
    Draft202012Validator(schema("errors")).validate(document)
    assert [(e["context_before"], e["context_after"]) for e in document["errors"]] == \
        [(r["context_before"], r["context_after"]) for r in rows_of(tmp_path / "errors40.csv")]


def test_context_without_a_text_is_null():
    gold = SpanSet.from_spans("g", [S("d", (0, 3), "PER")])
    pred = SpanSet.from_spans("p", [S("d", (0, 4), "PER")])
    (item,) = score(gold, pred, errors=True).errors()
    assert (item.context_before, item.context_after) == (None, None)
    with pytest.raises(Exception, match="context must be a whole number of characters, 0 or more, got -2"):
        score(gold, pred, context=-2)


# -- merge --adjudicate-all --------------------------------------------------------------------------

def test_adjudicate_all_kinds_worked_example(tmp_path):
    #  text   Ana Ruiz met Bo Li in Rome      (4 annotators, overlap, labels ignore, K = 3)
    #  A      [=PER==]     [PER]  [LOC]
    #  B      [=PER==]     [PER]  [LOC]
    #  C      [=PER==]     [PER]  [LOC=====]   C's Rome is longer: other_boundaries
    #  D      [=PER==]            [LOC]        D lacks Bo Li: not_marked_by_all
    text = "Ana Ruiz met Bo Li in Rome city"
    texts = {"d": text}
    spans = {"A": [(0, 8), (13, 18), (22, 26)], "B": [(0, 8), (13, 18), (22, 26)], "C": [(0, 8), (13, 18), (22, 31)],
             "D": [(0, 8), (22, 26)]}
    sets = [SpanSet.from_spans(n, [S("d", f, "LOC" if f[0] >= 22 else "PER") for f in fs], texts)
            for n, fs in spans.items()]
    result = vote(sets, 3, match="overlap", labels="ignore", context=4)
    assert result.counts()["to_adjudicate"] == 0 and result.counts()["not_unanimous"] == 2
    rows = result.adjudication_rows(every=True)
    assert [(r["text"], r["kind"], r["votes"], r["boundary_votes"], r["context_before"], r["context_after"])
            for r in rows] == [("Bo Li", ["not_marked_by_all"], 3, 3, "met ", " in "),
                               ("Rome", ["other_boundaries"], 4, 3, " in ", "")]
    assert result.adjudication_rows() == []
    destination = tmp_path / "all.json"
    result.write(tmp_path / "gold", "brat", adjudicate_all=destination)
    document = json.loads(destination.read_text(encoding="utf-8"))
    assert document["clusters"] == rows and document["min_votes"] == 3


def test_every_cluster_that_is_not_unanimous_has_a_kind():
    for seed in range(5):
        sets = corpus(k=4, documents=10, seed=seed)
        for match in ("exact", "overlap"):
            for labels in ("strict", "ignore"):
                result = vote(sets, match=match, labels=labels)
                for cluster in result.clusters:
                    kinds = cluster.kinds + cluster.settled_kinds(4)
                    assert bool(kinds) == (not cluster.unanimous(4)), (cluster, kinds)
                assert len(result.disagreements()) == result.counts()["not_unanimous"]
                # clusters are read back from the spool: compared by what they are, not by identity
                every = {(c.doc, c.span.sort_key(), c.members) for c in result.disagreements()}
                assert {(c.doc, c.span.sort_key(), c.members) for c in result.adjudication()} <= every


def test_bratiaa_overlap_ignore_22_to_adjudicate_113_not_unanimous(shared_corpora, tmp_path, capsys):
    """Issue 13: under --match overlap --labels ignore, 22 clusters need a decision, 113 are not
    unanimous. The other 91: 49 that three of the four annotators marked alike (the fourth marked
    nothing there), 41 that all four marked where one marked other boundaries (Max 24 times longer,
    Maria 11 times longer and 7 shorter), 1 both."""
    project = shared_corpora / "bratiaa-example" / "example-project"
    paths = [project / name for name in ("Lisa", "Maria", "Max", "Peter")]
    decide, every = tmp_path / "adjudicate.csv", tmp_path / "all.json"
    code, out, err = run(capsys, "merge", *paths, "--match", "overlap", "--labels", "ignore", "--to", "brat",
                         "--out", tmp_path / "gold", "--adjudicate", decide, "--adjudicate-all", every,
                         "--output", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["clusters"], summary["to_adjudicate"], summary["not_unanimous"]) == (411, 22, 113)
    assert len(rows_of(decide)) == 22
    document = json.loads(every.read_text(encoding="utf-8"))
    Draft202012Validator(schema("adjudication")).validate(document)
    assert document["options"]["adjudicate_all"] == str(every)
    kinds = Counter(tuple(c["kind"]) for c in document["clusters"])
    assert kinds == Counter({("not_marked_by_all",): 49, ("other_boundaries",): 41, ("label_split",): 11,
                             ("dropped",): 9, ("other_boundaries", "not_marked_by_all"): 1,
                             ("dropped", "several_spans"): 1, ("several_spans",): 1})
    dissent = Counter()
    for cluster in document["clusters"]:
        if cluster["kind"] == ["other_boundaries"]:
            for name, versions in cluster["versions"].items():
                for version in versions:
                    if version["fragments"] != cluster["fragments"]:
                        hull = version["fragments"][-1][1] - version["fragments"][0][0]
                        longer = hull > cluster["end"] - cluster["start"]
                        dissent[name, "longer" if longer else "shorter"] += 1
    assert dissent == Counter({("Max", "longer"): 24, ("Maria", "longer"): 11, ("Maria", "shorter"): 6})
    decided = [(c["document"], c["start"], c["end"]) for c in document["clusters"]
               if set(c["kind"]) & {"dropped", "boundary_tie", "label_tie", "label_split", "several_spans"}]
    assert decided == [(r["document"], int(r["start"]), int(r["end"])) for r in rows_of(decide)]


def test_adjudicate_all_output_safety(demo, tmp_path, capsys):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    same = tmp_path / "a.csv"
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", tmp_path / "gold", "--adjudicate", same,
                       "--adjudicate-all", same)
    assert code == 2 and "--adjudicate and --adjudicate-all cannot be one file" in err
    assert not (tmp_path / "gold").exists()
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", tmp_path / "gold", "--adjudicate-all",
                       tmp_path / "gold" / "all.csv")
    assert code == 2 and "cannot be the gold output or inside it" in err
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", tmp_path / "gold", "--adjudicate-all",
                       paths[0] / "clinic-01.ann", "--force")
    assert code == 2 and "clinic-01.ann" in err


def test_listings_written_row_by_row_are_the_whole_documents(demo, tmp_path, capsys):
    """--errors writes its rows one at a time; the files are byte for byte the listings built whole."""
    from spanagree.report import disagreements_listing, errors_listing

    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    result, scores = agree(paths, errors=True), score(paths[0], paths[1:], errors=True)
    for name in ("d.json", "d.csv"):
        assert run(capsys, "agree", *paths, "--errors", tmp_path / name)[0] == 0
        assert (tmp_path / name).read_text(encoding="utf-8") == disagreements_listing(result, name)
    for name in ("s.json", "s.csv"):
        assert run(capsys, "score", *paths, "--errors", tmp_path / name)[0] == 0
        assert (tmp_path / name).read_text(encoding="utf-8") == errors_listing(scores, name)
    # no row: the empty documents as to_json writes them
    same = [paths[0], paths[0]]
    assert run(capsys, "agree", *same, "--errors", tmp_path / "none.json")[0] == 0
    assert (tmp_path / "none.json").read_text(encoding="utf-8") == '{\n  "errors": []\n}\n'


def test_agree_errors_are_spooled_per_document_and_read_in_turn(demo):
    """Read from files, each pair's disagreements go to disk as each document is compared (one
    packed integer per document with some, none for a document without); the listing reads them
    back document by document, as kept in memory for span sets (their spans are the caller's)."""
    from spanagree.formats import read

    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    result = agree(paths, errors=True)
    spools = [spool for spool, _ in result.listing.args[0]]
    assert all(type(entry) is int for spool in spools for entry in spool.entries.values())
    # the demo's 10 documents: ann1 and ann3 agree on all of 3 of them, which keep no entry
    assert [len(spool.entries) for spool in spools] == [10, 7, 10]
    for spool, pair in zip(spools, result.pairs):
        assert list(spool.entries) == list(dict.fromkeys(item.document for first, second, item in result.errors()
                                                         if (first, second) == (pair.first, pair.second)))
    in_memory = agree([read(path) for path in paths], errors=True)
    assert all(type(items) is dict for items, _ in in_memory.listing.args[0])
    rows = [(first, second, item.as_pair_dict()) for first, second, item in result.iter_errors()]
    assert rows == [(first, second, item.as_pair_dict()) for first, second, item in in_memory.errors()]
    assert len(rows) == 17 + 12 + 23  # docs/cli.md's rows per pair (test above)
    assert [row for row in result.iter_errors()] == result.errors() == result.errors()  # kept once asked for
