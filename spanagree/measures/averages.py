"""Averages over labels: micro, macro and support-weighted precision, recall and F1.

The per-label rates are the registry's (:data:`spanagree.measures.registry.MEASURES`); this module
only says how they are averaged, as scikit-learn's ``precision_recall_fscore_support(average=...)``
and seqeval's ``classification_report`` do:

- **micro**: the rate of the counts summed over labels (with strict labels, the overall figure:
  a span with the wrong label is a b under its own label and a c under the other's, as overall);
- **macro**: the unweighted mean of the labels' rates;
- **weighted**: the mean of the labels' rates weighted by their **support** — in ``score`` the
  gold's spans of the label; in ``agree`` the mean of both annotators' spans of the label
  (the pair has no gold: both sides weigh the same).

A label whose rate is undefined (0/0: e.g. recall of a label the gold never uses) enters the
macro and weighted averages as **0**, as scikit-learn and seqeval do by default
(``zero_division="warn"``); its own per-label value stays undefined (``null``), and
:func:`undefined_labels` names them for the warning. With no label at all, or a total support of
0, an average is undefined.
"""

from __future__ import annotations

import math
from typing import Mapping

from .counts import Counts
from .registry import value

#: The averages, in the order they are reported.
AVERAGES = ("micro", "macro", "weighted")
#: The rates averaged.
AVERAGED_RATES = ("precision", "recall", "f1")


def label_averages(by_label: Mapping[str, Counts], support: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """``{"micro": {...}, "macro": {...}, "weighted": {...}}``, each with precision, recall and F1.

    Parameters
    ----------
    by_label : mapping of label to Counts
        Each label's a, b, c.
    support : mapping of label to number
        Each label's weight in the weighted average (a label missing here weighs 0).

    Examples
    --------
    Two labels: PER with a = 8, b = 2, c = 0 (precision 0.8, recall 1) and LOC with a = 1, b = 0,
    c = 3 (precision 1, recall 0.25), supports 8 and 4:

    >>> found = label_averages({"PER": Counts(8, 2, 0), "LOC": Counts(1, 0, 3)}, {"PER": 8, "LOC": 4})
    >>> {k: round(v, 4) for k, v in found["micro"].items()}      # summed: a 9, b 2, c 3
    {'precision': 0.8182, 'recall': 0.75, 'f1': 0.7826}
    >>> {k: round(v, 4) for k, v in found["macro"].items()}      # (0.8 + 1) / 2, (1 + 0.25) / 2, ...
    {'precision': 0.9, 'recall': 0.625, 'f1': 0.6444}
    >>> {k: round(v, 4) for k, v in found["weighted"].items()}   # (8 · 0.8 + 4 · 1) / 12, ...
    {'precision': 0.8667, 'recall': 0.75, 'f1': 0.7259}
    """
    labels = list(by_label)
    pooled = sum(by_label.values(), Counts())
    rates = {label: {key: value(key, c.a, c.b, c.c) for key in AVERAGED_RATES} for label, c in by_label.items()}
    micro = {key: value(key, pooled.a, pooled.b, pooled.c) for key in AVERAGED_RATES}
    macro, weighted = {}, {}
    total = math.fsum(support.get(label, 0) for label in labels)
    for key in AVERAGED_RATES:
        zeroed = [_zero_if_undefined(rates[label][key]) for label in labels]
        macro[key] = math.fsum(zeroed) / len(labels) if labels else math.nan
        weighted[key] = (math.fsum(support.get(label, 0) * v for label, v in zip(labels, zeroed)) / total
                         if total > 0 else math.nan)
    return {"micro": micro, "macro": macro, "weighted": weighted}


def undefined_labels(by_label: Mapping[str, Counts]) -> dict[str, list[str]]:
    """Per averaged rate, the labels whose rate is undefined (they enter macro and weighted as 0)."""
    found = {}
    for key in AVERAGED_RATES:
        labels = [label for label, c in by_label.items() if math.isnan(value(key, c.a, c.b, c.c))]
        if labels:
            found[key] = labels
    return found


def undefined_text(undefined: Mapping[str, list[str]]) -> str:
    """The warning's words for :func:`undefined_labels`' result: ``recall undefined for LOC, ORG``."""
    return "; ".join(f"{key} undefined (0/0) for {', '.join(labels)}" for key, labels in undefined.items())


def _zero_if_undefined(rate: float) -> float:
    return 0.0 if math.isnan(rate) else rate
