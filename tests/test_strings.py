"""String predictions without offsets (issue 31): the strings format, the placing of its strings
on the gold's text (``--strings place``, ``recover``, ``bag``), and the figures and JSON it gives.

The placing's optimality is checked against a brute force over every placing of small made-up
documents; the done-when test scores string predictions made from CoNLL-2003's original test
annotations (some upper-cased, some dropped, some invented) against CoNLL++'s, and compares the
counts with the multiset arithmetic of (text, label) per document.
"""

from __future__ import annotations

import itertools
import json
import random
import warnings
from collections import Counter
from pathlib import Path

import pytest

from spanagree import score
from spanagree.cli import main
from spanagree.errors import FormatError, SpanagreeWarning, UsageError
from spanagree.formats import detect_format, read
from spanagree.match import MatchRule, align
from spanagree.pipeline.placing import normalised, occurrences, place_document, string_key
from spanagree.span import Predicted
from spanagree.span import Document, Span, SpanSet

from conftest import DEMO

GOLD = ('{"id": "d1", "text": "Ana took aspirin and Ana took ibuprofen.", "spans": ['
        '{"start": 0, "end": 3, "label": "PER"}, {"start": 9, "end": 16, "label": "DRUG"}, '
        '{"start": 21, "end": 24, "label": "PER"}, {"start": 30, "end": 39, "label": "DRUG"}]}\n'
        '{"id": "d2", "text": "New York General Hospital treated Bo.", "spans": ['
        '{"start": 0, "end": 25, "label": "ORG"}, {"start": 34, "end": 36, "label": "PER"}]}\n')
#   d1: Ana took aspirin and Ana took ibuprofen.      d2: New York General Hospital treated Bo.
#       [PER]    [DRUG ]     [PER]    [ DRUG  ]           [          ORG          ]         [PER]
LLM = ('{"id": "d1", "entities": [{"text": "Ana", "label": "PER"}, {"text": "Ana", "label": "PER"}, '
       '{"text": "Ana", "label": "PER"}, {"text": "ASPIRIN", "label": "DRUG"}, {"text": "paracetamol", "label": "DRUG"}]}\n'
       '{"id": "d2", "entities": {"ORG": ["General Hospital"], "PER": ["Bo"]}}\n')


@pytest.fixture
def files(tmp_path):
    gold, llm = tmp_path / "gold.jsonl", tmp_path / "llm.jsonl"
    gold.write_text(GOLD, encoding="utf-8")
    llm.write_text(LLM, encoding="utf-8")
    return gold, llm


def run_json(capsys, *argv) -> dict:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


# -- reading --------------------------------------------------------------------------------------


def test_the_shapes_and_spellings_read(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": 7, "text": "Bo took aspirin.", "entities": [{"entity": "Bo", "type": "PER"}, '
                    '{"span": "aspirin", "category": "DRUG"}, {"text": "Bo", "entity_type": "PER"}]}\n\n'
                    '{"entities": {"DRUG": ["aspirin", "aspirin"], "PER": ["Bo"]}}\n'
                    '{"id": "x", "mentions": [{"text": "aspirin", "label": "DRUG", "start": 8, "end": 15}]}\n',
                    encoding="utf-8")
    assert detect_format(path) == "strings"
    spans = read(path)
    assert list(spans.documents) == ["7", "2", "x"]
    first, second, third = spans.documents.values()
    assert first.text == "Bo took aspirin."
    assert [(s.text, s.label) for s in first.strings] == [("Bo", "PER"), ("aspirin", "DRUG"), ("Bo", "PER")]
    assert [(s.text, s.label) for s in second.strings] == [("aspirin", "DRUG"), ("aspirin", "DRUG"), ("Bo", "PER")]
    assert third.strings == [] and [(s.fragments, s.label, s.attributes) for s in third.spans] == [
        (((8, 15),), "DRUG", (("text", "aspirin"),))]


def test_a_json_list_of_records_is_told_apart_from_label_studio(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{"id": "d1", "entities": [{"text": "Bo", "label": "PER"}]},
                                {"id": "d2", "entities": []}]), encoding="utf-8")
    assert detect_format(path) == "strings"
    assert [d.id for d in read(path).documents.values()] == ["d1", "d2"]
    assert detect_format(DEMO / "labelstudio" / "demo.json") == "labelstudio"
    assert detect_format(DEMO / "jsonl" / "ann1.jsonl") == "jsonl"  # offsets: JSONL
    offsets = tmp_path / "offsets.json"
    offsets.write_text(json.dumps([{"id": "d1", "entities": [{"text": "Bo", "label": "PER", "start": 0, "end": 2}]}]))
    assert detect_format(offsets) == "labelstudio"  # a list without offsetless entities: --format settles it
    assert read(offsets, "strings").documents["d1"].spans[0].fragments == ((0, 2),)


def test_the_recogniser_declines_what_nests_too_deeply(tmp_path):
    """Regression: a JSONL record nested 100,000 levels deep made the recogniser raise RecursionError."""
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"id": "d", "text": "Ana", "meta": ' + "[" * 100_000 + "]" * 100_000 + ', "spans": []}\n')
    assert detect_format(deep) == "jsonl"


@pytest.mark.parametrize("content, message", [
    ('{"id": "d1", "entities": [{"text": "Bo"}]}\n', r"llm.jsonl:1: entity 1: no label"),
    ('{"id": "d1", "entities": [{"label": "PER"}]}\n', r"llm.jsonl:1: entity 1: no text .* and no offsets"),
    ('{"id": "d1", "entities": [{"text": "Bo", "label": "PER"}]}\n{"id": "d1"}\n',
     r"llm.jsonl:2: document id 'd1' appears twice"),
    ('{"id": "d1", "text": "Bo.", "entities": [{"text": "Bo", "label": "PER", "start": 0, "end": 9}]}\n',
     r"llm.jsonl:1: entity 1: \[0, 9\) ends after the text"),
    ('{"id": "d1", "entities": "Bo"}\n', r"llm.jsonl:1: 'entities' must be a list"),
    ('{"id": "d1", "entities": [\n', r"llm.jsonl:1: invalid JSON"),
    ('[1]', r"llm.jsonl: record 1: expected a JSON object"),
])
def test_bad_records_are_one_line_naming_the_file(tmp_path, content, message):
    path = tmp_path / "llm.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(FormatError, match=message):
        read(path, "strings")


# -- positions --------------------------------------------------------------------------------------


def test_texts_are_compared_normalised():
    text = "Dr. ﬁnch\n\n met  NEW York"
    view = normalised(text, "ignore")
    assert view.text == "dr. finch met new york"
    assert occurrences(string_key("New   york", "ignore"), view) == [(16, 24)]
    assert occurrences(string_key("New York", "exact"), normalised(text)) == []
    assert occurrences("fin", normalised(text)) == [(4, 6)]  # the ligature is "fi"
    assert occurrences("aspirn", normalised("took aspirin, then aspirin"), fuzzy=0.2) == [(5, 12), (19, 26)]
    assert occurrences("aspirn", normalised("took aspirin"), fuzzy=0.1) == []


def test_copies_claim_occurrences_and_a_copy_left_over_is_spurious_not_unaligned():
    #   Ana met Ana Bo.
    #           [PER ]
    gold = Document("d", "Ana met Ana Bo.", [Span("d", 8, 14, "PER")])
    strings = [Predicted("Ana", "PER"), Predicted("Ana", "PER"), Predicted("Ana", "PER"), Predicted("Zed", "PER")]
    exact = place_document("d", strings, [], gold, MatchRule("exact"))
    overlap = place_document("d", strings, [], gold, MatchRule("overlap"))
    assert (exact.unaligned, exact.ambiguous, [p.text for p in exact.leftover]) == (1, 3, ["Ana", "Zed"])
    assert sorted(s.fragments for s in overlap.spans) == [((0, 3),), ((8, 11),)]  # the second Ana overlaps Bo's span
    assert align(overlap.spans, gold.spans, MatchRule("overlap")).counts.a == 1


def brute_force_credit(strings, gold, rule) -> float:
    """The best credit of any placing: every choice of an occurrence (or none) for each string, no
    occurrence twice, each aligned by the matcher (itself optimal)."""
    view = normalised(gold.text)
    options = [[None, *occurrences(string_key(s.text), view)] for s in strings]
    best = 0.0
    for choice in itertools.product(*options):
        placed = [c for c in choice if c is not None]
        if len(placed) != len(set(placed)):
            continue
        spans = [Span("d", c, s.label) for s, c in zip(strings, choice) if c is not None]
        best = max(best, align(spans, gold.spans, rule).counts.a)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_the_placing_is_optimal_against_a_brute_force(seed):
    rng = random.Random(seed)
    words = ["ab", "ab", "b", "ba", "c"]
    text = " ".join(rng.choice(words) for _ in range(6))
    tokens = [(m, m + len(w)) for m, w in zip(itertools.accumulate([0] + [len(w) + 1 for w in text.split()]),
                                                text.split())]
    gold_spans = []
    for _ in range(rng.randint(1, 4)):
        first = rng.randrange(len(tokens))
        last = min(len(tokens) - 1, first + rng.randint(0, 1))
        gold_spans.append(Span("d", tokens[first][0], tokens[last][1], rng.choice("XY")))
    gold = Document("d", text, gold_spans)
    strings = [Predicted(rng.choice(["ab", "b", "ab b", "a", "zz"]), rng.choice("XY")) for _ in range(rng.randint(1, 5))]
    for rule in (MatchRule("exact"), MatchRule("overlap"), MatchRule("partial"), MatchRule("overlap", "ignore")):
        placed = place_document("d", strings, [], gold, rule)
        assert align(placed.spans, gold.spans, rule).counts.a == pytest.approx(brute_force_credit(strings, gold, rule))


def test_the_label_map_and_only_are_applied_before_placing():
    gold = Document("d", "Bo and Bo", [Span("d", 7, 9, "PERSON")])
    placed = place_document("d", [Predicted("Bo", "PER"), Predicted("Bo", "ORG")], [], gold, MatchRule(),
                            label_map={"PERSON": "PER"}, only=frozenset({"PER"}))
    assert [(s.fragments, s.label) for s in placed.spans] == [(((7, 9),), "PER")]


# -- the command and the API ------------------------------------------------------------------------


def test_place_exact_and_case_and_overlap(files, capsys):
    gold, llm = files
    exact = run_json(capsys, "score", gold, llm, "--output", "json")
    # d1: Ana Ana / Ana Ana Ana; aspirin / ASPIRIN; ibuprofen / paracetamol.  d2: Bo; the ORG's tail
    assert (exact["a"], exact["b"], exact["c"]) == (3, 4, 3)
    assert exact["strings"] == {"mode": "place", "strings": 7, "unaligned": 2, "ambiguous": 3, "recovered": 0}
    assert list(exact["options"])[-8:] == ["strings", "strings_case", "strings_fuzzy", "attributes",
                                           "match_attributes", "link_top", "relations", "symmetric_relations"]
    case = run_json(capsys, "score", gold, llm, "--output", "json", "--strings-case", "ignore")
    assert (case["a"], case["b"], case["c"]) == (4, 3, 2) and case["strings"]["unaligned"] == 1
    overlap = run_json(capsys, "score", gold, llm, "--output", "json", "--strings-case", "ignore",
                       "--match", "overlap")
    assert (overlap["a"], overlap["b"], overlap["c"]) == (5, 2, 1)  # "General Hospital" overlaps the ORG
    assert overlap["errors"]["partial"] == 1


def test_the_listing_shows_the_chosen_position_and_the_leftovers_after_the_text(files, tmp_path, capsys):
    gold, llm = files
    listing = tmp_path / "errors.json"
    assert main(["score", str(gold), str(llm), "--errors", str(listing), "--match", "overlap"]) == 0
    capsys.readouterr()
    items = json.loads(listing.read_text())["errors"]
    partial = next(i for i in items if i["kind"] == "partial")
    assert (partial["pred_start"], partial["pred_end"], partial["pred_text"]) == (9, 25, "General Hospital")
    spurious = sorted(i["pred_text"] for i in items if i["kind"] == "spurious")
    assert spurious == ["ASPIRIN", "Ana", "paracetamol"]
    leftover = next(i for i in items if i["pred_text"] == "paracetamol")
    assert leftover["pred_start"] > len("Ana took aspirin and Ana took ibuprofen.")


def test_several_predictions_each_have_their_figures(files, capsys, tmp_path):
    gold, llm = files
    document = run_json(capsys, "score", gold, llm, gold, "--output", "json")
    assert [p["strings"]["unaligned"] for p in document["predictions"]] == [2, 0]
    assert [(p["a"], p["b"], p["c"]) for p in document["predictions"]] == [(3, 4, 3), (6, 0, 0)]
    from test_json_schema import conforms

    conforms("score", document)
    conforms("score", run_json(capsys, "score", gold, llm, "--output", "json", "--strings", "bag"))


def test_an_ordinary_run_keeps_its_output(capsys):
    """Without string predictions, --strings place changes nothing: no strings key."""
    document = run_json(capsys, "score", DEMO / "jsonl" / "ann1.jsonl", DEMO / "jsonl" / "ann2.jsonl", "--output", "json")
    assert "strings" not in document
    assert document["options"]["strings"] == "place"


def test_bag_is_the_multiset_arithmetic(files, capsys):
    gold, llm = files
    bag = run_json(capsys, "score", gold, llm, "--output", "json", "--strings", "bag")
    # d1 gold {Ana/PER×2, aspirin, ibuprofen}, pred {Ana/PER×3, ASPIRIN, paracetamol}: 2; d2 {…ORG, Bo} vs {…, Bo}: 1
    assert (bag["a"], bag["b"], bag["c"]) == (3, 4, 3)
    assert bag["strings"]["unaligned"] == 3  # ASPIRIN, paracetamol, General Hospital
    ignored = run_json(capsys, "score", gold, llm, "--output", "json", "--strings", "bag", "--labels", "ignore",
                       "--strings-case", "ignore")
    assert (ignored["a"], ignored["b"], ignored["c"]) == (4, 3, 2)


def test_bag_takes_a_gold_of_strings_and_labels_pair_first():
    gold = SpanSet.from_documents("gold", [_strings("d", [("Bo", "PER"), ("Bo", "ORG"), ("x", "A")])])
    pred = SpanSet.from_documents("pred", [_strings("d", [("Bo", "ORG"), ("Bo", "LOC"), ("Bo", "PER")])])
    strict = score(gold, pred, strings="bag")
    assert strict.counts.a == 2 and strict.error_counts()["wrong_label"] == 0
    assert score(gold, pred, strings="bag", labels="ignore").counts.a == 2
    with pytest.raises(FormatError, match="the gold's entities have no offsets"):
        score(gold, pred)


def _strings(doc_id, items, text=None):
    from spanagree.span import StringsDocument

    return StringsDocument(doc_id, text, [], strings=[Predicted(t, label) for t, label in items])


def test_recover_moves_offsets_that_miss_their_text(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(GOLD, encoding="utf-8")
    shifted = tmp_path / "shifted.jsonl"
    shifted.write_text('{"id": "d1", "entities": [{"text": "aspirin", "label": "DRUG", "start": 11, "end": 18}, '
                       '{"text": "Ana", "label": "PER", "start": 0, "end": 3}, '
                       '{"text": "ibuprofen", "label": "DRUG"}]}\n', encoding="utf-8")
    placed = run_json(capsys, "score", gold, shifted, "--format", "strings", "--output", "json")
    recovered = run_json(capsys, "score", gold, shifted, "--format", "strings", "--output", "json",
                         "--strings", "recover")
    assert (placed["a"], recovered["a"]) == (2, 3)
    assert recovered["strings"] == {"mode": "recover", "strings": 1, "unaligned": 0, "ambiguous": 0, "recovered": 1}


def test_strings_are_refused_where_they_cannot_go(files, tmp_path):
    gold, llm = files
    with pytest.raises(UsageError, match="llm.jsonl holds string predictions without offsets: they are scored"):
        from spanagree import agree

        agree([gold, llm])
    assert main(["convert", str(llm), "--to", "jsonl", "--out", str(tmp_path / "out.jsonl")]) == 1
    with pytest.raises(UsageError, match="unknown strings mode 'guess'"):
        score(gold, llm, strings="guess")
    with pytest.raises(UsageError, match=r"strings_fuzzy is a normalised edit distance in \[0, 1\), got 1.5"):
        score(gold, llm, strings_fuzzy=1.5)


def test_the_demo_strings_score_as_their_spans():
    """ann2's strings placed score what ann2's spans score (the placing can only match as well)."""
    gold = DEMO / "jsonl" / "ann1.jsonl"
    for match in ("exact", "overlap", "partial"):
        spans = score(gold, DEMO / "jsonl" / "ann2.jsonl", match=match)
        strings = score(gold, DEMO / "strings" / "ann2.jsonl", match=match)
        assert strings.counts == spans.counts, match
        assert strings.extras["strings"] == {"mode": "place", "strings": 73, "unaligned": 0, "ambiguous": 4,
                                             "recovered": 0}


# -- done when: a real gold -------------------------------------------------------------------------


def _made_strings(original: SpanSet, tmp_path: Path):
    """String predictions made from another annotation's spans: every 4th upper-cased, every 5th
    dropped, one invented per 3rd document; and the (text, label) lists they hold."""
    records, items = [], {}
    k = 0
    for n, (doc_id, document) in enumerate(original.documents.items()):
        entities = []
        for span in document.spans:
            k += 1
            if k % 5 == 0:
                continue
            text = span.text(document.text)
            entities.append({"text": text.upper() if k % 4 == 0 else text, "label": span.label})
        if n % 3 == 0:
            entities.append({"text": "Qzxv Invented", "label": "ORG"})
        records.append({"id": doc_id, "entities": entities})
        items[doc_id] = [(e["text"], e["label"]) for e in entities]
    path = tmp_path / "llm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path, items


def _multiset_counts(gold: SpanSet, items: dict, fold=lambda t: t) -> tuple[int, int, int, int]:
    a = b = c = unaligned = 0
    for doc_id, document in gold.documents.items():
        mine = Counter((fold(t), label) for t, label in items.get(doc_id, []))
        theirs = Counter((fold(s.text(document.text)), s.label) for s in document.spans)
        common = sum((mine & theirs).values())
        a, b, c = a + common, b + sum(mine.values()) - common, c + sum(theirs.values()) - common
        unaligned += sum(1 for t, _ in items.get(doc_id, []) if fold(t) not in fold(document.text))
    return a, b, c, unaligned


def test_conll2003_strings_scored_against_conllpp(shared_corpora, tmp_path):
    folder = shared_corpora / "conll2003-test-reannotations"
    gold_path, original_path = folder / "conllpp_test.txt", folder / "conll2003_test.txt"
    gold, original = read(gold_path), read(original_path)
    llm, items = _made_strings(original, tmp_path)
    exact = score(gold_path, llm)
    a, b, c, unaligned = _multiset_counts(gold, items)
    assert (exact.counts.a, exact.counts.b, exact.counts.c) == (a, b, c)
    assert exact.extras["strings"]["unaligned"] == unaligned
    invented = sum(1 for doc in items.values() for t, _ in doc if t == "Qzxv Invented")
    assert invented == 77 and unaligned > invented  # upper-cased strings found nowhere as written
    ignored = score(gold_path, llm, strings_case="ignore")
    a, b, c, unaligned = _multiset_counts(gold, items, str.casefold)
    assert (ignored.counts.a, ignored.counts.b, ignored.counts.c) == (a, b, c)
    assert ignored.extras["strings"]["unaligned"] == unaligned == invented
    assert ignored.counts.a > exact.counts.a
    # under overlap a word of a gold entity earns the overlap credit
    overlap = score(gold_path, llm, strings_case="ignore", match="overlap")
    assert overlap.counts.a >= ignored.counts.a
    doc_id, entity = next((d, s) for d, doc in gold.documents.items() for s in doc.spans
                          if " " in s.text(doc.text) and doc.text.count(s.text(doc.text).split()[-1]) == 1)
    word = entity.text(gold.documents[doc_id].text).split()[-1]
    one = SpanSet.from_documents("word", [_strings(doc_id, [(word, entity.label)])])
    with warnings.catch_warnings():  # the other documents have no prediction, and labels it lacks
        warnings.simplefilter("ignore", SpanagreeWarning)
        assert score(gold_path, one, match="overlap").pair.by_document[doc_id].a == 1
        assert score(gold_path, one, match="exact").pair.by_document[doc_id].a == 0


def test_records_carrying_their_text_pair_by_text_and_place_under_jobs(files, tmp_path, capsys):
    gold, llm = files
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text('{"id": "task-9", "text": "New York General Hospital treated Bo.", "entities": '
                       '[{"text": "Bo", "label": "PER"}, {"text": "Zed", "label": "PER"}]}\n'
                       '{"id": "task-3", "text": "Ana took aspirin and Ana took ibuprofen.", "entities": '
                       '[{"text": "Ana", "label": "PER"}]}\n', encoding="utf-8")
    keyed = run_json(capsys, "score", gold, renamed, "--document-key", "text", "--output", "json", "--by", "document")
    assert (keyed["a"], keyed["b"], keyed["c"]) == (2, 1, 4) and keyed["strings"]["unaligned"] == 1
    assert list(keyed["by_document"]) == ["d1", "d2"]
    one = run_json(capsys, "score", gold, llm, "--output", "json", "--match", "overlap")
    two = run_json(capsys, "score", gold, llm, "--output", "json", "--match", "overlap", "--jobs", "2")
    assert {k: v for k, v in one.items() if k != "options"} == {k: v for k, v in two.items() if k != "options"}
