"""Plain data in: ``score`` and ``agree`` on lists of documents, each a list of
``(start, end, label)`` tuples or ``{"start", "end", "label"}`` dicts, as seqeval's and
nervaluate's users hold them (neither is imported: the figures are worked out by hand).

The gold and prediction of the first tests, offsets half-open::

    document 1   0    5    10   15
      gold       [PER)     [LOC)        PER [0, 5)   LOC [10, 14)
      pred       [PER)     [LOC-)       PER [0, 5)   LOC [10, 15)
    document 2
      gold       (nothing)
      pred        X [1, 2)
    document 3
      gold       ORG [3, 8)
      pred       (nothing)
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spanagree
from spanagree import Span, SpanSet, UsageError, agree, score
from spanagree.errors import SpanagreeWarning
from spanagree.formats.schemes import tags_to_spans

GOLD = [[(0, 5, "PER"), (10, 14, "LOC")], [], [(3, 8, "ORG")]]
PRED = [[(0, 5, "PER"), (10, 15, "LOC")], [(1, 2, "X")], []]


def test_score_on_lists_of_tuples_is_one_score_with_hand_computed_counts():
    result = score(GOLD, PRED)
    assert isinstance(result, spanagree.Score)
    assert (result.gold, result.prediction, result.documents) == ("gold", "pred", ["1", "2", "3"])
    # exact/strict: PER agrees (a = 1); LOC [10, 15) and X are only predicted (b = 2);
    # LOC [10, 14) and ORG only in the gold (c = 2): P = R = F1 = 1/3
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 2, 2)
    assert result.counts.f1 == pytest.approx(1 / 3)
    assert result.error_counts() == {"correct": 1, "partial": 1, "wrong_label": 0, "wrong_label_and_boundary": 0,
                                     "missed": 1, "spurious": 1}
    # overlap: the two LOCs pair up (a = 2, b = 1, c = 1): F1 = 4/6
    assert score(GOLD, PRED, match="overlap").counts.f1 == pytest.approx(2 / 3)
    data = result.to_dict()
    assert (data["gold"], data["prediction"], data["documents"]) == ("gold", "pred", 3)


def test_dicts_lists_and_tuples_are_the_same_spans():
    as_dicts = [[{"start": s, "end": e, "label": label, "text": "ignored"} for s, e, label in doc] for doc in GOLD]
    as_lists = [[list(span) for span in doc] for doc in GOLD]
    assert SpanSet.from_lists("g", as_dicts) == SpanSet.from_lists("g", as_lists) == SpanSet.from_lists("g", GOLD)
    assert json.dumps(score(as_dicts, tuple(PRED)).to_dict()) == json.dumps(score(GOLD, PRED).to_dict())
    numpy_offsets = [[(np.int64(s), np.int32(e), label) for s, e, label in doc] for doc in GOLD]
    spans = list(SpanSet.from_lists("g", numpy_offsets))
    assert spans == list(SpanSet.from_lists("g", GOLD)) and all(type(s.start) is int for s in spans)


def test_documents_are_numbered_as_conll_numbers_them_and_empty_ones_are_kept():
    gold = SpanSet.from_lists("gold", GOLD)
    assert list(gold.documents) == ["1", "2", "3"]
    assert [len(d) for d in gold.documents.values()] == [2, 0, 1]
    assert [d.text for d in gold.documents.values()] == [None, None, None]
    assert gold.documents["3"].spans == [Span("3", 3, 8, "ORG")]


def test_agree_on_plain_annotators_names_them_by_place_and_gives_the_mean_f1():
    ann1 = [[(0, 5, "PER")], [(2, 4, "LOC")]]
    ann2 = [[(0, 5, "PER")], []]
    ann3 = [[(0, 4, "PER")], [(2, 4, "LOC")]]
    result = agree([ann1, ann2, ann3])
    assert result.annotators == ["ann1", "ann2", "ann3"] and result.documents == ["1", "2"]
    # ann1 × ann2: a=1 b=1 c=0, F1 2/3; ann1 × ann3: a=1 b=1 c=1, F1 1/2; ann2 × ann3: a=0 b=1 c=2, F1 0
    assert [(p.counts.a, p.counts.b, p.counts.c) for p in result.pairs] == [(1, 1, 0), (1, 1, 1), (0, 1, 2)]
    assert type(result.mean_f1) is float and result.mean_f1 == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)
    assert result.mean_f1 == result.mean.mean
    assert result.pooled.f1 == pytest.approx(2 * 2 / (2 * 2 + 3 + 3))  # a=2 b=3 c=3
    assert result.to_dict()["annotators"] == ["ann1", "ann2", "ann3"]


def test_plain_data_beside_a_span_set_keeps_the_span_set_s_name():
    named = SpanSet.from_lists("expert", [[(0, 5, "PER")], []])
    result = agree([named, [[(0, 5, "PER")], [(1, 3, "LOC")]]])
    assert result.annotators == ["expert", "ann2"]
    assert (result.pooled.a, result.pooled.b, result.pooled.c) == (1, 0, 1)


def test_mean_f1_is_nan_when_no_pair_has_a_defined_f1():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        result = agree([[[]], [[]]])
    assert math.isnan(result.mean_f1)


def test_seqeval_s_readme_example_through_tags_to_spans():
    """seqeval's README: ``f1_score(y_true, y_pred)`` is 0.50 — MISC [3, 6) against [2, 6) is
    wrong, PER [0, 2) right: a = 1, b = 1, c = 1."""
    y_true = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    y_pred = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    gold = [tags_to_spans(tags)[0] for tags in y_true]
    pred = [tags_to_spans(tags)[0] for tags in y_pred]
    assert gold == [[(3, 6, "MISC")], [(0, 2, "PER")]]
    result = score(gold, pred)
    assert (result.counts.a, result.counts.b, result.counts.c) == (1, 1, 1)
    assert (result.counts.precision, result.counts.recall, result.counts.f1) == (0.5, 0.5, 0.5)
    assert {label: counts.f1 for label, counts in result.pair.by_label.items()} == {"MISC": 0.0, "PER": 1.0}


def test_nervaluate_style_dicts_with_their_inclusive_ends_made_exclusive():
    """nervaluate's dicts, ends inclusive (token 3 to token 4 is ``end: 4``): add 1 to each end.
    Its four schemes are points of the rule grid (docs/matching.md), worked out by hand here."""
    true = [[{"label": "PER", "start": 2, "end": 4}],
            [{"label": "LOC", "start": 1, "end": 2}, {"label": "LOC", "start": 3, "end": 4}]]
    pred = [[{"label": "PER", "start": 2, "end": 4}],
            [{"label": "ORG", "start": 1, "end": 2}, {"label": "LOC", "start": 3, "end": 5}]]

    def exclusive(documents):
        return [[{**span, "end": span["end"] + 1} for span in document] for document in documents]

    gold, system = exclusive(true), exclusive(pred)
    strict = score(gold, system)  # nervaluate strict: COR 1 (PER), INC 2; P = R = 1/3
    assert (strict.counts.a, strict.counts.b, strict.counts.c) == (1, 2, 2)
    assert strict.error_counts()["wrong_label"] == 1 and strict.error_counts()["partial"] == 1
    exact = score(gold, system, labels="ignore")  # nervaluate exact: COR 2 (PER, ORG on LOC's tokens)
    assert exact.counts.a == 2 and exact.counts.precision == pytest.approx(2 / 3)
    partial = score(gold, system, match="partial", labels="ignore")  # nervaluate partial: (2 + 0.5 · 1) / 3
    assert partial.counts.a == 2.5 and partial.counts.precision == pytest.approx(2.5 / 3)
    ent_type = score(gold, system, match="overlap")  # nervaluate ent_type: COR 2 (PER, LOC overlapping)
    assert ent_type.counts.a == 2 and ent_type.counts.f1 == pytest.approx(2 / 3)


def test_texts_given_to_from_lists_give_the_listing_its_words():
    texts = ["Ana met Bo.", "Rome"]
    gold = SpanSet.from_lists("gold", [[(0, 3, "PER"), (8, 10, "PER")], [(0, 4, "LOC")]], texts=texts)
    pred = SpanSet.from_lists("pred", [[(0, 3, "PER")], [(0, 4, "LOC")]], texts=texts)
    result = score(gold, pred, errors=True)
    missed = [item for item in result.items if item.kind == "missed"]
    assert [(item.document, item.gold_text, item.context_before) for item in missed] == [("1", "Bo", "Ana met ")]
    assert result.counts.recall == pytest.approx(2 / 3)


@pytest.mark.parametrize("documents, texts, message", [
    ([[(5, 2, "PER")]], None, "gold, document 1: (5, 2, 'PER') is not a span: [5, 2) is empty or negative"),
    ([[], [(0, 5)]], None, "gold, document 2: (0, 5) is not a span: expected (start, end, label) or "
                           '{"start": ..., "end": ..., "label": ...}'),
    ([[{"start": 0, "end": 5}]], None, "gold, document 1: {'start': 0, 'end': 5} is not a span: no 'label'"),
    ([[{"label": "X"}]], None, "gold, document 1: {'label': 'X'} is not a span: no 'start' and no 'end'"),
    ([[("0", 5, "PER")]], None, "gold, document 1: ('0', 5, 'PER') is not a span: start and end must be integers"),
    ([[(0, 5.0, "PER")]], None, "gold, document 1: (0, 5.0, 'PER') is not a span: start and end must be integers"),
    ([[(False, 5, "PER")]], None, "gold, document 1: (False, 5, 'PER') is not a span: start and end must be "
                                  "integers"),
    ([[(-1, 5, "PER")]], None, "gold, document 1: (-1, 5, 'PER') is not a span: [-1, 5) is empty or negative"),
    ([[("PER", 0, 5)]], None, "gold, document 1: ('PER', 0, 5) is not a span: start and end must be integers"),
    ([[(0, 5, 7)]], None, "gold, document 1: (0, 5, 7) is not a span: the label must be a string, got int"),
    ([[(0, 5, "PER")], "text"], None, "gold, document 2: 'text' is not a list of spans"),
    ([(0, 5, "PER")], None, "gold, document 1 is one span, (0, 5, 'PER'), not a list of spans (plain data is a "
                            "list of documents, each a list of spans)"),
    ([[[(0, 5, "PER")]]], None, "gold, document 1: [(0, 5, 'PER')] is a list of spans, not a span: plain data is "
                                "one span set; make each of several with SpanSet.from_lists"),
    ([[(0, 5, "PER")]], ["Ana"], "gold, document 1: (0, 5, 'PER') is not a span: it ends after the document's "
                                 "text (3 characters)"),
    ([[(0, 5, "PER")]], ["Ana met", "Bo"], "gold: 2 texts for 1 documents"),
])
def test_a_bad_item_is_one_usage_error_naming_the_document_and_the_item(documents, texts, message):
    with pytest.raises(UsageError) as caught:
        SpanSet.from_lists("gold", documents, texts=texts)
    assert str(caught.value) == message
    assert caught.value.__context__ is None or caught.value.__suppress_context__  # no chained traceback
    if texts is None:  # the same through score, which names the gold "gold"
        with pytest.raises(UsageError) as caught:
            score(documents, [[]])
        assert str(caught.value) == message


def test_the_items_tell_plain_data_from_several_predictions():
    gold = SpanSet.from_lists("gold", GOLD)
    pred_a, pred_b = SpanSet.from_lists("a", PRED), SpanSet.from_lists("b", GOLD)
    several = score(gold, [pred_a, pred_b])  # span sets: several predictions, one Score each
    assert [r.prediction for r in several] == ["a", "b"]
    one = score(gold, PRED)  # lists of spans: one prediction
    assert isinstance(one, spanagree.Score) and one.prediction == "pred"
    with pytest.raises(UsageError, match="^pred mixes lists"):
        score(gold, [pred_a, PRED[0]])


def test_an_empty_list_is_refused_where_it_could_only_mean_no_documents():
    with pytest.raises(UsageError, match=r"^gold is an empty list: plain data is a list of one document or more"):
        score([], PRED)
    with pytest.raises(UsageError, match=r"^pred is an empty list: with the gold given as plain data"):
        score(GOLD, [])
    with pytest.raises(UsageError, match=r"^ann2 is an empty list"):
        agree([GOLD, []])
    # beside a span set, an empty list keeps its meaning: no predictions (a container gold holds them)
    with pytest.raises(UsageError, match="^score needs at least one prediction"):
        score(SpanSet.from_lists("gold", GOLD), [])


spans_strategy = st.tuples(st.integers(0, 30), st.integers(1, 6), st.sampled_from(["PER", "LOC", "ORG"]))
documents_strategy = st.lists(st.lists(spans_strategy, max_size=5), min_size=1, max_size=4)


def as_span_set(name: str, documents) -> SpanSet:
    """The span set plain data stands for, built from Span values."""
    ids = [str(number) for number in range(1, len(documents) + 1)]
    spans = [Span(doc_id, start, start + length, label)
             for doc_id, document in zip(ids, documents) for start, length, label in document]
    return SpanSet.from_spans(name, spans, texts=dict.fromkeys(ids))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(gold=documents_strategy, pred=documents_strategy,
       match=st.sampled_from(["exact", "overlap", "partial"]), labels=st.sampled_from(["strict", "ignore"]))
def test_plain_data_gives_the_json_of_the_span_sets_it_stands_for(gold, pred, match, labels):
    pred = (pred + [[]] * len(gold))[:len(gold)]  # the same documents on both sides
    plain_gold = [[(start, start + length, label) for start, length, label in document] for document in gold]
    plain_pred = [[{"start": start, "end": start + length, "label": label} for start, length, label in document]
                  for document in pred]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        rule = dict(match=match, labels=labels)
        from_plain = score(plain_gold, plain_pred, **rule).to_dict(by_document=True)
        from_spans = score(as_span_set("gold", gold), as_span_set("pred", pred), **rule).to_dict(by_document=True)
        agreed_plain = agree([plain_gold, plain_pred], **rule).to_dict(by_document=True)
        agreed_spans = agree([as_span_set("ann1", gold), as_span_set("ann2", pred)], **rule).to_dict(by_document=True)
    assert json.dumps(from_plain) == json.dumps(from_spans)
    assert json.dumps(agreed_plain) == json.dumps(agreed_spans)
