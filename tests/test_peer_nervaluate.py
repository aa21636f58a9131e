"""nervaluate 1.2.1's own test cases, run through spanagree (tests skip without ../shared).

The inputs and nervaluate's outputs were recorded from nervaluate's test suite
(``../shared/corpora/peer-tests/nervaluate/nervaluate_cases.json``; provenance in its
``provenance`` field and in ``peer-tests/SOURCE.md``). nervaluate is never imported here.

Correspondence (docs/matching.md, "nervaluate's schemes are points of the grid")::

    nervaluate scheme   spanagree rule         nervaluate credit      = spanagree a
    strict              exact   / strict       COR                    aligned pairs
    exact               exact   / ignore       COR                    aligned pairs
    partial             partial / ignore       COR + 0.5 PAR          1 per exact pair, 0.5 per overlap
    ent_type            overlap / strict       COR                    aligned pairs

With a one-to-one alignment, nervaluate's ``actual`` (COR+INC+PAR+SPU) is the number of
predicted spans = a + b and ``possible`` (COR+INC+PAR+MIS) the number of gold spans = a + c, so
its precision ``credit/actual`` and recall ``credit/possible`` are spanagree's a/(a+b), a/(a+c).
nervaluate's categories come from spanagree's error analysis (``Score.error_counts()``)::

    scheme     COR                      INC                               PAR
    strict     correct                  partial + wrong_label + wl&b      -
    exact      correct + wrong_label    partial + wl&b                    -
    partial    correct + wrong_label    -                                 partial + wl&b
    ent_type   correct + partial        wrong_label + wl&b                -
    (wl&b = wrong_label_and_boundary; MIS = missed, SPU = spurious in every scheme)

Per entity type, nervaluate filters both sides to that type and runs the same scheme: here
``only=[label]`` with the same rule.

**End convention.** nervaluate treats ``Entity.end`` as inclusive (its overlap test is
``pred.start <= true.end and pred.end >= true.start``; its list loader emits the last token).
Its ``test_strategies.py`` builds most entities with a BIO helper whose end is exclusive
(``Entity(tag, i, i + 1)``), while its single-token and ``min_overlap`` tests, the list loader
and the dict inputs use inclusive ends. Each case is converted by what its author meant
(:func:`inclusive_ends`); in the BIO-helper cases no two spans touch, so nervaluate's inclusive
reading cannot change their figures (:func:`test_bio_helper_cases_do_not_depend_on_the_end_convention`).

**Where the figures cannot coincide**, the parametrize id carries the reason and the test
asserts spanagree's own, hand-derived figures:

- ``min-overlap``: nervaluate's ``min_overlap_percentage`` (share of the *gold* span's tokens
  that the prediction covers) turns an overlap below the threshold into a miss plus a spurious
  span; spanagree has no threshold: any shared character overlaps.
- ``undefined-rate``: with no span on either side, nervaluate reports precision = recall = F1 =
  0; spanagree reports NaN with a warning (docs/matching.md, "Undefined figures and means").
"""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path

import pytest

from spanagree import score
from spanagree.errors import SpanagreeWarning
from spanagree.formats.schemes import tags_to_spans
from spanagree.span import Span, SpanSet

CASES_PATH = Path("peer-tests") / "nervaluate" / "nervaluate_cases.json"

#: nervaluate scheme → spanagree (match, labels).
SCHEMES = {
    "strict": ("exact", "strict"),
    "exact": ("exact", "ignore"),
    "partial": ("partial", "ignore"),
    "ent_type": ("overlap", "strict"),
}
STRATEGIES = {
    "StrictEvaluation": "strict",
    "ExactEvaluation": "exact",
    "PartialEvaluation": "partial",
    "EntityTypeEvaluation": "ent_type",
}
#: test_strategies.py classes whose entities come from the exclusive-end BIO helper.
BIO_HELPER_CLASSES = ("TestStrictEvaluation::", "TestEntityTypeEvaluation::", "TestExactEvaluation::",
                      "TestPartialEvaluation::")
FIELDS = ("correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")

# --- spanagree's own figures where nervaluate's min_overlap_percentage makes them differ ------
# Keyed by (test, nervaluate scheme, threshold, predicted spans as "LABEL s-e" with nervaluate's
# inclusive token ends); values: (COR, INC, PAR, MIS, SPU) as spanagree classifies them.
# nervaluate's figures are in the JSON; the test also checks they differ and that a pair
# below the threshold is why.
#
#   tokens   0 1 2 3 4 5 6 7 8 9
#   gold     [=======PER=========]        PER 0-9 (10 tokens)
#   pred     [=PER]                       PER 0-2: covers 30% of the gold span
#   pred     [====PER====]                PER 0-6: 70%      PER 0-4: 50%   PER 0-7: 80%
OWN = {
    # 30% < 50%: nervaluate MIS + SPU. spanagree: the spans overlap, same label.
    ("test_partial_evaluation_with_min_overlap", "partial", 50.0, "PER 0-2"): (0, 0, 1, 0, 0),
    ("test_strict_evaluation_with_min_overlap", "strict", 50.0, "PER 0-2"): (0, 1, 0, 0, 0),
    ("test_entity_type_evaluation_with_min_overlap", "ent_type", 50.0, "PER 0-2"): (1, 0, 0, 0, 0),
    ("test_exact_evaluation_with_min_overlap", "exact", 50.0, "ORG 0-2"): (0, 1, 0, 0, 0),
    # 70% < 75%.
    ("test_partial_evaluation_with_min_overlap", "partial", 75.0, "PER 0-6"): (0, 0, 1, 0, 0),
    # Gold PER 0-4, ORG 10-14; predicted PER 0-1 (40% < 50%), ORG 10-12 (60%), LOC 20-22.
    # nervaluate: PAR 1 (ORG), MIS 1, SPU 2 → F1 0.2; spanagree: PAR 2, SPU 1 → F1 0.4.
    ("test_multiple_entities_with_min_overlap", "partial", 50.0, "PER 0-1|ORG 10-12|LOC 20-22"): (0, 0, 2, 0, 1),
}
for _test, _threshold, _pred in [
    ("test_evaluator_with_min_overlap_percentage", 50.0, "PER 0-2"),
    ("test_evaluator_min_overlap_affects_all_strategies", 50.0, "PER 0-2"),
    ("test_evaluator_min_overlap_with_different_thresholds", 51.0, "PER 0-4"),
    ("test_evaluator_min_overlap_with_different_thresholds", 75.0, "PER 0-6"),
]:
    # One gold PER 0-9, one predicted PER overlapping it below the threshold.
    OWN.update({
        (_test, "strict", _threshold, _pred): (0, 1, 0, 0, 0),
        (_test, "exact", _threshold, _pred): (0, 1, 0, 0, 0),
        (_test, "partial", _threshold, _pred): (0, 0, 1, 0, 0),
        (_test, "ent_type", _threshold, _pred): (1, 0, 0, 0, 0),
    })
# Gold PER 0-4, ORG 10-14, LOC 20-24; predicted PER 0-1 (40% < 50%), ORG 10-12 (60%),
# LOC 20-24 (exact), MISC 30-32 (spurious)::
#
#   tokens   0    4     10   14    20   24    30 32
#   gold     [PER=]     [ORG=]     [LOC=]
#   pred     [P]        [OR]       [LOC=]     [MI]
_MULTI = ("test_evaluator_min_overlap_with_multiple_entities", 50.0, "PER 0-1|ORG 10-12|LOC 20-24|MISC 30-32")
OWN.update({
    # nervaluate strict/exact: COR 1, INC 1 (ORG), MIS 1 (PER), SPU 2 (PER, MISC).
    (*_MULTI[:1], "strict", *_MULTI[1:]): (1, 2, 0, 0, 1),
    (*_MULTI[:1], "exact", *_MULTI[1:]): (1, 2, 0, 0, 1),
    # nervaluate partial: COR 1, PAR 1, MIS 1, SPU 2 → P 1.5/4; spanagree: PAR 2 → P 2/4.
    (*_MULTI[:1], "partial", *_MULTI[1:]): (1, 0, 2, 0, 1),
    # nervaluate ent_type: COR 2, MIS 1, SPU 2; spanagree: COR 3, SPU 1.
    (*_MULTI[:1], "ent_type", *_MULTI[1:]): (3, 0, 0, 0, 1),
})


def shared_file() -> Path:
    """The recorded cases, located as ``tests/conftest.py`` locates ``../shared/corpora``."""
    root = Path(__file__).resolve().parent.parent
    return Path(os.environ.get("SPANAGREE_SHARED", root.parent / "shared")) / "corpora" / CASES_PATH


def load_cases(corpora: Path) -> dict:
    with open(corpora / CASES_PATH, encoding="utf-8") as handle:
        return json.load(handle)


# --- converting nervaluate's inputs -------------------------------------------------------------

def inclusive_ends(case: dict) -> bool:
    """True when the case's ``Entity.end`` is the last token (see the module docstring)."""
    return not case["test"].split("::", 1)[-1].startswith(BIO_HELPER_CLASSES)


def entity_span(doc: str, entity: dict, *, inclusive: bool) -> Span:
    return Span(doc, ((entity["start"], entity["end"] + 1 if inclusive else entity["end"]),), entity["label"])


def describe(entities: list[dict]) -> str:
    return "|".join(f"{e['label']} {e['start']}-{e['end']}" for e in entities)


def entity_docs(documents: list[list[dict]], name: str, *, inclusive: bool) -> SpanSet:
    """Documents of nervaluate entities (dict loader / strategy calls) as a SpanSet; ids 1, 2, ..."""
    texts = {str(k): None for k in range(1, len(documents) + 1)}
    spans = [entity_span(str(k), e, inclusive=inclusive) for k, doc in enumerate(documents, 1) for e in doc]
    return SpanSet.from_spans(name, spans, texts)


def tag_docs(documents: list[list[str]], name: str) -> SpanSet:
    """Documents of BIO tags (nervaluate's list loader) decoded by spanagree, conlleval-style."""
    texts = {str(k): None for k in range(1, len(documents) + 1)}
    spans = []
    for k, tags in enumerate(documents, 1):
        chunks, _ = tags_to_spans(tags)
        spans += [Span(str(k), ((start, end),), label) for start, end, label in chunks]
    return SpanSet.from_spans(name, spans, texts)


# --- spanagree's figures, in nervaluate's vocabulary --------------------------------------------

def categories(kinds: dict[str, int], scheme: str) -> tuple[int, int, int, int, int]:
    """(COR, INC, PAR, MIS, SPU) from spanagree's error kinds (table in the module docstring)."""
    wlb = kinds["wrong_label_and_boundary"]
    if scheme == "strict":
        cor, inc, par = kinds["correct"], kinds["partial"] + kinds["wrong_label"] + wlb, 0
    elif scheme == "exact":
        cor, inc, par = kinds["correct"] + kinds["wrong_label"], kinds["partial"] + wlb, 0
    elif scheme == "partial":
        cor, inc, par = kinds["correct"] + kinds["wrong_label"], 0, kinds["partial"] + wlb
    else:
        cor, inc, par = kinds["correct"] + kinds["partial"], kinds["wrong_label"] + wlb, 0
    return cor, inc, par, kinds["missed"], kinds["spurious"]


def spanagree_figures(gold: SpanSet, pred: SpanSet, scheme: str, only, pairing: str = "optimal") -> dict:
    match, labels = SCHEMES[scheme]
    result = score(gold, pred, match=match, labels=labels, only=only, partial_credit=0.5, pairing=pairing)
    counts = result.counts
    cor, inc, par, mis, spu = categories(result.error_counts(), scheme)
    # The classification never changes a: nervaluate's credit must be spanagree's a.
    assert counts.a == cor + 0.5 * par
    figures = dict(zip(("correct", "incorrect", "partial", "missed", "spurious"), (cor, inc, par, mis, spu)))
    figures.update(possible=counts.a + counts.c, actual=counts.a + counts.b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        figures.update(precision=counts.precision, recall=counts.recall, f1=counts.f1)
    return figures


def nervaluate_style(cor, inc, par, mis, spu, scheme) -> dict:
    """nervaluate's own formulas applied to categories (for the hand-derived expectations)."""
    actual, possible = cor + inc + par + spu, cor + inc + par + mis
    credit = cor + 0.5 * par if scheme in ("partial", "ent_type") else cor
    precision, recall = credit / actual, credit / possible
    return {"correct": cor, "incorrect": inc, "partial": par, "missed": mis, "spurious": spu,
            "possible": possible, "actual": actual, "precision": precision, "recall": recall,
            "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0}


def same(ours: dict, theirs: dict) -> bool:
    return all(ours[k] == theirs[k] for k in FIELDS) and all(
        math.isclose(ours[k], theirs[k], abs_tol=1e-12) for k in ("precision", "recall", "f1"))


def below_threshold(gold: list[dict], pred: list[dict], threshold: float) -> list[tuple[str, str, float]]:
    """Overlapping (gold, pred) pairs whose overlap, in % of the gold span's tokens (nervaluate's
    inclusive ends), is below nervaluate's ``min_overlap_percentage``."""
    found = []
    for g in gold:
        for p in pred:
            shared = min(g["end"], p["end"]) - max(g["start"], p["start"]) + 1
            if shared > 0:
                share = 100 * shared / (g["end"] - g["start"] + 1)
                if share < threshold:
                    found.append((describe([g]), describe([p]), share))
    return found


# --- parametrisation ------------------------------------------------------------------------

def _short(test: str) -> str:
    return test.split("::", 1)[-1].replace("::", ".")


def _strategy_ids() -> list:
    try:
        with open(shared_file(), encoding="utf-8") as handle:
            cases = json.load(handle)["strategy_cases"]
    except OSError:
        return [pytest.param(None, id="corpora-missing")]
    params = []
    for k, case in enumerate(cases):
        scheme = STRATEGIES[case["strategy"]]
        key = (_short(case["test"]).split(".")[-1], scheme, case["min_overlap_percentage"], describe(case["pred"]))
        why = "-differs-min-overlap" if key in OWN else ""
        params.append(pytest.param(k, id=f"{k:02d}-{_short(case['test'])}-{scheme}{why}"))
    return params


def _evaluator_ids() -> list:
    try:
        with open(shared_file(), encoding="utf-8") as handle:
            cases = json.load(handle)["evaluator_cases"]
    except OSError:
        return [pytest.param(None, id="corpora-missing")]
    params = []
    for k, case in enumerate(cases):
        kwargs = case["init"]["kwargs"]
        threshold = kwargs.get("min_overlap_percentage", 1.0)
        why = ""
        if "pred" in kwargs and any((_short(case["test"]), s, threshold, describe(kwargs["pred"][0])) in OWN
                                    for s in SCHEMES):
            why = "-differs-min-overlap"
        elif case["init"]["args"] and case["init"]["args"][2] == ["INVALID"]:
            why = "-differs-undefined-rate"
        params.append(pytest.param(k, id=f"{k:02d}-{_short(case['test'])}{why}"))
    return params


@pytest.fixture(scope="module")
def recorded(shared_corpora):
    return load_cases(shared_corpora)


# --- test_strategies.py: one strategy, one document ------------------------------------------

#: Both pairings give nervaluate's recorded figures on its own test cases (none of them makes the
#: greedy pairing lose a pair); ``pairing="nervaluate"`` is its procedure (tests/test_pairing.py).
PAIRINGS = ["optimal", "nervaluate"]


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize("index", _strategy_ids())
def test_strategy_case(recorded, index, pairing):
    case = recorded["strategy_cases"][index]
    scheme = STRATEGIES[case["strategy"]]
    inclusive = inclusive_ends(case)
    gold = entity_docs([case["true"]], "true", inclusive=inclusive)
    pred = entity_docs([case["pred"]], "pred", inclusive=inclusive)
    ours = spanagree_figures(gold, pred, scheme, case["tags"], pairing)
    theirs = case["result"]
    key = (_short(case["test"]).split(".")[-1], scheme, case["min_overlap_percentage"], describe(case["pred"]))
    if key not in OWN:
        assert same(ours, theirs), (ours, theirs)
        # The same spans are missed and spurious (nervaluate's indices: (document, position)).
        result = score(gold, pred, match=SCHEMES[scheme][0], labels=SCHEMES[scheme][1], only=case["tags"],
                       errors=True, pairing=pairing)
        missed = [gold.documents["1"].spans.index(i.gold) for i in result.items if i.kind == "missed"]
        spurious = [pred.documents["1"].spans.index(i.pred) for i in result.items if i.kind == "spurious"]
        assert sorted(missed) == [k for _, k in case["indices"]["missed_indices"]]
        assert sorted(spurious) == [k for _, k in case["indices"]["spurious_indices"]]
        return
    # Differs by definition: a pair overlaps below nervaluate's min_overlap_percentage.
    assert below_threshold(case["true"], case["pred"], case["min_overlap_percentage"])
    expected = nervaluate_style(*OWN[key], scheme)
    assert same(ours, expected), (ours, expected)
    assert (ours["missed"], ours["spurious"]) != (theirs["missed"], theirs["spurious"])


def test_bio_helper_cases_do_not_depend_on_the_end_convention(recorded):
    """nervaluate reads the BIO helper's exclusive ends as inclusive; no spans touch there, so
    both readings give spanagree the same figures (and nervaluate its recorded ones)."""
    checked = 0
    for case in recorded["strategy_cases"]:
        if inclusive_ends(case):
            continue
        scheme = STRATEGIES[case["strategy"]]
        figures = [spanagree_figures(entity_docs([case["true"]], "true", inclusive=inclusive),
                                     entity_docs([case["pred"]], "pred", inclusive=inclusive), scheme, case["tags"])
                   for inclusive in (False, True)]
        assert figures[0] == figures[1], case["test"]
        checked += 1
    assert checked == 24


# --- test_evaluator.py: every scheme, overall and per entity type ------------------------------

def evaluator_inputs(case: dict) -> tuple[SpanSet, SpanSet, list[str], float]:
    args, kwargs = case["init"]["args"], case["init"]["kwargs"]
    if args:  # Evaluator(true, pred, tags, loader="list"): BIO tags, decoded by spanagree
        true, pred, tags = args
        assert kwargs["loader"] == "list"
        return tag_docs(true, "true"), tag_docs(pred, "pred"), tags, kwargs.get("min_overlap_percentage", 1.0)
    assert kwargs["loader"] == "dict"  # dict loader: nervaluate's ends are inclusive
    return (entity_docs(kwargs["true"], "true", inclusive=True), entity_docs(kwargs["pred"], "pred", inclusive=True),
            kwargs["tags"], kwargs.get("min_overlap_percentage", 1.0))


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize("index", _evaluator_ids())
def test_evaluator_case(recorded, index, pairing):
    case = recorded["evaluator_cases"][index]
    gold, pred, tags, threshold = evaluator_inputs(case)
    kwargs = case["init"]["kwargs"]
    key_pred = describe(kwargs["pred"][0]) if "pred" in kwargs else None
    for scheme, theirs in case["overall"].items():
        key = (_short(case["test"]), scheme, threshold, key_pred)
        if tags == ["INVALID"]:
            # Every span is filtered out. nervaluate: P = R = F1 = 0; spanagree: undefined (NaN,
            # with a warning), never a silent 0.
            match, labels = SCHEMES[scheme]
            with pytest.warns(SpanagreeWarning):
                result = score(gold, pred, match=match, labels=labels, only=tags, pairing=pairing)
                precision = result.counts.precision
            assert (result.counts.a, result.counts.b, result.counts.c) == (0, 0, 0)
            assert math.isnan(precision) and theirs["precision"] == 0
            continue
        ours = spanagree_figures(gold, pred, scheme, tags, pairing)
        if key in OWN:
            assert below_threshold(kwargs["true"][0], kwargs["pred"][0], threshold)
            expected = nervaluate_style(*OWN[key], scheme)
            assert same(ours, expected), (scheme, ours, expected)
            assert not same(ours, theirs)
            if scheme in ("strict", "exact"):
                # Only the categories differ (nervaluate: MIS + SPU, spanagree: INC); a pair below
                # the threshold earns no credit under exact boundaries either, so P, R, F1 coincide.
                assert all(math.isclose(ours[k], theirs[k]) for k in ("precision", "recall", "f1"))
            continue
        assert same(ours, theirs), (scheme, ours, theirs)
    if key_pred and any((_short(case["test"]), s, threshold, key_pred) in OWN for s in SCHEMES):
        return  # per-type figures differ for the same reason (min_overlap_percentage)
    for label, by_scheme in case["entities"].items():
        for scheme, theirs in by_scheme.items():
            ours = spanagree_figures(gold, pred, scheme, [label], pairing)
            assert same(ours, theirs), (label, scheme, ours, theirs)


def test_readme_example(recorded):
    """nervaluate's README example as nervaluate 1.2.1 prints it. The README's own partial row
    (0.40) contradicts its formula (COR + 0.5 PAR)/ACT = 3.5/5 = 0.70, which both tools give."""
    example = recorded["readme_example"]
    gold, pred = tag_docs(example["true"], "true"), tag_docs(example["pred"], "pred")
    columns = example["columns"]
    for scheme, row in example["nervaluate_1_2_1_observed_overall"].items():
        theirs = dict(zip(columns, row))
        ours = spanagree_figures(gold, pred, scheme, example["tags"])
        assert all(ours[k] == theirs[k] for k in ("correct", "incorrect", "partial", "missed", "spurious"))
        assert all(math.isclose(ours[k], theirs[k]) for k in ("precision", "recall", "f1"))
    for label, row in example["readme_stated_strict_by_type"].items():
        theirs = dict(zip(columns, row))
        ours = spanagree_figures(gold, pred, "strict", [label])
        assert all(ours[k] == theirs[k] for k in ("correct", "incorrect", "partial", "missed", "spurious"))
        if theirs["correct"]:
            assert math.isclose(ours["f1"], theirs["f1"])
        else:  # nervaluate reports 0 for 0/0; spanagree's F1 2a/(2a+b+c) is 0 here too
            assert ours["f1"] == 0


def semeval_spans(table: dict) -> tuple[SpanSet, SpanSet]:
    """The SemEval-2013 scenario table (README "Evaluation Scenarios") as it is: one document per
    scenario, the spans placed in a text so that the predicted string contains the gold one."""
    gold_spans, pred_spans, texts = [], [], {}
    for row in table["rows"]:
        doc = row["scenario"]
        words = [w for w in (row["pred"], row["gold"]) if w]
        text = max((w[1] for w in words), key=len)
        texts[doc] = text
        for side, spans in (("gold", gold_spans), ("pred", pred_spans)):
            if row[side]:
                label, string = row[side]
                start = text.index(string)
                spans.append(Span(doc, ((start, start + len(string)),), label))
    return SpanSet.from_spans("gold", gold_spans, texts), SpanSet.from_spans("pred", pred_spans, texts)


#: The table's columns → nervaluate's schemes.
SEMEVAL_COLUMNS = {"type": "ent_type", "partial": "partial", "exact": "exact", "strict": "strict"}
CATEGORIES = ("COR", "INC", "PAR", "MIS", "SPU")


def test_semeval_scenarios(recorded):
    """Each scenario's category in each scheme, and the totals of the six rows, as spanagree gives them."""
    table = recorded["semeval_scenarios"]
    gold, pred = semeval_spans(table)
    for row in table["rows"]:  # each scenario on its own: exactly the recorded category
        doc = row["scenario"]
        one_gold = SpanSet.from_spans("gold", gold.documents[doc].spans, {doc: gold.documents[doc].text})
        one_pred = SpanSet.from_spans("pred", pred.documents[doc].spans, {doc: pred.documents[doc].text})
        for column, scheme in SEMEVAL_COLUMNS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SpanagreeWarning)  # scenarios II, III: one side empty, 0/0
                ours = spanagree_figures(one_gold, one_pred, scheme, None)
            cats = dict(zip(CATEGORIES, (ours[k] for k in FIELDS[:5])))
            assert cats[row[column]] == 1 and sum(cats.values()) == 1, (doc, column, cats)
    for column, scheme in SEMEVAL_COLUMNS.items():  # all six together: the rows' categories summed
        expected = tuple(sum(row[column] == cat for row in table["rows"]) for cat in CATEGORIES)
        ours = spanagree_figures(gold, pred, scheme, None)
        assert tuple(ours[k] for k in FIELDS[:5]) == expected, column
        assert same(ours, nervaluate_style(*expected, scheme)), column


def test_semeval_stated_totals_count_one_entity_the_rows_lack(recorded):
    """The README's totals are not the sum of its six rows: in every scheme they have exactly one
    more COR (its P = R needs 6 gold and 6 predicted spans; the rows have 5 of each). Its P, R, F1
    are nervaluate's formulas on those totals, rounded down to 2 decimals (0.66 for 4/6)."""
    table = recorded["semeval_scenarios"]
    gold, pred = semeval_spans(table)
    for column, totals in table["totals_stated"].items():
        scheme = SEMEVAL_COLUMNS[column]
        ours = spanagree_figures(gold, pred, scheme, None)
        cor, inc, par, mis, spu = (ours[k] for k in FIELDS[:5])
        assert tuple(totals[k] for k in CATEGORIES) == (cor + 1, inc, par, mis, spu), column
        stated = nervaluate_style(cor + 1, inc, par, mis, spu, scheme)
        for measure, key in (("precision", "P"), ("recall", "R"), ("f1", "F1")):
            assert math.floor(stated[measure] * 100) / 100 == totals[key], (column, measure)
