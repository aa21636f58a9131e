"""INCEpTION's layers as spanagree's model holds them: span features as attributes, relation
layers as binary relations — what the WebAnno TSV (:mod:`spanagree.formats.webanno`) and UIMA XMI
(:mod:`spanagree.formats.xmi`) readers and writers share.

* **Span features.** A span layer's features besides the label are the span's attributes, under
  the feature's name; a writer writes each attribute under its public name
  (:func:`~spanagree.span.compared_attributes`: BRAT's ``A:Negation`` as ``Negation``) as a
  string feature. A name that cannot be a UIMA feature name (:func:`is_feature_name`) is not
  written, nor are notes (BRAT's ``#:AnnotatorNotes``), nor an empty value.
* **Relations.** A relation layer's annotation has two ends, its ``Governor`` and its
  ``Dependent`` (:data:`GOVERNOR`, :data:`DEPENDENT`): the relation's roles. A relation of two
  arguments read from a format of other roles (BRAT's ``Arg1``, ``Arg2``) is written with its first
  argument as the governor and its second as the dependent, and its roles in the string features
  :data:`ROLE_FEATURES` (``governorRole``, ``dependentRole``), which the readers read back as the
  roles. Events, relations of other than two arguments and relations to spans the document does
  not hold are not written (:func:`written_relations`).
"""

from __future__ import annotations

import re

from ..span import Document, Relation, compared_attributes

#: A relation's two roles: the end it starts from and the end it points to.
GOVERNOR, DEPENDENT = "Governor", "Dependent"
#: The relation layer's string features holding roles other than :data:`GOVERNOR` and :data:`DEPENDENT`.
ROLE_FEATURES = ("governorRole", "dependentRole")
#: The relation layer the writers write.
RELATION_LAYER = "webanno.custom.Relation"
#: Its label feature.
RELATION_FEATURE = "value"

_FEATURE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
#: Names a span feature cannot have: UIMA's own features and those of TSV's column syntax.
_RESERVED = frozenset({"begin", "end", "sofa"})


def is_feature_name(name: str) -> bool:
    """Whether an attribute's public name can be a feature's name in TSV and XMI: a letter, then
    letters, digits or ``_`` (a UIMA feature name), not ``begin``, ``end`` or ``sofa``, not
    starting as TSV's slot and base-type columns do (``ROLE_``, ``BT_``).

    >>> [is_feature_name(n) for n in ("Negation", "kb_id", "label-1", "begin", "ROLE_x")]
    [True, True, False, False, False]
    """
    return (_FEATURE_NAME.match(name) is not None and name not in _RESERVED
            and not name.startswith(("ROLE_", "BT_")))


def written_attributes(span) -> list[tuple[str, str]]:
    """The ``(feature, value)`` pairs a writer writes of a span's attributes: its compared
    attributes whose names are feature names, with a value.

    >>> from spanagree.span import Span
    >>> span = Span("d", 0, 4, "X", attributes=(("A:Negation", "True"), ("#:AnnotatorNotes", "x"), ("a b", "1")))
    >>> written_attributes(span)
    [('Negation', 'True')]
    """
    return [(name, value) for name, value in compared_attributes(span).items() if value and is_feature_name(name)]


def feature_names(documents) -> list[str]:
    """The features the spans of ``documents`` (:class:`~spanagree.span.Document`) need, in the
    order first met."""
    names: dict[str, None] = {}
    for document in documents:
        for span in document.spans:
            for name, _ in written_attributes(span):
                names[name] = None
    return list(names)


def written_relations(document: Document) -> list[tuple[Relation, int, int]]:
    """A document's relations a writer writes, each with the indexes of its governor and its
    dependent in ``document.spans``: relations (not events) of two arguments, both spans of the
    document (the first of equal spans)."""
    if not document.relations:
        return []
    index: dict = {}
    for number, span in enumerate(document.spans):
        index.setdefault(span, number)
    written = []
    for relation in document.relations:
        if relation.trigger is not None or len(relation.arguments) != 2:
            continue
        (_, governor), (_, dependent) = relation.arguments
        if governor in index and dependent in index:
            written.append((relation, index[governor], index[dependent]))
    return written


def needs_roles(relations) -> bool:
    """Whether some of ``relations`` (:func:`written_relations`' items, or relations) has roles
    other than :data:`GOVERNOR` and :data:`DEPENDENT`, so the writer writes :data:`ROLE_FEATURES`."""
    for item in relations:
        relation = item[0] if isinstance(item, tuple) else item
        if tuple(role for role, _ in relation.arguments) != (GOVERNOR, DEPENDENT):
            return True
    return False


def roles(governor_role: str | None, dependent_role: str | None) -> tuple[str, str]:
    """A relation's roles as read: the role features' values where set, else :data:`GOVERNOR`
    and :data:`DEPENDENT`."""
    return governor_role or GOVERNOR, dependent_role or DEPENDENT


def unwritten(spanset, attribute_keys: dict[str, int] | None = None, *, holds_relations: bool = True) -> list[str]:
    """What the TSV and XMI writers leave out of ``spanset``, counted, for the writer's note.

    ``attribute_keys``: the spans' attribute keys counted by a caller that knows them (``merge``'s
    gold, whose documents are made as they are written): the spans are then not read once more;
    ``holds_relations=False``: the caller made the documents and they hold no relations (merge's
    gold), so they are not read to count them.
    """
    notes = unnamed = 0
    if attribute_keys is not None:
        for key, number in attribute_keys.items():
            if key.startswith("#:"):
                notes += number
            elif not is_feature_name(key[2:] if key.startswith(("A:", "M:", "N:")) else key):
                unnamed += number
    else:
        for span in spanset:
            for key, value in span.attributes:
                if key.startswith("#:"):
                    notes += 1
            unnamed += sum(1 for name, value in compared_attributes(span).items()
                           if value and not is_feature_name(name))
    events = other = lost = 0
    for document in spanset.documents.values() if holds_relations else ():
        if not document.relations:
            continue
        spans = set(document.spans)
        for relation in document.relations:
            if relation.trigger is not None:
                events += 1
            elif len(relation.arguments) != 2:
                other += 1
            elif not all(span in spans for span in relation.spans):
                lost += 1
    counted = ((notes, "note (BRAT #, e.g. AnnotatorNotes) on spans", "notes (BRAT #, e.g. AnnotatorNotes) on spans"),
               (unnamed, "span attribute whose name cannot be a feature's",
                "span attributes whose names cannot be features'"),
               (events, "event", "events"),
               (other, "relation of other than two arguments", "relations of other than two arguments"),
               (lost, "relation to a span the document does not hold", "relations to spans the document does not hold"))
    parts = [f"{number} {one if number == 1 else many}" for number, one, many in counted if number]
    return [", ".join(parts)] if parts else []
