"""The registry of measures: every rate of the 2×2 table, its formula written once.

Each :class:`Measure` is a record — JSON key, display name, formula, whether it needs ``d``, how
it behaves when the two sides are swapped, its reference — and one implementation,
``compute(a, b, c, d)``, that works on Python floats and on numpy arrays alike (the bootstrap
computes thousands of resamples at once with the same code). :data:`MEASURES` is the ordered
registry: it drives :class:`~spanagree.measures.counts.Counts`' rates, the rates of the JSON
results (:func:`counts_dict`, in the registry's order), the names of undefined rates
(:func:`undefined_rates`), the bootstrap (:mod:`spanagree.measures.bootstrap`) and the measure
reference page ``docs/measures.md`` (:func:`markdown`).

The 2×2 table is read with the second side as the reference (in ``score``: the gold)::

                      second marked   second unmarked
    first marked            a                b
    first unmarked          c                d  (undefined for spans)

Swapping the sides exchanges b and c: a *symmetric* measure keeps its value, any other turns
into its *partner*'s (precision ↔ recall, specificity ↔ NPV, informedness ↔ markedness,
F-β ↔ F-(1/β)).

Zero-division policy: a rate whose denominator is 0 is undefined and ``compute`` returns NaN,
quietly; warning about it is the caller's business (``Counts`` warns, ``counts_dict`` does
not, ``undefined_rates`` names the undefined ones).

References
----------
Cohen J (1960). A coefficient of agreement for nominal scales. Educ. Psychol. Meas. 20(1):37–46.
Hripcsak G, Rothschild AS (2005). Agreement, the F-measure, and reliability in information
retrieval. JAMIA 12(3):296–298.
Jaccard P (1912). The distribution of the flora in the alpine zone. New Phytol. 11(2):37–50.
Manning CD, Raghavan P, Schütze H (2008). Introduction to Information Retrieval, ch. 8.
Matthews BW (1975). Comparison of the predicted and observed secondary structure of T4 phage
lysozyme. Biochim. Biophys. Acta 405(2):442–451.
Powers DMW (2011). Evaluation: from precision, recall and F-measure to ROC, informedness,
markedness and correlation. J. Mach. Learn. Technol. 2(1):37–63.
Scott WA (1955). Reliability of content analysis: the case of nominal scale coding. Public
Opin. Q. 19(3):321–325.
van Rijsbergen CJ (1979). Information Retrieval, 2nd ed., ch. 7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping


def divide(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is 0 — on floats and numpy arrays.

    Quiet: no warning (numpy's included). On Python or numpy scalars it is exactly ``n / d``.

    Examples
    --------
    >>> divide(3, 4), divide(0, 0)
    (0.75, nan)
    >>> import numpy as np
    >>> divide(np.array([1.0, 0.0]), np.array([2.0, 0.0]))
    array([0.5, nan])
    """
    if getattr(numerator, "ndim", 0) or getattr(denominator, "ndim", 0):
        import numpy as np

        defined = denominator != 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(defined, numerator / np.where(defined, denominator, 1), np.nan)
    return numerator / denominator if denominator else math.nan


def sqrt(value):
    """The square root of a float (``math.sqrt``) or of each element of an array (``numpy.sqrt``)."""
    if getattr(value, "ndim", 0):
        import numpy as np

        return np.sqrt(value)
    return math.sqrt(value)


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure of the 2×2 table.

    Attributes
    ----------
    key : str
        Its name in the registry and its key in JSON results and table columns (``f1``).
    name : str
        Its display name: table headers, and the warning ``F1 is undefined (0/0)``.
    formula : str
        The formula in a, b, c (and d), as printed in the docs.
    needs_d : bool
        Whether it needs the fourth cell d (items neither side marked), which spans lack.
    symmetric : bool
        Whether swapping the two sides (b ↔ c) leaves its value unchanged.
    partner : str or None
        For a measure that is not symmetric, the key of the measure it turns into when the sides
        are swapped (precision's is ``recall``). Exactly one of ``symmetric`` and ``partner``.
    reference : str
        Paper and equation.
    compute : callable
        ``compute(a, b, c, d)`` (with ``beta`` too for a family such as F-β) on floats or numpy
        arrays; NaN where undefined, quietly. ``d`` is ignored by measures that do not need it.
    parameter : str or None
        The family's parameter (``beta``); its JSON key is then ``key_format.format(value)``.
    key_format : str or None
        The JSON key of a family member, e.g. ``"f{:g}"`` → ``f2``, ``f0.5``, ``finf``.
    """

    key: str
    name: str
    formula: str
    needs_d: bool
    reference: str
    compute: Callable
    symmetric: bool = False
    partner: str | None = None
    parameter: str | None = None
    key_format: str | None = None

    def __post_init__(self) -> None:
        if self.symmetric == (self.partner is not None):
            raise ValueError(f"measure {self.key!r}: declare either symmetric=True or a swap partner, not both")

    def json_key(self, value: float | None = None) -> str:
        """The key in JSON results: :attr:`key`, or for a family member ``key_format`` of its parameter."""
        return self.key if self.parameter is None else self.key_format.format(value)


# -- the implementations: the only place each formula is written ------------------------------------
# Their arithmetic forms are those Counts has always used (e.g. kappa's simplified,
# cancellation-free form), so that figures do not change to the last bit.

def _precision(a, b, c, d=None):
    return divide(a, a + b)


def _recall(a, b, c, d=None):
    return divide(a, a + c)


def _f1(a, b, c, d=None):
    return divide(2 * a, 2 * a + b + c)


def _f_beta(a, b, c, d=None, beta=1.0):
    if math.isinf(beta):
        return divide(a, a + c)
    b2 = beta * beta
    return divide((1 + b2) * a, (1 + b2) * a + b2 * c + b)


def _jaccard(a, b, c, d=None):
    return divide(a, a + b + c)


def _accuracy(a, b, c, d):
    return divide(a + d, a + b + c + d)


def _specificity(a, b, c, d):
    return divide(d, b + d)


def _npv(a, b, c, d):
    return divide(d, c + d)


def _cohen_kappa(a, b, c, d):
    return divide(2 * (a * d - b * c), (a + b) * (b + d) + (a + c) * (c + d))


def _scott_pi(a, b, c, d):
    return divide(4 * a * d - (b + c) ** 2, (2 * a + b + c) * (2 * d + b + c))


def _informedness(a, b, c, d):
    return divide(a * d - b * c, (a + c) * (b + d))


def _markedness(a, b, c, d):
    return divide(a * d - b * c, (a + b) * (c + d))


def _mcc(a, b, c, d):
    return divide(a * d - b * c, sqrt((a + b) * (a + c) * (b + d) * (c + d)))


_IIR = "Manning, Raghavan & Schütze (2008)"
_POWERS = "Powers (2011)"

MEASURES: Mapping[str, Measure] = {m.key: m for m in (
    Measure("precision", "precision", "a / (a + b)", False,
            f"van Rijsbergen (1979), ch. 7; {_IIR}, eq. 8.1", _precision, partner="recall"),
    Measure("recall", "recall", "a / (a + c)", False,
            f"van Rijsbergen (1979), ch. 7; {_IIR}, eq. 8.2", _recall, partner="precision"),
    Measure("f1", "F1", "2a / (2a + b + c)", False,
            "Hripcsak & Rothschild (2005): F1 = positive specific agreement (PSA)", _f1, symmetric=True),
    Measure("f_beta", "F-beta", "(1 + β²) a / ((1 + β²) a + β² c + b)", False,
            f"van Rijsbergen (1979), ch. 7; {_IIR}, eq. 8.5", _f_beta, partner="f_beta",
            parameter="beta", key_format="f{:g}"),
    Measure("jaccard", "Jaccard", "a / (a + b + c)", False,
            "Jaccard (1912); = F1 / (2 − F1), Hripcsak & Rothschild (2005)", _jaccard, symmetric=True),
    Measure("accuracy", "accuracy", "(a + d) / (a + b + c + d)", True,
            f"{_POWERS} (Rand accuracy); {_IIR}, §8.3", _accuracy, symmetric=True),
    Measure("specificity", "specificity", "d / (b + d)", True,
            f"{_POWERS} (inverse recall, true-negative rate)", _specificity, partner="npv"),
    Measure("npv", "NPV", "d / (c + d)", True,
            f"{_POWERS} (inverse precision, negative predictive value)", _npv, partner="specificity"),
    Measure("kappa", "Cohen's kappa", "2(ad − bc) / ((a + b)(b + d) + (a + c)(c + d))", True,
            "Cohen (1960); Hripcsak & Rothschild (2005), eq. 5", _cohen_kappa, symmetric=True),
    Measure("scott_pi", "Scott's pi", "(4ad − (b + c)²) / ((2a + b + c)(2d + b + c))", True,
            f"Scott (1955); Fleiss (1971) for two raters; {_IIR}, Table 8.2", _scott_pi, symmetric=True),
    Measure("informedness", "informedness", "(ad − bc) / ((a + c)(b + d))", True,
            f"{_POWERS}; = recall + specificity − 1 (Youden's J)", _informedness, partner="markedness"),
    Measure("markedness", "markedness", "(ad − bc) / ((a + b)(c + d))", True,
            f"{_POWERS}; = precision + NPV − 1", _markedness, partner="informedness"),
    Measure("mcc", "MCC", "(ad − bc) / √((a + b)(a + c)(b + d)(c + d))", True,
            f"Matthews (1975); {_POWERS}: ±√(informedness · markedness)", _mcc, symmetric=True),
)}
"""The ordered registry of measures, by key: rates without d first, in the order of the JSON results."""


def value(key: str, a, b, c, d=None, **parameters):
    """The measure ``key`` of counts a, b, c (and d), quietly NaN where undefined.

    Examples
    --------
    >>> value("f1", 300, 20, 10)
    0.9523809523809523
    >>> round(value("kappa", 120, 40, 30, 310), 4)
    0.6729
    """
    measure = MEASURES[key]
    if measure.needs_d and d is None:
        raise ValueError(f"{measure.name} needs d, the count of items neither side marked")
    return measure.compute(a, b, c, d, **parameters)


# -- the rates of a comparison as results report them ---------------------------------------------

def f_beta_key(beta: float) -> str:
    """The name of F-beta in results: ``f2``, ``f0.5``, ``finf``.

    Examples
    --------
    >>> f_beta_key(2), f_beta_key(0.5), f_beta_key(float("inf"))
    ('f2', 'f0.5', 'finf')
    """
    return MEASURES["f_beta"].json_key(beta)


def f_beta(counts, beta: float) -> float:
    """F-beta ``(1 + β²) a / ((1 + β²) a + β² c + b)`` of ``counts``, quietly NaN where undefined; β = ∞ gives recall.

    Examples
    --------
    >>> from spanagree.measures.counts import Counts
    >>> f_beta(Counts(2, 0, 3), 2)
    0.45454545454545453
    """
    return _f_beta(counts.a, counts.b, counts.c, beta=beta)


def reported(beta: float | None = None) -> list[tuple[str, Measure, dict]]:
    """The rates results report, in order: ``(json key, measure, parameters)`` for each measure
    that needs no d — F-beta only when ``beta`` is given and is not 1 (F1 is then reported already)."""
    rates = []
    for measure in MEASURES.values():
        if measure.needs_d:
            continue
        if measure.parameter is None:
            rates.append((measure.key, measure, {}))
        elif beta is not None and beta != 1:
            rates.append((measure.json_key(beta), measure, {measure.parameter: beta}))
    return rates


def counts_dict(counts, *, beta: float | None = None) -> dict:
    """a, b, c and the rates, NaN where undefined (rendered ``null`` in JSON).

    Whole counts are ints (``"a": 61``), fractional ones (partial credit) floats. The rates are
    the registry's measures that need no d, in its order: precision, recall, f1, with ``beta``
    (≠ 1) the F-beta as ``f{beta}`` (e.g. ``f2``), jaccard.

    Examples
    --------
    >>> from spanagree.measures.counts import Counts
    >>> counts_dict(Counts(2, 0, 3), beta=2)
    {'a': 2, 'b': 0, 'c': 3, 'precision': 1.0, 'recall': 0.4, 'f1': 0.5714285714285714, 'f2': 0.45454545454545453, 'jaccard': 0.4}
    """
    a, b, c = counts.a, counts.b, counts.c
    result = {key: int(v) if float(v).is_integer() else v for key, v in (("a", a), ("b", b), ("c", c))}
    for key, measure, parameters in reported(beta):
        result[key] = measure.compute(a, b, c, None, **parameters)
    return result


# Undefined exactly when another reported rate is: named once, under that rate's name.
_UNDEFINED_WITH = {"jaccard": "f1", "f_beta": "f1"}


def undefined_rates(counts, beta: float | None = None) -> list[str]:
    """The display names of the reported rates that are undefined (0/0) for these counts.

    Jaccard (``a + b + c = 0``) and F-beta (β ≠ 0, ∞) are undefined exactly when F1 is, and are
    then not named again; F0 and F∞ are named when precision or recall alone is undefined.

    Examples
    --------
    >>> from spanagree.measures.counts import Counts
    >>> undefined_rates(Counts(0, 0, 4)), undefined_rates(Counts(0, 0, 0), beta=2)
    (['precision'], ['precision', 'recall', 'F1'])
    >>> undefined_rates(Counts(0, 0, 4), beta=0)
    ['precision', 'F0']
    """
    a, b, c = counts.a, counts.b, counts.c
    undefined = {}
    names = []
    for key, measure, parameters in reported(beta):
        undefined[measure.key] = math.isnan(measure.compute(a, b, c, None, **parameters))
        if undefined[measure.key] and not undefined.get(_UNDEFINED_WITH.get(measure.key, ""), False):
            names.append(f"F{beta:g}" if measure.parameter == "beta" else measure.name)
    return names


# -- the reference page ------------------------------------------------------------------------

SYMBOLS = {"beta": "β"}
MARKDOWN_HEADER = ("measure", "JSON key", "formula", "needs d", "swapping the sides", "reference")


def markdown() -> str:
    """The table of ``docs/measures.md``: one row per registered measure, in registry order.

    A test checks that the page contains exactly this table; regenerate it with
    ``python -m spanagree.measures.registry``.
    """
    rows = [MARKDOWN_HEADER, ("---",) * len(MARKDOWN_HEADER)]
    for m in MEASURES.values():
        key = f"`{m.key_format.replace('{:g}', '{β}')}` (e.g. `{m.json_key(2)}`)" if m.parameter else f"`{m.key}`"
        if m.symmetric:
            swap = "symmetric"
        elif m.partner == m.key:  # a family swaps into another of its members
            symbol = SYMBOLS.get(m.parameter, m.parameter)
            swap = f"becomes {m.name} with {symbol} ↦ 1/{symbol}"
        else:
            swap = f"becomes {MEASURES[m.partner].name}"
        rows.append((m.name, key, f"`{m.formula}`", "yes" if m.needs_d else "no", swap, m.reference))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
