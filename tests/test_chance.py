"""Token level, where d is known: token labels, the k×k tables, and --chance on the command line.

Reference figures come from scikit-learn (``cohen_kappa_score``, ``matthews_corrcoef``,
``balanced_accuracy_score``), statsmodels (``fleiss_kappa``) and the ``krippendorff`` package,
fed with token labels obtained independently of spanagree: read straight from the CoNLL tag
column, or by a brute-force character-set labeller over spaCy's tokens.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree import Span, SpanagreeWarning, SpanSet, agree, read, score
from spanagree.measures.tokens import MARKED, conll_tokens, token_agreement, token_labels
from conftest import run, same_under, without_executor

BRAT = ["brat/ann1", "brat/ann2", "brat/ann3"]
CONLL = ["conll/ann1.conll", "conll/ann2.conll", "conll/ann3.conll"]


# -- references built apart from spanagree ---------------------------------------------------------


def conll_tag_labels(path) -> list[str]:
    """Each token's label straight from a CoNLL file's last column (IOB2, flat spans)."""
    labels = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("-DOCSTART-"):
            continue
        tag = line.split("\t")[-1]
        labels.append("O" if tag == "O" else tag[2:])
    return labels


def brute_force_labels(spans, tokens, labels="strict"):
    """Character sets: a span covers a token when they share a character; the innermost wins."""
    result, several = [], 0
    unique = set(spans)
    for start, end in tokens:
        chars = set(range(start, end))
        covering = [s for s in unique if chars & {i for f in s.fragments for i in range(*f)}]
        several += len(covering) > 1
        if not covering:
            result.append(None)
            continue
        best = min(covering, key=lambda s: (sum(e - b for b, e in s.fragments), -s.fragments[0][0],
                                            s.label if labels == "strict" else MARKED))
        result.append(best.label if labels == "strict" else MARKED)
    return result, several


def spacy_token_offsets(text):
    import spacy

    return [(t.idx, t.idx + len(t.text)) for t in spacy.blank("en").tokenizer(text) if not t.is_space]


def reference_figures(labels_by_annotator):
    """sklearn / statsmodels / krippendorff on per-token label lists (one list per annotator)."""
    import krippendorff
    from sklearn.metrics import cohen_kappa_score, matthews_corrcoef
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    categories = sorted({label for labels in labels_by_annotator for label in labels})
    codes = np.array([[categories.index(label) for label in labels] for labels in labels_by_annotator])
    pairs = [{"cohen_kappa": cohen_kappa_score(x, y), "mcc": matthews_corrcoef(y, x)}
             for x, y in itertools.combinations(labels_by_annotator, 2)]
    table, _ = aggregate_raters(codes.T)
    return {"pairs": pairs, "fleiss_kappa": fleiss_kappa(table, method="fleiss"),
            "krippendorff_alpha": krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")}


# -- token labels ----------------------------------------------------------------------------------


def test_innermost_span_wins_on_nesting():
    #   University of Lisbon said
    #   [=======ORG========]
    #                 [LOC-]
    tokens = conll_tokens("University of Lisbon said")
    spans = [Span("d", (0, 20), "ORG"), Span("d", (14, 20), "LOC")]
    assert token_labels(spans, tokens) == (["ORG", "ORG", "LOC", None], 1)
    assert token_labels(spans, tokens, labels="ignore") == ([MARKED, MARKED, MARKED, None], 1)


def test_gap_of_a_discontinuous_span_is_not_covered():
    #   breast and ovarian cancer
    #   [====]             [====]   DISEASE (one span, two fragments)
    #              [============]   DISEASE
    tokens = conll_tokens("breast and ovarian cancer")
    discontinuous = Span("d", ((0, 6), (19, 25)), "DISEASE")
    assert token_labels([discontinuous], tokens) == (["DISEASE", None, None, "DISEASE"], 0)
    both = [discontinuous, Span("d", (11, 25), "DISEASE")]
    assert token_labels(both, tokens) == (["DISEASE", None, "DISEASE", "DISEASE"], 1)


def test_any_covered_character_labels_the_token():
    #   Apixaban 5 mg
    #       [==]       a span inside one token labels the whole token
    tokens = conll_tokens("Apixaban 5 mg")
    assert token_labels([Span("d", (4, 8), "DRUG")], tokens) == (["DRUG", None, None], 0)
    #   a span ending exactly where a token starts does not cover it (half-open ranges)
    assert token_labels([Span("d", (0, 9), "DRUG")], tokens) == (["DRUG", None, None], 0)
    assert token_labels([Span("d", (0, 10), "DRUG")], tokens) == (["DRUG", "DRUG", None], 0)


def test_ties_and_duplicates():
    tokens = conll_tokens("a b c")
    # identical spans count once: no multiple coverage
    assert token_labels([Span("d", (0, 1), "X"), Span("d", (0, 1), "X")], tokens) == (["X", None, None], 0)
    # same fragments, two labels: the label in alphabetical order, and it is counted
    assert token_labels([Span("d", (0, 1), "Y"), Span("d", (0, 1), "X")], tokens) == (["X", None, None], 1)
    # crossing spans of the same length: the later start wins on the shared token
    #   a b c
    #   [=A]
    #     [=B]
    assert token_labels([Span("d", (0, 3), "A"), Span("d", (2, 5), "B")], tokens) == (["A", "B", "B"], 1)


words = st.text(alphabet="abc", min_size=1, max_size=4)


@st.composite
def texts_and_spans(draw):
    pieces = draw(st.lists(words, min_size=1, max_size=8))
    separators = draw(st.lists(st.sampled_from([" ", "  ", "\n"]), min_size=len(pieces) - 1,
                               max_size=len(pieces) - 1))
    text = pieces[0] + "".join(s + p for s, p in zip(separators, pieces[1:]))
    spans = []
    for _ in range(draw(st.integers(0, 5))):
        cuts = sorted(draw(st.sets(st.integers(0, len(text)), min_size=2, max_size=6)))
        fragments = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
        spans.append(Span("d", tuple(fragments), draw(st.sampled_from(["A", "B", "C"]))))
    return text, spans


@settings(max_examples=300, deadline=None)
@given(texts_and_spans(), st.sampled_from(["strict", "ignore"]))
@pytest.mark.slow
def test_token_labels_equal_brute_force(case, labels):
    text, spans = case
    tokens = conll_tokens(text)
    assert token_labels(spans, tokens, labels=labels) == brute_force_labels(spans, tokens, labels)


# -- the demo corpus -------------------------------------------------------------------------------


def assert_equals_references(data: dict, reference: dict) -> None:
    """Per pair Cohen's kappa and MCC (scikit-learn), Fleiss' kappa (statsmodels) and
    Krippendorff's alpha (krippendorff) equal spanagree's to 1e-12."""
    for pair, expected in zip(data["pairs"], reference["pairs"], strict=True):
        assert pair["cohen_kappa"] == pytest.approx(expected["cohen_kappa"], abs=1e-12)
        assert pair["mcc"] == pytest.approx(expected["mcc"], abs=1e-12)
    assert data["fleiss_kappa"] == pytest.approx(reference["fleiss_kappa"], abs=1e-12)
    assert data["krippendorff_alpha"] == pytest.approx(reference["krippendorff_alpha"], abs=1e-12)


def test_demo_conll_equals_references(demo):
    spansets = [read(demo / path, "conll") for path in CONLL]
    result = token_agreement(spansets, tokens="conll")
    truth = [conll_tag_labels(demo / path) for path in CONLL]
    assert result.tokens == len(truth[0]) == 565
    frame = result.token_frame()
    assert [frame[name].tolist() for name in ("ann1", "ann2", "ann3")] == truth
    reference = reference_figures(truth)
    data = result.to_dict()
    assert_equals_references(data, reference)
    # the figures themselves
    assert [round(p["cohen_kappa"], 4) for p in data["pairs"]] == [0.8797, 0.9054, 0.8185]
    assert [round(p["mcc"], 4) for p in data["pairs"]] == [0.8802, 0.9066, 0.8205]
    assert round(data["fleiss_kappa"], 4) == 0.8677
    assert round(data["krippendorff_alpha"], 4) == 0.8678
    assert [(p["a"], p["b"], p["c"], p["d"]) for p in data["pairs"]] == [
        (118, 16, 21, 419), (115, 19, 9, 429), (103, 36, 21, 421)]
    assert data["categories"] == ["DISEASE", "DRUG", "LOC", "ORG", "PER", "O"]


@pytest.mark.slow
def test_demo_brat_with_spacy_equals_references(demo):
    spansets = [read(demo / path, "brat") for path in BRAT]
    with pytest.warns(SpanagreeWarning) as record:
        result = token_agreement(spansets, tokens="spacy")
    assert sorted(str(w.message).split(":")[0] for w in record) == ["ann1", "ann3"]
    assert all("2 token(s) covered by more than one span" in str(w.message) for w in record)
    truth = [[], [], []]
    for doc_id in spansets[0].documents:
        offsets = spacy_token_offsets(spansets[0].documents[doc_id].text)
        for k, spanset in enumerate(spansets):
            labels, _ = brute_force_labels(spanset.documents[doc_id].spans, offsets)
            truth[k].extend("O" if label is None else label for label in labels)
    assert result.tokens == len(truth[0]) == 581
    reference = reference_figures(truth)
    data = result.to_dict()
    assert_equals_references(data, reference)
    assert [round(p["cohen_kappa"], 4) for p in data["pairs"]] == [0.8821, 0.9077, 0.8221]
    assert round(data["fleiss_kappa"], 4) == 0.8705
    assert round(data["krippendorff_alpha"], 4) == 0.8706
    # nested Lisbon and the shared "cancer" of clinic-02: two tokens each for ann1 and ann3
    assert data["multiply_covered_tokens"] == {"ann1": 2, "ann3": 2}
    # the gap of the discontinuous "breast … cancer" is not covered: "and" stays O for ann1
    frame = result.token_frame()
    clinic = frame[frame.document == "clinic-02"]
    text = spansets[0].documents["clinic-02"].text
    words = [text[s:e] for s, e in zip(clinic.start, clinic.end)]
    at = words.index("breast")
    assert words[at:at + 4] == ["breast", "and", "ovarian", "cancer"]
    assert clinic.ann1.tolist()[at:at + 4] == ["DISEASE", "O", "DISEASE", "DISEASE"]
    assert clinic.ann2.tolist()[at:at + 4] == ["DISEASE"] * 4


def test_labels_ignore_gives_the_two_by_two_table(demo):
    spansets = [read(demo / path, "conll") for path in CONLL]
    result = token_agreement(spansets, tokens="conll", labels="ignore")
    assert result.categories == [MARKED, "O"]
    truth = [["O" if label == "O" else MARKED for label in conll_tag_labels(demo / path)] for path in CONLL]
    reference = reference_figures(truth)
    for pair, expected in zip(result.pairs, reference["pairs"]):
        figures = pair.figures()
        a, b, c, d = pair.counts.a, pair.counts.b, pair.counts.c, pair.d
        assert pair.table == [[a, b], [c, d]]  # the k×k table is the 2×2 table
        assert a + b + c + d == result.tokens
        assert figures["kappa_2x2"] == pytest.approx(figures["cohen_kappa"], abs=1e-12)
        assert figures["cohen_kappa"] == pytest.approx(expected["cohen_kappa"], abs=1e-12)
    assert [round(p.figures()["cohen_kappa"], 4) for p in result.pairs] == [0.9082, 0.9297, 0.8762]


def test_token_kappa_tends_to_token_psa(demo):
    spansets = [read(demo / path, "conll") for path in CONLL]
    pair = token_agreement(spansets, tokens="conll").pairs[0]
    counts = pair.counts
    gaps = [counts.psa - counts.kappa(pair.d * 10**k) for k in range(5)]
    assert all(g > 0 for g in gaps) and gaps == sorted(gaps, reverse=True)
    assert gaps[-1] < 1e-3


def test_random_corpora_equal_references():
    rng = np.random.default_rng(11)
    labels = ["A", "B", "C"]
    for trial in range(5):
        texts, annotators = {}, [[] for _ in range(3)]
        for doc in range(4):
            words = ["w" * int(rng.integers(1, 5)) for _ in range(int(rng.integers(5, 40)))]
            text = " ".join(words)
            texts[f"d{doc}"] = text
            offsets = conll_tokens(text)
            for k in range(3):
                position = 0
                while position < len(offsets):
                    length = int(rng.integers(1, 4))
                    if rng.random() < 0.4:
                        last = min(position + length, len(offsets)) - 1
                        annotators[k].append(Span(f"d{doc}", (offsets[position][0], offsets[last][1]),
                                                  labels[int(rng.integers(0, 3))]))
                    position += length + int(rng.integers(0, 3))
        spansets = [SpanSet.from_spans(f"r{k}", annotators[k], texts) for k in range(3)]
        result = token_agreement(spansets, tokens="conll")
        truth = [[], [], []]
        for doc_id, text in texts.items():
            for k in range(3):
                found, _ = brute_force_labels(spansets[k].documents[doc_id].spans, conll_tokens(text))
                truth[k].extend("O" if label is None else label for label in found)
        reference = reference_figures(truth)
        for pair, expected in zip(result.pairs, reference["pairs"]):
            assert pair.figures()["cohen_kappa"] == pytest.approx(expected["cohen_kappa"], abs=1e-12)
            assert pair.figures()["mcc"] == pytest.approx(expected["mcc"], abs=1e-12)
        assert result.fleiss_kappa() == pytest.approx(reference["fleiss_kappa"], abs=1e-12)
        assert result.krippendorff_alpha() == pytest.approx(reference["krippendorff_alpha"], abs=1e-12)


def test_a_document_without_text_is_refused():
    ann1 = SpanSet.from_spans("ann1", [Span("d", (0, 3), "X")])
    ann2 = SpanSet.from_spans("ann2", [Span("d", (0, 3), "X")])
    from spanagree import UsageError

    with pytest.raises(UsageError, match="has no text"):
        token_agreement([ann1, ann2], tokens="conll")


def test_unknown_language_and_model_are_usage_errors(tmp_path):
    from spanagree import UsageError

    text = {"d": "a b"}
    pair = [SpanSet.from_spans("x", [], text), SpanSet.from_spans("y", [], text)]
    with pytest.raises(UsageError, match="lang zz"):
        token_agreement(pair, lang="zz")
    with pytest.raises(UsageError, match="spacy_model no_such_pipeline_sm: cannot load"):
        token_agreement(pair, spacy_model="no_such_pipeline_sm")


# -- the command line ------------------------------------------------------------------------------


def test_cli_agree_chance_brat_json(demo, capsys):
    paths = [demo / p for p in BRAT]
    code, out, err = run(capsys, "agree", *paths, "--chance", "--output", "json")
    assert code == 0, err
    assert "ann1: 2 token(s) covered by more than one span" in err
    data = json.loads(out)
    chance = data["chance"]
    assert chance["tokenizer"] == "spacy blank en" and chance["tokens"] == 581
    assert [p["annotators"] for p in chance["pairs"]] == [["ann1", "ann2"], ["ann1", "ann3"], ["ann2", "ann3"]]
    assert [p["d"] for p in chance["pairs"]] == [433, 442, 435]
    assert [round(p["psa"], 4) for p in chance["pairs"]] == [0.8633, 0.8939, 0.7836]
    assert [round(p["cohen_kappa"], 4) for p in chance["pairs"]] == [0.8821, 0.9077, 0.8221]
    assert [round(p["scott_pi"], 4) for p in chance["pairs"]] == [0.8820, 0.9076, 0.8221]
    assert [round(p["mcc"], 4) for p in chance["pairs"]] == [0.8824, 0.9088, 0.8238]
    assert round(chance["fleiss_kappa"], 4) == 0.8705 and round(chance["krippendorff_alpha"], 4) == 0.8706
    # span-level figures unchanged beside them (the contract only grows)
    assert [p["f1"] for p in data["pairs"]] == pytest.approx([0.8133, 0.8816, 0.7568], abs=5e-5)


def test_cli_agree_chance_conll_table_and_csv(demo, capsys):
    paths = [demo / p for p in CONLL]
    code, out, err = run(capsys, "agree", *paths, "--chance")
    assert code == 0, err
    assert "token level (d known): 565 tokens (conll)" in out
    assert "ann1 × ann2     565  419  0.8645     0.8222  0.8797  0.8796   0.8660   0.8947  0.8802" in out
    assert "all annotators: Fleiss' kappa 0.8677   Krippendorff's alpha 0.8678" in out
    code, out, err = run(capsys, "agree", *paths, "--chance", "--output", "csv")
    assert code == 0, err
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(out)))
    assert [round(float(r["token_cohen_kappa"]), 4) for r in rows] == [0.8797, 0.9054, 0.8185]
    assert [int(r["token_d"]) for r in rows] == [419, 429, 421]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_score_chance_prediction_first(demo, capsys, small_shards, jobs):
    from sklearn.metrics import balanced_accuracy_score

    gold, pred = demo / CONLL[0], demo / CONLL[1]
    code, out, err = run(capsys, "score", gold, pred, "--chance", "--labels", "ignore", "--output", "json",
                         "--jobs", jobs)
    assert code == 0, err
    chance = json.loads(out)["chance"]
    (pair,) = chance["pairs"]
    assert pair["annotators"] == ["ann2", "ann1"]  # prediction, gold
    truth = [["O" if label == "O" else MARKED for label in conll_tag_labels(path)] for path in (gold, pred)]
    # informedness with the gold as reference = sklearn's adjusted balanced accuracy (Youden's J)
    assert pair["informedness"] == pytest.approx(balanced_accuracy_score(truth[0], truth[1], adjusted=True), abs=1e-12)
    assert pair["markedness"] == pytest.approx(balanced_accuracy_score(truth[1], truth[0], adjusted=True), abs=1e-12)
    # b = predicted only, c = gold only, as at span level
    assert (pair["a"], pair["b"], pair["c"], pair["d"]) == (127, 12, 7, 419)
    assert chance["categories"] == [MARKED, "O"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_score_chance_missing_prediction_counts_as_empty(tmp_path, capsys, small_shards, jobs):
    text = "Ana Ruiz met Bo Li ."
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "sys.jsonl"
    gold.write_text(json.dumps({"id": "d1", "text": text, "spans": [{"start": 0, "end": 8, "label": "PER"}]}) + "\n"
                    + json.dumps({"id": "d2", "text": text, "spans": [{"start": 13, "end": 18, "label": "PER"}]})
                    + "\n", encoding="utf-8")
    pred.write_text(json.dumps({"id": "d1", "text": text, "spans": [{"start": 0, "end": 8, "label": "PER"}]}) + "\n",
                    encoding="utf-8")
    code, out, err = run(capsys, "score", gold, pred, "--chance", "--output", "json", "--jobs", jobs)
    assert code == 0, err
    (pair,) = json.loads(out)["chance"]["pairs"]
    # d1: Ana Ruiz both PER; d2 (no prediction): Bo Li missed — 12 tokens in all
    assert (pair["tokens"], pair["a"], pair["b"], pair["c"], pair["d"]) == (12, 2, 0, 2, 8)


def test_cli_spacy_model_from_a_path(demo, tmp_path, capsys):
    import spacy

    model = tmp_path / "blank_en"
    spacy.blank("en").to_disk(model)
    paths = [demo / p for p in BRAT[:2]]
    code, out, err = run(capsys, "agree", *paths, "--chance", "--spacy-model", model, "--output", "json")
    assert code == 0, err
    chance = json.loads(out)["chance"]
    assert chance["tokenizer"] == f"spacy model {model}"
    assert chance["tokens"] == 581 and round(chance["pairs"][0]["cohen_kappa"], 4) == 0.8821


@pytest.mark.parametrize("argv, message", [
    (["--chance", "--spacy-model", "no_such_pipeline_sm"], "--spacy-model no_such_pipeline_sm: cannot load"),
    (["--chance", "--lang", "zz"], "--lang zz: spaCy has no such language"),
    (["--lang", "fr"], "--lang goes with --chance or --unit sentence"),
    (["--spacy-model", "x"], "--spacy-model goes with --chance"),
    (["--chance", "--lang", "fr", "--spacy-model", "x"], "--lang and --spacy-model exclude each other"),
])
def test_cli_chance_usage_errors(demo, capsys, argv, message):
    code, out, err = run(capsys, "agree", demo / BRAT[0], demo / BRAT[1], *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_cli_lang_is_used(demo, capsys):
    code, out, err = run(capsys, "agree", demo / BRAT[0], demo / BRAT[1], "--chance", "--lang", "pt",
                         "--output", "json")
    assert code == 0, err
    chance = json.loads(out)["chance"]
    assert chance["tokenizer"] == "spacy blank pt"
    import spacy

    nlp = spacy.blank("pt")
    spansets = [read(demo / p, "brat") for p in BRAT[:2]]
    expected = sum(sum(1 for t in nlp.tokenizer(d.text) if not t.is_space) for d in spansets[0].documents.values())
    assert chance["tokens"] == expected


def test_no_heavy_import_for_help():
    import subprocess
    import sys

    code = ("import sys, spanagree.cli, spanagree.measures.tokens, spanagree.measures.tables, spanagree.measures.bootstrap, "
            "spanagree.measures.significance, spanagree.measures.unitizing, spanagree.textalign, spanagree.progress, "
            "spanagree.pipeline.cluster; "
            "print(sorted(m for m in ('spacy', 'pandas', 'scipy', 'numpy', 'sklearn', 'statsmodels', 'krippendorff', "
            "'rapidfuzz', 'tqdm', 'dask', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_quiet_when_nothing_nests(demo):
    spansets = [read(demo / path, "conll") for path in CONLL]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanagreeWarning)
        result = token_agreement(spansets, tokens="conll")
    assert result.multiply_covered == {}
    assert not math.isnan(result.fleiss_kappa())


# -- docs/concepts.md stays true -------------------------------------------------------------------

CONCEPTS = __import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "concepts.md"


def test_concepts_examples_run():
    import doctest

    failures, tried = doctest.testfile(str(CONCEPTS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried >= 10 and failures == 0


def test_concepts_kappa_against_d_table(demo):
    import re

    from spanagree import agree

    span_counts = agree([read(demo / p, "brat") for p in BRAT]).pairs[0].counts
    tokens = token_agreement([read(demo / p, "conll") for p in CONLL], tokens="conll").pairs[0]
    assert tokens.d == 419
    rows = re.findall(r"^\| ([\d,]+) \| (−?[\d.]+) \| (−?[\d.]+) \| \**(−?[\d.]+)\**", CONCEPTS.read_text(), re.M)
    assert len(rows) == 8
    for d, kappa, pi, token_kappa in rows:
        d = int(d.replace(",", ""))
        figures = [float(x.replace("−", "-")) for x in (kappa, pi, token_kappa)]
        assert figures == [round(span_counts.kappa(d), 4), round(span_counts.kappa(d, pooled=True), 4),
                           round(tokens.counts.kappa(d), 4)]


def test_k_by_k_kappa_limit_counts_a_wrong_label_half(demo):
    from spanagree.measures import tables as stats

    result = token_agreement([read(demo / p, "conll") for p in CONLL[:2]], tokens="conll")
    pair = result.pairs[0]
    ignored = token_agreement([read(demo / p, "conll") for p in CONLL[:2]], tokens="conll", labels="ignore").pairs[0]
    same = pair.counts.a
    wrong = ignored.counts.a - same
    one_side = ignored.counts.b + ignored.counts.c
    assert (same, wrong, one_side) == (118, 9, 19)
    table = np.array(pair.table, dtype=float)
    table[-1, -1] += 1e9  # the O–O cell grows
    limit = (2 * same + wrong) / (2 * same + 2 * wrong + one_side)
    assert stats.cohen_kappa(table) == pytest.approx(limit, abs=1e-6)
    assert pair.counts.psa == pytest.approx(2 * same / (2 * same + 2 * wrong + one_side))


# -- --chance through the pipeline: streamed, under --jobs (issue 17) --------------------------------


def round_robin(spansets):
    """Document n of the demo kept by every annotator but annotator n % 3: each by two of them."""
    ids = list(spansets[0].documents)
    return [SpanSet(s.name, {d: s.documents[d] for n, d in enumerate(ids) if n % 3 != k}, [], s.format)
            for k, s in enumerate(spansets)]


def write_brat(spanset, folder):
    folder.mkdir()
    for doc_id, document in spanset.documents.items():
        (folder / f"{doc_id}.txt").write_text(document.text, encoding="utf-8")
        lines = [f"T{n}\t{s.label} {';'.join(f'{a} {b}' for a, b in s.fragments)}\t"
                 f"{' '.join(document.text[a:b] for a, b in s.fragments)}" for n, s in enumerate(document.spans, 1)]
        (folder / f"{doc_id}.ann").write_text("".join(line.replace("\n", " ") + "\n" for line in lines),
                                              encoding="utf-8")


def chance_json(capsys, *argv):
    code, out, err = run(capsys, "agree", *argv, "--chance", "--output", "json")
    assert code == 0, err
    data = json.loads(out)
    data["options"].pop("jobs", None)
    return data, err


@pytest.mark.parametrize("fmt", ["brat", "conll"])
@pytest.mark.parametrize("design", ["common", "pairwise"])
def test_cli_chance_is_the_same_under_jobs(demo, tmp_path, capsys, small_shards, fmt, design):
    """The --chance block, the rest of the JSON and the warnings are those of one process, to the
    last bit, whether the documents are compared in one process or in shards (BRAT folders read
    in the workers; CoNLL files read first)."""
    paths = [demo / p for p in (BRAT if fmt == "brat" else CONLL)]
    if design == "pairwise":  # the annotators keep some documents each (BRAT: written back to folders)
        kept = round_robin([read(p, fmt) for p in paths])
        if fmt == "brat":
            for spanset in kept:
                write_brat(spanset, tmp_path / spanset.name)
            paths = [tmp_path / s.name for s in kept]
    if design == "pairwise" and fmt == "conll":  # (CoNLL numbers its documents: kept in memory)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            one, two = (agree(kept, documents="pairwise", chance=True, jobs=jobs).to_dict() for jobs in (1, 2))
        one["options"].pop("jobs", None), two["options"].pop("jobs", None)
        assert one == two and one["chance"]["fleiss_kappa"] is None
        return
    extra = ["--documents", design]
    one, err_one = chance_json(capsys, *paths, *extra, "--jobs", "1")
    two, err_two = chance_json(capsys, *paths, *extra, "--jobs", "2")
    assert two == one and err_two == err_one
    chance = one["chance"]
    if fmt == "brat":  # nested Lisbon and the shared "cancer": warned once, in annotator order
        assert chance["tokenizer"] == "spacy blank en"
        assert [line.split(":")[2].strip() for line in err_one.splitlines() if "token(s) covered" in line] == \
            (["ann1", "ann3"] if design == "common" else [s.name for s in kept if chance["multiply_covered_tokens"].get(s.name)])
    else:
        assert chance["tokenizer"] == "conll" and chance["tokens"] == 565 and err_one == ""
    if design == "common":
        assert chance["tokens"] == (581 if fmt == "brat" else 565)
    else:
        assert chance["fleiss_kappa"] is None and chance["documents"] == 10


def test_streamed_chance_equals_token_agreement_on_the_corpus_read_whole(demo, small_shards):
    """agree(..., chance=True) on paths (streamed, or in shards) gives token_agreement's block on
    the span sets read whole."""
    spansets = [read(demo / p, "brat") for p in BRAT]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        whole = token_agreement(spansets, tokens="spacy", labels="ignore").to_dict()
        for jobs in (1, 2):
            streamed = agree([demo / p for p in BRAT], chance=True, labels="ignore", jobs=jobs).extras["chance"]
            assert streamed == whole


@pytest.mark.parametrize("fmt", ["brat", "conll"])
def test_score_chance_streamed_equals_token_agreement_on_the_corpus_read_whole(demo, tmp_path, capsys, small_shards,
                                                                                fmt):
    """score --chance tallies each prediction's tokens where its documents meet the gold's (in
    shards under --jobs 2): every prediction's block is token_agreement's on the span sets read
    whole (the prediction first), a document the prediction lacks counting as empty; the JSON and
    the warnings are those of one process."""
    paths = [demo / p for p in (BRAT if fmt == "brat" else CONLL)]
    if fmt == "brat":  # ann3 without its first document
        shutil.copytree(paths[2], tmp_path / "ann3")
        for lost in sorted((tmp_path / "ann3").glob("*"))[:2]:
            lost.unlink()
        paths[2] = tmp_path / "ann3"
    data, err = same_under_jobs(capsys, "score", *paths, "--chance", "--output", "json")
    spansets = [read(p, fmt) for p in paths]
    gold = spansets[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        whole = [token_agreement([pred, gold], list(gold.documents), tokens="spacy" if fmt == "brat" else "conll",
                                 names=[pred.name, gold.name]).to_dict() for pred in spansets[1:]]
    assert [p["chance"] for p in data["predictions"]] == whole
    assert [p["chance"]["tokens"] for p in data["predictions"]] == [581, 581] if fmt == "brat" else [565, 565]
    if fmt == "brat":
        assert len(spansets[2].documents) == 9
        assert "ann3: 1 gold document(s) have no prediction and count as empty: clinic-01" in err


def test_score_chance_under_align_text_takes_the_golds_tokens(tmp_path, capsys, small_shards):
    """--align-text: the prediction's spans mapped onto the gold's text, tokenised there (spaCy
    would cut the prediction's own ``Bo-Li`` in three); its missing d2 counts as empty.

    Tokens (prediction, gold): Ana Ruiz (PER, PER) ×2, met (O, O), Bo Li (LOC, PER) ×2, in (O, O),
    Porto (LOC, LOC), . (O, O); d2: Then (O, O), Ana (O, PER), left (O, O), . (O, O). So a = 3,
    b = 5 − 3 = 2, c = 6 − 3 = 3, d = 6 over 12 tokens; the table (rows: prediction; LOC, PER, O)
    [[1, 2, 0], [0, 2, 0], [0, 1, 6]]: p_o = 9/12, p_e = (3·1 + 2·5 + 7·6)/144 = 55/144,
    Cohen's kappa = (108 − 55)/(144 − 55) = 53/89."""
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    gold.mkdir(), pred.mkdir()
    documents = [(gold, "d1", "Ana Ruiz met Bo Li in Porto.", [(0, 8, "PER"), (13, 18, "PER"), (22, 27, "LOC")]),
                 (gold, "d2", "Then Ana left.", [(5, 8, "PER")]),
                 (pred, "d1", "Ana  Ruiz met Bo-Li in Oporto.", [(0, 9, "PER"), (14, 19, "LOC"), (23, 29, "LOC")])]
    for folder, doc_id, text, spans in documents:
        (folder / f"{doc_id}.txt").write_text(text, encoding="utf-8")
        (folder / f"{doc_id}.ann").write_text("".join(f"T{k}\t{label} {s} {e}\t{text[s:e]}\n"
                                                      for k, (s, e, label) in enumerate(spans, 1)), encoding="utf-8")
    data, err = same_under_jobs(capsys, "score", gold, pred, "--align-text", "--chance", "--output", "json")
    assert "pred: 1 gold document(s) have no prediction and count as empty: d2" in err
    assert data["aligned_texts"]["documents"] == 1
    chance = data["chance"]
    (pair,) = chance["pairs"]
    assert chance["categories"] == ["LOC", "PER", "O"] and pair["annotators"] == ["pred", "gold"]
    assert (pair["tokens"], pair["a"], pair["b"], pair["c"], pair["d"]) == (12, 3, 2, 3, 6)
    assert pair["table"] == [[1, 2, 0], [0, 2, 0], [0, 1, 6]]
    assert pair["cohen_kappa"] == pytest.approx(53 / 89, abs=1e-12)


def test_a_document_without_text_is_refused_whatever_the_jobs(small_shards):
    from spanagree import UsageError

    texts = {"d1": "Ana met Bo .", "d4": "Bo met Ana ."}
    sets = []
    for name in ("ann1", "ann2"):
        spans = [Span(d, (0, 3), "PER") for d in ("d1", "d2", "d3", "d4")]
        sets.append(SpanSet.from_spans(name, spans, texts))
    for jobs in (1, 2):
        with pytest.raises(UsageError, match="document 'd2' has no text"):
            agree(sets, chance=True, jobs=jobs)
        with pytest.raises(UsageError, match="document 'd2' has no text"):
            score(sets[0], sets[1], chance=True, jobs=jobs)


def test_the_token_tally_pickles_and_adds_up(demo):
    import pickle

    from spanagree.measures.tokens import TokenLevel, TokenTally

    spansets = [read(demo / p, "conll") for p in CONLL]
    ids = list(spansets[0].documents)
    level = TokenLevel("conll")
    whole, first, second = TokenTally(), TokenTally(), TokenTally()
    level.add(whole, spansets, ids)
    level.add(first, spansets, ids[:4])
    level.add(second, spansets, ids[4:])
    first = pickle.loads(pickle.dumps(first))
    first += pickle.loads(pickle.dumps(second))
    assert first.rows == whole.rows and first.documents == ids and sum(whole.rows.values()) == 565
    names = [s.name for s in spansets]
    assert first.agreement(names, ids, tokenizer="conll").to_dict() == \
        token_agreement(spansets, tokens="conll").to_dict()


def same_under_jobs(capsys, *argv) -> tuple[dict, str]:
    """The JSON (how it was executed left out) and standard error of a successful run of ``argv``,
    asserted the same under ``--jobs 1`` and ``--jobs 2``."""
    code, out, err = same_under(capsys, argv)
    assert code == 0, err
    return without_executor(out), err
