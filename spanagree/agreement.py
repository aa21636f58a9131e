"""Inter-annotator agreement: every pair of annotators, mean and pooled F1 (= PSA).

For k annotators every pair (in the order given) is aligned on the documents all of them
annotated. Reported, after Hripcsak & Rothschild (2005):

- each pair's a, b, c, precision ``a/(a+b)``, recall ``a/(a+c)`` and F1 ``2a/(2a+b+c)`` (= PSA);
- the **mean pairwise F1** (their average PSA) and its population SD, over pairs with a defined F1;
- the **pooled F1** from the summed a, b, c of all pairs;
- the same per label (labels strict) and per document, and the k×k matrix of pairwise F1.

Every disagreement of every pair can be listed (``errors=True``, ``agree --errors``) with the
error analysis of :mod:`spanagree.scoring`: the first annotator of a pair plays the prediction
and the second the gold (the reference), so ``spurious`` is a span only the first marked (it
counts in b) and ``missed`` one only the second marked (in c).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from .formats.registry import documented
from .errors import SpanagreeError, SpanagreeWarning, UsageError, find_stack_level, parameter
from .match import MatchRule
from .measures.counts import Counts
from .measures.registry import undefined_rates
from .options import RunOptions
from .pipeline import Group
from .pipeline.analyses import Finished, PairsComparison, Plan
from .pipeline.command import execute, finish_analyses, spooled_outputs
from .pipeline.compare import MeanF1, PairCounts, sorted_labels, warn_duplicates
from .pipeline.finish import (aligned_note, aligned_texts, announce_texts, check_jobs, common_documents,
                              in_first_order, input_path, pairwise_documents, unique_names)
from .pipeline.labels import label_warnings
from .scoring import ErrorItem, check_context
from .span import CONTEXT, SpanSet

#: ``agree``'s document designs (``--documents``): which documents each pair compares.
DOCUMENT_DESIGNS = ("common", "pairwise")


@dataclass
class Agreement:
    """The result of :func:`agree`. ``to_dict()`` is the JSON contract; ``*_frame()`` give pandas."""

    annotators: list[str]
    documents: list[str]
    rule: MatchRule
    pairs: list[PairCounts]
    options: dict = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extras: dict = field(default_factory=dict)
    #: One document's token-level figures (``chance=True``: the ``"chance"`` part of its
    #: ``by_document`` entry), or ``None`` when the run had no ``chance``.
    chance_of: Callable[[str], dict | None] | None = field(default=None, repr=False, compare=False)
    #: Gives each pair's disagreements (an iterable per pair), read from where they were kept while
    #: comparing (``agree(errors=...)``); ``None`` when they were not kept.
    listing: Callable[[], list] | None = field(default=None, repr=False, compare=False)
    #: ``gamma=True``: each document's γ figures (``by_document.<id>.gamma`` of the JSON).
    gamma_documents: dict | None = field(default=None, repr=False, compare=False)
    #: ``attributes=...``: each pair's attribute figures (its ``attributes`` in the JSON's
    #: ``pairs``: :func:`spanagree.measures.attributes.attribute_figures`), or ``None``.
    attributes: list | None = field(default=None, repr=False, compare=False)
    #: ``attributes=...``: each pair's attribute counts per document
    #: (:class:`~spanagree.measures.attributes.AttributeCounts` by document id), or ``None``.
    attribute_tally: list | None = field(default=None, repr=False, compare=False)
    #: ``relations=True``: each pair's relation figures (its ``relations`` in the JSON), and each
    #: pair's :class:`~spanagree.relations.RelationTally`; ``None`` otherwise.
    relation_pairs: list | None = field(default=None, repr=False, compare=False)
    relation_tally: list | None = field(default=None, repr=False, compare=False)
    _errors: list | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"<Agreement: {len(self.annotators)} annotators, {len(self.pairs)} pairs, "
                f"{len(self.documents)} documents, match {self.rule.boundary}, labels {self.rule.labels}>")

    def _repr_html_(self) -> str:
        from .report.notebook import agreement_html

        return agreement_html(self)

    def errors(self) -> list[tuple[str, str, "ErrorItem"]]:
        """Every disagreement of every pair, pair by pair then document by document:
        ``(first, second, item)``; the item's ``pred`` is the first annotator's span, its ``gold``
        the second's (see :func:`agree`'s ``errors``).

        Raises
        ------
        UsageError
            The run kept no disagreements: call :func:`agree` with ``errors=True``.
        """
        if self._errors is None:
            self._errors = list(self._listed())
        return self._errors

    def iter_errors(self):
        """:meth:`errors` one at a time, without keeping them when they were spooled while comparing
        (``agree(..., errors=True)``: what ``--errors`` writes from)."""
        return iter(self._errors) if self._errors is not None else self._listed()

    def relation_errors(self) -> list:
        """Every relation of every pair that is not ``correct``, pair by pair then document by
        document: ``(first, second, item)`` (:class:`~spanagree.relations.RelationItem`; its
        ``record.first`` is the first annotator's relation, ``record.second`` the second's).

        Raises
        ------
        UsageError
            The run compared no relations or kept no listing: call :func:`agree` with
            ``relations=True, errors=True``.
        """
        tallies = self.relation_tally
        if tallies is None or any(tally.items is None for tally in tallies):
            raise UsageError("this agreement kept no relations' listing: run agree() with relations=True and "
                             "errors=True to list them")
        return [(p.first, p.second, item) for p, tally in zip(self.pairs, tallies)
                for item in tally.listed(list(p.by_document)) if item.kind != "correct"]

    def _listed(self):
        if self.listing is None:
            raise UsageError("this agreement kept no disagreements: run agree() with errors=True to list them")
        return ((p.first, p.second, item) for p, items in zip(self.pairs, self.listing()) for item in items)

    def errors_frame(self):
        """The disagreements as a DataFrame (the ``agree --errors`` columns)."""
        from .report.tabular import DISAGREEMENT_COLUMNS, disagreement_rows, frame

        return frame(disagreement_rows(self), DISAGREEMENT_COLUMNS)

    #: The documents' records for the HTML report (``agree(..., report=True)``): a
    #: :class:`~spanagree.pipeline.spool.DocumentSpool`, or ``None``.
    spool: object = field(default=None, repr=False, compare=False)

    def report_view(self, limit: int | None = None):
        """The HTML report's view of this agreement (:func:`spanagree.report.view.agreement_view`)."""
        from .report.view import agreement_view

        return agreement_view(self, limit)

    def write_report(self, path, *, documents: int | None = None, force: bool = False, inputs=()) -> None:
        """Write the HTML report (docs/report.md) to ``path``; needs ``agree(..., report=True)``.
        ``documents`` keeps that many documents with the most disagreement in the document view."""
        from .report.html import write_report

        write_report(self, path, documents=documents, force=force, inputs=inputs)

    @property
    def pooled(self) -> Counts:
        """Summed a, b, c over all pairs."""
        return sum((p.counts for p in self.pairs), Counts())

    @property
    def mean(self) -> MeanF1:
        """Mean pairwise F1 and its population SD (undefined pairs skipped)."""
        return MeanF1.of(p.counts.as_dict()["f1"] for p in self.pairs)

    @property
    def mean_f1(self) -> float:
        """The mean pairwise F1 (:attr:`mean`'s ``mean``; NaN when no pair's F1 is defined)."""
        return self.mean.mean

    @property
    def labels(self) -> list[str]:
        return sorted_labels(label for p in self.pairs for label in p.by_label)

    def label_pairs(self, label: str) -> list[Counts]:
        return [p.by_label.get(label, Counts()) for p in self.pairs]

    def pairs_on(self, doc_id: str) -> list[tuple[PairCounts, Counts]]:
        """The pairs that compared ``doc_id`` and their counts on it: every pair, except under
        ``documents="pairwise"`` where a pair compares only the documents both annotators have."""
        return [(p, p.by_document[doc_id]) for p in self.pairs if doc_id in p.by_document]

    def document_pairs(self, doc_id: str) -> list[Counts]:
        """The counts on ``doc_id`` of the pairs that compared it (:meth:`pairs_on`)."""
        return [counts for _, counts in self.pairs_on(doc_id)]

    def matrix(self) -> list[list[float]]:
        """k×k pairwise F1 (1 on the diagonal; symmetric)."""
        index = {name: i for i, name in enumerate(self.annotators)}
        k = len(self.annotators)
        matrix = [[1.0 if i == j else math.nan for j in range(k)] for i in range(k)]
        for pair in self.pairs:
            f1 = pair.counts.as_dict()["f1"]
            i, j = index[pair.first], index[pair.second]
            matrix[i][j] = matrix[j][i] = f1
        return matrix

    def to_dict(self, *, by_document: bool = False) -> dict:
        """The ``--output json`` document (docs/design.md, "Contracts"; the ``agree`` schema), NaN as ``None``."""
        from .report.document import agreement_document

        return agreement_document(self, by_document=by_document)

    # -- pandas views (the rows of spanagree.report.tabular; pandas imported when asked for) ---------

    def pairs_frame(self):
        """One row per pair: first, second, a, b, c, precision, recall, f1, jaccard."""
        from .report.tabular import frame, pair_rows

        return frame(pair_rows(self))

    def by_label_frame(self):
        """One row per (label, pair)."""
        from .report.tabular import frame, label_rows

        return frame(label_rows(self))

    def by_document_frame(self):
        """One row per (document, pair)."""
        from .report.tabular import document_rows, frame

        return frame(document_rows(self))

    def matrix_frame(self):
        """The k×k pairwise F1 matrix as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.matrix(), index=self.annotators, columns=self.annotators)


def agree(inputs, *, match: str = "exact", labels: str = "strict", partial_credit=0.5, only=None,
          label_map=None, align_whitespace: bool = False, align_text: bool = False, chance: bool = False,
          chance_categories: str = "label", lang: str | None = None,
          spacy_model: str | None = None, bootstrap: int | None = None, seed: int | None = None, jobs: int = 1,
          format: str | None = None, format_options: dict | None = None, options: dict | None = None,
          annotators=None, errors: bool | str = False, context: int = CONTEXT, report: bool | str = False,
          documents: str = "common", unitizing: bool = False, compare: bool = False, test: str = "randomization", unit: str = "document",
          resamples: int = 10_000, progress: bool = False, scheduler=None, scheduler_timeout: float = 10.0,
          analyses=(), document_key: str = "id", gamma: bool = False, gamma_alpha: float = 1.0,
          gamma_beta: float = 1.0, gamma_delta_empty: float = 1.0, gamma_sampler: str = "statistical",
          gamma_samples: int = 30, gamma_precision=None, attributes=None, match_attributes=(),
          link_top: int = 1, relations: bool = False,
          symmetric_relations=None) -> Agreement:
    """Pairwise agreement of two or more annotators.

    Parameters
    ----------
    inputs : list of SpanSet, DocumentStream or path
        At least two annotators: span sets in memory, or files and folders read (and compared)
        document by document. A path holding several annotators (a container: {CONTAINERS})
        counts as its annotators (:func:`spanagree.pipeline.expand_inputs`). An annotator may also be plain data: a list of
        documents, each a list of ``(start, end, label)`` tuples or dicts
        (:meth:`spanagree.SpanSet.from_lists`), named ``ann1``, ``ann2``, ... by its place.
    match : {"exact", "overlap", "partial"}
    labels : {"strict", "ignore"}
    partial_credit : float or "dice"
    only : str or list of str, optional
        Compare only these labels (after ``label_map``).
    label_map : mapping or list of "OLD=NEW", optional
        Relabel before matching.
    align_whitespace : bool
        Compare copies of a document that differ only in whitespace (see :mod:`spanagree.texts`).
    align_text : bool
        Compare copies whose texts differ through a character alignment to the first copy's text
        (:mod:`spanagree.textalign`; CoNLL copies through their texts); ``extras["aligned_texts"]``
        gives the differing characters per document and the spans they touch.
    chance : bool
        Add token-level agreement with d known (Cohen's kappa, Scott's pi, Fleiss' kappa,
        Krippendorff's alpha, ...: :mod:`spanagree.measures.tokens`) as ``extras["chance"]``:
        each document is tokenised where its copies are compared, and its tokens summed up
        (:class:`~spanagree.measures.tokens.TokenTally`), so this streams, and runs under
        ``jobs`` and on a cluster, like the rest. CoNLL inputs use their own tokens; otherwise
        spaCy's tokenizer, ``lang`` or ``spacy_model`` choosing it. Each document's figures are
        its ``by_document`` entry's ``"chance"`` (``to_dict(by_document=True)``).
    chance_categories : {"label", "tag", "bio"}
        With ``chance``, a token's category: its label (default), its IOB2 tag (``B-PER``,
        ``I-PER``, ``O``; CoNLL's tag column as written) or the tag's letter (``B``, ``I``, ``O``),
        as papers that report kappa over IOB tags count them (:mod:`spanagree.measures.tokens`).
    lang, spacy_model : str, optional
        With ``chance``: the language of spaCy's blank tokenizer (default ``en``), or an installed
        spaCy pipeline (a name or a path) whose tokenizer to use; ``lang`` is also the language of
        the sentencizer with ``unit="sentence"``.
    seed : int, optional
        Seeds ``bootstrap`` and ``compare`` (default: drawn, and reported in their figures).
    bootstrap : int, optional
        Add 95% percentile intervals from this many resamples of documents (or sentences:
        ``unit``) (:mod:`spanagree.measures.bootstrap`) as ``extras["bootstrap"]``; ``seed``
        seeds them.
    unitizing : bool
        Add Krippendorff's unitizing alpha (α_U) of all annotators over the characters of the
        documents, overall and per label, as ``extras["alpha_u"]``
        (:mod:`spanagree.measures.unitizing`; needs ``documents="common"``).
    compare, test, unit, resamples
        ``compare``: test every two pairs of annotators against each other on F1, precision and
        recall, paired over the same units (is one pair of annotators lower than another?), as
        ``extras["comparisons"]`` (:func:`spanagree.measures.significance.paired_comparisons`;
        ``test`` ``"randomization"`` or ``"bootstrap"``, ``resamples`` rounds, ``seed``).
        ``unit``: ``"document"`` or ``"sentence"``, what the tests swap and the bootstrap
        resamples (CoNLL sentences, or spaCy's sentencizer on the first annotator's text).
    jobs : int
        Compare in this many processes (results are identical).
    progress : bool
        Show a progress bar on standard error while comparing.
    scheduler : str or distributed.Client, optional
        Compare on this Dask cluster (``"tcp://host:8786"``, checked before connecting, or a
        client of yours, used as it is; docs/cluster.md).
    scheduler_timeout : float
        Seconds the connection to ``scheduler`` may take, handshake included (default 10).
    format, format_options
        How paths are read (:func:`spanagree.formats.read`).
    options : dict, optional
        The caller's record of the run, echoed first in ``options`` (the values as understood win).
    annotators : list of str or "A,B", optional
        Pick and order the span sets by name, containers' annotators included (a container's
        curation joins only when named here).
    errors : bool or path
        Keep every disagreement of every pair (:meth:`Agreement.errors`) while comparing: each
        document's are spooled to a temporary folder as it is compared, and read back document by
        document (:meth:`Agreement.iter_errors`), so memory stays flat; span sets in memory keep
        theirs in memory. On a Dask cluster (``scheduler``) the workers spool into a folder they
        share with this process, beside the listing when ``errors`` is the path it will be written
        to (``--errors FILE``); with ``errors=True``, or when some worker cannot write there (a
        warning says so), the disagreements travel back with the tallies and are kept in this
        process's memory (docs/cluster.md). Without it, :meth:`Agreement.errors` raises
        :class:`~spanagree.errors.UsageError` saying so (nothing is compared again behind your back).
        The first annotator of a pair plays the prediction of :func:`spanagree.score` and the
        second the gold: ``spurious`` = only the first marked it (b), ``missed`` = only the second (c).
    context : int
        Characters of text before and after each disagreement (its ``context_before`` and
        ``context_after``); 0 gives empty strings.
    report : bool or path
        Keep every document's text, spans and classified pairs for the HTML report, spooled to a
        temporary file while comparing (memory stays flat); write it with
        :meth:`Agreement.write_report` (docs/report.md).
        On a Dask cluster (``scheduler``) the workers spool into a folder they share with this
        process: beside the report, when ``report`` is the path it will be written to (else, or
        when some worker cannot write there, the records are kept in memory; docs/cluster.md).

    analyses : sequence of str
        Registered analyses to add, by name (:func:`spanagree.pipeline.analyses.register`): each
        one's figure is ``extras[name]`` (and the JSON's key of that name).
    document_key : {"id", "text"}
        How the copies of a document are paired: by their ids (default), or by their texts when
        tools gave them other ids (each takes the first input's id for the same text;
        :mod:`spanagree.pipeline.document_key`).
    gamma : bool
        Add Mathet et al.'s γ of all annotators (pygamma-agreement 0.5.9's figures, with an exact
        best alignment), γ-cat and γ-k per label, the observed and expected disorders, the
        unitary alignments and the sampling's spread, as ``extras["gamma"]``
        (:mod:`spanagree.measures.gamma`; each document's under ``by_document``; needs
        ``documents="common"``). Each document's continua are sampled where it is compared, so
        ``jobs`` and a cluster share the work; the figures are the same.
    gamma_alpha, gamma_beta, gamma_delta_empty
        The combined dissimilarity's weights of position and category and the cost of a missing
        unit (pygamma's ``CombinedCategoricalDissimilarity``; 1 each).
    gamma_sampler : {"statistical", "shuffle"}
        How chance continua are drawn (pygamma's ``StatisticalContinuumSampler``, its default, or
        ``ShuffleContinuumSampler``).
    gamma_samples : int
        Continua sampled per document (30).
    gamma_precision : float or {"high", "medium", "low"}, optional
        pygamma's ``precision_level``: more samples when the first ones spread too much.
        ``seed`` seeds each document's samples as ``numpy.random.seed(seed)`` seeds pygamma's
        (drawn and reported in ``extras["gamma"]["seed"]`` when not given).
    attributes : bool or list of str, optional
        Add agreement on the spans' attributes (``True``: every attribute; or these names, public
        names as :func:`spanagree.span.compared_attributes` gives them): each pair's a, b, c,
        precision, recall, F1 and, by name, the counts and Cohen's kappa of the values over the
        aligned pairs, as :attr:`Agreement.attributes` (the JSON's ``pairs[].attributes``;
        :mod:`spanagree.measures.attributes`, docs/measures.md).
    match_attributes : list of str or "A,B"
        Attributes that are part of a span's identity (linking: ``["kb_id"]``): spans match only
        when their values agree too (:meth:`spanagree.match.MatchRule.links_agree`, docs/matching.md).
    link_top : int
        With ``match_attributes``: how many of a value's ``|``-separated candidates count (1); on
        ``agree`` the first id of either annotator among the other's first ``link_top``.
    relations : bool
        Compare the documents' relations and events (BRAT's ``R`` and ``E`` lines, ...) on each
        document's span alignment (:mod:`spanagree.relations`: same type, arguments aligned
        role by role; one-to-one), as ``extras["relations"]``: a, b, c, the rates and
        ``by_type`` pooled over the pairs, with the pairs' mean F1; each pair's in
        :attr:`Agreement.relation_pairs` (its ``relations`` in the JSON).
    symmetric_relations : list of str or str, optional
        Relation types that match in either argument order (names, or one comma-separated
        string), besides those the inputs' BRAT ``annotation.conf`` declares symmetric and those
        their Label Studio exports draw ``bi``.
    documents : {"common", "pairwise"}
        Which documents each pair compares. ``"common"``: the documents every annotator has (the
        others are left out with a warning). ``"pairwise"``: each pair compares the documents
        both of its annotators have (round-robin designs, where each document is annotated by
        some of the annotators); a pair with none has null figures; documents only one
        annotator has are left out. The mean F1 is then over the pairs' own F1s, and the
        pooled F1 sums each pair's counts over its own documents (docs/measures.md).

    Returns
    -------
    Agreement

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> ann1 = SpanSet.from_spans("ann1", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "LOC")])
    >>> ann2 = SpanSet.from_spans("ann2", [Span("d", (0, 5), "PER"), Span("d", (10, 15), "LOC")])
    >>> result = agree([ann1, ann2], errors=True)
    >>> result.pooled, result.mean.mean
    (Counts(a=1.0, b=1.0, c=1.0), 0.5)
    >>> [(first, second, item.kind, item.pred.fragments, item.gold.fragments)
    ...  for first, second, item in result.errors()]
    [('ann1', 'ann2', 'partial', ((10, 14),), ((10, 15),))]
    """
    options = RunOptions(match=match, labels=labels, partial_credit=partial_credit, only=only, label_map=label_map,
                         align_whitespace=align_whitespace, align_text=align_text, chance=chance,
                         chance_categories=chance_categories, lang=lang,
                         spacy_model=spacy_model, bootstrap=bootstrap, seed=seed, jobs=jobs, format=format,
                         format_options=format_options, record=options, annotators=annotators, errors=errors,
                         context=context, report=report, documents=documents, unitizing=unitizing, compare=compare,
                         test=test, unit=unit, resamples=resamples, progress=progress, scheduler=scheduler,
                         scheduler_timeout=scheduler_timeout, analyses=tuple(analyses),
                         document_key=document_key, gamma=gamma, gamma_alpha=gamma_alpha,
                         gamma_beta=gamma_beta, gamma_delta_empty=gamma_delta_empty, gamma_sampler=gamma_sampler,
                         gamma_samples=gamma_samples, gamma_precision=gamma_precision, attributes=attributes,
                         match_attributes=match_attributes, link_top=link_top,
                         relations=relations, symmetric_relations=symmetric_relations)
    return agree_with(inputs, options)


def agree_with(inputs, options: RunOptions) -> Agreement:
    """:func:`agree` on one :class:`~spanagree.options.RunOptions` (what the command line builds
    from its flags; :func:`agree` builds it from its keywords)."""
    AGREE.check(options)
    from .pipeline import plain_input

    inputs = [plain_input(item, f"ann{number}") for number, item in enumerate(inputs, 1)]  # plain data: span sets
    ran = execute(AGREE, inputs, options)
    pairwise, names, pairs = options.documents == "pairwise", ran.names, ran.plan.pairs
    compared = ran.accumulator.groups[:ran.plan.token_group]  # the groups that compare pairs
    paths = [input_path(item) for item in ran.inputs]
    if pairwise:
        documents, left_out, own = _pairwise_documents(names, ran.accumulator.orders, pairs, compared, paths)
        tallies = [group.compared.pairs[p] for p, group in enumerate(compared)]
        counted = [tally.pair(names[i], names[j], on) for tally, (i, j), on in zip(tallies, pairs, own)]
        for pair in counted:
            if not pair.by_document:
                warnings.warn(f"{pair.first} × {pair.second}: no document annotated by both; the pair's figures "
                              "are null", SpanagreeWarning, stacklevel=find_stack_level())
        whitespace_aligned = sum(group.texts.whitespace_aligned for group in compared)
    else:
        documents, left_out = _common_documents(names, ran.accumulator, paths)
        tallies = ran.accumulator.groups[0].compared.pairs
        counted = [tally.pair(names[i], names[j], documents) for (i, j), tally in zip(pairs, tallies)]
        whitespace_aligned = ran.accumulator.groups[0].texts.whitespace_aligned
    rule, (label_map, only) = options.rule, options.selection
    result = finished(names, documents, rule, counted, ran.accumulator.notes, whitespace_aligned, left_out,
                      options=options.record, match=options.match, labels=options.labels, only=only,
                      label_map=label_map, align_whitespace=options.align_whitespace, design=options.documents,
                      align_text=options.align_text, chance_categories=options.chance_categories)
    result.options.update(options.attributes_echo(result.options))
    if not pairwise:
        aligned = aligned_texts(ran.accumulator.groups[0].texts, documents)
        if aligned is not None:
            result.extras["aligned_texts"] = aligned
            result.notes += aligned_note(aligned)
    result.notes += label_warnings(ran.accumulator.labels, [(p.first, p.tally.first, p.second, p.tally.second)
                                                            for p in counted] if rule.strict_labels else [],
                                   label_map=label_map, only=only)
    tokens_texts = ran.accumulator.groups[-1].texts  # the token group's (pairwise), else the one group's
    if options.chance and tokens_texts.error is not None:
        raise tokens_texts.error[1]  # (a pair has met it first: kept for safety)
    groups = [group.compared for group in ran.accumulator.groups]
    joined = {a.key: a.joined([g.analyses.get(a.key) for g in (groups if a.every_group else groups[:len(compared)])])
              for a in ran.analyses}
    units = joined.get("units")
    result.extras.update(finish_analyses(ran, joined, Finished(
        "agree", names, documents, [(p.first, p.second, t) for p, t in zip(counted, tallies)], result,
        units=units, group=ran.plan.token_group)))
    return result


agree.__doc__ = documented(agree.__doc__)  # the containers, from the format registry


def _common_documents(names: list[str], accumulator, paths: list) -> tuple[list[str], dict]:
    """The documents every annotator has whose texts agree, and what was left out (warned)."""
    common, left_out = common_documents(names, accumulator.orders, paths=paths)
    (group,) = accumulator.groups
    texts_differ = announce_texts(group.texts, common)
    if texts_differ:
        left_out["texts_differ"] = texts_differ
    documents = [d for d in common if d not in group.texts.left_out]
    if not documents:
        raise SpanagreeError(f"no document left to compare: the texts of all {len(common)} differ "
                             "beyond whitespace")
    return documents, left_out


def _pairwise_documents(names: list[str], orders: list, pairs: list, compared: list, paths: list):
    """``documents="pairwise"``: every document some pair compared (in the first annotators'
    order), what was left out (warned), and each pair's own documents."""
    shared, left_out = pairwise_documents(names, orders, pairs, paths=paths)
    own = []  # each pair's documents, texts that differ left out
    texts_differ: list[str] = []
    for group, on in zip(compared, shared):
        texts_differ += announce_texts(group.texts, on)
        own.append([d for d in on if d not in group.texts.left_out])
    if texts_differ:
        left_out["texts_differ"] = list(dict.fromkeys(texts_differ))
    documents = list(dict.fromkeys(d for on in own for d in on))
    if not documents:
        raise SpanagreeError("no document left to compare: the texts of every shared document differ "
                             "beyond whitespace")
    return in_first_order(documents, orders), left_out, own


class AgreeCommand:
    """``agree``'s part of the command skeleton (:mod:`spanagree.pipeline.command`): every pair
    of annotators compared, on the documents all have (or each pair's own: ``"pairwise"``)."""

    name, also = "agree", ()

    def check(self, options: RunOptions) -> None:
        """The options checked before anything is read (the first mistake is the one reported)."""
        check_jobs(options.jobs)
        check_context(options.context)
        from .relations import check_relation_options

        check_relation_options(options)
        from .measures.significance import check_test_options

        check_test_options(options.test, options.unit, options.resamples)
        from .measures.tokens import check_categories

        check_categories(options.chance_categories)
        if options.documents not in DOCUMENT_DESIGNS:
            raise UsageError(f"unknown document design {options.documents!r}; choose one of: "
                             f"{', '.join(DOCUMENT_DESIGNS)}")
        if options.unitizing and options.documents == "pairwise":
            raise UsageError("{option} needs every annotator on every document (Krippendorff's unitizing alpha has "
                             "no missing annotators); use {common}", option="unitizing",
                             common=parameter("documents", "common"))
        if options.gamma:
            from .measures.gamma import check_gamma_options

            if options.documents == "pairwise":
                raise UsageError("{option} needs every annotator on every document (γ aligns all annotators' units at "
                                 "once); use {common}", option="gamma", common=parameter("documents", "common"))
            check_gamma_options(options)

    def expanded(self, inputs: list, options: RunOptions) -> list:
        if len(inputs) < 2:
            raise UsageError(f"agree needs at least two annotators; the inputs hold {len(inputs)}")
        if options.compare and len(inputs) < 3:
            raise UsageError("{option} compares pairs of annotators: give three annotators or more", option="compare")
        options.rule, options.selection  # the rule and the labels checked before the tokenizer is loaded
        if not options.align_text:  # CoNLL inputs that keep the first's tokens in other documents: cut along its
            from .formats.resegment import resegmented

            inputs = [inputs[0], *resegmented(inputs[0], inputs[1:], options.format, options.format_options,
                                               reference="the first input's")]
        return inputs

    def plan(self, inputs: list, options: RunOptions):
        level = None
        if options.chance:  # the tokenizer chosen (and loaded: a language or pipeline that cannot be is bad usage)
            from .measures.tokens import TokenLevel, tokenizer_for
            from .pipeline import input_format

            level = TokenLevel(tokenizer_for(inputs[:1] if options.align_text else inputs,
                                             partial(input_format, format=options.format)),
                               options.lang, options.spacy_model, options.labels, options.chance_categories)
            level.tokenize()
        names = unique_names(inputs)
        k = len(inputs)
        pairs = list(itertools.combinations(range(k), 2))
        if options.documents == "pairwise":
            groups = [Group(pair) for pair in pairs]
            layouts = [([(p, p, 0, 1)], list(pair), len(pairs)) for p, pair in enumerate(pairs)]
        else:
            groups = [Group(tuple(range(k)))]
            layouts = [([(p, p, i, j) for p, (i, j) in enumerate(pairs)], list(range(k)), len(pairs))]
        token_group = None
        if options.chance and options.documents == "pairwise":  # the tokens of each document among those who have it
            token_group = len(groups)
            groups.append(Group(tuple(range(k)), present=True))
            layouts.append(None)
        return groups, Plan("agree", names, pairs, token_group, {token_group: level}), layouts

    def spooling(self, client, inputs: list, options: RunOptions):
        # the report's records and the listing's items are spooled per document: to a temporary
        # folder, or beside the report and the --errors file on a cluster (span sets in memory,
        # compared here, keep their items in memory: their spans are the caller's own objects)
        in_memory = client is None and any(isinstance(item, SpanSet) for item in inputs)
        return spooled_outputs(client, inputs, options.report, False if in_memory else options.errors)

    def comparison(self, plan, layouts, analyses, folders, client, options):
        return PairsComparison(plan.rule, layouts, analyses)


AGREE = AgreeCommand()


def finished(names: list[str], documents: list[str], rule: MatchRule, pairs: list[PairCounts],
             notes: list[list[str]], whitespace_aligned: int, left_out: dict[str, list[str]], *,
             options, match, labels, only, label_map, align_whitespace, design: str = "common",
             align_text: bool = False, chance_categories: str = "label") -> Agreement:
    """The :class:`Agreement` of compared pairs, with the warnings about them (duplicates, 0/0)."""
    duplicates = duplicates_per_annotator(pairs, len(names))
    for name, count in zip(names, duplicates):
        warn_duplicates(name, count, rule)
    all_notes = [f"{name}: {note}" for name, own in zip(names, notes) for note in own]
    if whitespace_aligned:
        all_notes.append(f"{whitespace_aligned} document(s) compared through their "
                         "non-whitespace characters (texts differ only in whitespace)")
    warn_undefined(pairs)
    # The caller's record of the run (the CLI's arguments) first; the values as understood win.
    opts = {**(options or {}), "match": match, "labels": labels, "partial_credit": rule.partial_credit,
            "only": sorted(only) if only else None, "map": label_map or None,
            "align_whitespace": align_whitespace, "documents": design, "align_text": align_text}
    if chance_categories != "label":  # (the default's documents stay as they were)
        opts["chance_categories"] = chance_categories
    return Agreement(names, documents, rule, pairs, opts, left_out, all_notes)


def warn_undefined(pairs: list[PairCounts]) -> None:
    """One warning per pair whose precision, recall or F1 is 0/0, and what the mean skips, warned
    from :func:`finished` (the warnings name the line that called ``agree``)."""
    skipped = 0
    for pair in pairs:
        undefined = undefined_rates(pair.counts)
        if undefined and pair.by_document:  # a pair with no document was warned about already
            warnings.warn(f"{pair.first} × {pair.second}: {', '.join(undefined)} undefined (0/0), reported as NaN",
                          SpanagreeWarning, stacklevel=find_stack_level())
        skipped += "F1" in undefined
    if skipped:
        warnings.warn(f"the mean pairwise F1 skips {skipped} of {len(pairs)} pair(s) whose F1 is undefined",
                      SpanagreeWarning, stacklevel=find_stack_level())


def duplicates_per_annotator(pairs: list[PairCounts], k: int) -> list[int]:
    """Duplicates each annotator had (the same in every pair it is part of)."""
    found = [0] * k
    seen = [False] * k
    for (i, j), pair in zip(itertools.combinations(range(k), 2), pairs):
        if not seen[i]:
            found[i], seen[i] = pair.duplicates[0], True
        if not seen[j]:
            found[j], seen[j] = pair.duplicates[1], True
    return found
