"""Links: attributes that are part of a span's identity (``--match-attributes kb_id``,
``--link-top K``, ``--pairing greedy``; :meth:`spanagree.match.MatchRule.links_agree`).

The hand-counted example (one document; ``kb`` the ``kb_id`` attribute)::

    gold   G1 PER [0, 5)   Q1      G2 PER [10, 15) Q2        G3 LOC [20, 25) NIL
           G4 ORG [30, 35) Q4      G5 PER [40, 45) Q5
    pred   P1 PER [0, 5)   Q1      P2 PER [10, 15) Q9|Q2     P3 LOC [20, 25) NIL
           P4 ORG [30, 36) Q4      P5 PER [40, 45) (none)

- strict linking (``--match exact``), top 1: P1 and P3 are right (NIL is a value like any other);
  P2's first candidate is Q9, P4's boundaries are off, P5 has no id: a = 2, b = 3, c = 3;
- strict, top 2: P2's second candidate is the gold's Q2: a = 3, b = 2, c = 2;
- fuzzy linking (``--match overlap``), top 1: P4 overlaps G4 with its id: a = 3; top 2: a = 4;
- without ``--match-attributes``: exact a = 4 (all but P4), overlap a = 5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spanagree import agree, score
from spanagree.errors import UsageError
from spanagree.match import MatchRule, align
from spanagree.span import Span, SpanSet

from conftest import run


def mention(start, end, label, kb=None):
    return Span("d", start, end, label, attributes=(("kb_id", kb),) if kb is not None else ())


GOLD = [mention(0, 5, "PER", "Q1"), mention(10, 15, "PER", "Q2"), mention(20, 25, "LOC", "NIL"),
        mention(30, 35, "ORG", "Q4"), mention(40, 45, "PER", "Q5")]
PRED = [mention(0, 5, "PER", "Q1"), mention(10, 15, "PER", "Q9|Q2"), mention(20, 25, "LOC", "NIL"),
        mention(30, 36, "ORG", "Q4"), mention(40, 45, "PER")]


def gold_and_pred():
    return SpanSet.from_spans("gold", GOLD), SpanSet.from_spans("pred", PRED)


@pytest.mark.parametrize("boundary, top, a", [("exact", 1, 2), ("exact", 2, 3), ("overlap", 1, 3), ("overlap", 2, 4)])
@pytest.mark.parametrize("pairing", ["optimal", "hipe", "greedy"])
def test_strict_and_fuzzy_linking_hand_counted(boundary, top, a, pairing):
    gold, pred = gold_and_pred()
    result = score(gold, pred, match=boundary, match_attributes=["kb_id"], link_top=top, pairing=pairing)
    assert result.counts.astuple() == (a, 5 - a, 5 - a)


def test_without_match_attributes_the_ids_do_not_count():
    gold, pred = gold_and_pred()
    assert score(gold, pred).counts.a == 4
    assert score(gold, pred, match="overlap").counts.a == 5


def test_a_wrong_id_is_a_wrong_label_in_the_error_kinds_and_the_listing():
    gold, pred = gold_and_pred()
    result = score(gold, pred, match_attributes="kb_id", errors=True)
    kinds = result.error_counts()
    assert (kinds["correct"], kinds["wrong_label"], kinds["partial"], kinds["missed"], kinds["spurious"]) == (2, 2, 1, 0, 0)
    listed = {(item.kind, item.gold.start) for item in result.items if item.kind != "correct"}
    assert listed == {("wrong_label", 10), ("wrong_label", 40), ("partial", 30)}
    assert result.to_dict()["by_label"]["PER"]["a"] == 1


def test_agree_is_the_same_whichever_side_is_first():
    gold, pred = gold_and_pred()
    for top in (1, 2):
        one = agree([gold, pred], match_attributes="kb_id", link_top=top).pairs[0].counts
        other = agree([pred, gold], match_attributes="kb_id", link_top=top).pairs[0].counts
        assert other.astuple() == (one.a, one.c, one.b)
        assert one.a == (2 if top == 1 else 3)


def test_candidates_on_both_sides_and_nil():
    """On ``agree`` both sides may give candidates: the first id of either among the other's first K."""
    rule = MatchRule(attributes=("kb_id",), link_top=2)
    both = [mention(0, 5, "PER", "Q1|Q2")], [mention(0, 5, "PER", "Q2|Q1")]
    assert align(*both, rule).counts.a == 1
    assert align(*both, MatchRule(attributes=("kb_id",))).counts.a == 0
    assert align([mention(0, 5, "PER", "Q3|Q1")], [mention(0, 5, "PER", "Q2|Q1")], rule).counts.a == 0
    nil = MatchRule(attributes=("kb_id",))
    assert align([mention(0, 5, "PER", "NIL")], [mention(0, 5, "PER", "NIL")], nil).counts.a == 1
    assert align([mention(0, 5, "PER", "NIL")], [mention(0, 5, "PER", "NIL2")], nil).counts.a == 0
    assert align([mention(0, 5, "PER")], [mention(0, 5, "PER")], nil).counts.a == 1


def test_spans_that_differ_in_id_only_are_both_kept():
    """Two gold mentions of the same text with different ids are two spans (the key holds the id)."""
    gold = [mention(0, 5, "PER", "Q1"), mention(0, 5, "PER", "Q2")]
    alignment = align([mention(0, 5, "PER", "Q2")], gold, MatchRule(attributes=("kb_id",)))
    assert alignment.counts.astuple() == (1, 0, 1) and alignment.duplicates == (0, 0)


def test_brat_normalisations_link_by_their_public_name(tmp_path, capsys):
    for name, ids in (("gold", ["Wikidata:Q1", "Wikidata:Q2"]), ("pred", ["Wikidata:Q1", "Wikidata:Q3"])):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "d.txt").write_text("Paris and Rome\n", encoding="utf-8")
        (folder / "d.ann").write_text(f"T1\tLOC 0 5\tParis\nN1\tReference T1 {ids[0]}\tParis\n"
                                      f"T2\tLOC 10 14\tRome\nN2\tReference T2 {ids[1]}\tRome\n", encoding="utf-8")
    code, out, _ = run(capsys, "score", tmp_path / "gold", tmp_path / "pred", "--match-attributes", "Reference",
                       "--output", "json")
    assert code == 0
    document = json.loads(out)
    assert (document["a"], document["b"], document["c"]) == (1, 1, 1)
    assert document["options"]["match_attributes"] == ["Reference"] and document["options"]["link_top"] == 1
    code, out, _ = run(capsys, "score", tmp_path / "gold", tmp_path / "pred", "--output", "json")
    assert json.loads(out)["a"] == 2


def test_bad_link_options_are_refused():
    gold, pred = gold_and_pred()
    with pytest.raises(UsageError, match="link_top"):
        score(gold, pred, match_attributes="kb_id", link_top=0)
    with pytest.raises(UsageError, match="match_attributes"):
        score(gold, pred, match_attributes=[""])


def test_linking_is_the_same_under_forked_jobs(small_shards):
    """Every third mention of the NCBI sample relinked (its Category changed) in the prediction:
    those are wrong under ``--match-attributes Category``, in one process and in two."""
    from spanagree import read

    corpus = Path(__file__).parent / "data" / "brat-ncbi-disease"
    gold = read(corpus)
    spans = [span for document in gold.documents.values() for span in document.spans]
    relinked = [Span(s.doc, s.fragments, s.label, attributes=(("A:Category", "Other"),)) if k % 3 == 0 else s
                for k, s in enumerate(spans)]
    pred = SpanSet.from_spans("relinked", relinked, {d: doc.text for d, doc in gold.documents.items()})
    one = score(corpus, pred, match_attributes="Category")
    two = score(corpus, pred, match_attributes="Category", jobs=2)
    assert small_shards, "the run with jobs=2 did not fork"
    assert two.to_dict() == one.to_dict()
    changed = len(range(0, len(spans), 3))
    assert one.counts.astuple() == (len(spans) - changed, changed, changed)
    assert one.error_counts()["wrong_label"] == changed
