"""Scoring a prediction (an extractor, or one annotator) against a gold standard.

The prediction is the *first* side and the gold the *second*, so ``b`` counts the prediction's
spurious spans and ``c`` the gold's missed spans: precision ``a/(a+b)``, recall ``a/(a+c)``,
F-beta ``(1+β²)a / ((1+β²)a + β²c + b)``.

Error analysis (MUC / SemEval-2013 categories) describes every span without changing a, b, c:
each aligned pair, and each pair found by a second alignment (overlap, labels ignored) among the
spans left unaligned, is classified by how its two spans relate — ``correct``, ``partial``,
``wrong_label``, ``wrong_label_and_boundary``, ``missed``, ``spurious``, as
:mod:`spanagree.errorkinds` defines them (the one table of the kinds, with the credit each earns).

The number of items of each kind, and the gold × predicted label confusion, are tallied while the
documents are compared (:mod:`spanagree.pipeline`); the listing of every item (:attr:`Score.items`)
is kept while comparing when asked for (``errors=True``, ``--errors``); the classification is
:mod:`spanagree.errorkinds`'.
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from .formats.registry import documented
from .errors import SpanagreeWarning, UsageError, find_stack_level
from .match import MatchRule
from .measures.counts import Counts
from .measures.registry import undefined_rates
from .options import RunOptions
from .pipeline import Group
from .pipeline.analyses import Finished, PairsComparison, Plan
from .pipeline.command import execute, finish_analyses, spooled_outputs
from .pipeline.compare import PairCounts, sorted_labels, warn_duplicates
from .pipeline.finish import aligned_note, aligned_texts, announce_texts, check_jobs, input_name
from .pipeline.labels import label_warnings
from .errorkinds import KINDS, NONE, ErrorItem, correct_pairs
from .span import CONTEXT, SpanSet

@dataclass
class Score:
    """The result of :func:`score` for one prediction. ``to_dict()`` is the JSON contract."""

    gold: str
    prediction: str
    rule: MatchRule
    beta: float
    pair: PairCounts
    #: ``(kind, gold label or None, predicted label or None)`` → number of items.
    tally: Counter
    options: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    missing_predictions: list[str] = field(default_factory=list)
    extras: dict = field(default_factory=dict)
    #: One document's token-level figures (``chance=True``: the ``"chance"`` part of its
    #: ``by_document`` entry), or ``None`` when the run had no ``chance``.
    chance_of: Callable[[str], dict | None] | None = field(default=None, repr=False, compare=False)
    #: Gives the listing (one iterable of items) read from where it was kept while comparing
    #: (``score(errors=...)``); ``None`` when it was not kept.
    listing: Callable[[], list] | None = field(default=None, repr=False, compare=False)
    _items: list | None = field(default=None, repr=False, compare=False)
    #: The documents' records for the HTML report (``score(..., report=True)``): a
    #: :class:`~spanagree.pipeline.spool.DocumentSpool`, or ``None``.
    spool: object = field(default=None, repr=False, compare=False)
    #: ``relations=True``: the prediction's :class:`~spanagree.relations.RelationTally`; ``None`` otherwise.
    relation_tally: object = field(default=None, repr=False, compare=False)
    #: ``attributes=...``: the prediction's attribute counts per document
    #: (:class:`~spanagree.measures.attributes.AttributeCounts` by document id); ``None`` otherwise.
    attribute_tally: dict | None = field(default=None, repr=False, compare=False)

    def write_report(self, path, *, documents: int | None = None, force: bool = False, inputs=()) -> None:
        """Write the HTML report (docs/report.md) to ``path``; needs ``score(..., report=True)``
        (several predictions in one report: :func:`spanagree.report.html.write_report`)."""
        from .report.html import write_report

        write_report([self], path, documents=documents, force=force, inputs=inputs)

    def __repr__(self) -> str:
        return (f"<Score {self.prediction!r} against {self.gold!r}: {len(self.pair.by_document)} documents, "
                f"match {self.rule.boundary}, labels {self.rule.labels}>")

    def _repr_html_(self) -> str:
        from .report.notebook import score_html

        return score_html(self)

    @property
    def items(self) -> list[ErrorItem]:
        """Every classified span or pair, document by document (see :func:`score`'s ``errors``).

        Raises
        ------
        UsageError
            The run kept no listing: call :func:`score` with ``errors=True``.
        """
        if self._items is None:
            self._items = list(self._listed())
        return self._items

    def iter_items(self):
        """:attr:`items` one at a time, without keeping them when they were spooled while comparing
        (``score(..., errors=True)``: what ``--errors`` writes from)."""
        return iter(self._items) if self._items is not None else self._listed()

    def relation_items(self) -> list:
        """Every relation of the prediction and the gold classified (:class:`~spanagree.relations.RelationItem`:
        ``correct``, ``argument_boundary``, ``wrong_type``, ``missed``, ``spurious``), document
        by document.

        Raises
        ------
        UsageError
            The run compared no relations or kept no listing: call :func:`score` with
            ``relations=True, errors=True``.
        """
        if self.relation_tally is None or self.relation_tally.items is None:
            raise UsageError("this score kept no relations' listing: run score() with relations=True and errors=True "
                             "to list them")
        return self.relation_tally.listed(self.documents)

    def _listed(self):
        if self.listing is None:
            raise UsageError("this score kept no error listing: run score() with errors=True to list the items")
        return itertools.chain.from_iterable(self.listing())

    @property
    def counts(self) -> Counts:
        return self.pair.counts

    @property
    def documents(self) -> list[str]:
        return list(self.pair.by_document)

    def error_counts(self) -> dict[str, int]:
        """How many items of each kind: the six of :data:`~spanagree.errorkinds.KINDS`, then those
        of :data:`~spanagree.errorkinds.PAIRING_KINDS` that occur."""
        totals = dict.fromkeys(KINDS, 0)
        for (kind, _, _), number in self.tally.items():
            totals[kind] = totals.get(kind, 0) + number
        return totals

    def errors(self) -> list[ErrorItem]:
        """Every item that is not ``correct`` (the listing written by ``--errors``)."""
        return [item for item in self.items if item.kind != "correct"]

    def confusion(self) -> dict:
        """Gold label × predicted label over all pairs; ``(none)`` for missed / spurious."""
        labels = sorted_labels([g for _, g, _ in self.tally if g is not None]
                               + [p for _, _, p in self.tally if p is not None])
        axis = labels + [NONE]
        index = {label: k for k, label in enumerate(axis)}
        matrix = [[0] * len(axis) for _ in axis]
        for (_, gold, pred), number in self.tally.items():
            row = index[gold] if gold is not None else index[NONE]
            col = index[pred] if pred is not None else index[NONE]
            matrix[row][col] += number
        return {"rows": "gold", "columns": "prediction", "labels": axis, "matrix": matrix}

    def confusion_frame(self):
        """:meth:`confusion` as a DataFrame: gold labels as the index, predicted labels as the
        columns, ``(none)`` last on both."""
        import pandas as pd

        confusion = self.confusion()
        return pd.DataFrame(confusion["matrix"], index=pd.Index(confusion["labels"], name="gold"),
                            columns=pd.Index(confusion["labels"], name="prediction"))

    def to_dict(self, *, by_document: bool = False, with_header: bool = True) -> dict:
        """The ``--output json`` document of this prediction (the ``score`` schema)."""
        from .report.document import score_document

        return score_document(self, by_document=by_document, with_header=with_header)

    def errors_frame(self):
        """The error listing as a DataFrame (one row per non-correct item)."""
        from .report.tabular import frame

        from .report.tabular import ERROR_COLUMNS

        return frame([item.as_dict() for item in self.errors()], ERROR_COLUMNS[1:])

    def by_label_frame(self):
        from .report.tabular import frame, score_label_rows

        return frame(score_label_rows(self))

    def by_document_frame(self):
        from .report.tabular import frame, score_document_rows

        return frame(score_document_rows(self))


def score(gold, pred=None, *, match: str = "exact", labels: str = "strict", partial_credit=0.5, beta: float = 1.0,
          only=None, label_map=None, align_whitespace: bool = False, align_text: bool = False,
          errors: bool | str = False, chance: bool = False, chance_categories: str = "label",
          lang: str | None = None, spacy_model: str | None = None, bootstrap: int | None = None,
          seed: int | None = None, jobs: int = 1, format: str | None = None, format_options: dict | None = None,
          options: dict | None = None, annotators=None, gold_name: str | None = None,
          context: int = CONTEXT, report: bool | str = False, compare: bool = False, test: str = "randomization",
          unit: str = "document", resamples: int = 10_000,
          progress: bool = False, scheduler=None, scheduler_timeout: float = 10.0, analyses=(),
          document_key: str = "id", pairing: str = "optimal", strings: str = "place", strings_case: str = "exact",
          strings_fuzzy: float | None = None, attributes=None, match_attributes=(),
          link_top: int = 1, relations: bool = False,
          symmetric_relations=None) -> Score | list[Score]:
    """Score a prediction against a gold standard (or several predictions, one :class:`Score` each).

    Parameters
    ----------
    gold : SpanSet, DocumentStream or path
        The reference; its documents are the ones scored. A path holding several span sets (a
        container: {CONTAINERS}) counts as each of them, the first being the gold (unless ``gold_name``) and the others predictions.
    pred : SpanSet, DocumentStream or path, or a list of them, optional
        A prediction missing a gold document counts as empty there (warning); its documents
        that the gold lacks are ignored (warning). May be left out when ``gold`` is a container.
        ``gold`` and ``pred`` may also be plain data, named ``"gold"`` and ``"pred"``: a list of
        documents, each a list of ``(start, end, label)`` tuples or dicts
        (:meth:`spanagree.SpanSet.from_lists`); a list whose items are lists is one prediction
        given so, never several (:func:`spanagree.pipeline.score_inputs`).
    match, labels, partial_credit, only, label_map, align_whitespace, align_text
        As in :func:`spanagree.agree`.
    beta : float
        F-beta's β (β > 1 favours recall).
    attributes, match_attributes, link_top
        As in :func:`spanagree.agree`: the attributes' figures are ``extras["attributes"]`` (the
        JSON's ``attributes``, each prediction's); with ``match_attributes`` (``["kb_id"]``:
        entity linking, strict with ``match="exact"``, fuzzy with ``"overlap"``) a prediction's
        ``|``-separated candidates count when the gold's id is among its first ``link_top``.
    pairing : {"optimal", "hipe", "nervaluate", "greedy"}
        How predicted and gold spans are paired (:data:`spanagree.match.PAIRINGS`; docs/matching.md):
        the one-to-one alignment with maximum total credit (default), or an official scorer's
        greedy procedure, to reproduce its figures — ``"hipe"``, the HIPE scorer's (its strict
        regime with ``match="exact"``, its fuzzy one with ``match="overlap"``; per label, a pair
        counts under the gold's label), ``"nervaluate"``, nervaluate 1.2.1's (its ``strict``,
        ``exact``, ``partial`` and ``ent_type`` are exact/strict, exact/ignore, partial/ignore and
        overlap/strict; per label, its figures on that label's spans alone); ``"greedy"``, the
        official linking scorers' counting, is HIPE's procedure under its general name. The error
        kinds, the confusion table and the listing follow the pairing.
    errors : bool or path
        Keep the error listing (:attr:`Score.items`) while comparing: each document's items are
        spooled to a temporary folder as it is scored, and read back document by document
        (:meth:`Score.iter_items`); span sets in memory keep theirs in memory. On a Dask cluster
        (``scheduler``) the workers spool into a folder they share with this process, beside the
        listing when ``errors`` is the path it will be written to (``--errors FILE``); with
        ``errors=True``, or when some worker cannot write there (a warning says so), the items
        travel back with the tallies and are kept in this process's memory (docs/cluster.md).
        Without it, :attr:`Score.items` raises :class:`~spanagree.errors.UsageError` saying so
        (nothing is compared again behind your back).
    chance, chance_categories, lang, spacy_model, bootstrap, seed
        Token-level agreement and bootstrap intervals (the prediction is the first side, the gold
        the second), as in :func:`spanagree.agree`.
    compare, test, unit, resamples
        ``compare``: with several predictions, test every pair of them on F1, precision and
        recall (``test``: ``"randomization"`` or ``"bootstrap"``, ``resamples`` rounds, seeded
        by ``seed``: :func:`spanagree.measures.significance.paired_comparisons`); the result is a
        :class:`Scores` list whose ``comparisons`` hold them. ``unit``: ``"document"`` or
        ``"sentence"`` — what the tests swap and the bootstrap resamples (CoNLL sentences, or
        spaCy's sentencizer on the gold's text for ``lang``).
    jobs : int
        Compare in this many processes (the results, error items included, are identical).
    progress, scheduler, scheduler_timeout
        A progress bar; a Dask cluster to compare on, and how long connecting to it may take:
        as in :func:`spanagree.agree`.
    format, format_options, options, annotators
        As in :func:`spanagree.agree`.
    context : int
        Characters of text before and after each listed item (``ErrorItem.context_before``,
        ``context_after``: :func:`context_of`); 0 gives empty strings.
    gold_name : str, optional
        The gold is the span set of this name among the inputs (containers expanded, their
        curations and predictions included); the others, in order, are the predictions.
    analyses : sequence of str
        Registered analyses to add, by name, as in :func:`spanagree.agree`.
    document_key : {"id", "text"}
        How the copies of a document are paired: by their ids (default), or by their texts when
        tools gave them other ids (each takes the gold's id for the same text;
        :mod:`spanagree.pipeline.document_key`).
    strings, strings_case, strings_fuzzy
        How predictions of strings without offsets (a prompted model's answers) are scored:
        ``"place"`` (each string put where in the gold's text it earns the most credit),
        ``"recover"`` (and spans whose offsets miss their own text moved to its nearest
        occurrence) or ``"bag"`` (per-document multisets of (text, label)); their case compared
        ``"exact"`` or ``"ignore"``d; ``strings_fuzzy``, a normalised edit distance up to which a
        run of words counts as an occurrence. The result's ``extras["strings"]`` counts them
        (:mod:`spanagree.pipeline.placing`, docs/strings.md).
    relations : bool
        Compare the documents' relations and events (BRAT's ``R`` and ``E`` lines, ...) on each
        document's span alignment (:mod:`spanagree.relations`: same type, arguments aligned
        role by role; one-to-one), as ``extras["relations"]``: a, b, c, the rates and
        ``by_type``.
    symmetric_relations : list of str or str, optional
        Relation types that match in either argument order (names, or one comma-separated
        string), besides those the inputs' BRAT ``annotation.conf`` declares symmetric and those
        their Label Studio exports draw ``bi``.
    report : bool or path
        Keep every document's text, spans and classified spans for the HTML report, spooled to a
        temporary file while comparing; write it with :meth:`Score.write_report`, or
        :func:`spanagree.report.html.write_report` for several predictions (docs/report.md).
        On a Dask cluster (``scheduler``) the workers spool into a folder they share with this
        process: beside the report, when ``report`` is the path it will be written to (else, or
        when some worker cannot write there, the records are kept in memory; docs/cluster.md).

    Returns
    -------
    Score, or a list of Score
        A list when ``pred`` is a list or the inputs hold more than one prediction.

    Examples
    --------
    >>> from spanagree.span import Span, SpanSet
    >>> gold = SpanSet.from_spans("gold", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "LOC")])
    >>> pred = SpanSet.from_spans("sys", [Span("d", (0, 5), "PER"), Span("d", (10, 14), "ORG"),
    ...                                   Span("d", (20, 22), "LOC")])
    >>> result = score(gold, pred)
    >>> result.counts, round(result.counts.precision, 4), result.counts.recall
    (Counts(a=1.0, b=2.0, c=1.0), 0.3333, 0.5)
    >>> result.error_counts()["wrong_label"], result.error_counts()["spurious"]
    (1, 1)
    """
    options = RunOptions(match=match, labels=labels, partial_credit=partial_credit, pairing=pairing, beta=beta, only=only,
                         label_map=label_map, align_whitespace=align_whitespace, align_text=align_text, errors=errors,
                         chance=chance, chance_categories=chance_categories, lang=lang, spacy_model=spacy_model,
                         bootstrap=bootstrap, seed=seed, jobs=jobs,
                         format=format, format_options=format_options, record=options, annotators=annotators,
                         context=context, report=report, compare=compare, test=test, unit=unit, resamples=resamples,
                         progress=progress, scheduler=scheduler, scheduler_timeout=scheduler_timeout,
                         analyses=tuple(analyses), document_key=document_key, strings=strings,
                         strings_case=strings_case, strings_fuzzy=strings_fuzzy, attributes=attributes,
                         match_attributes=match_attributes, link_top=link_top,
                         relations=relations, symmetric_relations=symmetric_relations)
    return score_with(gold, pred, options, gold_name=gold_name)


def score_with(gold, pred, options: RunOptions, *, gold_name: str | None = None) -> Score | list[Score]:
    """:func:`score` on one :class:`~spanagree.options.RunOptions` (what the command line builds
    from its flags; :func:`score` builds it from its keywords)."""
    command = ScoreCommand(gold_name)
    command.check(options)
    if options.pairing == "hipe":  # the HIPE scorer's reading too: rows whose token holds a '#' left out
        options = options.replace(format_options={**(options.format_options or {}), "conll_drop_hash_rows": True})
    from .pipeline import score_inputs

    gold, preds, several = score_inputs(gold, pred)  # plain data as span sets, told apart from several predictions
    ran = execute(command, [gold, *preds], options)
    accumulator, names, rule, (label_map, only) = ran.accumulator, ran.names, options.rule, options.selection
    gold_order = accumulator.orders[0]
    in_gold = set(gold_order)
    unknown = label_warnings(accumulator.labels, [], label_map=label_map, only=only)
    results = []
    for p, group in enumerate(accumulator.groups, 1):
        pred_ids = set(accumulator.orders[p])
        missing = [d for d in gold_order if d not in pred_ids]
        warn_unmatched(names[p], missing, [d for d in accumulator.orders[p] if d not in in_gold])
        left_out = announce_texts(group.texts, [d for d in gold_order if d in pred_ids])
        scored = [d for d in gold_order if d not in group.texts.left_out]
        tallies = group.compared
        (tally,) = tallies.pairs
        kinds = tallies.analyses["error_kinds"]
        kinds.update(correct_pairs(tally.labels, rule))
        written = sum(number for (kind, _, _), number in kinds.items() if kind == "written_otherwise")
        result = finished(names[0], names[p], [accumulator.notes[0], accumulator.notes[p]], rule, options.beta,
                          tally.pair(names[p], names[0], scored), kinds, missing, group.texts.whitespace_aligned,
                          left_out, None, options=options.record, match=options.match, labels=options.labels,
                          only=only, label_map=label_map, align_whitespace=options.align_whitespace,
                          align_text=options.align_text, chance_categories=options.chance_categories)
        result.options.update(options.attributes_echo(result.options))
        if ran.strings is not None:
            result.extras["strings"] = ran.strings[p - 1]
        aligned = aligned_texts(group.texts, scored)
        if aligned is not None:
            result.extras["aligned_texts"] = aligned
            result.notes += aligned_note(aligned)
        if written:
            result.notes.append(written_otherwise_note(names[p], written, rule))
        compared = result.pair.tally  # the prediction's labels first, the gold's second
        result.notes += unknown + label_warnings(
            [], [(names[0], compared.second, names[p], compared.first)] if rule.strict_labels else [])
        result.extras.update(finish_analyses(ran, tallies.analyses, Finished(
            "score", [result.prediction, result.gold], result.documents, [(names[p], names[0], tally)], result,
            units=tallies.analyses.get("units"), group=p - 1),
            skip=[a.key for a in ran.analyses if a.across_predictions]))
        results.append(result)
    if options.compare:
        groups = [group.compared for group in accumulator.groups]
        results = Scores(results)
        results.comparisons = ran.analysis("comparisons").finish(None, Finished(
            "score", names, results[0].documents, [(r.prediction, r.gold, g.pairs[0]) for r, g in zip(results, groups)],
            results, units=[g.analyses["units"][0] for g in groups] if "units" in groups[0].analyses else None))
        if options.relations:  # the predictions compared on their relations too
            from .pipeline.analyses import relation_comparisons, relation_resampling

            results.relation_comparisons = relation_comparisons(
                [r.relation_tally for r in results], [r.documents for r in results], [r.prediction for r in results],
                **relation_resampling(options))
        attributes = ran.analysis("attribute_comparisons")
        if attributes is not None:  # the predictions compared on their attributes too
            results.attribute_comparisons = attributes.finish(None, Finished("score", names, results[0].documents,
                                                                             [], results))
    return results if several or len(results) > 1 else results[0]


score.__doc__ = documented(score.__doc__)  # the containers, from the format registry


class ScoreCommand:
    """``score``'s part of the command skeleton (:mod:`spanagree.pipeline.command`): each
    prediction aligned with the gold on the gold's documents (a group each)."""

    name = "score"

    def __init__(self, gold_name: str | None = None):
        self.gold_name = gold_name
        self.also = (gold_name,) if gold_name else ()

    def check(self, options: RunOptions) -> None:
        """The options checked before anything is read (the first mistake is the one reported)."""
        if not options.beta >= 0:
            raise UsageError(f"{{option}} must be >= 0, got {options.beta!r}", option="beta")
        from .relations import check_relation_options

        check_relation_options(options)
        from .measures.significance import check_test_options

        check_test_options(options.test, options.unit, options.resamples)
        from .measures.tokens import check_categories

        check_categories(options.chance_categories)
        check_jobs(options.jobs)
        check_context(options.context)
        from .pipeline.placing import check_strings_options

        check_strings_options(options.strings, options.strings_case, options.strings_fuzzy)

    def expanded(self, inputs: list, options: RunOptions) -> list:
        if self.gold_name is not None:
            found = [k for k, item in enumerate(inputs) if input_name(item) == self.gold_name]
            if not found:
                raise UsageError(f"no span set called {self.gold_name!r} among the inputs; there are: "
                                 + ", ".join(input_name(item) for item in inputs), option="gold_name", flag="--gold")
            inputs.insert(0, inputs.pop(found[0]))
        gold, preds = inputs[0], inputs[1:]
        if options.align_text:  # CoNLL predictions against a gold with raw text: paired in order
            from .pipeline import paired_in_order

            preds = [paired_in_order(gold, pred, options.format, options.format_options) for pred in preds]
        else:  # CoNLL predictions that keep the gold's tokens in other documents: cut along the gold's
            from .formats.resegment import resegmented

            preds = resegmented(gold, preds, options.format, options.format_options)
        if not preds:
            raise UsageError("score needs at least one prediction; the inputs hold one span set")
        if options.compare and len(preds) < 2:
            raise UsageError("{option} compares predictions: give two or more", option="compare")
        options.rule, options.selection  # the rule and the labels checked before the tokenizers are loaded
        return [gold, *preds]

    def plan(self, inputs: list, options: RunOptions):
        gold, preds = inputs[0], inputs[1:]
        levels = {}
        if options.chance:  # per prediction, the tokenizer chosen (and loaded: one that cannot be is bad usage)
            # first; --align-text: the gold's (the prediction's spans are mapped onto its text)
            from .measures.tokens import TokenLevel, tokenizer_for
            from .pipeline import input_format

            format_of = partial(input_format, format=options.format)
            for g, pred in enumerate(preds):
                levels[g] = TokenLevel(tokenizer_for([gold] if options.align_text else [gold, pred], format_of),
                                       options.lang, options.spacy_model, options.labels,
                                       options.chance_categories)
            for level in levels.values():
                level.tokenize()
        groups = [Group((0, p), every_copy=False) for p in range(1, len(inputs))]
        layouts = [([(0, g, 1, 0)], [0, g + 1], 1) for g in range(len(preds))]
        return groups, Plan("score", [input_name(item) for item in inputs], [(1, 0)], None, levels), layouts

    def spooling(self, client, inputs: list, options: RunOptions):
        # the listing's items are spooled per document as they are scored: to a temporary folder, or
        # beside the --errors file on a cluster (span sets in memory, compared here, keep theirs in
        # memory: their spans are the caller's own objects); the report's records likewise
        in_memory = client is None and any(isinstance(item, SpanSet) for item in inputs)
        return spooled_outputs(client, inputs, options.report, False if in_memory else options.errors)

    def comparison(self, plan, layouts, analyses, folders, client, options):
        return PairsComparison(plan.rule, layouts, analyses)


class Scores(list):
    """Several predictions' :class:`Score` (``score(gold, [a, b, ...], compare=True)``) and their
    paired comparisons (:func:`spanagree.measures.significance.paired_comparisons`), written as
    the JSON document's ``comparisons``."""

    comparisons: list[dict] | None = None
    #: ``relations=True``: the predictions compared on their relations' figures (the JSON's ``relation_comparisons``).
    relation_comparisons: list[dict] | None = None
    #: ``attributes=...``: the predictions compared on their attributes' figures (the JSON's
    #: ``attribute_comparisons``).
    attribute_comparisons: list[dict] | None = None


def check_context(context) -> None:
    """``context`` must be a whole number of characters, 0 or more."""
    if isinstance(context, bool) or not isinstance(context, int) or context < 0:
        raise UsageError(f"{{option}} must be a whole number of characters, 0 or more, got {context!r}",
                         option="context", flag="--context")


def written_otherwise_note(pred_name: str, count: int, rule: MatchRule) -> str:
    """The note that ``count`` predicted spans with a gold span's fragments and label cover a token
    the prediction writes otherwise (``--pairing hipe``: error kind ``written_otherwise``)."""
    earned = "none earns credit" if rule.boundary == "exact" else "each earns what an overlap earns"
    return (f"{pred_name}: {count} span(s) with a gold span's fragments and label cover a token written otherwise: "
            f"not equal to it, as the HIPE scorer compares an entity's text, but paired as an overlap ({earned}; "
            "kind written_otherwise)")


def warn_unmatched(pred_name: str, missing: list[str], extra: list[str]) -> None:
    """The warnings about gold documents without a prediction, and predicted documents not in the gold."""
    if missing:
        warnings.warn(f"{pred_name}: {len(missing)} gold document(s) have no prediction and count as empty: "
                      + ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else ""), SpanagreeWarning,
                      stacklevel=find_stack_level())
    if extra:
        warnings.warn(f"{pred_name}: {len(extra)} predicted document(s) are not in the gold and are ignored: "
                      + ", ".join(extra[:20]) + (" ..." if len(extra) > 20 else ""), SpanagreeWarning,
                      stacklevel=find_stack_level())


def finished(gold_name: str, pred_name: str, notes: list[list[str]], rule: MatchRule, beta: float, pair: PairCounts,
             tally: Counter, missing: list[str], whitespace_aligned: int, left_out: list[str], listing, *,
             options, match, labels, only, label_map, align_whitespace, align_text: bool = False,
             chance_categories: str = "label") -> Score:
    """The :class:`Score` of a compared prediction, with the warnings about it (duplicates, 0/0)."""
    warn_duplicates(pred_name, pair.duplicates[0], rule)
    warn_duplicates(gold_name, pair.duplicates[1], rule)
    all_notes = [f"{name}: {n}" for name, own in zip((gold_name, pred_name), notes) for n in own]
    if whitespace_aligned:
        all_notes.append(f"{whitespace_aligned} document(s) compared through their "
                         "non-whitespace characters (texts differ only in whitespace)")
    if left_out:
        all_notes.append(f"{len(left_out)} document(s) left out: texts differ beyond whitespace: "
                         + ", ".join(left_out))
    undefined = undefined_rates(pair.counts, beta)
    if undefined:
        warnings.warn(f"{pred_name}: {', '.join(undefined)} undefined (0/0), reported as NaN",
                      SpanagreeWarning, stacklevel=find_stack_level())
    # The caller's record of the run (the CLI's arguments) first; the values as understood win.
    opts = {**(options or {}), "match": match, "labels": labels, "partial_credit": rule.partial_credit,
            "pairing": rule.pairing, "beta": beta, "only": sorted(only) if only else None, "map": label_map or None,
            "align_whitespace": align_whitespace, "align_text": align_text}
    if chance_categories != "label":  # (the default's documents stay as they were)
        opts["chance_categories"] = chance_categories
    return Score(gold_name, pred_name, rule, beta, pair, tally, opts, all_notes, missing, listing=listing)
