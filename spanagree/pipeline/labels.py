"""The label sets' checks: a ``--map`` or ``--only`` naming a label no input has, and two span sets
whose labels do not line up (``PER``/``LOC``/``ORG`` against ``PERSON``/``LOCATION``/``ORGANIZATION``).

Both give a wrong answer with no error: a relabelling that never applies leaves the labels apart,
and with strict labels spans whose labels differ never match, so two annotators who agree on every
boundary but name their labels differently get an F1 near 0. The checks look at counts the
run adds up anyway, so they do not depend on ``--jobs`` or streaming: the labels of the spans
compared, per pair and side (:class:`~spanagree.pipeline.compare.LabelTally`, after ``--map`` and
``--only``), and for ``--map``/``--only`` (and ``merge``, which keeps no pair tallies) the labels
every input's spans carry as read
(:attr:`~spanagree.pipeline.accumulator.Accumulator.labels`, before ``--map`` and ``--only``).
Each finding is a :class:`~spanagree.errors.SpanagreeWarning` and a line of the result's
``notes``.

The rules (docs/cli.md, "Label checks"):

- **Unknown labels.** An ``OLD`` of ``--map OLD=NEW`` that no input's spans carry, and a label of
  ``--only`` that no input's spans carry after ``--map``.
- **No shared label** (labels strict only: ``--labels ignore`` compares no label). Two span sets
  compared together that both have spans and share no label at all.
- **A label one side lacks** (labels strict only). Of two span sets that share some labels, a
  label that one of them uses for at least :data:`MIN_SPANS` spans and at least
  :data:`MIN_SHARE` of its spans, and the other never: a real disagreement rarely leaves a label
  that common out entirely; a naming difference (``ORG`` against ``ORGANISATION``) always does.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Mapping, Sequence

from ..errors import Parameter, SpanagreeWarning, find_stack_level, lookalikes, parameter

#: A label one side lacks is reported when the other side gives it at least this many spans...
MIN_SPANS = 10
#: ...that are at least this share of that side's spans.
MIN_SHARE = 0.05
#: The relabelling parameter, and a relabelling, as the messages name them.
LABEL_MAP = parameter("label_map", flag="--map")
RELABEL = Parameter('label_map={"OLD": "NEW"}', "--map OLD=NEW")


def selected(labels: Counter, label_map: Mapping[str, str] | None, only: frozenset[str] | None) -> Counter:
    """Label counts as compared: relabelled by ``label_map``, then only those in ``only``.

    Examples
    --------
    >>> selected(Counter({"PERSON": 3, "LOC": 2, "X": 1}), {"PERSON": "PER"}, frozenset({"PER", "LOC"}))
    Counter({'PER': 3, 'LOC': 2})
    """
    result: Counter = Counter()
    for label, count in labels.items():
        label = label_map.get(label, label) if label_map else label
        if only is None or label in only:
            result[label] += count
    return result


def unknown_labels(labels: Sequence[Counter], label_map: Mapping[str, str] | None,
                   only: frozenset[str] | None) -> list[SpanagreeWarning]:
    """The warnings for ``label_map`` and ``only`` labels that no input has (at most one each).

    Examples
    --------
    >>> found = unknown_labels([Counter({"PER": 2, "ORG": 1}), Counter({"PER": 1})], {"ORGANISATION": "ORG"},
    ...                        frozenset({"PER", "MISC"}))
    >>> [str(warning) for warning in found]  # doctest: +NORMALIZE_WHITESPACE
    ['label_map names a label no input has: ORGANISATION (the inputs have: ORG, PER); it relabels nothing',
     'only names a label no input has (after label_map): MISC (the inputs have: ORG, PER); it selects nothing']
    >>> found[1].command_line_message()
    '--only names a label no input has (after --map): MISC (the inputs have: ORG, PER); it selects nothing'

    Without ``label_map`` the message does not speak of it:

    >>> str(unknown_labels([Counter({"PER": 2})], None, frozenset({"MISC"}))[0])
    'only names a label no input has: MISC (the inputs have: PER); it selects nothing'
    """
    every: Counter = Counter()
    for counts in labels:
        every.update(counts)
    present = sorted(label for label, count in every.items() if count)
    messages = []
    missing = sorted(old for old in (label_map or {}) if not every.get(old))
    if missing:
        messages.append(SpanagreeWarning(
            f"{{label_map}} names {_a_label(missing)} no input has: {', '.join(missing)} (the inputs have: "
            f"{_listed(present)}); {'it relabels' if len(missing) == 1 else 'they relabel'} nothing", label_map=LABEL_MAP))
    if only:
        mapped = selected(every, label_map, None)
        missing = sorted(label for label in only if not mapped.get(label))
        if missing:
            have = sorted(label for label, count in mapped.items() if count)
            messages.append(SpanagreeWarning(
                f"{{only}} names {_a_label(missing)} no input has{' (after {label_map})' if label_map else ''}: "
                f"{', '.join(missing)} (the "
                f"inputs have: {_listed(have)}); {'it selects' if len(missing) == 1 else 'they select'} nothing",
                only="only", label_map=LABEL_MAP))
    return messages


def unshared_labels(first: str, first_labels: Counter, second: str,
                    second_labels: Counter) -> SpanagreeWarning | None:
    """The warning for two span sets (labels as compared) whose labels do not line up, or ``None``.

    Examples
    --------
    >>> unlike = unshared_labels("a", Counter({"PER": 5, "LOC": 2}), "b", Counter({"PERSON": 4, "LOCATION": 3}))
    >>> str(unlike)
    'a and b share no label: a has LOC, PER; b has LOCATION, PERSON; with strict labels none of their spans can match (relabel with label_map={"OLD": "NEW"}, or compare boundaries only with labels="ignore")'
    >>> unlike.command_line_message()
    'a and b share no label: a has LOC, PER; b has LOCATION, PERSON; with strict labels none of their spans can match (relabel with --map OLD=NEW, or compare boundaries only with --labels ignore)'
    >>> str(unshared_labels("a", Counter({"PER": 40, "ORG": 20}), "b", Counter({"PER": 38, "ORGANISATION": 19})))
    'a and b: labels only one of them uses: a: ORG (20 spans); b: ORGANISATION (19 spans); with strict labels those spans cannot match (relabel with label_map={"OLD": "NEW"} if they name the same thing)'
    >>> unshared_labels("a", Counter({"PER": 400, "MISC": 3}), "b", Counter({"PER": 380})) is None
    True
    """
    mine = {label for label, count in first_labels.items() if count}
    theirs = {label for label, count in second_labels.items() if count}
    if not mine or not theirs:
        return None
    if not mine & theirs:
        return SpanagreeWarning(f"{first} and {second} share no label: {first} has {_listed(sorted(mine))}; {second} "
                                f"has {_listed(sorted(theirs))}; with strict labels none of their spans can match "
                                "(relabel with {relabel}, or compare boundaries only with {ignore})",
                                relabel=RELABEL, ignore=parameter("labels", "ignore"))
    sides = []
    for name, counts, other in ((first, first_labels, theirs), (second, second_labels, mine)):
        total = sum(counts.values())
        lacking = sorted((label for label, count in counts.items()
                          if label not in other and count >= MIN_SPANS and count >= MIN_SHARE * total),
                         key=lambda label: (-counts[label], label))
        if lacking:
            sides.append(f"{name}: " + ", ".join(f"{label} ({counts[label]} spans)" for label in lacking))
    if not sides:
        return None
    return SpanagreeWarning(f"{first} and {second}: labels only one of them uses: {'; '.join(sides)}; with strict "
                            "labels those spans cannot match (relabel with {relabel} if they name the same thing)",
                            relabel=RELABEL)


def label_warnings(labels: Sequence[Counter], compared: Sequence[tuple[str, Counter, str, Counter]], *,
                   label_map: Mapping[str, str] | None = None, only: frozenset[str] | None = None) -> list[str]:
    """Every label check's message for a run, each warned (:class:`SpanagreeWarning`) and returned
    for the result's ``notes`` (as the command line says it: the notes are part of the output
    documents): the labels of ``label_map`` and ``only`` that no input has (the
    inputs' labels as read: ``labels``, one counter per input), then each pair of span sets
    compared, ``(name, labels, name, labels)`` with the labels as compared (give none when
    labels are not strict)."""
    messages = unknown_labels(labels, label_map, only) if (label_map or only) else []
    for first, first_labels, second, second_labels in compared:
        message = unshared_labels(first, first_labels, second, second_labels)
        if message is not None:
            messages.append(message)
    for message in messages:
        warnings.warn(message, stacklevel=find_stack_level())
    return [message.command_line_message() for message in messages]


def _a_label(labels: list[str]) -> str:
    return "a label" if len(labels) == 1 else "labels"


def _listed(labels: list[str], limit: int = 20) -> str:
    if not labels:
        return "no label"
    return ", ".join(label + lookalikes(label) for label in labels[:limit]) + (
        f" and {len(labels) - limit} more" if len(labels) > limit else "")
