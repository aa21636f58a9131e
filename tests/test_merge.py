"""Majority-vote merging (``spanagree.voting`` / ``spanagree merge``) and its adjudication list.

Pictures: one row per annotator, ``[==]`` a span under the text; K is ``min_votes``.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spanagree
from spanagree.errors import FormatError, SpanagreeError, SpanagreeWarning, UsageError
from spanagree.formats import read
from spanagree.pipeline.parallel import Processes
from spanagree.voting import KINDS, around, merge, vote
from spanagree.span import Span, SpanSet
from conftest import run

LENGTH = 40
TEXTS = {"d1": "x" * LENGTH, "d2": "y" * LENGTH}


def S(fragments, label="L", doc="d1"):
    return Span(doc, fragments, label)


def ann(name, spans, texts=None):
    """A span set over ``texts`` (default: both random-test documents, or the one document of ``spans``)."""
    if texts is None:
        texts = TEXTS
    elif isinstance(texts, str):
        texts = {"d1": texts}
    return SpanSet.from_spans(name, spans, texts)


def keys(spanset):
    return sorted((s.doc, s.fragments, s.label) for s in spanset)


def one(result, fragments):
    """The cluster of ``result`` proposing ``fragments``."""
    (cluster,) = [c for c in result.clusters if c.span.fragments == fragments]
    return cluster


# -- random span sets ----------------------------------------------------------------------------

@st.composite
def spans(draw, max_size=7):
    out = []
    for _ in range(draw(st.integers(0, max_size))):
        start = draw(st.integers(0, LENGTH - 12))
        end = start + draw(st.integers(1, 5))
        fragments = ((start, end),)
        if draw(st.booleans()) and draw(st.booleans()):  # a quarter are discontinuous
            gap = draw(st.integers(1, 3))
            fragments = ((start, end), (end + gap, end + gap + draw(st.integers(1, 3))))
        out.append(Span(draw(st.sampled_from(["d1", "d2"])), fragments, draw(st.sampled_from(["A", "B"]))))
    return out


def annotators(k_min=2, k_max=5):
    return st.integers(k_min, k_max).flatmap(
        lambda k: st.lists(spans(), min_size=k, max_size=k).map(
            lambda lists: [ann(f"a{i}", s) for i, s in enumerate(lists)]))


def counting_reference(spansets, k, labels):
    """Exact voting counted the plain way: a key is kept when at least k annotators have it."""
    if labels == "strict":
        votes = Counter(key for s in spansets for key in {(x.doc, x.fragments, x.label) for x in s})
        return sorted(key for key, n in votes.items() if n >= k)
    voters, label_voters = {}, {}
    for i, spanset in enumerate(spansets):
        for x in spanset:
            voters.setdefault((x.doc, x.fragments), set()).add(i)
            label_voters.setdefault((x.doc, x.fragments), {}).setdefault(x.label, set()).add(i)
    kept = []
    for key, who in voters.items():
        if len(who) >= k:
            label = min(label_voters[key], key=lambda l: (-len(label_voters[key][l]), l))
            kept.append((*key, label))
    return sorted(kept)


@settings(max_examples=150, deadline=None)
@given(annotators(), st.sampled_from(["strict", "ignore"]), st.data())
@pytest.mark.slow
def test_exact_voting_equals_counting(spansets, labels, data):
    k = data.draw(st.integers(1, len(spansets)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        result = vote(spansets, k, labels=labels)
    assert keys(result.gold) == counting_reference(spansets, k, labels)
    assert result.counts()["dropped"] == sum(not c.kept for c in result.clusters)
    if labels == "strict":  # every distinct key is one cluster
        assert len(result.clusters) == len({(x.doc, x.fragments, x.label) for s in spansets for x in s})


@settings(max_examples=100, deadline=None)
@given(spans(), st.integers(2, 4), st.sampled_from(["exact", "overlap"]))
@pytest.mark.slow
def test_identical_annotators_give_the_same_set(spans_, k, match):
    original = ann("a", list({(s.doc, s.fragments, s.label): s for s in spans_}.values()))
    copies = [ann(f"a{i}", list(original)) for i in range(k)]
    for min_votes in range(1, k + 1):
        result = vote(copies, min_votes, match=match)
        assert result.gold == original
        # nothing dropped or tied; listed only where one annotator gave two labels to the same text
        assert all(c.kept and c.votes == k for c in result.clusters)
        assert [c.kinds for c in result.adjudication()] == [
            ("label_split",) for c in result.clusters if any(c.span.fragments == s.fragments and c.span.label != s.label
                                                            for s in original.documents[c.doc].spans)]


@settings(max_examples=150, deadline=None)
@given(spans(), spans())
@pytest.mark.slow
def test_two_annotators_k2_is_their_exact_intersection(first, second):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        gold = merge([ann("a", first), ann("b", second)], 2)
    assert keys(gold) == sorted({(s.doc, s.fragments, s.label) for s in first}
                                & {(s.doc, s.fragments, s.label) for s in second})


def fingerprint(result):
    """Everything a vote decides, in terms of names and spans (never of annotator positions)."""
    return [(c.doc, c.span.fragments, c.span.label, c.span.attributes, c.kept, c.kinds, c.votes, c.boundary_votes,
             c.label_votes, sorted((result.annotators[k], s.fragments, s.label) for k, s in c.members))
            for c in result.clusters]


@settings(max_examples=120, deadline=None)
@given(annotators(3, 3), st.sampled_from(["exact", "overlap"]), st.sampled_from(["strict", "ignore"]),
       st.integers(1, 3))
@pytest.mark.slow
def test_the_vote_does_not_depend_on_the_annotators_order(spansets, match, labels, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        results = [vote(list(order), k, match=match, labels=labels) for order in itertools.permutations(spansets)]
    for result in results[1:]:
        assert fingerprint(result) == fingerprint(results[0])
        assert result.adjudication_rows() == results[0].adjudication_rows()
        assert result.gold == results[0].gold


# -- overlap voting, by hand -----------------------------------------------------------------------

TEXT = "Dr. Ana Ruiz of the Mercy Hospital staff"
#       0         1         2         3
#       0123456789012345678901234567890123456789


def test_boundary_majority():
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A                          [====ORG=====]
    # B                          [====ORG=====]
    # C                      [======ORG=======]
    # → one cluster, 3 votes; "Mercy Hospital" (2 of 3) wins; nothing to adjudicate
    a = ann("A", [S((20, 34), "ORG")], TEXT)
    b = ann("B", [S((20, 34), "ORG")], TEXT)
    c = ann("C", [S((16, 34), "ORG")], TEXT)
    result = vote([a, b, c], match="overlap")
    assert keys(result.gold) == [("d1", ((20, 34),), "ORG")]
    (cluster,) = result.clusters
    assert (cluster.votes, cluster.boundary_votes, cluster.kept, cluster.kinds) == (3, 2, True, ())
    assert cluster.span.attributes == (("#:AnnotatorNotes", "3/3 votes: A, B, C"),)
    # exact voting keeps the same span, and drops C's as its own cluster
    exact = vote([a, b, c])
    assert keys(exact.gold) == keys(result.gold)
    assert [(c.span.fragments, c.kinds) for c in exact.adjudication()] == [(((16, 34),), ("dropped",))]


def test_label_majority_labels_ignore_and_strict():
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A          [=PER==]
    # B          [=PER==]
    # C      [===ORG====]     other boundary, other label
    a = ann("A", [S((4, 12), "PER")], TEXT)
    b = ann("B", [S((4, 12), "PER")], TEXT)
    c = ann("C", [S((0, 12), "ORG")], TEXT)
    ignore = vote([a, b, c], match="overlap", labels="ignore")
    (cluster,) = ignore.clusters
    assert (cluster.span.fragments, cluster.span.label) == (((4, 12),), "PER")
    assert (cluster.votes, cluster.label_votes, cluster.kinds) == (3, 2, ("label_split",))
    # labels strict: PER and ORG never share a cluster; ORG has 1 vote of 3
    strict = vote([a, b, c], match="overlap", labels="strict")
    assert keys(strict.gold) == [("d1", ((4, 12),), "PER")]
    assert [(c.span.label, c.kept, c.kinds) for c in strict.clusters] == [("ORG", False, ("dropped",)),
                                                                          ("PER", True, ())]
    # labels strict, same fragments, other label: a label split on both clusters
    c_same = ann("C", [S((4, 12), "ORG")], TEXT)
    strict = vote([a, b, c_same], 1, match="overlap")
    assert [(c.span.label, c.votes, c.kinds) for c in strict.clusters] == [("ORG", 1, ("label_split",)),
                                                                           ("PER", 2, ("label_split",))]


def permuted_votes(spansets, **options):
    results = [vote(list(order), **options) for order in itertools.permutations(spansets)]
    assert all(fingerprint(r) == fingerprint(results[0]) for r in results), "depends on the annotators' order"
    return results[0]


def test_boundary_tie_goes_to_the_shortest_under_every_order():
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A          [======]
    # B          [======]
    # C          [=]
    # D          [=]
    # → 2 : 2 → the fewest characters: "Ana"; listed as a boundary tie
    spansets = [ann("A", [S((4, 12))], TEXT), ann("B", [S((4, 12))], TEXT),
                ann("C", [S((4, 7))], TEXT), ann("D", [S((4, 7))], TEXT)]
    result = permuted_votes(spansets, match="overlap")
    (cluster,) = result.clusters
    assert (cluster.span.fragments, cluster.votes, cluster.boundary_votes) == (((4, 7),), 4, 2)
    assert cluster.kinds == ("boundary_tie",) and cluster.kept


def test_boundary_tie_same_length_goes_to_the_earliest_then_the_smaller_fragments():
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A, B       [=]
    # C, D         [=]      same length → the earliest start: 4-7
    same_length = [ann("A", [S((4, 7))], TEXT), ann("B", [S((4, 7))], TEXT),
                   ann("C", [S((6, 9))], TEXT), ann("D", [S((6, 9))], TEXT)]
    assert [c.span.fragments for c in permuted_votes(same_length, match="overlap").clusters] == [((4, 7),)]
    # A, B       []  |
    # C, D       [=]      same length and start → the smaller fragments: ((4, 6), (8, 9))
    same_start = [ann("A", [S(((4, 6), (8, 9)))], TEXT), ann("B", [S(((4, 6), (8, 9)))], TEXT),
                  ann("C", [S((4, 7))], TEXT), ann("D", [S((4, 7))], TEXT)]
    (cluster,) = permuted_votes(same_start, match="overlap").clusters
    assert cluster.span.fragments == ((4, 6), (8, 9)) and cluster.kinds == ("boundary_tie",)


def test_label_tie_goes_to_the_label_given_with_the_chosen_fragments_then_alphabetical():
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A          [=PER==]
    # B          [=PER==]
    # C          [=]                                ORG
    # D          [=ORG==]      (labels ignore)
    # fragments 4-12 (A, B, D: 3 votes); labels PER 2 : ORG 2 → with 4-12: PER 2, ORG 1 → PER
    spansets = [ann("A", [S((4, 12), "PER")], TEXT), ann("B", [S((4, 12), "PER")], TEXT),
                ann("C", [S((4, 7), "ORG")], TEXT), ann("D", [S((4, 12), "ORG")], TEXT)]
    (cluster,) = permuted_votes(spansets, match="overlap", labels="ignore").clusters
    assert (cluster.span.fragments, cluster.span.label) == (((4, 12),), "PER")
    assert (cluster.boundary_votes, cluster.label_votes, cluster.kinds) == (3, 2, ("label_tie",))
    # A, B PER and C, D ORG on the same fragments: still tied → the label that sorts first
    spansets = [ann(n, [S((4, 12), label)], TEXT) for n, label in zip("ABCD", ["PER", "PER", "ORG", "ORG"])]
    for match in ("exact", "overlap"):
        (cluster,) = permuted_votes(spansets, match=match, labels="ignore").clusters
        assert cluster.span.label == "ORG" and cluster.kinds == ("label_tie",)


UNIVERSIDAD = "Universidad de Madrid"
#              0123456789012345678901


def test_nested_spans_are_kept_apart():
    # text   Universidad de Madrid        (labels ignore: any overlap aligns)
    # A      [========ORG========]
    #                       [LOC=]
    # B      [========ORG========]
    #                       [LOC=]
    # C      [========ORG========]
    # One-to-one alignments pair ORG with ORG and LOC with LOC: two clusters, not one.
    org, loc = S((0, 21), "ORG"), S((15, 21), "LOC")
    spansets = [ann("A", [org, loc], UNIVERSIDAD), ann("B", [org, loc], UNIVERSIDAD), ann("C", [org], UNIVERSIDAD)]
    result = vote(spansets, 2, match="overlap", labels="ignore")
    assert [(c.span.fragments, c.span.label, c.votes, c.kinds) for c in result.clusters] == [
        (((0, 21),), "ORG", 3, ()), (((15, 21),), "LOC", 2, ())]
    assert keys(result.gold) == [("d1", ((0, 21),), "ORG"), ("d1", ((15, 21),), "LOC")]
    assert keys(vote(spansets, 3, match="overlap", labels="ignore").gold) == [("d1", ((0, 21),), "ORG")]


BREAST = "breast and ovarian cancer"
#         0123456789012345678901234


def test_discontinuous_spans():
    # text   breast and ovarian cancer
    # A      [====]             [====]     one span, two fragments
    # B      [====]             [====]
    # C                 [============]     "ovarian cancer": shares "cancer" with A's and B's
    # D             [=========]            "and ovarian" sits in the gap: overlaps neither A nor B
    disc = S(((0, 6), (19, 25)), "DIS")
    spansets = [ann("A", [disc], BREAST), ann("B", [disc], BREAST), ann("C", [S((11, 25), "DIS")], BREAST),
                ann("D", [S((7, 18), "DIS")], BREAST)]
    result = permuted_votes(spansets, min_votes=3, match="overlap")
    # C's span is aligned with A's (or B's) by their shared "cancer"; D's only overlaps C's — in a
    # pairwise alignment with C, so D joins the cluster too: 4 annotators, A's and B's fragments win
    (cluster,) = result.clusters
    assert (cluster.span.fragments, cluster.votes, cluster.boundary_votes, cluster.kept) == (
        ((0, 6), (19, 25)), 4, 2, True)
    assert keys(result.gold) == [("d1", ((0, 6), (19, 25)), "DIS")]
    # without C, D's span in the gap is a cluster of its own
    result = permuted_votes([spansets[0], spansets[1], spansets[3]], match="overlap")
    assert [(c.span.fragments, c.votes, c.kept) for c in result.clusters] == [
        (((0, 6), (19, 25)), 2, True), (((7, 18),), 1, False)]


CANTABRIA = "Cantabria Madrid"
#            0123456789012345


def test_a_chain_is_split_around_the_winner():
    # text   Cantabria Madrid          (as in bratiaa's doc-423, K = 2)
    # A      [==LOC==] [LOC=]
    # B      [==LOC==] [LOC=]
    # C      [=====LOC======]
    # D                [LOC=]
    # C–A, C–B pair C's span with "Cantabria" and C–D with "Madrid": one chained cluster holding
    # two spans of A and of B. Split around the winner "Madrid" (A, B, D), C's span goes with it;
    # A's and B's "Cantabria" form a new cluster.
    cant, madrid = S((0, 9), "LOC"), S((10, 16), "LOC")
    spansets = [ann("A", [cant, madrid], CANTABRIA), ann("B", [cant, madrid], CANTABRIA),
                ann("C", [S((0, 16), "LOC")], CANTABRIA), ann("D", [madrid], CANTABRIA)]
    result = permuted_votes(spansets, min_votes=2, match="overlap")
    assert [(c.span.fragments, c.votes, c.boundary_votes, c.kept, c.kinds) for c in result.clusters] == [
        (((0, 9),), 2, 2, True, ("several_spans",)),
        (((10, 16),), 4, 3, True, ("several_spans",)),
    ]
    madrid_cluster = one(result, ((10, 16),))
    assert sorted((result.annotators[k], s.fragments) for k, s in madrid_cluster.members) == [
        ("A", ((10, 16),)), ("B", ((10, 16),)), ("C", ((0, 16),)), ("D", ((10, 16),))]
    # K = 3: "Cantabria" (2 votes) is dropped and listed
    result = vote(spansets, 3, match="overlap")
    assert keys(result.gold) == [("d1", ((10, 16),), "LOC")]
    assert one(result, ((0, 9),)).kinds == ("dropped", "several_spans")


def test_the_part_around_the_winner_takes_each_annotators_closest_span():
    # text   Dr. Ana Ruiz      the chosen fragments: 4-12 "Ana Ruiz"   (| is one character)
    # A          [======]      4-12 exact: goes with the winner
    # B      [===] [====]      0-5 shares 1 character, 6-12 shares 6 → 6-12
    # C      [==]    [==]      0-4 shares none, 8-12 shares 4 → 8-12
    # D         [][]           3-5 shares 1, 5-7 shares 2 → 5-7
    # E        [=] [=]         2-5 shares 1, 6-9 shares 3 → 6-9
    # F        [=]|            2-5 and 5-6 share 1 each → the first in canonical order, 2-5
    members = [(0, S((4, 12))), (1, S((0, 5))), (1, S((6, 12))), (2, S((0, 4))), (2, S((8, 12))),
               (3, S((3, 5))), (3, S((5, 7))), (4, S((2, 5))), (4, S((6, 9))), (5, S((5, 6))), (5, S((2, 5)))]
    part, rest = around(members, ((4, 12),))
    assert [members[i][1].fragments for i in part] == [((4, 12),), ((6, 12),), ((8, 12),), ((5, 7),), ((6, 9),),
                                                       ((2, 5),)]
    assert [members[i][1].fragments for i in rest] == [((0, 5),), ((0, 4),), ((3, 5),), ((2, 5),), ((5, 6),)]


def test_one_annotator_with_two_labels_on_the_same_fragments_votes_for_both():
    # labels ignore, exact: A marked 4-12 as PER and as ORG; B as PER → PER 2 : ORG 1
    a = ann("A", [S((4, 12), "PER"), S((4, 12), "ORG")], TEXT)
    b = ann("B", [S((4, 12), "PER")], TEXT)
    (cluster,) = vote([a, b], 2, labels="ignore").clusters
    assert (cluster.span.label, cluster.votes, cluster.label_votes) == ("PER", 2, 2)
    assert cluster.kinds == ("label_split", "several_spans")


def test_repeated_spans_are_one_vote_and_warn():
    a = ann("A", [S((4, 12), "PER"), S((4, 12), "PER")], TEXT)
    b = ann("B", [], TEXT)
    c = ann("C", [], TEXT)
    with pytest.warns(SpanagreeWarning, match=r"A: 1 span\(s\) marked twice"):
        result = vote([a, b, c], 2)
    assert len(result.gold) == 0 and result.clusters[0].votes == 1


def test_min_votes_is_checked():
    spansets = [ann("A", [S((4, 12))], TEXT), ann("B", [], TEXT), ann("C", [], TEXT), ann("D", [], TEXT)]
    assert vote(spansets).min_votes == 3  # a strict majority of 4
    assert vote(spansets[:3]).min_votes == 2
    assert keys(vote(spansets, 1).gold) == [("d1", ((4, 12),), "L")]
    for bad in (0, 5, -1, 2.0, True):
        with pytest.raises(UsageError, match="min_votes"):
            vote(spansets, bad)
    with pytest.raises(UsageError, match="at least two"):
        vote(spansets[:1])
    with pytest.raises(UsageError, match="unknown merge rule"):
        vote(spansets, match="partial")


def test_documents_some_annotators_lack_are_left_out_with_a_warning():
    a = ann("A", [S((0, 3)), S((0, 3), doc="d2")])
    b = ann("B", [S((0, 3))], {"d1": TEXTS["d1"]})
    with pytest.warns(SpanagreeWarning, match="1 document.*left out of the merge: d2"):
        result = vote([a, b])
    assert result.documents == ["d1"] and result.left_out == {"not_annotated_by_everyone": ["d2"]}
    assert list(result.gold.documents) == ["d1"]
    # nothing in common is bad input (exit 1, as in agree), one error and no warning before it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SpanagreeError, match="no document is annotated by every annotator: A has 1; B has 1"):
            vote([ann("A", [], {"d1": "x"}), ann("B", [], {"d2": "x"})])


def test_texts_must_agree_or_differ_only_in_whitespace():
    a = ann("A", [S((4, 7))], "Dr. Ana")
    b = SpanSet.from_spans("B", [S((5, 8))], {"d1": "Dr.  Ana"})
    with pytest.raises(FormatError, match="different text"):
        vote([a, b], 2)
    # mapped onto A's text, the two spans are the same
    result = vote([a, b], 2, align_whitespace=True)
    assert keys(result.gold) == [("d1", ((4, 7),), "L")] and result.gold.documents["d1"].text == "Dr. Ana"


def test_only_and_map_apply_before_the_vote():
    a = ann("A", [S((4, 12), "PERSON"), S((20, 34), "ORG")], TEXT)
    b = ann("B", [S((4, 12), "PER"), S((20, 34), "ORG")], TEXT)
    assert keys(merge([a, b], 2)) == [("d1", ((20, 34),), "ORG")]
    assert keys(merge([a, b], 2, label_map=["PERSON=PER"], only="PER")) == [("d1", ((4, 12),), "PER")]


def test_jobs_give_the_same_result():
    spansets = []
    for name, shift in (("A", 0), ("B", 1), ("C", 0)):
        spans_ = [S((i % 30, i % 30 + 3 + shift), "L", doc=f"doc{i}") for i in range(20)]
        spansets.append(SpanSet.from_spans(name, spans_, {f"doc{i}": "z" * 40 for i in range(20)}))
    one_process = vote(spansets, match="overlap")
    jobs = Processes(2, min_spans_per_job=1)  # these 60 spans pay for two processes
    two_processes = vote(spansets, match="overlap", jobs=jobs)
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards of the 20 documents
    assert fingerprint(one_process) == fingerprint(two_processes)
    assert len(one_process.clusters) == 20 and one_process.counts()["kept"] == 20
    with pytest.raises(UsageError, match="jobs"):
        vote(spansets, jobs=0)


def test_adjudication_rows_and_files(tmp_path):
    # text   Dr. Ana Ruiz of the Mercy Hospital staff
    # A          [=PER==]        [====ORG=====]
    # B          [=PER==]
    # C          [=]                                ORG
    a = ann("A", [S((4, 12), "PER"), S((20, 34), "ORG")], TEXT)
    b = ann("B", [S((4, 12), "PER")], TEXT)
    c = ann("C", [S((4, 7), "ORG")], TEXT)
    result = vote([a, b, c], match="overlap", labels="ignore")
    rows = result.adjudication_rows()
    assert [(r["text"], r["label"], r["kind"], r["kept"], r["votes"]) for r in rows] == [
        ("Ana Ruiz", "PER", ["label_split"], True, 3),
        ("Mercy Hospital", "ORG", ["dropped"], False, 1)]
    assert rows[0]["versions"] == {
        "A": [{"fragments": [[4, 12]], "label": "PER", "text": "Ana Ruiz"}],
        "B": [{"fragments": [[4, 12]], "label": "PER", "text": "Ana Ruiz"}],
        "C": [{"fragments": [[4, 7]], "label": "ORG", "text": "Ana"}]}
    table = list(csv.DictReader(io.StringIO(result.adjudication_text("adjudicate.csv"))))
    assert list(table[0]) == ["document", "start", "end", "fragments", "text", "label", "kind", "kept", "votes",
                              "boundary_votes", "label_votes", "min_votes", "A", "B", "C", "context_before",
                              "context_after"]
    # 40 characters each side of the hull of the proposed span and every version (4-12, A's 4-12, C's 4-7)
    assert (table[0]["context_before"], table[0]["context_after"]) == ("Dr. ", " of the Mercy Hospital staff")
    assert table[0]["C"] == 'ORG 4-7 "Ana"' and table[1]["B"] == "" and table[1]["min_votes"] == "2"
    data = json.loads(result.adjudication_text("adjudicate.json"))
    assert data["clusters"] == rows and data["min_votes"] == 2 and "spanagree" in data and "options" in data
    assert list(KINDS) == ["dropped", "boundary_tie", "label_tie", "label_split", "several_spans"]
    # the listings written one cluster at a time (Vote.write) are the texts above, byte for byte
    for name, every in (("adjudicate.csv", False), ("adjudicate.json", False), ("all.csv", True),
                        ("all.json", True)):
        result.write(tmp_path / f"gold-{name}", "jsonl", **{"adjudicate_all" if every else "adjudicate":
                                                            tmp_path / name})
        assert (tmp_path / name).read_text(encoding="utf-8") == result.adjudication_text(name, every=every)


def test_public_api():
    assert spanagree.merge is merge and spanagree.vote is vote
    assert "merge" in spanagree.__all__


# -- the command line ------------------------------------------------------------------------------


def jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


CONLL_TEXT = "Ana Ruiz met Bo Li in Porto .\nLi left ."
#             012345678901234567890123456789 0123456789


@pytest.fixture
def three(tmp_path):
    """Three JSONL annotators of two CoNLL-shaped documents (K = 2 by default)::

        d1   Ana Ruiz met Bo Li in Porto .
        a1   [=PER==]     [PER]    [LOC]
        a2   [=PER==]     [PER]    [ORG]
        a3   [PER]        [PER]    [LOC]
        d2   Li left .
        a1   [] a2 [] a3 []   (PER, all three)
    """
    spans = {"a1": [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC")],
             "a2": [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "ORG")],
             "a3": [(0, 3, "PER"), (13, 18, "PER"), (22, 27, "LOC")]}
    paths = []
    for name, own in spans.items():
        paths.append(jsonl(tmp_path / f"{name}.jsonl", [
            {"id": "d1", "text": CONLL_TEXT, "spans": [{"start": s, "end": e, "label": l} for s, e, l in own]},
            {"id": "d2", "text": "Li left .", "spans": [{"start": 0, "end": 2, "label": "PER"}]}]))
    return tmp_path, paths


def snapshot(path: Path) -> dict:
    if path.is_file():
        return {".": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() if p.is_file() else None for p in sorted(path.rglob("*"))}


XML_WRITER = (Path(spanagree.__file__).parent / "formats" / "xml.py").exists()


@pytest.mark.parametrize("fmt", ["brat", "jsonl", "conll"] + (["xml"] if XML_WRITER else []))
def test_merge_output_reads_back(three, capsys, fmt):
    tmp_path, paths = three
    out = tmp_path / ("gold" if fmt == "brat" else f"gold.{fmt}")
    code, text, err = run(capsys, "merge", *paths, "--to", fmt, "--out", out)
    assert code == 0, err
    assert "wrote 4 spans in 2 documents" in text
    spansets = [read(p) for p in paths]
    expected = vote(spansets).gold
    back = read(out, fmt, xml_doc_tag="doc" if fmt == "xml" else None)  # write_xml's <corpus><doc id=...>
    # every format keeps the ids (CoNLL: -DOCSTART- d1)
    assert back == expected
    assert keys(back) == [("d1", ((0, 8),), "PER"), ("d1", ((13, 18),), "PER"), ("d1", ((22, 27),), "LOC"),
                          ("d2", ((0, 2),), "PER")]
    if fmt == "brat":  # self-contained: every .ann has its .txt, and the votes are noted
        assert sorted(p.name for p in out.iterdir()) == ["d1.ann", "d1.txt", "d2.ann", "d2.txt"]
        assert (out / "d1.ann").read_text(encoding="utf-8").splitlines()[:2] == [
            "T1\tPER 0 8\tAna Ruiz", "#1\tAnnotatorNotes T1\t2/3 votes: a1, a2"]


def test_merge_conll_with_reader_options(tmp_path, capsys):
    # the readers' options (--conll-column) are not passed to the CoNLL writer
    #        Ana Ruiz met Bo
    # a1     [=PER==]     []
    # a2     [=PER==]
    # a3     [=]          []          (every span PER)
    tags = {"a1": ["B-PER", "I-PER", "O", "B-PER"], "a2": ["B-PER", "I-PER", "O", "O"], "a3": ["B-PER", "O", "O", "B-PER"]}
    paths = []
    for name, column in tags.items():
        path = tmp_path / f"{name}.conll"
        path.write_text("".join(f"{w}\t{t}\tX\n" for w, t in zip(["Ana", "Ruiz", "met", "Bo"], column)))
        paths.append(path)
    out = tmp_path / "gold.conll"
    code, _, err = run(capsys, "merge", *paths, "--conll-column", "2", "--to", "conll", "--out", out)
    assert code == 0, err
    assert out.read_text().splitlines() == ["-DOCSTART-\tO", "", "Ana\tB-PER", "Ruiz\tI-PER", "met\tO", "Bo\tB-PER", ""]


def test_merge_summary_json_and_csv(three, capsys):
    tmp_path, paths = three
    code, out, err = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "g.jsonl", "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["options"]["to"] == "jsonl" and data["spanagree"] == spanagree.__version__
    assert (data["annotators"], data["documents"], data["min_votes"]) == (["a1", "a2", "a3"], 2, 2)
    # clusters: 0-8 PER (2), 0-3 PER (1), 13-18 (3), 22-27 LOC (2), 22-27 ORG (1), d2 0-2 (3)
    assert (data["clusters"], data["kept"], data["spans"], data["dropped"], data["label_split"]) == (6, 4, 4, 2, 2)
    assert data["votes"] == {"1": 2, "2": 2, "3": 2}
    assert data["by_document"]["d2"] == {"clusters": 1, "kept": 1, "dropped": 0, "boundary_tie": 0, "label_tie": 0,
                                         "label_split": 0, "several_spans": 0, "to_adjudicate": 0, "not_unanimous": 0}
    # every cluster but the two that all three marked alike (13-18, d2's 0-2) is not unanimous
    assert data["not_unanimous"] == 4
    code, out, _ = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "h.jsonl", "--output", "csv")
    assert out.splitlines()[0] == ("document,clusters,kept,dropped,boundary_tie,label_tie,label_split,several_spans,"
                                   "to_adjudicate,not_unanimous")
    assert out.splitlines()[-1] == "total,6,4,2,0,0,2,0,3,4"


def test_merge_refuses_to_overwrite(three, capsys):
    tmp_path, paths = three
    gold, listing = tmp_path / "gold", tmp_path / "adjudicate.csv"
    gold.mkdir()
    (gold / "keep.txt").write_text("mine\n")
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", gold, "--adjudicate", listing)
    assert code == 2 and "gold output exists and is not empty; nothing was written" in err
    assert snapshot(gold) == {"keep.txt": b"mine\n"} and not listing.exists()
    # an existing adjudication file: refused too, and the gold is not written either
    listing.write_text("settled by hand\n")
    fresh = tmp_path / "fresh"
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", fresh, "--adjudicate", listing)
    assert code == 2 and "adjudication file exists" in err
    assert not fresh.exists() and listing.read_text() == "settled by hand\n"
    # the adjudication file inside the gold folder
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", fresh, "--adjudicate", fresh / "a.csv")
    assert code == 2 and "cannot be the gold output or inside it" in err and not fresh.exists()
    # --force replaces both
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", gold, "--adjudicate", listing, "--force")
    assert code == 0, err
    assert sorted(snapshot(gold)) == ["d1.ann", "d1.txt", "d2.ann", "d2.txt"]
    assert listing.read_text(encoding="utf-8").startswith("document,start,end,")


def test_a_failure_half_way_leaves_nothing_behind(tmp_path, capsys):
    # BRAT writes x.txt and x.ann for document "x", then cannot make the folder "x.ann" for "x.ann/y"
    records = [{"id": "x", "text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER"}]},
               {"id": "x.ann/y", "text": "Bo", "spans": [{"start": 0, "end": 2, "label": "PER"}]}]
    paths = [jsonl(tmp_path / f"a{i}.jsonl", records) for i in range(2)]
    gold, listing = tmp_path / "gold", tmp_path / "adjudicate.csv"
    code, _, err = run(capsys, "merge", *paths, "--to", "brat", "--out", gold, "--adjudicate", listing)
    assert code == 1 and err.startswith("spanagree: error:")
    assert not gold.exists() and not listing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a0.jsonl", "a1.jsonl"]  # no temporary left
    # an existing gold replaced with --force stays as it was
    gold.mkdir()
    (gold / "old.ann").write_text("T1\tPER 0 3\tAna\n")
    before = snapshot(gold)
    code, _, _ = run(capsys, "merge", *paths, "--to", "brat", "--out", gold, "--force")
    assert code == 1 and snapshot(gold) == before
    # the adjudication file cannot be written (its folder is a file): no gold either
    (tmp_path / "plain").write_text("a file\n")
    good = [jsonl(tmp_path / f"b{i}.jsonl", records[:1]) for i in range(2)]
    code, _, err = run(capsys, "merge", *good, "--to", "brat", "--out", tmp_path / "gold2",
                       "--adjudicate", tmp_path / "plain" / "a.csv")
    assert code == 1 and not (tmp_path / "gold2").exists()


def test_merge_usage_errors(three, capsys):
    tmp_path, paths = three
    for extra in (["--min-votes", "0"], ["--min-votes", "4"], ["--jobs", "0"], ["--match", "partial"]):
        code, _, err = run(capsys, "merge", *paths, "--to", "jsonl", "--out", tmp_path / "g.jsonl", *extra)
        assert code == 2, extra
        assert not (tmp_path / "g.jsonl").exists()
    code, _, err = run(capsys, "merge", paths[0], "--to", "jsonl", "--out", tmp_path / "g.jsonl")
    assert code == 2 and "at least two annotators" in err


# -- bratiaa's 4-annotator example ----------------------------------------------------------------

ANNOTATORS = ["Lisa", "Maria", "Max", "Peter"]


def test_bratiaa_merge_then_score_each_annotator(shared_corpora, tmp_path, capsys, small_shards):
    project = shared_corpora / "bratiaa-example" / "example-project"
    paths = [project / name for name in ANNOTATORS]
    gold, listing = tmp_path / "gold", tmp_path / "adjudicate.csv"
    code, out, err = run(capsys, "merge", *paths, "--min-votes", "3", "--to", "brat", "--out", gold,
                         "--adjudicate", listing, "--output", "json")
    assert code == 0, err
    summary = json.loads(out)
    # counted from the .ann files directly: 466 distinct (fragments, label) keys; 298 marked by all
    # four, 101 by three, 5 by two, 62 by one; 22 share their fragments with another label
    # (10 of them kept, 12 dropped)
    assert (summary["clusters"], summary["kept"], summary["dropped"], summary["label_split"]) == (466, 399, 67, 22)
    assert summary["votes"] == {"1": 62, "2": 5, "3": 101, "4": 298}
    assert summary["to_adjudicate"] == 77
    assert len(list(csv.DictReader(listing.read_text(encoding="utf-8").splitlines()))) == 77
    assert sorted(p.name for p in gold.iterdir()) == sorted(
        f"esp.train-doc-{n}.{ext}" for n in (100, 1400, 29, 423, 46, 503, 896) for ext in ("ann", "txt"))
    code, out, err = run(capsys, "score", gold, *paths, "--output", "json")
    assert code == 0, err
    figures = {p["prediction"]: (p["a"], p["b"], p["c"]) for p in json.loads(out)["predictions"]}
    # a = the annotator's spans in the gold, b = its other spans, c = gold spans it lacks
    assert figures == {"Lisa": (399, 5, 0), "Maria": (379, 25, 20), "Max": (331, 27, 68), "Peter": (386, 15, 13)}
    # parallel: the same gold and listing, byte for byte
    code, _, err = run(capsys, "merge", *paths, "--min-votes", "3", "--to", "brat", "--out", tmp_path / "gold2",
                       "--adjudicate", tmp_path / "adjudicate2.csv", "--jobs", "2")
    assert code == 0, err
    assert small_shards == [7]  # forked: the 7 documents' files in 7 shards (2 processes x 4, at most one a document)
    assert snapshot(tmp_path / "gold2") == snapshot(gold)
    assert (tmp_path / "adjudicate2.csv").read_bytes() == listing.read_bytes()


def test_bratiaa_overlap_splits_cantabria_madrid(shared_corpora, tmp_path, capsys):
    # doc-423 "EFE - Cantabria Madrid": Lisa and Maria mark LOC 6-15 and 16-22, Max LOC 6-22,
    # Peter LOC 16-22 (read off the .ann files)
    project = shared_corpora / "bratiaa-example" / "example-project"
    listing = tmp_path / "adjudicate.json"
    code, _, err = run(capsys, "merge", *[project / n for n in ANNOTATORS], "--match", "overlap", "--min-votes", "2",
                       "--to", "jsonl", "--out", tmp_path / "gold.jsonl", "--adjudicate", listing)
    assert code == 0, err
    rows = [r for r in json.loads(listing.read_text(encoding="utf-8"))["clusters"]
            if r["document"] == "esp.train-doc-423" and r["start"] < 25]
    assert [(r["text"], r["votes"], r["boundary_votes"], r["kept"], r["kind"]) for r in rows] == [
        ("Cantabria", 2, 2, True, ["several_spans"]), ("Madrid", 4, 3, True, ["several_spans"])]
    assert rows[1]["versions"]["Max"] == [{"fragments": [[6, 22]], "label": "LOC", "text": "Cantabria Madrid"}]
    # K = 3: the exact majority spans, plus two clusters of three annotators where two agree on the
    # boundaries: doc-100 564-581 "Liga Mundial 2000" (Lisa, Max; Maria 564-576) and doc-423
    # 2936-2944 "LA RIOJA" LOC (Lisa, Max; Maria 2936-2957; Peter's is MISC)
    code, _, err = run(capsys, "merge", *[project / n for n in ANNOTATORS], "--match", "overlap",
                       "--to", "jsonl", "--out", tmp_path / "gold3.jsonl")
    assert code == 0, err
    votes = Counter(key for n in ANNOTATORS for key in {(s.doc, s.fragments, s.label) for s in read(project / n)})
    majority = {key for key, n in votes.items() if n >= 3}
    assert len(majority) == 399
    assert set(keys(read(tmp_path / "gold3.jsonl"))) == majority | {
        ("esp.train-doc-100", ((564, 581),), "MISC"), ("esp.train-doc-423", ((2936, 2944),), "LOC")}
