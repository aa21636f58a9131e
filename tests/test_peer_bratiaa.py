"""bratiaa's agreement figures on its own example data, reproduced (tests skip without ../shared).

Data: ``../shared/corpora/bratiaa-example`` (``example-project``: 4 annotators × 7 Spanish news
documents; ``agree-2``: 2 annotators × 2 documents). Expected figures: bratiaa's tests, recorded in
``../shared/corpora/peer-tests/bratiaa/bratiaa_expected.json`` (kldtz/bratiaa @ b1e8183). bratiaa
is never imported here.

**Instance level.** bratiaa's F1 agreement intersects the *sets* of ``(label, offsets)`` of two
annotators' ``.ann`` files: exact fragments and the same label, identical annotations counted
once — spanagree's ``--match exact --labels strict`` (whose duplicates also count once). Its
mean and SD are over the annotator pairs, SD the population SD (numpy ``std``, ``ddof=0``), as
spanagree's. Per label and per document, bratiaa sums each pair's counts over documents (resp.
labels) and averages the pairs' F1s: spanagree's ``by_label[...]["mean_f1"]`` and
``by_document[...]["mean_f1"]``.

**Token level** (``brat-iaa -t``). bratiaa cuts every annotation into the whitespace-delimited
tokens (``\\S+``) it touches and intersects the resulting multisets of ``(label, token)``. That is
spanagree's exact/strict agreement on spans cut into one-token pieces
(:func:`one_token_spans`); the figures coincide on this data because no two same-label
annotations of one annotator cover the same token (bratiaa would count such a token twice,
spanagree once — see ``docs/peers.md``).

Where bratiaa differs by definition (not exercised by this data, shown in ``docs/peers.md``):
an F1 that is 0/0 (a label or document that neither annotator of a pair marked) makes bratiaa's
mean NaN (``np.mean``), while spanagree skips undefined pairs and counts them; bratiaa only knows
exact matching and needs every label declared in ``annotation.conf``.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from itertools import combinations

import pytest

from spanagree import agree, read, score
from spanagree.errors import SpanagreeWarning
from spanagree.span import Document, Span, SpanSet

ANNOTATORS = ["Lisa", "Maria", "Max", "Peter"]  # bratiaa sorts annotators; pairs in combinations order
LABELS = ["LOC", "MISC", "ORG", "PER"]
TOKEN = re.compile(r"\S+")  # bratiaa.utils.tokenize


@pytest.fixture(scope="module")
def expected(shared_corpora):
    with open(shared_corpora / "peer-tests" / "bratiaa" / "bratiaa_expected.json", encoding="utf-8") as handle:
        recorded = json.load(handle)
    return {case["test"].split("::")[-1]: case for case in recorded["cases"]}, recorded


@pytest.fixture(scope="module")
def project(shared_corpora):
    root = shared_corpora / "bratiaa-example" / "example-project"
    return [read(root / name, "brat") for name in ANNOTATORS]


@pytest.fixture(scope="module")
def instance(project):
    return agree(project, match="exact", labels="strict")


def close(ours: float, theirs: float) -> bool:
    """As numpy's ``assert_almost_equal`` in bratiaa's tests, to as many decimals as recorded
    (0.787878 is 26/33 to 6 decimals, truncated)."""
    decimals = len(repr(float(theirs)).split(".")[1])
    return abs(ours - theirs) < 1.5 * 10.0 ** -decimals


# --- instance level -----------------------------------------------------------------------------

def test_readers_see_bratiaas_spans(project):
    # SOURCE.md's measured counts: T lines only, no discontinuous spans.
    assert [len(s) for s in project] == [404, 404, 358, 401]
    assert all(len(s.documents) == 7 for s in project)


def test_instance_pairs(instance, expected):
    """The six pairs' a, b, c and F1 (recomputed by the corpus helper from bratiaa's definition)."""
    _, recorded = expected
    table = recorded["pairwise_instance_f1_measured_by_helper"]
    assert [(p.first, p.second) for p in instance.pairs] == list(combinations(ANNOTATORS, 2))
    for pair in instance.pairs:
        a, b, c, f1 = table[f"{pair.first}-{pair.second}"]
        assert (pair.counts.a, pair.counts.b, pair.counts.c) == (a, b, c)
        assert close(pair.counts.f1, f1)


def test_instance_total(instance, expected):
    """bratiaa test_instance_total: mean pairwise F1 0.8903501, population SD 0.0526314."""
    case = expected[0]["test_instance_total"]["expected"]
    assert close(instance.mean.mean, case["mean_f1"])
    assert close(instance.mean.sd, case["sd"])
    assert instance.mean.skipped == 0


def test_instance_matrix(instance):
    """bratiaa's compute_total_f1_matrix() on example-project, as bratiaa 0.1.4 printed it (7 decimals)."""
    bratiaa = [[1.0, 0.9455446, 0.8740157, 0.9590062],
               [0.9455446, 1.0, 0.816273, 0.9093168],
               [0.8740157, 0.816273, 1.0, 0.8379447],
               [0.9590062, 0.9093168, 0.8379447, 1.0]]
    assert instance.annotators == ANNOTATORS
    assert [[round(v, 7) for v in row] for row in instance.matrix()] == bratiaa


def test_instance_per_label(instance, expected):
    case = expected[0]["test_instance_per_label"]
    assert instance.labels == case["labels"] == LABELS
    by_label = instance.to_dict()["by_label"]
    for label, mean, sd in zip(case["labels"], case["expected"]["mean"], case["expected"]["sd"]):
        assert close(by_label[label]["mean_f1"], mean), label
        assert close(by_label[label]["sd_f1"], sd), label


def test_instance_per_document(instance, expected):
    case = expected[0]["test_instance_per_document"]["expected"]
    # bratiaa's order: sorted relative paths, which is spanagree's BRAT reading order here.
    assert instance.documents == ["esp.train-doc-100", "esp.train-doc-1400", "esp.train-doc-29",
                                  "esp.train-doc-423", "esp.train-doc-46", "esp.train-doc-503", "esp.train-doc-896"]
    by_document = instance.to_dict(by_document=True)["by_document"]
    for doc_id, mean, sd in zip(instance.documents, case["mean"], case["sd"]):
        f1s = [p["f1"] for p in by_document[doc_id]["pairs"]]
        assert close(by_document[doc_id]["mean_f1"], mean), doc_id
        assert close(float(_pstdev(f1s)), sd), doc_id


def _pstdev(values):
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def test_agree_2(shared_corpora, expected):
    """bratiaa test_avg_total on agree-2: 13 shared of 16 + 17 spans, F1 = 26/33."""
    case = expected[0]["test_avg_total"]["expected"]
    root = shared_corpora / "bratiaa-example" / "agree-2"
    result = agree([read(root / "ann1", "brat"), read(root / "ann2", "brat")])
    counts = result.pairs[0].counts
    assert (counts.a, counts.b, counts.c) == (13, 3, 4)
    assert close(result.mean.mean, case["mean_f1"]) and result.mean.sd == case["sd"] == 0


def test_lisa_is_the_conll2002_gold(shared_corpora, project):
    """SOURCE.md: Lisa's spans are the CoNLL-2002 gold's (which has 3 more documents)."""
    gold = read(shared_corpora / "bratiaa-example" / "conll2002-gold-brat", "brat")
    with pytest.warns(SpanagreeWarning, match="not in the gold"):
        result = score(project[0], gold)  # Lisa as the reference: the gold's extra documents are ignored
    assert (result.counts.a, result.counts.b, result.counts.c) == (404, 0, 0)


# --- token level ------------------------------------------------------------------------------

def one_token_spans(spanset: SpanSet) -> SpanSet:
    """Every span cut into the ``\\S+`` tokens it touches (bratiaa's ``exact_match_token_evaluation``:
    a fragment that touches part of a token gets the whole token)."""
    documents = []
    for document in spanset.documents.values():
        tokens = [m.span() for m in TOKEN.finditer(document.text)]
        pieces = [Span(document.id, ((start, end),), span.label)
                  for span in document.spans for first, last in span.fragments
                  for start, end in tokens if start < last and end > first]
        documents.append(Document(document.id, document.text, pieces))
    return SpanSet.from_documents(spanset.name, documents)


@pytest.fixture(scope="module")
def token_level(project):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)  # no duplicate token pieces on this data
        return agree([one_token_spans(s) for s in project], match="exact", labels="strict")


def test_token_total_as_one_token_spans(token_level, expected):
    case = expected[0]["test_token_total"]["expected"]
    assert close(token_level.mean.mean, case["mean_f1"])
    assert close(token_level.mean.sd, case["sd"])


def test_token_per_label_as_one_token_spans(token_level, expected):
    case = expected[0]["test_token_per_label"]
    by_label = token_level.to_dict()["by_label"]
    for label, mean, sd in zip(case["labels"], case["expected"]["mean"], case["expected"]["sd"]):
        assert close(by_label[label]["mean_f1"], mean), label
        assert close(by_label[label]["sd_f1"], sd), label


def test_token_per_document_as_one_token_spans(token_level, expected):
    case = expected[0]["test_token_per_document"]["expected"]
    by_document = token_level.to_dict(by_document=True)["by_document"]
    for doc_id, mean, sd in zip(token_level.documents, case["mean"], case["sd"]):
        assert close(by_document[doc_id]["mean_f1"], mean), doc_id
        assert close(_pstdev([p["f1"] for p in by_document[doc_id]["pairs"]]), sd), doc_id
