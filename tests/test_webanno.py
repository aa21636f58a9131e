"""WebAnno / INCEpTION TSV 3.x (issue 14): one span layer of one document per file.

Figures come from INCEpTION's own TSV 3.3 suite and curation cases (``inception-tsv3-samples``,
counts in its SOURCE.md), from their XMI twins (``uima-xmi-samples``, read here with lxml), from
hand counts, and from the demo corpus read as BRAT.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import agree
from spanagree.errors import FormatError, UsageError
from spanagree.formats import detect_format, read
from spanagree.formats.webanno import webanno_document, write_webanno
from spanagree.span import Span, SpanSet
from conftest import run


@pytest.fixture
def samples(shared_corpora):
    return shared_corpora / "inception-tsv3-samples"


def spans_of(spanset, doc_id="1") -> list[tuple[int, int, str]]:
    return sorted((s.start, s.end, s.label) for s in spanset.documents[doc_id].spans)


def span_layers(path) -> list[str]:
    return re.findall(r"^#T_SP=([^|\n]*)", path.read_text(encoding="utf-8"), re.M)


# --- INCEpTION's TSV 3.3 suite --------------------------------------------------------------------

SUITE_CASES = 75


def test_every_case_of_the_suite_reads_in_every_span_layer(samples):
    cases = sorted((samples / "tsv3-suite").iterdir())
    assert len(cases) == SUITE_CASES
    read_layers = 0
    for case in cases:
        path = case / "reference.tsv"
        assert detect_format(path) == "webanno"
        for layer in span_layers(path) or [None]:
            spanset = read(path, webanno_layer=layer)
            document = spanset.documents["1"]
            for span in document.spans:  # a span is never empty and lies in the rebuilt text
                assert 0 <= span.start < span.end <= len(document.text), (case.name, span)
            read_layers += 1
    # 75 files: 51 with one span layer, 13 with two, 1 with three, 1 with four, 9 with none (read once)
    assert read_layers == 93


def test_the_emoji_case_counts_utf16_units_and_gives_code_points(samples):
    spanset = read(samples / "tsv3-suite" / "testSentenceWithEmoji" / "reference.tsv", webanno_layer="Span")
    document = spanset.documents["1"]
    assert document.text == "I like it 😊 ."
    # the file says 10-12 (two UTF-16 units); one code point, and the label is the layer's name
    assert spans_of(spanset) == [(10, 11, "Span")]
    assert document.text[10:11] == "😊"
    assert spanset.notes == [
        "1 WebAnno span(s) without a value of feature 'value' labelled with the layer's name 'Span'"]


def test_stacked_sub_token_spans_of_the_suite(samples):
    # 24 annotations over 3 tokens, 6 of them zero-length (11a/b, 10a/b, 12a/b)
    spanset = read(samples / "tsv3-suite" / "testStackedSubMultiTokenSpanWithFeatureValue" / "reference.tsv",
                   webanno_layer="webanno.custom.Span")
    assert spans_of(spanset) == [
        (0, 6, "1a"), (0, 6, "1b"), (0, 10, "7a"), (0, 10, "7b"), (0, 13, "2a"), (0, 13, "2b"), (3, 10, "8a"),
        (3, 10, "8b"), (3, 13, "6a"), (3, 13, "6b"), (3, 17, "9a"), (3, 17, "9b"), (7, 10, "4a"), (7, 10, "4b"),
        (9, 10, "3a"), (9, 10, "3b"), (9, 13, "5a"), (9, 13, "5b")]
    assert spanset.notes == ["6 zero-length WebAnno annotation(s) left out (a span covers at least one character)"]


@pytest.mark.parametrize("case, expected", [
    ("testCrossSentenceSpanWithFeatureValue", [(0, 34, "PERSON")]),
    ("testTokenBoundedStackedLookAlike", [(0, 4, "NOTSTACKED[0]"), (5, 7, "NOTSTACKED[1]"), (8, 9, "NOTSTACKED[2]"),
                                          (10, 14, "NOTSTACKED[3]"), (15, 16, "NOTSTACKED[4]")]),
    ("testTokenBoundedBioLookAlike", [(0, 4, "B-NOTBIO!"), (5, 7, "I-NOTBIO!"), (8, 9, "I-NOTBIO!"),
                                      (10, 14, "I-NOTBIO!"), (15, 16, "I-NOTBIO!")]),
    ("testTokenBoundedSpanWithSpecialSymbolsValue",
     [(s, e, "#*'\"`´\t:;{}|[ ]()\\§$%?=&_\n") for s, e in ((0, 4), (5, 7), (8, 9), (10, 14), (15, 16))]),
    ("testMultiTokenStackedSpanWithoutFeatureValue", [(0, 16, "Span"), (0, 16, "Span")]),
    ("testSubTokenPrefix", [(0, 1, "OTH")]),
    ("testZeroLengthSpansWithoutFeatures", []),
    ("testStackedChain", []),
])
def test_suite_cases_by_hand(samples, case, expected):
    path = samples / "tsv3-suite" / case / "reference.tsv"
    layers = span_layers(path)
    assert spans_of(read(path, webanno_layer=layers[0] if layers else None)) == expected


def test_chains_relations_and_text_quirks_are_read_as_documented(samples):
    suite = samples / "tsv3-suite"
    chain = read(suite / "testStackedChain" / "reference.tsv")  # INCEpTION's own known round-trip failure
    assert chain.notes == ["6 WebAnno annotation(s) of chain layers (coreference) not read (SimpleLink: 6)"]
    relation = read(suite / "testSingleTokenRelationWithFeatureValue" / "reference.tsv")
    assert relation.notes == ["1 WebAnno annotation(s) of relation layers not read (Relation: 1)"]
    assert read(suite / "testSentenceWithLineBreak" / "reference.tsv").documents["1"].text == "This is\na test ."
    assert read(suite / "testSentenceWithTab" / "reference.tsv").documents["1"].text == "This is\ta test ."
    assert read(suite / "testTwoSentencesWithNoSpaceInBetween" / "reference.tsv").documents["1"].text == "onetwo"
    # one character between the sentences, which the file does not hold: a line break
    assert read(suite / "testSentenceId" / "reference.tsv").documents["1"].text == \
        "He loves her .\nShe loves him not ."
    with pytest.raises(FormatError, match="layer webanno.custom.SimpleLink is a chain layer"):
        read(suite / "testSimpleChain" / "reference.tsv", webanno_layer="SimpleLink")


def _xmi_named_entities(path):
    from lxml import etree

    root = etree.parse(str(path)).getroot()
    sofa = next(e for e in root if etree.QName(e).localname == "Sofa").get("sofaString")
    places, position = {}, 0
    for index, char in enumerate(sofa):  # UTF-16 unit -> code point
        places[position] = index
        position += 2 if ord(char) > 0xFFFF else 1
    places[position] = len(sofa)
    spans = sorted((places[int(e.get("begin"))], places[int(e.get("end"))], e.get("value") or "Span")
                   for e in root if etree.QName(e).localname == "NamedEntity" and e.get("begin") != e.get("end"))
    return sofa, spans


def test_the_suite_equals_its_xmi_twins(samples, shared_corpora):
    """Cases whose TSV holds only ``webanno.custom.Span|value`` and whose XMI holds the same
    annotations as NamedEntity: same text, same spans (the XMI's UTF-16 offsets converted here)."""
    twins = shared_corpora / "uima-xmi-samples" / "inception-tsv3-suite"
    equal, differ = [], []
    for case in sorted((samples / "tsv3-suite").iterdir()):
        path = case / "reference.tsv"
        headers = re.findall(r"^#T_.*$", path.read_text(encoding="utf-8"), re.M)
        if headers != ["#T_SP=webanno.custom.Span|value"] or not (twins / case.name / "reference.xmi").exists():
            continue
        spanset = read(path, webanno_layer="Span")
        sofa, spans = _xmi_named_entities(twins / case.name / "reference.xmi")
        assert spanset.documents["1"].text == sofa, case.name
        (equal if spans_of(spanset) == spans else differ).append(case.name)
    assert len(equal) == 26
    assert differ == ["testSubTokenPrefix"]  # its XMI has no NamedEntity (SOURCE.md)


# --- INCEpTION's curation cases: merge --min-votes 2 of user1, user2 gives curator.tsv -----------

# case -> (layer, label feature): the feature in which the two users differ, where they do
CURATION = {
    "simpleSpanNoDiffWithLabelTest": ("POS", "PosValue"),
    "simpleSpanNoDiffNoLabelTest": ("POS", "PosValue"),
    "simpleSpanNoDiffMultiFeatureTest": ("NamedEntity", "identifier"),
    "simpleSpanDiffWithLabelTest": ("POS", "PosValue"),
    "simpleSpanDiffMultiFeatureTest": ("NamedEntity", "identifier"),
    "simpleSpanDiffNoLabelTest": ("POS", "PosValue"),
    "simpleSpanDiffIncompleteTest": ("POS", "PosValue"),
    "simpleRelNoDiffTest": ("POS", "PosValue"),
    "simpleRelTypeDiffTest": ("POS", "PosValue"),
    "simpleRelGovDiffTest": ("POS", "PosValue"),
    "relationLabelTest": ("POS", "PosValue"),
}
# stacked annotations, which INCEpTION never merges (spanagree merges identical spans by votes)
CURATION_EXCLUDED = {
    "simpleSpanDiffWithLabelStackingTest", "simpleSpanDiffWithLabelStacking2Test",
    "multipleStackedAnnotationsAreNotMergedTest", "relStackedTest", "simpleRelGovStackedTest",
}


def test_the_curation_cases_are_all_listed(samples):
    cases = {p.name for p in (samples / "curation-testsuite").iterdir()}
    assert cases == set(CURATION) | CURATION_EXCLUDED and len(cases) == 16


@pytest.mark.parametrize("case", sorted(CURATION))
def test_merging_the_two_users_gives_the_curators_spans(samples, case, tmp_path, capsys):
    layer, feature = CURATION[case]
    folder = samples / "curation-testsuite" / case
    options = ["--webanno-layer", layer, "--webanno-feature", feature]
    code, _, err = run(capsys, "merge", folder / "user1.tsv", folder / "user2.tsv", "--min-votes", "2",
                       "--to", "webanno", "--out", tmp_path / "merged", *options)
    assert code == 0, err
    merged = read(tmp_path / "merged", webanno_layer=layer, webanno_feature=feature)
    curator = read(folder / "curator.tsv", webanno_layer=layer, webanno_feature=feature)
    assert list(merged.documents) == ["1"]
    assert spans_of(merged) == spans_of(curator)


def test_a_curated_span_without_label_and_a_merged_sentence(samples, tmp_path, capsys):
    folder = samples / "curation-testsuite" / "simpleSpanNoDiffNoLabelTest"
    assert spans_of(read(folder / "curator.tsv", webanno_layer="POS")) == [(17, 25, "POS")]
    relation = read(samples / "curation-testsuite" / "relationLabelTest" / "curator.tsv", webanno_layer="POS",
                    webanno_feature="PosValue")
    assert len(relation.documents["1"].spans) == 26


# --- the other real files ---------------------------------------------------------------------------

def test_the_200_sentence_document(samples):
    spanset = read(samples / "tsv3-misc" / "coref.tsv")
    document = spanset.documents["1"]
    labels = Counter(s.label for s in document.spans)
    assert labels == {"PER": 74}
    assert sum(1 for s in document.spans if " " in document.text[s.start:s.end]) == 2  # multi-token
    assert document.text.count("\n") == 199  # 200 sentences
    assert spanset.notes == [
        "4993 WebAnno annotation(s) of other span layers not read (Lemma: 4993; choose a layer with --webanno-layer)",
        "89 WebAnno annotation(s) of chain layers (coreference) not read (CoreferenceLink: 89)"]


def test_a_real_projects_custom_layer(samples):
    v33 = samples / "neuged-webanno_tsv" / "test_input_v3.3.tsv"
    default = read(v33)
    assert spans_of(default) == []
    assert default.notes[0] == ("1 WebAnno file(s) without the layer NamedEntity (they hold span layer(s) "
                                "LetterEntity, Tex; choose one with --webanno-layer)")
    letters = read(v33, webanno_layer="LetterEntity")
    assert Counter(s.label for s in letters) == {"LIT": 4, "DATEletter": 1, "PERaddressee": 1, "PERauthor": 1,
                                                  "PLACEfrom": 1, "per-mentioned": 1}
    assert Counter(s.label for s in read(samples / "neuged-webanno_tsv" / "test_input.tsv",
                                         webanno_layer="webanno.custom.LetterEntity")) == {
        "DATEletter": 2, "OBJ": 1, "PERaddressee": 2, "PERauthor": 1, "PERmentioned": 2, "PLACEfrom": 2}


@pytest.mark.parametrize("name", ["test_input_multi_sentence_span.tsv", "test_input_quotes.tsv"])
def test_hand_edited_files_are_one_line_naming_the_file(samples, name, capsys, tmp_path):
    path = samples / "neuged-webanno_tsv" / name
    code, _, err = run(capsys, "convert", path, "--to", "jsonl", "--out", tmp_path / "x.jsonl")
    assert code == 1
    assert err == f"spanagree: error: {path}:8: token 1-1 at 0-1 is 'a' but the sentence text there is '='\n"


# --- ids, recognition, commands -----------------------------------------------------------------------

def test_recognised_by_its_first_line_else_a_tsv_is_conll(tmp_path, demo):
    conll = tmp_path / "x.tsv"
    conll.write_text("Ana\tB-PER\n", encoding="utf-8")
    assert detect_format(conll) == "conll"
    assert detect_format(demo / "webanno" / "ann1") == "webanno"
    assert detect_format(demo / "webanno" / "ann1" / "news-01.tsv") == "webanno"


def test_two_annotators_files_line_up_and_agree(samples, capsys):
    folder = samples / "curation-testsuite" / "simpleSpanDiffWithLabelTest"
    code, out, err = run(capsys, "agree", folder / "user1.tsv", folder / "user2.tsv", "--webanno-layer", "POS",
                         "--output", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["options"]["format"] is None and report["options"]["webanno_layer"] == "POS"
    assert report["documents"] == 1
    assert [(p["a"], p["b"], p["c"]) for p in report["pairs"]] == [(0, 1, 1)]  # NN against NE


def test_the_demo_agrees_as_its_brat_version_without_discontinuous_spans(demo):
    folders = [demo / "webanno" / n for n in ("ann1", "ann2", "ann3")]
    brat = [read(demo / "brat" / n) for n in ("ann1", "ann2", "ann3")]
    for spanset in brat:
        for document in spanset.documents.values():
            document.spans = [s for s in document.spans if len(s.fragments) == 1]
    for options in ({}, {"match": "overlap"}):
        from_tsv, from_brat = agree(folders, **options), agree(brat, **options)
        assert [p.counts for p in from_tsv.pairs] == [p.counts for p in from_brat.pairs]
    assert list(read(folders[0]).documents) == list(brat[0].documents)


# --- the writer ---------------------------------------------------------------------------------------

def test_the_writer_round_trips_the_demo_and_writes_sub_tokens_and_utf16(tmp_path, demo):
    brat = read(demo / "brat" / "ann1")
    for document in brat.documents.values():
        document.spans = [s for s in document.spans if len(s.fragments) == 1]
    write_webanno(brat, tmp_path / "out")
    back = read(tmp_path / "out")
    for doc_id, document in brat.documents.items():
        assert back.documents[doc_id].spans == sorted(document.spans, key=Span.sort_key)
    text = "Tom😊s met Bo|Ek.\nX"
    # code points: Tom😊s 0-5, met 6-9, Bo|Ek. 10-16, X 17-18; UTF-16 units: one more after the emoji
    spans = [Span("d", (0, 4), "PER"), Span("d", (2, 5), "B"), Span("d", (10, 15), "A_B"), Span("d", (10, 15), "A_B"),
             Span("d", (17, 18), "X")]
    write_webanno(SpanSet.from_spans("x", spans, {"d": text}), tmp_path / "emoji", webanno_layer="Thing",
                  webanno_feature="kind")
    written = (tmp_path / "emoji" / "d.tsv").read_text(encoding="utf-8")
    assert written == (
        "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Thing|kind\n\n\n"
        "#Text=Tom😊s met Bo|Ek.\n"
        "1-1\t0-6\tTom😊s\t_\t\n"
        "1-1.1\t0-5\tTom😊\tPER\t\n"
        "1-1.2\t2-6\tm😊s\tB\t\n"
        "1-2\t7-10\tmet\t_\t\n"
        "1-3\t11-17\tBo\\|Ek.\t_\t\n"
        "1-3.1\t11-16\tBo\\|Ek\tA\\_B[1]|A\\_B[2]\t\n"
        "\n#Text=X\n"
        "2-1\t18-19\tX\tX\t\n")
    back = read(tmp_path / "emoji", webanno_layer="Thing", webanno_feature="kind")
    assert back.documents["d"].text == text and back.documents["d"].spans == sorted(spans, key=Span.sort_key)


@pytest.mark.parametrize("span, message", [
    (Span("d", ((0, 3), (8, 10)), "PER"), "is discontinuous"),
    (Span("d", (0, 4), "PER"), "starts or ends on whitespace"),
    (Span("d", (3, 6), "PER"), "starts or ends on whitespace"),
])
def test_the_writer_refuses_what_tsv_cannot_hold(tmp_path, span, message):
    with pytest.raises(UsageError, match=message):
        write_webanno(SpanSet.from_spans("x", [span], {"d": "Ana met Bo."}), tmp_path / "out")
    assert not (tmp_path / "out").exists()


_WORDS = st.text(st.sampled_from("ab|_*[]\\😊é-> ;"), min_size=1, max_size=6).filter(lambda w: w.strip() == w)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.lists(_WORDS.filter(lambda w: " " not in w), min_size=1, max_size=5), min_size=1,
                      max_size=3),
       picks=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200), st.sampled_from(["A", "b|[1]", "*", "_"])),
                      max_size=6))
@pytest.mark.slow
def test_any_text_and_spans_round_trip(tmp_path_factory, lines, picks):
    text = "\n".join(" ".join(words) for words in lines)
    spans = []
    for a, b, label in picks:
        start, end = sorted((a % len(text), b % len(text)))
        end += 1
        if text[start].isspace() or text[end - 1].isspace():
            continue
        spans.append(Span("d", (start, end), label))
    folder = tmp_path_factory.mktemp("rt") / "out"
    write_webanno(SpanSet.from_spans("x", spans, {"d": text}), folder)
    back = read(folder).documents["d"]
    assert back.text == text
    assert back.spans == sorted(spans, key=Span.sort_key)


# --- bad input ------------------------------------------------------------------------------------------

HEADER = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|value\n\n\n"


@pytest.mark.parametrize("content, message", [
    ("#FORMAT=WebAnno TSV 2\n", "x.tsv:1: not WebAnno TSV 3"),
    (HEADER + "#Text=Ana\n1-1\t0-3\tAna\n", "x.tsv:6: a row of 3 columns; the headers give 4"),
    (HEADER + "#Text=Ana\n1\t0-3\tAna\t_\t\n", "x.tsv:6: bad token id '1'"),
    (HEADER + "#Text=Ana\n1-1\t3-0\tAna\t_\t\n", "x.tsv:6: offsets 3-0 end before they begin"),
    (HEADER + "#Text=Ana\n1-1\t0-4\tAna\t_\t\n", "x.tsv:6: token 1-1 at 0-4 lies outside its sentence (0-3)"),
    (HEADER + "#Text=😊\n1-1\t0-1\t😊\t_\t\n", "x.tsv:6: token 1-1 at 0-1: an offset falls inside a character"),
    (HEADER + "#Text=Ana\n1-1\t0-3\tAna\t_\t\n\n#Text=Bo\n2-1\t1-3\tBo\t_\t\n",
     "x.tsv:9: sentence at offset 1 starts before the previous one ends (3)"),
    (HEADER.replace("Span|value", "Span|value\n#T_XX=a") + "#Text=Ana\n", "x.tsv:3: unknown header '#T_XX=a'"),
    (HEADER + "1-1\t0-3\tAna\t_\t\n", "x.tsv:5: a token row outside a sentence"),
])
def test_bad_files_are_one_line_naming_the_file_and_line(tmp_path, capsys, content, message):
    path = tmp_path / "x.tsv"
    path.write_text(content, encoding="utf-8")
    code, _, err = run(capsys, "convert", path, "--format", "webanno", "--webanno-layer", "Span", "--to", "jsonl",
                       "--out", tmp_path / "x.jsonl")
    assert code == 1
    assert err.startswith(f"spanagree: error: {tmp_path}/{message}") and err.count("\n") == 1, err


def test_a_missing_feature_names_the_layers_features(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text(HEADER + "#Text=Ana\n1-1\t0-3\tAna\tPER\t\n", encoding="utf-8")
    with pytest.raises(FormatError, match="layer webanno.custom.Span has no feature 'kind'; it has: 'value'"):
        read(path, webanno_layer="Span", webanno_feature="kind")
    assert spans_of(read(path, webanno_layer="Span")) == [(0, 3, "PER")]


def test_webanno_document_is_the_one_file_parser(samples):
    path = samples / "tsv3-suite" / "testCrossSentenceSpanWithFeatureValue" / "reference.tsv"
    counts = Counter()
    document = webanno_document(path.read_text(encoding="utf-8"), str(path), "doc", webanno_layer="Span",
                                counts=counts)
    assert document.id == "doc" and [(s.doc, s.start, s.end, s.label) for s in document.spans] == [
        ("doc", 0, 34, "PERSON")]
    assert document.text == "He loves her .\nShe loves him not ."
    assert +counts == Counter()
    emoji = samples / "tsv3-suite" / "testSentenceWithEmoji" / "reference.tsv"
    webanno_document(emoji.read_text(encoding="utf-8"), str(emoji), "e", webanno_layer="Span", counts=counts)
    assert +counts == Counter({"unlabelled Span": 1})


def test_a_fifo_in_a_folder_is_not_read_ahead_by_the_recogniser(tmp_path):
    import os

    from spanagree.formats.webanno import recognise_webanno

    os.mkfifo(tmp_path / "a.tsv")
    assert recognise_webanno(tmp_path, None) is False  # returns at once: the FIFO is not opened


def test_a_carriage_return_is_never_part_of_a_label(tmp_path):
    """Found by the fuzz (issue 32): a raw CR in a row was read into its label, which a writer's
    refusal then printed on two lines; CRs before a line's LF are its line end."""
    tsv = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value\n\n\n"
           "#Text=Ana met Bo.\n1-1\t0-3\tAna\tPER\n1-2\t4-7\tmet\t_\n1-3\t8-10\tBo\tPER\n1-4\t10-11\t.\t_\n")
    path = tmp_path / "d.tsv"
    path.write_bytes(tsv.replace("\n", "\r\n").replace("PER\r\n", "PER\r\r\n").encode())
    assert [(s.start, s.end, s.label) for s in read(path, "webanno")] == [(0, 3, "PER"), (8, 10, "PER")]
    path.write_bytes(tsv.replace("\tPER\n1-2", "\tPER\r\t\n1-2").encode())  # a raw CR inside a row
    with pytest.raises(FormatError) as error:
        read(path, "webanno")
    assert str(error.value) == f"{path}:6: a carriage return inside the line (WebAnno TSV writes it escaped, \\r)"
