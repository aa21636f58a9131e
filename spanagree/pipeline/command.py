"""The skeleton every comparing command shares: ``agree``, ``score`` and ``merge`` are short
compositions of it.

:func:`execute` does, in this order, what each command did in its own 200 lines before:

1. connect the run's Dask client, when given a scheduler (:func:`.cluster.one_client`);
2. expand the inputs (containers into their span sets: :func:`expand_inputs`), then let the
   command check and order them (``Command.expanded``: how many, which is the gold, ...);
3. let the command plan the run (``Command.plan``: the names, the groups of copies compared
   together, the pairs, the token levels) and open its spools (``Command.spooling``: per-document
   records to a temporary folder, or beside the outputs on a cluster);
4. build the comparison with the analyses the options ask for
   (:func:`~spanagree.pipeline.analyses.analyses_for`) and run it (:func:`run`: one process,
   ``jobs`` processes or a cluster);
5. give the reading's warnings, or raise its first error.

With ``document_key="text"`` the copies of a document are paired by their texts
(:mod:`.document_key`) instead of their ids. String predictions without offsets are then placed
on the gold's documents (:mod:`spanagree.pipeline.placing`; ``score`` only).

What the command makes of the accumulator (its result, the documents left out, the warnings about
figures) stays the command's; the analyses finish themselves into the result
(:func:`finish_analyses`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import UsageError
from . import expand_inputs, run
from .accumulator import Accumulator
from .analyses import Analysis, Finished, Plan, analyses_for
from .placing import placed_inputs


class Command(Protocol):
    """What a command adds to the skeleton (``agree``, ``score`` and ``merge`` each have one)."""

    name: str
    also: tuple

    def expanded(self, inputs: list, options) -> list:
        """The expanded inputs checked and ordered (raises :class:`~spanagree.errors.UsageError`)."""

    def plan(self, inputs: list, options) -> tuple[list, Plan, list | None]:
        """``(groups, plan, layouts)``: the groups of copies compared together, the plan the
        analyses are made for, and each group's pairs (``None``: the command's own comparison)."""

    def spooling(self, client, inputs: list, options):
        """A context manager giving ``(folders, client)``: where per-document records go."""

    def comparison(self, plan: Plan, layouts: list | None, analyses: list[Analysis], folders: dict, client, options):
        """The comparison to run (:class:`~spanagree.pipeline.analyses.PairsComparison` by default)."""


@dataclass
class Ran:
    """A run of a command, over: the inputs (containers expanded), the plan, the accumulator, the
    analyses run and the folders their records were spooled to."""

    inputs: list
    plan: Plan
    accumulator: Accumulator
    analyses: list = field(default_factory=list)
    folders: dict = field(default_factory=dict)
    #: Per prediction, the JSON's ``strings`` figures (:mod:`spanagree.pipeline.placing`); ``None``: no strings.
    strings: list | None = None

    @property
    def names(self) -> list[str]:
        return self.plan.names

    def analysis(self, key: str) -> Analysis | None:
        return next((a for a in self.analyses if a.key == key), None)


def execute(command: Command, inputs, options, *, count_labels: bool = False) -> Ran:
    """Run ``command`` on ``inputs`` under ``options`` (:class:`~spanagree.options.RunOptions`):
    the shared skeleton (see the module's documentation). Returns the :class:`Ran` run, its
    reading warnings given; nothing of the comparison is warned or raised yet."""
    from ..formats.detection import detected_once
    from .cluster import one_client
    from .document_key import DOCUMENT_KEYS

    if options.document_key not in DOCUMENT_KEYS:
        raise UsageError(f"unknown document key {options.document_key!r}; choose one of: {', '.join(DOCUMENT_KEYS)}")
    if not (options.chance and options.chance_categories in ("tag", "bio")):
        # no token-level figures of the tags as written: the CoNLL reader need not find them
        options = options.replace(format_options={"conll_tags_as_written": False, **(options.format_options or {})})
    # connected for the run when given an address; each input's format detected once in the run
    with detected_once(), one_client(options.scheduler, options.scheduler_timeout) as client:
        inputs = expand_inputs(inputs, options.format, options.format_options, annotators=options.annotators,
                               also=command.also, jobs=options.jobs, scheduler=client)
        inputs = command.expanded(inputs, options)
        groups, plan, layouts = command.plan(inputs, options)
        plan.rule = options.rule
        plan.inputs = list(inputs)
        with command.spooling(client, inputs, options) as (folders, client):
            plan.folders = dict(folders)
            analyses = analyses_for(options, plan) if layouts is not None else []
            comparison = command.comparison(plan, layouts, analyses, folders, client, options)
            placing = placed_inputs(keyed(inputs, plan.names, options), plan.names, options, command.name)
            accumulator = run(placing.inputs, plan.names, groups, comparison, scheduler=client,
                              count_labels=count_labels, **options.reading())
    accumulator.raise_reading_error()
    accumulator.replay_reading()
    return Ran(inputs, plan, accumulator, analyses, folders, placing.figures)


def keyed(inputs: list, names: list[str], options) -> list:
    """The inputs as the run pairs their documents: as they are (by id), or, with
    ``document_key="text"``, streams whose documents take the ids of the reference's of the same
    text (:mod:`.document_key`)."""
    if options.document_key == "id":
        return inputs
    from . import open_inputs
    from .document_key import keyed_by_text

    return keyed_by_text(open_inputs(inputs, options.format, options.format_options), names,
                         align_whitespace=options.align_whitespace)


def finish_analyses(ran: Ran, tallies: dict, finished: Finished, *, skip=()) -> dict:
    """Every analysis of ``ran`` finished from its tally in ``tallies`` (by key), in registry
    order; the figures by key (the analyses that give none are left out)."""
    figures: dict[str, Any] = {}
    for analysis in ran.analyses:
        if analysis.key in skip:
            continue
        figure = analysis.finish(tallies.get(analysis.key), finished)
        if figure is not None:
            figures[analysis.key] = figure
    return figures


def spooled_outputs(client, inputs: list, report, errors):
    """The folders of the report's records and of the listing's items
    (:func:`~spanagree.pipeline.cluster.spooling_beside`), as ``({"report": ..., "errors": ...}, client)``."""
    from contextlib import contextmanager

    from .spool import spooling_beside

    @contextmanager
    def folders():
        with spooling_beside(client, inputs, (report, "the report's documents are kept"),
                             (errors, "the error listing's items are kept")) as ((folder, items), run_on):
            yield {"report": folder, "errors": items}, run_on

    return folders()


__all__ = ["Command", "Ran", "execute", "finish_analyses", "spooled_outputs"]
