"""Chance-corrected agreement on contingency tables: two raters (k×k) and several raters (items × categories).

This module owns the measures that need the fourth cell — the items nobody marked — and so apply
only where the items are known (tokens, documents, a user's ``d``). Span-level figures need no
``d`` and live in :mod:`spanagree.measures.counts`.

Two raters
    A k×k table ``table[i][j]`` = the items the **first** rater put in category ``i`` and the
    **second** in category ``j``: rows are the first rater, columns the second, as in
    :class:`~spanagree.measures.counts.Counts` (``[[a, b], [c, d]]``). :func:`cohen_kappa`,
    :func:`scott_pi` and :func:`mcc` are symmetric (the transpose gives the same value).
    :func:`informedness` and :func:`markedness` take one side as the reference (gold): by default
    the second (columns), as in ``score`` where the prediction is first; pass ``gold="rows"`` for a
    table laid out like scikit-learn's ``confusion_matrix(y_true, y_pred)``.
Several raters
    An items × categories table ``counts[u][k]`` = how many raters put item ``u`` in category
    ``k`` (statsmodels' and the ``krippendorff`` package's "value counts" layout);
    :func:`category_counts` builds it from raters × items labels.

Tables may be nested lists, numpy arrays or pandas DataFrames (the values are used; index and
column labels are not). Zero-division policy as everywhere in spanagree: an undefined figure is
``nan`` with a :class:`~spanagree.errors.SpanagreeWarning`.

Notation below: ``n`` items; ``p_o = Σ_k t_kk / n`` the observed agreement; ``r_k``, ``c_k`` the
row and column shares; ``p_e = Σ_k r_k c_k`` the agreement expected by chance from each rater's
own marginals.

References
----------
Cohen J (1960). A coefficient of agreement for nominal scales. Educ. Psychol. Meas. 20(1):37–46.
Scott WA (1955). Reliability of content analysis: the case of nominal scale coding. Public Opin.
Q. 19(3):321–325.
Fleiss JL (1971). Measuring nominal scale agreement among many raters. Psychol. Bull.
76(5):378–382.
Krippendorff K (2004/2011). Content Analysis: An Introduction to Its Methodology, 2nd ed., ch. 11;
Computing Krippendorff's alpha-reliability (2011), Annenberg School for Communication.
Powers DMW (2011). Evaluation: from precision, recall and F-measure to ROC, informedness,
markedness and correlation. J. Mach. Learn. Technol. 2(1):37–63.
Gorodkin J (2004). Comparing two K-category assignments by a K-category correlation coefficient.
Comput. Biol. Chem. 28(5–6):367–374.
"""

from __future__ import annotations

import math

from .counts import ratio

GOLD_SIDES = ("columns", "rows")


def as_table(table, *, square: bool = True):
    """``table`` as a 2-D float array of finite, non-negative counts (square unless told otherwise)."""
    import numpy as np

    values = table.to_numpy() if hasattr(table, "to_numpy") else table
    array = np.asarray(values, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"expected a 2-D table, got {array.ndim} dimension(s)")
    if square and array.shape[0] != array.shape[1]:
        raise ValueError(f"expected a square k×k table, got {array.shape[0]}×{array.shape[1]}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError("table entries must be finite, non-negative counts")
    return array


def _agreement_terms(table):
    """``n``, ``n · Σ t_kk`` and the row and column totals (floats; no division yet)."""
    array = as_table(table)
    n = float(array.sum())
    return n, float(n * array.trace()), array.sum(axis=1), array.sum(axis=0)


def observed_agreement(table) -> float:
    """Observed agreement (accuracy) ``p_o = Σ_k t_kk / n``.

    Examples
    --------
    >>> observed_agreement([[25, 2, 5], [3, 26, 5], [1, 3, 30]])
    0.81
    """
    array = as_table(table)
    return ratio(float(array.trace()), float(array.sum()), "observed agreement")


def cohen_kappa(table) -> float:
    """Cohen's kappa ``κ = (p_o − p_e) / (1 − p_e)``, ``p_e = Σ_k r_k c_k`` (Cohen 1960).

    Each rater keeps their own marginals. Computed as ``(n Σ t_kk − Σ R_k C_k) / (n² − Σ R_k C_k)``
    on the row and column totals ``R``, ``C``, with no rounding of ``p_e``. On a 2×2 table
    ``[[a, b], [c, d]]`` it equals :meth:`Counts(a, b, c).kappa(d) <spanagree.measures.counts.Counts.kappa>`.

    Examples
    --------
    Matos et al., Tabela 8 (three categories; their 0.72 comes from rounding ``p_e`` to 0.33 first):

    >>> round(cohen_kappa([[25, 2, 5], [3, 26, 5], [1, 3, 30]]), 4)
    0.7146
    >>> round(cohen_kappa([[5, 1], [1, 3]]), 4)  # Tabela 6
    0.5833
    """
    n, agree, rows, columns = _agreement_terms(table)
    chance = float(rows @ columns)
    return ratio(agree - chance, n * n - chance, "Cohen's kappa")


def scott_pi(table) -> float:
    """Scott's pi ``π = (p_o − p_e) / (1 − p_e)`` with pooled marginals ``p_e = Σ_k ((r_k + c_k)/2)²``.

    Scott (1955); for two raters it is also Fleiss' kappa (Fleiss 1971), and on a 2×2 table it is
    the kappa of Manning et al. (2008, Table 8.2) and :meth:`Counts.kappa(d, pooled=True)
    <spanagree.measures.counts.Counts.kappa>`.

    Examples
    --------
    >>> round(scott_pi([[300, 20], [10, 70]]), 4)  # Manning et al. Table 8.2: 0.776
    0.7759
    """
    n, agree, rows, columns = _agreement_terms(table)
    pooled = (rows + columns) / 2
    chance = float(pooled @ pooled)
    return ratio(agree - chance, n * n - chance, "Scott's pi")


def _gold_and_prediction(rows, columns, gold: str):
    if gold not in GOLD_SIDES:
        raise ValueError(f"gold must be one of {GOLD_SIDES}, got {gold!r}")
    return (columns, rows) if gold == "columns" else (rows, columns)


def informedness(table, *, gold: str = "columns") -> float:
    """Multiclass informedness ``(p_o − p_e) / (1 − Σ_k g_k²)``, ``g`` the reference's (gold's) shares.

    On a 2×2 table it is Powers' (2011) informedness ``recall + specificity − 1`` (Youden's J),
    equal to :meth:`Counts.informedness <spanagree.measures.counts.Counts.informedness>` with the
    second side (columns) as gold. For k categories it is the average of the k one-vs-rest
    informedness values weighted by ``g_k (1 − g_k)`` — the weighting under which, as in the
    2×2 case Powers describes, the geometric mean of informedness and markedness is the
    correlation (:func:`mcc`, Gorodkin's multiclass R_K).

    Parameters
    ----------
    table : k×k table
        Rows = first rater, columns = second rater.
    gold : {"columns", "rows"}
        Which side is the reference. ``"columns"`` (default) matches
        :class:`~spanagree.measures.counts.Counts` and ``score`` (prediction first); ``"rows"`` matches
        scikit-learn's ``confusion_matrix(y_true, y_pred)``.

    Examples
    --------
    >>> round(informedness([[120, 40], [30, 310]]), 4)  # Matos et al., Tabela 4
    0.6857
    """
    n, agree, rows, columns = _agreement_terms(table)
    reference, _ = _gold_and_prediction(rows, columns, gold)
    return ratio(agree - float(rows @ columns), n * n - float(reference @ reference), "informedness")


def markedness(table, *, gold: str = "columns") -> float:
    """Multiclass markedness ``(p_o − p_e) / (1 − Σ_k q_k²)``, ``q`` the predicting side's shares.

    On a 2×2 table it is Powers' (2011) markedness ``precision + NPV − 1``, equal to
    :meth:`Counts.markedness <spanagree.measures.counts.Counts.markedness>`; the dual of
    :func:`informedness` (the same figure with the roles of the two sides exchanged).

    Examples
    --------
    >>> round(markedness([[120, 40], [30, 310]]), 4)  # Matos et al., Tabela 4
    0.6618
    """
    n, agree, rows, columns = _agreement_terms(table)
    _, prediction = _gold_and_prediction(rows, columns, gold)
    return ratio(agree - float(rows @ columns), n * n - float(prediction @ prediction), "markedness")


def mcc(table) -> float:
    """Matthews correlation, multiclass (Gorodkin 2004): ``(p_o − p_e) / √((1 − Σ r_k²)(1 − Σ c_k²))``.

    Equals scikit-learn's ``matthews_corrcoef``; on a 2×2 table
    :meth:`Counts.mcc <spanagree.measures.counts.Counts.mcc>`; in general ``±√(informedness · markedness)``
    (Powers 2011). Symmetric in the two raters.

    Examples
    --------
    >>> round(mcc([[120, 40], [30, 310]]), 4)  # Matos et al., Tabela 4
    0.6736
    """
    n, agree, rows, columns = _agreement_terms(table)
    spread = (n * n - float(rows @ rows)) * (n * n - float(columns @ columns))
    return ratio(agree - float(rows @ columns), math.sqrt(spread), "MCC")


# -- several raters ------------------------------------------------------------------------------


def category_counts(ratings, categories=None):
    """Raters × items labels → (items × categories counts, categories).

    Parameters
    ----------
    ratings : sequence of sequences
        ``ratings[r][u]`` = rater ``r``'s label for item ``u``; ``None`` (or a float NaN) when
        rater ``r`` did not rate item ``u``.
    categories : sequence, optional
        The category order; by default the distinct labels, sorted.

    Returns
    -------
    counts : numpy.ndarray
        ``counts[u][k]`` = raters who put item ``u`` in ``categories[k]``.
    categories : list

    Examples
    --------
    >>> counts, categories = category_counts([["PER", "O", "O"], ["PER", "LOC", None]])
    >>> counts.tolist(), categories
    ([[0.0, 0.0, 2.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], ['LOC', 'O', 'PER'])
    """
    import numpy as np

    rows = [list(r) for r in ratings]
    if not rows:
        raise ValueError("ratings need at least one rater")
    length = len(rows[0])
    if any(len(r) != length for r in rows):
        raise ValueError("every rater needs one entry per item (None where missing)")

    def missing(value) -> bool:
        return value is None or (isinstance(value, float) and math.isnan(value))

    if categories is None:
        categories = sorted({v for r in rows for v in r if not missing(v)})
    categories = list(categories)
    index = {c: k for k, c in enumerate(categories)}
    counts = np.zeros((length, len(categories)))
    for row in rows:
        for u, value in enumerate(row):
            if missing(value):
                continue
            if value not in index:
                raise ValueError(f"label {value!r} is not among the categories {categories!r}")
            counts[u, index[value]] += 1
    return counts, categories


def fleiss_kappa(counts, *, weights=None) -> float:
    """Fleiss' kappa for m raters per item (Fleiss 1971).

    ``κ = (P̄ − P̄_e) / (1 − P̄_e)`` with ``P̄`` the mean over items of
    ``(Σ_k n_uk² − m) / (m(m − 1))`` and ``P̄_e = Σ_k p_k²``, ``p_k`` the share of all ratings in
    category ``k``. Every item must have the same number ``m ≥ 2`` of ratings. With two raters it
    equals :func:`scott_pi`. Equals statsmodels' ``fleiss_kappa(counts, method="fleiss")``.

    Parameters
    ----------
    counts : items × categories table
        ``counts[u][k]`` = raters who put item ``u`` in category ``k`` (see :func:`category_counts`).
    weights : sequence of non-negative numbers, optional
        How many items each row of ``counts`` stands for (default: one each): the figure is that
        of the table with each row repeated ``weights[u]`` times, so a table of the distinct rows
        and their counts gives the figure of all the items (``agree --chance`` sums tokens up so).

    Examples
    --------
    >>> round(fleiss_kappa([[2, 0], [1, 1], [0, 2], [2, 0]]), 4)
    0.4667
    >>> round(fleiss_kappa([[2, 0], [1, 1], [0, 2]], weights=[2, 1, 1]), 4)  # the same items
    0.4667
    """
    import numpy as np

    array = as_table(counts, square=False)
    per_item = array.sum(axis=1)
    if array.shape[0] == 0:
        return ratio(0, 0, "Fleiss' kappa")
    m = float(per_item[0])
    if not np.allclose(per_item, m):
        raise ValueError("Fleiss' kappa needs the same number of ratings for every item "
                         "(use krippendorff_alpha for missing ratings)")
    if m < 2:
        raise ValueError(f"Fleiss' kappa needs at least two ratings per item, got {m:g}")
    if weights is None:
        items, squares, shares = array.shape[0], float((array * array).sum()), array.sum(axis=0)
    else:
        w = row_weights(weights, array)
        items, squares, shares = float(w.sum()), float(((array * array).sum(axis=1) * w).sum()), w @ array
    total = items * m
    # P̄ − P̄_e and 1 − P̄_e, multiplied through by m(m−1)·items·total² to avoid cancellation.
    observed = (squares - items * m) * total * total
    chance = float(shares @ shares) * items * m * (m - 1)
    scale = items * m * (m - 1) * total * total
    return ratio(observed - chance, scale - chance, "Fleiss' kappa")


def row_weights(weights, array):
    """``weights`` as a float array, one finite non-negative number per row of ``array``."""
    import numpy as np

    w = np.asarray(weights, dtype=float)
    if w.shape != (array.shape[0],):
        raise ValueError(f"expected one weight per row ({array.shape[0]}), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite, non-negative numbers of items")
    return w


def krippendorff_alpha(counts, *, weights=None) -> float:
    """Krippendorff's alpha, nominal, from an items × categories table (Krippendorff 2004, 2011).

    ``α = 1 − D_o / D_e``. Items with fewer than two ratings are not pairable and drop out; the
    others fill the coincidence matrix ``o_ck = Σ_u (n_uc n_uk − [c = k] n_uc) / (m_u − 1)``, and
    with ``n_c = Σ_k o_ck``, ``n = Σ_c n_c``:
    ``α = ((n − 1) Σ_c o_cc − Σ_c n_c (n_c − 1)) / (n(n − 1) − Σ_c n_c (n_c − 1))``.
    Missing ratings are allowed (items may have different numbers of ratings). Equals the
    ``krippendorff`` package's ``alpha(value_counts=counts, level_of_measurement="nominal")``.
    ``weights``: as in :func:`fleiss_kappa`, how many items each row stands for.

    Examples
    --------
    >>> round(krippendorff_alpha([[2, 0], [1, 1], [0, 2], [2, 0]]), 4)
    0.5333
    >>> round(krippendorff_alpha([[2, 0], [1, 1], [0, 2]], weights=[2, 1, 1]), 4)  # the same items
    0.5333
    """
    array = as_table(counts, square=False)
    per_item = array.sum(axis=1)
    pairable = array[per_item >= 2]
    m = per_item[per_item >= 2]
    if pairable.shape[0] == 0:
        return ratio(0, 0, "Krippendorff's alpha")
    if weights is None:
        weights = 1.0 / (m - 1)
        totals = pairable.sum(axis=0)
    else:
        items = row_weights(weights, array)[per_item >= 2]
        weights = items / (m - 1)
        totals = items @ pairable
    # Diagonal of the coincidence matrix and the category totals n_c = Σ_u n_uc (pairable items).
    agreeing = float((weights[:, None] * pairable * (pairable - 1)).sum())
    n = float(totals.sum())
    expected = float((totals * (totals - 1)).sum())
    return ratio((n - 1) * agreeing - expected, n * (n - 1) - expected, "Krippendorff's alpha")
