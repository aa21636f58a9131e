"""When Python's cyclic garbage collector runs: spanagree's one policy for it.

Reading a corpus and aligning it allocate an object or more per span (millions on large corpora),
all alive until the run ends and free of reference cycles. The collector cannot free any of
them, yet each of its passes rescans them: on 500k spans that is a third of a run. So reading and
aligning run with the collector paused, and what was read can be frozen (moved out of its
generations for good, :func:`gc.freeze`), which also keeps forked workers from copying the
shared pages it would otherwise write to.
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
