"""The forked strategy (``--jobs N``): shards of documents compared in N processes.

Documents are independent and what a comparison gives adds up
(:class:`~spanagree.pipeline.accumulator.Accumulator`), so each process runs the sequential
strategy (:func:`~spanagree.pipeline.sequential.accumulate`) on one contiguous shard of the
documents and the shards' accumulators are added in document order: the result, the warnings
and the errors are those of one process, whatever the number of jobs. Processes are forked, so
what they need is inherited rather than pickled; only accumulators travel back. Where ``fork``
is unavailable, or the corpus is too small to pay for processes, the caller works in one process.

Where each document is a file of its own (folders of a format that declares
:attr:`~spanagree.formats.Format.folder_shards`: BRAT, XML, WebAnno TSV, XMI, and the annotation
sets of a GATE folder, streams that carry their listing), each process reads its own shard of the
files (:func:`read_shard`), the parent having only listed them: reading is most of a run, and
spans read before forking would be copied page by page as the children touch them. What a folder
gives at its end is made once from the shards' counts (:func:`shards_added`). Files that hold many
documents one after the other (CoNLL, JSON lines:
:attr:`~spanagree.formats.Format.splits`) are cut into parts of whole documents by their bytes
alone (:func:`parts_as_found`), at the same document indices in every file, in shrinking sizes
(:func:`part_shares`), and each process reads its own parts (:func:`_read_in_parts`), beginning
with the first while the parent scans for the others; what the whole files give at their end is
made once from the parts' counts. Other inputs are read here first and their documents shared with the
children: single XML, WebAnno TSV and XMI files, DocBin files (one binary), and the containers,
which cannot be split (a Label Studio export is one JSON document, an INCEpTION export one zip, a
GATE file one XML document).
"""

from __future__ import annotations

import gc
import os
from typing import Any, Callable, Iterable, Iterator

from ..errors import SpanagreeError, parameter
from ..formats import DocumentStream, natural_key
from .accumulator import Accumulator

#: The work of the forked processes, set just before forking (children inherit it).
_SHARED: tuple | None = None

#: Shards per process: enough to even out documents of unequal size, few enough that the
#: counts sent back stay cheap.
SHARDS_PER_JOB = 4

#: Fewer spans than this per process and a process costs more than it saves (starting one, and
#: the copy-on-write of the pages it touches, take a tenth of a second): fewer processes are used.
MIN_SPANS_PER_JOB = 50_000

#: The same for processes that read their own documents (folders of document files:
#: :func:`_read_in_shards`; byte ranges: :func:`_read_in_parts`), where spans are not known before
#: reading: fewer documents (files) than this per process, fewer processes; fewer than two
#: processes' worth, and the inputs are read here, then compared in processes if their spans pay.
MIN_DOCUMENTS_PER_JOB = 1_000


def shards(items: list, parts: int) -> list[list]:
    """``items`` cut into at most ``parts`` contiguous, nearly equal pieces.

    Examples
    --------
    >>> shards(list(range(7)), 3)
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    size, extra = divmod(len(items), parts)
    result, start = [], 0
    for k in range(parts):
        end = start + size + (k < extra)
        if end > start:
            result.append(items[start:end])
        start = end
    return result


def sharing(jobs: int):
    """What shares out a reader's work on a folder's files over ``jobs`` forked processes
    (``None`` for one job): ``share_out(function, items)`` is each contiguous shard's
    ``function(shard)``, in order, or ``None`` where the items are too few for the processes to
    pay (:data:`MIN_DOCUMENTS_PER_JOB` each) or processes cannot be forked; ``reads``, the paths
    the function reads, matters only on a cluster (:func:`spanagree.pipeline.cluster.sharing`).
    The formats are handed it (:func:`~spanagree.formats.container_streams`: finding a GATE
    folder's annotation sets), so that they need not know the pipeline."""
    if jobs < 2:
        return None

    def share_out(function: Callable[[Any], Any], items: list, reads=()) -> list | None:
        processes = min(jobs, usable_cores(), len(items) // MIN_DOCUMENTS_PER_JOB)
        if processes < 2:
            return None
        return map_forked(function, shards(items, processes * SHARDS_PER_JOB), processes)

    return share_out


def usable_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def map_forked(function: Callable[[Any], Any], items: Iterable, jobs: int) -> list | None:
    """``[function(item) for item in items]`` over ``jobs`` forked processes, in order.

    ``function`` (a closure may do) and what it sees are inherited by the children, not pickled;
    its results are pickled back. ``None`` where ``fork`` is unavailable (the caller then works
    in this process).
    """
    if not can_fork():
        return None
    global _SHARED
    _SHARED = (function,)
    try:
        return forked_map(_call_shared_item, items, jobs)
    finally:
        _SHARED = None


def can_fork() -> bool:
    """Whether processes can be forked here (not on Windows; macOS can, though it defaults to spawn)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def forked_map(function: Callable[[Any], Any], items: Iterable, jobs: int) -> list:
    """``[function(item) for item in items]`` over ``jobs`` forked processes, in order.

    ``items`` may be a generator: each item is handed out as soon as it is made, the processes
    (forked when the first is handed out) working on the first items while the later are made.

    A process that dies (killed, or out of memory) ends the whole map with a
    :class:`~spanagree.errors.SpanagreeError` rather than leaving it waiting for an answer that
    will never come (``concurrent.futures`` notices the death; a ``multiprocessing.Pool`` would not).
    When this process is interrupted (Ctrl-C, or SIGTERM/SIGHUP, which the command line turns into
    an interrupt), the workers are ended with it rather than left to finish their shards.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"))
    try:
        results = list(pool.map(function, items))
    except BaseException as error:
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(5)
        if isinstance(error, BrokenProcessPool):
            raise SpanagreeError(f"a worker process of {{jobs}} ended abruptly (killed, or out of memory?); "
                                 "nothing was written; try fewer {fewer}", jobs=parameter("jobs", jobs),
                                 fewer="jobs") from None
        raise
    pool.shutdown()
    return results


def _call_shared_item(item):
    return _SHARED[0](item)


def accumulate_forked(inputs, names, groups, comparison, jobs: int, *, format=None, format_options=None,
                      **common) -> Accumulator | None:
    """The accumulator of ``inputs`` compared in ``jobs`` forked processes, or ``None`` where this
    does not pay (no ``fork``; too few documents or spans for two processes): the caller then
    runs in this process. Parameters as :func:`spanagree.pipeline.run`."""
    from . import read_inputs
    from .sequential import accumulate

    if not can_fork():
        return None
    folders = folder_listings(inputs, format, format_options)
    if folders is not None:
        every = folder_units(folders)
        if len(every) >= 2 * MIN_DOCUMENTS_PER_JOB:  # else too few files to share out: read here (below)
            return _read_in_shards(folders, every, names, groups, comparison, jobs, **common)
    files = splittable_files(inputs, format, format_options)
    if files is not None:
        result = _read_in_parts(files, names, groups, comparison, jobs, **common)
        if result is not None:
            return result
    spansets = read_inputs(inputs, format, format_options)
    every = list(dict.fromkeys(d for spanset in spansets for d in spanset.documents))
    spans = sum(len(document.spans) for spanset in spansets for document in spanset.documents.values())
    jobs = min(jobs, max(1, len(every) // 2), max(1, spans // MIN_SPANS_PER_JOB))
    if jobs < 2:
        from .sequential import spanset_stream

        return accumulate([spanset_stream(s) for s in spansets], names, groups, comparison, **common)
    pieces = shards(every, jobs * SHARDS_PER_JOB)

    def compare_shard(task) -> Accumulator:
        number, ids = task
        wanted = set(ids)
        streams = [DocumentStream(s.name, s.format or "", iter([d for i, d in s.documents.items() if i in wanted]))
                   for s in spansets]
        return accumulate(streams, names, groups, comparison, shard=number, **common)

    result = _added(_forked(compare_shard, list(enumerate(pieces)), jobs))
    result.orders = [list(s.documents) for s in spansets]
    result.notes = [list(s.notes) for s in spansets]
    return result


def folder_listings(inputs, format, format_options=None) -> list | None:
    """Every input listed as a folder read in shards (:attr:`~spanagree.formats.Format.folder_shards`:
    its document files listed, nothing read; a container's span set of such a folder, a stream,
    by the listing it carries, :attr:`~spanagree.formats.DocumentStream.listing`), or ``None``
    when some input is not such a folder or listing one fails (the caller then reports it as
    reading would)."""
    import copy

    from ..formats import _reader_options, detect_format, get_format

    listings = []
    try:
        for item in inputs:
            if isinstance(item, DocumentStream) and item.listing is not None:
                listing = copy.copy(item.listing)  # named as the command names the stream
                listing.name = item.name
                listings.append(listing)
                continue
            if not isinstance(item, (str, os.PathLike)) or not os.path.isdir(item):
                return None
            fmt = get_format(format or detect_format(item))
            if not fmt.folder_shards:
                return None
            fmt, own = _reader_options(item, fmt.name, dict(format_options or {}))
            listings.append(fmt.lister()(item, **own))
    except SpanagreeError:
        return None
    return listings


def read_shard(task, *, folders, names, groups, comparison, common: dict) -> Accumulator:
    """One shard ``(number, unit keys)`` of every folder (:func:`folder_listings`) read and
    compared: one worker's share (a forked process's, or a Dask task's)."""
    from .sequential import accumulate

    number, keys = task
    counts = [folder.new_counts() for folder in folders]
    streams = [DocumentStream(folder.name, folder.format, folder.documents(keys, own))
               for folder, own in zip(folders, counts)]
    result = accumulate(streams, names, groups, comparison, shard=number, **common)
    result.note_counts = counts
    if result.error is not None:
        # only the error travels back: not the exceptions it was raised while handling (an lxml
        # syntax error holds its parser's error log, which does not pickle where exceptions are
        # pickled with their chains and tracebacks, as tblib's pickling support does)
        error = result.error[1]
        error.__context__ = error.__cause__ = error.__traceback__ = None
    return result


def shards_added(results: list[Accumulator], folders) -> Accumulator | None:
    """The shards' accumulators (:func:`read_shard`, in shard order) added, with what each folder
    gives at its end made once from the summed counts; ``None`` when some document id of a folder
    was read in two shards (files of different units giving one id: reading the folder whole
    finds it twice, which the caller then does)."""
    from ..errors import SpanagreeWarning
    from .accumulator import AFTER_ALL

    for k in range(len(folders)):
        seen: set = set()
        read = 0
        for result in results:
            seen.update(result.orders[k])
            read += len(result.orders[k])
        if len(seen) != read:
            return None
    result = _added(results)
    result.notes = []
    for k, (folder, counts) in enumerate(zip(folders, result.note_counts)):
        notes, warned = folder.finish(counts)
        result.notes.append(notes)
        result.events += [((k, AFTER_ALL, 0), message, SpanagreeWarning) for message in warned]
    return result


def folder_units(folders) -> list[str]:
    """The unit keys of every folder, once, in natural order: the copies of a document in several
    folders fall in one shard, and a shard's documents come in each folder's own order (folders
    that hold the same units, the usual case, are not sorted again: each lists them in this order)."""
    first = list(folders[0].units)
    if all(len(folder.units) == len(first) and list(folder.units) == first for folder in folders[1:]):
        return first
    return sorted(set().union(*(folder.units for folder in folders)), key=natural_key)


def _read_in_shards(folders, every: list[str], names, groups, comparison, jobs: int, **common) -> Accumulator | None:
    """Each process reads and compares one shard of every folder's units (``every``:
    :func:`folder_units`; :func:`read_shard`), or ``None`` when this cannot give what one process
    gives (:func:`shards_added`): the caller then reads the folders in one process."""
    from functools import partial

    jobs = min(jobs, len(every) // MIN_DOCUMENTS_PER_JOB)
    pieces = shards(every, jobs * SHARDS_PER_JOB)
    results = _forked(partial(read_shard, folders=folders, names=names, groups=groups, comparison=comparison,
                              common=common), list(enumerate(pieces)), jobs)
    result = shards_added(results, folders)
    if result is None:
        progress = common.get("progress")
        if progress is not None:
            progress.restart()  # the documents are compared again
    return result


def splittable_files(inputs, format, format_options=None) -> list | None:
    """Every input as ``(path, Format, reader options)`` when each is a regular file of a format
    read in parts (:attr:`~spanagree.formats.Format.splits`), its stream made without error;
    else ``None`` (the caller then reads the inputs as usual, and reports what is wrong)."""
    import stat

    from ..formats import _reader_options, detect_format, get_format

    files = []
    try:
        for item in inputs:
            if not isinstance(item, (str, os.PathLike)):
                return None
            fmt = get_format(format or detect_format(item))
            if not fmt.splits or not stat.S_ISREG(os.stat(item).st_mode):
                return None
            fmt, own = _reader_options(item, fmt.name, dict(format_options or {}))
            fmt.streamer()(item, **own)  # the options checked and the file opened, nothing read
            files.append((os.fspath(item), fmt, own))
    except (OSError, SpanagreeError):
        return None
    return files


def file_parts(files, pieces: int) -> list[list]:
    """Each file of ``files`` (as :func:`splittable_files` gives them) cut into at most ``pieces``
    :class:`~spanagree.formats.FilePart` of whole documents (:func:`parts_as_found`), as lists:
    part ``p`` of every file holds the same documents when the files list the same documents in
    the same order.
    """
    starts = [fmt.document_starts()(path) for path, fmt, _ in files]
    return [list(column) for column in zip(*parts_as_found(files, starts, pieces))]


def parts_as_found(files, starts: list, pieces: int) -> Iterator[list]:
    """The files cut into at most ``pieces`` parts of whole documents, at the same document
    indices in every file (the first file's documents), each part a
    :class:`~spanagree.formats.FilePart` per file, yielded as soon as the files' ``starts`` have
    been scanned far enough to know where it ends: a worker reads the first part while the rest
    of the files is scanned (and the files' ends, after the last cut, are not scanned).

    ``starts``: per file, an iterable of ``(document offset, lines before it)``, in order
    (``document_starts_<format>``). The parts are cut by bytes (:func:`part_shares`): a part
    ends before the first document beginning at or after its share's end in the bytes of all the
    files together (document ``i`` of a file with fewer documents begins at its end, and its parts
    from there are empty); parts that would hold no document are not made. The last part of
    every file runs to its end.
    """
    from ..formats import FilePart

    sizes = [os.path.getsize(path) for path, _, _ in files]
    total = sum(sizes)
    starts = [iter(each) for each in starts]
    targets = iter([total * share for share in part_shares(pieces)])
    target = next(targets, None)
    documents: list = [None] * len(files)  # a file's documents, once its starts have run out
    begun = [(0, 0, 0)] * len(files)  # where the part being found begins in each file: offset, lines, documents
    for index, (offset, lines) in enumerate(starts[0]):
        if target is None:
            break
        here = [(offset, lines, index)]
        for k, other in enumerate(starts[1:], 1):
            found = next(other, None) if documents[k] is None else None
            if found is None and documents[k] is None:
                documents[k] = index
            here.append((found[0], found[1], index) if found is not None else (sizes[k], 0, documents[k]))
        begins = sum(at for at, _, _ in here)
        if begins < target:
            continue
        while target is not None and begins >= target:
            target = next(targets, None)
        if index > 0:
            yield [FilePart(start, stop, before, number) for (start, before, number), (stop, _, _) in zip(begun, here)]
            begun = here
    yield [FilePart(start, size, before, number) for (start, before, number), size in zip(begun, sizes)]


def part_shares(pieces: int) -> list[float]:
    """Where the shares of the bytes of ``pieces`` parts end (fractions; the last, 1, left out).

    The parts shrink towards the end: part ``k`` of ``P`` gets a share ``2(P - k) - 1`` of
    ``P²``, so the last parts are small and the processes, taking parts as they finish others,
    end close together (equal parts can leave one process idle for up to a part's time while
    another reads its last; here the last part is ``1/P²`` of the bytes). Parts are cut by bytes,
    not documents: the work of a document goes with its bytes.

    Examples
    --------
    Four parts: 7/16, 5/16, 3/16 and 1/16 of the bytes.

    >>> part_shares(4)
    [0.4375, 0.75, 0.9375]
    """
    ends, share = [], 0
    for k in range(pieces - 1):
        share += 2 * (pieces - k) - 1
        ends.append(share / pieces ** 2)
    return ends


def _read_in_parts(files, names, groups, comparison, jobs: int, **common) -> Accumulator | None:
    """Each process reads and compares the same part of every file (:func:`parts_as_found`: the
    processes begin with the first parts while the parent scans for the others), or ``None`` when
    this does not pay (fewer than :data:`MIN_DOCUMENTS_PER_JOB` documents per process, counted in
    the first file before any process starts) or cannot be trusted to give what one process gives
    (:func:`_parts_read_exactly`): the caller then reads the files here."""
    import itertools
    from functools import partial

    starts = [fmt.document_starts()(path) for path, fmt, _ in files]
    ahead = list(itertools.islice(starts[0], jobs * MIN_DOCUMENTS_PER_JOB))
    jobs = min(jobs, len(ahead) // MIN_DOCUMENTS_PER_JOB)
    if jobs < 2:
        return None
    starts[0] = itertools.chain(ahead, starts[0])
    found: list = []  # the parts, as they are found: one FilePart per file

    def tasks():
        for number, part in enumerate(parts_as_found(files, starts, jobs * SHARDS_PER_JOB)):
            found.append(part)
            yield number, part

    results = _forked(partial(read_given_part, files=files, names=names, groups=groups, comparison=comparison,
                              common=common), tasks(), jobs)
    result = parts_added(results, files, [list(column) for column in zip(*found)])
    if result is None:
        progress = common.get("progress")
        if progress is not None:
            progress.restart()  # the documents are compared again
    return result


def read_part(number: int, *, files, parts, names, groups, comparison, common: dict) -> Accumulator:
    """Part ``number`` of every file (:func:`file_parts`) read and compared (a Dask task's share)."""
    return read_given_part((number, [file[number] for file in parts]), files=files, names=names, groups=groups,
                           comparison=comparison, common=common)


def read_given_part(task, *, files, names, groups, comparison, common: dict) -> Accumulator:
    """A part ``(number, one FilePart per file)`` of every file read and compared: one worker's
    share (a forked process's, or a Dask task's)."""
    from .sequential import accumulate

    number, own_parts = task
    streams = [fmt.streamer()(path, part=part, **own) for (path, fmt, own), part in zip(files, own_parts)]
    for stream, (path, _, _) in zip(streams, files):
        stream.path = path
    result = accumulate(streams, names, groups, comparison, shard=number, **common)
    result.note_counts = [part.counts for part in own_parts]
    return result


def parts_added(results: list[Accumulator], files, parts) -> Accumulator | None:
    """The parts' accumulators (:func:`read_part`, in part order) added, with what each file gives
    at its end made once from the summed counts; ``None`` when they cannot be trusted to give what
    one process gives (:func:`_parts_read_exactly`)."""
    from ..errors import SpanagreeWarning
    from .accumulator import AFTER_ALL

    if not _parts_read_exactly(results, files, parts):
        return None
    result = _added(results)
    result.notes = []
    for k, ((path, fmt, own), counts) in enumerate(zip(files, result.note_counts)):
        notes, warned = fmt.part_notes()(path, counts, **own)
        result.notes.append(notes)
        result.events += [((k, AFTER_ALL, 0), message, SpanagreeWarning) for message in warned]
    return result


def _parts_read_exactly(results: list[Accumulator], files, parts) -> bool:
    """Whether the parts' accumulators add up to what reading the whole files in one process gives.

    Not when: a part met a reading error (the run ends in it anyway, and is done again in one
    process, which meets the error reading whole files meets first: CoNLL, for one, reports the
    first error of a block by kind, and a part's blocks are not the whole file's); a file read
    no document (the whole file's empty-file error); a part of a file whose reader numbers its
    documents (CoNLL) read another number of them than the offsets promised (its successors' ids
    would be wrong); or some document id is read in two parts (of one file: reading it whole
    finds the id twice; of two files: they list their documents in different orders, so the
    copies of a document would not be compared).
    """
    if any(result.error is not None for result in results):
        return False
    for k, (_, fmt, _) in enumerate(files):
        if not any(result.orders[k] for result in results):
            return False
        if "ids" in fmt.drops:  # the reader numbers the documents: the ids come from the counts
            promised = [b.documents_before - a.documents_before for a, b in zip(parts[k], parts[k][1:])]
            if any(len(result.orders[k]) != number for result, number in zip(results, promised)):
                return False
    seen: dict[str, int] = {}
    for number, result in enumerate(results):
        for order in result.orders:
            for doc_id in order:
                if seen.setdefault(doc_id, number) != number:
                    return False
    return True


def _forked(function, tasks: Iterable, jobs: int) -> list:
    """``[function(task) for task in tasks]`` in ``jobs`` forked processes, what is alive now frozen
    (the children's collector then neither scans it nor writes to its pages)."""
    frozen = not gc.get_freeze_count()
    if frozen:
        gc.freeze()
    try:
        return map_forked(function, tasks, jobs)
    finally:
        if frozen:
            gc.unfreeze()


def _added(parts: list[Accumulator]) -> Accumulator:
    """The shards' accumulators added in order."""
    result = parts[0]
    for part in parts[1:]:
        result += part
    return result
