"""Inline XML: offsets over the text content (comments, PIs, entities, CDATA, CRLF, BOM, beyond the
BMP), labels from tags or an attribute, span and document tags, document ids, safe parsing, bad input
naming file:line, the writer's layout, nesting and refusals, and write -> read round trips."""

from __future__ import annotations

import os
import string
import tempfile
import threading
import time
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.formats import read
from spanagree.formats.xml import read_xml, write_xml
from spanagree.span import Span, SpanSet
from conftest import run

DEMO = Path(__file__).resolve().parent.parent / "corpora" / "demo"


def make(path: Path, content: str | bytes) -> Path:
    """Write one file (str as UTF-8, no newline translation)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def read_quietly(path, **options):
    """Read and fail on any warning (the cases below are clean unless they say so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_xml(path, **options)


def spans_of(spanset, doc_id=None):
    return [(s.start, s.end, s.label) for s in spanset if doc_id is None or s.doc == doc_id]


def covered(spanset):
    return [(s.label, s.text(spanset.documents[s.doc].text)) for s in spanset]


# ---------------------------------------------------------------------------------------------
# Offsets


def test_offsets_over_the_text_content(tmp_path):
    # Ana met Bo Li in Porto.
    # 0       8    13  17   22
    #         [PER)    [LOC)
    f = make(tmp_path / "a.xml", '<?xml version="1.0"?>\n<doc>Ana met <PER>Bo Li</PER> in <LOC>Porto</LOC>.</doc>\n')
    spans = read_quietly(f)
    assert spans.name == "a" and spans.format == "xml" and spans.notes == [
        "every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree marker): LOC (1), "
        "PER (1); name the span elements with --xml-span-tags (and the label's attribute with --xml-label-attr)"]
    assert spans.texts() == {"a": "Ana met Bo Li in Porto."}
    assert spans_of(spans) == [(8, 13, "PER"), (17, 22, "LOC")]
    assert [str(s.source) for s in spans] == [f"{f}:2", f"{f}:2"]
    assert spans.documents["a"].source == str(f)


def test_nested_elements_are_nested_spans_in_start_tag_order(tmp_path):
    # University of Lisbon hired Inês.
    # [ORG-----------------)     [PER)  twice
    #               [LOC--)
    f = make(tmp_path / "a.xml",
             "<doc><ORG>University of <LOC>Lisbon</LOC></ORG> hired <PER><PER>Inês</PER></PER>.</doc>")
    with pytest.warns(SpanagreeWarning, match=r": PER \(2\), LOC \(1\), ORG \(1\); .* <PER>, <ORG> hold other "
                      r"elements \(structure rather than spans\?\)$"):
        spans = read_xml(f)
    assert spans_of(spans) == [(0, 20, "ORG"), (14, 20, "LOC"), (27, 31, "PER"), (27, 31, "PER")]
    assert covered(spans) == [("ORG", "University of Lisbon"), ("LOC", "Lisbon"), ("PER", "Inês"), ("PER", "Inês")]


def test_comments_pis_entities_and_cdata(tmp_path):
    # a b c ␠ & ␠ é 😀 < x > d
    # 0 1 2 3 4 5 6 7  8 9 10 11   (comment and PI give nothing; their tails count)
    f = make(tmp_path / "a.xml", "<doc>a<!-- no -->b<?pi no?>c &amp; &#233;&#x1F600;<![CDATA[<x>]]>"
                                 "<PER>d</PER> <PER>A<!--x-->n<?y?>a</PER></doc>")
    spans = read_quietly(f)
    assert spans.documents["a"].text == "abc & é😀<x>d Ana"
    assert spans_of(spans) == [(11, 12, "PER"), (13, 16, "PER")]


def test_crlf_in_the_file_is_a_newline_and_char_ref_13_a_carriage_return(tmp_path):
    # \n A n a \n B o \r \n P
    # 0  1 2 3 4  5 6 7  8  9
    f = make(tmp_path / "a.xml", b"<doc>\r\nAna\r<PER>Bo</PER>&#13;\n<LOC>P</LOC></doc>")
    spans = read_quietly(f)
    assert spans.documents["a"].text == "\nAna\nBo\r\nP"
    assert spans_of(spans) == [(5, 7, "PER"), (9, 10, "LOC")]


def test_byte_order_mark_is_not_text_but_u_feff_inside_is(tmp_path):
    f = make(tmp_path / "a.xml",
             b'\xef\xbb\xbf<?xml version="1.0" encoding="UTF-8"?><doc>Ana <PER>Bo</PER>&#xFEFF;x</doc>')
    spans = read_quietly(f)
    assert spans.documents["a"].text == "Ana Bo\ufeffx"
    assert spans_of(spans) == [(4, 6, "PER")]


def test_offsets_count_code_points_and_a_declared_encoding_is_honoured(tmp_path):
    f = make(tmp_path / "a.xml", "<doc>😀 <PER>Ana</PER> 𝔸</doc>")
    assert spans_of(read_quietly(f)) == [(2, 5, "PER")]
    g = make(tmp_path / "b.xml", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<doc>Jos\xe9 <PER>Ana</PER></doc>')
    spans = read_quietly(g)
    assert spans.documents["b"].text == "José Ana" and spans_of(spans) == [(5, 8, "PER")]


def test_namespaced_tags_use_their_local_name(tmp_path):
    f = make(tmp_path / "a.xml",
             '<doc xmlns:x="urn:x"><x:PER>Ana</x:PER> and <LOC xmlns="urn:y">Porto</LOC></doc>')
    assert spans_of(read_quietly(f)) == [(0, 3, "PER"), (8, 13, "LOC")]
    assert spans_of(read_quietly(f, xml_span_tags="PER")) == [(0, 3, "PER")]
    g = make(tmp_path / "b.xml", '<c xmlns="urn:c"><doc id="d">Ana <PER>Bo</PER></doc></c>')
    assert spans_of(read_quietly(g, xml_doc_tag="doc")) == [(4, 6, "PER")]


# ---------------------------------------------------------------------------------------------
# Which elements are spans, and their labels

ACL = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?><Paper acl-id="X"><Title>On '
       '<term class="tech">parsing</term></Title>\n<S>We use <term class="model">HMMs</term>.</S></Paper>')
# On parsing\nWe use HMMs.
# 0  3      10 11    18  22


def test_label_from_an_attribute_spans_are_the_elements_carrying_it(tmp_path):
    f = make(tmp_path / "X_abstr.xml", ACL)
    spans = read_quietly(f, xml_label_attr="class")
    assert list(spans.documents) == ["X_abstr"]
    assert spans.documents["X_abstr"].text == "On parsing\nWe use HMMs."
    assert spans_of(spans) == [(3, 10, "tech"), (18, 22, "model")]
    assert spans_of(read_quietly(f, xml_label_attr="class", xml_span_tags=["term"])) == spans_of(spans)


def test_without_options_every_element_below_the_document_element_is_a_span(tmp_path):
    f = make(tmp_path / "X_abstr.xml", ACL)
    with pytest.warns(SpanagreeWarning) as record:
        spans = read_xml(f)
    assert spans_of(spans) == [(0, 10, "Title"), (3, 10, "term"), (11, 23, "S"), (18, 22, "term")]
    note = ("every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree marker): term (2), "
            "S (1), Title (1); name the span elements with --xml-span-tags (and the label's attribute with "
            "--xml-label-attr)")
    assert spans.notes == [note]
    assert [str(w.message) for w in record] == [
        f"{f}: {note}; <S>, <Title> hold other elements (structure rather than spans?)"]


def test_span_tags_choose_elements_and_others_are_only_text(tmp_path):
    f = make(tmp_path / "a.xml", "<doc><p>Ana <PER>Bo</PER></p> <q><LOC>P</LOC></q></doc>")
    assert spans_of(read_quietly(f, xml_span_tags="PER, LOC")) == [(4, 6, "PER"), (7, 8, "LOC")]
    assert spans_of(read_quietly(f, xml_span_tags="PER")) == [(4, 6, "PER")]


MUC = """<collection>
<DOC><DOCNO> NYT-1 </DOCNO>
<TEXT><ENAMEX TYPE="PERSON">Ana</ENAMEX> left <TIMEX TYPE="DATE">today</TIMEX>.</TEXT></DOC>
<DOC><DOCNO> NYT-2 </DOCNO>
<TEXT>Bo met <ENAMEX TYPE="ORGANIZATION">EU</ENAMEX>.</TEXT></DOC>
</collection>
"""
#  NYT-1 \nAna left today.        NYT-2 \nBo met EU.
# 0      7 8  11     17   22      0      7 8      15 17


def test_muc_documents_labels_from_type(tmp_path):
    f = make(tmp_path / "muc.xml", MUC)
    spans = read_quietly(f, xml_doc_tag="DOC", xml_label_attr="TYPE")
    assert list(spans.documents) == ["1", "2"]
    assert spans.documents["1"].text == " NYT-1 \nAna left today."
    assert spans_of(spans, "1") == [(8, 11, "PERSON"), (17, 22, "DATE")]
    assert spans_of(spans, "2") == [(15, 17, "ORGANIZATION")]
    assert [s.source.line for s in spans] == [3, 3, 5]
    only = read_quietly(f, xml_doc_tag="DOC", xml_label_attr="TYPE", xml_span_tags="ENAMEX")
    assert [s.label for s in only] == ["PERSON", "ORGANIZATION"]


def test_a_span_tag_without_its_label_attribute_or_with_an_empty_label(tmp_path):
    f = make(tmp_path / "a.xml", '<doc>\n<ENAMEX TYPE="PER">Ana</ENAMEX>\n<ENAMEX>Bo</ENAMEX></doc>')
    with pytest.raises(FormatError) as error:
        read_xml(f, xml_span_tags="ENAMEX", xml_label_attr="TYPE")
    assert str(error.value) == f'{f}:3: <ENAMEX> has no TYPE attribute for its label (xml_label_attr="TYPE")'
    assert error.value.command_line_message() == \
        f"{f}:3: <ENAMEX> has no TYPE attribute for its label (--xml-label-attr TYPE)"
    g = make(tmp_path / "b.xml", '<doc>\n\n<term class="">Ana</term></doc>')
    with pytest.raises(FormatError, match=rf"^{g}:3: <term> has an empty class attribute"):
        read_xml(g, xml_label_attr="class")


def test_empty_elements_are_skipped_with_one_warning_and_a_note(tmp_path):
    make(tmp_path / "c" / "a.xml", "<doc>Ana<br/> <PER></PER><PER>Bo</PER></doc>")
    make(tmp_path / "c" / "b.xml", "<doc>\n<PER/>x</doc>")
    with pytest.warns(SpanagreeWarning) as record:
        spans = read_xml(tmp_path / "c")
    assert [str(w.message) for w in record] == [
        f"{tmp_path / 'c' / 'a.xml'}:1: <br> has no text and cannot be a span: skipped (2 more like it)"]
    assert spans.notes == ["3 empty elements (no text) skipped: a span covers at least one character",
                           "every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree "
                           "marker): PER (1); name the span elements with --xml-span-tags (and the label's attribute "
                           "with --xml-label-attr)"]
    assert spans_of(spans) == [(4, 6, "PER")]
    assert spans.texts() == {"a": "Ana Bo", "b": "\nx"}


# ---------------------------------------------------------------------------------------------
# Documents and their ids


def test_doc_tag_ids_in_a_single_file_are_the_id_attribute_or_the_ordinal(tmp_path):
    f = make(tmp_path / "gold.xml", '<c><doc id="x">A</doc>junk <PER>not read</PER><doc>B</doc>'
                                    '<doc xml:id="z">C</doc><doc id="">D</doc></c>')
    spans = read_quietly(f, xml_doc_tag="doc")
    assert spans.texts() == {"x": "A", "2": "B", "z": "C", "": "D"}
    assert len(spans) == 0


def test_folder_ids_are_relative_paths_with_the_key_after_a_hash(tmp_path):
    make(tmp_path / "ann" / "sub" / "b.xml", '<c><doc>B1</doc><doc id="k">B2</doc></c>')
    make(tmp_path / "ann" / "a.xml", "<c><doc>A1</doc></c>")
    make(tmp_path / "ann" / "notes.txt", "not xml")
    spans = read_quietly(tmp_path / "ann", xml_doc_tag="doc")
    assert spans.name == "ann"
    assert list(spans.documents) == ["a#1", "sub/b#1", "sub/b#k"]
    whole = read_quietly(tmp_path / "ann")
    assert list(whole.documents) == ["a", "sub/b"]
    assert whole.texts() == {"a": "A1", "sub/b": "B1B2"}
    assert spans_of(whole) == [(0, 2, "doc"), (0, 2, "doc"), (2, 4, "doc")]


def test_detected_through_the_registry(tmp_path):
    f = make(tmp_path / "ann" / "a.xml", "<doc><PER>Ana</PER></doc>")
    assert spans_of(read(f)) == spans_of(read(tmp_path / "ann")) == [(0, 3, "PER")]
    assert read(tmp_path / "ann", xml_doc_tag="doc", conll_column=3).texts() == {"a#1": "Ana"}


@pytest.mark.parametrize("content, line, message", [
    ('<c>\n<doc id="x">A</doc>\n<doc id="x">B</doc></c>', 3,
     "document 'x' appears twice in this file (first at line 2)"),
    ('<c><doc id="2">A</doc>\n<doc>B</doc></c>', 2, "document '2' appears twice in this file (first at line 1)"),
    ("<c><doc>A\n<doc>B</doc></doc></c>", 2, "a <doc> document element inside another"),
    ("<c><text>A</text></c>", None, 'no <doc> element in it (xml_doc_tag="doc")'),
])
def test_document_element_errors(tmp_path, content, line, message):
    f = make(tmp_path / "a.xml", content)
    with pytest.raises(FormatError) as error:
        read_xml(f, xml_doc_tag="doc")
    where = f"{f}:{line}" if line else f"{f}"
    assert str(error.value) == f"{where}: {message}"


def test_demo_ids_line_up_with_brat_and_jsonl():
    xml = read_quietly(DEMO / "xml" / "ann1.xml", xml_doc_tag="doc")
    jsonl = read(DEMO / "jsonl" / "ann1.jsonl")
    assert list(xml.documents) == list(jsonl.documents) == [f"clinic-0{i}" for i in range(1, 6)] + [
        f"news-0{i}" for i in range(1, 6)]
    assert xml == jsonl


# ---------------------------------------------------------------------------------------------
# Safety

LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE doc [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
          + "]>\n")


@pytest.mark.parametrize("body", ["<doc>&lol9;</doc>", '<doc><t c="&lol9;">x</t></doc>'])
def test_billion_laughs_fails_at_once_without_expanding(tmp_path, body):
    f = make(tmp_path / "lol.xml", LAUGHS + body)
    started = time.perf_counter()
    with pytest.raises(FormatError) as error:
        read_xml(f, xml_label_attr="c")
    assert time.perf_counter() - started < 2
    assert str(error.value).startswith(f"{f}:")
    assert "lollol" not in str(error.value)


def test_quadratic_blowup_is_refused(tmp_path):
    f = make(tmp_path / "q.xml",
             f'<!DOCTYPE doc [<!ENTITY a "{"a" * 50000}">]>\n<doc><t c="{"&a;" * 50000}">x</t></doc>')
    started = time.perf_counter()
    with pytest.raises(FormatError, match=rf"^{f}:2: not well-formed XML: .*amplification"):
        read_xml(f)
    assert time.perf_counter() - started < 2


def test_a_declared_entity_in_the_text_is_an_error_not_a_silent_gap(tmp_path):
    f = make(tmp_path / "a.xml", '<!DOCTYPE doc [<!ENTITY who "Ana">]>\n<doc>Hi\n<PER>&who;</PER></doc>')
    with pytest.raises(FormatError) as error:
        read_xml(f)
    assert str(error.value).startswith(f"{f}:3: entity reference &who; is not expanded")


def test_an_external_entity_or_dtd_is_never_opened(tmp_path):
    """The "file" is a named pipe: opening it for reading would block until the watcher below opens
    it for writing, so the watcher sees every attempt (and unblocks it: the test cannot hang)."""
    fifo = tmp_path / "secret"
    os.mkfifo(fifo)
    url = fifo.as_uri()
    opened, done = threading.Event(), threading.Event()

    def watch():
        while not done.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # fails (ENXIO) unless someone reads it
            except OSError:
                time.sleep(0.001)
                continue
            opened.set()
            os.write(fd, b'<!ENTITY x "SENTINEL">SENTINEL')
            os.close(fd)

    cases = [
        (f'<!DOCTYPE doc [<!ENTITY ext SYSTEM "{url}">]>\n<doc>a&ext;b</doc>',
         "entity reference &ext; is not expanded"),
        (f'<!DOCTYPE doc [<!ENTITY ext SYSTEM "{url}">]>\n<doc><t c="&ext;">a</t></doc>', "external entity"),
        (f'<!DOCTYPE doc [<!ENTITY % ext SYSTEM "{url}"> %ext;]>\n<doc>a&x;</doc>', "&x; is not expanded"),
        (f'<!DOCTYPE doc SYSTEM "{url}">\n<doc>a&x;</doc>', "&x; is not expanded"),
        (f'<!DOCTYPE doc SYSTEM "{url}">\n<doc>a<PER>b</PER></doc>', None),
        ('<!DOCTYPE doc SYSTEM "http://127.0.0.1:9/none.dtd">\n<doc>a<PER>b</PER></doc>', None),
    ]
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        for number, (content, message) in enumerate(cases):
            f = make(tmp_path / f"e{number}.xml", content)
            if message is None:
                spans = read_xml(f)
                assert spans.documents[f"e{number}"].text == "ab" and spans_of(spans) == [(1, 2, "PER")]
            else:
                with pytest.raises(FormatError) as error:
                    read_xml(f)
                assert str(error.value).startswith(f"{f}:2: ") and message in str(error.value)
                assert "SENTINEL" not in str(error.value)
    finally:
        done.set()
        watcher.join()
    assert not opened.is_set()


# ---------------------------------------------------------------------------------------------
# Bad input: one FormatError naming file (and line); exit 1 from the command line


@pytest.mark.parametrize("content, line, message", [
    ("<doc>\n<PER>Ana</doc>", 2, "not well-formed XML: Opening and ending tag mismatch: PER line 2 and doc (column "),
    ("<doc>Ana &nbsp;</doc>", 1, "not well-formed XML: Entity 'nbsp' not defined (column "),
    ("<doc>A</doc><doc>B</doc>", 1, "not well-formed XML: Extra content at the end of the document"),
    ("", 1, "not well-formed XML: Document is empty"),
    (b"<doc>\nJos\xe9</doc>", 2, "not UTF-8 (byte 0xe9 at byte offset 9)"),
    (b'<?xml version="1.0" encoding="UTF-8"?>\n<doc>\xff</doc>', 2, "not UTF-8 (byte 0xff at byte offset 44)"),
    ("<doc>a\x01b</doc>", 1, "not well-formed XML: PCDATA invalid Char value 1"),
])
def test_bad_input_names_file_and_line(tmp_path, content, line, message):
    f = make(tmp_path / "bad.xml", content)
    with pytest.raises(FormatError) as error:
        read_xml(f)
    assert str(error.value).startswith(f"{f}:{line}: {message}")
    assert error.value.line == line and "\n" not in str(error.value)


def test_bad_paths_and_options(tmp_path):
    with pytest.raises(FormatError, match=r"nowhere: no such file or folder$"):
        read_xml(tmp_path / "nowhere")
    make(tmp_path / "empty" / "a.txt", "x")
    with pytest.raises(FormatError, match=r"empty: empty folder: no \.xml file in it$"):
        read_xml(tmp_path / "empty")
    f = make(tmp_path / "a.xml", "<doc/>")
    for options in ({"xml_span_tags": " , "}, {"xml_span_tags": []}, {"xml_label_attr": ""}, {"xml_doc_tag": " "}):
        with pytest.raises(UsageError, match="xml_"):
            read_xml(f, **options)


@pytest.mark.parametrize("files, argv, message", [
    ({"bad.xml": "<doc>\n<PER>Ana</doc>"}, ["bad.xml"], "bad.xml:2: not well-formed XML"),
    ({"bad.xml": b"<doc>\nJos\xe9</doc>"}, ["bad.xml"], "bad.xml:2: not UTF-8"),
    ({"lol.xml": LAUGHS + "<doc>&lol9;</doc>"}, ["lol.xml"], "lol.xml:"),
    ({"e.xml": '<!DOCTYPE doc [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<doc>&e;</doc>'}, ["e.xml"],
     "e.xml:2: entity reference &e; is not expanded"),
    ({"d.xml": '<c><doc id="a"/><doc id="a"/></c>'}, ["d.xml", "--xml-doc-tag", "doc"],
     "d.xml:1: document 'a' appears twice"),
    ({}, ["missing.xml"], "missing.xml: no such file or folder"),
    ({"empty/a.txt": "x"}, ["empty", "--from", "xml"], "empty: empty folder: no .xml file in it"),
])
def test_bad_input_from_the_command_line_exits_1(tmp_path, capsys, files, argv, message):
    for relative, content in files.items():
        make(tmp_path / relative, content)
    out = tmp_path / "out.jsonl"
    argv = [str(tmp_path / argv[0]), *argv[1:]]
    if "--from" not in argv:
        argv += ["--from", "xml"]
    code, stdout, err = run(capsys, "convert", *argv, "--to", "jsonl", "--out", out)
    assert code == 1
    assert message in err and str(tmp_path) in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and stdout == ""
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# Writing


def spanset(texts: dict, spans=()) -> SpanSet:
    return SpanSet.from_spans("w", [Span(d, f, label) for d, f, label in spans], texts)


def test_write_layout_escapes_and_ids(tmp_path):
    dest = tmp_path / "out.xml"
    s = spanset({"a/b#1": 'x<y & "z"\r\n', "2": ""}, [("a/b#1", (0, 1), "X"), ("a/b#1", (2, 9), "Y")])
    write_xml(s, dest)
    assert dest.read_bytes().decode("utf-8") == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<?spanagree xml_doc_tag="doc"?>\n<corpus>\n'
        '<doc id="a/b#1"><X>x</X>&lt;<Y>y &amp; "z"</Y>&#13;\n</doc>\n'
        '<doc id="2"></doc>\n'
        "</corpus>\n")
    back = read_quietly(dest, xml_doc_tag="doc")
    assert back == s and list(back.documents) == ["a/b#1", "2"]
    assert read_quietly(dest) == s  # the marker names the options


def test_write_nests_identical_extents_by_label_and_keeps_duplicates(tmp_path):
    # Ana Bo      [B [A [A  Ana ] ] ] [A Bo]  ... labels in sorted order from the outside in
    dest = tmp_path / "out.xml"
    s = spanset({"d": "Ana Bo"}, [("d", (0, 6), "Z"), ("d", (0, 3), "B"), ("d", (0, 3), "A"), ("d", (0, 3), "A"),
                                  ("d", (4, 6), "A")])
    write_xml(s, dest, xml_doc_tag="text")
    assert dest.read_text(encoding="utf-8").split("\n")[1:4] == ['<?spanagree xml_doc_tag="text"?>', "<corpus>",
        '<text id="d"><Z><A><A><B>Ana</B></A></A> <A>Bo</A></Z></text>']
    assert read_quietly(dest, xml_doc_tag="text") == s == read_quietly(dest)


def test_write_labels_as_an_attribute(tmp_path):
    s = spanset({"P": "On parsing"}, [("P", (3, 10), "measure(ment)"), ("P", (3, 10), 'a "b"\tc')])
    dest = tmp_path / "out.xml"
    write_xml(s, dest, xml_label_attr="class", xml_span_tags="term")
    assert dest.read_text(encoding="utf-8").split("\n")[1] == \
        '<?spanagree xml_doc_tag="doc" xml_label_attr="class" xml_span_tags="term"?>'
    assert dest.read_text(encoding="utf-8").split("\n")[3] == (
        '<doc id="P">On <term class="a &quot;b&quot;&#9;c"><term class="measure(ment)">parsing</term></term></doc>')
    assert read_quietly(dest, xml_doc_tag="doc", xml_label_attr="class") == s == read_quietly(dest)
    write_xml(s, dest, xml_label_attr="label")
    assert '<span label="measure(ment)">' in dest.read_text(encoding="utf-8")
    assert read_quietly(dest, xml_doc_tag="doc", xml_label_attr="label", xml_span_tags="span") == s
    assert read_quietly(dest) == s


def test_writer_reproduces_the_demo_files_byte_for_byte(tmp_path):
    for annotator in ("ann1", "ann2", "ann3"):
        original = read_quietly(DEMO / "xml" / f"{annotator}.xml", xml_doc_tag="doc")
        write_xml(original, tmp_path / f"{annotator}.xml")
        assert (tmp_path / f"{annotator}.xml").read_bytes() == (DEMO / "xml" / f"{annotator}.xml").read_bytes()


@pytest.mark.parametrize("texts, spans, options, message", [
    ({"d": "Ana Bo Li"}, [("d", (0, 6), "X"), ("d", (4, 9), "Y")], {},
     "document 'd': span Y 4 9 'Bo Li' crosses X 0 6 'Ana Bo' (they overlap, neither inside the other)"),
    ({"d": "Ana Bo Li"}, [("d", ((0, 3), (7, 9)), "X")], {}, "document 'd': span X 0 3;7 9 'Ana Li' is discontinuous"),
    ({"d": "Ana"}, [("d", (0, 5), "X")], {}, "document 'd': span X 0 5 'Ana' ends beyond its text (3 characters)"),
    ({"d": None}, [], {}, "document 'd' has no text"),
    ({"d": "a\x00b"}, [], {}, "document 'd': its text holds U+0000 at offset 1, a character XML 1.0 cannot hold"),
    ({"d": "a\ud800"}, [], {}, "its text holds U+D800 at offset 1"),
    ({"d\x0c": "a"}, [], {}, "its id holds U+000C at offset 1"),
    ({"d": "a"}, [("d", (0, 1), "a\x1fb")], {"xml_label_attr": "type"}, "a label holds U+001F"),
    ({"d": "a"}, [("d", (0, 1), "measure(ment)")], {}, "label 'measure(ment)' is not an XML name"),
    ({"d": "a"}, [("d", (0, 1), "x:y")], {}, "label 'x:y' is not an XML name"),
    ({"d": "a"}, [("d", (0, 1), "1st")], {}, "label '1st' is not an XML name"),
    ({"d": "a"}, [("d", (0, 1), "doc")], {}, "label 'doc' is the document element's name"),
    ({"d": "a"}, [("d", (0, 1), "LOC")], {"xml_span_tags": "PER,ORG"},
     "label 'LOC' is not among xml_span_tags=\"ORG,PER\""),
    ({"d": "a"}, [], {"xml_doc_tag": "corpus"}, "xml_doc_tag cannot be 'corpus'"),
    ({"d": "a"}, [], {"xml_doc_tag": "my doc"}, "xml_doc_tag 'my doc' is not an XML name"),
    ({"d": "a"}, [], {"xml_label_attr": "x y"}, "xml_label_attr 'x y' is not an XML name"),
    ({"d": "a"}, [], {"xml_label_attr": "c", "xml_span_tags": "doc"}, "cannot also be the document element"),
])
def test_write_refusals_name_the_document_and_write_nothing(tmp_path, texts, spans, options, message):
    dest = tmp_path / "out.xml"
    with pytest.raises(UsageError) as error:
        write_xml(spanset({"ok": "fine", **texts}, spans), dest, **options)
    assert message in str(error.value) and "--" not in str(error.value)
    assert not dest.exists()


def test_refusal_from_the_command_line(tmp_path, capsys):
    ann = make(tmp_path / "ann" / "d.ann", "T1\tX 0 6\tAna Bo\nT2\tY 4 9\tBo Li\n")
    make(tmp_path / "ann" / "d.txt", "Ana Bo Li")
    out = tmp_path / "out.xml"
    code, stdout, err = run(capsys, "convert", ann.parent, "--from", "brat", "--to", "xml", "--out", out)
    assert code == 2  # a writer's refusal is a UsageError, like BRAT's and CoNLL's writers'
    assert err == "spanagree: error: document 'd': span Y 4 9 'Bo Li' crosses X 0 6 'Ana Bo' (they overlap, " \
                  "neither inside the other); inline XML cannot write that\n"
    assert stdout == "" and not out.exists()


# ---------------------------------------------------------------------------------------------
# convert between all four formats, XML both ways (the demo's ann2 has no nested or discontinuous span)


def keyed(spanset):
    """Each text (the demo's are distinct) with its multiset of spans; document order and ids apart."""
    return {d.text: Counter((s.fragments, s.label) for s in d.spans) for d in spanset.documents.values()}


def test_convert_through_every_format(tmp_path, capsys):
    brat = read(DEMO / "brat" / "ann2")
    steps = [(DEMO / "brat" / "ann2", "brat", "xml", "a.xml"), ("a.xml", "xml", "jsonl", "b.jsonl"),
             ("b.jsonl", "jsonl", "xml", "c.xml"), ("c.xml", "xml", "conll", "d.conll"),
             ("d.conll", "conll", "xml", "e.xml"), ("e.xml", "xml", "brat", "f"), ("f", "brat", "jsonl", "g.jsonl")]
    for source, source_format, target, dest in steps:
        code, out, err = run(capsys, "convert", tmp_path / source, "--from", source_format, "--to", target,
                             "--out", tmp_path / dest, "--xml-doc-tag", "doc")
        # every format keeps the ids (CoNLL: -DOCSTART- clinic-01)
        assert (code, err) == (0, ""), (source, target)
        assert out == f"wrote 10 documents, 73 spans to {tmp_path / dest} ({target})\n"
        options = {"xml_doc_tag": "doc"} if target == "xml" else {}
        assert keyed(read(tmp_path / dest, target, **options)) == keyed(brat), (source, target)
    assert list(read(tmp_path / "c.xml", xml_doc_tag="doc").documents) == list(brat.documents)
    assert list(read(tmp_path / "e.xml", xml_doc_tag="doc").documents) == list(brat.documents)  # CoNLL kept them
    assert read(tmp_path / "g.jsonl").texts() == read(tmp_path / "d.conll").texts()


def test_convert_acl_style_labels_with_an_attribute(tmp_path, capsys):
    make(tmp_path / "ann" / "X_abstr.xml", ACL.replace("model", "measure(ment)"))
    out = tmp_path / "out.xml"
    code, _, err = run(capsys, "convert", tmp_path / "ann", "--from", "xml", "--to", "xml", "--out", out,
                       "--xml-label-attr", "class")
    assert code == 0, err
    back = read(out, "xml", xml_doc_tag="doc", xml_label_attr="class")
    assert list(back.documents) == ["X_abstr"] and back == read(tmp_path / "ann", "xml", xml_label_attr="class")
    code, _, err = run(capsys, "convert", tmp_path / "ann", "--from", "xml", "--to", "xml", "--out", tmp_path / "x.xml")
    assert code == 0, err  # without --xml-label-attr the labels are the tag names: Title, term, S


# ---------------------------------------------------------------------------------------------
# write -> read round trips

_LEGAL = st.characters(exclude_categories=("Cs",)).filter(
    lambda c: c in "\t\n\r" or ("\x20" <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c >= "\U00010000")
text_strategy = st.text(alphabet=st.one_of(st.sampled_from("ab <>&;]\r\n\t'\"é😀\ufeff#"), _LEGAL), max_size=14)
name_strategy = st.one_of(st.sampled_from(["PER", "ORG", "é", "_x.1", "Ä-b", "xmlish", "span", "corpus"]),
                          st.from_regex(r"[A-Za-z_\u00c0-\u00d6\u4e00-\u4e20][A-Za-z0-9._\-\u00b7\u0300-\u0302]{0,4}",
                                        fullmatch=True))
label_strategy = st.text(alphabet=_LEGAL, min_size=1, max_size=6)
id_strategy = st.text(alphabet=st.one_of(st.sampled_from(string.ascii_letters + "/#-_ \t\n\r\"'&<"), _LEGAL),
                      max_size=6)


@st.composite
def laminar_spans(draw, n, labels):
    """Spans inside [0, n) that nest or are apart (never cross), with duplicates and equal extents."""
    kept: list[tuple[int, int]] = []
    spans = []
    for _ in range(draw(st.integers(0, 7))):
        start = draw(st.integers(0, n - 1))
        end = draw(st.integers(start + 1, n))
        if any(s < start < e < end or start < s < end < e for s, e in kept):
            continue
        kept.append((start, end))
        spans.append(((start, end), draw(labels)))
        if draw(st.booleans()):  # an identical extent: the same label (a duplicate) or another
            spans.append(((start, end), draw(st.one_of(st.just(spans[-1][1]), labels))))
    return spans


@st.composite
def spansets(draw, labels):
    ids = draw(st.lists(id_strategy, min_size=1, max_size=4, unique=True))
    spans, texts = [], {}
    for doc_id in ids:
        text = texts[doc_id] = draw(text_strategy)
        if text:
            spans += [Span(doc_id, fragments, label) for fragments, label in draw(laminar_spans(len(text), labels))]
    return SpanSet.from_spans("gen", draw(st.permutations(spans)), texts)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spansets(name_strategy.filter(lambda label: label != "doc")))
@pytest.mark.slow
def test_write_read_round_trip_labels_as_elements(spanset):
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "out.xml")
        write_xml(spanset, dest)
        back = read_quietly(dest, xml_doc_tag="doc")
    assert back == spanset
    assert list(back.documents) == list(spanset.documents)
    assert len(back) == len(spanset)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spansets(label_strategy))
@pytest.mark.slow
def test_write_read_round_trip_labels_in_an_attribute(spanset):
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "out.xml")
        write_xml(spanset, dest, xml_label_attr="type", xml_span_tags="e", xml_doc_tag="DOC")
        back = read_quietly(dest, xml_doc_tag="DOC", xml_label_attr="type")
    assert back == spanset
    assert list(back.documents) == list(spanset.documents)


# issue 32: libxml2 expands an internal entity in an attribute even when told not to resolve
# entities, so a DTD's entity could become a label: a DOCTYPE declaring entities is refused.
@pytest.mark.parametrize("encoding, padding, doc_tag", [
    ("utf-8", "\n", None), ("utf-8", "\n" * 70_000, None), ("utf-16", "\n", None), ("utf-8", "\n", "doc"),
])
def test_an_entity_declared_for_an_attribute_is_refused_not_made_a_label(tmp_path, encoding, padding, doc_tag):
    content = (f'<?xml version="1.0" encoding="{encoding.upper()}"?>{padding}<!DOCTYPE c [<!ENTITY who "PER">]>\n'
               '<c><doc>Hi <t c="&who;">Ana</t></doc></c>')
    f = tmp_path / "a.xml"
    f.write_bytes(content.encode(encoding))
    with pytest.raises(FormatError) as error:
        read_xml(f, xml_label_attr="c", xml_doc_tag=doc_tag)
    assert str(error.value) == (f"{f}: its DOCTYPE declares the entity 'who', which spanagree never expands: not "
                                "read (an attribute's value would hold its text; write the text instead)")
