"""What every command does with an accumulator once the reading is over: names, the documents
compared, and the texts' warnings and errors given in order."""

from __future__ import annotations

import os
import warnings

from ..errors import SpanagreeError, SpanagreeWarning, find_stack_level
from ..texts import warn_texts_differ, warn_token_spellings
from .accumulator import TextsTally, replay


def input_name(item) -> str:
    """An input's name: a span set's or stream's own, else the folder name or file stem of the path."""
    from ..formats import default_name

    from . import NamedPath

    if not isinstance(item, (str, os.PathLike)) or isinstance(item, NamedPath):  # a NamedPath's name is given
        return item.name
    return default_name(item) or os.path.basename(os.path.abspath(item))


def input_path(item) -> str | None:
    """Where an input is read from: its path, a stream's path, or ``None`` (a span set in memory)."""
    if isinstance(item, (str, os.PathLike)):
        return os.fspath(item)
    return getattr(item, "path", None)


def unique_names(items) -> list[str]:
    """Names made unique with ``#2``, ``#3`` suffixes where two share one."""
    names, seen = [], {}
    for item in items:
        name = input_name(item)
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names


def common_documents(names: list[str], orders: list[list[str]], *, left_out_of: str = "",
                     paths: list[str | None] | None = None) -> tuple[list[str], dict[str, list[str]]]:
    """The documents every annotator has (in the first's order), and what was left out.

    Documents some annotator lacks are left out with a warning that lists them (``left_out``'s
    ``"not_annotated_by_everyone"``); when no document is shared at all, that is bad input.

    ``paths`` (each input's :func:`input_path`) are named in the error, beside the names.

    Raises
    ------
    SpanagreeError
        No document is annotated by every annotator (the message gives each one's count, and
        where it was read).
    """
    shared = set(orders[0])
    every = set(orders[0])
    for order in orders[1:]:
        shared.intersection_update(order)
        every.update(order)
    if not shared:
        read_from = list(dict.fromkeys(path for path in paths or () if path))
        raise SpanagreeError("no document is annotated by every annotator: "
                             + "; ".join(f"{name} has {len(set(order))}" for name, order in zip(names, orders))
                             + (f" (read from {', '.join(read_from)})" if read_from else ""))
    documents = [d for d in orders[0] if d in shared]
    partial = sorted(every - shared)
    left_out: dict[str, list[str]] = {}
    if partial:
        warnings.warn(f"{len(partial)} document(s) not annotated by every annotator are left out{left_out_of}: "
                      + ", ".join(partial), SpanagreeWarning, stacklevel=find_stack_level())
        left_out["not_annotated_by_everyone"] = partial
    return documents, left_out


def pairwise_documents(names: list[str], orders: list[list[str]], pairs: list[tuple[int, int]], *,
                       paths: list[str | None] | None = None) -> tuple[list[list[str]], dict[str, list[str]]]:
    """Each pair's documents (those both its annotators have, in the first's order) and what was
    left out, for designs where each document is annotated by some of the annotators
    (``agree --documents pairwise``).

    Documents only one annotator has are left out with a warning (``left_out``'s
    ``"annotated_by_one"``); when no two annotators share a document, that is bad input.

    Raises
    ------
    SpanagreeError
        No document is annotated by two annotators.
    """
    sets = [set(order) for order in orders]
    shared = [[d for d in orders[i] if d in sets[j]] for i, j in pairs]
    if not any(shared):
        read_from = list(dict.fromkeys(path for path in paths or () if path))
        raise SpanagreeError("no document is annotated by two annotators: "
                             + "; ".join(f"{name} has {len(own)}" for name, own in zip(names, sets))
                             + (f" (read from {', '.join(read_from)})" if read_from else ""))
    held: dict[str, int] = {}
    for own in sets:
        for d in own:
            held[d] = held.get(d, 0) + 1
    alone = sorted(d for d, n in held.items() if n < 2)
    left_out: dict[str, list[str]] = {}
    if alone:
        warnings.warn(f"{len(alone)} document(s) annotated by only one annotator are left out: " + ", ".join(alone),
                      SpanagreeWarning, stacklevel=find_stack_level())
        left_out["annotated_by_one"] = alone
    return shared, left_out


def present_documents(names: list[str], orders: list[list[str]], *, paths: list[str | None] | None = None
                      ) -> tuple[list[str], dict[str, list[str]]]:
    """The documents two or more annotators have (in the first annotator's order, then the
    second's for those it lacks, ...) and what was left out, for merging designs where each
    document is annotated by some of the annotators (``merge --documents present``).

    Raises
    ------
    SpanagreeError
        No document is annotated by two annotators.
    """
    pairs = [(i, j) for i in range(len(orders)) for j in range(i + 1, len(orders))]
    shared, left_out = pairwise_documents(names, orders, pairs, paths=paths)
    return in_first_order([d for on in shared for d in on], orders), left_out


def in_first_order(documents: list[str], orders: list[list[str]]) -> list[str]:
    """``documents`` in the first annotator's order, then those it lacks in the second's order, and so on."""
    wanted = set(documents)
    result: dict[str, None] = {}
    for order in orders:
        for d in order:
            if d in wanted:
                result.setdefault(d)
    return list(result)


def announce_texts(texts: TextsTally, documents: list[str]) -> list[str]:
    """Give the texts' warnings (raise their error) as reconciling ``documents`` at once would;
    returns the documents left out because their texts differ, in order."""
    replay(w for w in texts.events if texts.error is None or w[0] < texts.error[0])
    if texts.error is not None:
        raise texts.error[1]
    left_out = [d for d in documents if d in texts.left_out]
    if left_out:
        warn_texts_differ(left_out, texts.differences)
    if texts.spellings:
        warn_token_spellings(texts.spellings)
    return left_out


def check_jobs(jobs) -> None:
    """``jobs`` must be a whole number of processes, at least 1."""
    from ..errors import UsageError

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"{{option}} must be a whole number of processes, at least 1; got {jobs!r}", option="jobs")


def aligned_texts(texts: TextsTally, documents: list[str]) -> dict | None:
    """``--align-text``: what the character alignment did on ``documents`` (the JSON's
    ``aligned_texts``), or ``None`` when no text differed."""
    differing = {d: texts.differing[d] for d in documents if d in texts.differing}
    if not differing:
        return None
    wanted = set(documents)
    affected = [entry for entry in texts.affected_spans if entry["document"] in wanted]
    order = {d: k for k, d in enumerate(documents)}
    affected.sort(key=lambda entry: order[entry["document"]])
    return {"documents": len(differing), "differing_characters": differing, "affected_spans": len(affected),
            "affected": affected}


def aligned_note(aligned: dict | None) -> list[str]:
    """The table's note for :func:`aligned_texts`."""
    if not aligned:
        return []
    return [f"{aligned['documents']} document(s) compared through a character alignment of their texts "
            f"({sum(aligned['differing_characters'].values())} differing characters; "
            f"{aligned['affected_spans']} span(s) touch changed non-whitespace characters)"]
