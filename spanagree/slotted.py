"""Slotted objects that travel between processes as the tuple of their slots.

The tallies a run adds up (:class:`~spanagree.pipeline.compare.PairTally`,
:class:`~spanagree.measures.tokens.TokenTally`) are made in ``--jobs`` workers and on a cluster's
workers and pickled back to the parent, one per shard. They have ``__slots__`` (no instance
dictionary, many of them alive) and pickle as the plain tuple of their slots' values, in slot
order: smaller than the default ``(None, {name: value})`` state, and the same for every slotted
tally.
"""

from __future__ import annotations


class Slotted:
    """A base for classes with ``__slots__`` (every slot set): pickles as the tuple of the slots.

    Examples
    --------
    >>> import copy
    >>> class Pair(Slotted):
    ...     __slots__ = ("first", "second")
    ...     def __init__(self, first, second):
    ...         self.first, self.second = first, second
    >>> Pair(1, [2]).__getstate__()
    (1, [2])
    >>> again = copy.deepcopy(Pair(1, [2]))  # (as pickling does: the state, then a new object given it)
    >>> again.first, again.second
    (1, [2])
    """

    __slots__ = ()

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(self.__slots__, state):
            setattr(self, name, value)
