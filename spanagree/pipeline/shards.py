"""The shards of a run, planned once: folders, byte ranges, or documents in memory.

A comparison adds up (:class:`~spanagree.pipeline.accumulator.Accumulator`), so each shard is
compared by the sequential strategy and the shards' accumulators are added in document order: the
figures, warnings and errors are those of one process, whatever the executor
(:func:`~spanagree.pipeline.parallel.accumulate_sharded` maps the plan). :func:`plans` gives the
ways to cut the inputs, in the order they are tried: **folders** of document files
(:attr:`~spanagree.formats.Format.folder_shards`), listed here, each shard reading its own files
(:func:`read_shard`); **byte ranges** of files of many documents
(:attr:`~spanagree.formats.Format.splits`: CoNLL, JSON lines), cut at the same documents in every
file (:func:`parts_as_found`), each shard reading its ranges (:func:`read_part`) while the others
are still being found; or documents read here, **in memory**. What a folder or file gives at its
end is made once from the shards' counts. Where a plan cannot give what one process gives (an id
read in two shards, a part's reading error), its :attr:`Plan.added` gives ``None`` and the next
way is tried. Whether sharding pays is the executor's to say (its thresholds:
``min_documents_per_job``, ``min_spans_per_job``, ``shards_per_job``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterable, Iterator

from ..errors import SpanagreeError
from ..formats import DocumentStream, natural_key
from .accumulator import Accumulator


@dataclass
class Plan:
    """One way of cutting a run into shards.

    Attributes
    ----------
    tasks : iterable
        The shards, each a task of :attr:`function` (may be a generator: each handed out as it is made).
    function : callable
        A shard's accumulator, from its task (what it holds goes to each worker once).
    added : callable
        The shards' accumulators, in task order, added; ``None`` when they cannot give what one
        process gives (the next way is then tried).
    here : bool
        Too little work to share out: the tasks are run in this process.
    """

    tasks: Iterable
    function: Callable[[Any], Accumulator]
    added: Callable[[list], Accumulator | None]
    here: bool = False


def plans(inputs, names, groups, comparison, executor, *, format=None, format_options=None,
          common: dict) -> Iterator[Plan]:
    """The ways to cut ``inputs`` into shards for ``executor``, in the order they are tried, each
    planned only once the one before has given nothing: folders, byte ranges, documents in memory
    (the last always gives the result). Parameters as :func:`spanagree.pipeline.run`; ``executor``
    as :func:`~spanagree.pipeline.parallel.accumulate_sharded`."""
    from . import read_inputs
    from .sequential import accumulate, spanset_stream

    shared = dict(names=names, groups=groups, comparison=comparison, common=common)
    per_job = executor.shards_per_job
    folders = folder_listings(inputs, format, format_options)
    if folders is not None:
        every = folder_units(folders)
        workers = executor.workers(len(every), executor.min_documents_per_job)
        if every and (workers >= 2 or not executor.stays_here):
            executor.check_paths([os.path.abspath(item.path) if isinstance(item, DocumentStream) else os.fspath(item)
                                  for item in inputs])
            yield Plan(list(enumerate(shards(every, workers * per_job))), partial(read_shard, folders=folders, **shared),
                       partial(shards_added, folders=folders))
    files = splittable_files(inputs, format, format_options)
    if files is not None:
        plan = parts_plan(files, executor, shared)
        if plan is not None:
            yield plan
    spansets = read_inputs(inputs, format, format_options)
    every = list(dict.fromkeys(d for spanset in spansets for d in spanset.documents))
    spans = sum(len(document.spans) for spanset in spansets for document in spanset.documents.values())
    workers = min(executor.workers(spans, executor.min_spans_per_job), max(1, len(every) // 2))
    if not every or (executor.stays_here and workers < 2):
        streams = [spanset_stream(s) for s in spansets]
        yield Plan([streams], partial(accumulate, names=names, groups=groups, comparison=comparison, **common),
                   _added, here=True)
        return
    pieces = shards(every, workers * per_job)
    if executor.inherits:  # the shards' documents are looked up in the inherited span sets
        tasks = [(number, piece) for number, piece in enumerate(pieces)]
    else:  # sent as plain tuples, which pickle several times faster than the objects
        tasks = [(number, [(s.name, s.format or "", [packed(d) for i, d in s.documents.items() if i in wanted])
                           for s in spansets]) for number, wanted in enumerate(map(set, pieces))]
    yield Plan(tasks, partial(compare_shard, spansets=spansets if executor.inherits else None, **shared),
               partial(_added_in_memory, spansets=spansets))


def shards(items, parts: int) -> list:
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


def compare_shard(task, *, spansets, names, groups, comparison, common: dict) -> Accumulator:
    """A shard of documents in memory compared: ``(number, document ids)`` of ``spansets``
    (inherited), or ``(number, [(name, format, packed documents)] per input)`` (sent)."""
    from .sequential import accumulate

    number, shard = task
    if spansets is not None:
        wanted = set(shard)
        streams = [DocumentStream(s.name, s.format or "", iter([d for i, d in s.documents.items() if i in wanted]))
                   for s in spansets]
    else:
        streams = [DocumentStream(name, format, map(unpacked, documents)) for name, format, documents in shard]
    return accumulate(streams, names, groups, comparison, shard=number, **common)


def _added_in_memory(results: list[Accumulator], *, spansets) -> Accumulator:
    """The shards' accumulators (:func:`compare_shard`) added, with the span sets' orders and notes."""
    result = _added(results)
    result.orders = [list(s.documents) for s in spansets]
    result.notes = [list(s.notes) for s in spansets]
    return result


def packed(document) -> tuple:
    """A document as plain tuples (:func:`unpacked` rebuilds it); a relation's spans as their
    places in the document's spans (``-1``: a span the document does not have)."""
    relations = ()
    if document.relations:
        place = {id(span): k for k, span in enumerate(document.spans)}
        relations = [(r.type, tuple((role, place.get(id(span), -1), span) for role, span in r.arguments),
                      None if r.trigger is None else (place.get(id(r.trigger), -1), r.trigger), r.source)
                     for r in document.relations]
    return (document.id, document.text, document.source, document.tokens_from_text,
            [(span.fragments, span.label, span.source, span.attributes) for span in document.spans], document.tags,
            relations, document.unwritten_spaces, document.written_otherwise)


def unpacked(values: tuple):
    """:func:`packed`'s document rebuilt (the spans were checked when read: :meth:`Span.trusted`)."""
    from ..span import Document, Relation, Span

    doc_id, text, source, tokens_from_text, spans, tags, packed_relations, unwritten_spaces, written_otherwise = values
    spans = [Span.trusted(doc_id, fragments, label, where, attributes)
             for fragments, label, where, attributes in spans]
    relations = []
    for kind, arguments, trigger, where in packed_relations:
        arguments = tuple((role, spans[k] if k >= 0 else span) for role, k, span in arguments)
        if trigger is not None:
            trigger = spans[trigger[0]] if trigger[0] >= 0 else trigger[1]
        relations.append(Relation(kind, arguments, trigger, where))
    return Document(doc_id, text, spans, source, tokens_from_text, tags, relations, unwritten_spaces, written_otherwise)


def folder_listings(inputs, format, format_options=None) -> list | None:
    """Every input listed as a folder read in shards (:attr:`~spanagree.formats.Format.folder_shards`:
    its document files listed, nothing read; a container's span set of such a folder, a stream,
    by the listing it carries, :attr:`~spanagree.formats.DocumentStream.listing`), or ``None``
    when some input is not such a folder or listing one fails (the caller then reports it as
    reading would)."""
    import copy

    from ..formats import reader_options, detect_format, get_format

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
            fmt, own = reader_options(item, fmt.name, dict(format_options or {}))
            listings.append(fmt.lister()(item, **own))
    except SpanagreeError:
        return None
    return listings


def folder_units(folders) -> list[str]:
    """The unit keys of every folder, once, in natural order: the copies of a document in several
    folders fall in one shard, and a shard's documents come in each folder's own order (folders
    that hold the same units, the usual case, are not sorted again: each lists them in this order)."""
    first = list(folders[0].units)
    if all(len(folder.units) == len(first) and list(folder.units) == first for folder in folders[1:]):
        return first
    return sorted(set().union(*(folder.units for folder in folders)), key=natural_key)


def read_shard(task, *, folders, names, groups, comparison, common: dict) -> Accumulator:
    """One shard ``(number, unit keys)`` of every folder (:func:`folder_listings`) read and compared."""
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


def splittable_files(inputs, format, format_options=None) -> list | None:
    """Every input as ``(path, Format, reader options)`` when each is a regular file of a format
    read in parts (:attr:`~spanagree.formats.Format.splits`), its stream made without error;
    else ``None`` (the caller then reads the inputs as usual, and reports what is wrong)."""
    import stat

    from ..formats import reader_options, detect_format, get_format

    files = []
    try:
        for item in inputs:
            if not isinstance(item, (str, os.PathLike)):
                return None
            fmt = get_format(format or detect_format(item))
            if not fmt.splits or not stat.S_ISREG(os.stat(item).st_mode):
                return None
            fmt, own = reader_options(item, fmt.name, dict(format_options or {}))
            fmt.streamer()(item, **own)  # the options checked and the file opened, nothing read
            files.append((os.fspath(item), fmt, own))
    except (OSError, SpanagreeError):
        return None
    return files


def parts_as_found(files, starts: list, pieces: int) -> Iterator[list]:
    """The files cut into at most ``pieces`` parts of whole documents, at the same document
    indices in every file (the first file's documents), each part a
    :class:`~spanagree.formats.FilePart` per file, yielded as soon as the files' ``starts`` have
    been scanned far enough to know where it ends (the files' ends, after the last cut, are not
    scanned).

    ``starts``: per file, an iterable of ``(document offset, lines before it)``, in order
    (``document_starts_<format>``). A part ends before the first document beginning at or after
    its share's end (:func:`part_shares`) in the bytes of all the files together (document ``i``
    of a file with fewer documents begins at its end, and its parts from there are empty); parts
    that would hold no document are not made. The last part of every file runs to its end.
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
    ``P²``, so the last parts are small and the workers, taking parts as they finish others, end
    close together. Parts are cut by bytes, not documents: the work of a document goes with its bytes.

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


def parts_plan(files, executor, shared: dict) -> Plan | None:
    """Each task reads and compares the same part of every file (:func:`parts_as_found`), or
    ``None`` when this does not pay (fewer than ``min_documents_per_job`` documents per process,
    counted in the first file before any process starts); the plan's :attr:`Plan.added` gives
    ``None`` when the parts cannot be trusted to give what one process gives
    (:func:`_parts_read_exactly`)."""
    import itertools

    executor.check_paths([path for path, _, _ in files])
    starts = [fmt.document_starts()(path) for path, fmt, _ in files]
    per = executor.min_documents_per_job
    ahead = list(itertools.islice(starts[0], int(executor) * per))
    workers = executor.workers(len(ahead), per)
    if executor.stays_here and workers < 2:
        return None
    starts[0] = itertools.chain(ahead, starts[0])
    found: list = []  # the parts, as they are found: one FilePart per file

    def tasks():
        for number, part in enumerate(parts_as_found(files, starts, workers * executor.shards_per_job)):
            found.append(part)
            yield number, part

    return Plan(tasks(), partial(read_part, files=files, **shared),
                lambda results: parts_added(results, files, [list(column) for column in zip(*found)]))


def read_part(task, *, files, names, groups, comparison, common: dict) -> Accumulator:
    """A part ``(number, one FilePart per file)`` of every file read and compared."""
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
        if fmt.numbered:  # the reader numbers the documents: the ids come from the counts
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


def _added(parts: list[Accumulator]) -> Accumulator:
    """The shards' accumulators added in order."""
    result = parts[0]
    for part in parts[1:]:
        result += part
    return result
