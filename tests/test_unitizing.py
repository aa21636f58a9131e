"""Krippendorff's unitizing alpha (``agree --unitizing``): DKPro Agreement's tests, reproduced.

The expected values are those of dkpro-statistics' ``Krippendorff2004Test``,
``Krippendorff1995Test`` and ``UnitizingAgreementTest`` (with their tolerances), on the same
studies: a study's units ``(begin, length, rater, category)`` on the continuum ``[begin, begin +
length)`` become spans of a document of that length (shifted to start at 0).
"""

from __future__ import annotations

import json
import math
import random
import warnings

import pytest

from spanagree import SpanagreeWarning, UsageError, agree
from spanagree.cli import main
from spanagree.measures.unitizing import UnitizingTally, alpha_u, measure_distance
from spanagree.pipeline import parallel
from spanagree.report.schemas import schema
from spanagree.span import Span, SpanSet


def study(raters: int, begin: int, length: int, units) -> UnitizingTally:
    spans = [[] for _ in range(raters)]
    for offset, size, rater, category in units:
        spans[rater].append(Span("d", ((offset - begin, offset - begin + size),), category) if size else
                            _zero_length(offset - begin, category))
    tally = UnitizingTally(raters)
    tally.add_document(spans, length)
    return tally


class _zero_length:
    """A zero-length unit (DKPro allows them; spanagree's spans cannot be empty)."""

    def __init__(self, offset, label):
        self.fragments = ((offset, offset),)
        self.label = label


def dkpro_distance(offset1, length1, category1, offset2, length2, category2) -> int:
    return measure_distance(offset1, length1, category1 is not None, offset2, length2, category2 is not None)


# -- Krippendorff2004Test ------------------------------------------------------------------------

def test_distance_metric_1():
    assert dkpro_distance(2, 3, None, 2, 2, "X") + dkpro_distance(5, 6, "X", 4, 7, None) == 40
    assert dkpro_distance(3, 2, None, 3, 2, "X") + dkpro_distance(5, 6, "X", 5, 6, None) == 40
    assert [dkpro_distance(5, 6, "X", b, n, "X") for b, n in ((4, 2), (5, 2), (6, 2), (7, 2), (6, 4), (5, 6))] == \
        [26, 16, 10, 8, 2, 0]


def test_distance_metric_2():
    assert dkpro_distance(225, 70, "c", 220, 80, "c") == 50
    assert dkpro_distance(370, 30, "c", 355, 20, "c") == 850
    assert dkpro_distance(400, 50, None, 400, 20, "c") == 400


def krippendorff_2004():
    return study(2, 150, 300, [(225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"),
                               (400, 20, 1, "c"), (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"),
                               (300, 50, 1, "k")])


def test_krippendorff_2004_agreement():
    assert alpha_u(krippendorff_2004())["overall"] == pytest.approx(0.8591, abs=0.0005)


def test_krippendorff_2004_category_agreement():
    tally = krippendorff_2004()
    assert float(tally.observed_disagreement("c")) == pytest.approx(0.0144, abs=0.0001)
    assert float(tally.expected_disagreement("c")) == pytest.approx(0.0532, abs=0.0001)
    found = alpha_u(tally)["labels"]
    assert found["c"]["alpha"] == pytest.approx(0.7286, abs=0.0001)
    assert float(tally.observed_disagreement("k")) == pytest.approx(0.0, abs=0.0001)
    assert float(tally.expected_disagreement("k")) == pytest.approx(0.0490, abs=0.0001)
    assert found["k"]["alpha"] == pytest.approx(1.0, abs=0.0001)


# -- Krippendorff1995Test ------------------------------------------------------------------------

def krippendorff_1995(stretch: float) -> UnitizingTally:
    units = [(2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
             (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"), (5, 1, 1, "B"),
             (6, 3, 1, "B"), (9, 1, 1, "B"),
             (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"), (0, 2, 1, "C"), (4, 4, 1, "C"),
             (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
             (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"), (0, 4, 1, "D"),
             (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D")]
    return study(2, int(0 * stretch), int(24 * stretch),
                 [(int(b * stretch), int(n * stretch), r, c) for b, n, r, c in units])


@pytest.mark.parametrize("stretch, expected, tolerance, alpha", [
    (12 / 24.0, 0.05494, 0.00001, 0.494),
    (120 / 24.0, 0.08234, 0.005, 0.663),
    (1200 / 24.0, 0.08600, 0.005, 0.677),
    (12000 / 24.0, 0.08638, 0.005, 0.678),
    (120000 / 24.0, 0.08642, 0.005, 0.679),
    (1200000 / 24.0, 0.08642, 0.005, 0.679),
])
def test_krippendorff_1995_varying_lengths(stretch, expected, tolerance, alpha):
    tally = krippendorff_1995(stretch)
    assert float(tally.observed_disagreement("C")) == pytest.approx(0.02777, abs=0.00001)
    assert float(tally.expected_disagreement("C")) == pytest.approx(expected, abs=tolerance)
    assert alpha_u(tally)["labels"]["C"]["alpha"] == pytest.approx(alpha, abs=0.02)


def test_krippendorff_1995_agreement():
    tally = krippendorff_1995(1)
    observed = {c: float(tally.observed_disagreement(c)) for c in "ABCD"}
    assert observed == pytest.approx({"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}, abs=0.00001)
    tally = krippendorff_1995(1200000 / 24)
    expected = {c: float(tally.expected_disagreement(c)) for c in "ABCD"}
    assert expected == pytest.approx({"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}, abs=0.005)
    alphas = {c: entry["alpha"] for c, entry in alpha_u(tally)["labels"].items()}
    assert alphas == pytest.approx({"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}, abs=0.02)


# -- UnitizingAgreementTest ---------------------------------------------------------------------

def test_unitizing_agreement_example():
    # r0: -11111111-    r1: --1-1-1---
    tally = study(2, 0, 10, [(1, 8, 0, "A"), (2, 1, 1, "A"), (4, 1, 1, "A"), (6, 1, 1, "A")])
    assert float(tally.observed_disagreement("A")) == pytest.approx(0.9100, abs=0.0001)
    assert float(tally.expected_disagreement("A")) == pytest.approx(0.5351, abs=0.0001)
    assert alpha_u(tally)["labels"]["A"]["alpha"] == pytest.approx(-0.7003, abs=0.0001)


def test_single_annotation_unit_and_empty_study():
    assert alpha_u(study(3, 0, 20, [(0, 1, 0, "X")]))["overall"] == 0.0
    assert math.isnan(alpha_u(study(3, 0, 20, []))["overall"])


def test_zero_length_units():
    assert alpha_u(study(2, 0, 15, [(0, 0, 0, "A"), (0, 0, 1, "B")]))["overall"] == pytest.approx(0.0, abs=0.001)
    assert alpha_u(study(2, 0, 15, [(0, 0, 0, "A"), (0, 0, 1, "A")]))["overall"] == pytest.approx(0.0, abs=0.001)
    mixed = study(2, 0, 15, [(0, 0, 0, "A"), (2, 5, 0, "A"), (2, 5, 1, "A")])
    assert float(mixed.observed_disagreement("A")) == 0 and float(mixed.expected_disagreement("A")) > 0
    assert alpha_u(mixed)["overall"] == pytest.approx(1.0, abs=0.001)


def test_distance_metric_of_unitizing_agreement_test():
    assert dkpro_distance(0, 1, None, 0, 2, None) == 0
    assert [dkpro_distance(1, 8, "A", b, n, c) for b, n, c in
            ((0, 2, None), (2, 1, "A"), (3, 1, None), (4, 1, "A"), (5, 1, None), (6, 1, "A"), (7, 4, None))] == \
        [0, 37, 0, 25, 0, 29, 0]
    assert dkpro_distance(9, 2, None, 7, 4, None) == 0


# -- spanagree's own: overlaps, several documents, the command ----------------------------------

def test_overlapping_units_of_one_annotator_count_each_as_dkpro_does():
    """r0 marks A over 0-10 and over 5-15; r1 nothing (L = 20). DKPro's sweep steps back to 5:
    each unit lies in r1's one gap, 10² each: D_O = 2 · 200 / (2 · 1 · 20²) = 0.5."""
    tally = study(2, 0, 20, [(0, 10, 0, "A"), (5, 10, 0, "A")])
    assert tally.observed_disagreement("A") == 0.5
    assert sorted(tally.gaps_of("A").elements()) == [-5, 5, 20]   # r0: -5 between the two, 5 after; r1: 20


def random_corpus(seed: int, documents: int = 30, raters: int = 3):
    rnd = random.Random(seed)
    corpus = []
    for _ in range(documents):
        length = rnd.randint(20, 120)
        spans = []
        for _ in range(raters):
            own = []
            for _ in range(rnd.randint(0, 5)):
                start = rnd.randint(0, length - 2)
                own.append(Span("d", ((start, rnd.randint(start + 1, min(length, start + 15))),), rnd.choice("XY")))
            spans.append(own)
        corpus.append((spans, length))
    return corpus


def test_several_documents_add_up_whatever_their_order_and_shards():
    corpus = random_corpus(1)
    whole = UnitizingTally(3)
    for spans, length in corpus:
        whole.add_document(spans, length)
    shuffled = corpus[:]
    random.Random(2).shuffle(shuffled)
    parts = [UnitizingTally(3) for _ in range(3)]
    for k, (spans, length) in enumerate(shuffled):
        parts[k % 3].add_document(spans, length)
    added = parts[0]
    added += parts[1]
    added += parts[2]
    assert alpha_u(added) == alpha_u(whole)
    # one document: the corpus rule is DKPro's continuum
    spans, length = corpus[0]
    one = UnitizingTally(3)
    one.add_document(spans, length)
    assert one.length == length


def test_a_category_absent_from_a_document_leaves_it_one_gap_per_annotator():
    tally = UnitizingTally(2)
    tally.add_document([[Span("a", ((2, 5),), "X")], [Span("a", ((2, 5),), "X")]], 10)
    tally.add_document([[], []], 7)
    assert sorted(tally.gaps_of("X").elements()) == [2, 2, 5, 5, 7, 7]
    # the same as one continuum of 17 whose second document is one gap for each annotator
    assert tally.length == 17


def corpus_spansets(seed: int, documents: int = 60):
    texts, spans = {}, [[], [], []]
    for n, (own, length) in enumerate(random_corpus(seed, documents)):
        doc = f"doc{n:03}"
        texts[doc] = "x" * length
        for k, found in enumerate(own):
            spans[k] += [Span(doc, s.fragments, s.label) for s in found]
    return [SpanSet.from_spans(f"ann{k + 1}", spans[k], texts) for k in range(3)]


@pytest.mark.slow
def test_agree_unitizing_equals_the_tally_and_holds_under_jobs():
    jobs = parallel.Processes(2, min_spans_per_job=1)
    sets = corpus_spansets(4)
    expected = UnitizingTally(3)
    for doc in sets[0].documents:
        expected.add_document([s.documents[doc].spans for s in sets], len(sets[0].documents[doc].text))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        one = agree(sets, unitizing=True).to_dict()["alpha_u"]
        two = agree(sets, unitizing=True, jobs=jobs).to_dict()["alpha_u"]
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards
    assert one == two == alpha_u(expected)


def test_agree_unitizing_on_the_command_line(demo, capsys):
    import jsonschema

    brat = demo / "brat"
    assert main(["agree", *(str(brat / n) for n in ("ann1", "ann2", "ann3")), "--unitizing", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(schema("agree")).validate(data)
    found = data["alpha_u"]
    assert found["annotators"] == 3 and found["documents"] == 10
    assert set(found["labels"]) == {"DISEASE", "DRUG", "LOC", "ORG", "PER"}
    assert 0.5 < found["overall"] < 1
    assert main(["agree", *(str(brat / n) for n in ("ann1", "ann2", "ann3")), "--unitizing"]) == 0
    out = capsys.readouterr().out
    assert f"Krippendorff's unitizing alpha (α_U): {found['overall']:.4f}" in out


def test_unitizing_needs_every_annotator_on_every_document():
    with pytest.raises(UsageError, match="unitizing"):
        agree(corpus_spansets(5, 3), unitizing=True, documents="pairwise")
