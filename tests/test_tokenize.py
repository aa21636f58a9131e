"""``convert --to conll --tokenize``: raw texts (BRAT, JSONL, XML) put in CoNLL's shape with spaCy's
tokenizer and sentencizer; spans carried over, never split across sentences, tokens split at span
edges; the round trip keeps every span's non-whitespace characters."""

from __future__ import annotations

import warnings

import pytest
import spacy

from spanagree.cli import main
from spanagree.formats import convert, read
from spanagree.formats.retokenize import conll_shaped
from spanagree.span import Span, SpanSet


def _projected(spanset: SpanSet) -> list[list[tuple]]:
    """Per document (in order), each span as (label, fragments in non-whitespace coordinates)."""
    result = []
    for document in spanset.documents.values():
        text = document.text
        index = [0] * (len(text) + 1)  # offset -> number of non-whitespace characters before it
        for position, char in enumerate(text):
            index[position + 1] = index[position] + (not char.isspace())
        result.append(sorted((s.label, tuple((index[a], index[b]) for a, b in s.fragments)) for s in document.spans))
    return result


@pytest.fixture(scope="module")
def meddocan(shared_corpora):
    return shared_corpora / "meddocan-sample" / "gold" / "brat" / "sample"


def test_raw_brat_texts_need_tokenize_and_then_round_trip(meddocan, tmp_path, capsys):
    """MEDDOCAN's raw Spanish clinical texts: CoNLL refuses them as they are; tokenised, the 15
    documents and 347 spans come back with the same non-whitespace characters."""
    out = tmp_path / "m.conll"
    assert main(["convert", str(meddocan), "--to", "conll", "--out", str(out)]) == 2
    assert "sentence 2 has an empty token" in capsys.readouterr().err
    assert main(["convert", str(meddocan), "--to", "conll", "--out", str(out), "--tokenize", "--lang", "es"]) == 0
    assert "wrote 15 documents, 347 spans" in capsys.readouterr().out
    original, back = read(meddocan), read(out)
    assert (len(back.documents), len(back)) == (15, 347)
    assert _projected(back) == _projected(original)
    # Every token of the CoNLL text is a spaCy token or a piece of one; texts differ only in whitespace.
    for before, after in zip(original.documents.values(), back.documents.values()):
        assert "".join(before.text.split()) == "".join(after.text.split())


def test_jsonl_and_xml_convert_too(demo, tmp_path):
    """The demo's texts are tokenised already: --tokenize keeps them token for token (spaCy splits
    nothing the demo did not), so the spans land on the same offsets."""
    for source in (demo / "jsonl" / "ann1.jsonl", demo / "xml" / "ann1.xml"):
        dest = tmp_path / f"{source.suffix[1:]}.conll"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the ids CoNLL renumbers
            convert(source, dest, to="conll", tokenize=True)
        assert _projected(read(dest)) == _projected(read(source))


def test_a_token_is_split_where_a_span_edge_falls_inside_it():
    # Ana has BRCA1mutations in Lisbon's lab.     spaCy: one token "BRCA1mutations"
    #         [GENE)                [LOC-)
    text = "Ana has BRCA1mutations in Lisbon's lab."
    s = SpanSet.from_spans("a", [Span("d", (8, 13), "GENE"), Span("d", (26, 32), "LOC")], {"d": text})
    assert conll_shaped(SpanSet.from_spans("a", [], {"d": text})).documents["d"].text == \
        "Ana has BRCA1mutations in Lisbon 's lab ."
    shaped = conll_shaped(s)
    assert shaped.documents["d"].text == "Ana has BRCA1 mutations in Lisbon 's lab ."
    assert [sp.text(shaped.documents["d"].text) for sp in shaped] == ["BRCA1", "Lisbon"]


def test_a_sentence_is_never_split_inside_a_span():
    text = "He lives at No. 5 Main St. Then he left. Bye."
    plain = conll_shaped(SpanSet.from_spans("a", [], {"d": text})).documents["d"].text
    spanned = conll_shaped(SpanSet.from_spans("a", [Span("d", (12, 26), "ADDR")], {"d": text}))
    assert plain.count("\n") > spanned.documents["d"].text.count("\n")
    line = next(line for line in spanned.documents["d"].text.split("\n") if "Main" in line)
    assert "No. 5 Main St." in line.replace(" .", ".")
    assert [sp.text(spanned.documents["d"].text) for sp in spanned] == ["No . 5 Main St."]


def test_whitespace_at_span_edges_is_trimmed_and_blank_spans_left_out():
    text = "Ana  met\n Bo."
    s = SpanSet.from_spans("a", [Span("d", (3, 8), "X"), Span("d", (8, 10), "Y"), Span("d", (4, 5), "Z")],
                           {"d": text})
    shaped = conll_shaped(s)
    assert shaped.documents["d"].text == "Ana met Bo ."
    assert [(sp.label, sp.text("Ana met Bo .")) for sp in shaped] == [("X", "met")]
    assert shaped.notes == ["2 spans of whitespace only left out (--tokenize: a token holds no whitespace)"]


@pytest.mark.slow
def test_spacy_model_saved_to_disk(meddocan, tmp_path):
    """A pipeline saved with nlp.to_disk tokenises as the blank pipeline of its language; one
    without a sentence splitter gets the sentencizer."""
    with_sentencizer, without = tmp_path / "es-sent", tmp_path / "es-bare"
    nlp = spacy.blank("es")
    nlp.to_disk(without)
    nlp.add_pipe("sentencizer")
    nlp.to_disk(with_sentencizer)
    outputs = []
    for options in (["--lang", "es"], ["--spacy-model", str(with_sentencizer)], ["--spacy-model", str(without)]):
        dest = tmp_path / f"out{len(outputs)}.conll"
        assert main(["convert", str(meddocan), "--to", "conll", "--out", str(dest), "--tokenize", *options]) == 0
        outputs.append(dest.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


@pytest.mark.parametrize("extra, message", [
    (["--to", "jsonl", "--tokenize"], "--tokenize puts texts in CoNLL's shape: it goes with --to conll"),
    (["--to", "conll", "--lang", "es"], "--lang goes with --tokenize"),
    (["--to", "conll", "--tokenize", "--lang", "es", "--spacy-model", "x"], "--lang and --spacy-model exclude"),
    (["--to", "conll", "--tokenize", "--lang", "xx-nope"], "--lang xx-nope: spaCy has no such language"),
    (["--to", "conll", "--tokenize", "--spacy-model", "/nonexistent/model"],
     "--spacy-model /nonexistent/model: cannot load this spaCy pipeline"),
])
def test_usage_errors(demo, tmp_path, capsys, extra, message):
    assert main(["convert", str(demo / "jsonl" / "ann1.jsonl"), "--out", str(tmp_path / "o"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("spanagree: error: ") and message in err and err.count("\n") == 1
