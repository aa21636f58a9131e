"""BRAT standoff: exact offsets (CRLF, beyond the BMP, BOM), discontinuous spans, sub-folders, the
other line kinds, the text-column check, bad input naming file:line, and write -> read round trips."""

from __future__ import annotations

import os
import string
import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.formats import natural_key, read
from spanagree.formats.brat import read_brat, write_brat
from spanagree.span import Document, Relation, Span, SpanSet


def make(folder, files: dict[str, str | bytes]):
    """Write ``{relative path: content}`` under ``folder`` (str written as UTF-8, no newline translation)."""
    for relative, content in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
    return folder


def spans_of(spanset, doc_id=None):
    return [(s.doc, s.fragments, s.label) for s in spanset if doc_id is None or s.doc == doc_id]


def read_quietly(path, **kwargs):
    """Read and fail on any warning (the hand-built cases below are clean unless they say so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_brat(path, **kwargs)


# ---------------------------------------------------------------------------------------------
# Offsets


def test_crlf_counts_two_characters(tmp_path):
    # "Ana Ruiz\r\nmet\r\nBo Li."   Bo Li starts at 8 + 2 + 3 + 2 = 15
    #  0       8 10 13 15   20
    folder = make(tmp_path / "ann1", {
        "d.txt": "Ana Ruiz\r\nmet\r\nBo Li.",
        "d.ann": "T1\tPER 0 8\tAna Ruiz\nT2\tPER 15 20\tBo Li\n",
    })
    spanset = read_quietly(folder)
    document = spanset.documents["d"]
    assert document.text == "Ana Ruiz\r\nmet\r\nBo Li."
    assert spans_of(spanset) == [("d", ((0, 8),), "PER"), ("d", ((15, 20),), "PER")]
    assert [s.text(document.text) for s in document.spans] == ["Ana Ruiz", "Bo Li"]


def test_crlf_ann_file_is_read(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana met Bo", "d.ann": "T1\tPER 0 3\tAna\r\nT2\tPER 8 10\tBo\r\n"})
    assert spans_of(read_quietly(folder)) == [("d", ((0, 3),), "PER"), ("d", ((8, 10),), "PER")]


def test_characters_beyond_the_bmp_count_one(tmp_path):
    # "😀 Ana 🇵🇹 Porto": the emoji is 1 code point (4 UTF-8 bytes, 2 UTF-16 units); the flag is 2.
    text = "😀 Ana 🇵🇹 Porto"
    assert text.index("Ana") == 2 and text.index("Porto") == 9
    folder = make(tmp_path / "ann1", {"d.txt": text, "d.ann": "T1\tPER 2 5\tAna\nT2\tLOC 9 14\tPorto\nT3\tSYM 0 1\t😀\n"})
    spanset = read_quietly(folder)
    assert spans_of(spanset) == [("d", ((2, 5),), "PER"), ("d", ((9, 14),), "LOC"), ("d", ((0, 1),), "SYM")]


def test_byte_order_mark_is_a_character_of_the_text(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "\ufeffAna", "d.ann": "\ufeffT1\tPER 1 4\tAna\n"})
    spanset = read_quietly(folder)
    assert spanset.documents["d"].text == "\ufeffAna"
    assert spans_of(spanset) == [("d", ((1, 4),), "PER")]


# ---------------------------------------------------------------------------------------------
# Fragments


def test_discontinuous_span(tmp_path):
    # "fractures of the neck of the femur": fragments [0, 9) and [25, 34)
    text = "fractures of the neck of the femur"
    folder = make(tmp_path / "ann1", {"d.txt": text, "d.ann": "T1\tDISO 0 9;29 34\tfractures femur\n"})
    (span,) = read_quietly(folder)
    assert span.fragments == ((0, 9), (29, 34))
    assert span.is_discontinuous and span.start == 0 and span.end == 34 and span.length == 14


def test_fragments_given_out_of_order_are_sorted_and_the_text_column_follows_the_given_order(tmp_path):
    # as in QUAERO dev/EMEA/886_3.ann: "T32 DISO 1013 1033;995 1003 liés à la séparation troubles"
    text = "troubles graves liés"
    folder = make(tmp_path / "ann1", {"d.txt": text, "d.ann": "T1\tDISO 16 20;0 8\tliés troubles\n"})
    (span,) = read_quietly(folder)  # no warning: the column is the fragments in the given order
    assert span.fragments == ((0, 8), (16, 20))


def test_overlapping_fragments_are_merged_touching_ones_kept(tmp_path):
    text = "abcdefghijklmnop"
    folder = make(tmp_path / "ann1", {
        "d.txt": text,
        "d.ann": "T1\tX 0 5;3 8\tabcde defgh\nT2\tX 0 5;5 9\tabcde fghi\nT3\tX 0 2;4 6;8 10\tab ef ij\n",
    })
    spans = read_quietly(folder)
    assert [s.fragments for s in spans] == [((0, 8),), ((0, 5), (5, 9)), ((0, 2), (4, 6), (8, 10))]


# ---------------------------------------------------------------------------------------------
# Documents, names, sources


def test_nested_sub_folders_give_slash_ids_sorted(tmp_path):
    folder = make(tmp_path / "ann1", {
        "z.txt": "Zed", "z.ann": "T1\tPER 0 3\tZed\n",
        "sub/b.txt": "Bo", "sub/b.ann": "T1\tPER 0 2\tBo\n",
        "sub/deeper/a.txt": "Al", "sub/deeper/a.ann": "T1\tPER 0 2\tAl\n",
        "a.txt": "Ana", "a.ann": "T1\tPER 0 3\tAna\n",
        "annotation.conf": "[entities]\nPER\n",
    })
    spanset = read_quietly(folder)
    assert spanset.name == "ann1" and spanset.format == "brat"
    assert list(spanset.documents) == ["a", "sub/b", "sub/deeper/a", "z"]
    source = spanset.documents["sub/deeper/a"].spans[0].source
    assert source.path == os.path.join(str(folder), "sub", "deeper", "a.ann") and source.line == 1


def test_ids_of_one_shape_are_in_natural_order_as_others_are(tmp_path):
    # ids of one shape (digits at the same places): their order as strings is the natural order
    same = make(tmp_path / "same", {f"s1/d{n}.{ext}": "Ana" for n in ("07", "12", "03") for ext in ("txt", "ann")})
    mixed = make(tmp_path / "mixed", {f"{stem}.{ext}": "Ana" for stem in ("d7", "d12", "d3", "s1/d1")
                                      for ext in ("txt", "ann")})
    assert list(read_quietly(same).documents) == ["s1/d03", "s1/d07", "s1/d12"]
    assert list(read_quietly(mixed).documents) == ["d3", "d7", "d12", "s1/d1"]


@pytest.mark.parametrize("tail", ["", "\n", "#1\tAnnotatorNotes T1\tnote\n", "T3\tPER 0 3;4 7\tAna met\n"])
def test_a_file_of_plain_t_lines_reads_as_with_any_other_line(tmp_path, tail):
    # "T1 .. T2 .." is read by one regular expression (with or without a line end at its end); with
    # a blank line or any other line after them, line by line: the two spans and sources are the same
    ann = "T1\tPER 0 3\tAna\nT2\tPER 8 10\tBo\n" + tail
    folder = make(tmp_path / "ann1", {"d.txt": "Ana met Bo", "d.ann": ann if tail else ann[:-1]})
    spans = read_quietly(folder).documents["d"].spans
    assert [(s.fragments, s.label, s.source.line) for s in spans[:2]] == [(((0, 3),), "PER", 1), (((8, 10),), "PER", 2)]
    assert len(spans) == 2 + tail.startswith("T")


def test_sources_name_and_trailing_slash(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana met Bo", "d.ann": "\nT1\tPER 0 3\tAna\n\nT2\tPER 8 10\tBo\n"})
    spanset = read_quietly(str(folder) + os.sep)
    assert spanset.name == "ann1"
    assert [str(s.source) for s in spanset] == [f"{folder}{os.sep}d.ann:2", f"{folder}{os.sep}d.ann:4"]
    assert read_quietly(folder, name="first").name == "first"


def test_duplicates_are_kept(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Toledo", "d.ann": "T1\tLOC 0 6\tToledo\nT2\tLOC 0 6\tToledo\n"
                                                                 "T3\tPER 0 6\tToledo\n"})
    assert len(read_quietly(folder)) == 3


def test_txt_without_ann_is_an_empty_document_but_a_readme_is_not(tmp_path):
    folder = make(tmp_path / "corpus", {
        "README.txt": "About this corpus.",
        "part/a.txt": "Ana", "part/a.ann": "T1\tPER 0 3\tAna\n",
        "part/b.txt": "Nobody here.",
    })
    spanset = read_quietly(folder)
    assert list(spanset.documents) == ["part/a", "part/b"]
    assert spanset.documents["part/b"].spans == [] and spanset.documents["part/b"].text == "Nobody here."
    assert spanset.notes == ["1 .txt file without .ann in a folder with no annotations passed over "
                             "(not documents): README.txt"]


def test_a_single_ann_file(tmp_path):
    make(tmp_path, {"d.txt": "Ana", "d.ann": "T1\tPER 0 3\tAna\n"})
    spanset = read_quietly(tmp_path / "d.ann")
    assert spanset.name == "d" and spans_of(spanset) == [("d", ((0, 3),), "PER")]


def test_detected_through_the_registry(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana", "d.ann": "T1\tPER 0 3\tAna\n"})
    assert read(folder).format == "brat"


# ---------------------------------------------------------------------------------------------
# Other line kinds


ALL_KINDS = (
    "T1\tPER 0 3\tAna\n"
    "T2\tLOC 12 17\tPorto\n"
    "T3\tEVT 4 8\twent\n"
    "R1\tLives Arg1:T1 Arg2:T2\n"
    "R2\tVisits Arg1:T1 Arg2:T2\n"
    "E1\tTravel:T3 Agent:T1 Dest:T2\n"
    "A1\tNegation T1\n"
    "A2\tCertainty T2 High\n"
    "M1\tSpeculation E1\n"
    "N1\tReference T2 Wikipedia:2198\tPorto\n"
    "*\tAlias T1 T2\n"
    "#1\tAnnotatorNotes T1\tthe woman\twith a tab\n"
    "#2\tAnnotatorNotes R1\tabout a relation\n"
)


def test_other_lines_are_accepted_counted_and_kept_as_metadata(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana went to Porto", "d.ann": ALL_KINDS})
    spanset = read_quietly(folder)
    assert len(spanset) == 3
    assert spanset.notes == ["2 relations, 1 event read (compared with --relations)",
                             "3 attributes, 1 normalization read (those on a span compared with --attributes)",
                             "1 equivalence, 2 notes read and not compared"]
    ana, went, porto = sorted(spanset, key=Span.sort_key)
    assert ana.attributes == (("A:Negation", "True"), ("#:AnnotatorNotes", "the woman\twith a tab"))
    assert porto.attributes == (("A:Certainty", "High"), ("N:Reference", "Wikipedia:2198"))
    assert went.attributes == ()


def test_no_notes_when_there_are_only_t_lines(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana", "d.ann": "T1\tPER 0 3\tAna\n"})
    assert read_quietly(folder).notes == []


# ---------------------------------------------------------------------------------------------
# The text column


def test_text_column_mismatch_warns_once_per_file_naming_the_first_line(tmp_path):
    folder = make(tmp_path / "ann1", {
        "a.txt": "Ana met Bo Li in Porto",
        "a.ann": "T1\tPER 0 3\tAna\nT2\tPER 8 13\tBo\nT3\tLOC 17 22\tLisbon\nT4\tPER 8 10\tBo\n",
        "b.txt": "Ana", "b.ann": "T1\tPER 0 3\tAnna\n",
        "c.txt": "Ana", "c.ann": "T1\tPER 0 3\tAna\n",
    })
    with pytest.warns(SpanagreeWarning) as record:
        spanset = read_brat(folder)
    messages = [str(w.message) for w in record]
    assert messages == [
        f"{folder / 'a.ann'}:2: T2's text column 'Bo' differs from the text 'Bo Li' (1 more line like it in this file)",
        f"{folder / 'b.ann'}:1: T1's text column 'Anna' differs from the text 'Ana'",
    ]
    assert len(spanset) == 6  # the spans are read all the same


def test_text_column_is_tolerant_of_whitespace_and_may_be_absent(tmp_path):
    # brat writes a line break inside a span as a space; fragments are joined by one space
    folder = make(tmp_path / "ann1", {
        "d.txt": "New\r\nYork and\tthe Bronx",
        "d.ann": "T1\tLOC 0 9\tNew  York\nT2\tLOC 0 3;14 23\tNew the Bronx\nT3\tLOC 18 23\n",
    })
    spanset = read_quietly(folder)
    assert len(spanset) == 3


# ---------------------------------------------------------------------------------------------
# Bad input: one FormatError naming file and line


@pytest.mark.parametrize(
    "ann, line, message",
    [
        ("T1\tPER 0 3\tAna\nT4 PER x\n", 2, "expected 'T<id>\\t<label> <start> <end>', got 'T4 PER x'"),
        ("T1\tPER 0 x\tAna\n", 1, "expected 'T<id>\\t<label> <start> <end>', got 'T1\\tPER 0 x\\tAna'"),
        ("T1\tPER 0\tAna\n", 1, "expected 'T<id>\\t<label> <start> <end>'"),
        ("T1\tPER 0 3;5\tAna\n", 1, "expected 'T<id>\\t<label> <start> <end>'"),
        ("T1\t 0 3\tAna\n", 1, "expected 'T<id>\\t<label> <start> <end>'"),
        ("\n\nT1\tPER 3 3\t\n", 3, "T1: [3, 3) is empty or reversed"),
        ("T1\tPER 5 2\tx\n", 1, "T1: [5, 2) is empty or reversed"),
        ("T1\tPER -1 2\tx\n", 1, "T1: offset -1 is negative"),
        ("T1\tPER 0 3\tAna\nT2\tPER 8 99\tBo\n", 2, "T2: [8, 99) ends beyond the text: d.txt has 10 characters"),
        ("T1\tPER 0 3;8 11\tAna Bo\n", 1, "T1: [8, 11) ends beyond the text"),
        ("T1\tPER 0 3\tAna\nX1\tsomething\n", 2, "unknown annotation line"),
    ],
)
def test_malformed_ann_lines(tmp_path, ann, line, message):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana met Bo", "d.ann": ann})
    with pytest.raises(FormatError) as error:
        read_brat(folder)
    assert str(error.value).startswith(f"{folder / 'd.ann'}:{line}: ")
    assert message in str(error.value)
    assert error.value.line == line


def test_non_utf8_ann_names_file_and_line(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana", "d.ann": b"T1\tPER 0 3\tAna\nT2\tPER 0 3\tAn\xe9\n"})
    with pytest.raises(FormatError, match=r"d\.ann:2: not UTF-8 \(byte 0xe9"):
        read_brat(folder)


def test_non_utf8_txt_names_file_and_line(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": b"Ana\nJos\xe9\n", "d.ann": "T1\tPER 0 3\tAna\n"})
    with pytest.raises(FormatError) as error:
        read_brat(folder)
    assert str(error.value).startswith(f"{folder / 'd.txt'}:2: not UTF-8")


def test_ann_without_txt_names_the_ann(tmp_path):
    folder = make(tmp_path / "ann1", {"a.txt": "Ana", "a.ann": "", "sub/d.ann": "T1\tPER 0 5\tAna R\n"})
    with pytest.raises(FormatError) as error:
        read_brat(folder)
    assert str(error.value) == f"{folder / 'sub' / 'd.ann'}: no text: d.txt is missing next to it"


def test_several_ann_without_txt_name_the_first_in_sorted_order(tmp_path):
    """Regression: the missing .txt was picked from a set, so the file named changed from run to run."""
    folder = make(tmp_path / "ann1", {f"{stem}.ann": "" for stem in ("e", "b", "d", "a", "c")})
    with pytest.raises(FormatError) as error:
        read_brat(folder)
    assert str(error.value) == f"{folder / 'a.ann'}: no text: a.txt is missing next to it"


def test_single_ann_without_txt(tmp_path):
    make(tmp_path, {"d.ann": "T1\tPER 0 5\tAna R\n"})
    with pytest.raises(FormatError, match=r"d\.ann: no text: d\.txt is missing"):
        read_brat(tmp_path / "d.ann")


@pytest.mark.parametrize("files", [{}, {"a.txt": "Ana"}, {"notes.md": "x", "sub/b.txt": "Bo"}])
def test_empty_folder(tmp_path, files):
    folder = make(tmp_path / "ann1", files)
    folder.mkdir(exist_ok=True)
    with pytest.raises(FormatError, match=r"ann1: empty folder"):
        read_brat(folder)


def test_missing_path(tmp_path):
    with pytest.raises(FormatError, match=r"nowhere: no such file or folder"):
        read_brat(tmp_path / "nowhere")


@pytest.mark.parametrize("files, where, message", [
    ({"d.txt": "Ana met Bo", "d.ann": "T1\tPER 0 3\tAna\nT4 PER x\n"}, "d.ann:2", "expected 'T<id>"),
    ({"d.txt": "Ana met Bo", "d.ann": "T1\tPER 8 99\tBo\n"}, "d.ann:1", "T1: [8, 99) ends beyond the text"),
    ({"d.txt": "Ana", "d.ann": b"T1\tPER 0 3\tAna\nT2\tPER 0 3\tAn\xe9\n"}, "d.ann:2", "not UTF-8 (byte 0xe9"),
    ({"d.txt": b"Jos\xe9", "d.ann": ""}, "d.txt:1", "not UTF-8"),
    ({"sub/d.ann": "T1\tPER 0 3\tAna\n"}, "sub/d.ann", "no text: d.txt is missing next to it"),
    ({"a.txt": "no annotations"}, "ann1", "empty folder"),
    (None, "nowhere", "no such file or folder"),
])
def test_bad_input_from_the_command_line_exits_1(tmp_path, capsys, files, where, message):
    from spanagree.cli import main

    folder = make(tmp_path / "ann1", files) if files is not None else tmp_path / "nowhere"
    out = tmp_path / "out.jsonl"
    code = main(["convert", str(folder), "--from", "brat", "--to", "jsonl", "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 1
    place = folder if where in ("ann1", "nowhere") else folder / where.split(":")[0]
    line = f":{where.split(':')[1]}" if ":" in where else ""
    assert err.startswith(f"spanagree: error: {place}{line}: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and stdout == ""
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# Writing


def test_write_numbers_spans_in_canonical_order_and_flattens_the_text_column(tmp_path):
    text = "Ana\tRuiz\r\nmet Bo"
    spanset = SpanSet.from_spans("ann1", [
        Span("sub/d", (11, 16), "PER"),
        Span("sub/d", ((0, 3), (4, 8)), "PER"),
        Span("sub/d", (0, 8), "PER"),
        Span("sub/d", (0, 8), "NAME"),
    ], {"sub/d": text, "empty": ""})
    write_brat(spanset, tmp_path / "out")
    assert (tmp_path / "out" / "sub" / "d.txt").read_bytes() == text.encode("utf-8")
    assert (tmp_path / "out" / "sub" / "d.ann").read_text(encoding="utf-8").split("\n") == [
        "T1\tPER 0 3;4 8\tAna Ruiz",
        "T2\tNAME 0 8\tAna Ruiz",
        "T3\tPER 0 8\tAna Ruiz",
        "T4\tPER 11 16\tet Bo",
        "",
    ]
    assert (tmp_path / "out" / "empty.ann").read_text() == ""
    assert read_quietly(tmp_path / "out") == spanset


def test_write_attributes_back(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana went to Porto", "d.ann": ALL_KINDS})
    spanset = read_quietly(folder)
    write_brat(spanset, tmp_path / "out")
    again = read_quietly(tmp_path / "out")
    assert again == spanset
    assert sorted(s.attributes for s in again) == sorted(s.attributes for s in spanset)
    # only what points at a T line is kept (M1 was on E1, #2 on R1)
    assert again.notes == ["2 relations, 1 event read (compared with --relations)",
                           "2 attributes, 1 normalization read (those on a span compared with --attributes)",
                           "1 note read and not compared"]


@pytest.mark.parametrize(
    "document, message",
    [
        (Document("d1", None, [Span("d1", (0, 3), "PER")]), "document 'd1' has no text"),
        (Document("d1", "Ana", [Span("d1", (0, 3), "A PER")]), "document 'd1': label 'A PER' has whitespace"),
        (Document("d1", "Ana", [Span("d1", (0, 9), "PER")]), "document 'd1': span ((0, 9),) PER ends beyond"),
        (Document("../d1", "Ana"), "document id '../d1' cannot be a BRAT file path"),
        (Document("a//b", "Ana"), "document id 'a//b' cannot be a BRAT file path"),
    ],
)
def test_write_refusals_name_the_document_and_write_nothing(tmp_path, document, message):
    spanset = SpanSet.from_documents("ann1", [Document("ok", "fine"), document])
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        write_brat(spanset, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# Property: write -> read gives back an equal SpanSet


NON_BMP = "😀🇵🇹𝄞𠜎"
text_strategy = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
        st.sampled_from(["\r\n", "\n", "\r", " ", "\t", "\ufeff", "\u2028", "\x85"] + list(NON_BMP)),
    ),
    max_size=8,
).map("".join)
label_strategy = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6
).filter(lambda label: label.split() == [label])
doc_id_strategy = st.lists(
    st.text(alphabet=string.ascii_lowercase + string.digits + "-_é", min_size=1, max_size=4), min_size=1, max_size=3
).map("/".join).filter(lambda i: all(p not in (".", "..") for p in i.split("/")))


@st.composite
def fragments_in(draw, n):
    """1-3 sorted, non-overlapping fragments (touching allowed) inside [0, n); n >= 1."""
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=2, max_size=6)))
    pairs = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2) if cuts[i] < cuts[i + 1]]
    if not pairs:
        start = draw(st.integers(0, n - 1))
        pairs = [(start, draw(st.integers(start + 1, n)))]
    return tuple(pairs)


@st.composite
def spansets(draw, texts_required=True):
    ids = draw(st.lists(doc_id_strategy, min_size=1, max_size=4, unique=True))
    spans, texts = [], {}
    for doc_id in ids:
        text = draw(text_strategy)
        texts[doc_id] = text
        if text:
            for _ in range(draw(st.integers(0, 6))):
                fragments = draw(fragments_in(len(text)))
                spans.append(Span(doc_id, fragments, draw(label_strategy)))
                if draw(st.booleans()):  # duplicates, nested and overlapping spans over the same stretch
                    spans.append(Span(doc_id, draw(st.sampled_from([fragments, (fragments[0],)])),
                                      draw(label_strategy)))
    return SpanSet.from_spans("gen", spans, texts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spansets())
@pytest.mark.slow
def test_write_read_round_trip(spanset):
    with tempfile.TemporaryDirectory() as tmp:
        write_brat(spanset, os.path.join(tmp, "out"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the text column the writer wrote must agree with the text
            back = read_brat(os.path.join(tmp, "out"))
    assert back == spanset
    assert list(back.documents) == sorted(spanset.documents, key=natural_key)  # natural order
    assert len(back) == len(spanset)


# ---------------------------------------------------------------------------------------------
# Relations and events


RELATIONS = (
    "T1\tPER 0 3\tAna\n"
    "T2\tLOC 12 17\tPorto\n"
    "T3\tEVT 4 8\twent\n"
    "R1\tLives Arg1:T1 Arg2:T2\t\n"      # a trailing tab
    "R2\tSelf Arg1:T1 Arg2:T1\n"         # one span as both arguments
    "E1\tTravel:T3 Agent:T1 Dest:T2 Cause:E2\n"  # E2 is defined after it: given by its trigger
    "E2\tStart:T3\n"
    "R3\tAfter Arg1:E1 Arg2:T2\n"
)


def test_relations_and_events_are_kept(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana went to Porto", "d.ann": RELATIONS})
    spanset = read_quietly(folder)
    ana, went = Span("d", 0, 3, "PER"), Span("d", 4, 8, "EVT")
    porto = Span("d", 12, 17, "LOC")
    relations = spanset.documents["d"].relations
    assert relations == [
        Relation("Lives", (("Arg1", ana), ("Arg2", porto))),
        Relation("Self", (("Arg1", ana), ("Arg2", ana))),
        Relation("Travel", (("Agent", ana), ("Dest", porto), ("Cause", went)), trigger=went),
        Relation("Start", (), trigger=went),
        Relation("After", (("Arg1", went), ("Arg2", porto))),
    ]
    assert [str(r.source) for r in relations] == [f"{folder / 'd.ann'}:{n}" for n in (4, 5, 6, 7, 8)]
    assert spanset.notes == ["3 relations, 2 events read (compared with --relations)"]


@pytest.mark.parametrize("line, message", [
    ("R1\tLives Arg1:T1 Arg2:T9", "d.ann:2: R1: Arg2 names T9, which no T or E line of this file defines"),
    ("E1\tTravel:T9 Agent:T1", "d.ann:2: E1: its trigger T9 is no T line of this file"),
    ("E1\tTravel:T1 Agent:E7", "d.ann:2: E1: Agent names E7, which no T or E line of this file defines"),
    ("R1\tLives", "d.ann:2: expected 'R<id>\\t<type> Arg1:<id> Arg2:<id>', got 'R1\\tLives'"),
    ("R1\tLives Arg1T1", "d.ann:2: expected 'R<id>\\t<type> Arg1:<id> Arg2:<id>', got 'R1\\tLives Arg1T1'"),
    ("E1", "d.ann:2: expected 'E<id>\\t<type>:<trigger id> <role>:<id> ...', got 'E1'"),
])
def test_a_relation_naming_an_unknown_id_is_one_error_line(tmp_path, line, message):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana", "d.ann": f"T1\tPER 0 3\tAna\n{line}\n"})
    with pytest.raises(FormatError) as error:
        read_quietly(folder)
    assert str(error.value).endswith(message) and "\n" not in str(error.value)


def test_relations_round_trip_with_the_t_ids_written(tmp_path):
    folder = make(tmp_path / "ann1", {"d.txt": "Ana went to Porto", "d.ann": RELATIONS})
    spanset = read_quietly(folder)
    write_brat(spanset, tmp_path / "out")
    assert (tmp_path / "out" / "d.ann").read_text().splitlines() == [
        "T1\tPER 0 3\tAna", "T2\tEVT 4 8\twent", "T3\tLOC 12 17\tPorto",
        "R1\tSelf Arg1:T1 Arg2:T1", "R2\tLives Arg1:T1 Arg2:T3", "R3\tAfter Arg1:T2 Arg2:T3",
        "E1\tStart:T2", "E2\tTravel:T2 Agent:T1 Dest:T3 Cause:T2"]
    again = read_quietly(tmp_path / "out")
    assert again == spanset
    assert sorted(again.documents["d"].relations, key=Relation.sort_key) == sorted(
        spanset.documents["d"].relations, key=Relation.sort_key)
    different = read_quietly(folder)
    different.documents["d"].relations.pop()
    assert different != spanset  # the equality the round trip relies on sees relations


def test_writing_relations_where_the_format_cannot_hold_them_says_so(tmp_path):
    from spanagree.formats import write

    spanset = read_quietly(make(tmp_path / "ann1", {"d.txt": "Ana went to Porto", "d.ann": RELATIONS}))
    with pytest.warns(SpanagreeWarning, match=r"^XML output: not written: 3 relations, 2 events$"):
        write(spanset, tmp_path / "d.xml", "xml")
    with pytest.warns(SpanagreeWarning, match=r"^Label Studio output: not written: 2 events \(Label Studio holds "
                                              r"relations Arg1 → Arg2 only\)$"):  # its three relations are written
        write(spanset, tmp_path / "d.json", "labelstudio")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(spanset, tmp_path / "again", "brat")


def test_a_relation_whose_span_the_document_lacks_is_announced_not_written(tmp_path):
    from spanagree.formats import write

    ana, bo = Span("d", 0, 3, "PER"), Span("d", 8, 10, "PER")
    spanset = SpanSet.from_spans("a", [ana], {"d": "Ana met Bo"})
    spanset.documents["d"].relations = [Relation("Knows", (("Arg1", ana), ("Arg2", bo)))]
    with pytest.warns(SpanagreeWarning, match="1 relation or event naming spans their documents do not hold"):
        write(spanset, tmp_path / "out", "brat")
    assert (tmp_path / "out" / "d.ann").read_text() == "T1\tPER 0 3\tAna\n"


def test_annotation_conf_declares_the_symmetric_relation_types(tmp_path):
    from spanagree.formats import FORMATS
    from spanagree.formats.brat import symmetric_relation_types

    folder = make(tmp_path / "ann1", {
        "d.txt": "Ana", "d.ann": "T1\tPER 0 3\tAna\n",
        "annotation.conf": "# a comment\n[entities]\nPER\n[relations]\n"
                           "Alias Arg1:PER, Arg2:PER, <REL-TYPE>:symmetric-transitive\n"
                           "Sibling\tArg1:PER, Arg2:PER, <REL-TYPE>:symmetric\n"
                           "Before Arg1:PER, Arg2:PER, <REL-TYPE>:transitive\n"
                           "Lives Arg1:PER, Arg2:LOC\n"
                           "<OVERLAP> Arg1:<ENTITY>, Arg2:<ENTITY>, <OVL-TYPE>:<ANY>\n"
                           "[events]\nTravel Agent:PER, <REL-TYPE>:symmetric\n",
        "sub/annotation.conf": "[relations]\nFriend Arg1:PER, Arg2:PER, <REL-TYPE>:symmetric\n"})
    assert symmetric_relation_types(folder) == {"Alias", "Sibling", "Friend"}
    assert FORMATS["brat"].symmetric_relations(folder) == {"Alias", "Sibling", "Friend"}
    assert FORMATS["conll"].symmetric_relations(folder) == frozenset()
    assert symmetric_relation_types(tmp_path / "nothing") == frozenset()


@st.composite
def spansets_with_relations(draw):
    """:func:`spansets` whose documents have relations and events between their spans."""
    spanset = draw(spansets())
    names = st.text(alphabet=string.ascii_letters + "_-|", min_size=1, max_size=5)
    for document in spanset.documents.values():
        if not document.spans:
            continue
        span = st.sampled_from(document.spans)
        for _ in range(draw(st.integers(0, 4))):
            arguments = tuple(draw(st.lists(st.tuples(st.sampled_from(["Arg1", "Arg2", "Theme", "Site2"]), span),
                                            max_size=3)))
            trigger = draw(st.one_of(st.none(), span))
            if trigger is None and not arguments:
                continue
            document.relations.append(Relation(draw(names), arguments, trigger))
    return spanset


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spansets_with_relations())
def test_relations_write_read_round_trip(spanset):
    with tempfile.TemporaryDirectory() as tmp:
        write_brat(spanset, os.path.join(tmp, "out"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            back = read_brat(os.path.join(tmp, "out"))
    assert back == spanset  # relations compared as multisets
    assert sum(len(d.relations) for d in back.documents.values()) == sum(
        len(d.relations) for d in spanset.documents.values())
