"""JSON lines: the spaCy/Prodigy shape, doccano's two shapes, ids, unknown texts, bad input naming
file:line, the stream (lazy, line by line), the writer's exact output, and write -> read round trips."""

from __future__ import annotations

import json
import os
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spanagree.errors import FormatError, UsageError
from spanagree.formats import DocumentStream, open_stream, read
from spanagree.formats.jsonl import read_jsonl, stream_jsonl, write_jsonl
from spanagree.span import Span, SpanSet

from conftest import DEMO
from test_brat import fragments_in  # the same fragment strategy for every format's round trip

TEXT = "Ana Ruiz met Bo Li in Porto ."


def write_lines(path, *lines):
    path.write_bytes("".join(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) + "\n"
                             for line in lines).encode("utf-8"))
    return path


def spans_of(spanset):
    return [(s.doc, s.fragments, s.label) for s in spanset]


def test_prodigy_shape_with_extra_keys(tmp_path):
    path = write_lines(tmp_path / "ann1.jsonl", {
        "id": "d1", "text": TEXT, "meta": {"source": "x"}, "_input_hash": 12, "answer": "accept",
        "spans": [{"start": 0, "end": 8, "label": "PER", "token_start": 0, "token_end": 1},
                  {"start": 22, "end": 27, "label": "LOC", "text": "Porto"}],
        "tokens": [{"text": "Ana", "start": 0, "end": 3, "id": 0}],
    })
    spanset = read_jsonl(path)
    assert spanset.name == "ann1" and spanset.format == "jsonl"
    assert spans_of(spanset) == [("d1", ((0, 8),), "PER"), ("d1", ((22, 27),), "LOC")]
    assert spanset.documents["d1"].text == TEXT
    assert [str(s.source) for s in spanset] == [f"{path}:1", f"{path}:1"]


def test_doccano_label_and_entities_shapes(tmp_path):
    path = write_lines(
        tmp_path / "doccano.jsonl",
        {"id": 7, "text": TEXT, "label": [[0, 8, "PER"], [13, 18, "PER"]]},
        {"id": 8, "text": TEXT, "entities": [{"id": 1, "start_offset": 22, "end_offset": 27, "label": "LOC"}],
         "relations": []},
    )
    spanset = read_jsonl(path)
    assert list(spanset.documents) == ["7", "8"]
    assert spans_of(spanset) == [("7", ((0, 8),), "PER"), ("7", ((13, 18),), "PER"), ("8", ((22, 27),), "LOC")]


def test_ids_default_to_line_numbers_blank_lines_counted_and_skipped(tmp_path):
    path = write_lines(
        tmp_path / "a.jsonl",
        {"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER"}]},
        "\n",
        "   \n",
        {"text": "Bo", "spans": []},
        {"text": "nothing annotated"},
    )
    spanset = read_jsonl(path)
    assert list(spanset.documents) == ["1", "4", "5"]
    assert spanset.documents["5"].spans == []


def test_crlf_lines_bom_unicode_and_texts_kept_exactly(tmp_path):
    # offsets count code points: "😀" is one, and the text's own "\r\n" is two
    text = "😀 Ana\r\nBo"
    line = json.dumps({"id": "d", "text": text, "spans": [{"start": 2, "end": 5, "label": "PER"},
                                                        {"start": 7, "end": 9, "label": "PER"}]},
                      ensure_ascii=False)
    path = tmp_path / "a.jsonl"
    path.write_bytes(("\ufeff" + line + "\r\n").encode("utf-8"))
    spanset = read_jsonl(path)
    assert spanset.documents["d"].text == text
    assert [s.text(text) for s in spanset] == ["Ana", "Bo"]


def test_discontinuous_spans(tmp_path):
    text = "fractures of the neck of the femur"
    path = write_lines(tmp_path / "a.jsonl", {"id": "d", "text": text, "spans": [
        {"start": 0, "end": 34, "label": "DISO", "fragments": [[0, 9], [29, 34]]},
        {"label": "DISO", "fragments": [[29, 34], [0, 9]]},        # out of order, no start/end: sorted
        {"start": 0, "end": 12, "label": "X", "fragments": [[0, 9], [5, 12]]},  # overlapping: merged
    ]})
    assert [s.fragments for s in read_jsonl(path)] == [((0, 9), (29, 34)), ((0, 9), (29, 34)), ((0, 12),)]


def test_text_null_is_an_unknown_text(tmp_path):
    path = write_lines(tmp_path / "a.jsonl", {"id": "d", "text": None, "spans": [{"start": 5, "end": 900,
                                                                                  "label": "X"}]})
    spanset = read_jsonl(path)
    assert spanset.documents["d"].text is None and spans_of(spanset) == [("d", ((5, 900),), "X")]


def test_detected_through_the_registry(tmp_path):
    path = write_lines(tmp_path / "a.jsonl", {"id": "d", "text": "Ana", "spans": []})
    assert read(path).format == "jsonl"


@pytest.mark.parametrize(
    "lines, line, message",
    [
        (['{"id": "a", "text": "x"}\n', '{"id": "b", "text": \n'], 2, "invalid JSON"),
        (['["x"]\n'], 1, 'expected a JSON object {"id", "text", "spans"}, got list'),
        (['{"id": "a", "spans": []}\n'], 1, 'the record has no "text"'),
        (['{"id": "a", "text": 5}\n'], 1, '"text" must be a string or null'),
        (['{"id": [1], "text": "x"}\n'], 1, '"id" must be a string or an integer'),
        (['{"id": "a", "text": "x"}\n', "\n", '{"id": "a", "text": "y"}\n'], 3,
         "document id 'a' appears twice (first at line 1)"),
        (['{"text": "x"}\n', '{"id": "1", "text": "y"}\n'], 2, "document id '1' appears twice"),
        (['{"text": "Ana", "spans": [{"start": 0, "end": 3}]}\n'], 1, "span 1: no label"),
        (['{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": ""}]}\n'], 1, "span 1: no label"),
        (['{"text": "Ana", "spans": [{"start": 0, "end": 1, "label": "X"}, {"start": 0, "end": 9, '
          '"label": "X"}]}\n'], 1, "span 2: [0, 9) ends beyond the text (3 characters)"),
        (['{"text": "Ana", "spans": [{"start": 2, "end": 2, "label": "X"}]}\n'], 1, "span 1: [2, 2) is empty"),
        (['{"text": "Ana", "spans": [{"start": 2, "end": 1, "label": "X"}]}\n'], 1, "span 1: [2, 1) is empty"),
        (['{"text": "Ana", "spans": [{"start": -1, "end": 1, "label": "X"}]}\n'], 1, "offset -1 is negative"),
        (['{"text": "Ana", "spans": [{"start": "0", "end": 1, "label": "X"}]}\n'], 1,
         'span 1: "start" and "end" must be integers'),
        (['{"text": "Ana", "spans": [{"start": 0.0, "end": 1, "label": "X"}]}\n'], 1, "must be integers"),
        (['{"text": "Ana", "spans": [{"label": "X"}]}\n'], 1, "must be integers"),
        (['{"text": "Ana", "spans": {"start": 0}}\n'], 1, '"spans" must be a list'),
        (['{"text": "Ana", "spans": [[0, 1, "X"]]}\n'], 1, 'span 1: expected {"start", "end", "label"}'),
        (['{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "X", "fragments": [[0, 1], [2]]}]}\n'], 1,
         "span 1: a fragment is [start, end]"),
        (['{"text": "Ana", "spans": [{"start": 0, "end": 2, "label": "X", "fragments": [[0, 1], [2, 3]]}]}\n'],
         1, 'span 1: "start" and "end" (0, 2) must be the hull'),
        (['{"text": "Ana", "label": [[0, 1]]}\n'], 1, "label 1: expected [start, end, label]"),
        (['{"text": "Ana", "label": ["positive"]}\n'], 1, "label 1: expected [start, end, label]"),
        (['{"text": "Ana", "label": [[0, 9, "X"]]}\n'], 1, "span 1: [0, 9) ends beyond the text"),
        (['{"text": "Ana", "entities": [{"start_offset": 0, "label": "X"}]}\n'], 1,
         '"start_offset" and "end_offset" must be integers'),
        ([], None, "empty file"),
        (["\n", "  \n"], None, "empty file"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, lines, line, message):
    path = write_lines(tmp_path / "bad.jsonl", *lines)
    with pytest.raises(FormatError) as error:
        read_jsonl(path)
    where = f"{path}:{line}: " if line else f"{path}: "
    assert str(error.value).startswith(where)
    assert message in str(error.value)


def test_non_utf8_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x"}\n{"id": "b", "text": "Jos\xe9"}\n')
    with pytest.raises(FormatError, match=r"bad\.jsonl:2: not UTF-8 \(byte 0xe9\)"):
        read_jsonl(path)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FormatError, match=r"nowhere\.jsonl: no such file"):
        read_jsonl(tmp_path / "nowhere.jsonl")
    with pytest.raises(FormatError, match=r"is a folder"):
        read_jsonl(tmp_path)


@pytest.mark.parametrize("content, where, message", [
    ('{"id": "a", "text": "x"}\n{"id": "b", "text": \n', "bad.jsonl:2", "invalid JSON"),
    ('{"text": "Ana", "spans": [{"start": 0, "end": 9, "label": "X"}]}\n', "bad.jsonl:1",
     "span 1: [0, 9) ends beyond the text (3 characters)"),
    ('{"text": "Ana", "spans": [{"start": 0, "end": 2}]}\n', "bad.jsonl:1", "span 1: no label"),
    (b'{"id": "a", "text": "x"}\n{"id": "b", "text": "Jos\xe9"}\n', "bad.jsonl:2", "not UTF-8 (byte 0xe9)"),
    ("\n", "bad.jsonl", "empty file"),
    (None, "missing.jsonl", "no such file or folder"),
])
def test_bad_input_from_the_command_line_exits_1(tmp_path, capsys, content, where, message):
    from spanagree.cli import main

    path = tmp_path / where.split(":")[0]
    if content is not None:
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    out = tmp_path / "out.xml"
    code = main(["convert", str(path), "--from", "jsonl", "--to", "xml", "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 1
    assert err.startswith(f"spanagree: error: {tmp_path / where}: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and stdout == ""
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# The stream: documents one line at a time, errors when their line is read


def documents_of(documents):
    """Everything a reader gives of its documents, sources included (spans compare without them)."""
    return [(d.id, d.text, d.source, [(s.doc, s.fragments, s.label, str(s.source), s.attributes) for s in d.spans])
            for d in documents]


@pytest.mark.parametrize("annotator, spans_per_document", [
    ("ann1", [8, 6, 6, 9, 7, 9, 9, 5, 6, 10]),
    ("ann2", [7, 7, 5, 9, 7, 9, 9, 5, 6, 9]),
    ("ann3", [8, 6, 6, 9, 6, 9, 9, 4, 5, 11]),
])
def test_stream_of_the_demo_files_is_each_line_as_json_reads_it(annotator, spans_per_document):
    path = DEMO / "jsonl" / f"{annotator}.jsonl"
    stream = stream_jsonl(path)
    assert isinstance(stream, DocumentStream)
    assert (stream.name, stream.format, stream.notes) == (annotator, "jsonl", [])
    streamed = documents_of(stream.documents)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert streamed == [
        (r["id"], r["text"], str(path),
         [(r["id"], ((e["start"], e["end"]),), e["label"], f"{path}:{n}", ()) for e in r["spans"]])
        for n, r in enumerate(records, 1)
    ]
    assert [len(spans) for *_, spans in streamed] == spans_per_document
    assert streamed == documents_of(read_jsonl(path).documents.values())
    assert stream.notes == []


def test_stream_is_lazy_an_error_comes_with_its_line(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", {"id": "a", "text": "Ana", "spans": [{"start": 0, "end": 3,
                                                                                    "label": "PER"}]},
                       {"id": "b", "text": "Bo"}, '{"id": "c", "text": \n', {"id": "d", "text": "never"})
    documents = stream_jsonl(path).documents
    first = next(documents)  # line 3 not read yet
    assert first.id == "a" and [str(s.source) for s in first.spans] == [f"{path}:1"]
    assert next(documents).id == "b"
    with pytest.raises(FormatError) as error:
        next(documents)
    # the line's own column (21), as without the line's "\n" (which JSON would count as column 1 of line 2)
    assert str(error.value) == f"{path}:3: invalid JSON: Expecting value (column 21)"


@pytest.mark.parametrize("line, message", [
    ('{"id": "c", "text": \n', "Expecting value (column 21)"),
    ('{"id": "c", "text": \r\n', "Expecting value (column 22)"),
    ('{"id": "c", "text": "abc\n', "Unterminated string starting at (column 21)"),  # not: "\n" inside it
    ('{"id": "c", "text": "abc', "Unterminated string starting at (column 21)"),  # last line, no "\n"
    ('{"id": "c"} {}\n', "Extra data (column 13)"),
])
def test_invalid_json_is_reported_as_on_the_line_without_its_newline(tmp_path, line, message):
    path = write_lines(tmp_path / "bad.jsonl", {"id": "a", "text": "x"}, line)
    with pytest.raises(FormatError) as error:
        list(stream_jsonl(path).documents)
    assert str(error.value) == f"{path}:2: invalid JSON: {message}"


def test_bad_utf8_on_a_later_line_names_that_line_after_the_documents_before_it(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x"}\n\n{"id": "b", "text": "Jos\xc3\xa9"}\n'
                     b'{"id": "c", "text": "Jos\xe9"}\n{"id": "d", "text": "x"}\n')
    documents = stream_jsonl(path).documents
    assert [next(documents).text, next(documents).text] == ["x", "José"]
    with pytest.raises(FormatError) as error:
        next(documents)
    assert str(error.value) == f"{path}:4: not UTF-8 (byte 0xe9)"


def test_of_two_errors_the_first_in_the_file_is_reported(tmp_path):
    # invalid JSON on line 2, a bad byte on line 3: line 2 (the whole file is no longer decoded first)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x"}\n{"id": \n{"id": "c", "text": "Jos\xe9"}\n')
    with pytest.raises(FormatError, match=r"bad\.jsonl:2: invalid JSON"):
        read_jsonl(path)


def test_stream_crlf_lines_keep_their_numbers_and_texts(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"text": "Ana\\r\\nBo", "spans": [{"start": 5, "end": 7, "label": "PER"}]}\r\n'
                     b'\r\n'
                     b'{"id": "x", "text": "Bo"}\r\n'
                     b'{"text": "Li", "label": [[0, 2, "PER"]]}')
    assert documents_of(stream_jsonl(path).documents) == [
        ("1", "Ana\r\nBo", str(path), [("1", ((5, 7),), "PER", f"{path}:1", ())]),
        ("x", "Bo", str(path), []),
        ("4", "Li", str(path), [("4", ((0, 2),), "PER", f"{path}:4", ())]),
    ]


def test_stream_skips_one_bom_at_the_start_only(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes("\ufeff\n".encode("utf-8") + b'{"text": "Ana"}\n')
    assert [d.id for d in stream_jsonl(path).documents] == ["2"]  # the BOM's line is blank and counted
    path.write_bytes(b'{"text": "Ana"}\n' + '\ufeff{"text": "Bo"}\n'.encode("utf-8"))
    with pytest.raises(FormatError, match=r"a\.jsonl:2: invalid JSON: Unexpected UTF-8 BOM"):
        list(stream_jsonl(path).documents)
    path.write_bytes("\ufeff".encode("utf-8"))
    with pytest.raises(FormatError, match=r"a\.jsonl: empty file"):
        list(stream_jsonl(path).documents)


def test_stream_skips_blank_lines_of_any_white_space_and_counts_them(tmp_path):
    path = write_lines(tmp_path / "a.jsonl", "\n", " \t\r\n", {"text": "Ana"}, "\u2028\n", "\x85\x1c\u3000\n",
                       {"text": "Bo"}, "   ")
    assert [d.id for d in stream_jsonl(path).documents] == ["3", "6"]


def test_stream_finds_an_id_seen_twice_lines_apart(tmp_path):
    records = [{"id": f"d{i}", "text": "x"} for i in range(1, 3001)] + [{"id": "d2", "text": "again"}]
    path = write_lines(tmp_path / "a.jsonl", *records)
    documents = stream_jsonl(path).documents
    read_before = 0
    with pytest.raises(FormatError) as error:
        for _ in documents:
            read_before += 1
    assert read_before == 3000
    assert str(error.value) == f"{path}:3001: document id 'd2' appears twice (first at line 2)"


@pytest.mark.parametrize("content", [b"", b"\n", b"  \r\n\n\t"])
def test_stream_of_an_empty_file_is_made_and_fails_when_read(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    stream = stream_jsonl(path)
    with pytest.raises(FormatError) as error:
        next(stream.documents)
    assert str(error.value) == f"{path}: empty file: no JSON record in it"


def test_stream_checks_the_path_when_made(tmp_path):
    with pytest.raises(FormatError) as error:
        stream_jsonl(tmp_path / "nowhere.jsonl")
    assert str(error.value) == f"{tmp_path / 'nowhere.jsonl'}: no such file or folder"
    with pytest.raises(FormatError) as error:
        stream_jsonl(tmp_path)
    assert str(error.value) == f"{tmp_path}: is a folder; JSONL is read from one file"
    file = write_lines(tmp_path / "a.jsonl", {"text": "x"})
    with pytest.raises(FormatError) as error:
        stream_jsonl(file / "b.jsonl")  # under a file: the system's own reason
    assert str(error.value) == f"{file / 'b.jsonl'}: cannot read: Not a directory"


def test_stream_through_the_registry(tmp_path):
    path = write_lines(tmp_path / "ann7.jsonl", {"id": "d", "text": "Ana", "spans": [{"start": 0, "end": 3,
                                                                                     "label": "PER"}]})
    stream = open_stream(path, name="seven")
    assert (stream.name, stream.format) == ("seven", "jsonl")
    assert documents_of(stream.documents) == [("d", "Ana", str(path), [("d", ((0, 3),), "PER", f"{path}:1", ())])]


def test_writer_output_is_exact(tmp_path):
    spanset = SpanSet.from_spans("a", [
        Span("d1", (18, 23), "LOC"),
        Span("d1", ((0, 3), (4, 8)), "PER"),
        Span("d1", (0, 8), "PER"),
    ], {"d1": "Ana Ruiz é\r\nBo in Porto", "d2": None, "d3": ""})
    write_jsonl(spanset, tmp_path / "out.jsonl")
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8").split("\n") == [
        '{"id": "d1", "text": "Ana Ruiz é\\r\\nBo in Porto", "spans": [{"start": 0, "end": 8, "label": "PER", '
        '"fragments": [[0, 3], [4, 8]]}, {"start": 0, "end": 8, "label": "PER"}, '
        '{"start": 18, "end": 23, "label": "LOC"}]}',
        '{"id": "d2", "text": null, "spans": []}',
        '{"id": "d3", "text": "", "spans": []}',
        "",
    ]
    back = read_jsonl(tmp_path / "out.jsonl")
    assert back == spanset and list(back.documents) == ["d1", "d2", "d3"]


def test_writer_refuses_what_it_could_not_read_back(tmp_path):
    with pytest.raises(UsageError, match="document 'd1': its text cannot be written as UTF-8"):
        write_jsonl(SpanSet.from_spans("a", [], {"d1": "bad \ud800"}), tmp_path / "out.jsonl")
    with pytest.raises(UsageError, match=r"document 'd2': span \(\(0, 9\),\) X ends beyond its text"):
        write_jsonl(SpanSet.from_spans("a", [Span("d2", (0, 9), "X")], {"d1": "ok", "d2": "Ana"}),
                    tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


# ---------------------------------------------------------------------------------------------
# Property: write -> read gives back an equal SpanSet


chars = st.characters(blacklist_categories=("Cs",))
text_strategy = st.lists(
    st.one_of(st.text(alphabet=chars, max_size=12),
              st.sampled_from(["\r\n", "\n", "\r", "\u2028", "\x85", "\ufeff", "😀", "🇵🇹", "𝄞"])),
    max_size=8,
).map("".join)


@st.composite
def spansets(draw):
    ids = draw(st.lists(st.text(alphabet=chars, max_size=5), min_size=1, max_size=4, unique=True))
    spans, texts = [], {}
    for doc_id in ids:
        text = draw(st.one_of(st.none(), text_strategy))
        texts[doc_id] = text
        n = draw(st.integers(1, 50)) if text is None else len(text)
        if n:
            for _ in range(draw(st.integers(0, 6))):
                fragments = draw(fragments_in(n))
                label = draw(st.text(alphabet=chars, min_size=1, max_size=6))  # any label, spaces too
                spans.append(Span(doc_id, fragments, label))
                if draw(st.booleans()):
                    spans.append(Span(doc_id, (fragments[0][0], fragments[-1][1]), label))
    return SpanSet.from_spans("gen", spans, texts)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spansets())
@pytest.mark.slow
def test_write_read_round_trip(spanset):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.jsonl")
        write_jsonl(spanset, path)
        back = read_jsonl(path)
    assert back == spanset
    assert list(back.documents) == list(spanset.documents)
    assert len(back) == len(spanset)


# -- orjson decodes, json decides: the reader's outcome is json's on any line ---------------------

#: Literals where orjson and json differ: NaN and Infinity (json reads them), integers beyond 64
#: bits (orjson reads them as floats), a number beyond a double, lone and misordered surrogates.
EDGE_LITERALS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0.0", "1.5", "2E3", "0.1e-400",
                 "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
                 "123456789012345678901234567890", "1" * 700, '"\\ud800"', '"\\udc00x"', '"a\\ud83d\\ude00"',
                 '"\\ude00\\ud83d"', '"\\ud800\\u0041"', '"\\u00e9\\n\\t\\/"', '"\\u0000"', "true", "null"]
KEYS = ["id", "text", "spans", "start", "end", "label", "fragments", "entities", "start_offset", "end_offset",
        "answer", "_annotator_id", "_input_hash", "meta"]

json_scalars = st.one_of(st.sampled_from(EDGE_LITERALS), st.integers(-3, 40).map(str),
                         st.integers().map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                         st.sampled_from(["PER", "a", "", "accept", "reject", "Ana met Bo", "d1"]).map(json.dumps),
                         st.text(max_size=6).map(lambda t: json.dumps(t, ensure_ascii=False)))


def json_objects(children):
    # keys drawn from a small set: duplicate keys (orjson and json both keep the last value) come often
    return st.lists(st.tuples(st.sampled_from(KEYS).map(json.dumps), children), max_size=5).map(
        lambda items: "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}")


json_texts = st.recursive(json_scalars, lambda children: st.one_of(
    st.lists(children, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"), json_objects(children)),
    max_leaves=12)


@st.composite
def records(draw):
    """A JSON-lines line, mostly a record that reads (ints in range, known keys), often with an
    edge literal in one place, sometimes bad JSON (a character inserted or dropped)."""
    values = st.one_of(json_texts, st.integers(0, 12).map(str))
    span = st.lists(st.tuples(st.sampled_from(["start", "end", "label", "fragments", "meta"]),
                              st.one_of(st.integers(0, 12).map(str), st.sampled_from(['"PER"', '"LOC"']), values)),
                    max_size=4)
    spans = st.lists(span.map(lambda items: "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}"), max_size=4)
    fields = [("id", draw(st.one_of(st.sampled_from(['"d1"', '"d2"', "7"]), values))),
              ("text", draw(st.one_of(st.just('"Ana met Bo."'), values))),
              ("spans", draw(st.one_of(spans.map(lambda items: "[" + ", ".join(items) + "]"), values)))]
    fields += draw(st.lists(st.tuples(st.sampled_from(KEYS), values), max_size=3))
    line = "{" + ", ".join(f'"{k}": {v}' for k, v in draw(st.permutations(fields))) + "}"
    if draw(st.integers(0, 5)) == 0:  # bad JSON now and then
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.sampled_from(["", ",", "]", '"', "\\", "\x01", "\ufeff", " "])) + line[at + 1:]
    return draw(st.sampled_from(["", "\ufeff", " "])) + line + draw(st.sampled_from(["\n", "\r\n", ""]))


def outcome(documents, notes):
    """The documents read (every value, and each span's source) and the notes, or the error raised."""
    try:
        return [(d.id, d.text, [(s.doc, s.fragments, s.label, str(s.source)) for s in d.spans])
                for d in documents], notes
    except Exception as error:  # the outcome to compare is whatever is raised
        return type(error).__name__, str(error)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), min_size=1, max_size=3), st.sampled_from([None, "d1"]))
@pytest.mark.slow
def test_orjson_path_reads_every_line_as_json_reads_it(lines, wanted):
    from spanagree.formats.jsonl import _documents

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.jsonl")
        with open(path, "w", encoding="utf-8", newline="") as file:
            file.write("\n".join(line.rstrip("\n") for line in lines) + "\n")
        notes_fast, notes_plain = [], []
        fast = outcome(_documents(path, notes=notes_fast, wanted=wanted, split=wanted is not None), notes_fast)
        plain = outcome(_documents(path, notes=notes_plain, wanted=wanted, split=wanted is not None, fast=False),
                        notes_plain)
    assert fast == plain


def test_a_nesting_orjson_reads_and_json_refuses_is_refused(tmp_path):
    # orjson reads up to 1,024 levels; json stops at the recursion limit (1,000 less what is in use)
    from spanagree.formats.jsonl import _documents

    path = write_lines(tmp_path / "deep.jsonl", '{"id": "a", "text": "x", "meta": ' + "[" * 990 + "]" * 990 + "}\n")
    read = [outcome(_documents(str(path), fast=fast), []) for fast in (True, False)]
    assert read[0] == read[1] == ("FormatError", f"{path}:1: nested deeper than Python's recursion limit "
                                  f"({sys.getrecursionlimit():,} levels, less what is already in use)")
