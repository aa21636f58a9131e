"""Optional analyses as pluggable per-document tallies.

A run aligns every pair of copies of every document and adds the counts up (the core every
command shares: :class:`~spanagree.pipeline.compare.PairTally`). Everything else a run may be
asked for is an **analysis**: one small object with the same four steps, in the spirit of
pyannote.metrics' components and scikit-learn's scorers —

1. ``new()``: an empty tally;
2. ``observe(tally, batch)``: one batch of documents compared in one group of copies
   (a :class:`Batch`: the copies, the documents, the pairs compared and, for the analyses that ask
   for them, each pair's alignments and classified spans);
3. ``tally += other``: tallies of disjoint batches and shards add up (in document order), so an
   analysis runs in one process, under ``jobs`` and on a Dask cluster alike, with the same result;
4. ``finish(tally, finished)``: the figure, under the analysis's key in the result's ``extras``
   (its JSON key), or whatever the result keeps of it.

Analyses are registered in :data:`ANALYSES` (name → factory), like the measures: a factory takes
the run's :class:`~spanagree.options.RunOptions` and its :class:`Plan` and returns the analysis,
or ``None`` when the run does not ask for it. A new analysis is one more entry; no command
function changes (``tests/test_analyses.py`` adds a made-up one and runs it under ``jobs`` and on
a cluster). The built-in ones:

=========================  ========================================================================
``chance``                 token-level agreement with d known (``chance=True``): :class:`Tokens`
``units``                  each document's counts per sentence (``unit="sentence"``, for the next two)
``bootstrap``              percentile intervals over documents or sentences (``bootstrap=N``)
``alpha_u``                Krippendorff's unitizing alpha (``unitizing=True``): :class:`Unitizing`
``comparisons``            paired tests between pairs or predictions (``compare=True``)
``errors``                 every disagreement listed, per document (``errors=True``): :class:`Listing`
``report``                 each document's record for the HTML report (``report=True``): :class:`ReportRecords`
``error_kinds``            ``score``'s error analysis, always on in ``score``: :class:`ErrorKinds`
``gamma``                  Mathet et al.'s γ, γ-cat and γ-k (``gamma=True``): :class:`Gamma`
``attributes``             agreement on the spans' attributes (``attributes=True``): :class:`Attributes`
``relations``              relations and events matched on the spans' alignment (``relations=True``): :class:`Relations`
``attribute_comparisons``  paired tests on the attributes (``attributes`` and ``compare``): :class:`AttributeComparisons`
=========================  ========================================================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from ..errorkinds import error_keys, item, keys_of, records_of
from ..match import Alignment, MatchRule
from ..slotted import Slotted
from ..span import SpanSet
from .compare import PairTally, compare_pair


@dataclass
class Batch:
    """One batch of documents compared in one group of copies: what every analysis observes.

    Attributes
    ----------
    group : int
        The group's number in the run (:class:`~spanagree.pipeline.sequential.Group`).
    spansets : list of SpanSet
        The group's copies, texts reconciled, labels selected, in the group's member order.
    documents : list of str
        The documents compared, in the reference's order.
    pairs : list of (int, int, int, int)
        The pairs compared: ``(index, number, first, second)`` — the pair's index in the
        group's tally, its number in the run (the report's numbering), and the places in
        :attr:`spansets` of its first and second side (the prediction and the gold in ``score``).
    members : list of int
        Each copy's annotator number in the run.
    alignments : list of list of Alignment, or None
        Per pair of :attr:`pairs`, each document's alignment (when an analysis asked for them).
    """

    group: int
    spansets: list[SpanSet]
    documents: list[str]
    pairs: list[tuple[int, int, int, int]]
    members: list[int]
    alignments: list[list] | None = None
    rule: Any = None
    _records: dict = field(default_factory=dict, repr=False)

    def records(self, k: int) -> list[list]:
        """Per document, the classified spans of pair ``k`` of :attr:`pairs`
        (:func:`spanagree.errorkinds.records_of`: ``(kind, aligned, credit, gold, pred)``), made once
        for every analysis that reads them."""
        if not self.classified(k):
            self._records[k] = [records_of(alignment) for alignment in self.alignments[k]]
        return self._records[k]

    def classified(self, k: int) -> bool:
        """Whether pair ``k``'s spans were classified already (:meth:`records`: an analysis asked)."""
        return k in self._records

    @cached_property
    def texts(self) -> dict[str, str | None]:
        """Each document's text: the first copy's that has one."""
        return {d: next((s.documents[d].text for s in self.spansets if d in s.documents
                         and s.documents[d].text is not None), None) for d in self.documents}


class Analysis:
    """The base of an analysis: an empty tally of ``None``, nothing observed, nothing finished.

    Subclasses set :attr:`key` (their key in ``extras`` and the JSON), :attr:`alignments` when
    :meth:`observe` reads :attr:`Batch.alignments`, and :attr:`every_group` when they observe the
    groups that compare no pair (``agree(documents="pairwise", chance=True)``'s token group).
    """

    key: str = ""
    alignments: bool = False
    every_group: bool = False
    #: ``score``: finished once over every prediction (the :class:`~spanagree.scoring.Scores`
    #: as :attr:`Finished.result`), not with each prediction's figures.
    across_predictions: bool = False

    def new(self) -> Any:
        return None

    def observe(self, tally: Any, batch: Batch) -> None:
        return None

    def finish(self, tally: Any, finished: "Finished") -> Any:
        """The analysis's figure (``None``: nothing for ``extras``)."""
        return None

    def joined(self, tallies: list) -> Any:
        """The tallies of several groups as one (``agree(documents="pairwise")``: a group per
        pair), added up in group order."""
        total = None
        for tally in tallies:
            if tally is None:
                continue
            if total is None:
                total = tally
            else:
                total += tally
        return total


@dataclass
class Plan:
    """What a run's analyses are made for: the command, its span sets and how they are compared.

    ``folders`` holds where per-document outputs are spooled: ``"report"`` and ``"errors"`` (a
    :class:`~spanagree.pipeline.spool.SpoolFolder` or ``MemoryFolder``, which the spools made in
    it own, or ``None`` to keep them in plain dictionaries), as the command's spooling chose them.
    """

    command: str
    names: list[str]
    pairs: list[tuple[int, int]]
    token_group: int | None = None
    levels: dict | None = None
    folders: dict = field(default_factory=dict)
    rule: Any = None
    #: The run's inputs, containers expanded (paths, streams, span sets), as the command ordered them.
    inputs: list = field(default_factory=list)


@dataclass
class Finished:
    """What an analysis finishes from: one result's pairs, documents and names.

    ``pairs`` gives, per pair, ``(first name, second name, tally)`` where ``tally`` is the
    pair's :class:`~spanagree.pipeline.compare.PairTally` (counts per document, units); ``result``
    is the :class:`~spanagree.agreement.Agreement` or :class:`~spanagree.scoring.Score` being
    finished (``score``'s comparisons: the :class:`~spanagree.scoring.Scores` list).
    """

    command: str
    names: list[str]
    documents: list[str]
    pairs: list[tuple]
    result: Any
    units: list | None = None
    group: int | None = None


class Tokens(Analysis):
    """``chance``: each document's tokens labelled by each copy, tallied where the copies are
    compared (:class:`~spanagree.measures.tokens.TokenTally`), and the token-level figures.

    ``levels`` maps a group to its :class:`~spanagree.measures.tokens.TokenLevel` (``None``:
    every group); ``sides``: ``"group"`` labels the tokens by every copy of the group
    (``agree``), ``"pair"`` by the pair's first and second (``score``: prediction, gold);
    ``present``: a copy that lacks a document did not see it."""

    key = "chance"
    every_group = True

    def __init__(self, levels: dict, sides: str = "group", present: bool = False):
        self.levels, self.sides, self.present = levels, sides, present

    def new(self):
        from ..measures.tokens import TokenTally

        return TokenTally()

    def level(self, group: int):
        return self.levels.get(group, self.levels.get(None))

    def observe(self, tally, batch: Batch) -> None:
        level = self.level(batch.group)
        if level is None:
            return
        if self.sides == "pair":
            ((_, _, i, j),) = batch.pairs
            spansets = [batch.spansets[i], batch.spansets[j]]
        else:
            spansets = batch.spansets
        level.add(tally, spansets, batch.documents, present=self.present)

    def finish(self, tally, finished: Finished):
        from functools import partial

        level = self.level(finished.group)
        figures = tally.agreement(finished.names, finished.documents, tokenizer=level.name,
                                  labels=level.labels).to_dict()
        if hasattr(finished.result, "chance_of"):  # each document's figures, made when asked for
            finished.result.chance_of = partial(document_chance, tally, finished.names, level)
        return figures


def document_chance(tally, names: list[str], level, doc_id: str) -> dict | None:
    """One document's token-level figures (the ``"chance"`` part of its ``by_document`` entry),
    ``None`` when its tokens were not tallied."""
    found = tally.document_agreement(doc_id, names, tokenizer=level.name, labels=level.labels)
    return None if found is None else found.to_dict()


class Unitizing(Analysis):
    """``alpha_u``: every annotator's spans on the continuum of each document
    (:class:`~spanagree.measures.unitizing.UnitizingTally`), and α_U."""

    key = "alpha_u"

    def __init__(self, annotators: int):
        self.annotators = annotators

    def new(self):
        from ..measures.unitizing import UnitizingTally

        return UnitizingTally(self.annotators)

    def observe(self, tally, batch: Batch) -> None:
        for doc_id in batch.documents:
            copies = [s.documents.get(doc_id) for s in batch.spansets]
            spans = [copy.spans if copy is not None else [] for copy in copies]
            text = next((c.text for c in copies if c is not None and c.text is not None), None)
            length = len(text) if text is not None else max(
                (end for own in spans for span in own for _, end in span.fragments), default=0)
            tally.add_document(spans, length)

    def finish(self, tally, finished: Finished):
        from ..measures.unitizing import alpha_u

        return alpha_u(tally)


class Gamma(Analysis):
    """``gamma``: each document's γ figures (:func:`spanagree.measures.gamma.document_gamma`:
    its best alignment and its sampled continua's, computed where the document is compared, so
    the work spreads over ``jobs`` and a cluster's workers), and γ, γ-cat and γ-k of the corpus
    (:func:`spanagree.measures.gamma.gamma_figures`). ``names``: the annotators' names (the
    continuum takes them in the order of their names, as pygamma does)."""

    key = "gamma"

    def __init__(self, settings, names: list[str]):
        self.settings, self.names = settings, names

    def new(self):
        from ..measures.gamma import GammaTally

        return GammaTally()

    def observe(self, tally, batch: Batch) -> None:
        from ..measures.gamma import continuum_of, document_gamma

        order = sorted(range(len(batch.spansets)), key=lambda place: self.names[batch.members[place]])
        for doc_id in batch.documents:
            copies = [batch.spansets[place].documents.get(doc_id) for place in order]
            continuum = continuum_of([copy.spans if copy is not None else [] for copy in copies])
            tally.documents[doc_id] = document_gamma(continuum, self.settings)

    def finish(self, tally, finished: Finished):
        from ..measures.gamma import document_figures, gamma_figures

        import math
        import warnings

        from ..errors import SpanagreeWarning, find_stack_level

        documents = [tally.documents.get(d) for d in finished.documents]
        finished.result.gamma_documents = {d: document_figures(tally.documents.get(d)) for d in finished.documents}
        figures = gamma_figures(documents, self.settings)
        undefined = [name for name, value in [("γ", figures["gamma"]), *((f"γ-k of {label}", value) for label, value
                                                                        in figures["gamma_k"].items())]
                     if value is not None and math.isnan(value)]
        if undefined:
            warnings.warn(f"{', '.join(undefined)} undefined (the expected disorder is 0), reported as NaN",
                          SpanagreeWarning, stacklevel=find_stack_level())
        return figures


def _gamma(options, plan: Plan):
    if not options.gamma:
        return None
    from ..measures.gamma import gamma_settings

    return Gamma(gamma_settings(options), plan.names)


class PerPair(list):
    """One tally per pair, adding up pair by pair (a dictionary by updating it)."""

    def __iadd__(self, other: "PerPair") -> "PerPair":
        for mine, theirs in zip(self, other):
            if isinstance(mine, dict):
                mine.update(theirs)
            else:
                mine += theirs
        return self


class SentenceUnits(Analysis):
    """``units``: each document's ``(a, b, c)`` per sentence, per pair (``unit="sentence"``:
    what :class:`Bootstrap` resamples and :class:`Comparisons` swap; :mod:`spanagree.pipeline.units`)."""

    key = "units"

    def __init__(self, pairs: int, lang: str | None):
        self.pairs, self.lang = pairs, lang

    def new(self):
        return PerPair({} for _ in range(self.pairs))

    def observe(self, tally, batch: Batch) -> None:
        from .units import sentence_units

        for index, _, i, j in batch.pairs:
            tally[index].update(sentence_units(batch.spansets[i], batch.spansets[j], batch.spansets[0],
                                                  batch.documents, batch.rule, self.lang))


class Bootstrap(Analysis):
    """``bootstrap``: 95% percentile intervals from resampling the documents (or sentences)."""

    key = "bootstrap"

    def __init__(self, resamples: int, seed: int | None, unit: str):
        self.resamples, self.seed, self.unit = resamples, seed, unit

    def finish(self, tally, finished: Finished):
        from ..measures.bootstrap import bootstrap_intervals
        from .units import unit_rows

        rows = unit_rows([pair for _, _, pair in finished.pairs], finished.documents, self.unit, finished.units)
        return bootstrap_intervals(rows, n=self.resamples, seed=self.seed, unit=self.unit,
                                   documents=len(finished.documents),
                                   pairs=[[first, second] for first, second, _ in finished.pairs],
                                   mean=finished.command == "agree")


class Comparisons(Analysis):
    """``comparisons``: every two pairs of annotators (``agree``) or predictions (``score``)
    tested against each other on F1, precision and recall, paired over the units every one of
    them compared (:func:`spanagree.measures.significance.paired_comparisons`)."""

    key = "comparisons"
    across_predictions = True

    def __init__(self, test: str, unit: str, resamples: int, seed: int | None):
        self.test, self.unit, self.resamples, self.seed = test, unit, resamples, seed

    def finish(self, tally, finished: Finished):
        import warnings

        from ..errors import Parameter, SpanagreeWarning, find_stack_level, parameter
        from ..measures.significance import paired_comparisons, warn_few_units
        from .units import unit_rows

        tallies = [pair for _, _, pair in finished.pairs]
        shared = [d for d in finished.documents if all(d in pair.by_document for pair in tallies)]
        rows = unit_rows(tallies, shared, self.unit, finished.units)
        command = finished.command
        what = Parameter(f"{command}(compare=True)", f"{command} --compare")
        if len(rows) < 2:
            if command == "agree":
                warning = SpanagreeWarning(f"{{compare}}: {len(rows)} {self.unit}(s) compared by every pair: at "
                                           "least two are needed; no interval and no p-value", compare=what)
            else:
                warning = SpanagreeWarning(f"{{compare}}: {len(rows)} {self.unit}(s): at least two are needed to "
                                           "resample or swap; no interval and no p-value"
                                           + (" ({sentence} splits them)" if self.unit == "document" else ""),
                                           compare=what, sentence=parameter("unit", "sentence"))
            warnings.warn(warning, stacklevel=find_stack_level())
        warn_few_units(what, len(rows), self.unit, self.test)
        names = ([f"{first} × {second}" for first, second, _ in finished.pairs] if finished.command == "agree"
                 else [first for first, _, _ in finished.pairs])
        return paired_comparisons(rows, names, test=self.test, unit=self.unit, resamples=self.resamples,
                                  seed=self.seed)


class Listing(Analysis):
    """``errors``: each pair's listed items per document — every disagreement (``agree``) or
    every classified span (``score``: its error listing) — spooled to ``folder`` as they are
    compared (:class:`~spanagree.pipeline.spool.ObjectSpool`), or kept in memory (``None``)."""

    key = "errors"
    alignments = True

    def __init__(self, pairs: int, folder, context: int, every_kind: bool):
        self.pairs, self.folder, self.context = pairs, folder, context
        self.every_kind = every_kind    # score: correct items too, and a document without items kept

    def new(self):
        from .spool import ObjectSpool

        if self.folder is None:
            return PerPair({} for _ in range(self.pairs))
        return PerPair(ObjectSpool(self.folder) for _ in range(self.pairs))

    def observe(self, tally, batch: Batch) -> None:
        context = self.context
        texts = batch.texts if not self.every_kind else {  # score: the gold's text
            d: batch.spansets[0].documents[d].text for d in batch.documents}
        for k, (index, _, first, _) in enumerate(batch.pairs):
            kept = tally[index]
            for doc_id, records in zip(batch.documents, batch.records(k)):
                text = texts[doc_id]
                found = [item(doc_id, kind, aligned, credit, gold, pred, text, context)
                         for kind, aligned, credit, gold, pred in records if self.every_kind or kind != "correct"]
                for listed in found:
                    if listed.kind == "written_otherwise":  # the prediction's text as its file writes it
                        listed.pred_text = batch.spansets[first].documents[doc_id].written_text(listed.pred)
                if found or self.every_kind:
                    kept[doc_id] = found

    def finish(self, tally, finished: Finished):
        """The result's listing: each pair's items read back document by document as they are
        iterated (a spool owns its folder: it lives as long as the result)."""
        from functools import partial

        for spool in tally:
            if not isinstance(spool, dict):
                spool.close()
        kept = [(spool, list(pair.by_document) if finished.command == "agree" else finished.documents)
                for spool, (_, _, pair) in zip(tally, finished.pairs)]
        finished.result.listing = partial(spooled_listings, kept)
        return None


def spooled_listings(kept: list) -> list:
    """Per pair, the items kept while comparing (``kept``: per pair, the items by document and
    its documents), read document by document as they are iterated."""
    return [_spooled(items, documents) for items, documents in kept]


def _spooled(items, documents: list[str]):
    for doc_id in documents:
        yield from items.get(doc_id, ())


class ReportRecords(Analysis):
    """``report``: each document's record for the HTML report (its text, every copy's spans,
    each pair's classified spans: docs/report.md), spooled as it is compared
    (:class:`~spanagree.pipeline.spool.DocumentSpool`)."""

    key = "report"
    alignments = True

    def __init__(self, folder: str):
        self.folder = folder

    def new(self):
        from .spool import DocumentSpool

        return DocumentSpool(self.folder)

    def observe(self, tally, batch: Batch) -> None:
        spool_documents(tally, batch.spansets, batch.documents, [(i, j) for _, _, i, j in batch.pairs],
                        [batch.records(k) for k in range(len(batch.pairs))], members=batch.members,
                        numbers=[number for _, number, _, _ in batch.pairs])

    def joined(self, tallies: list):
        """Records of the same document written by different groups become one
        (:meth:`~spanagree.pipeline.spool.DocumentSpool.join`)."""
        spool = tallies[0]
        for other in tallies[1:]:
            spool.join(other)
        return spool

    def finish(self, tally, finished: Finished):
        finished.result.spool = tally  # (a spool owns its folder: it lives as long as the result)
        return None


class Tallies(Slotted):
    """What one group's comparison adds up: each pair's :class:`~spanagree.pipeline.compare.PairTally` (in the group's
    order) and each analysis's tally by its key (:mod:`spanagree.pipeline.analyses`); both add
    up with ``+=``, pair by pair and analysis by analysis."""

    __slots__ = ("pairs", "analyses")

    def __init__(self, pairs: list, analyses: dict):
        self.pairs = pairs
        self.analyses = analyses

    def __iadd__(self, other: "Tallies") -> "Tallies":
        for mine, theirs in zip(self.pairs, other.pairs):
            mine += theirs
        for key, theirs in other.analyses.items():
            mine = self.analyses.get(key)
            if mine is not None and theirs is not None:
                mine += theirs
                self.analyses[key] = mine
        return self


def _kept(doc_id: str, alignment: Alignment) -> Alignment:
    return alignment


class PairsComparison:
    """The comparison every command that aligns pairs runs (:class:`~spanagree.pipeline.sequential.Comparison`):
    each pair of a group's copies aligned on each document under ``rule``, counted into its
    :class:`~spanagree.pipeline.compare.PairTally`, and every analysis shown the batch (:class:`~spanagree.pipeline.analyses.Batch`).

    Parameters
    ----------
    rule : MatchRule
    layouts : list
        Per group: ``(pairs, members, tallied)``, where ``pairs`` lists the pairs the group
        compares as ``(index, number, first, second)`` (see :class:`~spanagree.pipeline.analyses.Batch`),
        ``members`` each copy's annotator number, and ``tallied`` the number of pair tallies of
        the group's tally; ``None`` for a group that compares no pair (only the analyses that
        observe every group see it).
    analyses : list of Analysis
    """

    def __init__(self, rule: MatchRule, layouts: list, analyses: list):
        self.rule = rule
        self.layouts = layouts
        self.analyses = analyses
        self.alignments = any(analysis.alignments for analysis in analyses)

    def tally(self) -> Tallies:
        tallied = max((layout[2] for layout in self.layouts if layout is not None), default=0)
        return Tallies([PairTally() for _ in range(tallied)], {a.key: a.new() for a in self.analyses})

    def compare(self, tally: Tallies, group: int, spansets: list[SpanSet], documents: list[str]) -> None:
        layout = self.layouts[group]
        if layout is None:
            batch = Batch(group, spansets, documents, [], list(range(len(spansets))), rule=self.rule)
            for analysis in self.analyses:
                if analysis.every_group:
                    analysis.observe(tally.analyses[analysis.key], batch)
            return
        pairs, members, _ = layout
        batch = Batch(group, spansets, documents, pairs, members, rule=self.rule)
        rule = self.rule
        if self.alignments:
            batch.alignments = []
            for index, _, i, j in pairs:
                counts = compare_pair(spansets[i], spansets[j], documents, rule, each=_kept)
                tally.pairs[index].add(counts)
                batch.alignments.append(counts.each)
        else:
            for index, _, i, j in pairs:
                tally.pairs[index].add(compare_pair(spansets[i], spansets[j], documents, rule))
        for analysis in self.analyses:
            analysis.observe(tally.analyses[analysis.key], batch)


class ErrorKinds(Analysis):
    """``score``'s error analysis: every item's ``(kind, gold label, predicted label)`` counted
    (:func:`spanagree.errorkinds.error_keys`; the correct pairs under exact boundaries and strict
    labels are counted from the per-label counts when the result is made)."""

    key = "error_kinds"
    alignments = True

    def __init__(self, rule):
        self.rule = rule

    def new(self):
        from collections import Counter

        return Counter()

    def observe(self, tally, batch: Batch) -> None:
        rule = self.rule
        keys: list[tuple] = []
        for k in range(len(batch.pairs)):
            if batch.classified(k):  # classified already (the listing, the report): counted from them
                for records in batch.records(k):
                    keys += keys_of(records, rule)
            else:
                for doc_id, alignment in zip(batch.documents, batch.alignments[k]):
                    keys += error_keys(doc_id, alignment, rule)
        tally.update(keys)


class Attributes(Analysis):
    """``attributes``: each pair's attribute counts per document, from its alignment
    (:func:`spanagree.measures.attributes.attribute_counts`), and their figures
    (:func:`~spanagree.measures.attributes.attribute_figures`): in ``score`` the result's
    ``extras["attributes"]``, in ``agree`` each pair's (:attr:`spanagree.agreement.Agreement.attributes`).
    ``names``: the attributes compared (``()``: every one). With ``bootstrap`` (resamples, seed)
    the documents are resampled for the attributes' F1, precision and recall too
    (:func:`~spanagree.measures.attributes.attribute_intervals`)."""

    key = "attributes"
    alignments = True

    def __init__(self, pairs: int, names: tuple, bootstrap: tuple | None = None):
        self.pairs, self.names, self.bootstrap = pairs, names, bootstrap

    def new(self):
        return PerPair({} for _ in range(self.pairs))

    def observe(self, tally, batch: Batch) -> None:
        from ..measures.attributes import attribute_counts

        names = self.names
        for k, (index, _, _, _) in enumerate(batch.pairs):
            kept = tally[index]
            for doc_id, alignment in zip(batch.documents, batch.alignments[k]):
                kept[doc_id] = attribute_counts(alignment, names)

    def finish(self, tally, finished: Finished):
        from ..measures.attributes import attribute_figures, attribute_intervals, summed

        if finished.command == "score":
            compared = [(finished.names[0], tally[0], finished.documents)]
        else:
            compared = [(f"{first} × {second}", documents, [d for d in finished.documents if d in pair.by_document])
                        for documents, (first, second, pair) in zip(tally, finished.pairs)]
        figures = []
        for what, documents, ids in compared:
            found = attribute_figures(summed(documents, ids), self.names, what=what)
            if self.bootstrap is not None:
                found["bootstrap"] = attribute_intervals(documents, ids, *self.bootstrap)
            figures.append(found)
        if finished.command == "score":
            finished.result.attribute_tally = tally[0]
            return figures[0]
        finished.result.attributes = figures
        finished.result.attribute_tally = list(tally)
        return None


class AttributeComparisons(Analysis):
    """``attribute_comparisons``: with ``attributes`` and ``compare``, every two pairs of
    annotators (``agree``) or predictions (``score``) tested against each other on the F1,
    precision and recall of their attributes (every attribute compared), paired over the
    documents every one of them compared, each document's attribute a, b, c a unit
    (:func:`spanagree.measures.significance.paired_comparisons`, as for the spans, whatever
    ``unit``: attributes are counted per document). It reads the tallies :class:`Attributes`
    left on the result, so it finishes after it; in ``score`` it finishes once, over every
    prediction (:attr:`across_predictions`)."""

    key = "attribute_comparisons"
    across_predictions = True

    def __init__(self, test: str, resamples: int, seed: int | None):
        self.test, self.resamples, self.seed = test, resamples, seed

    def finish(self, tally, finished: Finished):
        from ..measures.significance import paired_comparisons

        if finished.command == "score":  # the Scores, one per prediction
            tallies = [result.attribute_tally for result in finished.result]
            documents = [result.documents for result in finished.result]
            names = [result.prediction for result in finished.result]
        else:
            tallies = finished.result.attribute_tally
            documents = [[d for d in finished.documents if d in pair.by_document] for _, _, pair in finished.pairs]
            names = [f"{first} × {second}" for first, second, _ in finished.pairs]
        return paired_comparisons(attribute_rows(tallies, shared_documents(documents)), names, test=self.test,
                                  unit="document", resamples=self.resamples, seed=self.seed)


def shared_documents(documents: list[list[str]]) -> list[str]:
    """The documents of the first list that every list holds, in the first's order: those on
    which pairs (or predictions) are compared."""
    held = [set(own) for own in documents]
    return [d for d in documents[0] if all(d in own for own in held)] if documents else []


def attribute_rows(tallies: list[dict], documents: list[str]) -> list[list[tuple]]:
    """Per document, each tally's attribute ``(a, b, c)`` over every attribute (``(0, 0, 0)``
    where the document has none): the rows the paired tests swap."""
    from ..measures.attributes import AttributeCounts

    empty = AttributeCounts()
    return [[own.get(doc_id, empty).counts().astuple() for own in tallies] for doc_id in documents]


def _attributes(options, plan: Plan):
    if options.attribute_names is None:
        return None
    bootstrap = (options.bootstrap, options.seed) if options.bootstrap else None
    return Attributes(len(plan.pairs), options.attribute_names, bootstrap)


class Relations(Analysis):
    """``relations``: each pair's relations and events compared on each document's span alignment
    (:func:`spanagree.relations.compared_relations`), counted per document and type
    (:class:`~spanagree.relations.RelationTally`), and their figures: ``score``'s per prediction;
    ``agree``'s per pair (:attr:`~spanagree.agreement.Agreement.relation_pairs`, each pair's
    ``relations`` in the JSON) and pooled over the pairs, with their mean F1. ``symmetric``: the
    types that match in either argument order."""

    key = "relations"
    alignments = True

    def __init__(self, pairs: int, symmetric: frozenset, rule, listed: bool = False, context: int = 0,
                 resampling: dict | None = None):
        self.pairs, self.symmetric, self.rule = pairs, symmetric, rule
        self.listed, self.context = listed, context  # errors=True: each relation kept for the listings
        # bootstrap and compare: intervals and tests of the relations' figures too (the run's
        # bootstrap, compare, test, resamples and seed; plain values, sent to the workers with the analysis)
        self.resampling = resampling or {}

    def new(self):
        from ..relations import RelationTally

        return PerPair(RelationTally(self.listed) for _ in range(self.pairs))

    def observe(self, tally, batch: Batch) -> None:
        from ..relations import compared_relations

        texts = batch.texts if self.listed else {}
        for k, (index, _, i, j) in enumerate(batch.pairs):
            first, second = batch.spansets[i].documents, batch.spansets[j].documents
            for doc_id, alignment in zip(batch.documents, batch.alignments[k]):
                mine, theirs = first.get(doc_id), second.get(doc_id)
                tally[index].add(doc_id, compared_relations(mine.relations if mine is not None else [],
                                                            theirs.relations if theirs is not None else [],
                                                            alignment, self.rule, self.symmetric),
                                 texts.get(doc_id), self.context)

    def finish(self, tally, finished: Finished):
        from ..measures.counts import Counts
        from ..measures.registry import counts_dict
        from ..relations import relations_figures
        from .compare import MeanF1

        result = finished.result
        if isinstance(result.options, dict):  # the run's options as understood
            result.options["relations"] = True
            result.options["symmetric_relations"] = sorted(self.symmetric) or None
        if finished.command == "score":
            result.relation_tally = tally[0]
            figures = relations_figures(tally[0], finished.documents)
            _warn_undefined(f"{result.prediction}: relations", figures)
            if self.resampling.get("bootstrap"):
                figures["bootstrap"] = self.bootstrap([tally[0]], [finished.documents],
                                                      [[first, second] for first, second, _ in finished.pairs], False)
            return figures
        documents = [list(pair.by_document) for pair in result.pairs]
        result.relation_tally = list(tally)
        result.relation_pairs = [relations_figures(own, on) for own, on in zip(tally, documents)]
        by_type: dict[str, Counts] = {}
        for own, on in zip(tally, documents):
            for kind, counts in own.by_type(on).items():
                by_type[kind] = by_type.get(kind, Counts()) + counts
        pooled = sum(by_type.values(), Counts())
        for (first, second, _), figures in zip(finished.pairs, result.relation_pairs):
            _warn_undefined(f"{first} × {second}: relations", figures)
        mean = MeanF1.of(figures["f1"] for figures in result.relation_pairs)
        figures = {**counts_dict(pooled), "mean_f1": mean.mean, "sd_f1": mean.sd,
                   "pairs_with_undefined_f1": mean.skipped,
                   "by_type": {kind: counts_dict(by_type[kind]) for kind in sorted(by_type)}}
        names = [f"{first} × {second}" for first, second, _ in finished.pairs]
        if self.resampling.get("bootstrap"):
            figures["bootstrap"] = self.bootstrap(list(tally), documents,
                                                  [[first, second] for first, second, _ in finished.pairs], True)
        if self.resampling.get("compare"):
            figures["comparisons"] = relation_comparisons(list(tally), documents, names, **self.resampling)
        return figures

    def bootstrap(self, tallies: list, documents: list, pairs: list, mean: bool) -> dict:
        """``bootstrap=N``: percentile intervals of the relations' figures, resampling documents
        (:func:`spanagree.measures.bootstrap.bootstrap_intervals`; relations are per document,
        whatever ``unit``)."""
        from ..measures.bootstrap import bootstrap_intervals

        every = list(dict.fromkeys(d for own in documents for d in own))
        return bootstrap_intervals(relation_rows(tallies, every), n=self.resampling["bootstrap"],
                                   seed=self.resampling["seed"],
                                   unit="document", pairs=pairs, mean=mean)


def relation_rows(tallies: list, documents: list[str]) -> list[list[tuple]]:
    """Per document, each tally's relation ``(a, b, c)`` (``(0, 0, 0)`` where it did not compare
    the document): the rows the bootstrap resamples and the paired tests swap."""
    rows = []
    for doc_id in documents:
        row = []
        for tally in tallies:
            counts = tally.document_counts(doc_id)
            row.append((counts.a, counts.b, counts.c))
        rows.append(row)
    return rows


def relation_comparisons(tallies: list, documents: list, names: list[str], *, test: str = "randomization",
                         resamples: int = 10_000, seed: int | None = None, **_) -> list[dict]:
    """``compare=True``: the pairs (or predictions) compared on their relations' figures, on the
    documents every one compared (:func:`spanagree.measures.significance.paired_comparisons`)."""
    from ..measures.significance import paired_comparisons

    return paired_comparisons(relation_rows(tallies, shared_documents(documents)), names, test=test, unit="document",
                              resamples=resamples, seed=seed)


def _warn_undefined(what: str, figures: dict) -> None:
    """The relations' rates that are 0/0 (no relation on one side or either), named in one warning."""
    import math
    import warnings

    from ..errors import SpanagreeWarning, find_stack_level

    undefined = [name for key, name in (("precision", "precision"), ("recall", "recall"), ("f1", "F1"))
                 if math.isnan(figures[key])]
    if undefined:
        warnings.warn(f"{what}: {', '.join(undefined)} undefined (0/0), reported as NaN", SpanagreeWarning,
                      stacklevel=find_stack_level())


def _relations(options, plan: Plan):
    if not options.relations:
        return None
    from ..formats import get_format
    from . import input_format

    symmetric = set(options.symmetric)
    for item in plan.inputs:  # a path, or a container's span set (a stream that knows its file)
        symmetric |= getattr(item, "symmetric_relations", frozenset())  # what its reader found (Label Studio's bi)
        path = item if isinstance(item, (str, os.PathLike)) else getattr(item, "path", None)
        if path is not None and os.path.exists(path):
            found = input_format(item, options.format) if path is item else item.format
            if found is not None:
                symmetric |= get_format(found).symmetric_relations(path)
    return Relations(len(plan.pairs), frozenset(symmetric), options.rule, bool(options.errors), options.context,
                     relation_resampling(options))


def relation_resampling(options) -> dict:
    """What the relations' intervals and tests take of the run's options (``bootstrap``,
    ``compare``, ``test``, ``resamples``, ``seed``)."""
    return {"bootstrap": options.bootstrap, "compare": options.compare, "test": options.test,
            "resamples": options.resamples, "seed": options.seed}


def spool_documents(spool, spansets: list[SpanSet], documents: list[str], pairs: list[tuple[int, int]],
                    compared: list[list], *, members: list[int] | None = None, numbers: list[int] | None = None
                    ) -> None:
    """Every document's record for the HTML report (docs/report.md): its text, every copy's
    spans, and each pair's classified spans (``compared``: per pair, per document, the records
    of :func:`spanagree.errorkinds.records_of`; ``pairs``: the places in ``spansets`` of each, first
    and second). ``members`` gives each span set's annotator number (default: its place) and
    ``numbers`` each pair's number (default: its place): a group of some annotators
    (``agree --documents pairwise``) writes its records in the run's numbering."""
    from .spool import items_entry, spans_entry

    places = sorted({m for pair in pairs for m in pair})
    members = members if members is not None else list(range(len(spansets)))
    numbers = numbers if numbers is not None else list(range(len(pairs)))
    for n, doc_id in enumerate(documents):
        spans, index = {}, {}
        for m in places:
            document = spansets[m].documents.get(doc_id)
            spans[str(members[m])], index[m] = spans_entry(document.spans if document is not None else [])
        items, disagreements = [], 0
        for p, (i, j), each in zip(numbers, pairs, compared):
            found, wrong = items_entry(each[n], index[i], index[j])
            items += [[p, *item] for item in found]
            disagreements += wrong
        reference = spansets[0].documents.get(doc_id)
        spool.add(doc_id, disagreements, {"id": doc_id, "text": reference.text if reference is not None else None,
                                          "spans": spans, "items": items})


def _tokens(options, plan: Plan):
    if not options.chance:
        return None
    if plan.command == "score":
        return Tokens(plan.levels, sides="pair")
    return Tokens(plan.levels, present=plan.token_group is not None)


def _units(options, plan: Plan):
    if options.unit != "sentence" or not (options.bootstrap or options.compare):
        return None
    return SentenceUnits(len(plan.pairs), options.lang)


def _listing(options, plan: Plan):
    if not options.errors:
        return None
    return Listing(len(plan.pairs), plan.folders.get("errors"), options.context, plan.command == "score")


#: The analyses a run may add, by name: each a factory of the run's options and plan giving the
#: analysis, or ``None`` when the run does not ask for it. Their order is the order in which
#: they finish (and so of their keys in ``extras``).
ANALYSES: dict[str, Callable] = {
    "chance": _tokens,
    "units": _units,
    "bootstrap": lambda options, plan: (Bootstrap(options.bootstrap, options.seed, options.unit)
                                        if options.bootstrap else None),
    "alpha_u": lambda options, plan: Unitizing(len(plan.names)) if options.unitizing else None,
    "comparisons": lambda options, plan: (Comparisons(options.test, options.unit, options.resamples, options.seed)
                                          if options.compare else None),
    "errors": _listing,
    "report": lambda options, plan: ReportRecords(plan.folders["report"]) if options.report else None,
    "error_kinds": lambda options, plan: ErrorKinds(options.rule) if plan.command == "score" else None,
    "gamma": _gamma,
    "attributes": _attributes,
    "relations": _relations,
    "attribute_comparisons": lambda options, plan: (
        AttributeComparisons(options.test, options.resamples, options.seed)
        if options.compare and options.attribute_names is not None else None),
}


#: The names of the registered analyses that run only when asked for by name (``analyses=[...]``):
#: :func:`register` adds to it.
EXTRA: set[str] = set()


def register(name: str, factory: Callable) -> None:
    """Register an analysis that a run asks for by name (``agree(..., analyses=[name])``,
    ``score(..., analyses=[name])``): ``factory(options, plan)`` gives the :class:`Analysis` (or
    ``None``). Its figure is the result's ``extras[name]`` (and the JSON's key of that name)."""
    ANALYSES[name] = factory
    EXTRA.add(name)


def analyses_for(options, plan: Plan) -> list[Analysis]:
    """The analyses a run asks for, in :data:`ANALYSES`' order: the built-in ones its options
    ask for, and the registered ones it names (``options.analyses``)."""
    from ..errors import UsageError

    unknown = [name for name in options.analyses if name not in EXTRA]
    if unknown:
        raise UsageError(f"no registered analysis called {', '.join(map(repr, unknown))}; registered: "
                         + (", ".join(sorted(EXTRA)) or "none"), option="analyses")
    found = []
    for name, factory in ANALYSES.items():
        if name in EXTRA and name not in options.analyses:
            continue
        analysis = factory(options, plan)
        if analysis is not None:
            found.append(analysis)
    return found


__all__ = ["ANALYSES", "Analysis", "AttributeComparisons", "Attributes", "Batch", "Finished", "PairsComparison", "Plan", "Tallies", "analyses_for", "register"]
