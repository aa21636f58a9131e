"""Counts and every rate computed from them.

Agreement between two span sets reduces to the additive counts of a 2×2 table whose fourth cell
is unknown for markup::

                      second marked   second unmarked
    first marked            a                b
    first unmarked          c                d  (undefined for spans)

``a`` may be fractional when partial matches earn partial credit. Counts add (over documents,
labels, pairs), so every rate is computed from summed counts ("counts first, rates last"), by
the one implementation of each formula in :mod:`spanagree.measures.registry`.

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

from ..errors import SpanagreeWarning, find_stack_level
from .registry import MEASURES


def ratio(numerator: float, denominator: float, what: str = "rate") -> float:
    """``numerator / denominator``, or ``nan`` with a warning when the denominator is 0."""
    if denominator == 0:
        warnings.warn(f"{what} is undefined (0/0): reported as NaN", SpanagreeWarning, stacklevel=find_stack_level())
        return math.nan
    return numerator / denominator


def rate(key: str, a: float, b: float, c: float, d: float | None = None, *, name: str | None = None,
         **parameters) -> float:
    """The registered measure ``key`` of a, b, c (and d), or ``nan`` with a warning when undefined.

    The warning names the measure by its display name, or by ``name`` when given.
    """
    value = MEASURES[key].compute(a, b, c, d, **parameters)
    if math.isnan(value):
        warnings.warn(f"{name or MEASURES[key].name} is undefined (0/0): reported as NaN", SpanagreeWarning,
                      stacklevel=find_stack_level())
    return value


AS_DICT_RATES = ("precision", "recall", "f1")  # the rates of Counts.as_dict, in its order


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

    def astuple(self) -> tuple[float, float, float]:
        """``(a, b, c)``."""
        return self.a, self.b, self.c

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
        """Precision ``a / (a + b)`` — in ``score``, the share of predicted spans that are right.

        van Rijsbergen (1979), *Information Retrieval*, ch. 7; Manning et al. (2008), eq. 8.1.
        Between two annotators it is the share of the first's spans the second agrees with.
        """
        return rate("precision", self.a, self.b, self.c)

    @property
    def recall(self) -> float:
        """Recall ``a / (a + c)`` — in ``score``, the share of gold spans found.

        van Rijsbergen (1979), ch. 7; Manning et al. (2008), eq. 8.2.
        """
        return rate("recall", self.a, self.b, self.c)

    def f(self, beta: float = 1.0) -> float:
        """F-beta ``(1 + β²) a / ((1 + β²) a + β² c + b)`` (van Rijsbergen 1979, ch. 7;
        Manning et al. 2008, eq. 8.5).

        β > 1 weighs recall more. With b counting the first side's unmatched spans and c the
        second's, ``f(β)`` is the weighted harmonic mean of precision ``a/(a+b)`` and recall
        ``a/(a+c)``: ``f(0)`` is precision and ``f(inf)`` recall (its limit).

        Examples
        --------
        >>> Counts(2, 0, 3).f(2)
        0.45454545454545453
        """
        if not beta >= 0:
            raise ValueError(f"beta must be >= 0, got {beta}")
        return rate("f_beta", self.a, self.b, self.c, beta=beta,
                    name="F-inf (recall)" if math.isinf(beta) else f"F{beta:g}")

    @property
    def f1(self) -> float:
        """F1 ``2a / (2a + b + c)``: equals positive specific agreement (Hripcsak & Rothschild 2005)."""
        return rate("f1", self.a, self.b, self.c)

    @property
    def psa(self) -> float:
        """Positive specific agreement ``2a / (2a + b + c)`` — the same number as :attr:`f1`
        (Hripcsak & Rothschild 2005; Fleiss 1975)."""
        return self.f1

    @property
    def jaccard(self) -> float:
        """Jaccard index ``a / (a + b + c)`` (Jaccard 1912; = F1 / (2 − F1), Hripcsak & Rothschild 2005)."""
        return rate("jaccard", self.a, self.b, self.c)

    # -- measures that need d (the count of items neither marked) ---------------------------
    #
    # The 2×2 table is read with the second side as the reference (in ``score``: the gold):
    #
    #                       second (gold) marked   second (gold) unmarked
    #   first marked                a                     b      (false positives)
    #   first unmarked              c  (false negatives)  d
    #
    # so recall = a/(a+c) (true-positive rate), specificity = d/(b+d) (true-negative rate),
    # precision = a/(a+b) and NPV = d/(c+d). Cohen's kappa, Scott's pi and MCC are symmetric.

    @staticmethod
    def _check_d(d: float) -> None:
        if not d >= 0:
            raise ValueError(f"d must be >= 0, got {d!r}")

    def accuracy(self, d: float) -> float:
        """Observed agreement (Rand accuracy) ``(a + d) / n`` with ``n = a + b + c + d``.

        Examples
        --------
        >>> Counts(120, 40, 30).accuracy(d=310)
        0.86
        """
        self._check_d(d)
        return rate("accuracy", self.a, self.b, self.c, d)

    def specificity(self, d: float) -> float:
        """Specificity (true-negative rate) ``d / (b + d)``, the second side being the reference.

        ``b + d`` are the items the second side (in ``score``: the gold) left unmarked; ``d`` of
        them the first side (the prediction) left unmarked too.

        Examples
        --------
        >>> round(Counts(120, 40, 30).specificity(d=310), 4)
        0.8857
        """
        self._check_d(d)
        return rate("specificity", self.a, self.b, self.c, d)

    def npv(self, d: float) -> float:
        """Negative predictive value ``d / (c + d)``, the second side being the reference.

        ``c + d`` are the items the first side (in ``score``: the prediction) left unmarked; ``d``
        of them the second side (the gold) left unmarked too. Swapping the sides turns it into
        :meth:`specificity` (Powers 2011, "inverse precision").

        Examples
        --------
        >>> round(Counts(120, 40, 30).npv(d=310), 4)
        0.9118
        """
        self._check_d(d)
        return rate("npv", self.a, self.b, self.c, d)

    def kappa(self, d: float, *, pooled: bool = False) -> float:
        """Cohen's kappa of the 2×2 table, or Scott's pi / Fleiss' kappa with ``pooled=True``.

        ``κ = (P_o − P_e) / (1 − P_e)`` with ``P_o = (a + d) / n``, ``n = a + b + c + d``.

        - Cohen (1960; Hripcsak & Rothschild 2005, eq. 5): each side's own marginals,
          ``P_e = ((a+b)(a+c) + (c+d)(b+d)) / n²``, which simplifies to
          ``κ = 2(ad − bc) / ((a+b)(b+d) + (a+c)(c+d))``.
        - Pooled (Scott 1955; Fleiss 1971 for two raters; Manning et al. 2008, Table 8.2): both
          sides share the marginal ``p = (2a + b + c) / 2n``, ``P_e = p² + (1 − p)²``, which
          simplifies to ``π = (4ad − (b + c)²) / ((2a + b + c)(2d + b + c))``.

        Both are computed in their simplified, cancellation-free forms. As ``d → ∞`` both tend to
        the PSA ``2a / (2a + b + c)`` (Hripcsak & Rothschild 2005).

        Examples
        --------
        >>> round(Counts(300, 20, 10).kappa(d=70), 4)
        0.7761
        >>> round(Counts(300, 20, 10).kappa(d=70, pooled=True), 4)
        0.7759
        >>> abs(Counts(300, 20, 10).kappa(d=10**9) - Counts(300, 20, 10).psa) < 1e-6
        True
        """
        self._check_d(d)
        return rate("scott_pi" if pooled else "kappa", self.a, self.b, self.c, d)

    def informedness(self, d: float) -> float:
        """Informedness (Youden's J; Powers 2011): recall + specificity − 1, the second side being the reference.

        ``a/(a+c) − b/(b+d)`` = true-positive rate − false-positive rate ``= (ad − bc) / ((a+c)(b+d))``:
        how far the first side's marking is informed by the second's, beyond chance.

        Examples
        --------
        >>> round(Counts(120, 40, 30).informedness(d=310), 4)
        0.6857
        """
        self._check_d(d)
        return rate("informedness", self.a, self.b, self.c, d)

    def markedness(self, d: float) -> float:
        """Markedness (Powers 2011): precision + NPV − 1, the second side being the reference.

        ``a/(a+b) − c/(c+d)`` ``= (ad − bc) / ((a+b)(c+d))``: how far the second side is marked
        by the first's marking, beyond chance (the dual of :meth:`informedness`).

        Examples
        --------
        >>> round(Counts(120, 40, 30).markedness(d=310), 4)
        0.6618
        """
        self._check_d(d)
        return rate("markedness", self.a, self.b, self.c, d)

    def mcc(self, d: float) -> float:
        """Matthews correlation ``(ad − bc) / √((a+b)(a+c)(b+d)(c+d))``.

        The geometric mean of :meth:`informedness` and :meth:`markedness`, with their sign
        (Powers 2011); symmetric in the two sides.

        Examples
        --------
        >>> round(Counts(120, 40, 30).mcc(d=310), 4)
        0.6736
        """
        self._check_d(d)
        return rate("mcc", self.a, self.b, self.c, d)

    def as_dict(self) -> dict[str, float]:
        """a, b, c, precision, recall, f1 — quietly NaN where undefined."""
        a, b, c = self.a, self.b, self.c
        return {"a": a, "b": b, "c": c, **{key: MEASURES[key].compute(a, b, c, None) for key in AS_DICT_RATES}}
