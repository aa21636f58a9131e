"""The comparison pipeline: files → documents → copies compared → accumulated counts.

Every command that compares (``agree``, ``score``, ``merge``) runs here, one way::

    inputs ──open──▶ DocumentStream per annotator ──read in turn──▶ each document's copies
        ──select labels, reconcile texts──▶ Comparison.compare ──▶ Accumulator (add, +)

:func:`run` picks how the work is executed — a *strategy* over the same accumulator:

- in this process, comparing while reading (:func:`~spanagree.pipeline.sequential.accumulate`);
  span sets already in memory are read the same way (reading everything first is this strategy);
- in shards planned once (folders of document files, byte ranges of CoNLL and JSON-lines
  files, or documents in memory: :func:`~spanagree.pipeline.shards.plans`) and mapped over an
  executor (:func:`~spanagree.pipeline.parallel.accumulate_sharded`) — ``jobs`` forked processes
  (:class:`~spanagree.pipeline.parallel.Processes`) or a Dask cluster's workers
  (:class:`~spanagree.pipeline.cluster.Workers`) — their accumulators added in order.

The figures, warnings and errors do not depend on the strategy; the command (``agree``,
``score``, ``vote``) turns the accumulator into its result.
"""

from __future__ import annotations

import os
from typing import Sequence

from ..errors import SpanagreeError, UsageError, find_stack_level
from ..formats import DocumentStream
from ..span import SpanSet
from .accumulator import Accumulator
from .sequential import Comparison, Group, accumulate, failing_stream, spanset_stream

#: What a command accepts as one annotator: a span set in memory, a stream, or a path to read.
Input = SpanSet | DocumentStream | str | os.PathLike


class NamedPath(os.PathLike):
    """A path to read, with the name its span set goes by (``NAME=PATH`` on the command line).

    It is a path wherever a path is (``os.fspath``, ``open``, ``str``); the name replaces the
    file stem or folder name everywhere a span set's name appears: each ``agree`` pair's
    ``annotators``, listings, the report. A container (an export holding several annotators)
    named so gives its one span set the name, or each of several ``NAME/its name``.

    Examples
    --------
    >>> item = NamedPath("alice", "exports/1.json")
    >>> item.name, os.fspath(item), str(item)
    ('alice', 'exports/1.json', 'exports/1.json')
    """

    __slots__ = ("name", "path")

    def __init__(self, name: str, path: str | os.PathLike):
        self.name, self.path = name, os.fspath(path)

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"NamedPath({self.name!r}, {self.path!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, NamedPath) and (self.name, self.path) == (other.name, other.path)

    def __hash__(self) -> int:
        return hash((self.name, self.path))

    def __reduce__(self):
        return NamedPath, (self.name, self.path)


def named_input(argument: str) -> str | NamedPath:
    """A command-line input: ``NAME=PATH`` names the span set read from PATH; a path that exists
    (even one holding ``=``) and anything else stays the path it is.

    Examples
    --------
    >>> named_input("alice=ann1.jsonl")
    NamedPath('alice', 'ann1.jsonl')
    >>> named_input("ann1.jsonl"), named_input("=ann1.jsonl")
    ('ann1.jsonl', '=ann1.jsonl')
    """
    name, equals, path = argument.partition("=")
    if not equals or not name.strip() or not path or os.path.lexists(argument):
        return argument
    return NamedPath(name.strip(), path)


def open_inputs(inputs: Sequence[Input], format: str | None = None, format_options: dict | None = None
                ) -> list[DocumentStream]:
    """Every input as a :class:`~spanagree.formats.DocumentStream`, nothing read yet.

    A path that cannot be opened (no such file, a bad option) gives a stream that raises its
    error when its turn to be read comes, so the error reported is the one reading the inputs
    one after the other would meet first.
    """
    from ..formats import open_stream

    streams = []
    for item in inputs:
        if isinstance(item, SpanSet):
            streams.append(spanset_stream(item))
        elif isinstance(item, DocumentStream):
            streams.append(item)
        else:
            try:
                streams.append(open_stream(item, format, **(format_options or {})))
            except SpanagreeError as error:
                streams.append(failing_stream(str(item), format or "", error))
    return streams


def plain_input(item, name: str):
    """``item`` as it is, or, when it is plain data, the span set it makes, named ``name``.

    Plain data is a list or tuple (of documents, each a list of spans:
    :meth:`~spanagree.span.SpanSet.from_lists`); span sets, streams and paths are not lists. An
    empty list is refused: it would be a span set without documents.

    Raises
    ------
    UsageError
        An empty list, or plain data with an item that is not a span.

    Examples
    --------
    >>> plain_input([[(0, 5, "PER")], []], "gold")
    <SpanSet 'gold': 2 documents, 1 spans>
    >>> plain_input("corpora/demo/brat/ann1", "gold")
    'corpora/demo/brat/ann1'
    """
    if not isinstance(item, (list, tuple)):
        return item
    if not item:
        raise UsageError(f"{name} is an empty list: plain data is a list of one document or more, each a list of "
                         "spans ([] for a document without spans)")
    return SpanSet.from_lists(name, item)


def score_inputs(gold, pred) -> tuple[Input, list[Input], bool]:
    """:func:`spanagree.score`'s ``gold`` and ``pred`` as the gold, the predictions, and whether
    ``pred`` was a list of predictions (a :class:`~spanagree.scoring.Score` for each).

    A list or tuple is told apart by its items: lists or tuples (documents) make it plain data,
    one prediction named ``"pred"``; span sets, streams and paths make it several predictions
    (none when it is empty: a container ``gold`` then holds them). A ``gold`` given as plain data
    is named ``"gold"``.

    Raises
    ------
    UsageError
        A ``pred`` that mixes documents with span sets, streams or paths; an empty ``pred``
        beside a ``gold`` given as plain data.

    Examples
    --------
    >>> gold, preds, several = score_inputs([[(0, 5, "PER")]], [[(0, 4, "PER")]])
    >>> gold, preds, several
    (<SpanSet 'gold': 1 documents, 1 spans>, [<SpanSet 'pred': 1 documents, 1 spans>], False)
    >>> score_inputs("gold.conll", ["a.conll", "b.conll"])
    ('gold.conll', ['a.conll', 'b.conll'], True)
    """
    if pred is None or not isinstance(pred, (list, tuple)):
        return plain_input(gold, "gold"), [] if pred is None else [pred], False
    documents = [isinstance(item, (list, tuple)) for item in pred]
    if pred and all(documents):
        return plain_input(gold, "gold"), [plain_input(pred, "pred")], False
    if any(documents):
        raise UsageError("pred mixes lists (documents of plain data) with span sets, streams or paths; give "
                         "one prediction's documents, or a list of predictions (spanagree.SpanSet.from_lists "
                         "makes a span set of plain data)")
    if not pred and isinstance(gold, (list, tuple)):
        raise UsageError("pred is an empty list: with the gold given as plain data, give the prediction's "
                         "documents, one list of spans per document ([] for a document without spans)")
    return plain_input(gold, "gold"), list(pred), True


def expand_inputs(inputs: Sequence[Input], format: str | None = None, format_options: dict | None = None, *,
                  annotators: Sequence[str] | None = None, also: Sequence[str] = (), jobs: int = 1,
                  scheduler=None) -> list[Input]:
    """The inputs with every container (a path holding several annotators:
    :attr:`spanagree.formats.Format.container`) replaced by its span sets' streams, so that a
    command counts span sets, not paths.

    Other inputs are kept as they are (paths stay paths: ``--jobs`` may read them in its workers).

    Parameters
    ----------
    annotators : sequence of str, optional
        Pick and order the span sets by name (``--annotators A,B``): each name is looked up among
        the containers' span sets and the other inputs' names; the result is in this order.
    also : sequence of str
        Names taken from containers even when their role is not ``"annotator"``
        (a curation or a prediction: ``score --gold curation``).
    jobs : int
        Processes a container kept in a folder may use to list its span sets
        (:func:`~spanagree.formats.container_streams`, :func:`.parallel.sharing`); a whole number
        or a :class:`~spanagree.pipeline.parallel.Processes`.
    scheduler : distributed.Client, optional
        The run's Dask client (:func:`.cluster.one_client`): a container kept in a folder lists
        its span sets on the cluster's workers instead (:class:`.cluster.Workers`; ``jobs`` is
        then ignored).

    Raises
    ------
    UsageError
        A name in ``annotators`` that no input has (the message lists what there is), or
        ``annotators`` without any container among the inputs.
    FormatError
        A container that cannot be listed (raised at once, before anything is read: how many
        span sets it holds decides what the command does).
    """
    from ..formats import container_streams, is_container, open_annotators
    from .finish import input_name, unique_names
    from .parallel import sharing

    if scheduler is not None:
        from .cluster import Workers

        share_out = sharing(Workers(scheduler))
    else:
        share_out = sharing(usable_jobs(jobs, warn=False) if isinstance(jobs, int) else None)
    if annotators is not None:
        annotators = [a.strip() for a in (annotators.split(",") if isinstance(annotators, str) else annotators)]
        if not annotators or not all(annotators):
            raise UsageError("{option} needs names separated by commas", option="annotators")
    given = [item.name for item in inputs if isinstance(item, NamedPath)]
    twice = sorted({name for name in given if given.count(name) > 1})
    if twice:
        raise UsageError(f"two inputs are named {twice[0]!r}: give each input its own name (NAME=PATH)")
    expanded: list[tuple[Input, bool]] = []   # (input, came from a container)
    for item in inputs:
        if isinstance(item, (str, os.PathLike)) and is_container(item, format):
            # a container that cannot be listed is reported at once: how many span sets it holds
            # decides what the command does
            if annotators is None:
                streams = open_annotators(item, format, also=also, share_out=share_out, **(format_options or {}))
            else:
                streams = container_streams(item, format, share_out=share_out, **(format_options or {}))
            if isinstance(item, NamedPath):  # the name given: the one span set's, or the prefix of each
                for stream in streams:
                    stream.name = item.name if len(streams) == 1 else f"{item.name}/{stream.name}"
            if (annotators is None and len(streams) == 1 and streams[0].role == "annotator"
                    and streams[0].name == input_name(item) and not streams[0].symmetric_relations):
                # One span set, named as the path: the path reads it (and can be read again:
                # --jobs workers, score's error listing). Not when its reader found what the run
                # needs before it reads (relation types drawn symmetric): the stream carries it.
                expanded.append((item, False))
                continue
            expanded.extend((s, True) for s in streams)
        else:
            expanded.append((item, False))
    # container span sets take the names the command will give them (``#2`` for a repeated name),
    # so that --annotators can name each
    for (item, from_container), name in zip(expanded, unique_names([item for item, _ in expanded])):
        if from_container:
            item.name = name
    if annotators is None:
        return [item for item, _ in expanded]
    if not any(from_container for _, from_container in expanded):
        raise UsageError("{option} picks span sets inside exports that hold several annotators (Label Studio, "
                         "INCEpTION, GATE, ...); none of the inputs is one", option="annotators")
    by_name: dict[str, Input] = {}
    for item, _ in expanded:
        by_name.setdefault(input_name(item), item)
    unknown = [a for a in annotators if a not in by_name]
    if unknown:
        raise UsageError(f"no span set called {', '.join(map(repr, unknown))} among the inputs; there are: "
                         + ", ".join(_described(item) for item, _ in expanded), option="annotators")
    return [by_name[a] for a in annotators]


def _described(item) -> str:
    from .finish import input_name

    role = getattr(item, "role", "annotator")
    return input_name(item) if role == "annotator" else f"{input_name(item)} ({role})"


def paired_in_order(gold, prediction, format: str | None = None, format_options: dict | None = None):
    """A prediction in a format that numbers its documents scored against a gold in one that names
    them (:attr:`~spanagree.formats.Format.numbered`; ``score --align-text``): CoNLL numbers its
    documents ``"1"``, ``"2"``, ...; where its file names them (the format's
    :meth:`~spanagree.formats.Format.document_names`: CoNLL's ``-DOCSTART-`` lines, a field of
    the line that is one of the gold's ids: ``-DOCSTART- clinic-01``), its documents take those
    ids; otherwise they take the gold's ids in order, with a warning saying so (and what is left
    over on either side). Any other prediction is returned as it is."""
    import warnings

    from ..errors import SpanagreeWarning
    from ..formats import declares, detect_format, get_format, open_stream
    from ..span import Document, Span, moved_relations

    def format_of(item):
        if isinstance(item, DocumentStream):
            return item.format
        if isinstance(item, (str, os.PathLike)):
            return format or detect_format(item)
        return getattr(item, "format", None)

    if not declares(format_of(prediction), "numbered") or declares(format_of(gold), "numbered"):
        return prediction
    (gold_set,) = read_inputs([gold], format, format_options)
    ids = list(gold_set.documents)
    stream = prediction if isinstance(prediction, DocumentStream) else None
    if stream is None:
        if isinstance(prediction, (str, os.PathLike)):
            stream = open_stream(prediction, format, **(format_options or {}))
        else:  # a span set in memory
            stream = DocumentStream(prediction.name, prediction.format,
                                    iter(list(prediction.documents.values())), list(prediction.notes))
    documents = list(stream.documents)
    names = get_format(format_of(prediction)).document_names()
    named = names(prediction, set(ids)) if names is not None and isinstance(prediction, (str, os.PathLike)) else None
    if named is not None and len(named) == len(documents):
        pairs = list(zip(documents, named))
    else:
        paired = min(len(ids), len(documents))
        message = (f"{stream.name}: its -DOCSTART- lines name none of the gold's documents; its {len(documents)} "
                   f"document(s) are paired with the gold's {len(ids)} in order "
                   f"({documents[0].id if documents else '-'} → {ids[0] if ids else '-'}, ...)")
        if len(documents) != len(ids):
            message += f"; {abs(len(documents) - len(ids))} left unpaired"
        warnings.warn(message, SpanagreeWarning, stacklevel=find_stack_level())
        pairs = list(zip(documents[:paired], ids))
    renamed = []
    for document, doc_id in pairs:
        spans = [Span.trusted(doc_id, span.fragments, span.label, span.source, span.attributes) for span in document.spans]
        renamed.append(Document(doc_id, document.text, spans, document.source, document.tokens_from_text,
                                document.tags, moved_relations(document.relations, document.spans, spans),
                                written_otherwise=document.written_otherwise))
    return DocumentStream(stream.name, stream.format, iter(renamed), list(stream.notes))


def read_inputs(inputs: Sequence[Input], format: str | None = None, format_options: dict | None = None
                ) -> list[SpanSet]:
    """Every input read whole, in order (the first error met is raised)."""
    from ..collector import collector_paused
    from ..formats import collect

    with collector_paused(freeze=True):  # what is read lives until the run ends
        return [item if isinstance(item, SpanSet) else collect(stream)
                for item, stream in zip(inputs, open_inputs(inputs, format, format_options))]


def run(inputs: Sequence[Input], names: Sequence[str], groups: Sequence[Group], comparison: Comparison, *,
        format: str | None = None, format_options: dict | None = None, label_map=None, only=None,
        align_whitespace: bool = False, jobs: int = 1, count_labels: bool = False, progress: bool = False,
        scheduler=None, align_text: bool = False) -> Accumulator:
    """Compare ``inputs`` group by group and return the accumulator (nothing raised or warned yet:
    the command finishes it).

    Parameters
    ----------
    inputs : sequence of SpanSet, DocumentStream or path
        Input 0 is the reference of every group (its document order is the result's).
    names : sequence of str
        The inputs' names as the comparison knows them.
    groups : sequence of Group
    comparison : Comparison
    format, format_options
        How paths are read (see :func:`spanagree.formats.read`).
    label_map, only, align_whitespace
        As in :func:`spanagree.agree`.
    jobs : int or Processes
        Processes to use; 1 compares while reading, in this process. A
        :class:`~spanagree.pipeline.parallel.Processes` also says when sharding pays (its
        thresholds) and records the shards it mapped.
    count_labels : bool
        Count every input's labels as read (:attr:`Accumulator.labels`, for the label checks of
        :mod:`spanagree.pipeline.labels`); also done whenever ``label_map`` or ``only`` is given.
    progress : bool
        Draw a progress bar of the reference's documents on standard error
        (:mod:`spanagree.progress`; the command line asks for it when standard error is a terminal).
    scheduler : str or distributed.Client, optional
        Compare on this Dask cluster's workers instead (:class:`~spanagree.pipeline.cluster.Workers`;
        ``jobs`` is then ignored).
    """
    from ..progress import Progress
    from .parallel import accumulate_sharded

    common = dict(label_map=label_map, only=only, align_whitespace=align_whitespace,
                  count_labels=count_labels or bool(label_map) or bool(only))
    if align_text:
        common["align_text"] = True
    if scheduler is not None:
        from .cluster import Workers, absolute_inputs, one_client

        with one_client(scheduler) as client:
            inputs, format_options = absolute_inputs(inputs, format_options)
            return accumulate_sharded(inputs, names, groups, comparison, Workers(client), format=format,
                                      format_options=format_options, **common)
    jobs = usable_jobs(jobs)
    total = estimate_documents(inputs[0], format) if progress and inputs else None
    with Progress(progress, total) as bar:
        if progress:
            common["progress"] = bar
        if jobs > 1:
            with bar.shared():
                result = accumulate_sharded(inputs, names, groups, comparison, jobs, format=format,
                                            format_options=format_options, **common)
            if result is not None:
                return result
        return accumulate(open_inputs(inputs, format, format_options), names, groups, comparison, **common)


def input_format(item, format: str | None = None) -> str | None:
    """The format an input will be read as (``format``, a stream's own, else the one detected),
    or ``None`` when it cannot be told (the run reports what is wrong with the input)."""
    from ..formats import detect_format

    if isinstance(item, DocumentStream):
        return item.format
    if isinstance(item, SpanSet):
        return item.format
    try:
        return format or detect_format(item)
    except (SpanagreeError, TypeError):
        return None


def usable_jobs(jobs, *, warn: bool = True):
    """``jobs`` as a :class:`~spanagree.pipeline.parallel.Processes` (a whole number is one with
    the default thresholds) capped at the cores this process may use, with a warning when asked
    for more (from :func:`run`: it names the line that called the command)."""
    import warnings

    from ..errors import SpanagreeWarning, parameter
    from .parallel import Processes, usable_cores

    jobs = jobs if hasattr(jobs, "map") else Processes(jobs)  # a whole number: the default thresholds
    usable = usable_cores()
    if jobs > usable:
        if warn:
            warnings.warn(SpanagreeWarning(f"{{jobs}}: this machine lets spanagree use {usable} core(s); using "
                                           f"{usable} (more processes than cores only add the cost of starting them)",
                                           jobs=parameter("jobs", int(jobs))), stacklevel=find_stack_level())
        return jobs.capped(usable)
    return jobs


def estimate_documents(item, format: str | None) -> int | None:
    """The documents of an input when they can be counted without reading it (the progress
    bar's total), by its format's :meth:`~spanagree.formats.Format.document_counter` (a BRAT
    folder's ``.ann`` files, a JSON-lines file's lines, a CoNLL file's ``-DOCSTART-`` lines);
    ``None`` otherwise."""
    from ..formats import detect_format, get_format

    if not isinstance(item, (str, os.PathLike)):
        return len(item.documents) if isinstance(item, SpanSet) else None
    try:
        counter = get_format(format or detect_format(item)).document_counter()
        return None if counter is None else counter(item)
    except (OSError, SpanagreeError):
        return None


__all__ = ["Accumulator", "Comparison", "Group", "Input", "NamedPath", "expand_inputs", "named_input", "open_inputs", "paired_in_order", "read_inputs",
           "run"]
