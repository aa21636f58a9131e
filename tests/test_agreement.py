"""agree(): pairs, mean and pooled F1, per label and per document, texts that differ."""

from __future__ import annotations

import math
import warnings

import pytest

from spanagree import Span, SpanSet, agree
from spanagree.errors import FormatError, SpanagreeError, SpanagreeWarning, UsageError
from spanagree.pipeline.parallel import Processes
from spanagree.span import Document

TEXT = "Ana Ruiz met Bo Li in Porto and Lisbon ."
#       0   4    9   13 16 19 22    28  32     39


def spanset(name, spans, text=TEXT, doc="d1", extra_docs=()):
    documents = {doc: Document(doc, text, [Span(doc, (s, e), label) for s, e, label in spans])}
    for other in extra_docs:
        documents[other] = Document(other, "Nothing here .", [])
    return SpanSet(name, documents)


# ann1  [Ana Ruiz]PER      [Bo Li]PER     [Porto]LOC    [Lisbon]LOC
# ann2  [Ana Ruiz]PER      [Bo]PER        [Porto]ORG    [Lisbon]LOC
# ann3  [Ana Ruiz]PER      [Bo Li]PER                   [Lisbon]LOC
ANN1 = spanset("ann1", [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC"), (32, 38, "LOC")])
ANN2 = spanset("ann2", [(0, 8, "PER"), (13, 15, "PER"), (22, 27, "ORG"), (32, 38, "LOC")])
ANN3 = spanset("ann3", [(0, 8, "PER"), (13, 18, "PER"), (32, 38, "LOC")])


def figures(result):
    return [(p.first, p.second, p.counts.a, p.counts.b, p.counts.c) for p in result.pairs]


def test_three_annotators_exact_strict_by_hand():
    result = agree([ANN1, ANN2, ANN3])
    # ann1–ann2: Ana Ruiz, Lisbon agree; Bo Li/Bo and Porto LOC/ORG do not → a=2, b=2, c=2
    # ann1–ann3: 3 agree; Porto only in ann1 → a=3, b=1, c=0
    # ann2–ann3: Ana Ruiz, Lisbon → a=2, b=2 (Bo, Porto), c=1 (Bo Li)
    assert figures(result) == [("ann1", "ann2", 2, 2, 2), ("ann1", "ann3", 3, 1, 0), ("ann2", "ann3", 2, 2, 1)]
    f1s = [4 / 8, 6 / 7, 4 / 7]
    assert result.mean.mean == pytest.approx(sum(f1s) / 3)
    mean = sum(f1s) / 3
    assert result.mean.sd == pytest.approx(math.sqrt(sum((f - mean) ** 2 for f in f1s) / 3))
    assert result.pooled.as_dict()["f1"] == pytest.approx(2 * 7 / (2 * 7 + 5 + 3))
    data = result.to_dict()
    assert data["annotators"] == ["ann1", "ann2", "ann3"]
    assert data["documents"] == 1
    averages = data["pairs"][0].pop("averages")
    assert data["pairs"][0] == {"annotators": ["ann1", "ann2"], "a": 2, "b": 2, "c": 2,
                                "precision": 0.5, "recall": 0.5, "f1": 0.5, "jaccard": pytest.approx(1 / 3),
                                "documents": 1}
    # ann1 × ann2 per label: PER (1, 1, 1) P 1/2 R 1/2 F 1/2; LOC (1, 1, 0) P 1/2 R 1 F 2/3;
    # ORG (0, 0, 1) P 0/0 (counts 0 in the averages) R 0 F 0. Supports, the mean of both sides'
    # spans: PER (2 + 2)/2 = 2, LOC (2 + 1)/2 = 1.5, ORG (0 + 1)/2 = 0.5 (total 4).
    assert averages["micro"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert averages["macro"] == pytest.approx({"precision": 1 / 3, "recall": 1.5 / 3, "f1": (1 / 2 + 2 / 3) / 3})
    assert averages["weighted"] == pytest.approx({"precision": (2 * .5 + 1.5 * .5) / 4, "recall": (2 * .5 + 1.5) / 4,
                                                  "f1": (2 * .5 + 1.5 * 2 / 3) / 4})
    assert {label: (entry["pairs"][0]["support_first"], entry["pairs"][0]["support_second"])
            for label, entry in data["by_label"].items()} == {"LOC": (2, 1), "ORG": (0, 1), "PER": (2, 2)}
    assert data["pooled"]["a"] == 7 and data["pooled"]["b"] == 5 and data["pooled"]["c"] == 3
    # the k×k matrix: symmetric, 1 on the diagonal
    assert data["matrix"] == {"annotators": ["ann1", "ann2", "ann3"],
                              "f1": [[1.0, 0.5, 6 / 7], [0.5, 1.0, 4 / 7], [6 / 7, 4 / 7, 1.0]]}


def test_modes_on_the_same_data():
    # overlap/ignore: Bo Li~Bo and Porto LOC~ORG now match: ann1–ann2 a=4
    assert figures(agree([ANN1, ANN2], match="overlap", labels="ignore"))[0][2:] == (4, 0, 0)
    # partial/strict: Bo Li~Bo earns 0.5; Porto LOC/ORG earns nothing
    assert figures(agree([ANN1, ANN2], match="partial", labels="strict"))[0][2:] == (2.5, 1.5, 1.5)
    # exact/ignore: Porto counts, Bo Li/Bo does not
    assert figures(agree([ANN1, ANN2], match="exact", labels="ignore"))[0][2:] == (3, 1, 1)


def test_by_label_and_by_document():
    result = agree([ANN1, ANN2])
    per_label = {label: (c.a, c.b, c.c) for label, c in result.pairs[0].by_label.items()}
    assert per_label == {"PER": (1, 1, 1), "LOC": (1, 1, 0), "ORG": (0, 0, 1)}
    data = result.to_dict(by_document=True)
    assert data["by_label"]["ORG"]["mean_f1"] == 0
    assert data["by_document"]["d1"]["pairs"][0]["f1"] == 0.5


def test_by_label_by_document_three_annotators_two_documents():
    # d1 as above; d2: "Nothing here ." — ann1 marks "Nothing" PER, the others nothing.
    extra = {"ann1": [Span("d2", (0, 7), "PER")], "ann2": [], "ann3": []}
    sets = []
    for spanset_ in (ANN1, ANN2, ANN3):
        documents = dict(spanset_.documents)
        documents["d2"] = Document("d2", "Nothing here .", extra[spanset_.name])
        sets.append(SpanSet(spanset_.name, documents))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)  # every pair's overall F1 is defined: no warning
        result = agree(sets)
    data = result.to_dict(by_document=True)
    d2 = data["by_document"]["d2"]
    # ann1–ann2: a=0 b=1 c=0 → F1 0; ann1–ann3 likewise; ann2–ann3: nothing at all → undefined
    assert [p["f1"] for p in d2["pairs"][:2]] == [0, 0] and math.isnan(d2["pairs"][2]["f1"])
    assert d2["mean_f1"] == 0 and d2["pairs_with_undefined_f1"] == 1 and d2["pooled_f1"] == 0
    d1 = data["by_document"]["d1"]
    assert d1["mean_f1"] == pytest.approx((4 / 8 + 6 / 7 + 4 / 7) / 3) and d1["pairs_with_undefined_f1"] == 0
    # per label (summed over documents): PER now has ann1's extra span
    per = data["by_label"]["PER"]
    # ann1: Ana Ruiz, Bo Li, Nothing; ann2: Ana Ruiz, Bo; ann3: Ana Ruiz, Bo Li
    assert [(p["a"], p["b"], p["c"]) for p in per["pairs"]] == [(1, 2, 1), (2, 1, 0), (1, 1, 1)]
    assert per["mean_f1"] == pytest.approx((2 / 5 + 4 / 5 + 2 / 4) / 3)
    assert per["pooled_f1"] == pytest.approx(8 / (8 + 4 + 2))
    # ORG: only ann2 marked one → pairs ann1–ann3 have nothing: undefined, skipped and counted
    org = data["by_label"]["ORG"]
    assert [p["f1"] for p in org["pairs"]][::2] == [0, 0] and math.isnan(org["pairs"][1]["f1"])
    assert org["mean_f1"] == 0 and org["pairs_with_undefined_f1"] == 1
    assert result.documents == ["d1", "d2"]


def test_per_label_only_with_labels_strict():
    assert agree([ANN1, ANN2], labels="ignore").to_dict()["by_label"] == {}
    assert set(agree([ANN1, ANN2], labels="strict").to_dict()["by_label"]) == {"LOC", "ORG", "PER"}


def test_swapping_annotators_swaps_b_and_c_only():
    for match in ("exact", "overlap", "partial"):
        for labels in ("strict", "ignore"):
            forward = agree([ANN1, ANN2, ANN3], match=match, labels=labels)
            backward = agree([ANN3, ANN2, ANN1], match=match, labels=labels)
            by_names = {(p.first, p.second): p for p in forward.pairs}
            for pair in backward.pairs:
                twin = by_names[(pair.second, pair.first)]
                assert pair.counts == twin.counts.swapped()
                assert {k: c.swapped() for k, c in twin.by_label.items()} == pair.by_label
            assert backward.mean.mean == pytest.approx(forward.mean.mean, abs=1e-15)
            assert backward.pooled.f1 == pytest.approx(forward.pooled.f1, abs=1e-15)


def test_dataframes():
    result = agree([ANN1, ANN2, ANN3])
    pairs = result.pairs_frame()
    assert list(pairs.columns) == ["first", "second", "a", "b", "c", "precision", "recall", "f1", "jaccard"]
    assert pairs[["a", "b", "c"]].values.tolist() == [[2, 2, 2], [3, 1, 0], [2, 2, 1]]
    by_label = result.by_label_frame()
    assert len(by_label) == 3 * 3  # 3 labels × 3 pairs
    assert by_label.query("label == 'LOC' and first == 'ann1' and second == 'ann3'")["f1"].item() == 2 / 3
    by_document = result.by_document_frame()
    assert by_document["document"].tolist() == ["d1"] * 3
    matrix = result.matrix_frame()
    assert matrix.loc["ann3", "ann1"] == matrix.loc["ann1", "ann3"] == 6 / 7


def test_label_map_and_only():
    mapped = agree([ANN1, ANN2], label_map=["ORG=LOC"])
    assert figures(mapped)[0][2:] == (3, 1, 1)
    only = agree([ANN1, ANN2], only="LOC")
    assert figures(only)[0][2:] == (1, 1, 0)
    assert only.to_dict()["options"]["only"] == ["LOC"]
    # --map applies before --only: ORG→LOC, then only LOC
    assert figures(agree([ANN1, ANN2], label_map={"ORG": "LOC"}, only=["LOC"]))[0][2:] == (2, 0, 0)
    with pytest.raises(UsageError, match="label_map takes OLD=NEW"):
        agree([ANN1, ANN2], label_map=["ORG"])


def test_options_record_the_values_as_understood():
    # The CLI passes its raw arguments; the normalised values win in the record.
    result = agree([ANN1, ANN2], match="partial", partial_credit="0.25", only="PER,LOC", label_map=["ORG=LOC"],
                   options={"command": "agree", "partial_credit": "0.25", "only": "PER,LOC", "map": ["ORG=LOC"]})
    options = result.to_dict()["options"]
    assert options == {"command": "agree", "match": "partial", "labels": "strict", "partial_credit": 0.25,
                       "only": ["LOC", "PER"], "map": {"ORG": "LOC"}, "align_whitespace": False,
                       "documents": "common", "align_text": False}
    assert result.to_dict()["partial_credit"] == 0.25


def test_documents_not_annotated_by_everyone_are_left_out():
    with pytest.warns(SpanagreeWarning, match=r"2 document\(s\) not annotated by every annotator are left out: d2, d3"):
        result = agree([spanset("x", [(0, 8, "PER")], extra_docs=["d3", "d2"]), spanset("y", [(0, 8, "PER")])])
    assert result.documents == ["d1"]
    assert result.to_dict()["left_out"] == {"not_annotated_by_everyone": ["d2", "d3"]}
    with pytest.raises(SpanagreeError, match="no document is annotated by every annotator"):
        agree([spanset("x", [], doc="d1"), spanset("y", [], doc="d9")])


def test_undefined_f1_is_nan_with_a_warning_and_skipped_in_the_mean():
    empty = spanset("e1", [])
    with pytest.warns(SpanagreeWarning) as caught:
        result = agree([empty, spanset("e2", []), ANN1])
    messages = [str(w.message) for w in caught]
    assert "e1 × e2: precision, recall, F1 undefined (0/0), reported as NaN" in messages
    assert "e1 × ann1: precision undefined (0/0), reported as NaN" in messages  # P = 0/0, R = 0/4, F1 = 0
    assert "the mean pairwise F1 skips 1 of 3 pair(s) whose F1 is undefined" in messages
    data = result.to_dict()
    assert math.isnan(data["pairs"][0]["f1"])
    assert data["pairs_with_undefined_f1"] == 1
    assert data["mean_f1"] == 0.0  # the two defined pairs (empty vs ANN1) have F1 0
    assert result.mean.defined == 2
    # nothing at all: the mean is undefined too, not 0
    with pytest.warns(SpanagreeWarning, match="skips 1 of 1"):
        nothing = agree([empty, spanset("e2", [])])
    assert math.isnan(nothing.mean.mean) and math.isnan(nothing.to_dict()["pooled_f1"])


def test_no_warning_when_everything_is_defined():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)
        agree([ANN1, ANN2, ANN3]).to_dict(by_document=True)


def test_duplicates_count_once_with_a_warning_giving_the_number():
    twice = spanset("twice", [(0, 8, "PER"), (0, 8, "PER"), (0, 8, "PER"), (13, 18, "PER")])
    with pytest.warns(SpanagreeWarning, match=r"^twice: 2 span\(s\) identical on the matching key "
                                              r"\(fragments and label\) counted once$"):
        result = agree([twice, ANN3])
    assert figures(result)[0][2:] == (2, 0, 1)
    # labels ignore: the key is the fragments, so a PER and an ORG on the same words are one span
    relabelled = spanset("two", [(0, 8, "PER"), (0, 8, "ORG")])
    with pytest.warns(SpanagreeWarning, match=r"two: 1 span\(s\) identical on the matching key \(fragments\)"):
        assert figures(agree([relabelled, ANN3], labels="ignore"))[0][2:] == (1, 0, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)  # labels strict: two different spans
        assert figures(agree([relabelled, ANN3], labels="strict"))[0][2:] == (1, 1, 2)
    # --map makes duplicates: PERSON and PER on the same words become one PER span
    mapped = spanset("mapped", [(0, 8, "PERSON"), (0, 8, "PER"), (13, 18, "PER"), (32, 38, "LOC")])
    with pytest.warns(SpanagreeWarning, match=r"mapped: 1 span\(s\)"):
        assert figures(agree([mapped, ANN3], label_map=["PERSON=PER"]))[0][2:] == (3, 0, 0)
    # --only leaves them out before the key is taken: no duplicate left, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)
        assert figures(agree([mapped, ANN3], only="LOC"))[0][2:] == (1, 0, 0)


def test_different_texts_are_an_error_naming_the_document():
    other = spanset("ann9", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"))
    with pytest.raises(FormatError, match="'d1'.*ann9"):
        agree([ANN1, other])


def test_align_whitespace_maps_offsets():
    # ann2 stored the text with doubled spaces and a line break: offsets differ, characters do not.
    spaced = "Ana  Ruiz met\nBo Li in  Porto and Lisbon ."
    #          0         10    16      24   29   34
    ann2 = spanset("ann2", [(0, 9, "PER"), (14, 19, "PER"), (24, 29, "LOC"), (34, 40, "LOC")], text=spaced)
    assert [spaced[s:e] for s, e in [(0, 9), (14, 19), (24, 29), (34, 40)]] == ["Ana  Ruiz", "Bo Li", "Porto", "Lisbon"]
    with pytest.raises(FormatError):
        agree([ANN1, ann2])
    result = agree([ANN1, ann2], align_whitespace=True)
    assert figures(result)[0][2:] == (4, 0, 0)
    assert any("whitespace" in note for note in result.notes)
    # texts that differ beyond whitespace are left out, with a warning naming them
    different = spanset("ann3", [(0, 8, "PER")], text=TEXT.replace("Porto", "Braga"), extra_docs=["d2"])
    with pytest.warns(SpanagreeWarning, match=r"1 document\(s\) left out because their texts differ beyond whitespace: d1"):
        result = agree([spanset("x", [], extra_docs=["d2"]), different], align_whitespace=True)
    assert result.documents == ["d2"]
    assert result.to_dict()["left_out"] == {"texts_differ": ["d1"]}
    # nothing left to compare is an error, not an empty report
    with pytest.raises(SpanagreeError, match="no document left to compare"):
        agree([spanset("x", []), different], align_whitespace=True)


def test_needs_two_annotators():
    with pytest.raises(UsageError):
        agree([ANN1])


def test_does_not_rename_the_callers_spansets():
    first, second = spanset("same", [(0, 8, "PER")]), spanset("same", [(0, 8, "PER")])
    result = agree([first, second])
    assert result.annotators == ["same", "same#2"]
    assert second.name == "same"


def test_jobs_give_identical_results():
    sets = [f"doc{k:02d}" for k in range(40)]
    ann1 = SpanSet("a", {d: Document(d, TEXT, [Span(d, (0, 8), "PER"), Span(d, (22, 27), "LOC")]) for d in sets})
    ann2 = SpanSet("b", {d: Document(d, TEXT, [Span(d, (0, 8), "PER")] + ([Span(d, (22, 27), "ORG")] if int(d[3:]) % 3 else []))
                         for d in sets})
    one = agree([ann1, ann2], jobs=1).to_dict(by_document=True)
    jobs = Processes(2, min_spans_per_job=1)  # these 120 spans pay for two processes
    two = agree([ann1, ann2], jobs=jobs).to_dict(by_document=True)
    assert jobs.mapped == [8]  # forked: 2 processes x 4 shards of the 40 documents
    assert one == two
    assert one["pairs"][0]["a"] == 40


def conll_spanset(name, text, spans):
    """A span set as the CoNLL reader makes one: its document comes with its tokens."""
    return SpanSet(name, {"1": Document("1", text, [Span("1", (s, e), label) for s, e, label in spans],
                                        tokens_from_text=True)}, format="conll")


def test_conll_files_are_compared_by_token_position():
    # The same tokens, one spelt differently: a warning with the count; the second file's spans
    # are placed on the first file's tokens, so "German" matches although its offsets differ.
    #   first   EU rejects German call\nPeter Blackburn      German [11, 17)
    #   second  EU rejected German call\nPeter Blackburn     German [12, 18)
    first = conll_spanset("gold", "EU rejects German call\nPeter Blackburn", [(0, 2, "ORG"), (11, 17, "MISC"), (23, 38, "PER")])
    second = conll_spanset("sys", "EU rejected German call\nPeter Blackburn", [(0, 2, "ORG"), (12, 18, "MISC"), (24, 29, "PER")])
    with pytest.warns(SpanagreeWarning, match=r"1 token\(s\) are spelt differently across the CoNLL files"):
        result = agree([first, second])
    assert figures(result)[0][2:] == (2, 1, 1)  # EU, German; Peter Blackburn vs Peter
    # A different number of tokens in a sentence, or of sentences, is an error naming the document
    fewer_tokens = conll_spanset("sys", "EU rejects German\nPeter Blackburn", [])
    with pytest.raises(FormatError, match="document 1, sentence 1: 3 tokens in sys, 4 in gold"):
        agree([first, fewer_tokens])
    one_sentence = conll_spanset("sys", "EU rejects German call Peter Blackburn", [])
    with pytest.raises(FormatError, match="document 1: 1 sentences in sys, 2 in gold"):
        agree([first, one_sentence])




def test_warnings_name_the_file_that_called_the_command(tmp_path, small_shards):
    """agree, score and vote warn as from their caller, not from a wrapper or a helper of theirs:
    two of a's spans repeat one key and b has a document a lacks (in finished, and the document
    designs); e1 and e2 are empty (0/0 figures); jobs beyond any machine's cores (the
    pipeline's run); a bootstrap over one document (the bootstrap's own warning); a BRAT line
    whose text column differs, read by forked workers and replayed from the recorded warnings."""
    from spanagree import score, vote

    a = SpanSet.from_spans("a", [Span("d", ((0, 3),), "X"), Span("d", ((0, 3),), "X")], {"d": "abcdef"})
    b = SpanSet.from_spans("b", [Span("d", ((0, 3),), "X"), Span("e", ((0, 3),), "X")],
                           {"d": "abcdef", "e": "abcdef"})
    e1, e2 = SpanSet.from_spans("e1", [], {"d": "abcdef"}), SpanSet.from_spans("e2", [], {"d": "abcdef"})
    c = SpanSet.from_spans("c", [Span("d", ((0, 3),), "X")], {"d": "abcdef"})
    runs = {"agree": (lambda: agree([a, b]), 2), "score": (lambda: score(a, b), 2), "vote": (lambda: vote([a, b]), 2),
            "agree 0/0": (lambda: agree([e1, e2]), 2), "score 0/0": (lambda: score(e1, e2), 1),
            "agree --jobs": (lambda: agree([c, c], jobs=10_000), 1),
            "score --jobs": (lambda: score(c, c, jobs=10_000), 1),
            "vote --jobs": (lambda: vote([c, c], jobs=10_000), 1),
            "agree bootstrap": (lambda: agree([c, c], bootstrap=10), 1),
            "score bootstrap": (lambda: score(c, c, bootstrap=10), 1)}
    for name in ("f", "g"):  # six BRAT documents each; g's d4.ann quotes "abd" where the text has "abc"
        (tmp_path / name).mkdir()
        for i in range(6):
            (tmp_path / name / f"d{i}.txt").write_text("abc def")
            (tmp_path / name / f"d{i}.ann").write_text(f"T1\tX 0 3\t{'abd' if (name, i) == ('g', 4) else 'abc'}\n")
    f, g = str(tmp_path / "f"), str(tmp_path / "g")
    runs.update({"agree forked": (lambda: agree([f, g], jobs=2), 1), "score forked": (lambda: score(f, g, jobs=2), 1),
                 "vote forked": (lambda: vote([f, g], jobs=2), 1)})
    for name, (run, warned) in runs.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run()
        assert len(caught) == warned, (name, [str(w.message) for w in caught])
        assert {w.filename for w in caught} == {__file__}, (name, [(w.filename, str(w.message)) for w in caught])
    assert small_shards == [6, 6, 6]  # each forked run shared the six documents among its workers
