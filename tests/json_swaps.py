"""Type swaps of JSON values for the tests (issue 32): every field of a JSON document replaced, one at
a time, by a value of each other JSON type, so that a reader meets every type mistake an export
can hold."""

from __future__ import annotations

import copy
from typing import Iterator

__all__ = ["OTHER_TYPES", "swap_one", "type_swaps"]

#: One value of each JSON type (and a float beside the integer).
OTHER_TYPES = [[], ["x"], {}, {"x": 1}, 0, 2.5, "x", "", None, True]


def _type(value) -> str:
    return "bool" if isinstance(value, bool) else type(value).__name__


def _fields(value, path=()) -> Iterator[tuple]:
    """The path (keys and indexes) of every value inside ``value``, outermost first."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*path, key)
            yield from _fields(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield (*path, index)
            yield from _fields(inner, (*path, index))


def type_swaps(document) -> Iterator[tuple[str, object]]:
    """``(what, mutated)``: ``document`` with one field's value replaced by a value of another type,
    for every field and every other type of :data:`OTHER_TYPES`.

    Examples
    --------
    >>> [what for what, _ in type_swaps({"a": [1]})][:3]
    ['a = []', "a = ['x']", 'a = {}']
    """
    for path in _fields(document):
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        original = parent[path[-1]]
        for value in OTHER_TYPES:
            if _type(value) == _type(original) and value == original:
                continue
            if _type(value) == _type(original) and not isinstance(value, (list, dict)):
                continue
            mutated = copy.deepcopy(document)
            target = mutated
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
            yield f"{'.'.join(map(str, path))} = {value!r}", mutated


def swap_one(document, rng) -> str | None:
    """One field of ``document`` (chosen with ``rng``) given a value of another type, in place; what
    was done, or ``None`` when it holds no field."""
    paths = list(_fields(document))
    if not paths:
        return None
    path = rng.choice(paths)
    target = document
    for step in path[:-1]:
        target = target[step]
    original = target[path[-1]]
    choices = [v for v in OTHER_TYPES if _type(v) != _type(original)]
    target[path[-1]] = value = copy.deepcopy(rng.choice(choices))
    return f"{'.'.join(map(str, path))} = {value!r}"
