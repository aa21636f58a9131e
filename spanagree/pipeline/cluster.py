"""The Dask strategy (``--scheduler tcp://host:8786``): shards of documents compared on the workers
of a ``dask.distributed`` cluster, their accumulators added in order.

It is the forked strategy (:mod:`spanagree.pipeline.parallel`) with a cluster's workers in place of
forked processes: the documents are cut into contiguous shards, each worker runs the sequential
strategy (:func:`~spanagree.pipeline.sequential.accumulate`) on its shards, and the client adds
the shards' accumulators in document order — so the figures, warnings and errors are those of one
process, apart from the options' echo.

**Reading.** Where every input is a folder of document files (BRAT, XML, WebAnno TSV, XMI:
:attr:`~spanagree.formats.Format.folder_shards`), each task reads its own shard's files *by path*:
the workers need a filesystem they share with the client, as on an HPC cluster (paths are made
absolute first; before anything is submitted, every worker is asked whether it sees every input,
and a worker that does not ends the run with one line naming it and the path). CoNLL and
JSON-lines files are read the same way, each task reading its byte ranges of every file
(:func:`~spanagree.pipeline.parallel.file_parts`, as ``--jobs`` reads them; files whose ranges do
not pair are then read by the client). Other inputs are read by the client, and each task is sent
its shard's documents.

**Spooling.** ``merge`` spools each document's clusters, and writes its share of the outputs, as
``--jobs`` does, into a hidden temporary folder beside its first output
(:func:`shared_spool`), which the workers share with the client; the client joins the parts
(:mod:`spanagree.pipeline.parts`). When some worker cannot write there, the clusters travel back
to the client and are kept in its memory. ``agree`` and ``score`` spool the report's document
records and the ``--errors`` listings' items the same way, beside the report and the listing
(:func:`spooling_beside`).

The client needs ``dask[distributed]`` (``pip install 'spanagree[dask]'``); the workers need
spanagree installed, in the same version.
"""

from __future__ import annotations

import os
from contextlib import contextmanager, nullcontext
from typing import Any

from ..errors import SpanagreeError, UsageError, find_stack_level
from ..formats import DocumentStream
from .accumulator import Accumulator

#: Shards per worker: enough to even out documents of unequal size and workers of unequal speed.
SHARDS_PER_WORKER = 4
#: Seconds to wait for the scheduler before giving up.
CONNECT_TIMEOUT = 10


def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (an address such as ``tcp://host:8786``, or a
    client already made, returned as it is), or one line saying why not."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("{option} needs Dask: pip install 'spanagree[dask]'", option="scheduler") from None
    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str):
        raise UsageError(f"{{option}} takes a scheduler's address or a distributed.Client, not {scheduler!r}",
                         option="scheduler")
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise SpanagreeError(f"cannot reach the Dask scheduler at {scheduler} (within {CONNECT_TIMEOUT} s): "
                             f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None


@contextmanager
def one_client(scheduler):
    """The run's one ``distributed.Client`` (``None`` without ``scheduler``): given an address, it
    is connected on entering and closed on leaving; a client is used as it is. ``agree``,
    ``score`` and ``vote`` expand their inputs on it (a GATE folder's annotation sets are found on
    the workers: :func:`sharing`), then check the workers' spool (:func:`spooling`) and compare
    the shards (:func:`accumulate_on_cluster`) on it, each taking the client as it is. A context
    manager rather than a decorator, so that the commands' warnings still name their caller's
    line (a wrapper would be the frame they name)."""
    if scheduler is None:
        yield None
        return
    client = connect(scheduler)
    try:
        yield client
    finally:
        if client is not scheduler:
            client.close()


def missing_on_workers(client, paths: list[str]) -> dict[str, list[str]]:
    """Per worker address, the paths (of ``paths``) it cannot see."""
    def missing(paths=paths):
        return [path for path in paths if not os.path.exists(path)]

    found = client.run(missing)
    return {worker: gone for worker, gone in found.items() if gone}


def check_paths(client, paths: list[str]) -> None:
    """Raise one line when some worker cannot see some input path."""
    if not client.scheduler_info().get("workers"):
        raise SpanagreeError("the Dask cluster has no worker")
    gone = missing_on_workers(client, paths)
    if gone:
        worker, paths = sorted(gone.items())[0]
        raise SpanagreeError(f"Dask worker {worker} cannot see {paths[0]}: the workers read the inputs by path and "
                             "need a filesystem shared with the client (the same path on every machine)")


def sharing(client):
    """What shares out a reader's work on a folder's files over the workers of ``client`` (a
    ``distributed.Client``), as :func:`spanagree.pipeline.parallel.sharing` does over forked
    processes: ``share_out(function, items, reads)`` is each contiguous shard's ``function(shard)``,
    in order, computed on the workers (``None`` for no items). The shards are few and coarse
    (:data:`SHARDS_PER_WORKER` a worker, however many the items); the items go to each worker
    once, not with each task; ``reads``, the paths the function reads, are checked first
    (:func:`check_paths`: a worker that cannot see one ends the run with one line). The formats
    are handed it (:func:`~spanagree.formats.container_streams`: a GATE folder's annotation sets
    are found by scanning its files on the workers)."""
    def share_out(function, items: list, reads=()) -> list | None:
        from .parallel import shards

        if not items:
            return None
        check_paths(client, [os.path.abspath(path) for path in reads])
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        bounds = [(piece[0], piece[-1] + 1) for piece in shards(range(len(items)), workers * SHARDS_PER_WORKER)]
        [scattered] = client.scatter([items], broadcast=True, hash=False)
        return client.gather(client.map(share_task, bounds, items=scattered, function=function, pure=False))

    return share_out


def share_task(bounds: tuple[int, int], *, items: list, function):
    """One shard of :func:`sharing`'s items (``items[start:end]``) given to ``function`` on a worker."""
    start, end = bounds
    return function(items[start:end])


def unwritable_on_workers(client, folder: str) -> dict[str, str]:
    """Per worker address, why it cannot make a file in ``folder`` (the workers that can are
    left out): each worker makes and removes a file of its own there."""
    def probe(folder=folder):
        from spanagree.pipeline.spool import process_name

        name = os.path.join(folder, f".probe-{process_name()}")
        try:
            with open(name, "xb"):
                pass
            os.remove(name)
        except OSError as error:
            return error.strerror or type(error).__name__
        return None

    found = client.run(probe)
    return {worker: why for worker, why in found.items() if why is not None}


def shared_spool(client, near: str | None, inputs=(), *, kept: str = "merge keeps every document's clusters"):
    """A hidden temporary folder (:class:`~spanagree.pipeline.spool.SpoolFolder`) in ``near``
    (the folder of ``merge``'s first output or of the report, or its nearest existing parent)
    into which every worker of ``client`` can write, for the spool and the output parts; ``None``
    (the records are then kept in the client's memory) without ``near``, when it is or lies
    inside one of the ``inputs`` (paths), or when some worker cannot write there (with a warning
    naming it, and saying what is ``kept`` in memory instead).
    """
    import warnings

    from ..errors import SpanagreeWarning
    from ..outputs import check_not_inputs
    from .spool import SpoolFolder

    if near is None:
        return None
    near = os.path.abspath(near)
    while not os.path.isdir(near) and os.path.dirname(near) != near:
        near = os.path.dirname(near)
    try:  # the spool folder, a new one in `near`, would lie inside an input when `near` is or lies in one
        check_not_inputs([os.path.join(near, ".spanagree-spool")],
                         [item for item in inputs if isinstance(item, (str, os.PathLike))])
    except UsageError:
        return None
    try:
        folder = SpoolFolder(dir=near)
    except OSError:
        return None
    refused = unwritable_on_workers(client, folder.path)
    if refused:
        folder.remove()
        worker, why = sorted(refused.items())[0]
        warnings.warn(f"Dask worker {worker} cannot write into {near} ({why}): {kept} in this process's memory "
                      "(docs/cluster.md)", SpanagreeWarning, stacklevel=find_stack_level())
        return None
    return folder


@contextmanager
def spooling(scheduler, near: str | None, inputs=(), *, kept: str):
    """``(folder, scheduler)`` for a run that spools per-document records (``merge``'s clusters):
    locally (``scheduler`` is ``None``) a temporary folder
    (:class:`~spanagree.pipeline.spool.SpoolFolder`); on a Dask cluster (``scheduler``: the
    run's client, :func:`one_client`) the folder :func:`shared_spool` makes beside ``near``
    (``None``: none the workers share, the records are kept in memory)."""
    from .spool import SpoolFolder

    yield (SpoolFolder() if scheduler is None else shared_spool(scheduler, near, inputs, kept=kept)), scheduler


def spooling_beside(scheduler, inputs, *outputs):
    """:func:`spooling`'s folders for the per-document records of the outputs of ``agree`` and
    ``score`` (the report's documents, ``--errors``' items), one folder per output; the records
    of an output go beside it (in its folder) on a Dask cluster.

    Parameters
    ----------
    scheduler
        ``None`` (a local run, ``--jobs`` included), or the run's Dask client (:func:`one_client`).
    inputs : list
        The run's inputs (no spool folder may lie inside one).
    *outputs : tuple
        Per output, ``(where, kept)``: ``where`` is false (not asked for), ``True`` (asked for,
        written nowhere known) or the path the output will be written to; ``kept`` says, in the
        warning of a folder the workers cannot write into, what is kept in memory instead.

    Returns
    -------
    context manager
        Yields ``(folders, client)``: per output ``None`` (not asked for), or a
        :class:`~spanagree.pipeline.spool.SpoolFolder` — locally a temporary one; on a cluster
        the one :func:`shared_spool` makes beside the output's path — or, on a cluster without a
        path or where the workers share no folder with this process, a
        :class:`~spanagree.pipeline.spool.MemoryFolder` (the records are kept in memory and travel
        back with the tallies). ``client``: ``scheduler``, to run on.
    """
    from .finish import input_path
    from .spool import MemoryFolder, SpoolFolder

    if scheduler is None:
        return nullcontext(([SpoolFolder() if where else None for where, _ in outputs], None))
    paths = [input_path(item) for item in inputs]
    folders = []
    for where, kept in outputs:
        near = os.path.dirname(os.path.abspath(where)) if isinstance(where, (str, os.PathLike)) else None
        folder = shared_spool(scheduler, near, paths, kept=kept) if where else None
        folders.append(folder if folder is not None or not where else MemoryFolder())
    return nullcontext((folders, scheduler))


def accumulate_on_cluster(inputs, names, groups, comparison, scheduler, *, format=None, format_options=None,
                          **common) -> Accumulator:
    """The accumulator of ``inputs`` compared on a Dask cluster. Parameters as
    :func:`spanagree.pipeline.run` (``scheduler``: an address or a ``distributed.Client``)."""
    from . import read_inputs
    from .parallel import file_parts, folder_listings, folder_units, parts_added, shards, shards_added, splittable_files

    common.pop("progress", None)  # the client draws no bar for the workers
    client = connect(scheduler)
    owned = client is not scheduler
    try:
        absolute = [os.path.abspath(item) if isinstance(item, (str, os.PathLike)) else item for item in inputs]
        format_options = options_with_absolute_paths(format_options)
        folders = folder_listings(absolute, format, format_options)
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        files = splittable_files(absolute, format, format_options) if folders is None else None
        if files is not None:
            # CoNLL and JSON-lines files: each task reads its byte ranges of every file by path
            check_paths(client, [path for path, _, _ in files])
            parts = file_parts(files, workers * SHARDS_PER_WORKER)
            futures = client.map(part_task, list(range(len(parts[0]))), files=files, parts=parts, names=names,
                                 groups=groups, comparison=comparison, common=common, pure=False)
            result = parts_added(client.gather(futures), files, parts)
            if result is not None:
                return result
            # the files' ranges do not pair (documents in different orders): read here, as below
        if folders is not None:
            # folders of document files: each task reads its shard's files by path
            check_paths(client, [os.path.abspath(item.path) if isinstance(item, DocumentStream) else os.fspath(item)
                                 for item in absolute])
            pieces = shards(folder_units(folders), workers * SHARDS_PER_WORKER)
            # the listings (every document file of every folder) go to each worker once, not with each task
            [listings] = client.scatter([folders], broadcast=True, hash=False)
            futures = client.map(shard_task, list(enumerate(pieces)), folders=listings, names=names, groups=groups,
                                 comparison=comparison, common=common, pure=False)
            result = shards_added(client.gather(futures), folders) if pieces else None
            if result is not None:
                return result
            # a document id read in two shards (or no document at all): read here, as below
        spansets = read_inputs(absolute, format, format_options)
        every = list(dict.fromkeys(d for spanset in spansets for d in spanset.documents))
        tasks = []
        for number, piece in enumerate(shards(every, workers * SHARDS_PER_WORKER)):
            wanted = set(piece)
            tasks.append((number, [(s.name, s.format or "", [packed(d) for i, d in s.documents.items() if i in wanted])
                                   for s in spansets]))
        if not tasks:
            tasks = [(0, [(n, "", []) for n in names])]
        # the tasks' documents go straight to the workers (scattered), not through the scheduler's graph
        futures = client.map(accumulate_task, client.scatter(tasks, hash=False), names=names, groups=groups,
                             comparison=comparison, common=common, pure=False)
        parts = client.gather(futures)
    finally:
        if owned:
            client.close()
    result = parts[0]
    for part in parts[1:]:
        result += part
    result.orders = [list(s.documents) for s in spansets]
    result.notes = [list(s.notes) for s in spansets]
    return result


def options_with_absolute_paths(format_options: dict | None) -> dict | None:
    """``format_options`` with the files they name (:func:`~spanagree.formats.path_options`, comma-separated) made
    absolute: the workers read them by path and need not share the client's working folder.

    Examples
    --------
    >>> options_with_absolute_paths({"xmi_typesystem": "/a/TypeSystem.xml,/b/More.xml", "xmi_type": "X"})
    {'xmi_typesystem': '/a/TypeSystem.xml,/b/More.xml', 'xmi_type': 'X'}
    """
    from ..formats import path_options

    if not format_options or not any(format_options.get(key) for key in path_options()):
        return format_options
    options = dict(format_options)
    for key in path_options():
        if options.get(key):
            options[key] = ",".join(os.path.abspath(part.strip()) for part in str(options[key]).split(",")
                                    if part.strip())
    return options


def part_task(number: int, **arguments) -> Accumulator:
    """Part ``number`` of every file read by path and compared on a worker
    (:func:`spanagree.pipeline.parallel.read_part`)."""
    from .parallel import read_part

    return read_part(number, **arguments)


def shard_task(task, **arguments) -> Accumulator:
    """One shard of every folder's document files read by path and compared on a worker
    (:func:`spanagree.pipeline.parallel.read_shard`)."""
    from .parallel import read_shard

    return read_shard(task, **arguments)


def accumulate_task(task, *, names, groups, comparison, common: dict) -> Accumulator:
    """One shard on a worker: its documents, as sent, compared."""
    from .sequential import accumulate

    number, payload = task
    streams = [DocumentStream(name, format, map(unpacked, documents)) for name, format, documents in payload]
    return accumulate(streams, names, groups, comparison, shard=number, **common)


def packed(document) -> tuple:
    """A document as plain tuples, which pickle several times faster than the objects."""
    return (document.id, document.text, document.source, document.tokens_from_text,
            [(span.fragments, span.label, span.source, span.attributes) for span in document.spans])


def unpacked(values: tuple):
    """:func:`packed`'s document rebuilt (the spans were checked when read: :meth:`Span.trusted`)."""
    from ..span import Document, Span

    doc_id, text, source, tokens_from_text, spans = values
    return Document(doc_id, text, [Span.trusted(doc_id, fragments, label, where, attributes)
                                   for fragments, label, where, attributes in spans], source, tokens_from_text)


def cluster_options(scheduler: Any) -> str | None:
    """The scheduler as the JSON's options echo it (an address; a client's address)."""
    if scheduler is None or isinstance(scheduler, str):
        return scheduler
    return getattr(scheduler, "scheduler", None) and scheduler.scheduler.address
