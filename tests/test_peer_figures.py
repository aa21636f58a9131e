"""Figures that peers publish on real corpora, reproduced (tests skip without ../shared).

Each expectation comes from the corpus folder's SOURCE.md or the peer's recorded output:
conlleval/seqeval/nervaluate on CoNLL-2003 vs CoNLL++ and on WNUT-17, brateval on ChEMU,
the official MEDDOCAN scorer, and the ACL RD-TEC double annotation.
"""

from __future__ import annotations

import csv
import warnings

import pytest

from spanagree import agree, read, score
from spanagree.errors import SpanagreeWarning


@pytest.fixture(scope="module")
def conll03(shared_corpora):
    folder = shared_corpora / "conll2003-test-reannotations"
    return read(folder / "conll2003_test.txt", "conll"), read(folder / "conllpp_test.txt", "conll")


@pytest.mark.parametrize(
    "match, labels, a",
    [
        ("exact", "strict", 5506),
        ("exact", "ignore", 5586),
        ("partial", "ignore", 5608.5),
        ("overlap", "strict", 5536),
        ("partial", "strict", 5521),
    ],
)
def test_conll2003_vs_conllpp(conll03, match, labels, a):
    original, conllpp = conll03
    pair = agree([original, conllpp], match=match, labels=labels).pairs[0]
    assert pair.counts.a == a
    assert pair.counts.a + pair.counts.b == 5648
    assert pair.counts.a + pair.counts.c == 5702


def test_conll2003_vs_conllpp_matches_conlleval_and_nervaluate(conll03):
    original, conllpp = conll03
    exact = agree([original, conllpp]).pairs[0].counts
    assert round(exact.f1, 5) == 0.97022  # conlleval 97.02
    partial = agree([original, conllpp], match="partial", labels="ignore").pairs[0].counts
    assert round(partial.f1, 5) == 0.98828  # nervaluate partial


def wnut_reference(shared_corpora):
    with open(shared_corpora / "wnut17" / "reference" / "summary.tsv", encoding="utf-8") as handle:
        return {row["system"]: row for row in csv.DictReader(handle, delimiter="\t")}


SYSTEMS = ["arcada", "drexel_cci", "flytxt", "mic-cis", "sjtu_adapt", "spinningbytes", "uh_ritual"]


def submission(shared_corpora, system):
    folder = shared_corpora / "wnut17" / "submissions"
    path = folder / system
    return path if path.exists() else folder / f"{system}.txt"


@pytest.mark.parametrize("system", SYSTEMS)
def test_wnut17_submissions_score_conllevals_figures(shared_corpora, system):
    reference = wnut_reference(shared_corpora)[system]
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)  # mic-cis spells 1283 tokens differently
        pred = read(submission(shared_corpora, system), "conll")
        result = score(gold, pred)
    counts = result.counts
    assert counts.a == int(reference["correct"])
    assert counts.a + counts.c == int(reference["gold_spans"])
    assert counts.a + counts.b == int(reference["system_spans"])
    assert f"{100 * counts.precision:.2f}" == reference["conlleval_P"]
    assert f"{100 * counts.recall:.2f}" == reference["conlleval_R"]
    assert f"{100 * counts.f1:.2f}" == reference["conlleval_F1"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_wnut17_strict_iob2_equals_seqeval_strict(shared_corpora, system):
    reference = wnut_reference(shared_corpora)[system]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll", scheme="iob2")
        pred = read(submission(shared_corpora, system), "conll", scheme="iob2")
        result = score(gold, pred)
    assert f"{100 * result.counts.f1:.2f}" == reference["seqeval_strict_IOB2_F1"]


def test_wnut17_mic_cis_token_spellings_warn(shared_corpora):
    gold = read(shared_corpora / "wnut17" / "emerging.test.annotated", "conll")
    pred = read(submission(shared_corpora, "mic-cis"), "conll")
    with pytest.warns(SpanagreeWarning, match="1283 token"):
        score(gold, pred)


@pytest.mark.parametrize(
    "match, labels, abc",
    [
        ("exact", "strict", (761, 6, 9)),
        ("exact", "ignore", (762, 5, 8)),
        ("overlap", "strict", (766, 1, 4)),
        ("overlap", "ignore", (767, 0, 3)),
    ],
)
def test_chemu_matches_brateval(shared_corpora, match, labels, abc):
    folder = shared_corpora / "brateval-chemu-sample"
    gold, system = read(folder / "gt", "brat"), read(folder / "system", "brat")
    counts = score(gold, system, match=match, labels=labels).counts
    assert (counts.a, counts.b, counts.c) == abc


def test_meddocan_matches_the_official_scorer(shared_corpora):
    folder = shared_corpora / "meddocan-sample"
    gold = read(folder / "gold" / "brat" / "sample", "brat")
    system = read(folder / "system" / "brat" / "subtrack1" / "sample" / "baseline", "brat")
    strict = score(gold, system).counts
    assert (strict.a, strict.a + strict.b, strict.a + strict.c) == (48, 137, 347)
    assert round(strict.f1, 4) == 0.1983  # subtrack 1
    with pytest.warns(SpanagreeWarning, match="8 span"):
        ignore = score(gold, system, labels="ignore").counts
    assert (ignore.a, ignore.a + ignore.b, ignore.a + ignore.c) == (48, 129, 347)
    assert round(ignore.f1, 4) == 0.2017  # subtrack 2 strict


def test_acl_rd_tec_with_whitespace_alignment(shared_corpora):
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated"
    first = read(folder / "annotator1", "xml", xml_label_attr="class")
    second = read(folder / "annotator2", "xml", xml_label_attr="class")
    with pytest.warns(SpanagreeWarning, match="left out"):
        result = agree([first, second], align_whitespace=True)
    assert len(result.documents) == 166
    counts = result.pairs[0].counts
    assert counts.a == 1651
    assert round(counts.f1, 3) == 0.679
