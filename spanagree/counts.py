"""Counts and every rate computed from them.

Agreement between two span sets reduces to the additive counts of a 2×2 table whose fourth cell
is unknown for markup::

                      second marked   second unmarked
    first marked            a                b
    first unmarked          c                d  (undefined for spans)

``a`` may be fractional when partial matches earn partial credit. Counts add (over documents,
labels, pairs), so every rate is computed here, once, from summed counts ("counts first, rates
last").

Zero-division policy: a rate whose denominator is 0 is undefined and returns ``nan`` with a
:class:`~spanagree.errors.SpanagreeWarning` — never a silent 0 or 1.

References
----------
Hripcsak G, Rothschild AS (2005). Agreement, the F-measure, and reliability in information
retrieval. JAMIA 12(3):296–298.
Powers DMW (2011/2014). Evaluation: from precision, recall and F-measure to ROC, informedness,
markedness and correlation. J. Mach. Learn. Technol. 2(1):37–63.
Manning CD, Raghavan P, Schütze H (2008). Introduction to Information Retrieval, §8.5, Table 8.2.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from .errors import SpanagreeWarning


def ratio(numerator: float, denominator: float, what: str = "rate") -> float:
    """``numerator / denominator``, or ``nan`` with a warning when the denominator is 0."""
    if denominator == 0:
        warnings.warn(f"{what} is undefined (0/0): reported as NaN", SpanagreeWarning, stacklevel=3)
        return math.nan
    return numerator / denominator


def quiet_ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or ``nan`` without a warning (callers that count NaNs)."""
    return numerator / denominator if denominator else math.nan


@dataclass(frozen=True, slots=True)
class Counts:
    """The counts of a comparison of two span sets.

    Parameters
    ----------
    a : float
        Credit of aligned pairs (spans both marked; fractional with partial credit).
    b : float
        Spans only the first marked (in ``score``: the prediction's spurious spans) — ``|first| - a``.
    c : float
        Spans only the second marked (in ``score``: the gold's missed spans) — ``|second| - a``.

    Examples
    --------
    >>> Counts(300, 20, 10).f1
    0.9523809523809523
    >>> round(Counts(300, 20, 10).kappa(70), 4)
    0.7761
    """

    a: float = 0
    b: float = 0
    c: float = 0

    def __post_init__(self) -> None:
        for name in ("a", "b", "c"):
            value = getattr(self, name)
            if not value >= 0:
                raise ValueError(f"Counts.{name} must be >= 0, got {value!r}")

    def __add__(self, other: "Counts") -> "Counts":
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(self.a + other.a, self.b + other.b, self.c + other.c)

    def __radd__(self, other):
        if other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def swapped(self) -> "Counts":
        """The same comparison with the sides exchanged: b and c swap."""
        return Counts(self.a, self.c, self.b)

    # -- rates that need no d --------------------------------------------------------------

    @property
    def n_first(self) -> float:
        """Spans of the first side: a + b."""
        return self.a + self.b

    @property
    def n_second(self) -> float:
        """Spans of the second side: a + c."""
        return self.a + self.c

    @property
    def precision(self) -> float:
        """Precision ``a / (a + b)`` — in ``score``, the share of predicted spans that are right."""
        return ratio(self.a, self.a + self.b, "precision")

    @property
    def recall(self) -> float:
        """Recall ``a / (a + c)`` — in ``score``, the share of gold spans found."""
        return ratio(self.a, self.a + self.c, "recall")

    def f(self, beta: float = 1.0) -> float:
        """F-beta ``(1 + β²) a / ((1 + β²) a + β² c + b)`` (van Rijsbergen 1979).

        β > 1 weighs recall more. With b counting the first side's unmatched spans and c the
        second's, ``f(β)`` is the harmonic-type mean of precision ``a/(a+b)`` and recall
        ``a/(a+c)``.
        """
        if beta < 0:
            raise ValueError(f"beta must be >= 0, got {beta}")
        b2 = beta * beta
        return ratio((1 + b2) * self.a, (1 + b2) * self.a + b2 * self.c + self.b, f"F{beta:g}")

    @property
    def f1(self) -> float:
        """F1 ``2a / (2a + b + c)``: equals positive specific agreement (Hripcsak & Rothschild 2005)."""
        return ratio(2 * self.a, 2 * self.a + self.b + self.c, "F1")

    @property
    def psa(self) -> float:
        """Positive specific agreement ``2a / (2a + b + c)`` — the same number as :attr:`f1`."""
        return self.f1

    @property
    def jaccard(self) -> float:
        """Jaccard index ``a / (a + b + c)`` (= F1 / (2 - F1))."""
        return ratio(self.a, self.a + self.b + self.c, "Jaccard")

    # -- measures that need d (the count of items neither marked) ---------------------------

    def _n(self, d: float) -> float:
        if not d >= 0:
            raise ValueError(f"d must be >= 0, got {d!r}")
        return self.a + self.b + self.c + d

    def accuracy(self, d: float) -> float:
        """Observed agreement ``(a + d) / n`` with ``n = a + b + c + d``."""
        return ratio(self.a + d, self._n(d), "accuracy")

    def specificity(self, d: float) -> float:
        """Specificity (true-negative rate) ``d / (b + d)``: the first side's negatives the second agrees on.

        In ``score`` (first = prediction, second = gold) the gold negatives are ``b + d``.
        """
        self._n(d)
        return ratio(d, self.b + d, "specificity")

    def kappa(self, d: float, *, pooled: bool = False) -> float:
        """Cohen's kappa of the 2×2 table, or Scott's pi / Fleiss' kappa with ``pooled=True``.

        ``κ = (P_o − P_e) / (1 − P_e)`` with ``P_o = (a + d) / n``. Cohen (Hripcsak & Rothschild
        2005, eq. 5): ``P_e = ((a+b)(a+c) + (c+d)(b+d)) / n²``. Pooled (Scott 1955; Fleiss 1971;
        Manning et al. 2008, Table 8.2): ``p = (2a + b + c) / 2n``, ``P_e = p² + (1 − p)²``. As
        ``d → ∞`` both tend to the PSA ``2a / (2a + b + c)``.

        Examples
        --------
        >>> round(Counts(300, 20, 10).kappa(70, pooled=True), 4)
        0.7759
        """
        a, b, c = self.a, self.b, self.c
        n = self._n(d)
        if n == 0:
            return ratio(0, 0, "kappa")
        if pooled:
            p_yes = (2 * a + b + c) / (2 * n)
            p_e = p_yes * p_yes + (1 - p_yes) * (1 - p_yes)
            p_o = (a + d) / n
            return ratio(p_o - p_e, 1 - p_e, "Scott's pi")
        # Cohen's kappa in the cancellation-free form 2(ad − bc) / ((a+b)(b+d) + (a+c)(c+d)).
        return ratio(2 * (a * d - b * c), (a + b) * (b + d) + (a + c) * (c + d), "Cohen's kappa")

    def informedness(self, d: float) -> float:
        """Informedness (Youden's J, Powers 2011): ``recall + specificity − 1`` with gold = second side.

        ``a/(a+c) − b/(b+d)``: true-positive rate minus false-positive rate.
        """
        self._n(d)
        return ratio(self.a, self.a + self.c, "recall") - ratio(self.b, self.b + d, "fall-out")

    def markedness(self, d: float) -> float:
        """Markedness (Powers 2011): ``precision + NPV − 1`` = ``a/(a+b) − c/(c+d)``."""
        self._n(d)
        return ratio(self.a, self.a + self.b, "precision") - ratio(self.c, self.c + d, "false omission rate")

    def mcc(self, d: float) -> float:
        """Matthews correlation ``(ad − bc) / √((a+b)(a+c)(b+d)(c+d))``, the geometric mean of
        informedness and markedness (Powers 2011)."""
        a, b, c = self.a, self.b, self.c
        self._n(d)
        return ratio(a * d - b * c, math.sqrt((a + b) * (a + c) * (b + d) * (c + d)), "MCC")

    def as_dict(self) -> dict[str, float]:
        """a, b, c, precision, recall, f1 — quietly NaN where undefined."""
        a, b, c = self.a, self.b, self.c
        return {
            "a": a, "b": b, "c": c,
            "precision": quiet_ratio(a, a + b),
            "recall": quiet_ratio(a, a + c),
            "f1": quiet_ratio(2 * a, 2 * a + b + c),
        }
