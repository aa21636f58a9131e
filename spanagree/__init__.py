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
    "Span": "span", "SpanSet": "span", "Document": "span", "Source": "span", "Relation": "span",
    "Counts": "measures.counts",
    "MatchRule": "match", "align": "match", "Alignment": "match",
    "read": "formats", "write": "formats", "FORMATS": "formats",
    "agree": "agreement", "Agreement": "agreement",
    "score": "scoring", "Score": "scoring",
    "vote": "voting", "merge": "voting", "Vote": "voting",
    "SpanagreeError": "errors", "FormatError": "errors", "UsageError": "errors", "SpanagreeWarning": "errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'spanagree' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
