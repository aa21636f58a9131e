"""spanagree's own XML reads back without options (the ``<?spanagree ...?>`` marker), and elements
taken as spans by default are listed in a note (ACL RD-TEC: structure counted as spans)."""

from __future__ import annotations

import json
import warnings

import pytest

from spanagree.cli import main
from spanagree.formats import read
from spanagree.formats.xml import marked_options


def _quiet(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read(path, **options)


def test_own_xml_converts_to_brat_without_options(demo, tmp_path, capsys):
    """The issue's case: our XML output read without options was one document whose <doc>
    elements were spans. The demo's flat spans: 10 documents, 75 spans (build_demo.py's count)."""
    original = _quiet(demo / "jsonl" / "ann1.jsonl")
    assert (len(original.documents), len(original)) == (10, 75)
    assert main(["convert", str(demo / "jsonl" / "ann1.jsonl"), "--to", "xml", "--out", str(tmp_path / "a.xml")]) == 0
    assert main(["convert", str(tmp_path / "a.xml"), "--to", "brat", "--out", str(tmp_path / "brat")]) == 0
    assert capsys.readouterr().err == ""
    back = _quiet(tmp_path / "brat")
    assert list(back.documents) == sorted(original.documents)  # BRAT lists its files in (natural) order
    assert {d: (doc.text, sorted((s.fragments, s.label) for s in doc.spans)) for d, doc in back.documents.items()} \
        == {d: (doc.text, sorted((s.fragments, s.label) for s in doc.spans)) for d, doc in original.documents.items()}


def test_labels_in_an_attribute_read_back_without_options(demo, tmp_path):
    out = tmp_path / "terms.xml"
    assert main(["convert", str(demo / "jsonl" / "ann2.jsonl"), "--to", "xml", "--out", str(out),
                 "--xml-label-attr", "class", "--xml-span-tags", "term"]) == 0
    assert out.read_text(encoding="utf-8").split("\n")[1] == \
        '<?spanagree xml_doc_tag="doc" xml_label_attr="class" xml_span_tags="term"?>'
    assert _quiet(out) == _quiet(out, xml_doc_tag="doc", xml_label_attr="class", xml_span_tags="term")
    assert _quiet(out).texts() == _quiet(demo / "jsonl" / "ann2.jsonl").texts()


def test_the_demo_xml_carries_the_marker(demo):
    assert _quiet(demo / "xml" / "ann3.xml") == _quiet(demo / "xml" / "ann3.xml", xml_doc_tag="doc")
    assert list(_quiet(demo / "xml").documents)[:2] == ["ann1#clinic-01", "ann1#clinic-02"]


def test_options_given_win_over_the_marker(demo):
    """With an option, the marker is not read: --xml-span-tags PER alone keeps each file's root."""
    spans = _quiet(demo / "xml" / "ann1.xml", xml_span_tags="PER")
    assert list(spans.documents) == ["ann1"] and {s.label for s in spans} == {"PER"}


@pytest.mark.parametrize("content, found", [
    ('<?xml version="1.0"?>\n<?spanagree xml_doc_tag="d"?>\n<c/>', {"doc_tag": "d"}),
    ('<?spanagree xml_doc_tag="d" xml_label_attr="k" xml_span_tags="a,b"?><c/>',
     {"doc_tag": "d", "label_attr": "k", "span_tags": frozenset({"a", "b"})}),
    ('<c><?spanagree xml_doc_tag="d"?></c>', None),   # inside the root: text markup, not ours
    ('<?spanagree xml_doc_tag=""?><c/>', None),         # not an option value: read as unmarked
    ('<?other xml_doc_tag="d"?><c/>', None),
])
def test_marker_parsing(tmp_path, content, found):
    path = tmp_path / "m.xml"
    path.write_text(content, encoding="utf-8")
    options = marked_options(str(path))
    if found is None:
        assert options is None
    else:
        assert {k: getattr(options, k) for k in found} == found


@pytest.mark.slow
def test_acl_rd_tec_default_counts_structure_and_says_so(shared_corpora, capsys):
    """Without options every element is a span: F1 0.873 (S, Title, Section agree trivially); with
    --xml-span-tags term --xml-label-attr class, 0.679 (the figure SOURCE.md measured)."""
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated"
    args = ["agree", str(folder / "annotator1"), str(folder / "annotator2"), "--align-whitespace", "--output", "json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    default = json.loads(captured.out)
    assert round(default["pairs"][0]["f1"], 3) == 0.873
    listed = ("every element was taken as a span (no --xml-span-tags, --xml-label-attr or spanagree marker): "
              "term (2586), S (817), Section (171), Title (171), SectionTitle (161); name the span elements with "
              "--xml-span-tags (and the label's attribute with --xml-label-attr)")
    assert f"annotator1: {listed}" in default["notes"]
    assert (f"spanagree: warning: {folder / 'annotator1'}: {listed}; <S>, <Section> hold other elements (structure "
            "rather than spans?)") in captured.err
    assert main([*args, "--xml-span-tags", "term", "--xml-label-attr", "class"]) == 0
    chosen = json.loads(capsys.readouterr().out)
    assert round(chosen["pairs"][0]["f1"], 3) == 0.679
    assert not any("every element" in note for note in chosen["notes"])
