"""The demo corpus (corpora/demo): its files, its counts, and the four formats agreeing.

The expected figures are those of ``corpora/demo/README.md``, counted from the table in
``corpora/demo/build_demo.py`` independently of spanagree's matcher.
"""

from __future__ import annotations

import filecmp
import importlib.util
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

from spanagree import agree
from spanagree.formats import read, write
from spanagree.span import SpanSet

DEMO = Path(__file__).resolve().parent.parent / "corpora" / "demo"
ANNOTATORS = ("ann1", "ann2", "ann3")
DOC_IDS = [f"clinic-0{i}" for i in range(1, 6)] + [f"news-0{i}" for i in range(1, 6)]

# Spans per annotator: every span (BRAT), and the flat part (XML, CoNLL, JSONL).
BRAT_SPANS = {"ann1": 77, "ann2": 73, "ann3": 75}
FLAT_SPANS = {"ann1": 75, "ann2": 73, "ann3": 73}
DISCONTINUOUS = {"ann1": 1, "ann2": 0, "ann3": 1}
NESTED_INNER = {"ann1": 1, "ann2": 0, "ann3": 1}

# (match, labels) -> [(a, b, c) for (ann1, ann2), (ann1, ann3), (ann2, ann3)], from the README.
BRAT_PAIRS = {
    ("exact", "strict"): [(61, 16, 12), (67, 10, 8), (56, 17, 19)],
    ("exact", "ignore"): [(64, 13, 9), (69, 8, 6), (61, 12, 14)],
    ("overlap", "strict"): [(68, 9, 5), (71, 6, 4), (63, 10, 12)],
    ("overlap", "ignore"): [(72, 5, 1), (73, 4, 2), (69, 4, 6)],
    ("partial", "strict"): [(64.5, 12.5, 8.5), (69, 8, 6), (59.5, 13.5, 15.5)],
    ("partial", "ignore"): [(68, 9, 5), (71, 6, 4), (65, 8, 10)],
}
FLAT_PAIRS = {
    ("exact", "strict"): [(61, 14, 12), (65, 10, 8), (56, 17, 17)],
    ("exact", "ignore"): [(64, 11, 9), (67, 8, 6), (61, 12, 12)],
    ("overlap", "strict"): [(68, 7, 5), (69, 6, 4), (63, 10, 10)],
    ("overlap", "ignore"): [(72, 3, 1), (71, 4, 2), (69, 4, 4)],
    ("partial", "strict"): [(64.5, 10.5, 8.5), (67, 8, 6), (59.5, 13.5, 13.5)],
    ("partial", "ignore"): [(68, 7, 5), (69, 6, 4), (65, 8, 8)],
}

FLAT_FORMATS = ("xml", "conll", "jsonl")


def demo_path(fmt: str, annotator: str):
    if fmt == "brat":
        return DEMO / "brat" / annotator
    return DEMO / fmt / f"{annotator}.{fmt}"


def read_demo(fmt: str, annotator: str) -> SpanSet:
    """Read one annotator's demo file through ``spanagree.formats.read``."""
    options = {"xml_doc_tag": "doc"} if fmt == "xml" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the demo files are clean: any reader warning is a bug
        return read(demo_path(fmt, annotator), format=fmt, **options)


def flat_part(spanset: SpanSet) -> SpanSet:
    """Drop discontinuous spans and spans nested inside another continuous span of the document."""
    kept = []
    for document in spanset.documents.values():
        continuous = [s for s in document.spans if not s.is_discontinuous]
        for span in continuous:
            inside = any(o.start <= span.start and span.end <= o.end and o.fragments != span.fragments
                         for o in continuous)
            if not inside:
                kept.append(span)
    return SpanSet.from_spans(spanset.name, kept, spanset.texts())


def keyed_by_order(spanset: SpanSet) -> list[tuple[str, Counter]]:
    """Per document in reading order: its text and the multiset of (fragments, label)."""
    return [(document.text, Counter((s.fragments, s.label) for s in document.spans))
            for document in spanset.documents.values()]


# -- the files are what the build script makes -------------------------------------------------

def load_builder():
    spec = importlib.util.spec_from_file_location("build_demo", DEMO / "build_demo.py")
    module = importlib.util.module_from_spec(spec)
    previous, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in corpora/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = previous
    return module


def test_files_are_what_build_demo_makes(tmp_path, capsys):
    builder = load_builder()
    builder.HERE = tmp_path
    builder.main()
    capsys.readouterr()
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(DEMO) for p in DEMO.rglob("*")
                     if p.is_file() and p.suffix not in (".py", ".md", ".pyc") and "__pycache__" not in p.parts)
    assert made == shipped
    for relative in made:
        assert filecmp.cmp(tmp_path / relative, DEMO / relative, shallow=False), relative


def test_texts_are_in_conll_shape_and_identical_across_annotators():
    for doc_id in DOC_IDS:
        texts = {(DEMO / "brat" / a / f"{doc_id}.txt").read_bytes() for a in ANNOTATORS}
        assert len(texts) == 1, doc_id
        text = texts.pop().decode("utf-8")
        assert "\t" not in text and "\r" not in text and "  " not in text and not text.endswith("\n")
        tokens = text.split()
        assert 40 <= len(tokens) <= 120, doc_id


def test_ann_text_columns_equal_the_text_slices():
    for annotator in ANNOTATORS:
        for doc_id in DOC_IDS:
            text = (DEMO / "brat" / annotator / f"{doc_id}.txt").read_text(encoding="utf-8")
            for line in (DEMO / "brat" / annotator / f"{doc_id}.ann").read_text(encoding="utf-8").splitlines():
                tid, middle, shown = line.split("\t")
                ranges = [tuple(map(int, part.split())) for part in middle.split(" ", 1)[1].split(";")]
                assert " ".join(text[s:e] for s, e in ranges) == shown, (annotator, doc_id, tid)


# -- reading every format ----------------------------------------------------------------------

@pytest.mark.parametrize("annotator", ANNOTATORS)
def test_brat_counts(annotator):
    spanset = read_demo("brat", annotator)
    assert list(spanset.documents) == DOC_IDS
    assert len(spanset) == BRAT_SPANS[annotator]
    assert sum(s.is_discontinuous for s in spanset) == DISCONTINUOUS[annotator]
    assert len(spanset) - len(flat_part(spanset)) == DISCONTINUOUS[annotator] + NESTED_INNER[annotator]


def test_brat_discontinuous_and_nested_spans():
    ann1 = read_demo("brat", "ann1")
    clinic = ann1.documents["clinic-02"]
    (broken,) = [s for s in clinic.spans if s.is_discontinuous]
    assert (broken.label, broken.text(clinic.text)) == ("DISEASE", "breast cancer")
    assert len(broken.fragments) == 2
    news = ann1.documents["news-04"]
    labelled = {(s.text(news.text), s.label) for s in news.spans}
    assert {("University of Lisbon", "ORG"), ("Lisbon", "LOC")} <= labelled


@pytest.mark.parametrize("annotator", ANNOTATORS)
@pytest.mark.parametrize("fmt", FLAT_FORMATS)
def test_flat_format_counts(fmt, annotator):
    spanset = read_demo(fmt, annotator)
    assert len(spanset.documents) == len(DOC_IDS)
    assert len(spanset) == FLAT_SPANS[annotator]
    assert not any(s.is_discontinuous for s in spanset)


@pytest.mark.parametrize("annotator", ANNOTATORS)
@pytest.mark.parametrize("fmt", FLAT_FORMATS)
def test_flat_formats_agree_with_brat(fmt, annotator):
    """Same documents in the same order (CoNLL and XML ids are ordinals, so compared by order),
    same texts, and the same (offsets, label) spans as BRAT's flat part."""
    brat = flat_part(read_demo("brat", annotator))
    other = read_demo(fmt, annotator)
    if fmt == "jsonl":
        assert list(other.documents) == DOC_IDS
    assert keyed_by_order(other) == keyed_by_order(brat)


# -- the hand-computed agreement figures -------------------------------------------------------

def pair_counts(spansets, match, labels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = agree(spansets, match=match, labels=labels)
    return [(p["a"], p["b"], p["c"]) for p in result.to_dict()["pairs"]]


@pytest.mark.parametrize("rule", sorted(BRAT_PAIRS), ids="-".join)
def test_brat_agreement_equals_hand_counts(rule):
    spansets = [read_demo("brat", a) for a in ANNOTATORS]
    assert pair_counts(spansets, *rule) == BRAT_PAIRS[rule]  # halves are exact in binary


@pytest.mark.parametrize("fmt", FLAT_FORMATS)
@pytest.mark.parametrize("rule", sorted(FLAT_PAIRS), ids="-".join)
def test_flat_agreement_equals_hand_counts(fmt, rule):
    spansets = [read_demo(fmt, a) for a in ANNOTATORS]
    assert pair_counts(spansets, *rule) == FLAT_PAIRS[rule]  # halves are exact in binary


# -- spanagree's writers give the same files back ----------------------------------------------

@pytest.mark.parametrize("fmt", FLAT_FORMATS)
def test_spanagree_writer_reproduces_the_flat_files(fmt, tmp_path):
    """Read each flat file, write it with spanagree's writer, read that back: the same documents,
    texts and spans. The CoNLL writer's output is documented line by line, so there the bytes
    must be equal too."""
    options = {"xml_doc_tag": "doc"} if fmt == "xml" else {}
    for annotator in ANNOTATORS:
        original = read_demo(fmt, annotator)
        dest = tmp_path / f"{annotator}.{fmt}"
        write(original, dest, fmt)
        again = read(dest, format=fmt, **options)
        assert keyed_by_order(again) == keyed_by_order(original), annotator
        if fmt == "conll":
            assert dest.read_bytes() == demo_path(fmt, annotator).read_bytes(), annotator
