"""The CoNLL reader on the real corpora in ../shared/corpora, with the figures their SOURCE.md
gives (and, frozen, the chunk counts seqeval 1.2.2 gives on the same files)."""

from __future__ import annotations

import warnings
from collections import Counter

import pytest

from spanagree.errors import SpanagreeWarning
from spanagree.formats.conll import read_conll, token_offsets

SUBMISSIONS = ["arcada", "drexel_cci", "flytxt", "mic-cis.txt", "sjtu_adapt.txt", "spinningbytes.txt", "uh_ritual"]


def read_quietly(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # lenient decoding never warns
        return read_conll(path, **options)


def shape(spanset):
    """(documents, sentences, tokens) of a span set read from CoNLL."""
    sentences = [s for d in spanset.documents.values() for s in token_offsets(d.text)]
    return len(spanset.documents), len(sentences), sum(map(len, sentences))


def by_label(spanset):
    return dict(Counter(span.label for span in spanset))


def token_chunks(spanset):
    """Spans as (sentence number, first token, last token + 1, label) over the whole file."""
    chunks, base = set(), 0
    for document in spanset.documents.values():
        sentences = token_offsets(document.text)
        starts = {s: (base + i, k) for i, tokens in enumerate(sentences) for k, (s, _) in enumerate(tokens)}
        ends = {e: k + 1 for tokens in sentences for k, (_, e) in enumerate(tokens)}
        for span in document.spans:
            sentence, first = starts[span.start]
            chunks.add((sentence, first, ends[span.end], span.label))
        base += len(sentences)
    return chunks


# ---------------------------------------------------------------- CoNLL-2003 and re-annotations

@pytest.fixture(scope="module")
def conll03(shared_corpora):
    folder = shared_corpora / "conll2003-test-reannotations"
    return {name: read_quietly(folder / f"{name}_test.txt") for name in ("conll2003", "conllpp", "reconll")}


@pytest.mark.parametrize("name, sentences, spans, labels", [
    ("conll2003", 3453, 5648, {"LOC": 1668, "MISC": 702, "ORG": 1661, "PER": 1617}),
    ("conllpp", 3453, 5702, {"LOC": 1646, "MISC": 723, "ORG": 1715, "PER": 1618}),
    ("reconll", 3443, 5651, {"LOC": 1647, "MISC": 728, "ORG": 1662, "PER": 1614}),
])
def test_conll2003_counts(conll03, name, sentences, spans, labels):
    spanset = conll03[name]
    assert shape(spanset) == (231, sentences, 46435)
    assert len(spanset) == spans and by_label(spanset) == labels
    assert list(spanset.documents) == [str(i) for i in range(1, 232)]
    assert spanset.name == f"{name}_test"


def test_conll2003_and_conllpp_have_the_same_texts(conll03):
    # SOURCE.md: identical tokens and sentence breaks, so the two compare directly; the exact,
    # labelled matches are conlleval's "correct" (reference/summary.tsv: 5506).
    assert conll03["conll2003"].texts() == conll03["conllpp"].texts()
    assert len(set(conll03["conll2003"]) & set(conll03["conllpp"])) == 5506


def test_reconll_merges_ten_sentences(conll03):
    # Same tokens, 10 fewer sentence breaks: the texts differ in 10 characters (newline vs space).
    original, reconll = conll03["conll2003"].texts(), conll03["reconll"].texts()
    differences = [(a, b) for doc in original for a, b in zip(original[doc], reconll[doc]) if a != b]
    assert differences == [("\n", " ")] * 10
    assert all(len(original[doc]) == len(reconll[doc]) for doc in original)


def test_reconll_strict_iob2_drops_its_one_invalid_chunk(conll03, shared_corpora):
    path = shared_corpora / "conll2003-test-reannotations" / "reconll_test.txt"
    with pytest.warns(SpanagreeWarning, match="1 invalid chunk dropped by strict iob2 decoding"):
        strict = read_conll(path, scheme="iob2")
    assert len(strict) == 5650  # seqeval 1.2.2 Entities(..., IOB2): 5650 chunks, the same ones
    dropped = set(conll03["reconll"]) - set(strict)
    assert [(s.label, s.source.line, s.text(strict.documents[s.doc].text)) for s in dropped] == [
        ("PER", 25051, "Yen")]  # SOURCE.md: `Yen I-PER` after O, line 25051


def test_conll2003_strict_iob2_is_the_same(shared_corpora):
    folder = shared_corpora / "conll2003-test-reannotations"
    for name, lenient in (("conll2003", 5648), ("conllpp", 5702)):
        assert len(read_quietly(folder / f"{name}_test.txt", scheme="iob2")) == lenient


def test_conll2003_chunk_column(shared_corpora):
    # Column 3 is the chunk tag: IOB2 in the original, IOB1 in CoNLL++ (SOURCE.md). Decoded
    # leniently the two give the same chunks; the original is valid strict IOB2.
    folder = shared_corpora / "conll2003-test-reannotations"
    original = read_quietly(folder / "conll2003_test.txt", conll_column=3)
    conllpp = read_quietly(folder / "conllpp_test.txt", conll_column=3)
    assert original == conllpp
    assert read_quietly(folder / "conll2003_test.txt", conll_column=3, scheme="iob2") == original


# ---------------------------------------------------------------- WNUT-17

@pytest.fixture(scope="module")
def wnut(shared_corpora):
    folder = shared_corpora / "wnut17"
    gold = read_quietly(folder / "emerging.test.annotated")
    return folder, gold, {name: read_quietly(folder / "submissions" / name) for name in SUBMISSIONS}


def test_wnut17_gold(wnut, shared_corpora):
    folder, gold, _ = wnut
    assert shape(gold) == (1, 1287, 23394)
    assert len(gold) == 1079
    assert by_label(gold) == {"person": 429, "location": 150, "group": 165, "creative-work": 142,
                              "product": 127, "corporation": 66}
    dev = read_quietly(folder / "emerging.dev.conll")
    assert shape(dev) == (1, 1009, 15733) and len(dev) == 836
    assert by_label(dev) == {"person": 470, "location": 74, "group": 39, "creative-work": 105,
                             "product": 114, "corporation": 34}


# system -> spans, conlleval "correct" (SOURCE.md), strict IOB2 spans (measured with seqeval
# 1.2.2 Entities(..., IOB2); the chunk sets are identical to ours), seqeval strict F1 (summary.tsv).
WNUT_SYSTEMS = {
    "arcada": (787, 373, 787, 39.98),
    "drexel_cci": (381, 192, 381, 26.30),
    "flytxt": (720, 345, 720, 38.35),
    "mic-cis.txt": (891, 365, 878, 37.30),
    "sjtu_adapt.txt": (727, 365, 727, 40.42),
    "spinningbytes.txt": (824, 388, 790, 41.31),
    "uh_ritual": (617, 355, 617, 41.86),
}


@pytest.mark.parametrize("name", SUBMISSIONS)
@pytest.mark.slow
def test_wnut17_submissions(wnut, name):
    folder, gold, systems = wnut
    spans, correct, strict_spans, strict_f1 = WNUT_SYSTEMS[name]
    system = systems[name]
    raw = (folder / "submissions" / name).read_bytes()
    assert b"\r\n" in raw  # the submissions have CRLF line ends
    assert not any("\r" in text for text in system.texts().values())
    assert shape(system) == (1, 1287, 23394)
    assert len(system) == spans
    # Compared by token position, the exact labelled matches are conlleval's "correct".
    assert len(token_chunks(system) & token_chunks(gold)) == correct

    invalid = spans - strict_spans  # SOURCE.md: mic-cis 13, spinningbytes 34, the others 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        strict = read_conll(folder / "submissions" / name, scheme="iob2")
    assert [str(w.message) for w in caught] == (
        [f"{folder / 'submissions' / name}: {invalid} invalid chunks dropped by strict iob2 decoding"]
        if invalid else [])
    assert len(strict) == strict_spans
    strict_correct = len(token_chunks(strict) & token_chunks(gold))
    assert round(200 * strict_correct / (len(gold) + len(strict)), 2) == strict_f1


def test_wnut17_invalid_counts(wnut):
    invalid = {name: spans - strict for name, (spans, _, strict, _) in WNUT_SYSTEMS.items() if spans != strict}
    assert invalid == {"mic-cis.txt": 13, "spinningbytes.txt": 34}


def test_wnut17_mic_cis_spells_tokens_differently(wnut):
    # SOURCE.md: its token column differs from the gold at 1283 positions (same token counts).
    _, gold, systems = wnut
    gold_tokens = gold.documents["1"].text.replace("\n", " ").split(" ")
    for name, system in systems.items():
        tokens = system.documents["1"].text.replace("\n", " ").split(" ")
        assert len(tokens) == len(gold_tokens) == 23394
        differing = sum(a != b for a, b in zip(tokens, gold_tokens))
        assert differing == (1283 if name == "mic-cis.txt" else 0), name
