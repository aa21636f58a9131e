"""Reading: one annotator's span set (:func:`read`) or stream (:func:`open_stream`), a
container's span sets (:func:`open_annotators`, :func:`container_streams`), each through the
functions its registry entry gives, with the options its reader takes.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import FormatError, UsageError
from ..span import SpanSet
from .detection import detect_format
from .registry import Format, documented, get_format
from .stream import DocumentStream, collect


def read(path: str | os.PathLike, format: str | None = None, *, name: str | None = None,
         annotator: str | None = None, **options) -> SpanSet:
    """Read one annotator's span set.

    Parameters
    ----------
    path : str or path
        A file or a folder.
    format : str, optional
        A registered format's name (:data:`~spanagree.formats.FORMATS`: {FORMATS}); detected from
        the path when not given.
    name : str, optional
        The span set's name; defaults to the file stem or folder name (in a container: the
        annotator's id).
    annotator : str, optional
        In a container (:attr:`~spanagree.formats.Format.container`), whose span set to read; may be left out when
        the container holds one annotator. Elsewhere it must be left out.
    **options
        Format options by keyword (:func:`~spanagree.formats.registered_options`: {READER OPTIONS});
        those the format's reader does not take are ignored, so one set of options can serve a
        mixed call.

    Raises
    ------
    FormatError
        Bad input, naming the file (and line).
    UsageError
        A container holding several annotators and no ``annotator`` chosen (the message lists
        them), or an ``annotator`` it does not hold.
    """
    if annotator is None and is_container(path, format):
        every = container_streams(path, format, **options)
        streams = [s for s in every if s.role == "annotator"]
        if len(streams) != 1:
            names = ", ".join(s.name if s.role == "annotator" else f"{s.name} ({s.role})" for s in every)
            raise UsageError(f"{path} holds {len(streams)} annotators{f' ({names})' if names else ''}; choose one "
                             "with {option}", option="annotator", flag="--annotators")
        stream = streams[0]
        if name is not None:
            stream.name = name
        return collect(stream)
    if annotator is not None:
        (stream,) = open_annotators(path, format, annotators=[annotator], **options)
        if name is not None:
            stream.name = name
        return collect(stream)
    return collect(open_stream(path, format, name=name, **options))


read.__doc__ = documented(read.__doc__)  # the formats and their options, from the registry


def is_container(path: str | os.PathLike, format: str | None = None) -> bool:
    """Whether ``path`` (in ``format``, detected when not given) holds several annotators
    (:attr:`~spanagree.formats.Format.container`); ``False`` where the format cannot be told (reading will say why)."""
    try:
        return get_format(format or detect_format(path)).container
    except (FormatError, UsageError):
        return False


def open_annotators(path: str | os.PathLike, format: str | None = None, *, annotators=None, also=(),
                    share_out=None, **options) -> list[DocumentStream]:
    """The span sets one path holds, as streams: one for a single-annotator format, one per
    annotator for a container (:attr:`~spanagree.formats.Format.container`), nothing read yet.

    Parameters
    ----------
    path, format, **options
        As in :func:`read`.
    annotators : list of str, optional
        Pick and order a container's span sets by name (an unknown name is a
        :class:`UsageError` listing the names it holds). Without it, the container's span sets of
        role ``"annotator"`` in the export's order, and those named in ``also`` (a curation or a
        prediction joins only when named).
    also : collection of str
        Names to take even when their role is not ``"annotator"`` (``score --gold curation``).
    share_out : callable, optional
        As in :func:`container_streams`.
    """
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not fmt.container:
        if annotators:
            raise UsageError(f"{{option}} picks annotators inside an export that holds several; {path} is "
                             f"{fmt.title}, one annotator per path", option="annotators", flag="--annotators")
        return [open_stream(path, fmt.name, **options)]
    streams = container_streams(path, fmt.name, share_out=share_out, **options)
    if annotators is None:
        return [s for s in streams if s.role == "annotator" or s.name in also]
    by_name = {alias: s for s in streams for alias in s.aliases}
    by_name.update((s.name, s) for s in streams)
    unknown = [a for a in annotators if a not in by_name]
    if unknown:
        raise UsageError(f"{path} holds no annotator {', '.join(map(repr, unknown))}; it holds: "
                         + (", ".join(f"{s.name} ({s.role})" if s.role != "annotator" else s.name
                                      for s in streams) or "none"), option="annotators", flag="--annotators")
    return [by_name[a] for a in annotators]


def open_stream(path: str | os.PathLike, format: str | None = None, *, name: str | None = None,
                **options) -> DocumentStream:
    """One annotator's documents as a :class:`DocumentStream`: :func:`read` one document at a time
    (``read`` is this stream collected).

    Parameters and errors as :func:`read`; reading errors come as the documents are read.
    ``max_record_bytes`` (every format; default :data:`~spanagree.formats.MAX_RECORD_BYTES`) bounds what one record
    may take, so that endless input ends in one error.
    """
    fmt, own = reader_options(path, format, options)
    stream = fmt.streamer()(path, name=name, **own)
    stream.path = stream.path or str(path)
    return stream


def chosen_stream(path, streams: list[DocumentStream], annotator: str | None, name: str | None = None
                  ) -> DocumentStream:
    """What a container's ``stream_<name>(path, annotator=)`` returns: of the container's
    ``streams``, the span set called ``annotator``, or its one annotator when ``annotator`` is
    ``None``; renamed ``name`` when given.

    Raises
    ------
    UsageError
        No ``annotator`` given and not exactly one annotator in the container, or no span set
        called ``annotator`` (the message lists what the container holds).
    """
    if annotator is None:
        users = [s for s in streams if s.role == "annotator"]
        if len(users) != 1:
            raise UsageError(f"{path} holds {len(users)} annotators ({', '.join(s.name for s in users)}); "
                             "choose one with {option}", option="annotator", flag="--annotators")
        chosen = users[0]
    else:
        chosen = next((s for s in streams if s.name == annotator), None) or next(
            (s for s in streams if annotator in s.aliases), None)
        if chosen is None:
            raise UsageError(f"{path} holds no annotator {annotator!r}; it holds: "
                             + ", ".join(s.name for s in streams), option="annotator", flag="--annotators")
    if name is not None:
        chosen.name = name
    return chosen


def reader_options(path, format: str | None, options: dict) -> tuple[Format, dict]:
    """The format of ``path`` (``format``, else detected) and the keywords its reader takes from
    ``options`` (those given, and the checked ``max_record_bytes``)."""
    fmt = get_format(format) if format else get_format(detect_format(path))
    if not Path(path).exists():
        raise FormatError(path, "no such file or folder")
    own = {k: v for k, v in options.items() if k in fmt.reader_keywords and v is not None}
    limit = options.get("max_record_bytes")
    if limit is not None:
        if type(limit) is not int or limit < 1:
            raise UsageError(f"{{option}} must be a positive number of bytes, not {limit!r}", option="max_record_bytes")
        own["max_record_bytes"] = limit
    return fmt, own


def container_streams(path: str | os.PathLike, format: str | None = None, *, share_out=None,
                      **options) -> list[DocumentStream]:
    """Every span set a container holds (whatever its role), in the export's order, as streams;
    ``options`` as in :func:`read` (those the format does not take are ignored). ``share_out``:
    for a container kept in a folder of document files (:attr:`~spanagree.formats.Format.folder_shards`), what
    shares out listing its span sets, ``share_out(function, files, reads=[path])`` giving each
    contiguous shard's ``function(shard)`` in order, or ``None`` (then the files are listed
    here); ``--jobs`` gives its processes' (:func:`spanagree.pipeline.parallel.sharing`), a Dask
    cluster its workers' (:func:`spanagree.pipeline.cluster.sharing`)."""
    fmt, own = reader_options(path, format, options)
    if fmt.folder_shards and share_out is not None:
        own["share_out"] = share_out
    streams = fmt.annotators()(path, **own)
    for stream in streams:
        stream.path = stream.path or str(path)
    return streams
