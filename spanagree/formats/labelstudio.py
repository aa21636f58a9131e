"""Label Studio JSON exports: a container, one span set per annotator.

Reading
-------
A Label Studio **JSON export** (Export → JSON) is a list of tasks::

    [{"id": 7, "data": {"text": "Ana met Bo."},
      "annotations": [{"id": 31, "completed_by": 2, "was_cancelled": false,
                       "result": [{"type": "labels", "from_name": "label", "to_name": "text",
                                   "value": {"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}}]}],
      "predictions": [{"model_version": "crf-1", "result": [...]}]}]

and a **JSON-MIN export** is a list of flat records, one per task and annotation::

    [{"id": 7, "text": "Ana met Bo.", "annotator": "ana@example.org", "annotation_id": 31,
      "label": [{"start": 0, "end": 3, "text": "Ana", "labels": ["PER"]}]}]

(the span list's key is the labelling control's name: every list of objects with ``start`` and
``end``, some with ``labels``, is read; an item without ``labels`` is left out and counted in its
annotator's notes). Both are recognised from a ``.json`` file holding a list (a
JSONL file holds objects, one per line).

* **Documents** are the tasks; a document's id is the task's ``id`` (as a string), else its
  1-based position in the list. Its text is the task's ``data`` field named by the results'
  ``to_name`` when ``data`` has such a key, else ``data["text"]``, else the task's only string
  field; ``labelstudio_text_field`` names it instead.
* **Annotators** (a container): the annotations are split by ``completed_by`` — an id (named by
  the id: ``"2"``) or an object (named by its ``email``, else its ``id``) — and JSON-MIN's
  ``annotator``. An annotation without any is named by its position in its task
  (``annotation1``, ...). Annotators are listed in the order they first appear. Each holds the
  tasks it annotated: a task an annotator did not annotate is not that annotator's document
  (commands that need every annotator leave it out, with their warning). Of several annotations
  of one task by one annotator, the last is read (counted in the notes).
* **Cancelled** annotations (``was_cancelled``: the annotator skipped the task) are not read,
  counted in the notes: a skipped task is not an empty one.
* **Predictions** are read only with ``labelstudio_predictions`` (``--labelstudio-predictions``),
  as span sets of role ``prediction`` named by their ``model_version`` (``prediction`` when it
  has none): ``score export.json --gold 2 --annotators 2,crf-1`` scores a model.
* **Spans** are the results of type ``labels`` (``value.start``, ``value.end``, one span per
  label in ``value.labels``); a result's ``id`` names its *region*.
* **Per-region results** -- a ``choices``, ``textarea``, ``rating``, ``number``, ``taxonomy`` or
  ``datetime`` result whose ``id`` is a labelled region's (a control with ``perRegion="true"``)
  -- are attributes of the region's spans: the control's ``from_name`` → its value, several
  values joined by ``|`` in their order (``["Negated", "Uncertain"]`` → ``"Negated|Uncertain"``;
  a taxonomy's paths with ``/`` inside each), a number as Python writes it.
* **Relations** (``{"type": "relation", "from_id", "to_id", "direction", "labels"}``) between
  two labelled regions are the document's relations: the type is the label (several joined by
  ``|``; :data:`UNLABELLED`, ``relation``, without one), ``Arg1`` the region the arrow leaves
  and ``Arg2`` the one it points at (``right``, the default: from → to; ``left``: to → from). A
  ``bi`` relation is read from → to and its type is symmetric (matched in either argument order:
  the types drawn ``bi`` anywhere in the export, its predictions' too, are its span sets'
  :attr:`~spanagree.formats.DocumentStream.symmetric_relations`, :func:`symmetric_relation_types`);
  a note counts them. A
  region with several labels takes part by its first label's span. A relation naming a region
  the annotation does not have is an error; one between regions of other kinds (rectangles,
  paragraphs) is not read.
* Other results (whole-task choices, rectangles, ...) are counted in the notes.
* **Offsets.** Label Studio stores code points since label-studio-frontend 1.7 (2021, its pull
  request #308, "store code points instead of js length"); older versions stored JavaScript's
  UTF-16 units, which are off by one after every emoji (label-studio issue #1347). Offsets are
  read as code points; where a result's ``value.text`` differs from the text at
  ``start:end`` but equals it counted in UTF-16 units, the UTF-16 reading is taken (counted in
  the notes); where it equals neither, the offsets are kept and a warning names the task and the
  two texts.
* **Notes** that concern one annotator (spans read in UTF-16 units, a task annotated twice, JSON-MIN
  items without labels) are that annotator's; cancelled annotations and other results are the
  export's, in every annotator's notes.
* **Errors** (:class:`~spanagree.errors.FormatError`, naming the file, and the task): invalid
  JSON, a task that is not an object, a result's ``to_name`` that is not a string, no text, a
  span whose offsets are not integers, are empty or reversed, or lie outside the text, a label
  that is not a non-empty string, a task id seen twice, a relation naming no region of its
  annotation, or with labels that are not strings or another direction, a per-region result
  without ``from_name`` or value; the file is one record (``max_record_bytes``).

Writing
-------
``write_labelstudio`` writes a JSON export of one span set: a task per document (``id``: the
document's id; ``data.text``: its text) with one annotation (``completed_by``: ``{"email":
<span set's name>}``) whose results are the spans (``from_name`` ``label``, ``to_name``
``text``). Label Studio imports it as pre-annotated tasks, and it reads back to the same
documents, spans, attributes and relations. A span's attributes follow its region as per-region
``choices`` results with its ``id`` (the value cut at ``|``; notes, BRAT's ``#``, are left out,
announced); a relation ``Arg1`` → ``Arg2`` as a ``relation`` result, direction
``right``, labelled with its type (a symmetric type is not told apart: written ``right`` too).
Events and relations with other roles are left out, announced (:func:`~spanagree.formats.dropped`).
A discontinuous span cannot be held (a Label Studio region is one range): it is refused, naming
the document.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

from ..errors import FormatError, SpanagreeWarning, UsageError, find_stack_level
from ..span import Document, Relation, Source, Span, SpanSet
from . import MAX_RECORD_BYTES, DocumentStream, chosen_stream, collect, read_bounded
from .files import open_bytes
from .writing import is_binary
from .registry import FORMATS

#: This module's registry entry, on which it registers its functions.
FORMAT = FORMATS["labelstudio"]

__all__ = ["annotators_labelstudio", "read_labelstudio", "recognise_labelstudio", "stream_labelstudio",
           "symmetric_relation_types", "write_labelstudio"]

_LIST = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\[")

#: The name of predictions without a ``model_version``.
PREDICTION = "prediction"


@FORMAT.provides("recogniser")
def recognise_labelstudio(path: Path, head: bytes | None) -> bool:
    """A ``.json`` file holding a JSON list (a JSONL file's records are objects), unless its records
    are string predictions (entities without offsets, no ``data``: :mod:`spanagree.formats.strings`)."""
    if head is None or path.suffix.lower() != ".json" or _LIST.match(head) is None:
        return False
    from .strings import recognise_strings

    return not recognise_strings(path, head)


class _Export:
    """An export read whole: per span set (name, role) its documents, in order; notes."""

    def __init__(self, path: str, text_field: str | None, predictions: bool, limit: int):
        self.path = path
        self.text_field = text_field
        self.predictions = predictions
        self.sets: dict[tuple[str, str], dict[str, Document]] = {}
        self.counts = {"cancelled": 0, "other results": 0}
        self.symmetric: set[str] = set()  # the types of relations read with direction bi
        self.unread_symmetric: set[str] = set()  # those of predictions not read
        self.set_counts: dict[tuple[str, str], dict[str, int]] = {}  # what concerns one span set
        self.mismatches: list[str] = []
        tasks = self._load(limit)
        seen: set[str] = set()
        for number, task in enumerate(tasks, 1):
            self._task(number, task, seen)

    def _load(self, limit: int) -> list:
        try:
            with open_bytes(self.path) as file:  # (a pipe: what detection read of it, then the rest)
                data = read_bounded(file, self.path, limit, "the export")
        except FileNotFoundError:
            raise FormatError(self.path, "no such file") from None
        except IsADirectoryError:
            raise FormatError(self.path, "is a folder; a Label Studio export is one .json file") from None
        except OSError as error:
            raise FormatError(self.path, f"cannot read: {error.strerror or error}") from None
        try:
            tasks = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as error:
            raise FormatError(self.path, f"not UTF-8 (byte 0x{data[error.start]:02x} at byte offset {error.start})") \
                from None
        except RecursionError:
            raise FormatError(self.path, "invalid JSON: nested too deeply") from None
        except ValueError as error:  # json.JSONDecodeError, and integers of more than 4,300 digits
            line = getattr(error, "lineno", None)
            message = getattr(error, "msg", None) or str(error)
            raise FormatError(self.path, f"invalid JSON: {message}", line) from None
        if isinstance(tasks, dict) and ("data" in tasks or "annotations" in tasks):
            tasks = [tasks]  # one task, as Label Studio's API and editor give it
        if not isinstance(tasks, list):
            raise FormatError(self.path, "not a Label Studio export: a JSON list of tasks is expected")
        return tasks

    def _error(self, where: str, message: str) -> FormatError:
        return FormatError(self.path, f"{where}: {message}")

    def _task(self, number: int, task, seen: set) -> None:
        where = f"task {number}"
        if not isinstance(task, dict):
            raise self._error(where, "not an object")
        task_id = task.get("id", number)
        if isinstance(task_id, bool) or not isinstance(task_id, (int, str)) or task_id == "":
            raise self._error(where, f"an id that is not a number or a string: {task_id!r}")
        doc_id = _checked(str(task_id), self, where, "id")
        where = f"task {doc_id}"
        if isinstance(task.get("data"), dict) or "annotations" in task or "predictions" in task:
            if doc_id in seen:  # (JSON-MIN repeats a task once per annotation)
                raise self._error(where, "appears twice")
            seen.add(doc_id)
            versions = self._full(task, where)
            data = task.get("data")
            if not isinstance(data, dict):
                raise self._error(where, "no data (the task's fields)")
        else:  # JSON-MIN: the task's fields, and one annotation's span lists, in one record
            lists = [value for value in task.values() if _is_span_list(value)]
            name = self._annotator(task.get("annotator"), None, 1)
            unlabelled = sum(1 for value in lists for item in value if "labels" not in item)
            if unlabelled:
                self._count((name, "annotator"), "unlabelled", unlabelled)
            versions = [(name, "annotator", [r for value in lists for r in _min_results(value)])]
            data = task
        text = self._text(data, versions, where)
        for name, role, results in versions:
            regions: dict[str, list[Span]] = {}  # a region's id -> its spans (one per label)
            spans = []
            for result in results:
                found = self._spans(result, doc_id, text, where, (name, role))
                if found and isinstance(result.get("id"), (str, int)):
                    regions.setdefault(str(result["id"]), []).extend(found)
                spans.extend(found)
            relations = self._linked(results, regions, spans, where, (name, role))
            documents = self.sets.setdefault((name, role), {})
            if doc_id in documents:
                self._count((name, role), "replaced")
            documents[doc_id] = Document(doc_id, text, spans, self.path, relations=relations)

    def _linked(self, results: list, regions: dict[str, list[Span]], spans: list[Span], where: str,
                span_set: tuple[str, str]) -> list[Relation]:
        """The per-region results (choices, text areas, ratings, ... of a labelled region, by its
        ``id``) put on the region's spans as their attributes (``spans`` rebuilt in place), and the
        relations between regions."""
        attributes: dict[str, list[tuple[str, str]]] = {}
        relations = []
        for result in results:
            kind = result.get("type") if isinstance(result, dict) else None
            if not isinstance(kind, str):
                continue
            if kind == "relation":
                relations.append(result)
            elif kind in PER_REGION and str(result.get("id")) in regions:
                self.counts["other results"] -= 1  # (counted by _spans)
                attributes.setdefault(str(result["id"]), []).append(self._attribute(result, where))
        if attributes:
            rebuilt = {}
            for region, pairs in attributes.items():
                for span in regions[region]:
                    rebuilt[id(span)] = Span.trusted(span.doc, span.fragments, span.label, span.source,
                                                     span.attributes + tuple(pairs))
                regions[region] = [rebuilt[id(span)] for span in regions[region]]
            spans[:] = [rebuilt.get(id(span), span) for span in spans]
        if not relations:
            return []
        ids = {str(result.get("id")) for result in results if isinstance(result, dict) and "id" in result}
        read = []
        for result in relations:
            ends = [result.get(key) for key in ("from_id", "to_id")]
            for key, region in zip(("from_id", "to_id"), ends):
                if not isinstance(region, (str, int)) or isinstance(region, bool) or str(region) not in ids:
                    raise self._error(where, f"a relation's {key} {region!r} names no region of the annotation")
            if all(str(region) in regions for region in ends):  # (else between regions of other kinds: not read)
                self.counts["other results"] -= 1  # (counted by _spans)
                read.append(self._relation(result, regions, where, span_set))
        return read

    def _attribute(self, result: dict, where: str) -> tuple[str, str]:
        """A per-region result as an attribute: its control's ``from_name`` → its value (several
        joined by ``|``)."""
        name, kind, value = result.get("from_name"), result["type"], result.get("value")
        if not isinstance(name, str) or not name:
            raise self._error(where, f"a {kind} result of region {result['id']!r} has no from_name")
        given = value.get(PER_REGION[kind]) if isinstance(value, dict) else None
        if isinstance(given, list) and given and all(isinstance(v, list) for v in given):  # taxonomy: paths
            given = ["/".join(map(str, path)) for path in given]
        if isinstance(given, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                           for v in given) and given:
            return name, _checked("|".join(map(str, given)), self, where, name)
        if isinstance(given, (str, int, float)) and not isinstance(given, bool):
            return name, _checked(str(given), self, where, name)
        raise self._error(where, f"the {kind} result {name!r} of region {result['id']!r} has no value "
                          f"(value.{PER_REGION[kind]}: {given!r})")

    def _relation(self, result: dict, regions: dict[str, list[Span]], where: str,
                  span_set: tuple[str, str]) -> Relation:
        """A relation result between two labelled regions: its type is its label (several joined by
        ``|``; :data:`UNLABELLED` without one), ``Arg1`` the region it points from."""
        ends = [regions[str(result[key])][0] for key in ("from_id", "to_id")]
        labels = result.get("labels") or []
        if not isinstance(labels, list) or not all(isinstance(label, str) and label for label in labels):
            raise self._error(where, f"a relation's labels are not a list of strings: {labels!r}")
        kind = _checked("|".join(labels), self, where, "relation label") if labels else UNLABELLED
        direction = result.get("direction", "right")
        if direction not in ("right", "left", "bi"):
            raise self._error(where, f"a relation's direction is right, left or bi, not {direction!r}")
        if direction == "left":
            ends.reverse()
        elif direction == "bi":
            self._count(span_set, "bidirectional")
            self.symmetric.add(kind)
        return Relation(kind, (("Arg1", ends[0]), ("Arg2", ends[1])), None, Source(self.path))

    def _count(self, span_set: tuple[str, str], what: str, number: int = 1) -> None:
        counts = self.set_counts.setdefault(span_set, {})
        counts[what] = counts.get(what, 0) + number

    def _full(self, task: dict, where: str) -> list[tuple[str, str, list]]:
        versions = []
        annotations = task.get("annotations") or task.get("completions") or []
        if not isinstance(annotations, list):
            raise self._error(where, "annotations is not a list")
        for position, annotation in enumerate(annotations, 1):
            if not isinstance(annotation, dict):
                raise self._error(where, f"annotation {position} is not an object")
            if annotation.get("was_cancelled"):
                self.counts["cancelled"] += 1
                continue
            name = self._annotator(annotation.get("completed_by"), annotation.get("annotator"), position)
            versions.append((name, "annotator", self._results(annotation, where)))
        if self.predictions:
            predictions = task.get("predictions") or []
            if not isinstance(predictions, list):
                raise self._error(where, "predictions is not a list")
            for prediction in predictions:
                if not isinstance(prediction, dict):
                    raise self._error(where, "a prediction is not an object")
                version = prediction.get("model_version")
                name = str(version) if version not in (None, "") else PREDICTION
                versions.append((name, "prediction", self._results(prediction, where)))
        elif isinstance(task.get("predictions"), list):
            for prediction in task["predictions"]:  # not read, but the types they draw bi are symmetric
                if isinstance(prediction, dict) and isinstance(prediction.get("result"), list):
                    self.unread_symmetric.update(_drawn_both_ways(prediction["result"]))
        return versions

    def _results(self, annotation: dict, where: str) -> list:
        results = annotation.get("result") or []
        if not isinstance(results, list):
            raise self._error(where, "result is not a list")
        return results

    def _annotator(self, completed_by, annotator, position: int) -> str:
        for value in (completed_by, annotator):
            if isinstance(value, dict):
                value = value.get("email") or value.get("id")
            if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
                return _checked(str(value).strip(), self, "annotator", "name")
        return f"annotation{position}"

    def _text(self, data: dict, versions, where: str) -> str:
        if self.text_field is not None:
            key = self.text_field
        else:
            names = set()
            for _, _, results in versions:
                for number, result in enumerate(results, 1):
                    name = result.get("to_name") if isinstance(result, dict) else None
                    if name is not None and not isinstance(name, str):
                        raise self._error(where, f"result {number}'s to_name is not a string: {name!r}")
                    names.add(name)
            key = next((n for n in names if isinstance(n, str) and isinstance(data.get(n), str)), None)
            if key is None:
                strings = [k for k, v in data.items() if isinstance(v, str) and k not in _NOT_TEXT]
                key = "text" if "text" in data else strings[0] if len(strings) == 1 else None
        text = data.get(key) if key is not None else None
        if not isinstance(text, str):
            raise FormatError(self.path, f"{where}: " + (f"no text (the data field {key!r} is not a string; name it "
                              "with {option})" if key is not None else "no text (name its data field with {option})"),
                              option="labelstudio_text_field")
        return _checked(text, self, where, "text")

    def _spans(self, result, doc_id: str, text: str, where: str, span_set: tuple[str, str]) -> list[Span]:
        if not isinstance(result, dict) or result.get("type", "labels") != "labels" \
                or not isinstance(result.get("value"), dict) or "labels" not in result["value"]:
            self.counts["other results"] += 1
            return []
        value = result["value"]
        start, end, labels = value.get("start"), value.get("end"), value.get("labels")
        for name, offset in (("start", start), ("end", end)):
            if isinstance(offset, bool) or not isinstance(offset, int):
                raise self._error(where, f"a span's {name} is not an integer: {offset!r}")
        if not isinstance(labels, list) or not labels:
            raise self._error(where, f"a span without labels: {labels!r}")
        shown = value.get("text")
        if isinstance(shown, str) and text[start:end] != shown and 0 <= start < end:
            units = _utf16_to_code_points(text, start, end)
            if units is not None and text[units[0]:units[1]] == shown:
                self._count(span_set, "utf16")
                start, end = units
            elif len(self.mismatches) < 3:
                self.mismatches.append(f"{where} [{start}, {end}): {text[start:end]!r} in the text, {shown!r} in "
                                       "value.text")
            else:
                self.mismatches.append("")
        if not 0 <= start < end <= len(text):
            raise self._error(where, f"span [{start}, {end}) is empty, reversed or outside the text "
                              f"({len(text)} characters)")
        spans = []
        for label in labels:
            if not isinstance(label, str) or not label.strip():
                raise self._error(where, f"a label that is not a non-empty string: {label!r}")
            spans.append(Span(doc_id, ((start, end),), _checked(label, self, where, "label"), source=Source(self.path)))
        return spans

    def notes(self, span_set: tuple[str, str]) -> list[str]:
        """The export's notes (cancelled annotations, other results) and those of ``span_set``."""
        counts, notes = dict(self.counts, **self.set_counts.get(span_set, {})), []
        if counts["cancelled"]:
            notes.append(f"{counts['cancelled']} cancelled (skipped) Label Studio annotation(s) left out")
        if counts["other results"]:
            notes.append(f"{counts['other results']} Label Studio result(s) other than labelled spans (choices, "
                         "relations, ...) not read")
        if counts.get("utf16"):
            notes.append(f"{counts['utf16']} span(s) counted in UTF-16 units (an older Label Studio) read as "
                         "code points")
        if counts.get("replaced"):
            notes.append(f"{counts['replaced']} task(s) annotated twice by one annotator: the last annotation read")
        if counts.get("unlabelled"):
            notes.append(f"{counts['unlabelled']} Label Studio JSON-MIN span(s) without labels left out")
        if counts.get("bidirectional"):
            notes.append(f"{counts['bidirectional']} bidirectional Label Studio relation(s) read from → to (their "
                         f"types, symmetric: {', '.join(sorted(self.symmetric))})")
        return notes


_NOT_TEXT = {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time"}

#: The per-region results read as attributes (a result of this type whose ``id`` is a labelled
#: region's), each with the key of ``value`` that holds its value.
PER_REGION = {"choices": "choices", "textarea": "text", "rating": "rating", "number": "number",
              "taxonomy": "taxonomy", "datetime": "datetime"}

#: The type of a relation without a label.
UNLABELLED = "relation"


def _drawn_both_ways(results: list) -> set[str]:
    """The types of the relations drawn ``"direction": "bi"`` between labelled regions among
    ``results`` (a prediction's, not read: as reading it would find them, nothing checked)."""
    regions = {str(result["id"]) for result in results
               if isinstance(result, dict) and result.get("type", "labels") == "labels"
               and isinstance(result.get("value"), dict) and isinstance(result["value"].get("labels"), list)
               and result["value"]["labels"] and isinstance(result.get("id"), (str, int))}
    found = set()
    for result in results:
        if not isinstance(result, dict) or result.get("type") != "relation" or result.get("direction") != "bi":
            continue
        ends = [result.get(key) for key in ("from_id", "to_id")]
        labels = result.get("labels") or []
        if all(isinstance(end, (str, int)) and not isinstance(end, bool) and str(end) in regions for end in ends) \
                and isinstance(labels, list) and all(isinstance(label, str) and label for label in labels):
            found.add("|".join(labels) if labels else UNLABELLED)
    return found


def _is_span_list(value) -> bool:
    """A JSON-MIN span list: objects with ``start`` and ``end``, at least one with ``labels`` (those
    without are counted in the notes)."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(v, dict) and "start" in v and "end" in v for v in value) and any("labels" in v for v in value)


def _min_results(values: list) -> list[dict]:
    return [{"type": "labels", "value": v} for v in values if "labels" in v]


def _checked(value: str, export: _Export, where: str, what: str) -> str:
    """A string from the export that UTF-8 can hold (no lone surrogate, which JSON may escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FormatError(export.path, f"{where}: the {what} holds a lone surrogate (not a character)") from None
    return value


def _utf16_to_code_points(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``[start, end)`` counted in UTF-16 units, as code points of ``text`` (``None`` when a
    boundary falls inside a character or beyond the text)."""
    found, units = {}, 0
    for index, char in enumerate(text):
        if units in (start, end):
            found[units] = index
        units += 2 if ord(char) > 0xFFFF else 1
        if units > end:
            break
    if units in (start, end):
        found[units] = len(text)
    if start in found and end in found:
        return found[start], found[end]
    return None


def _exports(path, text_field, predictions, limit) -> _Export:
    export = _Export(str(path), text_field, predictions, limit)
    if any(export.mismatches):
        shown = [m for m in export.mismatches if m]
        more = len(export.mismatches) - len(shown)
        warnings.warn(f"{path}: {len(export.mismatches)} span(s) whose value.text differs from the text at their "
                      f"offsets (offsets kept): " + "; ".join(shown) + (f"; and {more} more" if more else ""),
                      SpanagreeWarning, stacklevel=find_stack_level())
    return export


@FORMAT.provides("annotators")
def annotators_labelstudio(path, *, labelstudio_text_field: str | None = None,
                           labelstudio_predictions: bool | None = None,
                           max_record_bytes: int = MAX_RECORD_BYTES) -> list[DocumentStream]:
    """One stream per annotator of a Label Studio export (and per model version with
    ``labelstudio_predictions``), in order of first appearance. The export is read here, whole
    (it is one JSON document); each stream carries the relation types the export draws ``bi``
    (:attr:`~spanagree.formats.DocumentStream.symmetric_relations`: :func:`symmetric_relation_types`
    as the reading found them)."""
    export = _exports(path, labelstudio_text_field, bool(labelstudio_predictions), max_record_bytes)
    symmetric = frozenset(export.symmetric | export.unread_symmetric)  # the export's, whichever span sets are compared
    return [DocumentStream(name, "labelstudio", iter(list(documents.values())), export.notes((name, role)), role,
                           symmetric_relations=symmetric)
            for (name, role), documents in export.sets.items()]


@FORMAT.provides("streamer")
def stream_labelstudio(path, *, name: str | None = None, annotator: str | None = None,
                       labelstudio_text_field: str | None = None, labelstudio_predictions: bool | None = None,
                       max_record_bytes: int = MAX_RECORD_BYTES) -> DocumentStream:
    """One annotator's (or model's) documents (``annotator``; may be left out when the export
    holds one annotator)."""
    streams = annotators_labelstudio(path, labelstudio_text_field=labelstudio_text_field,
                                     labelstudio_predictions=labelstudio_predictions,
                                     max_record_bytes=max_record_bytes)
    return chosen_stream(path, streams, annotator, name)


def read_labelstudio(path, *, name: str | None = None, annotator: str | None = None,
                     labelstudio_text_field: str | None = None, labelstudio_predictions: bool | None = None,
                     max_record_bytes: int = MAX_RECORD_BYTES) -> SpanSet:
    """:func:`stream_labelstudio` collected."""
    return collect(stream_labelstudio(path, name=name, annotator=annotator,
                                      labelstudio_text_field=labelstudio_text_field,
                                      labelstudio_predictions=labelstudio_predictions,
                                      max_record_bytes=max_record_bytes))


def symmetric_relation_types(path, *, labelstudio_text_field: str | None = None,
                             max_record_bytes: int = MAX_RECORD_BYTES) -> frozenset[str]:
    """The relation types an export declares symmetric: those of its relations drawn with
    ``"direction": "bi"`` (annotations' and predictions'), which the relations' comparison matches
    in either argument order. The export's span sets carry them as they are read
    (:func:`annotators_labelstudio`), which is how a run learns them; this reads the export for them.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> region = lambda i, s, e: {"id": i, "type": "labels", "value": {"start": s, "end": e, "labels": ["PER"]}}
    >>> _ = f.write_text(json.dumps([{"id": 1, "data": {"text": "Ana met Bo."}, "annotations": [{"result": [
    ...     region("a", 0, 3), region("b", 8, 10),
    ...     {"type": "relation", "from_id": "a", "to_id": "b", "direction": "bi", "labels": ["Knows"]},
    ...     {"type": "relation", "from_id": "a", "to_id": "b", "direction": "right", "labels": ["Met"]}]}]}]))
    >>> sorted(symmetric_relation_types(f))
    ['Knows']
    """
    return frozenset(_Export(str(path), labelstudio_text_field, True, max_record_bytes).symmetric)


@FORMAT.provides("writer")
def write_labelstudio(spanset: SpanSet, dest) -> None:
    """Write a span set as a Label Studio JSON export: a task per document, one annotation each.

    Raises
    ------
    UsageError
        Naming the document: a discontinuous span (a Label Studio region is one range), a span
        beyond its text, a document without text, a text that UTF-8 cannot hold. Nothing is
        written then.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> write_labelstudio(SpanSet.from_spans("ana", [Span("d1", (0, 3), "PER")], {"d1": "Ana met Bo."}), f)
    >>> read_labelstudio(f).documents["d1"].spans
    [Span(doc='d1', fragments=((0, 3),), label='PER')]
    """
    tasks = []
    for doc_id, document in spanset.documents.items():
        text = document.text
        if text is None:
            raise UsageError(f"document {doc_id!r}: its text is unknown; a Label Studio task needs one")
        results = []
        regions: dict[Span, str] = {}
        for number, span in enumerate(sorted(document.spans, key=Span.sort_key), 1):
            if len(span.fragments) > 1:
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} is discontinuous; a "
                                 "Label Studio region is one range")
            if span.end > len(text):
                raise UsageError(f"document {doc_id!r}: span {span.fragments} {span.label} ends beyond its text "
                                 f"({len(text)} characters)")
            place = {"start": span.start, "end": span.end, "text": text[span.start:span.end]}
            results.append({"id": f"r{number}", "type": "labels", "from_name": "label", "to_name": "text",
                            "value": {**place, "labels": [span.label]}})
            regions.setdefault(span, f"r{number}")
            for key, value in span.attributes:  # per-region choices (notes, free text, are left out: announced)
                if not key.startswith("#:"):
                    results.append({"id": f"r{number}", "type": "choices", "from_name": key, "to_name": "text",
                                    "value": {**place, "choices": value.split("|")}})
        for relation in sorted(document.relations, key=Relation.sort_key):
            if is_binary(relation) and all(span in regions for span in relation.spans):  # (others: announced)
                results.append({"from_id": regions[relation.arguments[0][1]], "to_id": regions[relation.arguments[1][1]],
                                "type": "relation", "direction": "right", "labels": [relation.type]})
        tasks.append({"id": doc_id, "data": {"text": text},
                      "annotations": [{"completed_by": {"email": spanset.name}, "result": results}]})
    content = json.dumps(tasks, ensure_ascii=False, indent=1)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"span set {spanset.name!r}: a text, id or label holds a lone surrogate, which UTF-8 "
                         "cannot hold") from None
    with open(dest, "wb") as file:
        file.write(data + b"\n")
