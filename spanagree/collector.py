"""When Python's cyclic garbage collector runs: spanagree's one policy for it.

Reading a corpus and aligning it allocate an object or more per span (millions on large corpora),
all alive until the run ends and free of reference cycles. The collector cannot free any of
them, yet each of its passes rescans them: on 500k spans that is a third of a run. So reading and
aligning run with the collector paused, and what was read can be frozen (moved out of its
generations for good, :func:`gc.freeze`), which also keeps forked workers from copying the
shared pages it would otherwise write to.

A run that streams its documents is the exception inside the pause: what it reads dies with each
batch of documents, and some readers leave reference cycles behind (lxml's ``iterparse`` keeps its
parser, and with it the file's parsed tree, in one). Only the collector frees those, so a streamed
run frees the young ones after each batch (:func:`collect_young`); left to the end of the run, they
held 40 KiB per document of an XML folder.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused(*, freeze: bool = False):
    """Pause the cyclic garbage collector inside the block; restore its state after.

    Parameters
    ----------
    freeze : bool
        On leaving, also freeze every object alive (:func:`gc.freeze`): for what the block read
        and keeps for the rest of the process.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def collect_young() -> None:
    """Free the reference cycles among the objects made since the last call but one: the batch
    of documents just compared, and what the readers left behind while reading it.

    Scans the two youngest generations only: what survives (an open reader's state, the tallies)
    is promoted out of them, and is scanned at most twice over a run, however long.

    Examples
    --------
    >>> import weakref
    >>> class Node:
    ...     pass
    >>> with collector_paused():
    ...     node = Node()
    ...     node.itself = node          # a reference cycle: only the collector frees it
    ...     freed = weakref.finalize(node, print, "freed")
    ...     del node
    ...     collect_young()
    freed
    """
    gc.collect(1)
