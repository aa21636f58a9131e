"""Tag schemes and the CoNLL reader/writer: hand cases, seqeval's own test tables, conlleval.pl's
chunk rules, bad input, and write -> read round trips."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.formats import collect, open_stream
from spanagree.formats.conll import (_BLOCK_BYTES, _OTHER_WHITESPACE, _blocks, read_conll,
                                      stream_conll, token_offsets, write_conll)
from spanagree.formats.schemes import TagError, get_scheme, spans_to_tags, tags_to_spans
from spanagree.span import Document, Span, SpanSet

WRITABLE = ["iob1", "iob2", "ioe1", "ioe2", "bioes", "bilou", "io"]


def decode(tags, scheme=None):
    return tags_to_spans(tags.split() if isinstance(tags, str) else tags, scheme)


def write(tmp_path, content: str | bytes, name="f.conll") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


# ---------------------------------------------------------------- lenient (conlleval) decoding

@pytest.mark.parametrize("tags, spans", [
    # I after O or after another type starts a chunk; B always starts one.
    ("I-PER I-PER O I-LOC B-LOC I-ORG", [(0, 2, "PER"), (3, 4, "LOC"), (4, 5, "LOC"), (5, 6, "ORG")]),
    ("B-PER I-PER I-PER", [(0, 3, "PER")]),
    ("B-PER B-PER I-LOC", [(0, 1, "PER"), (1, 2, "PER"), (2, 3, "LOC")]),
    ("O O O", []),
    ("", []),
    # IOE: E ends a chunk; I or E after E starts a new one.
    ("I-X E-X I-X E-X E-X", [(0, 2, "X"), (2, 4, "X"), (4, 5, "X")]),
    ("E-X I-Y", [(0, 1, "X"), (1, 2, "Y")]),
    # BIOES / BILOU: S and U are single chunks, E and L end one.
    ("B-X I-X E-X S-X B-Y E-Y", [(0, 3, "X"), (3, 4, "X"), (4, 6, "Y")]),
    ("B-X L-X U-X U-X", [(0, 2, "X"), (2, 3, "X"), (3, 4, "X")]),
    ("B-X E-X B-X E-X", [(0, 2, "X"), (2, 4, "X")]),
    # Types may contain "-": the prefix is split off at the first one.
    ("B-creative-work I-creative-work O", [(0, 2, "creative-work")]),
    # Bare prefixes have the type "_" (as in seqeval).
    ("B I O I B", [(0, 2, "_"), (3, 4, "_"), (4, 5, "_")]),
])
def test_lenient_decoding(tags, spans):
    assert decode(tags) == (spans, 0)


def conlleval_chunks(tags):
    """conlleval.pl's startOfChunk/endOfChunk loop (v2004-01-26), written out from its rules."""
    def split(tag):
        return tuple(tag.split("-", 1)) if "-" in tag else (tag, "")

    def end_of_chunk(prev_tag, tag, prev_type, type_):
        end = (prev_tag, tag) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"),
                                  ("E", "O")}
        if prev_tag not in ("O", ".") and prev_type != type_:
            end = True
        return end or prev_tag in ("]", "[")

    def start_of_chunk(prev_tag, tag, prev_type, type_):
        start = (prev_tag, tag) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"),
                                    ("O", "E")}
        if tag not in ("O", ".") and prev_type != type_:
            start = True
        return start or tag in ("[", "]")

    chunks, begin = [], None
    prev_tag, prev_type = "O", ""
    for i, tag in enumerate(tags + ["O"]):
        tag_, type_ = split(tag)
        if begin is not None and end_of_chunk(prev_tag, tag_, prev_type, type_):
            chunks.append((begin, i, prev_type))
            begin = None
        if start_of_chunk(prev_tag, tag_, prev_type, type_):
            begin = i
        prev_tag, prev_type = tag_, type_
    return chunks


TAG = st.sampled_from(["O", "B-X", "I-X", "E-X", "B-Y", "I-Y", "E-Y"])


@settings(max_examples=400, deadline=None)
@given(st.lists(TAG, max_size=12))
@pytest.mark.slow
def test_lenient_decoding_is_conlleval_on_iob_and_ioe_tags(tags):
    # conlleval.pl lets a chunk run on from E-X into B-X (it predates BIOES); we end it, as
    # seqeval's default mode does. Everywhere else the two are the same.
    assume(not any(a[0] == "E" and b[0] == "B" and a[2:] == b[2:] for a, b in zip(tags, tags[1:])))
    assert decode(tags) == (conlleval_chunks(tags), 0)


# Every spelling the decoder reads: bare prefixes (type "_", the same as "B-_"), BILOU's L and U,
# a type holding a dash, and the O that ends chunks.
EVERY_TAG = st.sampled_from(["O", "B-X", "I-X", "E-X", "S-X", "L-X", "U-X", "B-Y", "I-Y", "E-Y", "S-Y",
                             "B", "I", "E", "S", "B-_", "I-_", "B-a-b", "I-a-b"])


def _general_loop(scheme):
    """The scheme with the run decoding switched off: :func:`tags_to_spans`'s general loop."""
    general = get_scheme(scheme)
    general = type(general)(**{f: getattr(general, f) for f in general.__dataclass_fields__})
    object.__setattr__(general, "_runs", False)
    return general


@settings(max_examples=300, deadline=None)
@given(st.lists(EVERY_TAG, max_size=16), st.sampled_from([None, *sorted({"iob1", "iob2", "ioe1", "ioe2", "bioes",
                                                                           "bilou", "io"})]))
def test_run_decoding_is_the_general_loop(tags, scheme):
    # conlleval's decoding takes the run decoding (one test per tagged token); the strict schemes
    # do not qualify (they drop tokens and chunks). Both give what the general loop gives.
    assert get_scheme(scheme)._runs == (scheme is None)
    try:
        expected = tags_to_spans(tags, _general_loop(scheme))
    except TagError as error:
        with pytest.raises(TagError) as raised:
            tags_to_spans(tags, scheme)
        assert (raised.value.message, raised.value.index) == (error.message, error.index)
    else:
        assert tags_to_spans(tags, scheme) == expected


def test_run_decoding_examples():
    #   tags   B-X I-X I-Y E-Y S-Y I   I-_ O   E-X
    #   chunks [X=====][Y=====][Y][_=====]     [X]
    tags = "B-X I-X I-Y E-Y S-Y I I-_ O E-X".split()
    assert tags_to_spans(tags) == ([(0, 2, "X"), (2, 4, "Y"), (4, 5, "Y"), (5, 7, "_"), (8, 9, "X")], 0)
    assert tags_to_spans(tags, _general_loop(None)) == tags_to_spans(tags)


def test_where_lenient_decoding_parts_from_conlleval_pl():
    assert conlleval_chunks(["B-X", "E-X", "B-X", "E-X"]) == [(0, 4, "X")]
    assert decode("B-X E-X B-X E-X")[0] == [(0, 2, "X"), (2, 4, "X")]
    # conlleval.pl knows no S: two S-X in a row would be one chunk.
    assert conlleval_chunks(["S-X", "S-X"]) == [(0, 2, "X")]
    assert decode("S-X S-X")[0] == [(0, 1, "X"), (1, 2, "X")]


# ---------------------------------------------------------------- strict decoding

@pytest.mark.parametrize("scheme, tags, spans, invalid", [
    ("iob2", "O I-X I-X B-Y I-X", [(3, 4, "Y")], 2),
    ("iob2", "I-X I-Y", [], 2),
    ("iob2", "B-X I-X O B-Y", [(0, 2, "X"), (3, 4, "Y")], 0),
    ("bio", "B-X I-Y", [(0, 1, "X")], 1),
    ("bioes", "B-X I-X O S-Y B-Y E-Y", [(3, 4, "Y"), (4, 6, "Y")], 1),
    ("bioes", "B-X I-X E-X", [(0, 3, "X")], 0),
    ("bioes", "B-X E-Y", [], 2),
    ("bilou", "B-X L-X U-Y", [(0, 2, "X"), (2, 3, "Y")], 0),
    ("iobes", "B-X L-X U-Y", [(0, 2, "X"), (2, 3, "Y")], 0),  # L, U read as E, S
    ("iob1", "I-X I-X B-X O I-Y", [(0, 2, "X"), (2, 3, "X"), (4, 5, "Y")], 0),
    ("iob1", "O B-X I-X", [(2, 3, "X")], 1),  # B after O is not IOB1: dropped, I-X starts anew
    ("ioe1", "I-X E-X I-X O", [(0, 2, "X"), (2, 3, "X")], 0),
    ("ioe1", "E-X O", [], 1),
    ("ioe2", "I-X E-X E-X I-Y E-Y", [(0, 2, "X"), (2, 3, "X"), (3, 5, "Y")], 0),
    ("ioe", "I-X O", [], 1),
    ("io", "I-X I-X I-Y O I-X", [(0, 2, "X"), (2, 3, "Y"), (4, 5, "X")], 0),
])
def test_strict_decoding(scheme, tags, spans, invalid):
    assert decode(tags, scheme) == (spans, invalid)


@pytest.mark.parametrize("scheme, tag", [("iob2", "S-X"), ("iob2", "E-X"), ("ioe2", "B-X"), ("io", "B-X"),
                                         ("iob1", "U-X")])
def test_prefix_not_in_scheme_is_an_error(scheme, tag):
    with pytest.raises(TagError) as error:
        decode(["O", tag], scheme)
    assert error.value.index == 1 and scheme in str(error.value)


@pytest.mark.parametrize("tag", ["X-PER", "B_PER", "PER-B", "B-", "O-PER", "b-PER", "-PER"])
def test_malformed_tags(tag):
    with pytest.raises(TagError) as error:
        decode(["O", "B-X", tag, tag])
    assert error.value.index == 2 and repr(tag) in str(error.value)


def test_unknown_scheme():
    with pytest.raises(UsageError, match="iob2"):
        get_scheme("iob3")


@settings(max_examples=300, deadline=None)
@given(st.data())
@pytest.mark.slow
def test_strict_decoding_of_written_tags_is_exact(data):
    scheme = data.draw(st.sampled_from(WRITABLE))
    length = data.draw(st.integers(0, 10))
    spans = data.draw(token_chunks(length, adjacent_same_type=scheme != "io"))
    tags = spans_to_tags(spans, length, scheme)
    assert tags_to_spans(tags, scheme) == (spans, 0)
    assert tags_to_spans(tags) == (spans, 0)  # lenient decoding reads every scheme's output


@pytest.mark.parametrize("scheme, tags", [
    ("iob1", "I-X B-X I-X O I-Y"),
    ("iob2", "B-X B-X I-X O B-Y"),
    ("ioe1", "E-X I-X I-X O I-Y"),
    ("ioe2", "E-X I-X E-X O E-Y"),
    ("bioes", "S-X B-X E-X O S-Y"),
    ("bilou", "U-X B-X L-X O U-Y"),
])
def test_spans_to_tags(scheme, tags):
    assert spans_to_tags([(0, 1, "X"), (1, 3, "X"), (4, 5, "Y")], 5, scheme) == tags.split()


def test_spans_to_tags_refuses_what_it_cannot_write():
    with pytest.raises(ValueError, match="touching"):
        spans_to_tags([(0, 1, "X"), (1, 2, "X")], 2, "io")
    assert spans_to_tags([(0, 1, "X"), (1, 2, "Y")], 2, "io") == ["I-X", "I-Y"]
    with pytest.raises(ValueError, match="overlaps"):
        spans_to_tags([(0, 2, "X"), (1, 3, "Y")], 3)
    with pytest.raises(ValueError, match="outside"):
        spans_to_tags([(2, 4, "X")], 3)


# ---------------------------------------------------------------- seqeval's test tables

SEQEVAL = {"iob1": "iob1", "iob2": "iob2", "ioe1": "ioe1", "ioe2": "ioe2", "iobes": "bioes", "bilou": "bilou"}


@pytest.fixture(scope="module")
def seqeval_cases(shared_corpora):
    return json.loads((shared_corpora / "peer-tests" / "seqeval" / "seqeval_cases.json").read_text("utf-8"))


def test_seqeval_transition_tables(seqeval_cases):
    """test_scheme.py::test_<scheme>_start_inside_end: our transitions are seqeval's, case by case."""
    checked = 0
    for theirs, ours in SEQEVAL.items():
        for case in seqeval_cases["parametrized"][f"test_scheme.py::test_{theirs}_start_inside_end"]:
            expected = case["expected"]
            if theirs == "ioe1" and (case["prev"], case["token"]) in (("O", "E-PER"), ("I-PER", "E-ORG")):
                # Where we differ: in IOE1 a one-token chunk directly followed by a chunk of its
                # type is written E-X, whatever precedes it ("O E-X I-X" is two X chunks; our
                # writer writes that). seqeval's IOE1 cannot start a chunk there and drops it.
                expected = [True] + expected[1:]
            assert list(get_scheme(ours).flags(case["prev"], case["token"])) == expected, (theirs, case)
            checked += 1
    assert checked == 13 * 4 + 28 * 2


def test_ioe1_one_token_chunk_before_its_type():
    assert decode("O E-X I-X", "ioe1") == ([(1, 2, "X"), (2, 3, "X")], 0)
    assert decode("I-Y E-X I-X", "ioe1") == ([(0, 1, "Y"), (1, 2, "X"), (2, 3, "X")], 0)
    assert decode("O E-X O", "ioe1") == ([], 1)  # E-X must be followed by its type


def test_seqeval_strict_decoding_tables(seqeval_cases):
    """test_scheme.py::test_<scheme>_tokens[_without_tag]: Tokens(..., scheme).entities (strict)."""
    checked = 0
    for theirs, ours in SEQEVAL.items():
        for suffix in ("tokens", "tokens_without_tag"):
            for case in seqeval_cases["parametrized"][f"test_scheme.py::test_{theirs}_{suffix}"]:
                spans, _ = tags_to_spans(case["tokens"], ours)
                expected = case["expected"]
                if theirs == "ioe1" and case["tokens"][:2] in (["E-PER", "I-PER"], ["E-PER", "E-PER"], ["E", "I"],
                                                                 ["E", "E"]):
                    # Where we differ (see test_seqeval_transition_tables): a sentence-initial E-X
                    # followed by its type is a one-token chunk; seqeval drops it.
                    expected = [[case["tokens"][0][2:] or "_", 0, 1]] + expected
                assert [[label, s, e] for s, e, label in spans] == expected, (theirs, case)
                checked += 1
    assert checked == 16 + 13 + 16 + 13 + 15 + 12 + 16 + 13 + 34 + 30 + 34 + 30


def test_seqeval_prefix_tables(seqeval_cases):
    table = seqeval_cases["parametrized"]
    names = {"IOB1": "iob1", "IOB2": "iob2", "IOE1": "ioe1", "IOE2": "ioe2", "IOBES": "bioes"}
    for case in table["test_scheme.py::test_valid_prefix"]:
        tag = "O" if case["token"] == "O" else case["token"] + "-X"
        tags_to_spans([tag], names[case["scheme"]])
    for case in table["test_scheme.py::test_invalid_prefix"]:
        with pytest.raises(TagError):
            tags_to_spans([case["token"] + "-X"], names[case["scheme"]])
    # test_scheme.py::TestAutoDetect is not reproduced: spanagree never guesses a scheme; strict
    # decoding is asked for by name (--scheme), lenient decoding needs none.


def test_seqeval_default_and_strict_f1_inputs(seqeval_cases):
    """test_conll_f1score / test_strict_f1score: I-ORG I-ORG against B-ORG I-ORG is a match in
    default mode (F = 1) and nothing in strict IOB2 (F = 0: the gold side has no valid chunk)."""
    assert seqeval_cases["parametrized"]["test_metrics.py::TestF1score::test_conll_f1score"][1]["expected"] == 1
    assert decode("I-ORG I-ORG") == decode("B-ORG I-ORG") == ([(0, 2, "ORG")], 0)
    assert seqeval_cases["parametrized"]["test_metrics.py::TestF1score::test_strict_f1score"][1]["expected"] == 0
    assert decode("I-ORG I-ORG", "iob2") == ([], 1)


def test_seqeval_get_entities(seqeval_cases):
    inline = seqeval_cases["inline"]
    case = inline["test_metrics.py::TestMetrics::test_get_entities"]
    spans, _ = tags_to_spans(case["y_true"])
    assert [[label, s, e - 1] for s, e, label in spans] == case["expected"]  # theirs: inclusive ends
    # Several sentences are decoded as one sequence with an O between them, as seqeval does.
    case = inline["test_metrics.py::TestMetrics::test_get_entities_with_only_IOB"]
    spans, _ = tags_to_spans(case["y_true"][0] + ["O"] + case["y_true"][1])
    assert [[label, s, e - 1] for s, e, label in spans] == case["expected"]
    # Suffix-style tags (MISC-B, seqeval's suffix=True) are not read: "MISC" is not a prefix.
    case = inline["test_metrics.py::TestMetrics::test_get_entities_with_suffix_style"]
    with pytest.raises(TagError, match="MISC-B"):
        tags_to_spans(case["y_true"])


def test_seqeval_scores_table(seqeval_cases):
    """test_v1.py::test_scores (strict IOB2) and test_output_dict (default): the chunks behind them."""
    case = seqeval_cases["inline"]["test_v1.py::TestPrecisionRecallFscoreSupport::test_scores"]
    gold, _ = tags_to_spans(case["y_true"][0], "iob2")
    pred, _ = tags_to_spans(case["y_pred"][0], "iob2")
    assert len(gold) == sum(case["expected"]["support"]) == 3
    assert len(set(gold) & set(pred)) == 2  # A: 1 of 2 found, B: 1 of 1, C: spurious


def test_conlleval_ground_truth(shared_corpora):
    """seqeval's conlleval fixture (columns token POS gold guess) and conlleval.pl's own output."""
    folder = shared_corpora / "peer-tests" / "seqeval"
    report = (folder / "ground_truth.conlleval.txt").read_text("utf-8")
    tokens, phrases, found, correct = map(int, re.search(
        r"processed (\d+) tokens with (\d+) phrases; found: (\d+) phrases; correct: (\d+)", report).groups())
    gold = read_conll(folder / "ground_truth.txt", conll_column=3)
    guess = read_conll(folder / "ground_truth.txt")  # the last column
    assert sum(len(t.split()) for t in gold.texts().values()) == tokens == 961
    assert (len(gold), len(guess)) == (phrases, found) == (459, 539)
    assert len(set(gold) & set(guess)) == correct == 371
    per_type = {m[0]: int(m[1]) for m in re.findall(r"^\s+(\S+): precision.*?(\d+)$", report, re.M)}
    assert {label: sum(s.label == label for s in guess) for label in guess.labels} == per_type
    # ground_truth_inv.txt has the same tags in suffix style (NP-B): refused, naming the line.
    with pytest.raises(FormatError, match=r"ground_truth_inv.txt:1: bad tag 'NP-I'"):
        read_conll(folder / "ground_truth_inv.txt")


# ---------------------------------------------------------------- reading

def test_read_documents_sentences_offsets_and_sources(tmp_path):
    path = write(tmp_path, (
        "-DOCSTART- -X- -X- O\n"          # 1
        "\n"                              # 2
        "EU NNP B-NP B-ORG\n"             # 3
        "rejects VBZ B-VP O\n"            # 4
        "German JJ B-NP B-MISC\n"         # 5
        "\n"                              # 6
        "\n"                              # 7
        "Peter NNP B-NP B-PER\n"          # 8
        "Blackburn NNP I-NP I-PER\n"      # 9
        "\n"                              # 10
        "-DOCSTART- -X- -X- O\n"          # 11
        "\n"                              # 12
        "-DOCSTART- -X- -X- O\n"          # 13
        "BRUSSELS NNP B-NP B-LOC\n"       # 14
    ))
    spans = read_conll(path)
    assert spans.name == "f" and spans.format == "conll"
    assert spans.texts() == {"1": "EU rejects German\nPeter Blackburn", "2": "", "3": "BRUSSELS"}
    got = [(s.doc, s.start, s.end, s.label, s.source.line, s.text(spans.documents[s.doc].text)) for s in spans]
    assert got == [("1", 0, 2, "ORG", 3, "EU"), ("1", 11, 17, "MISC", 5, "German"),
                   ("1", 18, 33, "PER", 8, "Peter Blackburn"), ("3", 0, 8, "LOC", 14, "BRUSSELS")]
    assert all(s.source.path == str(path) for s in spans)
    assert token_offsets(spans.documents["1"].text) == [[(0, 2), (3, 10), (11, 17)], [(18, 23), (24, 33)]]
    # The chunk column instead of the NER column:
    chunks = read_conll(path, conll_column=3)
    assert [(s.doc, s.text(chunks.documents[s.doc].text), s.label) for s in chunks][:3] == [
        ("1", "EU", "NP"), ("1", "rejects", "VP"), ("1", "German", "NP")]


def test_tokens_before_the_first_docstart_are_a_document(tmp_path):
    spans = read_conll(write(tmp_path, "a B-X\n\n-DOCSTART- O\nb B-Y\n-DOCSTART- O\n\n"))
    assert spans.texts() == {"1": "a", "2": "b", "3": ""}
    spans = read_conll(write(tmp_path, "\n\n-DOCSTART- O\nb B-Y\n"))
    assert spans.texts() == {"1": "b"}


def test_crlf_tabs_and_spaces(tmp_path):
    lf = read_conll(write(tmp_path, "New B-LOC\nYork I-LOC\n\nis O\n", "lf.conll"))
    crlf = read_conll(write(tmp_path, "New\tB-LOC\r\nYork \t I-LOC  \r\n\r\nis\tO\r\n", "crlf.conll"))
    assert crlf == lf and crlf.texts() == {"1": "New York\nis"}


def test_other_whitespace_stays_in_tokens(tmp_path):
    # Only spaces and tabs separate columns; a no-break space is part of the token.
    spans = read_conll(write(tmp_path, "10\u00a0000 B-QUANT\nfans I-QUANT\n"))
    assert spans.texts() == {"1": "10\u00a0000 fans"}
    assert [(s.start, s.end) for s in spans] == [(0, 11)]



def _read_outcome(path, block_bytes=None, **options):
    """Everything a read gives: documents, spans with their sources, notes and warnings, or the error.

    ``block_bytes``: read by the stream with blocks of that many bytes (default: ``read_conll``).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if block_bytes is None:
                spans = read_conll(path, **options)
            else:
                spans = collect(stream_conll(path, _block_bytes=block_bytes, **options))
        except (FormatError, UsageError) as error:
            return ("error", type(error).__name__, str(error))
    return ([(d.id, d.text, d.source, [(s.doc, s.fragments, s.label, s.source.path, s.source.line, s.attributes)
                                        for s in d.spans]) for d in spans.documents.values()],
            spans.notes, [str(w.message) for w in caught])


# Lines of every shape the reader meets: regular two- and three-column lines (tab or space), empty
# and whitespace-only lines, -DOCSTART- with one to three columns, too few or too many columns,
# doubled separators, bad tags, stray \r, other whitespace.
_CONLL_LINES = st.sampled_from([
    "a\tO", "bb\tB-X", "c\tI-X", "d\tI-Y", "e\tB-Y", "f\tE-X", "g\tS-Y", "a O", "b B-X", "c I-X", "d I-Y",
    "a\tNN\tO", "b\tNN\tB-X", "c\tVB\tI-X", "a NN O", "b VB B-Y", "", "", "", " ", "\t", "\r",
    "-DOCSTART-\tO", "-DOCSTART- O", "-DOCSTART-", "-DOCSTART-\tX\tO", "a", "a\tO\tO\tO", "a\t\tO",
    " a\tO", "a\tO ", "a  O", "a\tbad", "a\tB-", "\u00e9\tB-X", "a\u00a0b\tO", "a\x0bb\tO", "a\tO\r", "\u2028\tO",
])
# Options: lenient and strict decoding, the tag column given.
_OPTIONS = st.sampled_from([{}, {"scheme": "iob2"}, {"scheme": "bioes"}, {"conll_column": 2}, {"conll_column": 3}])


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(_CONLL_LINES, max_size=14), ending=st.sampled_from(["\n", "\r\n"]),
       final=st.sampled_from(["", "\n", "\n\n", "\r\n"]), options=_OPTIONS,
       block_bytes=st.one_of(st.none(), st.integers(1, 64)))
@pytest.mark.slow
def test_trailing_blanks_never_change_a_reading(tmp_path_factory, lines, ending, final, options, block_bytes):
    # A line's trailing spaces and tabs are no column: every file reads exactly as the same file
    # with " \t" after each line, errors and warnings included, in one block or in many. The
    # padded file mixes tabs and spaces, which only the per-line reading takes, while a regular
    # file (one separator, the same columns on every line) is split by whole-text operations:
    # both readings must agree.
    path = tmp_path_factory.mktemp("pad") / "f.conll"
    path.write_bytes((ending.join(lines) + final).encode("utf-8"))
    plain = _read_outcome(path, block_bytes, **options)
    path.write_bytes((ending.join(line + " \t" for line in lines) + final).encode("utf-8"))
    assert _read_outcome(path, block_bytes, **options) == plain


def test_byte_order_mark_is_part_of_the_first_token(tmp_path):
    spans = read_conll(write(tmp_path, "\ufeffEU B-ORG\n"))
    assert spans.texts() == {"1": "\ufeffEU"} and [(s.start, s.end) for s in spans] == [(0, 3)]


def test_strict_reading_warns_with_a_count(tmp_path):
    path = write(tmp_path, "a O\nb I-X\nc I-X\n\nd B-Y\ne I-Z\n")
    with pytest.warns(SpanagreeWarning, match=r"f.conll: 2 invalid chunks dropped by strict iob2 decoding"):
        spans = read_conll(path, scheme="iob2")
    assert [(s.label, s.source.line) for s in spans] == [("Y", 5)]
    assert spans.notes == [f"{path}: 2 invalid chunks dropped by strict iob2 decoding"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [s.label for s in read_conll(path)] == ["X", "Y", "Z"]


@pytest.mark.parametrize("content, options, message", [
    ("a O\nb X-PER\n", {}, r"f.conll:2: bad tag 'X-PER': unknown prefix"),
    ("a O\n\nb B_PER\n", {}, r"f.conll:3: bad tag 'B_PER': unknown prefix"),
    ("a O\nb PER-B\n", {}, r"f.conll:2: bad tag 'PER-B'"),
    ("a O\nb B-\n", {}, r"f.conll:2: bad tag 'B-': empty type"),
    ("a B-X\nb S-X\n", {"scheme": "iob2"}, r"f.conll:2: tag 'S-X' is not allowed by scheme iob2"),
    ("a O\r\nb\r\n", {}, r"f.conll:2: expected a token and a tag, got one column 'b'"),
    ("a x O\nb O\n", {"conll_column": 3}, r"f.conll:2: expected at least 3 columns \(conll_column=3\), got 2"),
    ("a O\n" * 70000 + "b\n", {}, r"f.conll:70001: expected a token and a tag"),  # beyond the first run of rows
    (b"a O\nb\xe9 O\n", {}, r"f.conll:2: not UTF-8"),
    ("", {}, r"f.conll: empty file"),
    ("\n \n\r\n", {}, r"f.conll: empty file"),
])
def test_bad_input_names_file_and_line(tmp_path, content, options, message):
    with pytest.raises(FormatError, match=message):
        read_conll(write(tmp_path, content), **options)


def test_bad_options_and_paths(tmp_path):
    path = write(tmp_path, "a O\n")
    for column in (0, 1, -1, "1", "", 2.5, True):
        with pytest.raises(UsageError, match="conll_column"):
            read_conll(path, conll_column=column)
    with pytest.raises(UsageError, match="unknown tag scheme"):
        read_conll(path, scheme="bieos")
    with pytest.raises(FormatError, match="no such file"):
        read_conll(tmp_path / "missing.conll")
    with pytest.raises(FormatError, match="folder"):
        read_conll(tmp_path)


@pytest.mark.parametrize("content, argv, where, message", [
    ("a O\nb\n", [], "f.conll:2", "expected a token and a tag, got one column 'b'"),
    ("a x O\nb O\n", ["--conll-column", "3"], "f.conll:2", "expected at least 3 columns"),
    ("a O\nb X-PER\n", [], "f.conll:2", "bad tag 'X-PER': unknown prefix"),
    ("a B-X\nb S-X\n", ["--scheme", "iob2"], "f.conll:2", "tag 'S-X' is not allowed by scheme iob2"),
    (b"a O\nb\xe9 O\n", [], "f.conll:2", "not UTF-8"),
    ("\n\n", [], "f.conll", "empty file"),
    (None, [], "missing.conll", "no such file or folder"),
])
def test_bad_input_from_the_command_line_exits_1(tmp_path, capsys, content, argv, where, message):
    from spanagree.cli import main

    path = write(tmp_path, content) if content is not None else tmp_path / "missing.conll"
    out = tmp_path / "out.jsonl"
    code = main(["convert", str(path), "--from", "conll", "--to", "jsonl", "--out", str(out), *argv])
    stdout, err = capsys.readouterr()
    assert code == 1
    assert err.startswith(f"spanagree: error: {tmp_path / where}: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and stdout == ""
    assert not out.exists()


def test_an_empty_folder_from_the_command_line_exits_1(tmp_path, capsys):
    from spanagree.cli import main

    (tmp_path / "empty").mkdir()
    code = main(["agree", str(tmp_path / "empty"), str(tmp_path / "empty")])
    stdout, err = capsys.readouterr()
    assert code == 1 and stdout == ""
    assert err == f"spanagree: error: {tmp_path / 'empty'}: empty folder: no .ann, .xml, .jsonl or .conll file in it\n"
    code = main(["convert", str(tmp_path / "empty"), "--from", "conll", "--to", "jsonl", "--out", str(tmp_path / "o")])
    _, err = capsys.readouterr()
    assert code == 1 and err == f"spanagree: error: {tmp_path / 'empty'}: is a folder; CoNLL is read from one file\n"


def test_docstart_lines_alone_are_empty_documents(tmp_path):
    spans = read_conll(write(tmp_path, "-DOCSTART- -X- O\n\n-DOCSTART- -X- O\n"))
    assert spans.texts() == {"1": "", "2": ""} and len(spans) == 0


def test_docstart_line_may_have_one_column(tmp_path):
    spans = read_conll(write(tmp_path, "-DOCSTART-\n\na B-X\n"), conll_column=2)
    assert spans.texts() == {"1": "a"} and len(spans) == 1


# ---------------------------------------------------------------- streaming, block by block

# The whole-file reader's results on the corpora (before the reader streamed), frozen: root,
# file, options, documents, spans, and a digest of every document's id and text, every span's
# offsets, label and source line, the notes and the warnings (the path written "<path>").
TODAYS_RESULTS = [
    ("demo", "conll/ann1.conll", {}, 10, 75, "5a26c3a472e43ce3"),
    ("demo", "conll/ann2.conll", {}, 10, 73, "924dbdc504dd71f9"),
    ("demo", "conll/ann3.conll", {"scheme": "iob2"}, 10, 73, "5e2c8d73950be82f"),
    ("shared", "conll2003-test-reannotations/conll2003_test.txt", {}, 231, 5648, "8aa930a603aaac1f"),
    ("shared", "conll2003-test-reannotations/conll2003_test.txt", {"conll_column": 3}, 231, 22020, "59cae77cb55e251e"),
    ("shared", "conll2003-test-reannotations/conllpp_test.txt", {}, 231, 5702, "b6ff49b5959daa0a"),
    ("shared", "conll2003-test-reannotations/reconll_test.txt", {"scheme": "iob2"}, 231, 5650, "98204f9f7e411cfa"),
    ("shared", "conll2003-test-reannotations/cleanconll_annotations.test", {}, 1, 5725, "d6af5e409f241d0e"),
    ("shared", "wnut17/emerging.dev.conll", {}, 1, 836, "0cf76ed6acbd75b3"),
    ("shared", "wnut17/emerging.test.conll", {"scheme": "iob2"}, 1, 978, "e882b62a9766a0ec"),
    ("shared", "wnut17/emerging.test.annotated", {}, 1, 1079, "27c18868714641ea"),
    ("shared", "wnut17/submissions/mic-cis.txt", {"scheme": "iob2"}, 1, 878, "fac81e95e4aa15d9"),
    ("shared", "wnut17/submissions/spinningbytes.txt", {}, 1, 824, "446492fed5747b38"),
    ("shared", "wnut17/submissions/arcada", {}, 1, 787, "b60323755c905bfe"),
    ("shared", "peer-tests/seqeval/ground_truth.txt", {"scheme": "iob2"}, 1, 455, "063c13fce1cce43b"),
]


def _digest(spans: SpanSet, caught, path) -> str:
    shape = [[d.id, d.text, [[s.start, s.end, s.label, s.source.line] for s in d.spans]]
             for d in spans.documents.values()]
    notes = [note.replace(str(path), "<path>") for note in spans.notes]
    messages = [str(w.message).replace(str(path), "<path>") for w in caught]
    return hashlib.sha256(json.dumps([shape, notes, messages], ensure_ascii=False).encode()).hexdigest()[:16]


@pytest.mark.parametrize("root, relative, options, documents, spans, digest", TODAYS_RESULTS)
@pytest.mark.slow
def test_stream_and_read_conll_give_todays_results_on_the_corpora(request, root, relative, options, documents,
                                                                  spans, digest):
    path = request.getfixturevalue("demo" if root == "demo" else "shared_corpora") / relative
    readers = {"read_conll": lambda: read_conll(path, **options),
               "stream": lambda: collect(stream_conll(path, **options)),  # 32 KiB blocks: many on conll2003
               "4 KiB blocks": lambda: collect(stream_conll(path, _block_bytes=4096, **options))}
    for reader, read in readers.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = read()
        assert (len(got.documents), len(got), _digest(got, caught, path)) == (documents, spans, digest), reader
        assert {s.source.path for s in got} == {str(path)} and got.name == path.stem and got.format == "conll"


def _error_line(outcome) -> int:
    return int(re.search(r"f\.conll:(\d+): ", outcome[2]).group(1))


# Lines for blocks: those above, and more -DOCSTART- lines (the cut points), lines that only look
# like one (never cut at), and bytes that are not UTF-8.
_BLOCK_LINES = st.one_of(_CONLL_LINES.map(str.encode), st.sampled_from([
    b"-DOCSTART-\tO", b"-DOCSTART- O", b"-DOCSTART-", b"-DOCSTART-\t-X-\tO", b"-DOCSTART-x\tO", b" -DOCSTART-\tO",
    b"x-DOCSTART-\tO", b"\xe9\tO", b"a\tB-\xff",
]))


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(_BLOCK_LINES, max_size=20), ending=st.sampled_from([b"\n", b"\r\n"]),
       final=st.sampled_from([b"", b"\n", b"\n\n", b"\r\n"]), options=_OPTIONS, block_bytes=st.integers(1, 64))
@pytest.mark.slow
def test_reading_in_small_blocks_is_reading_in_one(tmp_path_factory, lines, ending, final, options, block_bytes):
    # Blocks of 1 to 64 bytes: every document boundary is a block boundary, and documents larger
    # than a block are read whole. Documents, spans, sources, notes, warnings and errors are the
    # one-block read's; but in a file with two errors, the first block holding one reports it
    # (reading the file whole, bad UTF-8 anywhere comes first, then a line with too few columns).
    path = tmp_path_factory.mktemp("blocks") / "f.conll"
    path.write_bytes(ending.join(lines) + final)
    whole = _read_outcome(path, **options)
    blocks = _read_outcome(path, block_bytes, **options)
    if whole != blocks and whole[0] == blocks[0] == "error":
        assert _error_line(blocks) < _error_line(whole)
    else:
        assert blocks == whole


@pytest.mark.parametrize("block_bytes", [1, 5, 16, 1 << 16])
@pytest.mark.parametrize("content, texts", [
    ("a B-X\n\n-DOCSTART- O\nb B-Y\n-DOCSTART- O\n\n", {"1": "a", "2": "b", "3": ""}),
    ("\n\n-DOCSTART- O\nb B-Y\n", {"1": "b"}),  # the first block, "\n\n", has no document
    ("-DOCSTART- O\n-DOCSTART- O\n\n-DOCSTART- O", {"1": "", "2": "", "3": ""}),
    ("\n\n\n", None),
    ("\n\r\n \n", None),
])
def test_documents_and_the_empty_file_in_blocks(tmp_path, block_bytes, content, texts):
    path = write(tmp_path, content)
    if texts is None:
        with pytest.raises(FormatError, match=r"f.conll: empty file: no token lines"):
            collect(stream_conll(path, _block_bytes=block_bytes))
    else:
        assert collect(stream_conll(path, _block_bytes=block_bytes)).texts() == texts


@pytest.mark.parametrize("bad, options, message", [
    (b"b\xe9 x O", {}, "not UTF-8 (byte 0xe9)"),
    (b"b x X-PER", {}, "bad tag 'X-PER': unknown prefix; expected O or B-, I-, E-, S-, L-, U- and a type"),
    (b"b", {}, "expected a token and a tag, got one column 'b'"),
    (b"b x", {"conll_column": 3}, "expected at least 3 columns (conll_column=3), got 2"),
])
@pytest.mark.parametrize("block_bytes", [16, 1 << 16])
def test_an_error_in_a_later_block_names_its_line_in_the_file(tmp_path, bad, options, message, block_bytes):
    document = [b"-DOCSTART- -X- O", b""] + [b"EU NNP B-ORG", b"rejects VBZ O", b"German JJ B-MISC", b""] * 2
    lines = document * 2000
    lines[1950 * len(document) + 4] = bad  # in document 1951, its line 5 (beyond 200 KB)
    content = b"\n".join(lines) + b"\n"
    assert len(content) > 2 * _BLOCK_BYTES
    path = write(tmp_path, content)
    stream = stream_conll(path, _block_bytes=block_bytes, **options)
    read = []
    with pytest.raises(FormatError) as error:
        for document in stream.documents:
            read.append(document.id)
    assert str(error.value) == f"{path}:{1950 * 10 + 5}: {message}"
    assert 0 < len(read) <= 1950  # the documents of earlier blocks were read


def test_crlf_file_read_in_blocks_of_every_size(tmp_path):
    lf = "-DOCSTART- O\n\nNew B-LOC\nYork I-LOC\n\nis O\n-DOCSTART- O\n\nBo B-PER\n\n-DOCSTART- O\nA B-X\n"
    crlf = lf.replace("\n", "\r\n").encode()
    expected = read_conll(write(tmp_path, lf, "lf.conll"))
    assert expected.texts() == {"1": "New York\nis", "2": "Bo", "3": "A"}
    path = write(tmp_path, crlf, "crlf.conll")
    for size in range(1, len(crlf) + 2):
        got = collect(stream_conll(path, _block_bytes=size))
        assert got == expected, size
        assert [s.source.line for s in got] == [s.source.line for s in expected] == [3, 9, 12]
        with open(path, "rb") as file:
            blocks = list(_blocks(file, size))
        assert b"".join(blocks) == crlf and all(block.endswith(b"\r\n") for block in blocks[:-1]), size
        assert all(block.startswith(b"-DOCSTART-") for block in blocks)  # whole documents
    assert len(blocks) == 2  # one read holds the file: cut at its last -DOCSTART- line all the same
    with open(path, "rb") as file:
        assert len(list(_blocks(file, 1))) == 3  # a document a block


def test_strict_decoding_warns_once_at_the_end_with_the_count_of_every_block(tmp_path):
    document = "-DOCSTART- O\n\na O\nb I-X\nc I-X\n\nd B-Y\ne I-Z\n"  # 2 invalid IOB2 chunks
    path = write(tmp_path, document * 3)
    message = f"{path}: 6 invalid chunks dropped by strict iob2 decoding"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stream = stream_conll(path, scheme="iob2", _block_bytes=8)
        documents = [next(stream.documents) for _ in range(3)]
        assert caught == [] and stream.notes == []  # not before the end of the file
        assert next(stream.documents, None) is None
    assert [(str(w.message), w.category) for w in caught] == [(message, SpanagreeWarning)]
    assert stream.notes == [message]
    assert [[(s.label, s.source.line) for s in d.spans] for d in documents] == [[("Y", 7)], [("Y", 15)], [("Y", 23)]]


def test_the_stream_reads_no_further_than_asked(tmp_path):
    first = "-DOCSTART- O\n\n" + "a B-X\nb I-X\n\n" * 6000
    second = "-DOCSTART- O\n\nc X-PER\n"
    assert len(first) > _BLOCK_BYTES  # so the two documents are in two blocks
    path = write(tmp_path, first + second)
    for block_bytes in (_BLOCK_BYTES, 64):
        stream = stream_conll(path, _block_bytes=block_bytes)
        document = next(stream.documents)  # the second document's bad tag is not read yet
        assert document.id == "1" and len(document.spans) == 6000
        with pytest.raises(FormatError, match=rf"f.conll:{first.count(chr(10)) + 3}: bad tag 'X-PER'"):
            next(stream.documents)


def test_stream_checks_options_and_path_when_made(tmp_path):
    path = write(tmp_path, "a O\n")
    for column in (0, 1, "1", True):
        with pytest.raises(UsageError, match="conll_column"):
            stream_conll(path, conll_column=column)
    with pytest.raises(UsageError, match="unknown tag scheme"):
        stream_conll(path, scheme="bieos")
    with pytest.raises(FormatError, match="missing.conll: no such file or folder"):
        stream_conll(tmp_path / "missing.conll")
    with pytest.raises(FormatError, match="is a folder; CoNLL is read from one file"):
        stream_conll(tmp_path)
    stream = open_stream(write(tmp_path, "a X-PER\n", "bad.conll"), "conll", scheme="iob2")
    assert (stream.name, stream.format, stream.notes) == ("bad", "conll", [])  # nothing read yet
    with pytest.raises(FormatError, match=r"bad.conll:1: tag 'X-PER'|bad.conll:1: bad tag 'X-PER'"):
        next(stream.documents)


def test_other_whitespace_is_every_space_but_the_four_columns_use():
    expected = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() and c not in " \t\r\n")
    assert _OTHER_WHITESPACE == expected


@pytest.mark.parametrize("content, message", [
    # A line of one column and one of three: as many separators as lines of two columns.
    ("a\tB-X\nb\nc\tI-X\tO\n", "f.conll:2: expected a token and a tag, got one column 'b'"),
    ("a B-X\nb\nc I-X O\n", "f.conll:2: expected a token and a tag, got one column 'b'"),
    # Leading, trailing and doubled separators: the right number per line, an empty column.
    ("a\tB-X\n\tI-X\n", "f.conll:2: expected a token and a tag, got one column 'I-X'"),
    ("a\tB-X\nb\t\n", "f.conll:2: expected a token and a tag, got one column 'b'"),
    ("a\tx\tB-X\nb\t\tI-X\n", None),
    # k = 3 with lines of 2 and 4 columns.
    ("a x B-X\nb I-X\nc x y O\n", None),
])
def test_lines_that_could_fool_a_count_take_the_general_path(tmp_path, content, message):
    padded = _read_outcome(write(tmp_path, "".join(line + " \t\n" for line in content.splitlines())))
    assert _read_outcome(write(tmp_path, content)) == padded
    if message is None:  # read by the general path, without error
        tokens = [line.split()[0] for line in content.splitlines()]
        assert read_conll(write(tmp_path, content)).texts() == {"1": " ".join(tokens)}
    else:
        with pytest.raises(FormatError, match=re.escape(message)):
            read_conll(write(tmp_path, content))


# ---------------------------------------------------------------- writing

def spanset(texts: dict, spans=()) -> SpanSet:
    return SpanSet.from_spans("w", [Span(d, ((s, e),), label) for d, s, e, label in spans], texts)


def test_write_layout(tmp_path):
    dest = tmp_path / "out.conll"
    write_conll(spanset({"1": "EU rejects German\nPeter Blackburn", "2": "Hi"},
                        [("1", 0, 2, "ORG"), ("1", 11, 17, "MISC"), ("1", 18, 33, "PER")]), dest)
    assert dest.read_text("utf-8") == (
        "-DOCSTART-\tO\n\nEU\tB-ORG\nrejects\tO\nGerman\tB-MISC\n\nPeter\tB-PER\nBlackburn\tI-PER\n\n"
        "-DOCSTART-\tO\n\nHi\tO\n\n")


@pytest.mark.parametrize("texts, spans, message", [
    ({"d7": None}, [], r"'d7' has no text"),
    ({"d7": "a\tb"}, [], r"'d7': its text has a tab"),
    ({"d7": "a  b"}, [], r"'d7': sentence 1 has an empty token"),
    ({"d7": "a\n\nb"}, [], r"'d7': sentence 2 has an empty token"),
    ({"d7": "-DOCSTART- x"}, [], r"'d7': sentence 1 starts with -DOCSTART-"),
    ({"d7": "New York"}, [("d7", 0, 2, "X")], r"'d7': span X 0 2 'Ne' does not begin and end on token"),
    ({"d7": "a b\nc"}, [("d7", 2, 5, "X")], r"'d7': span X 2 5 .* runs across sentences"),
    ({"d7": "a b c"}, [("d7", 0, 5, "X"), ("d7", 2, 3, "Y")], r"'d7': span Y 2 3 'b' is nested in X 0 5"),
    ({"d7": "a b c"}, [("d7", 0, 3, "X"), ("d7", 2, 5, "Y")], r"'d7': span Y 2 5 'b c' is crossing X 0 3"),
    ({"d7": "a b c"}, [("d7", 0, 1, "X"), ("d7", 0, 1, "X")], r"'d7': span X 0 1 'a' is nested in X 0 1"),
    ({"d7": "a b"}, [("d7", 0, 1, "two words")], r"'d7': span two words 0 1 'a' has a label"),
])
def test_write_refuses_naming_the_document(tmp_path, texts, spans, message):
    with pytest.raises(UsageError, match=message):
        write_conll(spanset(texts, spans), tmp_path / "out.conll")


def test_write_refuses_discontinuous_spans_and_io_adjacency(tmp_path):
    discontinuous = SpanSet.from_spans("w", [Span("d7", ((0, 1), (4, 5)), "X")], {"d7": "a b c"})
    with pytest.raises(UsageError, match=r"'d7': span X 0 1;4 5 .* is discontinuous"):
        write_conll(discontinuous, tmp_path / "out.conll")
    touching = spanset({"d7": "a b"}, [("d7", 0, 1, "X"), ("d7", 2, 3, "X")])
    with pytest.raises(UsageError, match=r"'d7', sentence 1: scheme io cannot separate"):
        write_conll(touching, tmp_path / "out.conll", scheme="io")
    with pytest.raises(UsageError, match="unknown tag scheme"):
        write_conll(touching, tmp_path / "out.conll", scheme="iob3")


# ---------------------------------------------------------------- write -> read round trips

# Any character but the four CoNLL separates columns and lines with (unicode beyond ASCII, NBSP,
# vertical tab, U+2028 ... included): tokens are what the reader leaves between spaces and tabs.
WORD = st.text(st.characters(blacklist_characters=" \t\r\n", blacklist_categories=("Cs",)), min_size=1,
               max_size=6).filter(lambda w: w != "-DOCSTART-")
LABEL = st.sampled_from(["PER", "LOC", "creative-work", "_", "Org\u00e9"])


@st.composite
def token_chunks(draw, length, adjacent_same_type=True):
    """Non-overlapping (start, end, label) token chunks over `length` tokens, in order."""
    chunks, i = [], 0
    while i < length:
        if draw(st.booleans()):
            end = draw(st.integers(i + 1, min(length, i + 4)))
            label = draw(LABEL)
            if adjacent_same_type or not (chunks and chunks[-1][1] == i and chunks[-1][2] == label):
                chunks.append((i, end, label))
            i = end
        else:
            i += 1
    return chunks


@st.composite
def conll_spansets(draw, adjacent_same_type=True):
    documents = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        doc_id = str(number)
        sentences = draw(st.lists(st.lists(WORD, min_size=1, max_size=6), max_size=4))
        text = "\n".join(" ".join(words) for words in sentences)
        offsets = token_offsets(text)
        spans = []
        for words, tokens in zip(sentences, offsets):
            for first, stop, label in draw(token_chunks(len(words), adjacent_same_type)):
                spans.append(Span(doc_id, ((tokens[first][0], tokens[stop - 1][1]),), label))
        documents.append(Document(doc_id, text, draw(st.permutations(spans))))
    return SpanSet.from_documents("gold", documents)


@pytest.mark.parametrize("scheme", WRITABLE)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.slow
def test_write_read_round_trip(tmp_path_factory, scheme, data):
    original = data.draw(conll_spansets(adjacent_same_type=scheme != "io"))
    dest = tmp_path_factory.mktemp("rt") / "gold.conll"
    write_conll(original, dest, scheme=scheme)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strict = read_conll(dest, scheme=scheme)
        lenient = read_conll(dest)
    assert strict == original and lenient == original
    assert strict.name == "gold"
    lines = dest.read_text("utf-8").split("\n")
    for span in strict:  # each source line holds the span's first token
        first_token = span.text(strict.documents[span.doc].text).split(" ")[0]
        assert lines[span.source.line - 1].split("\t")[0] == first_token


def test_convert_with_a_reader_only_option_does_not_reach_the_writer(tmp_path, capsys):
    """Regression: ``--conll-column`` was passed to ``write_conll`` (TypeError and a traceback)."""
    from spanagree.cli import main

    source = Path(__file__).resolve().parent.parent / "corpora" / "demo" / "conll" / "ann1.conll"
    out = tmp_path / "copy.conll"
    assert main(["convert", str(source), "--from", "conll", "--conll-column", "2", "--to", "conll",
                 "--out", str(out)]) == 0
    assert read_conll(out) == read_conll(source)
    assert "Traceback" not in capsys.readouterr().err
