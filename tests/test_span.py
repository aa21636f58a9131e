"""The span model: validation, equality without source and attributes, and the readers' fast constructor."""

from __future__ import annotations

import dataclasses

import pytest

from spanagree.span import Source, Span


def test_fragments_are_validated_and_a_single_pair_is_wrapped():
    assert Span("d", (3, 7), "PER").fragments == ((3, 7),)
    assert Span("d", [[0, 2], [4, 6]], "X").fragments == ((0, 2), (4, 6))
    for bad in [(), ((5, 5),), ((4, 2),), ((-1, 3),), ((0, 4), (2, 6)), ((0, 1.5),)]:
        with pytest.raises(ValueError):
            Span("d", bad, "X")


def test_an_int_second_argument_selects_the_start_end_form():
    span = Span("d", 3, 7, "PER")
    assert span == Span("d", (3, 7), "PER") == Span("d", ((3, 7),), "PER")
    assert (span.fragments, span.label, span.source, span.attributes) == (((3, 7),), "PER", None, ())
    for start, end in [(7, 3), (5, 5), (-1, 3), (0, 2.5)]:  # checked as any fragments
        with pytest.raises(ValueError):
            Span("d", start, end, "X")
    with pytest.raises(TypeError, match="needs a label after the end"):
        Span("d", 3, 7)


def test_source_and_attributes_are_keyword_only():
    with pytest.raises(TypeError, match="source and attributes are keyword-only"):
        Span("d", ((0, 5),), "PER", Source("a.ann", 3))
    span = Span("d", 0, 5, "PER", source=Source("a.ann", 3), attributes=(("note", "x"),))
    assert (str(span.source), span.attributes) == ("a.ann:3", (("note", "x"),))
    assert Span.__match_args__ == ("doc", "fragments", "label")


def test_source_and_attributes_take_no_part_in_equality():
    plain = Span("d", ((0, 5),), "PER")
    read = Span("d", ((0, 5),), "PER", source=Source("a.ann", 3), attributes=(("note", "x"),))
    assert plain == read and hash(plain) == hash(read)
    assert plain != Span("d", ((0, 5),), "LOC") and plain != Span("e", ((0, 5),), "PER")


def test_trusted_spans_are_spans_like_any_other():
    source = Source.at("ann1.jsonl", 4)
    assert type(source) is Source and source == Source("ann1.jsonl", 4) and str(source) == "ann1.jsonl:4"
    spans = [Span.trusted("d", ((0, 5),), "PER", source), Span.trusted("d", ((6, 9),), "LOC", source, (("k", "v"),))]
    assert [type(s) for s in spans] == [Span, Span]
    assert spans[0] == Span("d", ((0, 5),), "PER") and hash(spans[0]) == hash(Span("d", ((0, 5),), "PER"))
    assert (spans[1].source, spans[1].attributes, spans[1].end, spans[1].length) == (source, (("k", "v"),), 9, 3)
    assert repr(spans[0]) == "Span(doc='d', fragments=((0, 5),), label='PER')"
    assert spans[0].relabel("ORG") == Span("d", ((0, 5),), "ORG") and spans[0].relabel("ORG").source is source
    with pytest.raises(dataclasses.FrozenInstanceError):  # frozen like any span
        spans[0].label = "LOC"
    with pytest.raises(dataclasses.FrozenInstanceError):
        source.line = 5
    assert {spans[0], Span("d", ((0, 5),), "PER")} == {spans[0]}
    assert dataclasses.replace(spans[1], label="X") == Span("d", ((6, 9),), "X")