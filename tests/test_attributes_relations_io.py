"""Attributes, knowledge-base ids and relations as JSONL, Label Studio, spaCy DocBin and CoNLL read
and write them (issue 28, point 1): values checked by hand, round trips (relations compared by
``SpanSet.__eq__``, attributes compared here), bad input as one line, and what writers announce.

Real files: HIPE-2022's gold and an entity-linking run (``tests/data/hipe2022``, SOURCE.md) for
CoNLL link columns; spaCy docs built with spaCy itself; Healthsea's DocBin (the shared corpora).
No licence-clear Label Studio export with relations or per-region results was found
(``labelstudio-samples/SOURCE.md``): the exports here follow Label Studio's documented result
shapes (``labels``, ``choices``, ``textarea``, ``rating``, ``relation``).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.formats import collect, convert, dropped, open_annotators, read, write
from spanagree.formats.jsonl import _documents, part_notes_jsonl
from spanagree.formats.labelstudio import symmetric_relation_types
from spanagree.span import Relation, Span, SpanSet, spanset_as_written

from conftest import run

HIPE = Path(__file__).parent / "data" / "hipe2022"
GOLD = HIPE / "HIPE-2022-v2.1-hipe2020-test-en.excerpt.tsv"
LINKING_RUN = HIPE / "team5_bundle5_hipe2020_en_1.excerpt.tsv"


def attributes_of(spanset) -> list[tuple]:
    """Every span with its attributes, in canonical order (attributes are not part of equality)."""
    return sorted((s.doc, s.sort_key(), s.attributes) for s in spanset)


def relations_of(spanset) -> list[tuple]:
    """Every relation as (type, trigger text, ((role, argument text), ...)), in canonical order."""
    found = []
    for document in spanset.documents.values():
        def shown(span):
            return None if span is None else document.text[span.start:span.end]
        for relation in sorted(document.relations, key=Relation.sort_key):
            found.append((relation.type, shown(relation.trigger),
                          tuple((role, shown(span)) for role, span in relation.arguments)))
    return found


def announced(call) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if w.category is SpanagreeWarning]


# ---------------------------------------------------------------- JSONL

TEXT = "Aspirin causes ulcers and nausea."
RECORD = {"id": "d1", "text": TEXT, "spans": [
    {"start": 0, "end": 7, "label": "Drug", "kb_id": "Q18216",
     "attributes": {"Negation": False, "Score": 0.5, "Rank": 2, "Candidates": ["Q1", "Q2"]}},
    {"start": 15, "end": 21, "label": "Finding", "id": "T2"},
    {"start": 8, "end": 14, "label": "Cause"},
    {"start": 26, "end": 32, "label": "Finding", "kb_id": None, "attributes": {}}],
    "relations": [{"type": "Causes", "args": [{"role": "Arg1", "span": 0}, {"role": "Arg2", "span": "T2"}]},
                  {"type": "Causes", "args": [{"role": "Arg1", "span": 0}, {"role": "Arg2", "span": 3}]},
                  {"type": "Effect", "trigger": 2, "args": [{"role": "Cause", "span": 0},
                                                            {"role": "Theme", "span": 1}, {"role": "Theme", "span": 3}]}]}


def jsonl(tmp_path, *records, name="a.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_jsonl_attributes_and_relations_are_read_as_written(tmp_path):
    spanset = read(jsonl(tmp_path, RECORD))
    document = spanset.documents["d1"]
    # kb_id first, then the attributes in their order; false as BRAT's flag, numbers as Python writes them
    assert [(TEXT[s.start:s.end], s.attributes) for s in document.spans] == [
        ("Aspirin", (("kb_id", "Q18216"), ("Negation", "False"), ("Score", "0.5"), ("Rank", "2"),
                     ("Candidates", "Q1|Q2"))),
        ("ulcers", ()), ("causes", ()), ("nausea", ())]  # "kb_id": null is no id
    assert read(jsonl(tmp_path, {"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER", "kb_id": ""}]},
                      name="none.jsonl")).documents["1"].spans[0].attributes == ()  # nor is spaCy's ""
    assert relations_of(spanset) == [
        ("Causes", None, (("Arg1", "Aspirin"), ("Arg2", "ulcers"))),
        ("Causes", None, (("Arg1", "Aspirin"), ("Arg2", "nausea"))),
        ("Effect", "causes", (("Cause", "Aspirin"), ("Theme", "ulcers"), ("Theme", "nausea")))]
    # the relations' spans are the document's spans (the same objects)
    assert all(any(span is s for s in document.spans) for r in document.relations for span in r.spans)


def test_jsonl_round_trip_keeps_attributes_and_relations_and_writes_them_in_one_shape(tmp_path):
    spanset = read(jsonl(tmp_path, RECORD))
    assert announced(lambda: write(spanset, tmp_path / "b.jsonl", "jsonl")) == []
    line = json.loads((tmp_path / "b.jsonl").read_text(encoding="utf-8"))
    assert line["spans"] == [  # canonical order; kb_id beside the label, the others in "attributes"
        {"start": 0, "end": 7, "label": "Drug", "kb_id": "Q18216",
         "attributes": {"Negation": "False", "Score": "0.5", "Rank": "2", "Candidates": "Q1|Q2"}},
        {"start": 8, "end": 14, "label": "Cause"}, {"start": 15, "end": 21, "label": "Finding"},
        {"start": 26, "end": 32, "label": "Finding"}]
    assert line["relations"] == [  # spans by their index in the written list
        {"type": "Causes", "args": [{"role": "Arg1", "span": 0}, {"role": "Arg2", "span": 2}]},
        {"type": "Causes", "args": [{"role": "Arg1", "span": 0}, {"role": "Arg2", "span": 3}]},
        {"type": "Effect", "args": [{"role": "Cause", "span": 0}, {"role": "Theme", "span": 2},
                                    {"role": "Theme", "span": 3}], "trigger": 1}]
    back = read(tmp_path / "b.jsonl")
    assert back == spanset and attributes_of(back) == attributes_of(spanset)
    # and once more: the file written is a fixed point
    write(back, tmp_path / "c.jsonl", "jsonl")
    assert (tmp_path / "c.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_jsonl_without_attributes_or_relations_is_written_as_before(tmp_path):
    spanset = SpanSet.from_spans("a", [Span("d1", 0, 3, "PER")], {"d1": "Ana met Bo."})
    write(spanset, tmp_path / "a.jsonl", "jsonl")
    assert (tmp_path / "a.jsonl").read_text(encoding="utf-8") == \
        '{"id": "d1", "text": "Ana met Bo.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n'


def test_a_relation_that_differs_breaks_the_round_trips_equality(tmp_path):
    spanset = read(jsonl(tmp_path, RECORD))
    other = dict(RECORD, relations=RECORD["relations"][:1] + [
        {"type": "Causes", "args": [{"role": "Arg1", "span": 3}, {"role": "Arg2", "span": 0}]}] + RECORD["relations"][2:])
    assert read(jsonl(tmp_path, other, name="b.jsonl")) != spanset


def test_jsonl_decoders_agree_on_attribute_values(tmp_path):
    record = {"id": "a", "text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PER", "attributes": {
        "t": True, "f": 1.5, "big": 18446744073709551616, "list": [1, "x", False]}}]}
    path = jsonl(tmp_path, record)
    expected = (("t", "True"), ("f", "1.5"), ("big", "18446744073709551616"), ("list", "1|x|False"))
    assert [d.spans[0].attributes for d in _documents(str(path))] == [expected]  # orjson, json where it differs
    assert [d.spans[0].attributes for d in _documents(str(path), fast=False)] == [expected]


def test_doccano_relations_between_entities_by_id(tmp_path):
    record = {"id": 4, "text": "Ana works for Acme.", "entities": [
        {"id": 11, "label": "PER", "start_offset": 0, "end_offset": 3},
        {"id": 12, "label": "ORG", "start_offset": 14, "end_offset": 18}],
        "relations": [{"id": 1, "from_id": 11, "to_id": 12, "type": "works_for"}]}
    spanset = read(jsonl(tmp_path, record))
    assert relations_of(spanset) == [("works_for", None, (("Arg1", "Ana"), ("Arg2", "Acme")))]


def test_prodigys_token_relations_are_counted_not_read(tmp_path):
    record = {"text": "Ana met Bo.", "spans": [{"start": 0, "end": 3, "label": "PER"}],
              "relations": [{"head": 0, "child": 2, "label": "MEETS", "head_span": {"start": 0, "end": 3},
                             "child_span": {"start": 8, "end": 10}}]}
    spanset = read(jsonl(tmp_path, record, record | {"text": "Bo met Ana."}))
    assert relations_of(spanset) == []
    assert spanset.notes == ['2 Prodigy relations (between tokens: "head", "child") not read']
    # read in parts (--jobs), the parts' counts give the same note
    assert part_notes_jsonl("a.jsonl", {"prodigy_relations": 2}) == (
        ['2 Prodigy relations (between tokens: "head", "child") not read'], [])


@pytest.mark.parametrize("span, relations, message", [
    ({"start": 0, "end": 3, "label": "PER"},
     [{"type": "Knows", "args": [{"role": "Arg1", "span": 0}, {"role": "Arg2", "span": 1}]}],
     "relation 1: argument 2 names span 1, which the record does not have (1 span, by index from 0, or by id)"),
    ({"start": 0, "end": 3, "label": "PER"}, [{"type": "Knows", "args": [{"role": "Arg1", "span": "T9"}]}],
     'relation 1: argument 1 names span "T9", which the record does not have (1 span, by index from 0, or by id)'),
    ({"start": 0, "end": 3, "label": "PER"}, [{"type": "", "args": [{"role": "Arg1", "span": 0}]}],
     'relation 1: "type" must be a non-empty string, got ""'),
    ({"start": 0, "end": 3, "label": "PER"}, [{"type": "Ev", "trigger": 4, "args": [{"role": "A", "span": 0}]}],
     "relation 1: its trigger names span 4, which the record does not have (1 span, by index from 0, or by id)"),
    ({"start": 0, "end": 3, "label": "PER", "attributes": {"x": {"y": 1}}}, [],
     "span 1's attribute 'x': an attribute's value is a string, a number, true, false or a list of them, "
     'got {"y": 1}'),
    ({"start": 0, "end": 3, "label": "PER", "kb_id": "Q1", "attributes": {"kb_id": "Q2"}}, [],
     'span 1: "kb_id" given twice (beside "attributes" and in it)'),
    ({"start": 0, "end": 3, "label": "PER", "attributes": {"n": 1e19}}, [],
     "span 1's attribute 'n': the number 1e+19 is too large for an attribute's value (write it as a string)"),
])
def test_bad_attributes_and_relations_are_one_line_naming_file_and_line(tmp_path, capsys, span, relations, message):
    path = jsonl(tmp_path, {"id": "x", "text": "Ana met Bo.", "spans": []},
                 {"id": "a", "text": "Ana met Bo.", "spans": [span], "relations": relations})
    with pytest.raises(FormatError) as caught:
        read(path)
    assert str(caught.value) == f"{path}:2: {message}"
    code, out, err = run(capsys, "convert", path, "--to", "jsonl", "--out", tmp_path / "o.jsonl")
    assert (code, out, err) == (1, "", f"spanagree: error: {path}:2: {message}\n")


def test_brat_attributes_go_to_jsonl_and_come_back_to_brat(tmp_path):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "d.txt").write_text("Ana met Bo in Porto.", encoding="utf-8")
    (folder / "d.ann").write_text("T1\tPER 0 3\tAna\nT2\tLOC 14 19\tPorto\nA1\tNegation T1\nA2\tCertainty T1 High\n"
                                  "N1\tReference T2 Wikipedia:1\n#1\tAnnotatorNotes T2\ta note\n", encoding="utf-8")
    source = read(folder)
    # notes are free text, never compared: left out, as before, and announced
    assert announced(lambda: convert(folder, tmp_path / "d.jsonl", to="jsonl")) == [
        "JSONL output: not written: 1 note (BRAT #, e.g. AnnotatorNotes) on spans"]
    line = json.loads((tmp_path / "d.jsonl").read_text(encoding="utf-8"))
    assert [s.get("attributes") for s in line["spans"]] == [
        {"A:Negation": "True", "A:Certainty": "High"}, {"N:Reference": "Wikipedia:1"}]
    compared = [(d, k, tuple(a for a in attributes if not a[0].startswith("#:")))
                for d, k, attributes in attributes_of(source)]
    back = read(tmp_path / "d.jsonl")
    assert attributes_of(back) == compared
    convert(tmp_path / "d.jsonl", tmp_path / "again", to="brat")
    assert attributes_of(read(tmp_path / "again")) == compared


# ---------------------------------------------------------------- Label Studio

LS_TEXT = "Aspirin causes ulcers and nausea."


def region(rid, start, end, *labels):
    return {"id": rid, "type": "labels", "from_name": "label", "to_name": "text",
            "value": {"start": start, "end": end, "text": LS_TEXT[start:end], "labels": list(labels)}}


def per_region(rid, kind, name, value):
    return {"id": rid, "type": kind, "from_name": name, "to_name": "text", "value": value}


def relation(source, target, direction="right", *labels):
    return {"from_id": source, "to_id": target, "type": "relation", "direction": direction, "labels": list(labels)}


LS_RESULTS = [
    region("a", 0, 7, "Drug"), region("b", 15, 21, "Finding"), region("c", 26, 32, "Finding", "Symptom"),
    per_region("b", "choices", "negation", {"start": 15, "end": 21, "choices": ["Affirmed"]}),
    per_region("a", "choices", "kb_id", {"start": 0, "end": 7, "choices": ["Q18216", "Q1"]}),
    per_region("c", "textarea", "note", {"start": 26, "end": 32, "text": ["mild"]}),
    per_region("c", "rating", "severity", {"rating": 2}),
    per_region("c", "taxonomy", "kind", {"taxonomy": [["Symptom", "GI"]]}),
    relation("a", "b", "right", "Causes"), relation("c", "a", "left", "Causes"), relation("b", "c", "bi"),
    {"id": "s", "type": "choices", "from_name": "sentiment", "to_name": "text", "value": {"choices": ["Negative"]}},
]


def ls_export(tmp_path, results, name="export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps([{"id": 7, "data": {"text": LS_TEXT}, "annotations": [
        {"id": 1, "completed_by": 2, "result": results}]}]), encoding="utf-8")
    return path


def test_label_studio_relations_and_per_region_results_are_read(tmp_path):
    path = ls_export(tmp_path, LS_RESULTS)
    spanset = read(path)
    document = spanset.documents["7"]
    assert [(LS_TEXT[s.start:s.end], s.label, s.attributes) for s in document.spans] == [
        ("Aspirin", "Drug", (("kb_id", "Q18216|Q1"),)),
        ("ulcers", "Finding", (("negation", "Affirmed"),)),
        # a region of two labels: both spans carry its attributes
        ("nausea", "Finding", (("note", "mild"), ("severity", "2"), ("kind", "Symptom/GI"))),
        ("nausea", "Symptom", (("note", "mild"), ("severity", "2"), ("kind", "Symptom/GI")))]
    assert relations_of(spanset) == [  # left: from the region pointed at; bi: from → to; unlabelled: "relation"
        ("Causes", None, (("Arg1", "Aspirin"), ("Arg2", "ulcers"))),
        ("Causes", None, (("Arg1", "Aspirin"), ("Arg2", "nausea"))),
        ("relation", None, (("Arg1", "ulcers"), ("Arg2", "nausea")))]
    # the region of two labels takes part by its first label's span
    assert [r.arguments[1][1].label for r in document.relations if r.arguments[1][1].start == 26] == ["Finding"] * 2
    assert spanset.notes == [
        "1 Label Studio result(s) other than labelled spans (choices, relations, ...) not read",  # the whole-task choice
        "1 bidirectional Label Studio relation(s) read from → to (their types, symmetric: relation)"]
    assert symmetric_relation_types(path) == frozenset({"relation"})


def test_label_studio_round_trip_and_through_jsonl(tmp_path):
    spanset = read(ls_export(tmp_path, LS_RESULTS))
    assert announced(lambda: write(spanset, tmp_path / "back.json", "labelstudio")) == []
    back = read(tmp_path / "back.json")
    assert back == spanset and attributes_of(back) == attributes_of(spanset)
    written = json.loads((tmp_path / "back.json").read_text(encoding="utf-8"))[0]["annotations"][0]["result"]
    assert [(r["type"], r.get("id"), r.get("from_name")) for r in written] == [
        ("labels", "r1", "label"), ("choices", "r1", "kb_id"), ("labels", "r2", "label"),
        ("choices", "r2", "negation"), ("labels", "r3", "label"), ("choices", "r3", "note"),
        ("choices", "r3", "severity"), ("choices", "r3", "kind"), ("labels", "r4", "label"),
        ("choices", "r4", "note"), ("choices", "r4", "severity"), ("choices", "r4", "kind"),
        ("relation", None, None), ("relation", None, None), ("relation", None, None)]
    assert written[1]["value"]["choices"] == ["Q18216", "Q1"]
    # Label Studio → JSONL → Label Studio keeps them too
    convert(tmp_path / "back.json", tmp_path / "x.jsonl", to="jsonl")
    convert(tmp_path / "x.jsonl", tmp_path / "y.json", to="labelstudio")
    again = read(tmp_path / "y.json")
    assert again == spanset and attributes_of(again) == attributes_of(spanset)


def test_label_studio_without_attributes_or_relations_is_written_as_before(tmp_path):
    spanset = SpanSet.from_spans("ana", [Span("d1", (0, 3), "PER")], {"d1": "Ana met Bo."})
    write(spanset, tmp_path / "e.json", "labelstudio")
    assert json.loads((tmp_path / "e.json").read_text(encoding="utf-8")) == [
        {"id": "d1", "data": {"text": "Ana met Bo."}, "annotations": [{"completed_by": {"email": "ana"}, "result": [
            {"id": "r1", "type": "labels", "from_name": "label", "to_name": "text",
             "value": {"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}}]}]}]


def test_label_studio_leaves_out_events_and_other_roles_and_says_so(tmp_path):
    a, b, c = Span("d", 0, 3, "PER"), Span("d", 8, 10, "PER"), Span("d", 4, 7, "Meet")
    spanset = SpanSet.from_spans("x", [a, b, c], {"d": "Ana met Bo."})
    spanset.documents["d"].relations = [Relation("Knows", (("Arg1", a), ("Arg2", b))),
                                        Relation("Meet", (("Who", a), ("Whom", b)), c),
                                        Relation("Knows", (("Head", a), ("Child", b)))]
    assert announced(lambda: write(spanset, tmp_path / "e.json", "labelstudio")) == [
        "Label Studio output: not written: 1 relation, 1 event (Label Studio holds relations Arg1 → Arg2 only)"]
    assert relations_of(read(tmp_path / "e.json")) == [("Knows", None, (("Arg1", "Ana"), ("Arg2", "Bo")))]
    assert announced(lambda: write(spanset, tmp_path / "e.jsonl", "jsonl")) == []  # JSONL holds them all
    assert read(tmp_path / "e.jsonl") == spanset


def test_a_relation_to_a_missing_region_is_one_line_naming_the_task(tmp_path, capsys):
    path = ls_export(tmp_path, [region("a", 0, 7, "Drug"), relation("a", "x9", "right", "Causes")])
    code, out, err = run(capsys, "agree", path, path)
    assert (code, out) == (1, "")
    assert err == f"spanagree: error: {path}: task 7: a relation's to_id 'x9' names no region of the annotation\n"


def test_relations_between_regions_of_other_kinds_are_not_read(tmp_path):
    rectangle = {"id": "r", "type": "rectanglelabels", "from_name": "box", "to_name": "image",
                 "value": {"x": 1, "y": 2, "width": 3, "height": 4, "rectanglelabels": ["Logo"]}}
    spanset = read(ls_export(tmp_path, [region("a", 0, 7, "Drug"), rectangle, relation("a", "r", "right", "Near")]))
    assert relations_of(spanset) == []
    assert spanset.notes == ["2 Label Studio result(s) other than labelled spans (choices, relations, ...) not read"]


@pytest.mark.parametrize("result, message", [
    (relation("a", "a", "up", "X"), "a relation's direction is right, left or bi, not 'up'"),
    (relation("a", "a", "right", 3), "a relation's labels are not a list of strings: [3]"),
    (per_region("a", "choices", "neg", {"choices": []}),
     "the choices result 'neg' of region 'a' has no value (value.choices: [])"),
    (per_region("a", "choices", None, {"choices": ["x"]}), "a choices result of region 'a' has no from_name"),
])
def test_bad_relations_and_per_region_results_name_the_task(tmp_path, result, message):
    path = ls_export(tmp_path, [region("a", 0, 7, "Drug"), result])
    with pytest.raises(FormatError) as caught:
        read(path)
    assert str(caught.value) == f"{path}: task 7: {message}"


# ---------------------------------------------------------------- spaCy DocBin

def test_docbin_kb_ids_set_with_spacy_are_read_and_written_back(tmp_path):
    import spacy
    from spacy.tokens import DocBin, Span as SpacySpan

    nlp = spacy.blank("en")
    doc = nlp("Douglas Adams wrote in Cambridge and London.")
    doc.ents = [SpacySpan(doc, 0, 2, label="PERSON", kb_id="Q42"), SpacySpan(doc, 4, 5, label="GPE", kb_id="Q350"),
                SpacySpan(doc, 6, 7, label="GPE")]
    doc.spans["sc"] = [SpacySpan(doc, 0, 2, label="PERSON", kb_id="Q42|Q5")]
    DocBin(store_user_data=True, docs=[doc]).to_disk(tmp_path / "linked.spacy")
    ents = read(tmp_path / "linked.spacy")
    assert [(s.start, s.end, s.label, s.attributes) for s in ents] == [
        (0, 13, "PERSON", (("kb_id", "Q42"),)), (23, 32, "GPE", (("kb_id", "Q350"),)), (37, 43, "GPE", ())]
    group = read(tmp_path / "linked.spacy", docbin_spans_key="sc")
    assert [(s.start, s.end, s.attributes) for s in group] == [(0, 13, (("kb_id", "Q42|Q5"),))]
    for key, spanset in ((None, ents), ("sc", group)):
        options = {} if key is None else {"docbin_spans_key": key}
        write(spanset, tmp_path / "back.spacy", "docbin", **options)
        back = read(tmp_path / "back.spacy", **options)
        assert back == spanset and attributes_of(back) == attributes_of(spanset)
        # and what spaCy itself reads from the file written
        doc_back = next(DocBin().from_disk(tmp_path / "back.spacy").get_docs(nlp.vocab))
        found = doc_back.ents if key is None else doc_back.spans[key]
        assert [(s.text, s.kb_id_) for s in found] == [
            (doc.text[s.start:s.end], dict(s.attributes).get("kb_id", "")) for s in spanset]


def test_docbin_keeps_kb_id_announces_the_other_attributes_and_relations(tmp_path):
    a, b = Span("d", 0, 3, "PER", attributes=(("kb_id", "Q1"), ("A:Negation", "True"))), Span("d", 8, 10, "PER")
    spanset = SpanSet.from_spans("x", [a, b], {"d": "Ana met Bo."})
    spanset.documents["d"].relations = [Relation("Knows", (("Arg1", a), ("Arg2", b)))]
    assert announced(lambda: write(spanset, tmp_path / "x.spacy", "docbin")) == [
        "spaCy DocBin output: not written: 1 attribute (BRAT A) on spans; 1 relation"]
    assert [s.attributes for s in read(tmp_path / "x.spacy")] == [(("kb_id", "Q1"),), ()]


def test_a_docbin_without_kb_ids_stores_no_kb_id_attribute(tmp_path, shared_corpora):
    from spacy.tokens import DocBin

    healthsea = read(shared_corpora / "spacy-docbin-samples" / "healthsea" / "dev.spacy")
    assert len(healthsea) == 859 and all(not s.attributes for s in healthsea)  # SOURCE.md's count; no ids
    write(healthsea, tmp_path / "h.spacy", "docbin")
    assert DocBin().from_disk(tmp_path / "h.spacy").attrs == DocBin(attrs=["ORTH", "ENT_IOB", "ENT_TYPE"]).attrs


# ---------------------------------------------------------------- CoNLL link columns

def test_hipe_gold_links_are_the_entities_kb_ids():
    gold = read(GOLD, conll_column="NE-COARSE-LIT+NEL-LIT")
    linked = [(gold.documents[s.doc].text[s.start:s.end], s.label, dict(s.attributes).get("kb_id")) for s in gold]
    assert linked == [  # counted by hand in the file: the NEL-LIT cell on each entity's first token
        ("IRELAXD", "loc", "Q57695350"), ("Cork papers", "prod", "NIL"), ("CharTevillc", "loc", "Q1066722"),
        ("England", "loc", "Q21"), ("Europe", "loc", "Q46")]
    plain = read(GOLD, conll_column="NE-COARSE-LIT")
    assert plain == gold and all(not s.attributes for s in plain)  # the same spans, without links


def test_an_entity_linking_runs_candidates_nil_and_dashes():
    run_ = read(LINKING_RUN, conll_column="NE-COARSE-LIT+NEL-LIT")
    linked = [(run_.documents[s.doc].text[s.start:s.end], s.label, s.attributes) for s in run_]
    assert linked == [
        ("VIRGINIA", "loc", (("kb_id", "Q1370"),)), ("NEW - YORK", "loc", (("kb_id", "Q42462"),)),
        ("Uni ¬ ted Stares", "loc", ()), ("RICHARD HENRY LEE", "pers", ()),  # "-": no id
        ("WILLIAM GRAYSON", "pers", (("kb_id", "Q471060|Q692"),))]  # candidates kept as written
    # by number too (NE-COARSE-LIT is column 2, NEL-LIT column 8), and with the metonymic pair
    assert attributes_of(read(LINKING_RUN, conll_column="2+8")) == attributes_of(run_)
    both = read(GOLD, conll_column="NE-COARSE-LIT+NEL-LIT,NE-COARSE-METO+NEL-METO")
    assert attributes_of(both) == attributes_of(read(GOLD, conll_column="NE-COARSE-LIT+NEL-LIT"))


def test_a_run_submitted_flat_keeps_its_links_when_cut_along_the_gold():
    from spanagree.formats.resegment import resegmented

    flat = HIPE / "team2_bundle1_hipe2020_en_1.excerpt.tsv"
    [stream] = resegmented(GOLD, [flat], format_options={"conll_column": "NE-COARSE-LIT+NEL-LIT"})
    linked = [(d.id[-5:], d.text[s.start:s.end], dict(s.attributes).get("kb_id")) for d in stream.documents
              for s in d.spans]
    assert linked == [  # the run's NEL-LIT cells, by hand
        ("i0002", "IRELAXD", "NIL"), ("i0002", "Cork", "Q162475"), ("i0002", "CharTevillc", "NIL"),
        ("i0002", "England", "Q21"), ("i0002", "Europe", "Q46")]


def test_a_plain_file_takes_a_link_column_by_number(tmp_path):
    path = tmp_path / "p.conll"
    path.write_text("Douglas B-PER Q42\nAdams I-PER Q42\nwrote O _\nin O _\nLondon B-LOC NIL\n\nBo B-PER -\n",
                    encoding="utf-8")
    spanset = read(path, conll_column="2+3")
    assert [(s.start, s.end, s.label, s.attributes) for s in spanset] == [
        (0, 13, "PER", (("kb_id", "Q42"),)), (23, 29, "LOC", (("kb_id", "NIL"),)), (30, 32, "PER", ())]
    assert read(path, conll_column=2) == spanset


def test_the_conll_writer_announces_the_links_it_drops(tmp_path, capsys):
    code, out, err = run(capsys, "convert", GOLD, "--conll-column", "NE-COARSE-LIT+NEL-LIT", "--to", "conll",
                         "--out", tmp_path / "g.conll")
    assert code == 0
    assert err == "spanagree: warning: CoNLL output: not written: 5 other span attributes\n"
    code, out, err = run(capsys, "convert", GOLD, "--conll-column", "NE-COARSE-LIT+NEL-LIT", "--to", "jsonl",
                         "--out", tmp_path / "g.jsonl")
    assert (code, err) == (0, "")
    # JSONL holds the text as written (the gold's NoSpaceAfter): the same links on the same words
    assert attributes_of(read(tmp_path / "g.jsonl")) == attributes_of(
        spanset_as_written(read(GOLD, conll_column="NE-COARSE-LIT+NEL-LIT")))


@pytest.mark.parametrize("column, error, message", [
    ("NE-COARSE-LIT+NEL", FormatError, "no column named 'NEL'; its columns are TOKEN, NE-COARSE-LIT, "
                                       "NE-COARSE-METO, NE-FINE-LIT, NE-FINE-METO, NE-FINE-COMP, NE-NESTED, "
                                       "NEL-LIT, NEL-METO, MISC"),
    ("NE-COARSE-LIT+NEL-LIT+MISC", UsageError, "pairs a tag column with one link column (TAG+LINK), not "
                                               "'NE-COARSE-LIT+NEL-LIT+MISC'"),
])
def test_bad_link_columns(column, error, message):
    with pytest.raises(error) as caught:
        read(GOLD, conll_column=column)
    assert message in str(caught.value)


def test_a_link_column_read_in_parts_gives_what_the_whole_file_gives(tmp_path):
    # --jobs workers read byte ranges of whole documents (FilePart): each part takes the link column too
    from spanagree.formats import FilePart
    from spanagree.formats.conll import document_starts_conll, stream_conll

    path = tmp_path / "p.conll"
    path.write_text("-DOCSTART- O\n\nDouglas B-PER Q42\nAdams I-PER Q42\n\n-DOCSTART- O\n\nLondon B-LOC NIL\n"
                    "and O _\nBo B-PER -\n", encoding="utf-8")
    whole = collect(stream_conll(path, conll_column="2+3"))
    starts = list(document_starts_conll(path))
    size = path.stat().st_size
    parts = [FilePart(start, stop, lines_before=lines, documents_before=number)
             for number, ((start, lines), (stop, _)) in enumerate(zip(starts, starts[1:] + [(size, None)]))]
    assert len(parts) == 2
    documents = [d for part in parts for d in stream_conll(path, conll_column="2+3", part=part).documents]
    assert [(d.id, [(s.start, s.end, s.label, s.attributes, s.source.line) for s in d.spans]) for d in documents] == \
        [(d.id, [(s.start, s.end, s.label, s.attributes, s.source.line) for s in d.spans])
         for d in whole.documents.values()] == [
        ("1", [(0, 13, "PER", (("kb_id", "Q42"),), 3)]),
        ("2", [(0, 6, "LOC", (("kb_id", "NIL"),), 8), (11, 13, "PER", (), 10)])]


# ---------------------------------------------------------------- what writers drop

def test_dropped_counts_relations_events_and_kept_attributes():
    a, b, c = Span("d", 0, 3, "PER", attributes=(("kb_id", "Q1"),)), Span("d", 8, 10, "PER"), Span("d", 4, 7, "Ev")
    spanset = SpanSet.from_spans("x", [a, b, c], {"d": "Ana met Bo."})
    spanset.documents["d"].relations = [Relation("Knows", (("Arg1", a), ("Arg2", b))),
                                        Relation("Meet", (("Who", a),), c),
                                        Relation("Knows", (("Arg1", a), ("Arg2", Span("d", 4, 6, "X"))))]
    assert dropped(spanset, "xml") == ["1 other span attribute", "2 relations, 1 event"]
    assert dropped(spanset, "docbin") == ["2 relations, 1 event"]  # kb_id is kept
    assert dropped(spanset, "labelstudio") == [
        "1 event (Label Studio holds relations Arg1 → Arg2 only)",
        "1 relation or event naming spans their documents do not hold"]
    assert dropped(spanset, "jsonl") == ["1 relation or event naming spans their documents do not hold"]
    # JSONL and Label Studio leave out notes (free text, never compared), as before
    spanset.documents["d"].spans[1] = Span("d", 8, 10, "PER", attributes=(("#:AnnotatorNotes", "free text"),))
    assert dropped(spanset, "jsonl")[0] == dropped(spanset, "labelstudio")[0] == \
        "1 note (BRAT #, e.g. AnnotatorNotes) on spans"



def test_attribute_keys_counted_by_the_caller_leave_the_relations_counted():
    """Counted attribute keys spare reading the spans; only ``holds_relations=False`` (a caller
    that made the documents without relations: merge's gold) spares counting the relations."""
    a, b, c = Span("d", 0, 3, "PER"), Span("d", 8, 10, "PER"), Span("d", 4, 7, "Ev")
    spanset = SpanSet.from_spans("x", [a, b, c], {"d": "Ana met Bo."})
    spanset.documents["d"].relations = [Relation("Knows", (("Arg1", a), ("Arg2", b))),
                                        Relation("Meet", (("Who", a),), c)]
    keys = {"A:Negation": 2}
    assert dropped(spanset, "xml", keys) == ["2 attributes (BRAT A) on spans", "1 relation, 1 event"]
    assert dropped(spanset, "xml", keys, holds_relations=False) == ["2 attributes (BRAT A) on spans"]
    assert dropped(spanset, "webanno", {}) == ["1 event"]  # INCEpTION's layers: the same
    assert dropped(spanset, "webanno", {}, holds_relations=False) == []
    assert dropped(spanset, "labelstudio", {}) == ["1 event (Label Studio holds relations Arg1 → Arg2 only)"]
    assert dropped(spanset, "labelstudio", {}, holds_relations=False) == []


# ---------------------------------------------------------------- round trips, as a property

@st.composite
def annotated(draw):
    """A one-document span set with attributes on its spans and binary relations between them."""
    text = "Ana met Bo in Porto and Lisbon."
    spans = []
    for _ in range(draw(st.integers(1, 5))):
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, len(text)))
        names = draw(st.lists(st.sampled_from(["kb_id", "Negation", "A:Certainty", "N:Reference"]), unique=True,
                              max_size=3))
        values = [draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                               min_size=1 if name == "kb_id" else 0, max_size=6))  # (a kb_id "" is none)
                  for name in names]
        spans.append(Span("d", start, end, draw(st.sampled_from(["PER", "LOC"])),
                          attributes=tuple(zip(names, values))))
    spanset = SpanSet.from_spans("x", spans, {"d": text})
    document = spanset.documents["d"]
    pairs = draw(st.lists(st.tuples(st.integers(0, len(spans) - 1), st.integers(0, len(spans) - 1)), max_size=4))
    document.relations = [Relation(draw(st.sampled_from(["Knows", "In"])),
                                   (("Arg1", document.spans[a]), ("Arg2", document.spans[b]))) for a, b in pairs]
    return spanset


@settings(max_examples=60)
@given(spanset=annotated(), format=st.sampled_from(["jsonl", "labelstudio"]))
def test_write_then_read_keeps_attributes_and_relations(tmp_path_factory, spanset, format):
    path = tmp_path_factory.mktemp("round") / ("x.jsonl" if format == "jsonl" else "x.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is dropped
        write(spanset, path, format)
    back = read(path, format)
    assert back == spanset  # relations too

    def by_name(spans):  # (JSONL writes kb_id first)
        return sorted((doc, key, tuple(sorted(attributes))) for doc, key, attributes in attributes_of(spans))
    assert by_name(back) == by_name(spanset)
