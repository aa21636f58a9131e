"""One options value for a run: what it reads, how it matches, what it adds, how it executes.

:func:`spanagree.agree`, :func:`spanagree.score` and :func:`spanagree.vote` keep their keyword
arguments (the API as documented) and build a :class:`RunOptions` from them; the command line
builds the same keywords from its flags; everything below the public functions — the command
skeleton (:mod:`spanagree.pipeline.command`), the analyses (:mod:`spanagree.pipeline.analyses`)
and the execution — takes this one frozen value instead of thirty keywords, in the spirit of
black's ``Mode``.

Values are kept as given; each is checked where the command checked it before (so that of several
mistakes the same one is reported first), and :attr:`RunOptions.rule` builds the matching rule
(validating it) when first asked for.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from .span import CONTEXT


@dataclass(frozen=True)
class RunOptions:
    """Everything a run of ``agree``, ``score`` or ``merge`` needs, as one frozen value.

    Attributes
    ----------
    match, labels, partial_credit, pairing
        The matching rule (:class:`~spanagree.match.MatchRule`; :attr:`rule`); ``pairing`` is
        ``score``'s only (``agree`` and ``merge`` always align optimally).
    only, label_map
        Labels kept and relabelled before matching (``only``, ``label_map`` of :func:`spanagree.agree`).
    format, format_options, annotators
        How paths are read and which span sets of containers are taken.
    align_whitespace, align_text
        How copies of a document whose texts differ are reconciled.
    jobs, scheduler, scheduler_timeout, progress
        How the run executes: processes, a Dask scheduler or client (and the seconds its
        connection may take), a progress bar.
    errors, context, report
        What is kept per document: the disagreements' listing (and its context), the HTML report's records.
    chance, chance_categories, lang, spacy_model, bootstrap, seed, unitizing, compare, test, unit, resamples, beta
        The optional analyses and their settings (:mod:`spanagree.pipeline.analyses`).
    documents
        The document design (``"common"``, ``"pairwise"``, ``"present"``).
    document_key
        How the copies of a document are paired: by ``"id"`` or by ``"text"``
        (:mod:`spanagree.pipeline.document_key`).
    gamma, gamma_alpha, gamma_beta, gamma_delta_empty, gamma_sampler, gamma_samples, gamma_precision
        Mathet et al.'s γ and its settings (:mod:`spanagree.measures.gamma`; ``seed`` seeds its samples).
    strings, strings_case, strings_fuzzy
        How ``score`` compares string predictions without offsets: placed in the gold's text,
        as bags, or recovered (:mod:`spanagree.pipeline.placing`).
    attributes
        The attributes analysis (``attributes=True``: every attribute, or a list of names;
        :class:`~spanagree.pipeline.analyses.Attributes`).
    match_attributes, link_top
        Attributes that are part of a span's identity (linking: ``kb_id``) and how many of a
        value's ``|``-separated candidates count (:meth:`~spanagree.match.MatchRule.links_agree`).
    relations, symmetric_relations
        Relations and events compared (:mod:`spanagree.relations`), and the relation types that
        match in either argument order (besides those BRAT's ``annotation.conf`` declares): names,
        or one comma-separated string.
    analyses
        Registered analyses asked for by name (:func:`spanagree.pipeline.analyses.register`).
    record
        The caller's record of the run (the ``options`` keyword: the command line's arguments),
        echoed first in the JSON's ``options``; the values as understood win.

    Examples
    --------
    >>> options = RunOptions(match="overlap", jobs=2)
    >>> options.rule
    MatchRule(boundary='overlap', labels='strict', partial_credit=0.5, pairing='optimal', attributes=(), link_top=1)
    >>> options.replace(match="exact").rule.boundary, options.jobs
    ('exact', 2)
    """

    match: str = "exact"
    labels: str = "strict"
    partial_credit: Any = 0.5
    pairing: str = "optimal"
    only: Any = None
    label_map: Any = None
    format: str | None = None
    format_options: Mapping | None = None
    annotators: Any = None
    align_whitespace: bool = False
    align_text: bool = False
    jobs: int = 1
    scheduler: Any = None
    scheduler_timeout: float = 10.0
    progress: bool = False
    errors: bool | str = False
    context: int = CONTEXT
    report: bool | str = False
    chance: bool = False
    chance_categories: str = "label"
    lang: str | None = None
    spacy_model: str | None = None
    bootstrap: int | None = None
    seed: int | None = None
    unitizing: bool = False
    compare: bool = False
    test: str = "randomization"
    unit: str = "document"
    resamples: int = 10_000
    beta: float = 1.0
    documents: str = "common"
    document_key: str = "id"
    strings: str = "place"
    strings_case: str = "exact"
    strings_fuzzy: float | None = None
    analyses: tuple = ()
    gamma: bool = False
    gamma_alpha: float = 1.0
    gamma_beta: float = 1.0
    gamma_delta_empty: float = 1.0
    gamma_sampler: str = "statistical"
    gamma_samples: int = 30
    gamma_precision: Any = None
    attributes: Any = None
    match_attributes: Any = ()
    link_top: int = 1
    relations: bool = False
    symmetric_relations: Any = None
    record: Mapping | None = field(default=None, repr=False)

    __hash__ = None  # holds mappings: a value to compare, not a key

    @cached_property
    def rule(self):
        """The :class:`~spanagree.match.MatchRule` of ``match``, ``labels``, ``partial_credit`` and
        ``pairing`` (raises :class:`~spanagree.errors.UsageError` for an unknown rule or a bad credit)."""
        from .match import MatchRule

        return MatchRule(self.match, self.labels, self.partial_credit, self.pairing, self.match_attributes or (),
                         self.link_top)

    @cached_property
    def attribute_names(self) -> tuple | None:
        """``attributes`` understood: ``None`` (not asked for), ``()`` (every attribute) or the
        names asked for (a list, or ``"A,B"``)."""
        from .errors import UsageError

        given = self.attributes
        if given is None or given is False:
            return None
        if given is True:
            return ()
        names = [name.strip() for name in given.split(",")] if isinstance(given, str) else list(given)
        if not names or any(not isinstance(name, str) or not name for name in names):
            raise UsageError(f"{{option}} takes True or attribute names, got {given!r}", option="attributes")
        return tuple(dict.fromkeys(names))

    @cached_property
    def selection(self) -> tuple[dict, frozenset | None]:
        """``(label_map, only)`` parsed: ``{"OLD": "NEW"}`` and the labels kept (``None``: all)."""
        from .pipeline.compare import parse_label_list, parse_label_map

        return parse_label_map(self.label_map), parse_label_list(self.only)

    def attributes_echo(self, recorded: Mapping) -> dict:
        """The JSON ``options`` of the attributes analysis and of linking, as understood:
        ``attributes`` (the names, ``true``: every one, ``false``: not asked for),
        ``match_attributes`` (the names; empty: none), ``link_top`` — each one the ``recorded``
        options hold (the command line's hold all three) or that the run asks for."""
        names, rule = self.attribute_names, self.rule
        understood = {"attributes": False if names is None else list(names) or True,
                      "match_attributes": list(rule.attributes), "link_top": rule.link_top}
        asked = {"attributes": names is not None, "match_attributes": bool(rule.attributes),
                 "link_top": rule.link_top != 1}
        return {key: value for key, value in understood.items() if key in recorded or asked[key]}

    @cached_property
    def symmetric(self) -> frozenset:
        """``symmetric_relations`` as a set of types (a comma-separated string split).

        >>> sorted(RunOptions(symmetric_relations="Alias, Sibling").symmetric)
        ['Alias', 'Sibling']
        """
        given = self.symmetric_relations
        if not given:
            return frozenset()
        if isinstance(given, str):
            given = given.split(",")
        return frozenset(name.strip() for name in given if name.strip())

    def replace(self, **changes) -> "RunOptions":
        """A copy with ``changes`` (the value itself never changes)."""
        return dataclasses.replace(self, **changes)

    def reading(self) -> dict:
        """The keywords of :func:`spanagree.pipeline.run` that say how the copies are read and reconciled."""
        label_map, only = self.selection
        found = dict(format=self.format, format_options=self.format_options, label_map=label_map, only=only,
                     align_whitespace=self.align_whitespace, jobs=self.jobs, progress=self.progress)
        if self.align_text:
            found["align_text"] = True
        return found


__all__ = ["RunOptions"]
