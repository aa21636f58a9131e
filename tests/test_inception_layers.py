"""INCEpTION's span features and relation layers (issue 28), in WebAnno TSV 3 and UIMA XMI: read
from INCEpTION's own test files (tests/data/inception-layers, counted by hand in its SOURCE.md),
written, and read back (TSV 3 → XMI → TSV 3; a BRAT-shaped span set built here → each format → back).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.errors import SpanagreeWarning
from spanagree.formats import read, write
from spanagree.formats.webanno import webanno_document
from spanagree.span import Relation, Span, SpanSet, compared_attributes
from conftest import run

DATA = Path(__file__).parent / "data" / "inception-layers"
SUITE = DATA / "tsv3-suite"
CURATION = DATA / "curation"


def spans_of(document) -> list[tuple]:
    return sorted((s.start, s.end, s.label, tuple(sorted(compared_attributes(s).items()))) for s in document.spans)


def relations_of(document) -> list[tuple]:
    return sorted((r.type, tuple((role, span.start, span.end, span.label) for role, span in r.arguments))
                  for r in document.relations)


def same(first: SpanSet, second: SpanSet) -> bool:
    """Same documents, texts, spans and relations (SpanSet equality), and the same attributes."""
    return first == second and all(spans_of(document) == spans_of(second.documents[doc_id])
                                   for doc_id, document in first.documents.items())


# --- TSV 3 read: INCEpTION's own files, by hand -------------------------------------------------------

def test_stacked_relations_with_several_features():
    spanset = read(SUITE / "testStackedNonMultiTokenRelationWithMultipleFeatureValues" / "reference.tsv",
                   webanno_layer="Span")
    document = spanset.documents["1"]
    assert spans_of(document) == [(0, 7, "Span", ()), (8, 14, "Span", ())]
    # both on row 1-3 (the dependent "a test" [2]), from row 1-1 (the governor "This is" [1]): 1-1[1_2]|1-1[1_2]
    assert relations_of(document) == [("nsubj", (("Governor", 0, 7, "Span"), ("Dependent", 8, 14, "Span"))),
                                      ("obj", (("Governor", 0, 7, "Span"), ("Dependent", 8, 14, "Span")))]
    assert [str(r.source).rpartition("/")[2] for r in document.relations] == ["reference.tsv:9"] * 2
    assert spanset.notes == [
        "2 WebAnno span(s) without a value of feature 'value' labelled with the layer's name 'Span'",
        "4 WebAnno relation feature value(s) besides the label not read (ComplexRelation: 4)"]
    # the relation's spans are the document's own
    assert all(span is one for r in document.relations for _, span in r.arguments
               for one in document.spans if one == span)


def test_a_relation_between_sub_tokens_and_one_to_a_stacked_span():
    document = read(SUITE / "testSubTokenRelation" / "reference.tsv", webanno_layer="Span").documents["1"]
    # row 1-1.1 "t" (3-4) holds the relation, from row 1-1.2 "T" (0-1); no value: the layer's short name
    assert relations_of(document) == [("Relation", (("Governor", 0, 1, "OTH"), ("Dependent", 3, 4, "OTH")))]
    document = read(SUITE / "testSingleStackedNonTokenRelationWithoutFeatureValue2" / "reference.tsv",
                    webanno_layer="Span").documents["1"]
    # 1-1[0_1]: the governor is row 1-1's only span, the dependent the stacked span [1] on "."
    assert spans_of(document) == [(0, 4, "Span", ()), (15, 16, "Span", ()), (15, 16, "Span", ())]
    assert relations_of(document) == [("Relation", (("Governor", 0, 4, "Span"), ("Dependent", 15, 16, "Span")))]


def test_dependencies_between_pos_tags_and_a_second_feature():
    spanset = read(CURATION / "relationLabelTest" / "user1.tsv", webanno_layer="POS", webanno_feature="PosValue")
    document = spanset.documents["1"]
    assert len(document.spans) == 26 and len(document.relations) == 26
    # 1-1 Heutzutage: PosValue ADV, coarseValue ADV; DependencyType ADV from 1-2 beklagen (VVFIN)
    first = min(document.spans, key=Span.sort_key)
    assert (first.start, first.end, first.label, first.attributes) == (0, 10, "ADV", (("coarseValue", "ADV"),))
    by_dependent = {(r.arguments[1][1].start, r.type): r for r in document.relations}
    adv = by_dependent[(0, "ADV")]
    assert [(role, span.start, span.end, span.label) for role, span in adv.arguments] == [
        ("Governor", 11, 19, "VVFIN"), ("Dependent", 0, 10, "ADV")]
    # 1-6 ",": ROOT, its own governor (1-6)
    root = by_dependent[(39, "ROOT")]
    assert root.arguments[0][1] is root.arguments[1][1]
    types = sorted(r.type for r in document.relations)
    assert types.count("ROOT") == 4 and types.count("SUBJ") == 3 and types.count("AUX") == 2
    assert spanset.notes == [
        "26 WebAnno relation feature value(s) besides the label not read (Dependency: 26)",
        "26 WebAnno annotation(s) of other span layers not read (Lemma: 26; choose a layer with --webanno-layer)"]
    other = read(CURATION / "relationLabelTest" / "user2.tsv", webanno_layer="POS", webanno_feature="PosValue")
    # the two users differ in one dependency's type (1-3 sich: OBJA, XXX), not in their spans
    assert spans_of(other.documents["1"]) == spans_of(document)
    assert sorted(set(relations_of(document)) ^ set(relations_of(other.documents["1"]))) == [
        ("OBJA", (("Governor", 11, 19, "VVFIN"), ("Dependent", 20, 24, "PRF"))),
        ("XXX", (("Governor", 11, 19, "VVFIN"), ("Dependent", 20, 24, "PRF")))]


def test_a_span_features_besides_the_label():
    for user, identifier in (("user1", "A"), ("user2", "B")):
        document = read(CURATION / "simpleSpanDiffMultiFeatureTest" / f"{user}.tsv").documents["1"]
        assert spans_of(document) == [(9, 17, "false", (("identifier", identifier),))]
    # the other feature as the label: value becomes the attribute
    document = read(CURATION / "simpleSpanDiffMultiFeatureTest" / "user1.tsv",
                    webanno_feature="identifier").documents["1"]
    assert spans_of(document) == [(9, 17, "A", (("value", "false"),))]


def test_a_slot_features_roles_joined(tmp_path):
    """The example of INCEpTION's TSV documentation: the roles of a slot feature are one attribute."""
    tsv = ("#FORMAT=WebAnno TSV 3.3\n"
           "#T_SP=webanno.custom.Frame|FE|ROLE_webanno.custom.Frame:Roles_webanno.custom.FrameRolesLink|"
           "webanno.custom.Lu\n#T_SP=webanno.custom.Lu|luvalue\n\n\n#Text=Bob auctioned the clock to John.\n"
           "1-1\t0-3\tBob\t_\t_\t_\tbob\n1-2\t4-13\tauctioned\ttransaction\tseller;goods;buyer\t1-1;1-3[4];1-6\t_\n"
           "1-3\t14-17\tthe\t_\t_\t_\tclock[4]\n1-4\t18-23\tclock\t_\t_\t_\tclock[4]\n1-5\t24-26\tto\t_\t_\t_\t_\n"
           "1-6\t27-31\tJohn\t_\t_\t_\tjohn\n1-7\t31-32\t.\t_\t_\t_\t_\n")
    document = webanno_document(tsv, "frame.tsv", "1", webanno_layer="Frame", webanno_feature="FE")
    assert spans_of(document) == [(4, 13, "transaction", (("Roles", "seller|goods|buyer"),))]


# --- TSV 3 bad files: one line naming the file and the line ---------------------------------------------

BAD_HEAD = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|value\n"
            "#T_RL=webanno.custom.Relation|value|BT_webanno.custom.Span\n\n\n#Text=This is a test .\n")


@pytest.mark.parametrize("row, message", [
    ("1-4\t10-14\ttest\tY\tr\t1-2\t", "bad.tsv:10: a Relation relation's governor is row 1-2, which holds no Span "
                                      "annotation"),
    ("1-4\t10-14\ttest\tY\tr\t1-1[7_0]\t", "bad.tsv:10: a Relation relation's governor is annotation [7], which holds "
                                           "no Span annotation"),
    ("1-4\t10-14\ttest\tY\tr\t1-1[0_3]\t", "bad.tsv:10: a Relation relation's dependent is annotation [3], which "
                                           "holds no Span annotation"),
    ("1-4\t10-14\ttest\tY\tr\tfirst\t", "bad.tsv:10: bad Relation reference 'first' (the governor's SENTENCE-TOKEN, "
                                        "with [GOVERNOR_DEPENDENT] ids where either has one)"),
])
def test_a_relation_to_a_missing_span_is_one_line(tmp_path, capsys, row, message):
    bad = tmp_path / "bad.tsv"
    bad.write_text(BAD_HEAD + "1-1\t0-4\tThis\tX\t_\t_\t\n1-2\t5-7\tis\t_\t_\t_\t\n1-3\t8-9\ta\t_\t_\t_\t\n"
                   + row + "\n1-5\t15-16\t.\t_\t_\t_\t\n", encoding="utf-8")
    code, _, err = run(capsys, "convert", bad, "--to", "jsonl", "--out", tmp_path / "out.jsonl",
                       "--webanno-layer", "Span")
    assert code == 1 and err == f"spanagree: error: {tmp_path / message}\n"
    # the row holding the dependent but not the relation's reference: read
    bad.write_text(BAD_HEAD + "1-1\t0-4\tThis\tX\t_\t_\t\n1-2\t5-7\tis\t_\t_\t_\t\n1-3\t8-9\ta\t_\t_\t_\t\n"
                   "1-4\t10-14\ttest\tY\tr\t1-1\t\n1-5\t15-16\t.\t_\t_\t_\t\n", encoding="utf-8")
    assert relations_of(read(bad, webanno_layer="Span").documents["1"]) == [
        ("r", (("Governor", 0, 4, "X"), ("Dependent", 10, 14, "Y")))]


# --- XMI read: INCEpTION's own files ------------------------------------------------------------------

def test_stacked_spans_with_a_second_feature_and_their_relations():
    types = DATA / "mergecas" / "webannoTestTypes.xml"
    one = read(DATA / "mergecas" / "stackedrel1.xmi", xmi_typesystem=types, xmi_type="webanno.custom.Multivalspan",
               xmi_feature="f1").documents["1"]
    assert spans_of(one) == [(2, 6, "A", (("f2", "B"),)), (2, 6, "A", (("f2", "C"),)), (2, 6, "B", (("f2", "C"),)),
                             (12, 17, "C", (("f2", "D"),))]
    # Multivalrel's label is its first string feature, rel1; its governor the span A/C (xmi:id 113)
    assert relations_of(one) == [("r1", (("Governor", 2, 6, "A"), ("Dependent", 12, 17, "C"))),
                                 ("r2", (("Governor", 2, 6, "A"), ("Dependent", 12, 17, "C")))]
    assert [compared_attributes(r.arguments[0][1]) for r in one.relations] == [{"f2": "C"}, {"f2": "C"}]
    two = read(DATA / "mergecas" / "stackedrel2.xmi", xmi_typesystem=types, xmi_type="webanno.custom.Multivalspan",
               xmi_feature="f1").documents["1"]
    assert relations_of(two) == [("r1", (("Governor", 2, 6, "A"), ("Dependent", 12, 17, "C"))),
                                 ("r2", (("Governor", 2, 6, "A"), ("Dependent", 12, 17, "C"))),
                                 ("r2", (("Governor", 2, 6, "A"), ("Dependent", 12, 17, "C"))),
                                 ("r3", (("Governor", 2, 6, "B"), ("Dependent", 12, 17, "C")))]


def test_the_xmi_twin_of_a_tsv_file_reads_the_same():
    tsv = read(SUITE / "testSubTokenRelation" / "reference.tsv", webanno_layer="Span")
    xmi = read(SUITE / "testSubTokenRelation" / "reference.xmi", xmi_typesystem=SUITE / "webannoTestTypes.xml",
               xmi_type="webanno.custom.Span")
    assert same(tsv, xmi) and len(xmi.documents["1"].relations) == 1


def test_a_real_inception_export_with_a_custom_relation_layer(shared_corpora):
    folder = shared_corpora / "uima-xmi-samples" / "inception-export-relation_test"
    document = read(folder / "relation_test.xmi", xmi_type="webanno.custom.MyRelationBase").documents["1"]
    assert spans_of(document) == [(0, 9, "city", ()), (16, 22, "state", ()), (25, 33, "city", ()),
                                  (40, 52, "state", ())]
    assert relations_of(document) == [("located in", (("Governor", 0, 9, "city"), ("Dependent", 16, 22, "state")))]


def test_an_xmi_relation_without_its_governor_is_one_line(tmp_path, capsys):
    source = (SUITE / "testSubTokenRelation" / "reference.xmi").read_text(encoding="utf-8")
    assert source.count(' Governor="') == 1
    bad = tmp_path / "bad.xmi"
    bad.write_text(re.sub(r' Governor="[0-9]+"', "", source), encoding="utf-8")
    (tmp_path / "TypeSystem.xml").write_bytes((SUITE / "webannoTestTypes.xml").read_bytes())
    code, _, err = run(capsys, "convert", bad, "--to", "jsonl", "--out", tmp_path / "out.jsonl",
                       "--xmi-type", "webanno.custom.Span")
    assert code == 1 and err.startswith(f"spanagree: error: {bad}: a Relation relation (xmi:id ")
    assert err.endswith(") has no Governor\n") and err.count("\n") == 1


# --- round trips ----------------------------------------------------------------------------------------

def test_tsv_to_xmi_to_tsv_keeps_spans_attributes_and_relations(tmp_path):
    cases = [(CURATION / "relationLabelTest" / "user1.tsv", "de.tudarmstadt.ukp.dkpro.core.api.lexmorph.type.pos.POS",
              "PosValue"),
             (SUITE / "testStackedNonMultiTokenRelationWithMultipleFeatureValues" / "reference.tsv",
              "webanno.custom.Span", None),
             (SUITE / "testSubTokenRelation" / "reference.tsv", "webanno.custom.Span", None),
             (CURATION / "simpleSpanDiffMultiFeatureTest" / "user1.tsv", None, None)]
    for number, (path, layer, feature) in enumerate(cases):
        tsv = read(path, webanno_layer=layer, webanno_feature=feature)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing is dropped
            write(tsv, tmp_path / f"{number}.xmi", "xmi", xmi_type=layer, xmi_feature=feature)
            xmi = read(tmp_path / f"{number}.xmi", xmi_type=layer, xmi_feature=feature)
            write(xmi, tmp_path / f"{number}.tsv", "webanno", webanno_layer=layer, webanno_feature=feature)
        again = read(tmp_path / f"{number}.tsv", webanno_layer=layer, webanno_feature=feature)
        assert same(tsv, xmi) and same(xmi, again), path
        assert sum(len(d.relations) for d in again.documents.values()) == [26, 2, 1, 0][number]


def test_the_command_line_converts_tsv_to_xmi_and_back(tmp_path, capsys):
    user1 = CURATION / "relationLabelTest" / "user1.tsv"
    options = ["--webanno-layer", "POS", "--webanno-feature", "PosValue", "--xmi-type", "POS",
               "--xmi-feature", "PosValue"]
    code, _, err = run(capsys, "convert", user1, "--to", "xmi", "--out", tmp_path / "xmi", *options)
    assert code == 0 and err == ""
    assert sorted(p.name for p in (tmp_path / "xmi").iterdir()) == ["1.xmi", "TypeSystem.xml"]
    code, _, err = run(capsys, "convert", tmp_path / "xmi", "--to", "webanno", "--out", tmp_path / "tsv", *options)
    assert code == 0 and err == ""
    # the written layers: POS as webanno.custom.POS (a short name), its feature, the relation layer on it
    head = (tmp_path / "tsv" / "1.tsv").read_text(encoding="utf-8").splitlines()[:3]
    assert head == ["#FORMAT=WebAnno TSV 3.3", "#T_SP=webanno.custom.POS|PosValue|coarseValue",
                    "#T_RL=webanno.custom.Relation|value|BT_webanno.custom.POS"]
    original = read(user1, webanno_layer="POS", webanno_feature="PosValue")
    assert same(original, read(tmp_path / "tsv", webanno_layer="POS", webanno_feature="PosValue"))


def brat_shaped() -> SpanSet:
    """What the BRAT reader makes of a relation corpus: attributes of each line kind, relations
    Arg1/Arg2 (one between stacked spans, one on a span over two tokens), one relation
    Governor/Dependent, an event and a relation of three arguments (which TSV and XMI cannot hold)."""
    text = "Aspirin reduces fever in adults.\nIbuprofen 😊 treats pain."
    aspirin = Span("doc1", 0, 7, "Drug", attributes=(("A:Negation", "True"), ("N:Reference", "Wikipedia:1"),
                                                    ("#:AnnotatorNotes", "check")))
    fever = Span("doc1", 16, 21, "Finding", attributes=(("A:Certainty", "Possible|Likely"),))
    fever_too = Span("doc1", 16, 21, "Symptom")
    adults = Span("doc1", 25, 31, "Population", attributes=(("kb_id", "Q80994"), ("label-1", "x")))
    reduces = Span("doc1", 8, 15, "Effect")
    ibuprofen = Span("doc1", 33, 42, "Drug")
    pain = Span("doc1", 43, 56, "Finding")  # "😊 treats pain": over three tokens
    spanset = SpanSet.from_spans("ann", [aspirin, fever, fever_too, adults, reduces, ibuprofen, pain],
                                 {"doc1": text, "sub/doc2": "No relation here."})
    spanset.documents["doc1"].relations = [
        Relation("Treats", (("Arg1", aspirin), ("Arg2", fever))),
        Relation("Treats", (("Arg1", aspirin), ("Arg2", fever_too))),
        Relation("Same", (("Arg1", fever), ("Arg2", fever_too))),
        Relation("Treats", (("Arg1", ibuprofen), ("Arg2", pain))),
        Relation("In", (("Governor", fever), ("Dependent", adults))),
        Relation("Reduce", (("Theme", fever),), trigger=reduces),
        Relation("Compare", (("Arg1", aspirin), ("Arg2", ibuprofen), ("Arg3", pain))),
    ]
    return spanset


@pytest.mark.parametrize("fmt, title", [("webanno", "WebAnno TSV"), ("xmi", "XMI")])
def test_a_brat_shaped_span_set_written_and_read_back(tmp_path, fmt, title):
    spanset = brat_shaped()
    with pytest.warns(SpanagreeWarning) as caught:
        write(spanset, tmp_path / "out", fmt)
    assert [str(w.message) for w in caught] == [
        f"{title} output: not written: 1 note (BRAT #, e.g. AnnotatorNotes) on spans, 1 span attribute whose name "
        "cannot be a feature's, 1 event, 1 relation of other than two arguments"]
    again = read(tmp_path / "out", fmt)
    assert list(again.documents) == ["doc1", "sub/doc2"]
    kept = SpanSet.from_spans("ann", list(spanset), spanset.texts())
    kept.documents["doc1"].relations = spanset.documents["doc1"].relations[:5]
    assert again == kept  # spans, texts and the binary relations with their roles (Arg1, Governor ...)
    assert spans_of(again.documents["doc1"]) == [
        (0, 7, "Drug", (("Negation", "True"), ("Reference", "Wikipedia:1"))),
        (8, 15, "Effect", ()),
        (16, 21, "Finding", (("Certainty", "Possible|Likely"),)),
        (16, 21, "Symptom", ()),
        (25, 31, "Population", (("kb_id", "Q80994"),)),
        (33, 42, "Drug", ()),
        (43, 56, "Finding", ())]
    # written in the other format and read back: the same again
    other = "xmi" if fmt == "webanno" else "webanno"
    write(again, tmp_path / "other", other)
    assert same(read(tmp_path / "other", other), again)


def test_a_relation_to_a_span_the_document_lacks_is_announced(tmp_path):
    spanset = brat_shaped()
    document = spanset.documents["doc1"]
    lost = Span("doc1", 0, 15, "Drug")  # not among the document's spans
    document.relations = [Relation("Treats", (("Arg1", lost), ("Arg2", document.spans[1])))]
    with pytest.warns(SpanagreeWarning, match=r"not written: 1 note .*, 1 span attribute whose name cannot be a "
                                              r"feature's, 1 relation to a span the document does not hold$"):
        write(spanset, tmp_path / "out", "webanno")
    assert read(tmp_path / "out", "webanno").documents["doc1"].relations == []


@pytest.mark.parametrize("name", ["uima.cas.String", "uima.tcas.Annotation", "a..b", "webanno.custom.Relation",
                                  "1x"])
def test_a_type_xmi_cannot_write_is_refused(tmp_path, capsys, name):
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"id": "d", "text": "abc", "spans": [{"start": 0, "end": 3, "label": "X"}]}\n', encoding="utf-8")
    code, _, err = run(capsys, "convert", jsonl, "--to", "xmi", "--out", tmp_path / "out", "--xmi-type", name)
    full = name if "." in name else f"webanno.custom.{name}"
    assert code == 2 and err == (f"spanagree: error: {full!r} cannot be the UIMA type written (dot-separated names, "
                                 "none of UIMA's own uima.* types, not webanno.custom.Relation); choose another with "
                                 "--xmi-type\n")
    assert not (tmp_path / "out").exists()


def test_an_attribute_named_as_the_label_feature_is_refused(tmp_path):
    from spanagree.errors import UsageError

    spanset = SpanSet.from_spans("a", [Span("d", 0, 3, "X", attributes=(("value", "v"),))], {"d": "abc"})
    for fmt, option in (("webanno", "webanno_feature"), ("xmi", "xmi_feature")):
        with pytest.raises(UsageError, match=f"a span attribute is named 'value', as the label feature; choose "
                                             f"another label feature with {option}"):
            write(spanset, tmp_path / fmt, fmt)
        assert not (tmp_path / fmt).exists()
    write(spanset, tmp_path / "tsv", "webanno", webanno_feature="label")
    assert spans_of(read(tmp_path / "tsv", "webanno", webanno_feature="label").documents["d"]) == [
        (0, 3, "X", (("value", "v"),))]


@pytest.mark.parametrize("fmt", ["webanno", "xmi"])
def test_merges_gold_keeps_its_vote_notes_to_itself(demo, tmp_path, capsys, fmt):
    """merge's gold carries its own vote notes, which a format without notes leaves out unannounced."""
    code, _, err = run(capsys, "merge", demo / "brat" / "ann1", demo / "brat" / "ann2", "--to", fmt, "--out",
                       tmp_path / "gold")
    assert code == 0 and err == ""
    gold = read(tmp_path / "gold", fmt)
    assert len(gold) == 61 and all(span.attributes == () for span in gold)


_WORDS = st.text(st.sampled_from("ab|_*[]\\😊é->;"), min_size=1, max_size=5)
_VALUES = st.text(st.sampled_from("ab|_*[]\\😊é->; \t\n"), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.lists(_WORDS, min_size=1, max_size=5), min_size=1, max_size=3),
       picks=st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99), st.sampled_from(["A", "b|[1]", "*", "_"]),
                                st.dictionaries(st.sampled_from(["Negation", "A:Certainty", "kb_id"]), _VALUES,
                                                max_size=2)),
                      min_size=1, max_size=6),
       arcs=st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99), _VALUES.filter(lambda v: v.strip() == v),
                               st.sampled_from([("Governor", "Dependent"), ("Arg1", "Arg2"), ("Arg1", "Dependent")])),
                     max_size=4))
@pytest.mark.slow
def test_any_spans_attributes_and_relations_round_trip(tmp_path_factory, lines, picks, arcs):
    text = "\n".join(" ".join(words) for words in lines)
    spans = []
    for a, b, label, attributes in picks:
        start, end = sorted((a % len(text), b % len(text)))
        end += 1
        if not (text[start].isspace() or text[end - 1].isspace()):
            spans.append(Span("d", (start, end), label, attributes=tuple(attributes.items())))
    spanset = SpanSet.from_spans("x", spans, {"d": text})
    if spans:
        spanset.documents["d"].relations = [
            Relation(kind, ((roles[0], spans[a % len(spans)]), (roles[1], spans[b % len(spans)])))
            for a, b, kind, roles in arcs]
    for fmt in ("webanno", "xmi"):
        folder = tmp_path_factory.mktemp(fmt) / "out"
        write(spanset, folder, fmt)
        assert same(read(folder, fmt), spanset), fmt


def test_an_inception_project_reads_its_users_features_and_relations(tmp_path):
    """A project export's per-user TSV files and per-user XMI zips give their relations and attributes."""
    import zipfile

    project = tmp_path / "project"
    for user in ("user1", "user2"):
        member = project / "annotation" / "relationLabelTest.txt" / f"{user}.tsv"
        member.parent.mkdir(parents=True, exist_ok=True)
        member.write_bytes((CURATION / "relationLabelTest" / f"{user}.tsv").read_bytes())
    for user in ("user1", "user2"):
        member = project / "annotation" / "stackedrel.txt" / f"{user}.zip"
        member.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(member, "w") as archive:
            archive.write(DATA / "mergecas" / f"stacked{user.replace('user', 'rel')}.xmi", "stackedrel.xmi")
            archive.write(DATA / "mergecas" / "webannoTestTypes.xml", "TypeSystem.xml")
    (project / "source").mkdir()
    (project / "exportedproject.json").write_text("{}", encoding="utf-8")
    options = dict(webanno_layer="POS", webanno_feature="PosValue", xmi_type="webanno.custom.Multivalspan",
                   xmi_feature="f1")
    for user in ("user1", "user2"):
        inside = read(project, "inception", annotator=user, **options)
        alone = read(CURATION / "relationLabelTest" / f"{user}.tsv", webanno_layer="POS", webanno_feature="PosValue")
        tsv = inside.documents["relationLabelTest.txt"]
        assert spans_of(tsv) == spans_of(alone.documents["1"])
        assert relations_of(tsv) == relations_of(alone.documents["1"])
        xmi = inside.documents["stackedrel.txt"]
        assert len(xmi.relations) == {"user1": 2, "user2": 4}[user]
        assert spans_of(xmi)[-1] == (12, 17, "C", (("f2", "D"),))
