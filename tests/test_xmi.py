"""UIMA CAS XMI (issue 14), read with dkpro-cassis.

Figures come from the real exports of ``uima-xmi-samples`` (counts in its SOURCE.md: INCEpTION's
exports with their TypeSystem.xml, cassis' emoji CAS, INCEpTION's TSV 3 suite's XMI twins), from
XMI written by cassis itself (``xmi_build``), and from the demo corpus.
"""

from __future__ import annotations

import json

import pytest

from spanagree import agree
from spanagree.formats import detect_format, read

from conftest import DEMO, run
from xmi_build import cassis_typesystem, cassis_xmi

SAMPLES = "uima-xmi-samples"


def spans_of(spanset, doc_id="1"):
    document = spanset.documents[doc_id]
    return [(s.start, s.end, s.label, document.text[s.start:s.end]) for s in document.spans]


@pytest.fixture
def samples(shared_corpora):
    return shared_corpora / SAMPLES


@pytest.fixture
def suite_types(samples):
    return f"{samples / 'dkpro-cassis' / 'important_dkpro_types.xml'}," \
           f"{samples / 'inception-curation-mergecas' / 'webannoTestTypes.xml'}"


def test_inceptions_emoji_export_has_utf16_offsets_read_as_code_points(samples):
    xmi = samples / "dkpro-cassis" / "cas_with_smileys.xmi"
    assert 'begin="3" end="15"' in xmi.read_text(encoding="utf-8")  # UTF-16: the 🤗 counts 2
    spanset = read(xmi, xmi_typesystem=samples / "dkpro-cassis" / "important_dkpro_types.xml")
    assert detect_format(xmi) == "xmi" and list(spanset.documents) == ["1"]
    text = spanset.documents["1"].text
    assert text[0] == "🤗" and text.count("\r\n") == 2
    # SOURCE.md: 5 NamedEntity, value OTH: Transformers ×3, PyTorch, TensorFlow; the first at 2..14
    assert spans_of(spanset) == [(2, 14, "OTH", "Transformers"), (284, 296, "OTH", "Transformers"),
                                 (613, 625, "OTH", "Transformers"), (685, 692, "OTH", "PyTorch"),
                                 (697, 707, "OTH", "TensorFlow")]
    assert spanset.notes == []


def test_a_real_inception_export_with_its_type_system_next_to_it(samples):
    folder = samples / "inception-export-relation_test"
    assert detect_format(folder) == "xmi"  # the TypeSystem.xml beside it does not make it inline XML
    spanset = read(folder, xmi_type="webanno.custom.MyRelationBase")
    assert list(spanset.documents) == ["relation_test"]
    document = spanset.documents["relation_test"]
    assert document.text == "Darmstadt is in Hessen.\r\nHannover is in Lower Saxony."
    assert spans_of(spanset, "relation_test") == [(0, 9, "city", "Darmstadt"), (16, 22, "state", "Hessen"),
                                                  (25, 33, "city", "Hannover"), (40, 52, "state", "Lower Saxony")]
    # the single file: id 1, the type system found next to it; no NamedEntity in it
    assert read(folder / "relation_test.xmi").documents["1"].spans == []


@pytest.mark.slow
def test_the_tsv3_suites_xmi_twins_read_and_spans_cover_their_text(samples, suite_types):
    read_ok, failed, spans, emoji = 0, [], 0, None
    for case in sorted((samples / "inception-tsv3-suite").iterdir()):
        xmi = case / "reference.xmi"
        if not xmi.exists():
            continue
        try:
            spanset = read(xmi, xmi_typesystem=suite_types)
        except Exception as error:  # noqa: BLE001 - counted and named below
            failed.append((case.name, str(error)))
            continue
        read_ok += 1
        document = spanset.documents["1"]
        for span in document.spans:
            assert 0 <= span.start < span.end <= len(document.text)
            assert document.text[span.start:span.end].strip(), (case.name, span)
        spans += len(document.spans)
        if case.name == "testSentenceWithEmoji":
            emoji = spans_of(spanset)
    # 73 XMIs; 8 hold Token features the two type systems lack (Token.order, ...), an error naming them
    assert read_ok == 65 and len(failed) == 8 and spans == 121
    assert all(f"{case}/reference.xmi: not a readable UIMA CAS XMI" in message for case, message in failed)
    assert emoji == [(10, 11, "NamedEntity", "😊")]  # begin=10 end=12 in the file; no value: the type's name


@pytest.mark.slow
def test_stacked_spans_of_inceptions_curation_test_and_merged_type_systems(samples, suite_types):
    folder = samples / "inception-curation-mergecas"
    options = dict(xmi_typesystem=suite_types, xmi_type="webanno.custom.Multivalspan", xmi_feature="f1")
    user1, user2, merged = (read(folder / f"{n}.xmi", **options) for n in ("stackedrel1", "stackedrel2",
                                                                           "stackedmerge"))
    expected = [(2, 6, "A", "tale"), (2, 6, "A", "tale"), (2, 6, "B", "tale"), (12, 17, "C", "kinds")]
    assert spans_of(user1) == spans_of(user2) == spans_of(merged) == expected
    with pytest.warns(UserWarning, match="1 span\\(s\\) identical on the matching key"):
        result = agree([user1, user2])  # the two "A" on "tale" are one span on the matching key
    assert [(p.counts.a, p.counts.b, p.counts.c) for p in result.pairs] == [(3, 0, 0)]


def test_two_annotators_files_of_one_document_line_up(tmp_path, capsys):
    text = "Ana met Bo in Porto."
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for who, spans in (("a", [(0, 3, "PER"), (14, 19, "LOC")]), ("b", [(0, 3, "PER"), (8, 10, "PER")])):
        (tmp_path / who / "doc.xmi").write_text(cassis_xmi(text, spans), encoding="utf-8")
        (tmp_path / who / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    code, out, err = run(capsys, "agree", tmp_path / "a" / "doc.xmi", tmp_path / "b" / "doc.xmi", "--output", "json")
    assert code == 0, err
    (pair,) = json.loads(out)["pairs"]
    assert (pair["a"], pair["b"], pair["c"]) == (1, 1, 1)
    merged = tmp_path / "merged.jsonl"
    code, _, err = run(capsys, "merge", tmp_path / "a" / "doc.xmi", tmp_path / "b" / "doc.xmi", "--min-votes", "1",
                       "--to", "jsonl", "--out", merged)
    assert code == 0, err
    (record,) = [json.loads(line) for line in merged.read_text(encoding="utf-8").splitlines()]
    assert record["id"] == "1"
    assert [(s["start"], s["end"], s["label"]) for s in record["spans"]] == [(0, 3, "PER"), (8, 10, "PER"),
                                                                            (14, 19, "LOC")]


def test_emoji_before_spans_cassis_written_xmi(tmp_path):
    text = "Met 😀 Ana 😀😀 in Porto."
    ana, porto = text.index("Ana"), text.index("Porto")
    file = tmp_path / "emoji.xmi"
    file.write_text(cassis_xmi(text, [(ana, ana + 3, "PER"), (porto, porto + 5, "LOC")]), encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    assert f'begin="{ana + 1}"' in file.read_text(encoding="utf-8")  # Java's offset: one emoji before it
    assert f'begin="{porto + 3}"' in file.read_text(encoding="utf-8")
    assert spans_of(read(file)) == [(ana, ana + 3, "PER", "Ana"), (porto, porto + 5, "LOC", "Porto")]


def test_zero_length_and_unlabelled_annotations_are_noted(tmp_path):
    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana met Bo.", [(0, 3, "PER"), (4, 4, "X"), (8, 10, None), (8, 8, "Y")]),
                    encoding="utf-8")
    (tmp_path / "typesystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    spanset = read(file)
    assert spans_of(spanset) == [(0, 3, "PER", "Ana"), (8, 10, "NamedEntity", "Bo")]
    assert spanset.notes == ["2 zero-length XMI annotation(s) left out (a span covers at least one character)",
                             "1 XMI annotation(s) without a 'value' labelled 'NamedEntity'"]


def test_views_the_initial_one_by_default_another_by_option(tmp_path, capsys):
    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana met Bo.", [(0, 3, "PER")], views={"gold": ("Bo met Ana.", [(7, 10, "PER")])}),
                    encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    assert spans_of(read(file)) == [(0, 3, "PER", "Ana")]
    assert spans_of(read(file, xmi_view="gold")) == [(7, 10, "PER", "Ana")]
    code, _, err = run(capsys, "convert", file, "--xmi-view", "nope", "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1
    assert err == f"spanagree: error: {file}: no view 'nope' (it has: _InitialView, gold); choose one with --xmi-view\n"


def test_the_demo_corpus_in_xmi_agrees_as_its_contiguous_brat_spans():
    from_xmi = agree([DEMO / "xmi" / n for n in ("ann1", "ann2", "ann3")])
    brat = [read(DEMO / "brat" / n) for n in ("ann1", "ann2", "ann3")]
    for spanset in brat:
        for document in spanset.documents.values():
            document.spans = [s for s in document.spans if len(s.fragments) == 1]
    from_brat = agree(brat)
    assert [(p.first, p.second, p.counts) for p in from_xmi.pairs] == \
           [(p.first, p.second, p.counts) for p in from_brat.pairs]
    assert [(p.counts.a, p.counts.b, p.counts.c) for p in from_xmi.pairs] == [(61, 15, 12), (66, 10, 8), (56, 17, 18)]


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" xmi:version="2.0">
<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" sofaString="&lol3;"/></xmi:XMI>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" xmi:version="2.0">
<cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" sofaString="&secret;"/></xmi:XMI>
"""


@pytest.mark.parametrize("content, typesystem, message", [
    (BILLION_LAUGHS, True, "d.xmi: holds a DOCTYPE (a DTD), which UIMA XMI never uses: not read"),
    (EXTERNAL, True, "d.xmi: holds a DOCTYPE (a DTD), which UIMA XMI never uses: not read"),
    (EXTERNAL.encode("utf-16").decode("latin-1"), True, "d.xmi: holds a DOCTYPE (a DTD)"),
    ("<xmi:XMI xmlns:xmi='http://www.omg.org/XMI'><unclosed>", True,
     "d.xmi:1: not a readable UIMA CAS XMI: Premature end of data in tag unclosed line 1"),
    ("<xmi:XMI xmlns:xmi='http://www.omg.org/XMI'/>", False, "d.xmi: no type system: put the TypeSystem.xml"),
])
def test_bad_or_hostile_xmi_is_one_line_naming_the_file(tmp_path, capsys, content, typesystem, message):
    bad = tmp_path / "d.xmi"
    bad.write_bytes(content.encode("latin-1" if content.startswith("\xff") else "utf-8"))
    if typesystem:
        (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    code, out, err = run(capsys, "convert", bad, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1 and out == ""
    assert err.startswith(f"spanagree: error: {tmp_path / message}") and err.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_a_hostile_type_system_and_a_missing_type(tmp_path, capsys):
    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana.", [(0, 3, "PER")]), encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text(BILLION_LAUGHS, encoding="utf-8")
    code, _, err = run(capsys, "convert", file, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1 and err.startswith(f"spanagree: error: {tmp_path / 'TypeSystem.xml'}: holds a DOCTYPE")
    (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    code, _, err = run(capsys, "convert", file, "--xmi-type", "my.Entity", "--to", "jsonl", "--out",
                       tmp_path / "x.jsonl")
    assert code == 1 and err.startswith(f"spanagree: error: {file}: the type system has no type 'my.Entity'")
    code, _, err = run(capsys, "convert", file, "--xmi-feature", "kind", "--to", "jsonl", "--out",
                       tmp_path / "x.jsonl")
    assert code == 1 and err == (f"spanagree: error: {file}: type 'de.tudarmstadt.ukp.dkpro.core.api.ner.type."
                                 "NamedEntity' has no feature 'kind'; choose one with --xmi-feature\n")
    code, _, err = run(capsys, "convert", file, "--xmi-type", "NamedEntity", "--to", "jsonl", "--out",
                       tmp_path / "x.jsonl")
    assert code == 0, err  # a unique short name will do


# -- issue 32: the DOCTYPE refused by the parser, not by searching bytes; work bounded -----------

def _with_doctype(padding: str = "\n", encoding: str = "utf-8") -> bytes:
    """An XMI whose DTD declares an entity its sofa's text uses, after ``padding`` in the prolog,
    written in ``encoding`` (declared)."""
    body = (f'<?xml version="1.0" encoding="{encoding.upper()}"?>{padding}'
            '<!DOCTYPE x [<!ENTITY who "Ana">]>\n'
            '<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:cas="http:///uima/cas.ecore" xmi:version="2.0">'
            '<cas:NULL xmi:id="0"/><cas:Sofa xmi:id="1" sofaNum="1" sofaID="_InitialView" sofaString="&who; met Bo."/>'
            '<cas:View sofa="1" members=""/></xmi:XMI>')
    if encoding == "utf-7":
        return '<?xml version="1.0" encoding="UTF-7"?>'.encode() + _utf7(body.split("?>", 1)[1])
    return body.encode(encoding)


def _utf7(text: str) -> bytes:
    """``text`` in UTF-7 with its DOCTYPE's markup characters in base64 (as UTF-7 may write them), so that
    no ``<!DOCTYPE`` stands in the bytes."""
    head, doctype, rest = text.partition("<!DOCTYPE")
    declared, close, body = rest.partition("]>")
    escaped = "".join(f"+{__import__('base64').b64encode(c.encode('utf-16-be')).decode().rstrip('=')}-"
                      if c in "<![]>" else c for c in doctype + declared + close)
    return head.encode("utf-7") + escaped.encode("ascii") + body.encode("utf-7")


@pytest.mark.parametrize("padding, encoding", [
    ("\n" * 70_000, "utf-8"),       # beyond the first 64 KiB the byte search looked at
    ("\n", "utf-7"),                # "<!DOCTYPE" written +ADwAIQ-DOCTYPE
    ("\n", "utf-16"),
    ("\n<!-- a comment -->\n" * 3, "utf-8"),
])
def test_a_doctype_is_refused_however_the_prolog_is_written(tmp_path, capsys, padding, encoding):
    bad = tmp_path / "d.xmi"
    bad.write_bytes(_with_doctype(padding, encoding))
    (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    code, out, err = run(capsys, "convert", bad, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert (code, out) == (1, "")
    assert err == (f"spanagree: error: {bad}: holds a DOCTYPE (a DTD), which UIMA XMI never uses: not read, so "
                   "that no entity is expanded or fetched\n")
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("padding, encoding", [("\n" * 70_000, "utf-8"), ("\n", "utf-7"), ("\n", "utf-16")])
def test_a_type_system_with_a_doctype_is_refused_however_written(tmp_path, capsys, padding, encoding):
    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana.", [(0, 3, "PER")]), encoding="utf-8")
    body = cassis_typesystem().to_xml().split("?>", 1)[1]
    declaration = f'<?xml version="1.0" encoding="{encoding.upper()}"?>'
    doctype = '<!DOCTYPE typeSystemDescription [<!ENTITY t "uima.tcas.Annotation">]>'
    rest = padding + doctype + body.replace("<supertypeName>uima.tcas.Annotation", "<supertypeName>&t;")
    (tmp_path / "TypeSystem.xml").write_bytes(declaration.encode() + _utf7(rest)
                                              if encoding == "utf-7" else (declaration + rest).encode(encoding))
    code, _, err = run(capsys, "convert", file, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1 and err == (f"spanagree: error: {tmp_path / 'TypeSystem.xml'}: holds a DOCTYPE (a DTD), which "
                                 "UIMA type systems never use: not read, so that no entity is expanded or fetched\n")


def test_a_comment_before_the_root_of_a_valid_xmi_is_read(tmp_path):
    xmi = cassis_xmi("Ana met Bo.", [(0, 3, "PER"), (8, 10, "PER")])
    declaration, body = xmi.split("?>", 1)
    (tmp_path / "d.xmi").write_text(f"{declaration}?>\n<!-- exported by hand -->\n<?pi x?>{body}", encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text(cassis_typesystem().to_xml(), encoding="utf-8")
    spanset = read(tmp_path / "d.xmi")
    assert spans_of(spanset) == [(0, 3, "PER", "Ana"), (8, 10, "PER", "Bo")]


def _chain(depth: int) -> str:
    """A type system whose types make one supertype chain ``depth`` long below uima.tcas.Annotation,
    the deepest being DKPro's NamedEntity (with its feature value)."""
    types = []
    parent = "uima.tcas.Annotation"
    for level in range(depth - 1):
        types.append(f"<typeDescription><name>chain.T{level}</name><supertypeName>{parent}</supertypeName>"
                     "</typeDescription>")
        parent = f"chain.T{level}"
    types.append(f"<typeDescription><name>de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity</name>"
                 f"<supertypeName>{parent}</supertypeName><features><featureDescription><name>value</name>"
                 "<rangeTypeName>uima.cas.String</rangeTypeName></featureDescription></features></typeDescription>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<typeSystemDescription '
            f'xmlns="http://uima.apache.org/resourceSpecifier"><types>{"".join(types)}</types></typeSystemDescription>')


def test_a_type_system_deeper_than_the_limit_fails_fast(tmp_path, capsys):
    import time

    from spanagree.formats.xmi import MAX_TYPE_DEPTH

    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana.", [(0, 3, "PER")]), encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_text(_chain(MAX_TYPE_DEPTH), encoding="utf-8")
    assert spans_of(read(file)) == [(0, 3, "PER", "Ana")]  # as deep as allowed: read
    (tmp_path / "TypeSystem.xml").write_text(_chain(20_000), encoding="utf-8")
    started = time.perf_counter()
    code, _, err = run(capsys, "convert", file, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert time.perf_counter() - started < 5
    assert code == 1 and err == (f"spanagree: error: {tmp_path / 'TypeSystem.xml'}: a chain of supertypes 20,000 "
                                 f"types deep (at most {MAX_TYPE_DEPTH:,}): "
                                 "'de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity' is below 'chain.T19998'\n")


def test_a_supertype_cycle_is_one_line(tmp_path, capsys):
    file = tmp_path / "d.xmi"
    file.write_text(cassis_xmi("Ana.", [(0, 3, "PER")]), encoding="utf-8")
    cycle = _chain(3).replace("<supertypeName>uima.tcas.Annotation", "<supertypeName>chain.T1")
    (tmp_path / "TypeSystem.xml").write_text(cycle, encoding="utf-8")
    code, _, err = run(capsys, "convert", file, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1 and err == (f"spanagree: error: {tmp_path / 'TypeSystem.xml'}: the supertypes of 'chain.T0' "
                                 "make a cycle\n")
