"""bratiaa's agreement figures on its own example data, reproduced (tests skip without ../shared).

Data: ``../shared/corpora/bratiaa-example`` (``example-project``: 4 annotators × 7 Spanish news
documents; ``agree-2``: 2 annotators × 2 documents). Expected figures: bratiaa's tests, recorded in
``../shared/corpora/peer-tests/bratiaa/bratiaa_expected.json`` (kldtz/bratiaa @ b1e8183), and
bratiaa's own reports on example-project (``bratiaa-example/expected/*-agreement-report.md``,
``brat-iaa example-project/`` and ``brat-iaa -t``). bratiaa is never imported here, and no figure
is typed here: each is read from those files.

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
import re
import warnings
from itertools import combinations

import pytest

from spanagree import agree, read, score
from spanagree.errors import SpanagreeWarning
from spanagree.formats import natural_key
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

def source_counts(shared_corpora) -> dict[str, list[int]]:
    """SOURCE.md's measured table: annotator → [docs, spans, LOC, MISC, ORG, PER]."""
    text = (shared_corpora / "bratiaa-example" / "SOURCE.md").read_text(encoding="utf-8")
    return {m[0]: [int(x) for x in m[1:]] for m in re.findall(
        r"^\| (\S+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)}


def test_readers_see_bratiaas_spans(shared_corpora, project):
    """SOURCE.md's measured counts (T lines only, no discontinuous spans), per annotator and label."""
    measured = source_counts(shared_corpora)
    for name, spanset in zip(ANNOTATORS, project):
        labels = [sum(s.label == label for s in spanset) for label in LABELS]
        assert [len(spanset.documents), len(spanset), *labels] == measured[name], name


def test_instance_total(instance, expected):
    """bratiaa test_instance_total: mean pairwise F1 0.8903501, population SD 0.0526314."""
    case = expected[0]["test_instance_total"]["expected"]
    assert close(instance.mean.mean, case["mean_f1"])
    assert close(instance.mean.sd, case["sd"])
    assert instance.mean.skipped == 0


def test_instance_matrix(instance, expected):
    """``compute_total_f1_matrix()``: the pairs' F1s, 1 on the diagonal; their mean is bratiaa's."""
    matrix = instance.matrix()
    k = len(ANNOTATORS)
    assert instance.annotators == ANNOTATORS
    assert all(matrix[i][i] == 1 and matrix[i][j] == matrix[j][i] for i in range(k) for j in range(k))
    upper = [matrix[i][j] for i, j in combinations(range(k), 2)]
    assert upper == [pair.counts.f1 for pair in instance.pairs]
    assert close(sum(upper) / len(upper), expected[0]["test_instance_total"]["expected"]["mean_f1"])


def test_instance_per_label(instance, expected):
    case = expected[0]["test_instance_per_label"]
    assert instance.labels == case["labels"] == LABELS
    by_label = instance.to_dict()["by_label"]
    for label, mean, sd in zip(case["labels"], case["expected"]["mean"], case["expected"]["sd"]):
        assert close(by_label[label]["mean_f1"], mean), label
        assert close(by_label[label]["sd_f1"], sd), label


def test_instance_per_document(instance, expected, reports):
    case = expected[0]["test_instance_per_document"]["expected"]
    # bratiaa's order (its report's): sorted relative paths; spanagree reads folders in natural order
    # (doc-29 before doc-100), the same documents.
    assert sorted(instance.documents) == [name.removesuffix(".ann") for name in reports["instance"]["documents"]]
    assert instance.documents == sorted(instance.documents, key=natural_key)
    by_document = instance.to_dict(by_document=True)["by_document"]
    for doc_id, mean, sd in zip(sorted(instance.documents), case["mean"], case["sd"]):
        assert close(by_document[doc_id]["mean_f1"], mean), doc_id
        assert close(by_document[doc_id]["sd_f1"], sd), doc_id


def test_agree_2(shared_corpora, expected):
    """bratiaa test_avg_total on agree-2, and its check: "ann1 16 spans, ann2 17 spans, 13 shared"."""
    case = expected[0]["test_avg_total"]
    first, second, shared = map(int, re.search(r"ann1 (\d+) spans, ann2 (\d+) spans, (\d+) shared",
                                               case["check"]).groups())
    root = shared_corpora / "bratiaa-example" / "agree-2"
    result = agree([read(root / "ann1", "brat"), read(root / "ann2", "brat")])
    counts = result.pairs[0].counts
    assert (counts.a, counts.a + counts.b, counts.a + counts.c) == (shared, first, second)
    assert close(result.mean.mean, case["expected"]["mean_f1"]) and result.mean.sd == case["expected"]["sd"] == 0


def test_lisa_is_the_conll2002_gold(shared_corpora, project):
    """SOURCE.md: Lisa's spans are the CoNLL-2002 gold's, F1 = 1.0 (the gold has 3 more documents)."""
    measured = source_counts(shared_corpora)
    gold = read(shared_corpora / "bratiaa-example" / "conll2002-gold-brat", "brat")
    assert [len(gold.documents), len(gold)] == measured["conll2002-gold-brat"][:2]
    with pytest.warns(SpanagreeWarning, match="not in the gold"):
        result = score(project[0], gold)  # Lisa as the reference: the gold's extra documents are ignored
    assert (result.counts.a, result.counts.b, result.counts.c) == (measured["Lisa"][1], 0, 0)
    assert result.counts.f1 == 1.0


# --- bratiaa's own reports on example-project ---------------------------------------------------

def agreement_report(path) -> dict:
    """``brat-iaa``'s markdown report: setup, (mean, SD) per document and per label as printed
    (3 decimals), and the overall (mean, SD)."""
    text = path.read_text(encoding="utf-8")
    annotators = re.search(r"^\* (\d+) annotators: (.+)$", text, re.M)
    tables = {}
    for heading in ("Document", "Label"):
        section = text.split(f"## Agreement per {heading}", 1)[1].split("## ", 1)[0]
        rows = [[cell.strip() for cell in line.strip("|").split("|")]
                for line in section.strip().splitlines()[2:]]
        tables[heading] = {name: (mean, sd) for name, mean, sd in rows}
    overall = re.search(r"Mean F1: ([\d.]+), SD F1: ([\d.]+)", text).groups()
    return {"annotators": annotators[2].split(", "), "count": int(annotators[1]),
            "documents": list(tables["Document"]), "per_document": tables["Document"],
            "labels": int(re.search(r"^\* (\d+) labels$", text, re.M)[1]), "per_label": tables["Label"],
            "overall": overall}


@pytest.fixture(scope="module")
def reports(shared_corpora):
    folder = shared_corpora / "bratiaa-example" / "expected"
    return {mode: agreement_report(folder / f"{mode}-agreement-report.md") for mode in ("instance", "token")}


def printed(value: float) -> str:
    return f"{value:.3f}"


def as_report(result) -> dict:
    """spanagree's agreement printed as ``brat-iaa`` prints its report."""
    data = result.to_dict(by_document=True)
    return {"annotators": result.annotators, "count": len(result.annotators),
            "documents": [f"{d}.ann" for d in sorted(result.documents)],  # bratiaa's order (natural in spanagree)
            "per_document": {f"{d}.ann": (printed(v["mean_f1"]), printed(v["sd_f1"]))
                             for d, v in data["by_document"].items()},
            "labels": len(result.labels),
            "per_label": {label: (printed(v["mean_f1"]), printed(v["sd_f1"])) for label, v in data["by_label"].items()},
            "overall": (printed(result.mean.mean), printed(result.mean.sd))}


def test_instance_report(instance, reports):
    """``brat-iaa example-project/``: every figure of bratiaa's report."""
    assert as_report(instance) == reports["instance"]


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
    for doc_id, mean, sd in zip(sorted(token_level.documents), case["mean"], case["sd"]):  # bratiaa's order
        assert close(by_document[doc_id]["mean_f1"], mean), doc_id
        assert close(by_document[doc_id]["sd_f1"], sd), doc_id


def test_token_report(token_level, reports):
    """``brat-iaa -t example-project/``: every figure of bratiaa's token report."""
    assert as_report(token_level) == reports["token"]
