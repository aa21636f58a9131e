"""``score --pairing``: the official scorers' greedy pairings (spanagree.match.PAIRINGS).

Hand-computed cases for each procedure, then the scorers' own recorded figures: the HIPE scorer
on a sample of HIPE-2022 (``tests/data/hipe2022-ajmc-en-sample``) and nervaluate 1.2.1 on a
generated corpus (``tests/data/nervaluate-recorded``). Neither scorer is imported here.

Pictures use character offsets, half-open ``[start, end)``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spanagree import read, score
from spanagree.errors import SpanagreeWarning, UsageError
from spanagree.match import PAIRINGS, MatchRule, align
from spanagree.span import Span
from conftest import generated

DATA = Path(__file__).parent / "data"

#: nervaluate scheme → spanagree (match, labels).
SCHEMES = {"strict": ("exact", "strict"), "exact": ("exact", "ignore"), "partial": ("partial", "ignore"),
           "ent_type": ("overlap", "strict")}


def abc(result) -> tuple:
    return result.counts.a, result.counts.b, result.counts.c


def by_label(result) -> dict:
    return {label: (c.a, c.b, c.c) for label, c in result.pair.by_label.items()}


# --- hand-computed cases ------------------------------------------------------------------------

def test_pairings_are_a_registry_with_optimal_first():
    assert list(PAIRINGS) == ["optimal", "hipe", "nervaluate", "greedy"]
    with pytest.raises(UsageError, match="unknown pairing 'first'; choose one of: optimal, hipe, nervaluate, greedy"):
        MatchRule(pairing="first")
    with pytest.raises(UsageError, match="unknown pairing"):
        score([[(0, 1, "A")]], [[(0, 1, "A")]], pairing="first")


def test_partial_prediction_first_takes_the_gold_span():
    """::

        gold     [=====PER=====]      PER [0, 10)
        pred 1   [=PER=]              PER [0, 4)   listed first
        pred 2   [=====PER=====]      PER [0, 10)  exact

    optimal: the exact prediction, a = 1, b = 1 (pred 1), c = 0.
    nervaluate strict: pred 1 claims the gold span (INC), pred 2 finds it taken (SPU):
        COR 0, INC 1, SPU 1 → a = 0, b = 2, c = 1; ent_type: pred 1 COR → a = 1, b = 1, c = 0.
    hipe strict: pred 1 claims it (incorrect), pred 2 equals it and claims it again (correct):
        correct 1, incorrect 1 → a = 1, b = 1, c = 1 (the gold span counts twice in "possible").
    """
    gold, pred = [[(0, 10, "PER")]], [[(0, 4, "PER"), (0, 10, "PER")]]
    assert abc(score(gold, pred)) == (1, 1, 0)
    assert abc(score(gold, pred, pairing="nervaluate")) == (0, 2, 1)
    assert abc(score(gold, pred, pairing="nervaluate", match="overlap")) == (1, 1, 0)
    assert abc(score(gold, pred, pairing="hipe")) == (1, 1, 1)
    assert abc(score(gold, pred, pairing="hipe", match="overlap")) == (2, 0, 0)
    # The order of the reader's list does not matter: spans are taken in document order (start,
    # then end), so the shorter prediction comes first either way.
    assert abc(score(gold, [[(0, 10, "PER"), (0, 4, "PER")]], pairing="nervaluate")) == (0, 2, 1)


def test_hipe_counts_an_incorrect_pair_under_the_gold_label():
    """::

        gold    [PER]      [LOC]           PER [0, 5), LOC [10, 14)
        pred    [LOC]      [LOC]   [ORG]   LOC [0, 5), LOC [10, 14), ORG [20, 22)

    The LOC prediction on the PER span is incorrect: 1 to b and 1 to c **of PER**, nothing to
    LOC; ORG is spurious (b of ORG). optimal counts the LOC prediction under LOC (b) and the PER
    span as missed (c of PER).
    """
    gold = [[(0, 5, "PER"), (10, 14, "LOC")]]
    pred = [[(0, 5, "LOC"), (10, 14, "LOC"), (20, 22, "ORG")]]
    hipe = score(gold, pred, pairing="hipe")
    assert abc(hipe) == (1, 2, 1)
    assert by_label(hipe) == {"LOC": (1, 0, 0), "ORG": (0, 1, 0), "PER": (0, 1, 1)}
    assert by_label(score(gold, pred)) == {"LOC": (1, 1, 0), "ORG": (0, 1, 0), "PER": (0, 0, 1)}
    # The error kinds are the scorer's pairs: the LOC prediction is a wrong label of the PER span.
    kinds = hipe.error_counts()
    assert (kinds["correct"], kinds["wrong_label"], kinds["spurious"], kinds["missed"]) == (1, 1, 1, 0)
    assert hipe.to_dict()["options"]["pairing"] == "hipe"


def test_hipe_fuzzy_takes_the_first_unclaimed_overlap():
    """The fuzzy regime (``--match overlap``)::

        gold     [===PER===]  [===PER===]      PER [0, 9), PER [10, 19)
        pred          [=====PER=====]          PER [5, 15): the first overlap, [0, 9)
        pred                   [PER]           PER [12, 16): [10, 19)

    HIPE pairs both (a = 2); so does optimal. Take the second gold span away from the second
    prediction by making it overlap only the first::

        pred             [PER]                 PER [3, 6): overlaps [0, 9), already claimed

    HIPE: the first prediction claims [0, 9), the second has nothing left: a = 1, b = 1, c = 1;
    optimal pairs [5, 15) with [10, 19) and [3, 6) with [0, 9): a = 2.
    """
    gold = [[(0, 9, "PER"), (10, 19, "PER")]]
    assert abc(score(gold, [[(5, 15, "PER"), (12, 16, "PER")]], match="overlap", pairing="hipe")) == (2, 0, 0)
    pred = [[(3, 6, "PER"), (5, 15, "PER")]]  # document order: [3, 6) first
    assert abc(score(gold, pred, match="overlap", pairing="hipe")) == (2, 0, 0)
    pred = [[(5, 15, "PER"), (6, 8, "PER")]]
    assert abc(score(gold, pred, match="overlap", pairing="hipe")) == (1, 1, 1)
    assert abc(score(gold, pred, match="overlap")) == (2, 0, 0)
    # Under the strict regime neither pair counts; the first claim still takes [0, 9).
    assert abc(score(gold, pred, pairing="hipe")) == (0, 2, 2)


def test_hipe_one_loop_over_the_gold_spans_as_the_scorer_has_it():
    """Where the issue's wording and the scorer's code part: the code looks for an equal gold span
    first, then walks the gold spans once and takes the first that has the prediction's
    boundaries (another label) **or** overlaps it unclaimed — not a same-boundary span first.
    Nested gold spans show it::

        gold    [=====ORG=====]       ORG [0, 10)
        gold       [LOC]              LOC [3, 6)
        pred       [PER]              PER [3, 6)

    The scorer's loop meets ORG [0, 10) first (unclaimed, overlapping): the pair is PER–ORG, and
    LOC [3, 6) is missed; per label, the incorrect pair is ORG's.
    """
    gold = [[(0, 10, "ORG"), (3, 6, "LOC")]]
    pred = [[(3, 6, "PER")]]
    result = score(gold, pred, pairing="hipe")
    assert abc(result) == (0, 1, 2)
    assert by_label(result) == {"LOC": (0, 0, 1), "ORG": (0, 1, 1)}
    (pair,) = align([Span("1", ((3, 6),), "PER")], [Span("1", ((0, 10),), "ORG"), Span("1", ((3, 6),), "LOC")],
                    MatchRule(pairing="hipe")).pairs
    assert (pair.second.label, pair.credit) == ("ORG", 0.0)


def test_nervaluate_ent_type_takes_the_closest_same_label_gold():
    """::

        gold     [==PER==][==PER==]      PER [0, 5), PER [5, 10)
        pred         [====PER====]       PER [4, 10): closest to [5, 10) (distance 1 vs 5)
        pred              [PER]          PER [6, 8): [5, 10) is taken

    nervaluate 1.2.1 ent_type: COR 1, MIS 1, SPU 1 (docs/peers.md); listed the other way round
    the same spans still come in document order. optimal: a = 2.
    """
    gold = [[(0, 5, "PER"), (5, 10, "PER")]]
    pred = [[(4, 10, "PER"), (6, 8, "PER")]]
    assert abc(score(gold, pred, match="overlap", pairing="nervaluate")) == (1, 1, 1)
    assert abc(score(gold, pred, match="overlap")) == (2, 0, 0)
    # nervaluate's fallback for a prediction without a same-label gold: the first overlap (INC).
    result = score([[(0, 5, "LOC"), (5, 10, "PER")]], [[(3, 7, "ORG"), (12, 14, "PER")]], match="overlap",
                   pairing="nervaluate")
    assert abc(result) == (0, 2, 2)
    assert result.error_counts()["wrong_label_and_boundary"] == 1  # ORG [3, 7) with LOC [0, 5)


def test_nervaluate_per_label_runs_on_each_label_alone():
    """nervaluate filters both sides by type before each per-type run::

        gold    [=====PER=====]          PER [0, 10)
        pred    [LOC]                    LOC [0, 3): claims the PER span (INC) overall
        pred    [=====PER=====]          PER [0, 10): finds it taken overall

    strict overall: COR 0, INC 1, SPU 1, MIS 0 → a = 0, b = 2, c = 1. Per type, PER alone:
    COR 1 → (1, 0, 0); LOC alone: SPU 1 → (0, 1, 0). The per-label figures do not add up to the
    overall ones, as in nervaluate.
    """
    gold, pred = [[(0, 10, "PER")]], [[(0, 3, "LOC"), (0, 10, "PER")]]
    result = score(gold, pred, pairing="nervaluate")
    assert abc(result) == (0, 2, 1)
    assert by_label(result) == {"LOC": (0, 1, 0), "PER": (1, 0, 0)}
    assert by_label(score(gold, pred, pairing="nervaluate", only=["PER"])) == {"PER": (1, 0, 0)}


def test_partial_credit_of_a_greedy_pair():
    """nervaluate partial (partial / ignore): an overlap claimed earns 0.5 (PAR)::

        gold    [=====PER=====]    [LOC]       PER [0, 10), LOC [20, 25)
        pred    [==ORG==]          [LOC]       ORG [0, 6), LOC [20, 25)
    """
    gold, pred = [[(0, 10, "PER"), (20, 25, "LOC")]], [[(0, 6, "ORG"), (20, 25, "LOC")]]
    for pairing in ("nervaluate", "hipe", "optimal"):
        assert abc(score(gold, pred, match="partial", labels="ignore", pairing=pairing)) == (1.5, 0.5, 0.5)


@pytest.mark.parametrize("pairing", ["hipe", "nervaluate"])
def test_listing_and_confusion_follow_the_pairing(pairing):
    """The error listing shows the pairs the procedure made (an incorrect pair is aligned, with
    no credit), and nothing is paired a second time among what it left."""
    gold = [[(0, 10, "PER"), (20, 30, "LOC")]]
    pred = [[(0, 4, "PER"), (0, 10, "PER"), (25, 35, "ORG")]]
    result = score(gold, pred, pairing=pairing, errors=True)
    items = sorted((i.kind, i.aligned, i.credit, i.gold and i.gold.start, i.pred and i.pred.end)
                   for i in result.items)
    expected = {
        # nervaluate strict: [0, 4) claims PER (INC), [0, 10) spurious, ORG claims LOC (INC).
        "nervaluate": [("partial", True, 0.0, 0, 4), ("spurious", False, 0.0, None, 10),
                       ("wrong_label_and_boundary", True, 0.0, 20, 35)],
        # hipe: [0, 4) claims PER, [0, 10) equals it and claims it again, ORG claims LOC.
        "hipe": [("correct", True, 1.0, 0, 10), ("partial", True, 0.0, 0, 4),
                 ("wrong_label_and_boundary", True, 0.0, 20, 35)],
    }[pairing]
    assert items == expected
    confusion = result.confusion()  # gold × prediction: the procedure's pairs, (none) for the rest
    index = {label: k for k, label in enumerate(confusion["labels"])}
    assert confusion["matrix"][index["LOC"]][index["ORG"]] == 1
    assert confusion["matrix"][index["LOC"]][index["(none)"]] == 0
    assert confusion["matrix"][index["PER"]][index["PER"]] == (2 if pairing == "hipe" else 1)


def test_default_is_optimal_and_unchanged():
    gold, pred = [[(0, 10, "PER")]], [[(0, 4, "PER"), (0, 10, "PER")]]
    assert abc(score(gold, pred)) == abc(score(gold, pred, pairing="optimal")) == (1, 1, 0)
    assert score(gold, pred).to_dict()["options"]["pairing"] == "optimal"


# --- the HIPE scorer on HIPE-2022 (AjMC, English): two documents, one submitted run -------------

@pytest.fixture(scope="module")
def hipe_sample():
    folder = DATA / "hipe2022-ajmc-en-sample"
    recorded = json.loads((folder / "scorer.json").read_text(encoding="utf-8"))
    return read(folder / "gold.jsonl"), read(folder / "neurbsl_bundle3_ajmc_en_1.jsonl"), recorded


def tp_fp_fn(counts) -> dict:
    return {"TP": counts.a, "FP": counts.b, "FN": counts.c}


@pytest.mark.parametrize("regime, match", [("strict", "exact"), ("ent_type", "overlap")])
def test_hipe_scorer_figures_on_hipe2022(hipe_sample, regime, match):
    gold, run, recorded = hipe_sample
    result = score(gold, run, match=match, pairing="hipe")
    assert tp_fp_fn(result.counts) == recorded["overall"][regime]
    assert {label: tp_fp_fn(c) for label, c in result.pair.by_label.items()} == {
        label: figures[regime] for label, figures in recorded["per_type"].items()}


def test_hipe2022_optimal_pairing_differs_where_the_scorer_is_greedy(hipe_sample):
    """Recorded: strict 44/25/19, fuzzy 51/18/12. The optimal alignment finds the strict pairs
    (exact pairs are the same under any pairing) but not the scorer's per-label figures, and 5
    more fuzzy pairs."""
    gold, run, recorded = hipe_sample
    assert recorded["overall"] == {"strict": {"TP": 44, "FP": 25, "FN": 19}, "ent_type": {"TP": 51, "FP": 18, "FN": 12}}
    assert tp_fp_fn(score(gold, run).counts) == recorded["overall"]["strict"]
    assert {label: tp_fp_fn(c) for label, c in score(gold, run).pair.by_label.items()} != {
        label: figures["strict"] for label, figures in recorded["per_type"].items()}
    assert tp_fp_fn(score(gold, run, match="overlap").counts) == {"TP": 56, "FP": 13, "FN": 7}


# --- nervaluate 1.2.1 on a generated corpus: its four schemes, overall and per type ------------

@pytest.fixture(scope="module")
def generated_corpus(tmp_path_factory):
    recorded = json.loads((DATA / "nervaluate-recorded" / "generated.json").read_text(encoding="utf-8"))
    top = generated(tmp_path_factory.mktemp("generated"), docs=recorded["documents"], formats=("jsonl",))
    return read(top / "jsonl" / "ann1.jsonl"), read(top / "jsonl" / "ann2.jsonl"), recorded


def nervaluate_abc(figures: dict) -> tuple:
    """a, b, c of nervaluate's categories: a = COR + 0.5 PAR, a + b = actual, a + c = possible."""
    cor, inc, par, mis, spu = (figures[k] for k in ("correct", "incorrect", "partial", "missed", "spurious"))
    credit = cor + 0.5 * par
    return credit, cor + inc + par + spu - credit, cor + inc + par + mis - credit


@pytest.mark.slow
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_nervaluate_figures_on_a_generated_corpus(generated_corpus, scheme):
    gold, pred, recorded = generated_corpus
    match, labels = SCHEMES[scheme]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        result = score(gold, pred, match=match, labels=labels, pairing="nervaluate")
        assert abc(result) == nervaluate_abc(recorded["overall"][scheme])
        for label, schemes in recorded["entities"].items():
            alone = score(gold, pred, match=match, labels=labels, pairing="nervaluate", only=[label])
            assert abc(alone) == nervaluate_abc(schemes[scheme]), label
            if labels == "strict":  # --by label gives the same, as nervaluate filters them
                got = result.pair.by_label[label]
                assert (got.a, got.b, got.c) == nervaluate_abc(schemes[scheme]), label
        if scheme == "ent_type":  # the greedy pairing loses pairs that the optimal alignment finds
            assert score(gold, pred, match=match, labels=labels).counts.a > result.counts.a


def test_command_line_pairing_is_echoed_and_conforms(hipe_sample, capsys, tmp_path):
    """``spanagree score GOLD RUN --pairing hipe --match overlap --by label``: the scorer's fuzzy
    figures, ``options.pairing`` echoed, the document valid against the score schema; the
    listing holds the procedure's pairs."""
    from test_json_schema import conforms, run

    folder = DATA / "hipe2022-ajmc-en-sample"
    errors = tmp_path / "errors.json"
    document = run(capsys, "score", folder / "gold.jsonl", folder / "neurbsl_bundle3_ajmc_en_1.jsonl",
                   "--pairing", "hipe", "--match", "overlap", "--by", "label", "--errors", errors, "--output", "json")
    conforms("score", document)
    recorded = hipe_sample[2]
    assert document["options"]["pairing"] == "hipe"
    assert {"TP": document["a"], "FP": document["b"], "FN": document["c"]} == recorded["overall"]["ent_type"]
    assert {label: {"TP": d["a"], "FP": d["b"], "FN": d["c"]} for label, d in document["by_label"].items()} == {
        label: figures["ent_type"] for label, figures in recorded["per_type"].items()}
    listed = json.loads(errors.read_text(encoding="utf-8"))
    items = listed["errors"]
    assert sum(item["kind"] == "missed" for item in items) == document["errors"]["missed"]
    from spanagree.cli import main

    assert main(["agree", str(folder / "gold.jsonl"), str(folder / "gold.jsonl"), "--pairing", "hipe"]) == 2
    assert "unrecognized arguments: --pairing hipe" in capsys.readouterr().err  # score's only


# --- the procedures against plain transcriptions of the scorers' loops ---------------------------
#
# The references below follow the scorers' own loops literally — one loop per nervaluate strategy,
# the HIPE scorer's scenarios in its order — on token spans with *inclusive* ends, as the scorers
# see them; spanagree's one greedy loop (the rule's credit deciding) must count the same.

def reference_nervaluate(true: list, pred: list, scheme: str) -> tuple:
    """nervaluate 1.2.1's strategy ``scheme`` on ``(label, start, end)`` lists (ends inclusive):
    (COR, INC, PAR, MIS, SPU)."""
    def overlaps(p, t):
        return not (p[1] > t[2] or p[2] < t[1])

    cor = inc = par = spu = 0
    taken = set()
    for p in pred:
        if scheme == "ent_type":
            best = fallback = None
            for k, t in enumerate(true):
                if k in taken or not overlaps(p, t):
                    continue
                distance = abs(p[1] - t[1]) + abs(p[2] - t[2])
                if p[0] == t[0]:
                    if best is None or distance < best[0]:
                        best = (distance, k)
                elif fallback is None:
                    fallback = k
            if best is not None:
                cor += 1
                taken.add(best[1])
            elif fallback is not None:
                inc += 1
                taken.add(fallback)
            else:
                spu += 1
            continue
        found = None
        for k, t in enumerate(true):
            if k in taken:
                continue
            same = p[1:] == t[1:] and (p[0] == t[0] or scheme != "strict")
            if same:
                found = ("cor", k)
                break
            if overlaps(p, t) and found is None:
                found = ("par" if scheme == "partial" else "inc", k)
        if found is None:
            spu += 1
        else:
            taken.add(found[1])
            cor += found[0] == "cor"
            inc += found[0] == "inc"
            par += found[0] == "par"
    return cor, inc, par, len(true) - len(taken), spu


def reference_hipe(true: list, pred: list) -> dict:
    """The HIPE scorer's ``compute_metrics`` on ``(label, start, end, ...)`` lists (ends inclusive;
    anything after the end is part of an entity's equality, as its text is in the scorer):
    {regime: (correct, incorrect, missed, spurious)} for its strict and fuzzy regimes."""
    counts = {"strict": [0, 0, 0, 0], "ent_type": [0, 0, 0, 0]}
    claimed = []
    for p in pred:
        if p in true:  # Scenario I: equal, claimed or not
            claimed.append(p)
            counts["strict"][0] += 1
            counts["ent_type"][0] += 1
            continue
        for t in true:
            if t[1:3] == p[1:3] and t[0] != p[0]:  # Scenario IV: same boundaries, another type
                counts["strict"][1] += 1
                counts["ent_type"][1] += 1
                claimed.append(t)
                break
            if set(range(t[1], t[2] + 1)) & set(range(p[1], p[2] + 1)) and t not in claimed:
                claimed.append(t)
                counts["strict"][1] += 1
                counts["ent_type"][0 if t[0] == p[0] else 1] += 1  # Scenario V, VI
                break
        else:
            counts["strict"][3] += 1
            counts["ent_type"][3] += 1
    for regime in counts:
        counts[regime][2] = sum(t not in claimed for t in true)
    return {regime: tuple(c) for regime, c in counts.items()}


def token_spans(draw_list):
    """Token spans ``(label, start, end)`` with inclusive ends, distinct, in document order."""
    return sorted(set(draw_list), key=lambda s: (s[1], s[2], s[0]))


span_tuples = st.lists(st.builds(lambda label, start, length: (label, start, start + length),
                                 st.sampled_from("AB"), st.integers(0, 12), st.integers(0, 4)), max_size=7)


def as_lists(spans: list) -> list:
    """Inclusive token spans as spanagree's plain data (half-open)."""
    return [[(start, end + 1, label) for label, start, end in spans]]


@given(true=span_tuples, pred=span_tuples, scheme=st.sampled_from(list(SCHEMES)))
@settings(max_examples=300)
def test_nervaluate_pairing_counts_as_its_loops(true, pred, scheme):
    true, pred = token_spans(true), token_spans(pred)
    cor, inc, par, mis, spu = reference_nervaluate(true, pred, scheme)
    match, labels = SCHEMES[scheme]
    if labels == "ignore":  # spanagree counts spans with the same fragments once under labels ignore
        assume(len({s[1:] for s in true}) == len(true) and len({s[1:] for s in pred}) == len(pred))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        result = score(as_lists(true), as_lists(pred), match=match, labels=labels, pairing="nervaluate")
    credit = cor + 0.5 * par
    assert abc(result) == (credit, cor + inc + par + spu - credit, cor + inc + par + mis - credit)
    # a + b = the predictions, a + c = the gold spans: nervaluate pairs one-to-one
    assert (result.counts.a + result.counts.b, result.counts.a + result.counts.c) == (len(pred), len(true))


@given(true=span_tuples, pred=span_tuples)
@settings(max_examples=300)
def test_hipe_pairing_counts_as_its_loop(true, pred):
    true, pred = token_spans(true), token_spans(pred)
    expected = reference_hipe(true, pred)
    for regime, match in (("strict", "exact"), ("ent_type", "overlap")):
        correct, incorrect, missed, spurious = expected[regime]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpanagreeWarning)
            result = score(as_lists(true), as_lists(pred), match=match, pairing="hipe")
        assert abc(result) == (correct, incorrect + spurious, incorrect + missed), regime
        assert result.counts.a + result.counts.b == len(pred)


def reference_hipe_with_texts(true: list, pred: list, gold_tokens: list, pred_tokens: list) -> dict:
    """:func:`reference_hipe` with the scorer's entities as they are, ``(type, start, end, text)``:
    the text is the entity's tokens concatenated as each file writes them."""
    def entity(span, tokens):
        return (*span, "".join(tokens[span[1]:span[2] + 1]))

    return reference_hipe([entity(t, gold_tokens) for t in true], [entity(p, pred_tokens) for p in pred])


@given(true=span_tuples, pred=span_tuples, otherwise=st.sets(st.integers(0, 16), max_size=4))
@settings(max_examples=300)
def test_hipe_pairing_with_tokens_written_otherwise_counts_as_its_loop(true, pred, otherwise):
    """The text rule against the scorer's loop, its entities carrying their text: the prediction
    writes the tokens at ``otherwise`` differently (``Document.written_otherwise``)."""
    from spanagree.pipeline.compare import written_texts_agree
    from spanagree.span import Document

    true, pred = token_spans(true), token_spans(pred)
    gold_tokens = [f"t{k}" for k in range(17)]
    pred_tokens = [f"x{k}" if k in otherwise else token for k, token in enumerate(gold_tokens)]
    starts = [sum(len(t) + 1 for t in gold_tokens[:k]) for k in range(17)]
    text = " ".join(gold_tokens)
    written = tuple((starts[k], starts[k] + len(gold_tokens[k]), pred_tokens[k]) for k in sorted(otherwise))

    def spans(found):
        return [Span("d", starts[start], starts[end] + len(gold_tokens[end]), label) for label, start, end in found]

    gold_document = Document("d", text, spans(true), tokens_from_text=True)
    pred_document = Document("d", text, spans(pred), tokens_from_text=True, written_otherwise=written)
    expected = reference_hipe_with_texts(true, pred, gold_tokens, pred_tokens)
    for regime, match in (("strict", "exact"), ("ent_type", "overlap")):
        correct, incorrect, missed, spurious = expected[regime]
        alignment = align(pred_document.spans, gold_document.spans, MatchRule(match, pairing="hipe"),
                          texts_agree=written_texts_agree(pred_document, gold_document))
        counts = alignment.counts
        assert (counts.a, counts.b, counts.c) == (correct, incorrect + spurious, incorrect + missed), regime
        for k in alignment.written_otherwise:  # same fragments and label, another text
            pair = alignment.pairs[k]
            assert pair.exact and pair.same_label and pair.credit == (0.0 if match == "exact" else 1.0)
            assert pred_document.written_text(pair.first) != gold_document.written_text(pair.second)


@given(true=span_tuples, pred=span_tuples, mode=st.sampled_from(list(SCHEMES.values())),
       pairing=st.sampled_from(["hipe", "nervaluate"]), rnd=st.randoms(use_true_random=False))
@settings(max_examples=200)
def test_greedy_pairings_do_not_depend_on_the_input_order(true, pred, mode, pairing, rnd):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        counts = score(as_lists(true), as_lists(pred), match=mode[0], labels=mode[1], pairing=pairing).counts
        rnd.shuffle(true)
        rnd.shuffle(pred)
        shuffled = score(as_lists(true), as_lists(pred), match=mode[0], labels=mode[1], pairing=pairing).counts
        optimal = score(as_lists(true), as_lists(pred), match=mode[0], labels=mode[1]).counts
    assert shuffled == counts
    if pairing == "nervaluate":  # a one-to-one pairing earns at most the optimum's credit
        assert counts.a <= optimal.a


# --- the HIPE scorer's reading rules, on real excerpts (tests/data/hipe2022/SOURCE.md) ----------
#
# Each excerpt was scored by the HIPE scorer itself (clef_evaluation.py --task nerc_coarse
# --hipe_edition hipe-2022); its strict and fuzzy micro TP/FP/FN, overall and per type, are
# recorded here (its types in capitals, spanagree's labels as the files write them).

HIPE_EXCERPTS = DATA / "hipe2022"
#: run → (gold, the scorer's strict and fuzzy figures: overall, then per type).
READING_RULES = {
    # flat run, the gold's '_' written 'O' inside two 'pers' entities ('sieur Quartier _ ^ instituteur')
    "team2_bundle1_hipe2020_fr_1": ("HIPE-2022-v2.1-hipe2020-test-fr", (1, 2, 2), {"loc": (1, 0, 0), "pers": (0, 2, 2)},
                                    (3, 0, 0), {"loc": (1, 0, 0), "pers": (2, 0, 0)}),
    # its own sentences, '""""' for the gold's '"' closing an 'org' and a 'loc' entity
    "team5_bundle5_hipe2020_de_1": ("HIPE-2022-v2.1-hipe2020-test-de", (0, 2, 2), {"loc": (0, 1, 1), "org": (0, 1, 1)},
                                    (2, 0, 0), {"loc": (1, 0, 0), "org": (1, 0, 0)}),
    # the row 'Lu###schaun B-LOC' left out of both: the gold's 'in Steiermark' (I-LOC I-LOC) is an entity
    "neurbsl_bundle3_newseye_de_1": ("HIPE-2022-v2.1-newseye-test-de", (2, 1, 1), {"LOC": (2, 1, 1)},
                                     (3, 0, 0), {"LOC": (3, 0, 0)}),
}


def excerpt(name: str) -> str:
    return str(HIPE_EXCERPTS / f"{name}.excerpt.tsv")


def score_excerpt(run: str, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        return score(excerpt(READING_RULES[run][0]), excerpt(run), format="conll",
                     format_options={"conll_column": "NE-COARSE-LIT"}, **options)


def as_ints(counts: tuple) -> tuple:
    return tuple(int(x) for x in counts)


@pytest.mark.parametrize("run", list(READING_RULES))
def test_hipe_pairing_gives_the_scorer_figures_on_excerpts_its_reading_rules_change(run):
    _, strict, strict_by_type, fuzzy, fuzzy_by_type = READING_RULES[run]
    for match, overall, per_type in (("exact", strict, strict_by_type), ("overlap", fuzzy, fuzzy_by_type)):
        result = score_excerpt(run, match=match, pairing="hipe")
        assert as_ints(abc(result)) == overall, match
        assert {label: as_ints(c) for label, c in by_label(result).items()} == per_type, match


@pytest.mark.parametrize("run", list(READING_RULES))
def test_the_reading_rules_are_the_hipe_pairing_s_only(run):
    """The default pairing and ``greedy`` (HIPE's procedure alone) compare offsets and keep every
    row: each excerpt gives them other strict figures than the scorer's."""
    strict = READING_RULES[run][1]
    for pairing in ("optimal", "greedy"):
        result = score_excerpt(run, pairing=pairing)
        assert as_ints(abc(result)) != strict, pairing
        assert "written_otherwise" not in result.error_counts()
        assert not any("'#'" in note for note in result.notes)
    assert as_ints(abc(score_excerpt("team2_bundle1_hipe2020_fr_1"))) == (3, 0, 0)
    assert as_ints(abc(score_excerpt("neurbsl_bundle3_newseye_de_1"))) == (2, 2, 1)


def test_text_rule_kind_listing_and_note():
    """A prediction with the gold's fragments and label over a token the run writes otherwise is
    the kind ``written_otherwise``: credit 0 under exact, 1 under overlap; a note counts them."""
    for match, credit in (("exact", 0.0), ("overlap", 1.0)):
        result = score_excerpt("team2_bundle1_hipe2020_fr_1", match=match, pairing="hipe", errors=True)
        assert result.error_counts() == {"correct": 1, "partial": 0, "wrong_label": 0, "wrong_label_and_boundary": 0,
                                         "missed": 0, "spurious": 0, "written_otherwise": 2}
        listed = [(item.gold_text, item.pred_text, item.credit) for item in result.items
                  if item.kind == "written_otherwise"]
        assert listed == [("sieur Daniel Meuron , maïUe charpentier , _ bourgeois de Neuchatel",
                           "sieur Daniel Meuron , maïUe charpentier , O bourgeois de Neuchatel", credit),
                          ("sœurs _ Gendre", "sœurs O Gendre", credit)]
        (note,) = [n for n in result.notes if "written otherwise:" in n]
        assert note.startswith("team2_bundle1_hipe2020_fr_1.excerpt: 2 span(s) with a gold span's fragments and label cover "
                               "a token written otherwise")
        assert result.confusion()["matrix"][result.confusion()["labels"].index("pers")][
            result.confusion()["labels"].index("pers")] == 2


def test_hash_rule_note_counts_the_rows_of_each_file():
    result = score_excerpt("neurbsl_bundle3_newseye_de_1", pairing="hipe")
    hashed = [note for note in result.notes if "'#'" in note]
    assert len(hashed) == 2 and all("1 row(s) whose token holds a '#' left out" in note for note in hashed)
    assert "written_otherwise" not in result.error_counts()


def test_hipe_reading_rules_under_jobs_and_on_the_command_line(capsys, tmp_path):
    """``--jobs 2`` gives the same figures and notes; the JSON counts the kind only where it
    occurs, and conforms to its schema, as the listing and the report do."""
    from test_json_schema import conforms, run

    one = score_excerpt("neurbsl_bundle3_newseye_de_1", pairing="hipe")
    two = score_excerpt("neurbsl_bundle3_newseye_de_1", pairing="hipe", jobs=2)
    assert abc(one) == abc(two) and one.notes == two.notes
    for pairing, kinds in (("hipe", {"written_otherwise": 2}), ("optimal", {})):
        listing, report = tmp_path / f"{pairing}.json", tmp_path / f"{pairing}.html"
        document = run(capsys, "score", excerpt("HIPE-2022-v2.1-hipe2020-test-fr"),
                       excerpt("team2_bundle1_hipe2020_fr_1"), "--format", "conll", "--conll-column", "NE-COARSE-LIT",
                       "--pairing", pairing, "--errors", listing, "--report", report, "--output", "json")
        conforms("score", document)
        assert {k: v for k, v in document["errors"].items() if k == "written_otherwise"} == kinds
        items = json.loads(listing.read_text(encoding="utf-8"))
        conforms("errors", items)
        assert sum(item["kind"] == "written_otherwise" for item in items["errors"]) == sum(kinds.values())
        page = report.read_text(encoding="utf-8")
        assert ('"name": "written_otherwise"' in page or '"name":"written_otherwise"' in page) == bool(kinds)


def test_text_rule_on_plain_conll_files_placed_token_by_token(tmp_path):
    """Plain CoNLL files (no header, no document names) with the same sentences are placed token by
    token (:func:`spanagree.texts.onto_tokens`): the tokens spelt otherwise count as well."""
    gold = tmp_path / "gold.conll"
    gold.write_text("sieur\tB-pers\nQuartier\tI-pers\n_\tI-pers\ninstituteur\tI-pers\n.\tO\n", encoding="utf-8")
    run = tmp_path / "run.conll"
    run.write_text("sieur\tB-pers\nQuartier\tI-pers\nO\tI-pers\ninstituteur\tI-pers\n.\tO\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        assert abc(score(str(gold), str(run), pairing="hipe")) == (0, 1, 1)
        assert abc(score(str(gold), str(run), pairing="hipe", match="overlap")) == (1, 0, 0)
        assert abc(score(str(gold), str(run))) == (1, 0, 0)
