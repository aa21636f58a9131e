"""spaCy DocBin files (issue 14): doc.ents or a span group, read and written.

Figures from Explosion's own DocBin files (``spacy-docbin-samples``, SOURCE.md: healthsea's counts,
the ner_tweets DocBin and its Prodigy twin), the demo corpus built by spaCy itself
(``corpora/demo/build_demo.py``), round trips, and the bratiaa example read as BRAT.
"""

from __future__ import annotations

import zlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import agree
from spanagree.errors import UsageError
from spanagree.formats import detect_format, read
from spanagree.formats.docbin import write_docbin
from spanagree.span import Span, SpanSet

from conftest import DEMO, run


def spans_of(spanset) -> list[tuple]:
    return [(d.id, s.start, s.end, s.label) for d in spanset.documents.values() for s in d.spans]


@pytest.mark.slow
def test_healthsea_ents_and_its_span_group(shared_corpora, capsys):
    path = shared_corpora / "spacy-docbin-samples" / "healthsea" / "dev.spacy"
    assert detect_format(path) == "docbin"
    ents = read(path)
    assert len(ents.documents) == 924 and list(ents.documents)[:3] == ["1", "2", "3"]
    assert Counter(s.label for s in ents) == {"CONDITION": 526, "BENEFIT": 333}
    per_document = Counter(len(d.spans) for d in ents.documents.values())
    assert per_document == {0: 462, 1: 216, 2: 147, 3: 62, 4: 25, 5: 9, 6: 3}
    for document in ents.documents.values():
        for span in document.spans:  # code points: the span's text is a word run of the text
            piece = document.text[span.start:span.end]
            assert piece == piece.strip() and piece
    group = read(path, docbin_spans_key="health_aspects")
    assert spans_of(group) == spans_of(ents)
    code, _, err = run(capsys, "agree", path, path, "--docbin-spans-key", "sc")
    assert code == 1 and err == (f"spanagree: error: {path}: document 1: no span group 'sc' (its span groups: "
                                 "health_aspects)\n")


def test_ner_tweets_docbin_and_its_prodigy_twin_hold_the_same_spans(shared_corpora, tmp_path, capsys):
    folder = shared_corpora / "spacy-docbin-samples" / "ner_tweets"
    docbin, prodigy = read(folder / "demo.spacy"), read(folder / "demo.jsonl")
    (doc,), (twin,) = docbin.documents.values(), prodigy.documents.values()
    assert doc.id == "1" and twin.id == "885944384"  # the ordinal; Prodigy's _input_hash
    assert doc.text == twin.text
    assert [(s.start, s.end, s.label) for s in doc.spans] == [(s.start, s.end, s.label) for s in twin.spans] \
        == [(11, 21, "PERSON")]
    # the Prodigy record written as a DocBin (keeping its id) agrees with it exactly, and holds the original's spans
    out = tmp_path / "tweet.spacy"
    code, _, err = run(capsys, "convert", folder / "demo.jsonl", "--to", "docbin", "--out", out)
    assert code == 0, err
    result = agree([out, folder / "demo.jsonl"])
    counts = result.pairs[0].counts
    assert (counts.a, counts.b, counts.c) == (1, 0, 0) and result.mean.mean == 1.0
    assert [(s.start, s.end, s.label) for s in read(out).documents["885944384"].spans] == \
        [(s.start, s.end, s.label) for s in doc.spans]


def test_the_demo_docbins_built_by_spacy_agree_as_the_jsonl_demo():
    docbin = agree(sorted((DEMO / "docbin").glob("*.spacy")))
    jsonl = agree(sorted((DEMO / "jsonl").glob("*.jsonl")))
    assert docbin.annotators == ["ann1", "ann2", "ann3"]
    assert [p.counts for p in docbin.pairs] == [p.counts for p in jsonl.pairs]
    assert list(read(DEMO / "docbin" / "ann1.spacy").documents) == list(read(DEMO / "jsonl" / "ann1.jsonl").documents)


def test_the_bratiaa_example_as_docbins_agrees_exactly_as_in_brat(shared_corpora, tmp_path):
    project = shared_corpora / "bratiaa-example" / "example-project"
    names = ["Lisa", "Maria", "Max", "Peter"]
    brat = [read(project / name, "brat") for name in names]
    files = []
    for spanset in brat:
        files.append(tmp_path / f"{spanset.name}.spacy")
        write_docbin(spanset, files[-1], docbin_spans_key="sc")  # a span group: the annotators' spans may overlap
    docbins = [read(f, docbin_spans_key="sc") for f in files]
    for spanset, back in zip(brat, docbins):
        assert spans_of(back) == sorted(spans_of(spanset), key=lambda s: (list(spanset.documents).index(s[0]),
                                                                           *s[1:]))
    for options in ({}, {"match": "overlap"}, {"match": "partial", "labels": "ignore"}):
        from_docbin, from_brat = agree(docbins, **options), agree(brat, **options)
        assert [p.counts for p in from_docbin.pairs] == [p.counts for p in from_brat.pairs]
        assert from_docbin.mean.mean == from_brat.mean.mean


_TEXT = st.lists(st.sampled_from(list("ab ") + ["\n", "  ", "é", "😀", "\u2003", "x\u0301", "-"]), min_size=1,
                 max_size=20).map("".join)


@st.composite
def documents(draw):
    text = draw(_TEXT)
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = [Span("d", ((a, b),), draw(st.sampled_from(["PER", "LOC"]))) for a, b in zip(cuts[::2], cuts[1::2])
             if a < b]
    return text, spans


@settings(max_examples=150, deadline=None)
@given(documents(), st.booleans())
@pytest.mark.slow
def test_the_writer_round_trips_exactly_any_text_and_spans(tmp_path_factory, document, group):
    text, spans = document
    path = tmp_path_factory.mktemp("rt") / "x.spacy"
    key = "sc" if group else None
    write_docbin(SpanSet.from_spans("x", spans, {"d": text}), path, docbin_spans_key=key)
    back = read(path, docbin_spans_key=key).documents["d"]
    assert back.text == text
    assert [(s.fragments, s.label) for s in back.spans] == [(s.fragments, s.label) for s in spans]


def test_the_writer_refuses_what_a_docbin_cannot_hold(tmp_path, capsys):
    code, _, err = run(capsys, "convert", DEMO / "brat" / "ann1", "--to", "docbin", "--out", tmp_path / "x.spacy")
    assert code == 2 and "is discontinuous; a spaCy span is one run of tokens" in err
    assert not (tmp_path / "x.spacy").exists()
    overlapping = SpanSet.from_spans("x", [Span("d", (0, 3), "A"), Span("d", (2, 5), "B")], {"d": "abcdef"})
    with pytest.raises(UsageError, match="overlap; doc.ents cannot hold them"):
        write_docbin(overlapping, tmp_path / "y.spacy")
    write_docbin(overlapping, tmp_path / "y.spacy", docbin_spans_key="sc")
    assert spans_of(read(tmp_path / "y.spacy", docbin_spans_key="sc")) == [("d", 0, 3, "A"), ("d", 2, 5, "B")]


def test_emoji_offsets_are_code_points(tmp_path):
    text = "😀😀 Ana met Bo 🇫🇷 in Lyon."
    spans = [Span("d", (3, 6), "PER"), Span("d", (20, 24), "LOC")]
    write_docbin(SpanSet.from_spans("x", spans, {"d": text}), tmp_path / "e.spacy")
    back = read(tmp_path / "e.spacy").documents["d"]
    assert [text[s.start:s.end] for s in back.spans] == ["Ana", "Lyon"]


@pytest.mark.parametrize("content, extra, message", [
    (b"not a docbin", (), "not a spaCy DocBin (zlib: "),
    (zlib.compress(b"\x93\x01\x02"), (), "not a spaCy DocBin ("),
    (zlib.compress(b"\0" * 200_000), ("--max-record-bytes", "100000"),
     "the DocBin, inflated, is longer than 100,000 bytes, the largest record read (raise it with --max-record-bytes)"),
])
def test_bad_docbins_are_one_line_naming_the_file(tmp_path, capsys, content, extra, message):
    bad = tmp_path / "x.spacy"
    bad.write_bytes(content)
    code, out, err = run(capsys, "agree", bad, bad, *extra)
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {bad}") and message in err and err.count("\n") == 1


def test_zero_length_spans_are_noted_and_a_repeated_id_is_an_error(tmp_path, capsys):
    import spacy
    from spacy.tokens import DocBin
    from spacy.tokens import Span as SpacySpan

    nlp = spacy.blank("en")
    doc_bin = DocBin(store_user_data=True)
    for doc_id in ("a", "b", "a"):
        doc = nlp("Ana met Bo.")
        doc.spans["sc"] = [SpacySpan(doc, 1, 1, "X"), SpacySpan(doc, 0, 1, "PER"), SpacySpan(doc, 2, 3, "PER")]
        doc.user_data["id"] = doc_id
        doc_bin.add(doc)
    doc_bin.to_disk(tmp_path / "two.spacy")
    DocBin(store_user_data=True, docs=list(doc_bin.get_docs(nlp.vocab))[:2]).to_disk(tmp_path / "ok.spacy")
    spanset = read(tmp_path / "ok.spacy", docbin_spans_key="sc")
    assert spanset.notes == ["2 zero-length span(s) (no token) left out"]
    assert spans_of(spanset) == [("a", 0, 3, "PER"), ("a", 8, 10, "PER"), ("b", 0, 3, "PER"), ("b", 8, 10, "PER")]
    bad = tmp_path / "two.spacy"
    code, out, err = run(capsys, "agree", bad, bad, "--docbin-spans-key", "sc")
    assert code == 1 and err == f"spanagree: error: {bad}: document 3: the id 'a' appears twice\n"


# -- issue 32: lengths checked against the tokens; every message on one line -----------------------

def _docbin_message(docs) -> dict:
    import srsly
    from spacy.tokens import DocBin

    return srsly.msgpack_loads(zlib.decompress(DocBin(docs=docs, store_user_data=True).to_bytes()))


def _write_message(path, message) -> None:
    import srsly

    path.write_bytes(zlib.compress(srsly.msgpack_dumps(message)))


@pytest.mark.parametrize("change", ["first_takes_all", "negative", "short"])
def test_lengths_that_do_not_match_the_tokens_are_one_line(tmp_path, capsys, change):
    import numpy
    import spacy

    nlp = spacy.blank("en")
    message = _docbin_message([nlp(f"Document {number} here.") for number in range(10)])
    lengths = numpy.frombuffer(message["lengths"], dtype="int32").copy()  # 4 tokens each, 40 in all
    if change == "first_takes_all":
        lengths[0] = 40   # document 1 every text, the other 9 empty: was read so
        shown = "76"
    elif change == "negative":
        lengths[1] = -3
    else:
        lengths[9] = 1
        shown = "37"
    message["lengths"] = lengths.tobytes()
    bad = tmp_path / "x.spacy"
    _write_message(bad, message)
    code, out, err = run(capsys, "convert", bad, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert (code, out) == (1, "")
    if change == "negative":
        assert err == f"spanagree: error: {bad}: not a spaCy DocBin (document 2's length is negative: -3)\n"
    else:
        assert err == (f"spanagree: error: {bad}: not a spaCy DocBin (its lengths add up to {shown} tokens; it "
                       "holds 40)\n")


def test_a_missing_span_group_names_the_groups_on_one_line(tmp_path, capsys):
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    doc = nlp("Ana met Bo.")
    doc.spans["odd\nkey"] = [doc[0:1]]
    path = tmp_path / "x.spacy"
    DocBin(docs=[doc]).to_disk(path)
    code, _, err = run(capsys, "convert", path, "--docbin-spans-key", "sc", "--to", "jsonl", "--out",
                       tmp_path / "x.jsonl")
    assert code == 1 and err == (f"spanagree: error: {path}: document 1: no span group 'sc' (its span groups: "
                                 "'odd\\nkey')\n")
