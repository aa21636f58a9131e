"""Notebook display: short reprs, HTML tables whose cells are the JSON figures (read with lxml),
and DataFrames from every tabular accessor."""

from __future__ import annotations

import pandas as pd
from lxml import html

import spanagree
from spanagree.report.notebook import ROWS, cell, document_html, spanset_html


def tables(fragment: str):
    root = html.fragment_fromstring(f"<div>{fragment}</div>")
    return [[[td.text_content() for td in tr.findall("td")] for tr in table.iter("tr") if tr.findall("td")]
            for table in root.iter("table")], root


def test_reprs_are_short(demo):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    spanset = spanagree.read(paths[0])
    assert repr(spanset) == "<SpanSet 'ann1': 10 documents, 77 spans>"
    document = spanset.documents["clinic-01"]
    assert repr(document) == f"<Document 'clinic-01': {len(document.text)} characters, {len(document.spans)} spans>"
    assert repr(spanagree.agree(paths)) == \
        "<Agreement: 3 annotators, 3 pairs, 10 documents, match exact, labels strict>"
    assert repr(spanagree.score(paths[0], paths[1])) == \
        "<Score 'ann2' against 'ann1': 10 documents, match exact, labels strict>"
    result = spanagree.vote(paths)
    counts = result.counts()
    assert repr(result) == (f"<Vote: 3 annotators, 10 documents, {counts['clusters']} clusters, {counts['kept']} kept, "
                            f"{counts['to_adjudicate']} to adjudicate>")
    assert max(len(repr(x)) for x in (spanset, document, result)) < 120


def test_agreement_html_cells_are_the_json_figures(demo):
    result = spanagree.agree([demo / "brat" / name for name in ("ann1", "ann2", "ann3")])
    data = result.to_dict()
    (pairs, summary, labels), root = tables(result._repr_html_())
    assert pairs == [[*p["annotators"], *(cell(p[k]) for k in ("a", "b", "c", "precision", "recall", "f1"))]
                     for p in data["pairs"]]
    assert pairs[0] == ["ann1", "ann2", "61", "16", "12", "0.7922", "0.8356", "0.8133"]  # docs/cli.md's table
    assert summary == [[cell(data["mean_f1"]), cell(data["sd_f1"]), cell(data["pooled_f1"])]]
    assert summary[0][0] == "0.8172" and summary[0][2] == "0.8178"
    assert labels == [[label, *(cell(p["f1"]) for p in entry["pairs"])] for label, entry in data["by_label"].items()]
    assert [td.get("data-key") for td in root.find(".//table").find(".//tbody/tr").findall("td")][2:] == \
        ["a", "b", "c", "precision", "recall", "f1"]


def test_score_html_and_confusion_frame(demo):
    result = spanagree.score(demo / "brat" / "ann1", demo / "brat" / "ann2")
    data = result.to_dict()
    (totals, labels, kinds, confusion), _ = tables(result._repr_html_())
    assert totals == [["61", "12", "16", "0.8356", "0.7922", "0.8133"]]
    assert kinds == [[str(v) for v in data["errors"].values()]]
    assert confusion == [[label, *map(str, row)] for label, row in
                         zip(data["confusion"]["labels"], data["confusion"]["matrix"])]
    frame = result.confusion_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == list(frame.columns) == data["confusion"]["labels"]
    assert frame.values.tolist() == data["confusion"]["matrix"]
    assert frame.loc["ORG", "LOC"] == 3 and frame.index.name == "gold"  # ORG read as LOC three times


def test_vote_html_frames_and_spanset_html(demo):
    paths = [demo / "brat" / name for name in ("ann1", "ann2", "ann3")]
    result = spanagree.vote(paths)
    data = result.to_dict()
    (rows,), _ = tables(result._repr_html_())
    keys = ["clusters", "kept", *result.kinds, "to_adjudicate", "not_unanimous"]
    assert rows[-1] == ["total", *(str(data[k]) for k in keys)]
    assert rows[:-1] == [[d, *(str(c[k]) for k in keys)] for d, c in data["by_document"].items()]
    assert isinstance(result.by_document_frame(), pd.DataFrame)
    assert result.by_document_frame()["to_adjudicate"].tolist()[-1] == data["to_adjudicate"]
    adjudication = result.adjudication_frame()
    assert len(adjudication) == data["to_adjudicate"] and list(adjudication.columns)[-2:] == \
        ["context_before", "context_after"]
    assert len(result.adjudication_frame(every=True)) == data["not_unanimous"]
    agreement = spanagree.agree(paths, errors=True)
    frame = agreement.errors_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(agreement.errors())
    # a span set (a value, below the report layer: no _repr_html_ of its own, its short repr in a
    # notebook; spanset_html draws it): its documents, the first ROWS of them, and how many more
    big = spanagree.SpanSet("big", {})
    for n in range(ROWS + 5):
        big.documents[f"d{n}"] = spanagree.Document(f"d{n}", "x" * n, [])
    (listing,), root = tables(spanset_html(big))
    assert listing[:2] == [["d0", "0", "0"], ["d1", "1", "0"]] and listing[-1] == ["… 5 more"]
    assert len(listing) == ROWS + 1
    assert root.find(".//caption").text_content() == f"SpanSet big: {ROWS + 5} documents, 0 spans"
    spanset = spanagree.read(paths[0])
    (spans,), _ = tables(document_html(spanset.documents["clinic-01"]))
    assert spans[0] == ["0-14", "PER", "Mr. Tomas Berg"]
