"""The span model: validation, equality without source and attributes, and readers' drafts."""

from __future__ import annotations

import dataclasses

import pytest

from spanagree.span import Source, Span, SpanDraft, sealed


def draft(doc, fragments, label, source=None, attributes=()):
    span = SpanDraft()
    span.doc, span.fragments, span.label, span.source, span.attributes = doc, fragments, label, source, attributes
    return span


def test_fragments_are_validated_and_a_single_pair_is_wrapped():
    assert Span("d", (3, 7), "PER").fragments == ((3, 7),)
    assert Span("d", [[0, 2], [4, 6]], "X").fragments == ((0, 2), (4, 6))
    for bad in [(), ((5, 5),), ((4, 2),), ((-1, 3),), ((0, 4), (2, 6)), ((0, 1.5),)]:
        with pytest.raises(ValueError):
            Span("d", bad, "X")


def test_source_and_attributes_take_no_part_in_equality():
    plain = Span("d", ((0, 5),), "PER")
    read = Span("d", ((0, 5),), "PER", Source("a.ann", 3), (("note", "x"),))
    assert plain == read and hash(plain) == hash(read)
    assert plain != Span("d", ((0, 5),), "LOC") and plain != Span("e", ((0, 5),), "PER")


def test_sealed_drafts_are_spans_like_any_other():
    source = Source("ann1.jsonl", 4)
    drafts = [draft("d", ((0, 5),), "PER", source), draft("d", ((6, 9),), "LOC", source, (("k", "v"),))]
    built = Span("d", ((0, 7),), "ORG")  # a reader's checked-the-slow-way span among the drafts
    spans = sealed([drafts[0], built, drafts[1]])
    assert [type(s) for s in spans] == [Span, Span, Span]
    assert spans[1] is built
    assert spans[0] == Span("d", ((0, 5),), "PER") and hash(spans[0]) == hash(Span("d", ((0, 5),), "PER"))
    assert (spans[2].source, spans[2].attributes, spans[2].end) == (source, (("k", "v"),), 9)
    assert repr(spans[0]) == "Span(doc='d', fragments=((0, 5),), label='PER')"
    with pytest.raises(dataclasses.FrozenInstanceError):  # frozen like any span once sealed
        spans[0].label = "LOC"
    assert {spans[0], Span("d", ((0, 5),), "PER")} == {spans[0]}
