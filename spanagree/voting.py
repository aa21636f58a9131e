"""Majority-vote merging of several annotators into one gold span set, and the adjudication list.

This module owns the vote: which spans of k annotators end up in a merged gold standard, and
which places a person should look at (``spanagree merge``; docs/merge.md).

Documents
---------
The documents every annotator has are merged (as in ``agree``); a document some annotators lack
is left out of the gold with a warning naming it (``left_out`` in the summary), because votes
need the same voters everywhere. Texts must be identical across annotators, or, with
``align_whitespace``, differ only in whitespace (:func:`~spanagree.texts.reconcile`: spans are
mapped onto the first annotator's copy, whose text the gold carries). A span an annotator marked
twice (same fragments and label) is one vote (warning with the number).

Clusters
--------
Every annotator's spans of a document are grouped into **clusters**; each cluster yields at most
one gold span.

- ``exact``: a cluster is every span with the same fragments (and the same label, with labels
  ``strict``).
- ``overlap``: the spans of every pair of annotators are aligned one-to-one with the overlap rule
  (:func:`~spanagree.match.align`; with labels ``strict`` only same-label spans align, with labels
  ``ignore`` any overlap does); a cluster is a connected piece of the union of these pairwise
  alignments, together with the exact clusters (identical spans are always in one cluster).
  Because each alignment is one-to-one, a long span does not swallow the nested or neighbouring
  spans the other annotators also marked::

      text   Universidad de Madrid        (labels ignore)
      A      [========ORG========]
                            [LOC=]
      B      [========ORG========]
                            [LOC=]
      → two clusters: ORG (A, B) and LOC (A, B); a chain of overlaps does not join them.

  A chain can still put two spans of one annotator in one cluster: A's span aligned with B's,
  B's with C's, and C's with another of A's (typically one annotator marked "Cantabria Madrid"
  where the others marked "Cantabria" and "Madrid"). Such a cluster is **split around its chosen
  fragments** (below): the part that votes on them is, for each annotator, its spans with exactly
  these fragments, or else its one span sharing the most characters with them (then the first in
  canonical order); the other spans form new clusters through the links among them and are voted
  on again by the same rules. Every part is listed for adjudication (``several_spans``)::

      text   Cantabria Madrid             (K = 2)
      A      [==LOC==] [LOC=]
      B      [==LOC==] [LOC=]
      C      [=====LOC======]
      D                [LOC=]
      cluster: A's two spans, B's two, C's, D's (C–A "Cantabria", C–D "Madrid", A–D, B–D "Madrid")
      → "Madrid" (A, B, D: 3 of 4 marked it; with C's span, 4 votes), kept
      → the rest, A's and B's "Cantabria": a new cluster with 2 votes, kept

Votes and tie rules
-------------------
- **Votes** of a cluster = the number of distinct annotators with a span in it. The cluster is
  kept when votes ≥ ``min_votes`` (K; default a strict majority, ``k // 2 + 1``); otherwise it is
  dropped (and listed).
- **Boundaries**: the fragments that most annotators of the cluster marked. Ties go to the
  candidate with the **fewest characters**, then the **earliest start**, then the smaller tuple
  of ``(start, end)`` fragments. (When a longer and a shorter span tie, the shorter one's
  characters were marked by more annotators whenever it lies inside the longer one.)
- **Label**: the label that most annotators of the cluster gave (with labels ``strict`` a cluster
  has one label). Ties go to the label most often given **with the chosen fragments**, then to the
  label that sorts first (code-point order).

Every rule looks at the spans only, never at the annotators' names or order: permuting the
annotators changes nothing.

Adjudication
------------
A cluster is listed for adjudication when it is one of the :data:`KINDS`: ``dropped`` (fewer than
K votes), ``boundary_tie``, ``label_tie``, ``label_split`` (annotators gave different labels: within
the cluster with labels ``ignore``; with labels ``strict``, a span of the cluster has the same
fragments as a span with another label) or ``several_spans``. Each row gives the document, the
proposed span (fragments, text, label), the kinds, the votes, K and every annotator's version.

Merged spans carry one BRAT note (``#:AnnotatorNotes``) with the votes and the voters, e.g.
``3/4 votes: Lisa, Maria, Peter``; the annotators' own attributes and notes are not carried over.
BRAT writes the notes; the other formats leave them out, and say nothing of it (they are the
merge's own record, not notes the inputs had).
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SpanagreeWarning, UsageError, find_stack_level, parameter
from .match import LABEL_RULES, MatchRule, align, shared_characters
from .errorkinds import ADJUDICATION_KINDS
from .options import RunOptions
from .pipeline import Group
from .pipeline.analyses import Plan
from .pipeline.command import execute
from .pipeline.labels import label_warnings, selected
from .pipeline.finish import (announce_texts, check_jobs, common_documents, input_path, present_documents,
                              unique_names)
from .span import CONTEXT, Document, Span, SpanSet

#: Boundary rules of the vote (a subset of the matching rules): the CLI's choices and the docs'.
VOTE_RULES = {
    "exact": "a cluster is every span with the same fragments (and label, with labels strict)",
    "overlap": "a cluster is a connected piece of the pairwise one-to-one overlap alignments",
}

#: Why a cluster is listed for adjudication, in the order they are reported
#: (:data:`spanagree.errorkinds.ADJUDICATION_KINDS`).
KINDS = ADJUDICATION_KINDS

#: Why a cluster no one needs to settle is still not unanimous (``--adjudicate-all``), in the order
#: they are reported after :data:`KINDS`. A cluster is *unanimous* when every annotator marked it
#: once, with the same fragments and the same label; every other cluster has a kind of
#: :data:`KINDS` or of these.
SETTLED_KINDS = {
    "other_boundaries": "kept on the fragments a majority of its annotators marked; the others marked other fragments",
    "not_marked_by_all": "kept, but some annotators marked nothing there",
}

NOTE = "#:AnnotatorNotes"

#: ``merge``'s document designs (``--documents``): which documents are merged, among whom.
MERGE_DESIGNS = ("common", "present")


@dataclass(frozen=True)
class Cluster:
    """One cluster of spans, the span it proposes, and the vote.

    ``members`` are ``(annotator index, span)`` pairs; ``span`` is the proposed span (the chosen
    fragments and label), kept in the gold when ``kept``.
    """

    doc: str
    members: tuple[tuple[int, Span], ...]
    span: Span
    votes: int
    boundary_votes: int
    label_votes: int
    kept: bool
    kinds: tuple[str, ...]

    def versions(self, k: int) -> list[Span]:
        """Annotator ``k``'s spans in this cluster (usually zero or one)."""
        return [span for j, span in self.members if j == k]

    def settled_kinds(self, annotators: int) -> tuple[str, ...]:
        """Why this cluster is not unanimous among ``annotators`` though it needs no decision
        (:data:`SETTLED_KINDS`; none for a cluster that has :attr:`kinds`, which say more)."""
        if self.kinds:
            return ()
        kinds = []
        if self.boundary_votes < self.votes:
            kinds.append("other_boundaries")
        if self.votes < annotators:
            kinds.append("not_marked_by_all")
        return tuple(kinds)

    def unanimous(self, annotators: int) -> bool:
        """Every one of ``annotators`` marked it once, with the same fragments and label."""
        return (not self.kinds and self.votes == self.boundary_votes == self.label_votes == annotators
                and len(self.members) == annotators)


#: The counts of one document's clusters (:func:`tally`), in this order.
COUNT_KEYS = ("clusters", "kept", *KINDS, "to_adjudicate", "not_unanimous")


class VoteClusters:
    """Every merged document's clusters, in document order, read from where the vote spooled them
    (:class:`~spanagree.pipeline.spool.ObjectSpool`): a run over 50,000 documents holds one
    document's clusters at a time, however it is used — iterated, :meth:`of` a document, counted.

    Each document's counts (:func:`tally`) and votes (clusters per number of votes) were taken
    when it was voted on and are kept in memory, packed (:attr:`summaries`, :meth:`counts_of`,
    :meth:`votes_of`), so the summary never reads the spool.
    """

    def __init__(self, store, documents: list[str], summaries: dict[str, bytes]):
        self.store = store          # document -> (text, clusters)
        self.documents = documents
        self.summaries = summaries  # document -> its counts and votes (summary_of), packed

    @classmethod
    def from_list(cls, clusters: list[Cluster], documents: list[str], texts: dict, annotators_on) -> "VoteClusters":
        """Clusters given as a list (in document order), kept in memory."""
        from .pipeline.spool import ObjectSpool

        store = ObjectSpool(None)
        summaries = {}
        by_document: dict[str, list[Cluster]] = {d: [] for d in documents}
        for cluster in clusters:
            by_document.setdefault(cluster.doc, []).append(cluster)
        for doc_id, own in by_document.items():
            store.add(doc_id, (texts.get(doc_id), own))
            summaries[doc_id] = summary_of(own, annotators_on(doc_id))
        return cls(store, documents, summaries)

    def of(self, doc_id: str) -> list[Cluster]:
        """The clusters of ``doc_id``, in the canonical order of their proposed spans."""
        return self.store.load(doc_id)[1]

    def text(self, doc_id: str) -> str | None:
        return self.store.load(doc_id)[0]

    def counted(self, doc_id: str, key: str) -> int:
        """One of ``doc_id``'s counts (a key of :data:`COUNT_KEYS`), without reading its clusters."""
        return self.counts_of(doc_id)[COUNT_KEYS.index(key)]

    def counts_of(self, doc_id: str) -> tuple[int, ...]:
        """``doc_id``'s counts, the values of :data:`COUNT_KEYS` (its clusters are not read)."""
        return unpacked_summary(self.summaries[doc_id])[0]

    def votes_of(self, doc_id: str) -> tuple[tuple[int, int], ...]:
        """``doc_id``'s ``(votes, clusters with that many votes)``, by number of votes."""
        return unpacked_summary(self.summaries[doc_id])[1]

    def __iter__(self):
        for doc_id in self.documents:
            yield from self.of(doc_id)

    def __len__(self) -> int:
        return sum(self.counts_of(d)[0] for d in self.documents)

    def __getitem__(self, index):
        return list(self)[index]

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other) -> bool:
        return list(self) == list(other)


class VoteTexts(Mapping):
    """The merged documents' texts (the first annotator's copy), read with their clusters."""

    def __init__(self, clusters: VoteClusters):
        self.clusters = clusters

    def __getitem__(self, doc_id: str) -> str | None:
        return self.clusters.text(doc_id)

    def __iter__(self):
        return iter(self.clusters.documents)

    def __len__(self) -> int:
        return len(self.clusters.documents)


class GoldDocuments(Mapping):
    """The gold's documents, each made from its kept clusters when it is looked at (writing the
    gold reads one document at a time)."""

    def __init__(self, clusters: VoteClusters):
        self.clusters = clusters

    def __getitem__(self, doc_id: str) -> Document:
        if doc_id not in self.clusters.summaries:
            raise KeyError(doc_id)
        text, clusters = self.clusters.store.load(doc_id)
        return Document(doc_id, text, [c.span for c in clusters if c.kept])

    def __iter__(self):
        return iter(self.clusters.documents)

    def __len__(self) -> int:
        return len(self.clusters.documents)


def summary_of(clusters: list[Cluster], annotators: int) -> bytes:
    """One document's counts (:data:`COUNT_KEYS`) and votes histogram, for :class:`VoteClusters`,
    packed in a few dozen bytes (a corpus of 50,000 documents keeps 50,000 of them).

    Examples
    --------
    >>> unpacked_summary(summary_of([], 3))
    ((0, 0, 0, 0, 0, 0, 0, 0, 0), ())
    """
    from array import array

    counts = tally(clusters, lambda _: annotators)
    histogram: dict[int, int] = {}
    for cluster in clusters:
        histogram[cluster.votes] = histogram.get(cluster.votes, 0) + 1
    values = [counts[k] for k in COUNT_KEYS]
    for votes, number in sorted(histogram.items()):
        values += (votes, number)
    return array("I", values).tobytes()


def unpacked_summary(packed: bytes) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """:func:`summary_of`'s counts and ``(votes, clusters)`` pairs."""
    from array import array

    values = array("I", packed).tolist()
    n = len(COUNT_KEYS)
    pairs = values[n:]
    return tuple(values[:n]), tuple(zip(pairs[::2], pairs[1::2]))


class ListedClusters:
    """What lists merged clusters for adjudication, one at a time (``listed``): a whole
    :class:`Vote`, or one :class:`VotedDocument`."""

    def adjudication_entries(self, *, every: bool = False):
        """One entry per listed cluster (``every``: every cluster that is not unanimous), one at a
        time: what the adjudication listings are written from."""
        from .report.document import cluster_entry

        return (cluster_entry(self, c) for c in self.listed(every=every))


@dataclass
class Vote(ListedClusters):
    """The result of :func:`vote`: the clusters of every document, the gold and the adjudication list.

    ``clusters`` (:class:`VoteClusters`) and ``texts`` read each document from where the vote
    spooled it; a list of clusters and a dict of texts may be given instead.
    """

    annotators: list[str]
    documents: list[str]
    texts: Mapping
    rule: MatchRule
    min_votes: int
    clusters: VoteClusters
    options: dict = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Characters of text before and after each listed cluster (``context_before``, ``context_after``).
    context: int = CONTEXT
    #: ``merge --documents present``: the annotators who have each document (``None``: every
    #: annotator has every merged document).
    present: dict[str, tuple[int, ...]] | None = None
    #: ``merge --documents present`` without ``--min-votes``: each document's K is a strict
    #: majority of the annotators who have it (``min_votes`` is then ``None``).
    majority_present: bool = False
    #: The outputs the ``--jobs`` workers wrote as they voted (:class:`PreparedOutputs`), which
    #: :meth:`write` joins when it writes those outputs (``None``: written from the clusters).
    prepared: "PreparedOutputs | None" = None

    #: Why a cluster is listed for adjudication (:data:`KINDS`), for the reports.
    kinds = tuple(KINDS)
    #: Why a cluster that needs no decision is not unanimous (:data:`SETTLED_KINDS`).
    settled_kinds = tuple(SETTLED_KINDS)

    def __post_init__(self):
        if not isinstance(self.clusters, VoteClusters):
            self.clusters = VoteClusters.from_list(list(self.clusters), self.documents, dict(self.texts),
                                                   self.annotators_on)
            self.texts = VoteTexts(self.clusters)

    def __repr__(self) -> str:
        counts = self.counts()
        return (f"<Vote: {len(self.annotators)} annotators, {len(self.documents)} documents, "
                f"{counts['clusters']} clusters, {counts['kept']} kept, {counts['to_adjudicate']} to adjudicate>")

    def _repr_html_(self) -> str:
        from .report.notebook import vote_html

        return vote_html(self)

    @property
    def gold(self) -> SpanSet:
        """The merged span set: one span per kept cluster, every merged document (with its text)."""
        return SpanSet("merged", {d: self.gold_documents[d] for d in self.documents})

    @property
    def gold_documents(self) -> GoldDocuments:
        """The gold's documents as a mapping that makes each one when it is looked at (what
        :meth:`write` writes from, one document at a time)."""
        return GoldDocuments(self.clusters)

    def annotators_on(self, doc_id: str) -> int:
        """How many annotators have ``doc_id`` (every annotator, unless ``--documents present``)."""
        return len(self.annotators) if self.present is None else len(self.present[doc_id])

    def has(self, k: int, doc_id: str) -> bool:
        """Whether annotator ``k`` has ``doc_id`` (every annotator does, unless ``--documents present``)."""
        return self.present is None or k in self.present[doc_id]

    def min_votes_on(self, doc_id: str) -> int:
        """K for ``doc_id``: ``min_votes``, or a strict majority of those who have it (``--documents present``)."""
        return self.annotators_on(doc_id) // 2 + 1 if self.majority_present else self.min_votes

    def adjudication(self) -> list[Cluster]:
        """The clusters a person should settle (every cluster with a kind), in document order."""
        return list(self.listed())

    def disagreements(self) -> list[Cluster]:
        """Every cluster that is not unanimous (:meth:`Cluster.unanimous`), in document order:
        those to adjudicate and those the vote settled (``--adjudicate-all``)."""
        return list(self.listed(every=True))

    def listed(self, *, every: bool = False):
        """:meth:`adjudication` (``every``: :meth:`disagreements`) one cluster at a time."""
        for doc_id in self.documents:
            yield from self.voted_document(doc_id).listed(every=every)

    def voted_document(self, doc_id: str) -> "VotedDocument":
        """One merged document as its adjudication rows see it (:class:`VotedDocument`)."""
        return VotedDocument(self.annotators, doc_id, self.texts[doc_id], self.clusters.of(doc_id),
                             self.min_votes_on(doc_id), None if self.present is None else self.present[doc_id],
                             self.context)

    def adjudication_rows(self, *, every: bool = False) -> list[dict]:
        """One entry per listed cluster: document, proposed span, kinds, votes, K, every version,
        the context; ``every``: every cluster that is not unanimous (:meth:`disagreements`)."""
        return list(self.adjudication_entries(every=every))

    def adjudication_frame(self, *, every: bool = False):
        """:meth:`adjudication_rows` as a DataFrame (the ``--adjudicate`` CSV's columns)."""
        from .report.tabular import adjudication_rows, frame

        return frame(adjudication_rows(self, every=every))

    def by_document_frame(self):
        """:meth:`counts_by_document` as a DataFrame (one row per document)."""
        from .report.tabular import frame, vote_rows

        return frame(vote_rows(self))

    def adjudication_text(self, path: str | os.PathLike, *, every: bool = False) -> str:
        """The ``--adjudicate`` file (``every``: the ``--adjudicate-all`` file): JSON when ``path``
        ends in ``.json``, CSV otherwise (:func:`spanagree.report.adjudication_listing`)."""
        from .report import adjudication_listing

        return adjudication_listing(self, path, every=every)

    def report_view(self, limit: int | None = None):
        """The HTML report's view of this vote (:func:`spanagree.report.view.vote_view`)."""
        from .report.view import vote_view

        return vote_view(self, limit)

    def write_report(self, path, *, documents: int | None = None, force: bool = False, inputs=()) -> None:
        """Write the HTML report (docs/report.md): every cluster in context, with its vote."""
        from .report.html import write_report

        write_report(self, path, documents=documents, force=force, inputs=inputs)

    def counts(self) -> dict:
        """Clusters, kept clusters (= gold spans), clusters of each kind, clusters listed
        (``to_adjudicate``) and clusters that are not unanimous (``not_unanimous``)."""
        totals = [0] * len(COUNT_KEYS)
        for doc_id in self.documents:
            totals = [a + b for a, b in zip(totals, self.clusters.counts_of(doc_id))]
        return dict(zip(COUNT_KEYS, totals))

    def counts_by_document(self) -> dict[str, dict]:
        """:meth:`counts` for every merged document, in order."""
        return {d: self.counts_of(d) for d in self.documents}

    def counts_of(self, doc_id: str) -> dict:
        """:meth:`counts` of one merged document."""
        return dict(zip(COUNT_KEYS, self.clusters.counts_of(doc_id)))

    def votes_histogram(self) -> dict[int, int]:
        """Clusters per number of votes, over every merged document (by number of votes)."""
        histogram: dict[int, int] = {}
        for doc_id in self.documents:
            for votes, number in self.clusters.votes_of(doc_id):
                histogram[votes] = histogram.get(votes, 0) + number
        return dict(sorted(histogram.items()))

    def to_dict(self) -> dict:
        """The ``--output json`` summary (the ``merge`` schema)."""
        from .report.document import vote_document

        return vote_document(self)

    def table(self) -> str:
        """A readable summary: one row per document and the total."""
        from .report.terminal import vote_table

        return vote_table(self)

    def csv(self) -> str:
        """One CSV row per document (and a total row) with the counts of :meth:`counts`."""
        from .report.tabular import vote_csv

        return vote_csv(self)

    def discard(self) -> None:
        """Remove what the vote spooled (its temporary folder; on a Dask cluster, the hidden one
        beside the gold) now, instead of when the vote is collected: the command line calls it
        when writing fails, so that nothing is left behind. The vote's clusters cannot be read
        after it."""
        folder = getattr(self.clusters.store, "folder", None)
        if hasattr(folder, "remove"):
            folder.remove()

    def write(self, dest: str | os.PathLike, format: str, *, adjudicate: str | os.PathLike | None = None,
              force: bool = False, adjudicate_all: str | os.PathLike | None = None, **format_options) -> None:
        """Write the gold to ``dest`` in ``format`` and, if asked, the adjudication list
        (``adjudicate``) and the list of every cluster that is not unanimous (``adjudicate_all``).

        Every destination is checked before anything is written (see :func:`check_outputs`);
        the gold is written to a temporary place, the listings are moved into place, then
        the gold is moved last, so a run that fails leaves no half-written gold behind.
        """
        from .formats import get_format, write
        from .outputs import write_atomically
        from .report import write_adjudication

        check_outputs(dest, adjudicate, force=force, adjudicate_all=adjudicate_all, format=format)
        gold = SpanSet("merged", self.gold_documents)  # each document made as the writer gets to it
        prepared, self.prepared = self.prepared, None  # what the workers wrote is used once (BRAT's files move)
        if prepared is None:
            prepared = PreparedOutputs(None, None, self.annotators, self.context)

        def produce(temporary: Path) -> None:
            # the gold's only attributes are merge's own vote notes (the annotators' are not carried
            # over): a format that cannot hold them leaves them out without announcing dropped notes;
            # its documents, made here, hold no relations
            write(gold, temporary, format, attribute_keys={}, holds_relations=False,
                  parts=prepared.gold_for(format, format_options), **format_options)
            if adjudicate is not None:
                write_adjudication(self, adjudicate, force=force, parts=prepared.listing_for(adjudicate, False))
            if adjudicate_all is not None:
                write_adjudication(self, adjudicate_all, every=True, force=force,
                                   parts=prepared.listing_for(adjudicate_all, True))

        write_atomically(dest, produce, force=force, what="gold output",
                         folder=get_format(format).writes_to_folder)


class VotedDocument(ListedClusters):
    """One voted document as the adjudication rows see a :class:`Vote` (the same attributes and
    methods, for this document): what a ``--jobs`` worker writes the document's rows from.

    ``holders``: the annotators who have the document (``None``: every annotator); ``min_votes``:
    its K.
    """

    def __init__(self, annotators: list[str], doc_id: str, text: str | None, clusters: list[Cluster],
                 min_votes: int, holders: tuple[int, ...] | None, context: int):
        self.annotators = annotators
        self.documents = [doc_id]
        self.texts = {doc_id: text}
        self.clusters = clusters
        self.context = context
        self._min_votes = min_votes
        self._holders = holders

    def annotators_on(self, doc_id: str) -> int:
        return len(self.annotators) if self._holders is None else len(self._holders)

    def has(self, k: int, doc_id: str) -> bool:
        return self._holders is None or k in self._holders

    def min_votes_on(self, doc_id: str) -> int:
        return self._min_votes

    def listed(self, *, every: bool = False):
        """Its clusters with a kind (``every``: that are not unanimous), in order."""
        if every:
            annotators = self.annotators_on(self.documents[0])
            return (c for c in self.clusters if not c.unanimous(annotators))
        return (c for c in self.clusters if c.kinds)


@dataclass
class OutputPlan:
    """The outputs ``merge`` will write, known before the vote (the command line's), so that the
    ``--jobs`` workers write each document's share of them as they vote on it
    (:class:`PreparedOutputs`, :mod:`spanagree.pipeline.parts`).

    ``format``, ``format_options``: the gold's (as :meth:`Vote.write` takes them); ``listings``:
    ``{every: path}`` of the adjudication files (``every``: ``--adjudicate-all``'s); ``dest``: the
    gold's path, beside which a Dask cluster's workers spool (:meth:`place`).
    """

    format: str
    format_options: dict = field(default_factory=dict)
    listings: dict = field(default_factory=dict)
    dest: str | os.PathLike | None = None

    def place(self) -> str | None:
        """The folder the outputs go to (the gold's, else the first listing's), ``None`` without
        an output: where a Dask cluster's workers spool (:func:`~spanagree.pipeline.spool.shared_spool`)."""
        first = self.dest if self.dest is not None else next(iter(self.listings.values()), None)
        return None if first is None else os.path.dirname(os.path.abspath(first))

    def folder_gold(self) -> "OutputPlan | None":
        """What one process writes as it votes: the gold alone, when its format writes a file per
        document (BRAT), whose files are then moved into place; ``None`` otherwise. (A gold written
        after the vote reads every document's clusters back from the spool twice: the writer
        checks every document before it writes any. The listings, and a gold of one file, are
        written after the vote, where they join nothing.)"""
        from .formats import get_format

        if not get_format(self.format).writes_to_folder or self.writer_options(self.format, self.format_options) is None:
            return None
        return OutputPlan(self.format, self.format_options, {}, self.dest)

    def writer_options(self, format: str, format_options: dict) -> dict | None:
        """The gold writer's options for ``format`` (``None``: the format is not written in parts)."""
        from .formats import get_format

        fmt = get_format(format)
        if not fmt.written_in_parts():
            return None
        return {k: v for k, v in format_options.items() if k in fmt.writer_keywords and v is not None}


class PreparedOutputs:
    """``merge``'s outputs written as the vote goes (each ``--jobs`` worker's documents): the gold
    in its format (:class:`~spanagree.pipeline.parts.GoldParts`) and the adjudication listings
    (:class:`~spanagree.pipeline.parts.ListingParts`), into the spool's folder; part of the
    vote's tally (added up with ``+=``), joined by :meth:`Vote.write` (``plan`` ``None``: nothing
    prepared)."""

    def __init__(self, plan: OutputPlan | None, folder: str | None, names: list[str], context: int):
        from .pipeline.parts import GoldParts, ListingParts

        self.plan = plan
        self.annotators = names
        self.context = context
        options = None if plan is None else plan.writer_options(plan.format, plan.format_options)
        self.gold = None if options is None else GoldParts(folder, plan.format)
        self.listings = {} if plan is None else {every: ListingParts(folder) for every in plan.listings}
        self._writers = None  # made in the process that writes (not sent back)

    def __getstate__(self):
        return {**self.__dict__, "_writers": None}

    def __iadd__(self, other: "PreparedOutputs") -> "PreparedOutputs":
        if self.gold is not None:
            self.gold = None if other.gold is None else self.gold.__iadd__(other.gold)
        for every, parts in self.listings.items():
            parts += other.listings[every]
        return self

    def _made_writers(self) -> tuple:
        from .formats import get_format
        from .report import Listing
        from .report.tabular import adjudication_columns

        gold = None
        if self.gold is not None and get_format(self.plan.format).file_writer() is not None:
            options = self.plan.writer_options(self.plan.format, self.plan.format_options)
            try:
                gold = get_format(self.plan.format).file_writer()(**options)
            except UsageError:  # the options refused: the parent writes the gold, and meets the error
                self.gold = None
        columns = adjudication_columns(self)
        return gold, {every: Listing(path, columns) for every, path in self.plan.listings.items()}

    def add(self, doc_id: str, text: str | None, clusters: list[Cluster], min_votes: int,
            holders: tuple[int, ...] | None) -> None:
        """Write one voted document's share of the outputs."""
        from .report import adjudication_rows_of

        if self._writers is None:
            self._writers = self._made_writers()
        gold_writer, listings = self._writers
        if self.gold is not None:
            document = Document(doc_id, text, [c.span for c in clusters if c.kept])
            parts = self.gold.parts
            try:
                parts.add(doc_id, document if gold_writer is None else gold_writer.document(doc_id, document))
            except UsageError:  # written again by the parent, which meets the error in document order
                parts.failed.add(doc_id)
        if listings:
            voted = VotedDocument(self.annotators, doc_id, text, clusters, min_votes, holders, self.context)
            for every, listing in listings.items():
                rows = adjudication_rows_of(voted, listing.json, every=every)
                self.listings[every].parts.add(doc_id, "".join(listing.row(row) for row in rows))

    def gold_for(self, format: str, format_options: dict):
        """The gold's parts if they were written in ``format`` with these options, else ``None``."""
        plan = self.plan
        if self.gold is None or plan.format != format:
            return None
        if plan.writer_options(format, plan.format_options) != plan.writer_options(format, format_options):
            return None
        return self.gold

    def listing_for(self, path, every: bool):
        """The parts of the listing at ``path`` (``every``: ``--adjudicate-all``'s), if written as it is."""
        if self.plan is None or every not in self.plan.listings:
            return None
        json = str(path).lower().endswith(".json")
        return self.listings[every] if str(self.plan.listings[every]).lower().endswith(".json") == json else None


def tally(clusters: list[Cluster], annotators_on) -> dict:
    """The counts of :meth:`Vote.counts`; ``annotators_on(document)``: how many annotators have it."""
    result = {"clusters": len(clusters), "kept": sum(c.kept for c in clusters)}
    for kind in KINDS:
        result[kind] = sum(kind in c.kinds for c in clusters)
    result["to_adjudicate"] = sum(bool(c.kinds) for c in clusters)
    result["not_unanimous"] = sum(not c.unanimous(annotators_on(c.doc)) for c in clusters)
    return result


def check_outputs(dest: str | os.PathLike, adjudicate: str | os.PathLike | None = None, *,
                  force: bool = False, adjudicate_all: str | os.PathLike | None = None,
                  format: str | None = None) -> None:
    """Refuse before anything is written: an existing non-empty gold or adjudication file
    (without ``force``), a folder where a file is written or a file where a folder is (the gold
    in ``format``; the listings are files), an adjudication file at or inside the gold's place,
    or both adjudication files at one place."""
    from .formats import get_format
    from .outputs import check_destination

    folder = get_format(format).writes_to_folder if format is not None else None
    check_destination(dest, force=force, what="gold output", folder=folder)
    gold = Path(dest).resolve()
    for name in (adjudicate, adjudicate_all):
        if name is None:
            continue
        check_destination(name, force=force, what="adjudication file", folder=False)
        listing = Path(name).resolve()
        if listing == gold or gold in listing.parents:
            raise UsageError(f"{name}: the adjudication file cannot be the gold output or inside it ({dest})")
    both = adjudicate is not None and adjudicate_all is not None
    if both and Path(adjudicate).resolve() == Path(adjudicate_all).resolve():
        raise UsageError(f"{adjudicate_all}: {{adjudicate}} and {{adjudicate_all}} cannot be one file",
                         adjudicate="adjudicate", adjudicate_all="adjudicate_all")


def resolve_min_votes(min_votes, annotators: int) -> int:
    """K: a strict majority by default (``None`` or ``"majority"``); an integer in [1, annotators]
    otherwise (else UsageError)."""
    if min_votes is None or min_votes == "majority":
        return annotators // 2 + 1
    if isinstance(min_votes, bool) or not isinstance(min_votes, int):
        raise UsageError(f"{{option}} must be a whole number, got {min_votes!r}", option="min_votes")
    if not 1 <= min_votes <= annotators:
        raise UsageError(f"{{option}} must be between 1 and the number of annotators ({annotators}), got {min_votes}",
                         option="min_votes")
    return min_votes


def vote(inputs, min_votes: int | None = None, *, match: str = "exact", labels: str = "strict",
         only=None, label_map=None, align_whitespace: bool = False, align_text: bool = False, jobs: int = 1,
         format: str | None = None,
         format_options: dict | None = None, options: dict | None = None, annotators=None,
         context: int = CONTEXT, documents: str = "common", progress: bool = False, scheduler=None,
         scheduler_timeout: float = 10.0, outputs: OutputPlan | None = None, document_key: str = "id") -> Vote:
    """Cluster the spans of several annotators and vote on every cluster.

    Parameters
    ----------
    inputs : list of SpanSet, DocumentStream or path
        Two or more annotators (paths are read and voted on document by document).
    min_votes : int or "majority", optional
        K, the annotators needed to keep a cluster: 1 ≤ K ≤ k; default (``None`` or
        ``"majority"``) a strict majority (``k // 2 + 1``; with ``documents="present"``, of the
        annotators who have the document).
    match : {"exact", "overlap"}
        How spans are grouped into clusters (see the module documentation).
    labels : {"strict", "ignore"}
        With ``strict`` only same-label spans share a cluster; with ``ignore`` the label is voted.
    only, label_map
        As in :func:`spanagree.agree` (``--only``, ``--map``), applied first.
    align_whitespace : bool
        Merge copies of a document that differ only in whitespace (the first annotator's text is kept).
    align_text : bool
        Merge copies whose texts differ through a character alignment to the first annotator's
        text (:mod:`spanagree.textalign`), as :func:`spanagree.agree` does.
    jobs : int
        Vote on documents in this many processes (the result is identical).
    progress, scheduler, scheduler_timeout
        A progress bar; a Dask cluster to vote on, and how long connecting to it may take:
        as in :func:`spanagree.agree`.
    document_key : {"id", "text"}
        How the copies of a document are paired: by their ids (default), or by their texts when
        tools gave them other ids (each takes the first input's id for the same text;
        :mod:`spanagree.pipeline.document_key`).
    documents : {"common", "present"}
        ``"common"``: merge the documents every annotator has (the others are left out with a
        warning). ``"present"``: designs where each document is annotated by some of the
        annotators (round-robin): each document held by two or more annotators is voted on
        among those who have it — ``min_votes`` a count of them, or by default a strict
        majority of them; documents only one annotator has are left out.
    format, format_options, options, annotators
        As in :func:`spanagree.agree` (a path holding several annotators counts as each of them).
    context : int
        Characters of text before and after each listed cluster (``context_before``,
        ``context_after`` of the adjudication rows); 0 gives empty strings.
    outputs : OutputPlan, optional
        The outputs :meth:`Vote.write` will be asked for (``merge``'s command line): with
        ``jobs`` above 1, or on a cluster, each process writes its documents' share of them as it
        votes, and :meth:`Vote.write` joins the shares (the same bytes, without a serial tail).
        On a cluster, the workers spool beside the outputs (:meth:`OutputPlan.place`, a folder
        they must share with the client); without it, or when they cannot write there, every
        document's clusters are kept in memory.

    Returns
    -------
    Vote
        ``.gold`` is the merged :class:`~spanagree.span.SpanSet`; ``.adjudication()`` the clusters
        to settle; ``.to_dict()`` the summary.

    Raises
    ------
    UsageError
        Fewer than two annotators, K out of range, an unknown rule.
    SpanagreeError
        No document every annotator has.
    FormatError
        A document whose texts differ between annotators (see ``align_whitespace``).

    Notes
    -----
    A cluster C is kept when ``votes(C) = |{annotators with a span in C}| ≥ K``. It proposes the
    fragments f maximising ``|{annotators with a span in C with fragments f}|`` (ties: fewest
    characters, earliest start, smaller fragments) and the label l maximising
    ``|{annotators with a span in C labelled l}|`` (ties: most often given with f, then the first
    in code-point order).

    Examples
    --------
    Three annotators, K = 2 (the default)::

        text   Ana Ruiz met Bo
        A      [=PER==]     []
        B      [=PER==]
        C      [=]          []        (every span PER)

    >>> from spanagree.span import Span, SpanSet
    >>> t = {"d": "Ana Ruiz met Bo"}
    >>> A = SpanSet.from_spans("A", [Span("d", (0, 8), "PER"), Span("d", (13, 15), "PER")], t)
    >>> B = SpanSet.from_spans("B", [Span("d", (0, 8), "PER")], t)
    >>> C = SpanSet.from_spans("C", [Span("d", (0, 3), "PER"), Span("d", (13, 15), "PER")], t)
    >>> [(s.fragments, s.label) for s in vote([A, B, C]).gold]
    [(((0, 8),), 'PER'), (((13, 15),), 'PER')]
    >>> [(c.span.fragments, c.kinds) for c in vote([A, B, C]).adjudication()]
    [(((0, 3),), ('dropped',))]
    >>> [(c.span.fragments, c.votes, c.boundary_votes) for c in vote([A, B, C], match="overlap").clusters]
    [(((0, 8),), 3, 2), (((13, 15),), 2, 2)]
    """
    options = RunOptions(match=match, labels=labels, only=only, label_map=label_map, align_whitespace=align_whitespace,
                         align_text=align_text, jobs=jobs, format=format, format_options=format_options,
                         record=options, annotators=annotators, context=context, documents=documents,
                         progress=progress, scheduler=scheduler,
                         scheduler_timeout=scheduler_timeout, document_key=document_key)
    return vote_with(inputs, options, min_votes, outputs)


def vote_with(inputs, options: RunOptions, min_votes: int | None = None, outputs: OutputPlan | None = None) -> Vote:
    """:func:`vote` on one :class:`~spanagree.options.RunOptions` (what the command line builds
    from its flags; :func:`vote` builds it from its keywords)."""
    command = VoteCommand(min_votes, outputs)
    ran = execute(command, inputs, options, count_labels=options.labels == "strict")
    accumulator, inputs, names, rule = ran.accumulator, ran.inputs, ran.names, options.rule
    label_map, only = options.selection
    present, majority, k = options.documents == "present", command.majority, command.k
    design = options.documents
    paths = [input_path(item) for item in inputs]
    if present:
        documents, left_out = present_documents(names, accumulator.orders, paths=paths)
    else:
        documents, left_out = common_documents(names, accumulator.orders, left_out_of=" of the merge", paths=paths)
    (group,) = accumulator.groups
    texts_differ = announce_texts(group.texts, documents)
    if texts_differ:
        left_out["texts_differ"] = texts_differ
    documents = [d for d in documents if d not in group.texts.left_out]
    tally = group.compared
    for name, count in zip(names, tally.duplicates):
        if count:
            warnings.warn(f"{name}: {count} span(s) marked twice (same fragments and label) count as one vote",
                          SpanagreeWarning, stacklevel=find_stack_level())
    tally.store.close()
    clusters = VoteClusters(tally.store, documents, tally.summaries)
    notes = [f"{name}: {note}" for name, own in zip(names, accumulator.notes) for note in own]
    if group.texts.whitespace_aligned:
        notes.append(f"{group.texts.whitespace_aligned} document(s) merged through their non-whitespace "
                     "characters (texts differ only in whitespace; the first annotator's text is kept)")
    from .pipeline.finish import aligned_note, aligned_texts

    notes += aligned_note(aligned_texts(group.texts, documents))
    if tally.attributed or tally.relations:
        left = [f"{tally.attributed} span(s) with attributes"] if tally.attributed else []
        left += [f"{tally.relations} relation(s) and event(s)"] if tally.relations else []
        notes.append(f"merge votes on spans and leaves the annotators' attributes, relations and events out: "
                     f"{' and '.join(left)} (the merged gold holds the vote's own notes only)")
    compared = [selected(counts, label_map, only) for counts in accumulator.labels] if rule.strict_labels else []
    notes += label_warnings(accumulator.labels, [(names[i], compared[i], names[j], compared[j]) for i, j in
                                                 itertools.combinations(range(len(compared)), 2)],
                            label_map=label_map, only=only)
    # The values as understood first, then the rest of the caller's record of the run (the CLI's
    # arguments); the values as understood win.
    understood = {"min_votes": None if majority else min_votes, "match": options.match, "labels": options.labels,
                  "only": sorted(only) if only else None, "map": label_map or None,
                  "align_whitespace": options.align_whitespace, "documents": design,
                  "align_text": options.align_text}
    opts = {**understood, **(options.record or {}), **understood}
    if present:
        held = {d: tally.present[d] for d in documents}
        short = [d for d in documents if not majority and len(held[d]) < k]
        if short:
            warnings.warn(SpanagreeWarning(f"{len(short)} document(s) have fewer annotators than {{k}}: nothing can be "
                                           "kept there: " + ", ".join(short), k=parameter("min_votes", k)),
                          stacklevel=find_stack_level())
        return Vote(names, documents, VoteTexts(clusters), rule, None if majority else k,
                    clusters, opts, left_out, notes, options.context, present=held, majority_present=majority,
                    prepared=tally.prepared)
    return Vote(names, documents, VoteTexts(clusters), rule, k, clusters, opts, left_out, notes, options.context,
                prepared=tally.prepared)


def attributed_spans(spansets: list[SpanSet], documents: list[str]) -> int:
    """The spans of ``documents`` that have attributes compared by ``--attributes``
    (:func:`spanagree.span.compared_attributes`), which the merged gold leaves out."""
    from .span import compared_attributes

    return sum(1 for spanset in spansets for doc_id in documents if doc_id in spanset.documents
               for span in spanset.documents[doc_id].spans if span.attributes and compared_attributes(span))


class VoteTally:
    """What the vote found, document by document: each document's text (the first annotator's
    copy) and clusters, spooled (:class:`~spanagree.pipeline.spool.ObjectSpool`); each document's
    counts and votes histogram (:func:`summary_of`); the spans each annotator marked twice; the
    outputs written as it goes (:class:`PreparedOutputs`, when asked for)."""

    def __init__(self, annotators: int, folder: str | None = None, prepared: PreparedOutputs | None = None):
        from .pipeline.spool import ObjectSpool

        self.store = ObjectSpool(folder)
        self.summaries: dict[str, bytes] = {}  # summary_of each document
        self.duplicates = [0] * annotators
        self.present: dict[str, tuple[int, ...]] = {}  # --documents present: who has each document
        self.prepared = prepared  # the outputs written as the vote goes (merge --jobs)
        self.attributed = 0  # spans with attributes, which the merged gold leaves out (a note says so)
        self.relations = 0  # the annotators' relations and events, which the vote leaves out (the same note)

    def __iadd__(self, other: "VoteTally") -> "VoteTally":
        self.store += other.store
        self.attributed += other.attributed
        self.relations += other.relations
        if self.prepared is not None:
            self.prepared += other.prepared
        self.summaries.update(other.summaries)
        self.present.update(other.present)
        self.duplicates = [a + b for a, b in zip(self.duplicates, other.duplicates)]
        return self


class VoteComparison:
    """``merge``'s comparison: every document's copies clustered and voted on.

    ``folder``: where each document's clusters are spooled as they are voted on (``None``: kept
    in memory, as on a Dask cluster whose workers share no folder with the client). ``outputs``:
    the outputs to write as the vote goes, each document's share by the process that votes on it
    (``merge --jobs``, or on a cluster; only with a ``folder``, which the parent or the client
    reads), ``context`` their rows' context."""

    def __init__(self, rule: MatchRule, min_votes: int, names: list[str], *, present: bool = False,
                 majority: bool = False, folder: str | None = None, outputs: OutputPlan | None = None,
                 context: int = CONTEXT):
        self.rule = rule
        self.min_votes = min_votes
        self.names = names
        self.present = present    # --documents present: vote among the annotators who have the document
        self.majority = majority  # ... each document's K a strict majority of them
        self.folder = folder
        self.outputs = outputs if folder is not None else None
        self.context = context

    def tally(self) -> VoteTally:
        prepared = (None if self.outputs is None
                    else PreparedOutputs(self.outputs, self.folder, self.names, self.context))
        return VoteTally(len(self.names), self.folder, prepared)

    def compare(self, tally: VoteTally, group: int, spansets: list[SpanSet], documents: list[str]) -> None:
        ballots, texts, duplicates = ballots_of(spansets, documents)
        tally.duplicates = [a + b for a, b in zip(tally.duplicates, duplicates)]
        tally.attributed += attributed_spans(spansets, documents)
        tally.relations += sum(len(s.documents[d].relations) for s in spansets for d in documents if d in s.documents)
        for ballot in ballots:
            doc_id, k = ballot[0], self.min_votes
            voters, holders = len(self.names), None
            if self.present:
                holders = tuple(k for k, s in enumerate(spansets) if doc_id in s.documents)
                tally.present[doc_id] = holders
                voters = len(holders)
                if self.majority:
                    k = voters // 2 + 1
            clusters = vote_document(ballot, self.rule, k, self.names, voters)
            tally.summaries[doc_id] = summary_of(clusters, voters)
            tally.store.add(doc_id, (texts[doc_id], clusters))
            if tally.prepared is not None:
                tally.prepared.add(doc_id, texts[doc_id], clusters, k, holders)


class VoteCommand:
    """``merge``'s part of the command skeleton (:mod:`spanagree.pipeline.command`): every
    document's copies clustered and voted on (:class:`VoteComparison`)."""

    name, also = "merge", ()

    def __init__(self, min_votes, outputs: OutputPlan | None):
        self.min_votes, self.outputs = min_votes, outputs
        self.majority = min_votes is None or min_votes == "majority"
        self.k = None

    def expanded(self, inputs: list, options: RunOptions) -> list:
        if len(inputs) < 2:
            raise UsageError(f"merge needs at least two annotators; the inputs hold {len(inputs)}")
        if options.match not in VOTE_RULES:
            raise UsageError(f"unknown merge rule {options.match!r}; choose one of: {', '.join(VOTE_RULES)}")
        if options.labels not in LABEL_RULES:
            raise UsageError(f"unknown label rule {options.labels!r}; choose one of: {', '.join(LABEL_RULES)}")
        check_jobs(options.jobs)
        from .scoring import check_context

        check_context(options.context)
        if options.documents not in MERGE_DESIGNS:
            raise UsageError(f"unknown document design {options.documents!r}; choose one of: "
                             f"{', '.join(MERGE_DESIGNS)}")
        self.k = resolve_min_votes(None if self.majority else self.min_votes, len(inputs))
        options.rule, options.selection
        return inputs

    def plan(self, inputs: list, options: RunOptions):
        names = unique_names(inputs)
        groups = [Group(tuple(range(len(inputs))), present=options.documents == "present")]
        return groups, Plan("merge", names, []), None

    def spooling(self, client, inputs: list, options: RunOptions):
        from contextlib import contextmanager

        from .pipeline.spool import spooling

        @contextmanager
        def folders():
            # each document's clusters go to disk as it is voted on: in a temporary folder, or on a
            # cluster in one beside the outputs that the workers share with the client (else in memory)
            with spooling(client, self.outputs.place() if self.outputs is not None else None,
                          [input_path(item) for item in inputs],
                          kept="merge keeps every document's clusters") as (folder, run_on):
                yield {"clusters": folder}, run_on

        return folders()

    def comparison(self, plan, layouts, analyses, folders, client, options):
        return VoteComparison(plan.rule, self.k, plan.names, present=options.documents == "present",
                              majority=self.majority, folder=folders["clusters"],
                              outputs=self.outputs if options.jobs > 1 or client is not None
                              else self.outputs and self.outputs.folder_gold(),
                              context=options.context)


def merge(spansets: list[SpanSet], min_votes: int | None = None, *, match: str = "exact", labels: str = "strict",
          only=None, label_map=None, align_whitespace: bool = False, jobs: int = 1) -> SpanSet:
    """A majority-vote gold standard from several annotators: ``vote(...).gold``.

    A span (or, with ``match="overlap"``, a cluster of overlapping spans) is kept where at least
    ``min_votes`` annotators marked it; the rules and their ties are in the module documentation
    and in docs/merge.md. Parameters as in :func:`vote`.

    Examples
    --------
    Two annotators and K = 2 keep exactly the spans both marked:

    >>> from spanagree.span import Span, SpanSet
    >>> A = SpanSet.from_spans("A", [Span("d", (0, 3), "PER"), Span("d", (7, 11), "LOC")], {"d": "Ana in Rome"})
    >>> B = SpanSet.from_spans("B", [Span("d", (0, 3), "PER"), Span("d", (7, 11), "ORG")], {"d": "Ana in Rome"})
    >>> [(s.fragments, s.label) for s in merge([A, B], 2)]
    [(((0, 3),), 'PER')]
    """
    return vote(spansets, min_votes, match=match, labels=labels, only=only, label_map=label_map,
                align_whitespace=align_whitespace, jobs=jobs).gold


# -- one document ------------------------------------------------------------------------------

Ballot = tuple[str, list[list[Span]]]  # document id, each annotator's distinct spans


def ballots_of(spansets: list[SpanSet], documents: list[str]) -> tuple[list[Ballot], dict, list[int]]:
    """Per document: every annotator's spans without repeats; the texts; repeats per annotator."""
    ballots, texts = [], {}
    duplicates = [0] * len(spansets)
    for doc_id in documents:
        copies = [s.documents.get(doc_id) for s in spansets]  # None: absent (merge --documents present)
        texts[doc_id] = next((d.text for d in copies if d is not None and d.text is not None), None)
        versions = []
        for k, document in enumerate(copies):
            if document is None:
                versions.append([])
                continue
            distinct = list({(s.fragments, s.label): s for s in reversed(document.spans)}.values())
            distinct.reverse()
            duplicates[k] += len(document.spans) - len(distinct)
            versions.append(distinct)
        ballots.append((doc_id, versions))
    return ballots, texts, duplicates


def links_of(versions: list[list[Span]], rule: MatchRule) -> tuple[list[tuple[int, Span]], list[tuple[int, int]]]:
    """The nodes ``(annotator, span)`` of one document and the links that make clusters.

    Spans identical on the rule's key are linked; with ``overlap``, so are the two spans of every
    pair of every pairwise one-to-one alignment. Links are pairs of node indices.
    """
    nodes = [(k, span) for k, spans in enumerate(versions) for span in spans]
    links = []
    first_with_key: dict = {}
    for n, (_, span) in enumerate(nodes):
        m = first_with_key.setdefault(rule.key(span), n)
        if m != n:
            links.append((m, n))
    if rule.boundary == "overlap":
        node_of = {(k, id(span)): n for n, (k, span) in enumerate(nodes)}
        for i, j in itertools.combinations(range(len(versions)), 2):
            if versions[i] and versions[j]:
                for pair in align(versions[i], versions[j], rule).pairs:
                    links.append((node_of[(i, id(pair.first))], node_of[(j, id(pair.second))]))
    return nodes, links


def components(subset, links: list[tuple[int, int]]) -> list[list[int]]:
    """Connected pieces of the nodes in ``subset`` through the links between them (each sorted).

    A union-find, not ``scipy.sparse.csgraph.connected_components``: on the benchmark corpus,
    ``merge --match overlap`` calls this 10,000 times (once per document), 1.4 s in all, where
    csgraph took 13.1 s (a sparse matrix per call) plus 1.4 s to import (benchmarks/RESULTS.md).
    """
    inside = set(subset)
    parent = {n: n for n in inside}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in links:
        if x in inside and y in inside:
            rx, ry = find(x), find(y)
            if rx != ry:
                parent[max(rx, ry)] = min(rx, ry)
    groups: dict[int, list[int]] = {}
    for n in sorted(inside):
        groups.setdefault(find(n), []).append(n)
    return list(groups.values())


def fragments_order(fragments) -> tuple:
    """The boundary tie rule: fewest characters, then earliest start, then the smaller fragments."""
    return (sum(e - s for s, e in fragments), fragments[0][0], fragments)


def choose_fragments(members: list[tuple[int, Span]]) -> tuple[tuple, int, bool]:
    """The fragments most annotators marked (ties by :func:`fragments_order`), their votes, tied?"""
    by_fragments: dict = {}
    for k, span in members:
        by_fragments.setdefault(span.fragments, set()).add(k)
    top = max(len(v) for v in by_fragments.values())
    tied = [f for f, v in by_fragments.items() if len(v) == top]
    return min(tied, key=fragments_order), top, len(tied) > 1


def around(members: list[tuple[int, Span]], fragments) -> tuple[list[int], list[int]]:
    """Split a cluster around the chosen fragments: indices of the part that votes on them —
    each annotator's spans with exactly these fragments, or else its one span sharing the most
    characters with them (then the first in canonical order) — and indices of the rest."""
    part = []
    for k in sorted({k for k, _ in members}):
        own = [i for i, (j, _) in enumerate(members) if j == k]
        exact = [i for i in own if members[i][1].fragments == fragments]
        if exact:
            part.extend(exact)
            continue
        overlapping = [(shared_characters(members[i][1].fragments, fragments), i) for i in own]
        overlapping = [(n, i) for n, i in overlapping if n > 0]
        if overlapping:
            part.append(min(overlapping, key=lambda x: (-x[0], members[x[1]][1].sort_key()))[1])
    rest = sorted(set(range(len(members))) - set(part))
    return sorted(part), rest


#: The vote on one cluster as plain data (cheap to send between processes): the node indices of
#: its members, the chosen fragments and label, the votes for them, and its kinds.
Verdict = tuple[tuple[int, ...], tuple, str, int, int, tuple[str, ...]]


def verdict(group: list[int], members: list[tuple[int, Span]], chosen: tuple[tuple, int, bool], rule: MatchRule,
            min_votes: int, split_fragments: set, chained: bool) -> Verdict:
    """The vote on one cluster whose fragments are chosen: its label and why it is listed."""
    fragments, boundary_votes, boundary_tie = chosen
    voters = {k for k, _ in members}
    by_label: dict = {}
    for k, span in members:
        by_label.setdefault(span.label, set()).add(k)
    top_label = max(len(v) for v in by_label.values())
    tied_labels = [label for label, v in by_label.items() if len(v) == top_label]
    if len(tied_labels) == 1:
        label = tied_labels[0]
    else:
        with_fragments = {label: {k for k, s in members if s.fragments == fragments and s.label == label}
                          for label in tied_labels}
        label = min(tied_labels, key=lambda l: (-len(with_fragments[l]), l))
    kinds = []
    if len(voters) < min_votes:
        kinds.append("dropped")
    if boundary_tie:
        kinds.append("boundary_tie")
    if len(tied_labels) > 1:
        kinds.append("label_tie")
    elif (len(by_label) > 1 if not rule.strict_labels
          else any(span.fragments in split_fragments for _, span in members)):
        kinds.append("label_split")
    if chained or len(members) > len(voters):
        kinds.append("several_spans")
    return tuple(group), fragments, label, boundary_votes, top_label, tuple(kinds)


def verdicts_of(versions: list[list[Span]], rule: MatchRule, min_votes: int) -> list[Verdict]:
    """The vote on every cluster of one document (annotators' distinct spans in ``versions``).

    A cluster in which one annotator has several spans is split around its chosen fragments
    (:func:`around`); the rest forms new clusters from the links among it, voted on again.
    """
    labels_of: dict = {}
    for spans in versions:
        for span in spans:
            labels_of.setdefault(span.fragments, set()).add(span.label)
    split_fragments = {f for f, labels in labels_of.items() if len(labels) > 1}
    if rule.boundary == "exact" and rule.strict_labels:
        # Every cluster is the spans equal on (fragments, label), at most one per annotator (its
        # spans are distinct): what the general path below finds, without its links and choices.
        nodes = [(k, span) for k, spans in enumerate(versions) for span in spans]
        groups: dict = {}
        for n, (_, span) in enumerate(nodes):
            groups.setdefault((span.fragments, span.label), []).append(n)
        return [verdict(group, members, (members[0][1].fragments, len(members), False), rule, min_votes,
                        split_fragments, False)
                for group in groups.values() for members in ([nodes[n] for n in group],)]
    nodes, links = links_of(versions, rule)
    verdicts = []
    pending = [(group, False) for group in components(range(len(nodes)), links)]
    while pending:
        group, chained = pending.pop()
        members = [nodes[n] for n in group]
        chosen = choose_fragments(members)
        if len({k for k, _ in members}) == len(members):
            verdicts.append(verdict(group, members, chosen, rule, min_votes, split_fragments, chained))
            continue
        part, rest = around(members, chosen[0])
        verdicts.append(verdict([group[i] for i in part], [members[i] for i in part], chosen, rule, min_votes,
                                split_fragments, True))
        pending.extend((piece, True) for piece in components([group[i] for i in rest], links))
    return verdicts


def clusters_from(ballot: Ballot, verdicts: list[Verdict], min_votes: int, names: list[str],
                  voters_on: int | None = None) -> list[Cluster]:
    """The clusters of one document from its verdicts, in the canonical order of their proposed spans
    (unique within a document: all spans with the chosen fragments are in the cluster that chose them)."""
    doc_id, versions = ballot
    nodes = [(k, span) for k, spans in enumerate(versions) for span in spans]
    clusters = []
    for group, fragments, label, boundary_votes, label_votes, kinds in verdicts:
        members = tuple(sorted((nodes[n] for n in group), key=lambda m: (m[0], m[1].sort_key())))
        voters = {k for k, _ in members}
        who = ", ".join(sorted(names[k] for k in voters))
        note = ((NOTE, f"{len(voters)}/{voters_on or len(names)} votes: {who}"),)
        span = Span.trusted(doc_id, fragments, label, None, note)
        clusters.append(Cluster(doc_id, members, span, len(voters), boundary_votes, label_votes,
                                len(voters) >= min_votes, kinds))
    clusters.sort(key=lambda c: c.span.sort_key())
    return clusters


def vote_document(ballot: Ballot, rule: MatchRule, min_votes: int, names: list[str],
                  voters_on: int | None = None) -> list[Cluster]:
    """Every cluster of one document, decided, in the canonical order of their proposed spans
    (``voters_on``: the annotators who have the document, when not all of ``names`` do)."""
    return clusters_from(ballot, verdicts_of(ballot[1], rule, min_votes), min_votes, names, voters_on)
