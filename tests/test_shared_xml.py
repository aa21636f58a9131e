"""The XML reader on ACL RD-TEC 2.0 (../shared/corpora/acl-rd-tec-2.0), with the figures of its
SOURCE.md: documents, terms and labels per annotator, which texts agree, and the agreement the
corpus helper measured in whitespace-free coordinates."""

from __future__ import annotations

import warnings
from collections import Counter

import pytest
from lxml import etree

from spanagree import agree
from spanagree.errors import SpanagreeWarning
from spanagree.formats.xml import read_xml

# SOURCE.md, "Measured": terms and labels of the double-annotated set.
DOUBLE = {
    "annotator1": (171, 2586, {"other": 1459, "tech": 720, "lr": 125, "measure(ment)": 119, "model": 91,
                               "tool": 50, "lr-prod": 22}),
    "annotator2": (171, 2418, {"other": 1169, "tech": 715, "model": 232, "lr": 127, "measure(ment)": 119,
                               "tool": 42, "lr-prod": 14}),
}
CONTENT_DIFFERS = ["C94-1030_abstr", "C94-1061_abstr", "C94-1077_abstr", "J86-4002_abstr", "P80-1026_abstr"]


def read_quietly(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no empty <term> in the release: any warning is a bug
        return read_xml(path, **options)


@pytest.fixture(scope="module")
def double(shared_corpora):
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated"
    return {name: read_quietly(folder / name, xml_label_attr="class") for name in DOUBLE}


@pytest.mark.parametrize("name", DOUBLE)
def test_double_annotated_counts(double, name):
    docs, spans, labels = DOUBLE[name]
    spanset = double[name]
    assert spanset.name == name and spanset.notes == []
    assert len(spanset.documents) == docs
    assert len(spanset) == spans
    assert Counter(span.label for span in spanset) == labels
    assert list(spanset.documents) == sorted(spanset.documents)
    assert all(doc_id.endswith("_abstr") and "/" not in doc_id for doc_id in spanset.documents)


@pytest.mark.parametrize("name", DOUBLE)
def test_spans_cover_their_elements_text(double, shared_corpora, name):
    """Offsets checked against lxml's own string value of each <term>, file by file."""
    spanset = double[name]
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated" / name
    for doc_id, document in spanset.documents.items():
        root = etree.parse(str(folder / f"{doc_id}.xml")).getroot()
        expected = [(term.get("class"), term.xpath("string()")) for term in root.iter("term")]
        assert [(s.label, s.text(document.text)) for s in document.spans] == expected, doc_id
        assert document.text == "".join(root.itertext())  # no comments, PIs or entities in the release


def test_texts_differ_as_source_md_says(double):
    first, second = double["annotator1"], double["annotator2"]
    assert list(first.documents) == list(second.documents)
    texts = [(first.documents[d].text, second.documents[d].text) for d in first.documents]
    assert sum(a == b for a, b in texts) == 48
    assert sum(a.split() == b.split() for a, b in texts) == 166
    assert [d for d, (a, b) in zip(first.documents, texts) if "".join(a.split()) != "".join(b.split())] \
        == CONTENT_DIFFERS


def test_unlabelled_agreement_in_whitespace_free_coordinates(double):
    with pytest.warns(SpanagreeWarning, match="left out"):
        result = agree([double["annotator1"], double["annotator2"]], align_whitespace=True, labels="ignore")
    counts = result.pairs[0].counts
    assert len(result.documents) == 166
    assert (counts.a, counts.a + counts.b, counts.a + counts.c) == (1959, 2512, 2348)
    assert round(counts.f1, 4) == 0.8062


# SOURCE.md: guideline rounds 1-4, bq / ak: documents, terms, labelled and unlabelled F1.
ROUNDS = {
    "1": (10, 121, 95, 0.4537, 0.5278),
    "2": (10, 129, 105, 0.6239, 0.7094),
    "3": (23, 512, 349, 0.5459, 0.7108),
    "4": (23, 413, 339, 0.5798, 0.7553),
}


@pytest.mark.parametrize("number", ROUNDS)
def test_guideline_rounds(shared_corpora, number):
    docs, bq_terms, ak_terms, strict_f1, ignore_f1 = ROUNDS[number]
    folder = shared_corpora / "acl-rd-tec-2.0" / "guideline_dev" / number
    bq = read_quietly(folder / "bq", xml_label_attr="class")
    ak = read_quietly(folder / "ak", xml_label_attr="class")
    assert (len(bq.documents), len(ak.documents)) == (docs, docs)
    assert (len(bq), len(ak)) == (bq_terms, ak_terms)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)  # whitespace-only differences, by design
        strict = agree([bq, ak], align_whitespace=True).pairs[0].counts
        ignore = agree([bq, ak], align_whitespace=True, labels="ignore").pairs[0].counts
    assert (round(strict.f1, 4), round(ignore.f1, 4)) == (strict_f1, ignore_f1)


def test_unified_tokenised_files(shared_corpora):
    """Every token is an element, with no whitespace between tokens; labels in class.1 / class.2."""
    folder = shared_corpora / "acl-rd-tec-2.0" / "double_annotated" / "unified_xml_tokenised"
    first = read_quietly(folder / "anno1", xml_label_attr="class.1")
    second = read_quietly(folder / "anno2", xml_label_attr="class.2")
    assert len(first.documents) == len(second.documents) == 171
    same = [d for d in first.documents if first.documents[d].text == second.documents[d].text]
    assert len(same) == 156
    assert sum(len(second.documents[d].spans) for d in same) == 2158  # SOURCE.md
    # SOURCE.md gives 2308 for annotator 1 over these documents; the files hold 2302 elements with
    # class.1 there (counted in the raw bytes below), and the reader reads every one of them.
    raw = sum((folder / "anno1" / f"{d}.xml").read_text(encoding="utf-8").count(' class.1="') for d in same)
    assert sum(len(first.documents[d].spans) for d in same) == raw == 2302
    tokens = read_quietly(folder / "anno1", xml_span_tags="token")
    assert Counter(span.label for span in tokens) == {"token": sum(
        path.read_text(encoding="utf-8").count("<token ") for path in (folder / "anno1").glob("*.xml"))}
    # Tokens touch: no whitespace between them inside a sentence.
    assert any(a.end == b.start for a, b in zip(tokens, list(tokens)[1:]))
