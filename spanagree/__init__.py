"""spanagree — span-level text-markup agreement.

F1 = positive specific agreement ``2a / (2a + b + c)`` between annotators, or between an
extractor and a gold standard, after a one-to-one maximum-credit alignment of their spans
(Hripcsak & Rothschild 2005). The public API is imported lazily, so ``import spanagree`` and
``spanagree --help`` stay fast.

>>> import spanagree
>>> spanagree.Counts(300, 20, 10).psa
0.9523809523809523
"""

from __future__ import annotations

from importlib import import_module

from ._version import __version__

_EXPORTS = {
    "Span": "span", "SpanSet": "span", "Document": "span", "Source": "span",
    "Counts": "counts",
    "MatchRule": "match", "align": "match", "Alignment": "match",
    "read": "formats", "write": "formats", "FORMATS": "formats",
    "agree": "agreement", "Agreement": "agreement",
    "Score": "score",
    "vote": "merge", "Vote": "merge",
    "SpanagreeError": "errors", "FormatError": "errors", "UsageError": "errors", "SpanagreeWarning": "errors",
}

__all__ = ["__version__", "score", "merge", *_EXPORTS]


def _bind_function_over_module(name: str):
    """``spanagree.score`` and ``spanagree.merge`` are functions living in modules of the same
    name: import the module once, then bind the function over it (a later ``import
    spanagree.score`` finds the module in ``sys.modules`` and leaves the binding alone)."""
    return getattr(import_module(f".{name}", __name__), name)


score = _bind_function_over_module("score")
merge = _bind_function_over_module("merge")


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'spanagree' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
