"""Entity linking against its peers' own test data (docs/peers.md).

- **HIPE scorer** (hipe-eval/HIPE-scorer): its NEL test files (``tests/data/hipe-scorer-nel``),
  each link column read as spans (a run of tokens with the same cell is one mention, ``_`` and
  ``-`` none, as its ``collect_link_objects`` reads them) with the cell as ``kb_id``; strict =
  ``--match exact``, fuzzy (its ``ent_type``) = ``--match overlap``, both with
  ``--match-attributes kb_id --pairing greedy`` and ``--link-top`` its ``n_best``.
- **neleval** (wikilinks/neleval): its example annotations (``tests/data/neleval-examples``);
  ``strong_all_match`` = ``--match exact --match-attributes kb_id`` with every NIL id read as
  ``NIL`` (neleval compares a NIL mention's id as none: its NIL ids are clusters),
  ``strong_link_match`` the same on the linked mentions only, ``strong_nil_match`` the NIL
  mentions without ids, ``strong_mention_match`` the spans alone.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from spanagree import score
from spanagree.span import Document, Span, SpanSet

DATA = Path(__file__).parent / "data"
HIPE = DATA / "hipe-scorer-nel"
NELEVAL = DATA / "neleval-examples"


def hipe_links(path: Path, column: str = "NEL-LIT") -> SpanSet:
    """A HIPE TSV file's link column as spans (label ``LINK``, the cell as ``kb_id``): each
    document's tokens joined by spaces are its text."""
    documents, header, doc_id, tokens, links = [], None, None, [], []

    def close():
        if doc_id is None:
            return
        text, starts = "", []
        for token in tokens:
            starts.append(len(text) + (1 if text else 0))
            text += (" " if text else "") + token
        runs, run = [], None
        for start, token, link in zip(starts, tokens, links):
            if link in ("_", "-"):
                run = None
            elif run is not None and run[2] == link:
                run[1] = start + len(token)
            else:
                run = [start, start + len(token), link]
                runs.append(run)
        documents.append(Document(doc_id, text, [Span(doc_id, s, e, "LINK", attributes=(("kb_id", link),))
                                                 for s, e, link in runs]))

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith("TOKEN"):
            header = line.split("\t")
        elif line.startswith("#"):
            if "document_id" in line:
                close()
                doc_id, tokens, links = line.split("=", 1)[1].split()[0], [], []
        else:
            cells = line.split("\t")
            tokens.append(cells[0])
            links.append(cells[header.index(column)])
    close()
    return SpanSet.from_documents(path.name, documents)


HIPE_TESTS = [
    ("unittest-nel-1-true.tsv", "unittest-nel-1-pred.tsv", "unittest-nel-1-pred.tsv.ref_results.json", 1),
    ("unittest-nel-2-true.tsv", "unittest-nel-2-pred.tsv", "unittest-nel-2-pred.tsv.concatNIL_ref_results.json", 1),
    ("unittest-true_bundle3_de_1.tsv", "unittest-pred_bundle3_de_1.tsv", "ref_results_nel_all.json", 3),
]


@pytest.mark.parametrize("true, pred, reference, n_best", HIPE_TESTS)
@pytest.mark.parametrize("regime, boundary", [("strict", "exact"), ("ent_type", "overlap")])
def test_the_hipe_scorers_nel_figures(true, pred, reference, n_best, regime, boundary):
    expected = json.loads((HIPE / reference).read_text(encoding="utf-8"))["ALL"][regime]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (documents without links: undefined per-document rates)
        result = score(hipe_links(HIPE / true), hipe_links(HIPE / pred), match=boundary, match_attributes="kb_id",
                       link_top=n_best, pairing="greedy")
    assert result.counts.astuple() == (expected["TP"], expected["FP"], expected["FN"])


#: Read as published through ``--conll-column NE-COARSE-LIT+NEL-LIT`` (an entity from the tag
#: column, its id the link cell on its first token), strict and fuzzy: the first test gives HIPE's
#: figures; the other two differ because HIPE's mentions are the runs of tokens with the same link
#: cell, whatever the tags (docs/peers.md).
THROUGH_THE_READER = [("unittest-nel-1-true.tsv", "unittest-nel-1-pred.tsv", 1, (2, 1, 1), (3, 0, 0)),
                      ("unittest-nel-2-true.tsv", "unittest-nel-2-pred.tsv", 1, (3, 1, 1), (3, 1, 1)),
                      ("unittest-true_bundle3_de_1.tsv", "unittest-pred_bundle3_de_1.tsv", 3, (7, 2, 2), (7, 2, 2))]


@pytest.mark.parametrize("true, pred, n_best, strict, fuzzy", THROUGH_THE_READER)
def test_the_hipe_files_through_the_conll_reader(capsys, true, pred, n_best, strict, fuzzy):
    from conftest import run

    for boundary, expected in (("exact", strict), ("overlap", fuzzy)):
        code, out, err = run(capsys, "score", HIPE / true, HIPE / pred, "--format", "conll", "--conll-column",
                             "NE-COARSE-LIT+NEL-LIT", "--match-attributes", "kb_id", "--pairing", "greedy",
                             "--link-top", n_best, "--match", boundary, "--output", "json")
        result = json.loads(out)
        assert (code, (result["a"], result["b"], result["c"])) == (0, expected)


def test_the_hipe_top_k_counts():
    """The bundle's predictions give up to three candidates: with only the first, fewer are right."""
    gold, pred = hipe_links(HIPE / "unittest-true_bundle3_de_1.tsv"), hipe_links(HIPE / "unittest-pred_bundle3_de_1.tsv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        top = [score(gold, pred, match_attributes="kb_id", link_top=k, pairing="greedy").counts.a for k in (1, 2, 3)]
    assert top[0] < top[2] == 7 and top[0] <= top[1] <= top[2]


def neleval_annotations(path: Path, *, keep=lambda kb: True) -> SpanSet:
    """neleval's tab-separated annotations (document, start, end inclusive, id, ...) as spans, the
    NIL ids (empty, or beginning with ``NIL``) read as ``NIL``; ``keep`` selects by the id given."""
    documents: dict[str, list[Span]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        doc_id, start, end, kb, *_ = (line.split("\t") + ["", ""])[:6]
        documents.setdefault(doc_id, [])
        if keep(kb):
            nil = not kb or kb.startswith("NIL")
            documents[doc_id].append(Span(doc_id, int(start), int(end) + 1, "MENTION",
                                          attributes=(("kb_id", "NIL" if nil else kb),)))
    return SpanSet.from_documents(path.name, [Document(d, None, spans) for d, spans in documents.items()])


def linked(kb: str) -> bool:
    return bool(kb) and not kb.startswith("NIL")


NELEVAL_FIGURES = [  # neleval 3.1.1's (ptp, fp, fn) on its examples (tests/data/neleval-examples/SOURCE.md)
    ("conll_gold.unstitched.tsv", "conll_sysa.unstitched.tsv", "strong_all_match", (1, 1, 1)),
    ("conll_gold.unstitched.tsv", "conll_sysa.unstitched.tsv", "strong_link_match", (1, 1, 0)),
    ("conll_gold.unstitched.tsv", "conll_sysa.unstitched.tsv", "strong_mention_match", (2, 0, 0)),
    ("conll_multi_gold.unstitched.tsv", "conll_multi_sysa.unstitched.tsv", "strong_all_match", (1, 3, 3)),
    ("conll_multi_gold.unstitched.tsv", "conll_multi_sysa.unstitched.tsv", "strong_link_match", (1, 2, 2)),
    ("conll_multi_gold.unstitched.tsv", "conll_multi_sysa.unstitched.tsv", "strong_mention_match", (4, 0, 0)),
    ("tac_gold.combined.tsv", "tac_system.combined.tsv", "strong_all_match", (10, 0, 0)),
    ("tac_gold.combined.tsv", "tac_system.combined.tsv", "strong_link_match", (6, 0, 0)),
    ("tac_gold.combined.tsv", "tac_system.combined.tsv", "strong_nil_match", (4, 0, 0)),
]


@pytest.mark.parametrize("gold, system, measure, expected", NELEVAL_FIGURES)
def test_nelevals_strong_matches(gold, system, measure, expected):
    keep = {"strong_link_match": linked, "strong_nil_match": lambda kb: kb.startswith("NIL")}.get(measure, lambda kb: True)
    linking = {} if measure in ("strong_mention_match", "strong_nil_match") else {"match_attributes": "kb_id"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = score(neleval_annotations(NELEVAL / gold, keep=keep), neleval_annotations(NELEVAL / system, keep=keep),
                       **linking)
    assert result.counts.astuple() == expected


def test_nil_clusters_are_values_unless_read_as_nil():
    """spanagree compares NIL ids as values: TAC's system clusters NIL000 as NIL111, which neleval's
    strong_all_match counts right (it compares no NIL id) and spanagree, reading the ids as they
    are, counts wrong."""
    def as_given(path):
        spans = []
        for line in path.read_text(encoding="utf-8").splitlines():
            doc_id, start, end, kb = line.split("\t")[:4]
            spans.append(Span(doc_id, int(start), int(end) + 1, "MENTION", attributes=(("kb_id", kb),)))
        return SpanSet.from_spans(path.name, spans)

    result = score(as_given(NELEVAL / "tac_gold.combined.tsv"), as_given(NELEVAL / "tac_system.combined.tsv"),
                   match_attributes="kb_id")
    assert result.counts.astuple() == (6, 4, 4)
