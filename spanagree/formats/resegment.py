"""A CoNLL prediction cut along the gold's documents and sentences by token position.

Shared tasks' runs keep the gold's tokens but not always its structure: a run submitted as one
flat document, without the comment lines that name the documents, or with other sentence breaks;
some write a few tokens otherwise (four double quotes for one). When the prediction's tokens line up one
for one with the gold's (the same number of them), :func:`along_gold` gives the prediction the
gold's documents, ids, sentences and texts: each predicted span is carried to the gold's tokens
at the same positions (a span that runs over a document boundary is cut there), and a note says
so, with the number of tokens written otherwise and the first few of them. Each cut document
keeps where its tokens were written otherwise (``Document.written_otherwise``), for the one
comparison that looks at an entity's text: the HIPE scorer's (``score --pairing hipe``). When the numbers
differ, the error names the first difference (document, both files' lines and tokens);
``--align-text`` stays the way to compare texts that differ. A prediction whose documents
already are the gold's (ids, sentences, tokens) is left as it is.

It applies to CoNLL files that name their columns or their documents
(:func:`names_documents`): plain CoNLL files are compared as before.
"""

from __future__ import annotations

import mmap
from collections import Counter
import re
from bisect import bisect_right
from itertools import accumulate

from ..errors import FormatError
from ..span import Document, Span
from .columns import Layout, comment_kind, docstart_name, has_layout, reading_layout, token_rows
from .conll import token_offsets
from .files import open_file

#: Tokens written otherwise that a note shows.
SHOWN = 5

_NAMING_LINE = re.compile(rb"^(?:# ?(?:newdoc id|hipe2022:document_id|document_id) = *\S|#begin document |"
                          rb"-DOCSTART-[ \t]+(?!(?:O|-X-|_)[ \t\r]*$)\S+[ \t\r]*$)", re.MULTILINE)


def _line_starts(data, prefix: bytes):
    """Where the lines of ``data`` that begin with ``prefix`` begin: each ``prefix`` found with
    ``find`` and kept where a newline is before it (searching for the newline and the prefix
    together stopped at every line of the file: four times as long on a file without ``#``)."""
    at = data.find(prefix)
    while at >= 0:
        if at == 0 or data[at - 1] == 10:  # b"\n"
            yield at
        at = data.find(prefix, at + 1)


def _naming_lines(data):
    """:data:`_NAMING_LINE`'s matches in ``data`` (comments first, then ``-DOCSTART-`` lines), tried
    only where a line begins with ``#`` or ``-DOCSTART-``: the multiline ``^`` pattern scanned a
    30 MB file in 0.7 s, four times as long."""
    for prefix in (b"#", b"-DOCSTART-"):
        for start in _line_starts(data, prefix):
            found = _NAMING_LINE.match(data, start)
            if found:
                yield found


def names_documents(path) -> bool:
    """Whether a CoNLL file names its columns (a header row, CoNLL-U, CoNLL-2012) or its documents
    (a comment or a ``-DOCSTART- X`` line that names one)."""
    if has_layout(path):
        return True
    with open_file(str(path), "CoNLL") as file:
        try:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file
            return False
        with data:
            for found in _naming_lines(data):
                line = found.group().decode("utf-8", "replace")
                if line.startswith("#") and comment_kind(line, False) is not None:
                    return True
                if line.startswith("-DOCSTART-"):
                    end = data.find(b"\n", found.start())
                    fields = bytes(data[found.start():end if end >= 0 else len(data)]).decode("utf-8", "replace").split()
                    if docstart_name(fields) is not None:
                        return True
    return False


def _structure(documents: list[Document]) -> list[tuple[str, list[int]]]:
    return [(d.id, [len(s) for s in token_offsets(d.text or "")]) for d in documents]


def _tokens(documents: list[Document]) -> list[str]:
    return [token for d in documents if d.text for line in d.text.split("\n") for token in line.split(" ")]


def along_gold(gold: list[Document], prediction: list[Document], gold_path, prediction_path, name: str,
               gold_layout: Layout | None = None, prediction_layout: Layout | None = None, *,
               reference: str = "the gold's") -> tuple[list[Document], list[str]] | None:
    """The prediction's documents cut along the gold's, and the note saying so; ``None`` when the
    prediction already has the gold's documents, sentences and tokens (nothing to do).
    ``reference`` names the gold in the note and the error (``agree``: "the first input's").

    Raises
    ------
    FormatError
        The prediction has another number of tokens than the gold (naming the first difference).
    """
    gold_tokens, predicted_tokens = _tokens(gold), _tokens(prediction)
    if gold_tokens == predicted_tokens and _structure(gold) == _structure(prediction):
        return None
    if len(gold_tokens) != len(predicted_tokens):
        raise _first_difference(gold, gold_tokens, predicted_tokens, gold_path, prediction_path, name,
                                gold_layout, prediction_layout, reference)
    # the gold's tokens: flat index -> (document, start, end)
    places = []
    for number, document in enumerate(gold):
        for sentence in token_offsets(document.text or ""):
            places.extend((number, start, end) for start, end in sentence)
    cut, spans = 0, [[] for _ in gold]
    position = 0
    for document in prediction:
        offsets = [pair for sentence in token_offsets(document.text or "") for pair in sentence]
        starts = {start: position + k for k, (start, _) in enumerate(offsets)}
        ends = {end: position + k for k, (_, end) in enumerate(offsets)}
        for span in document.spans:
            first, last = starts[span.start], ends[span.end]
            while first <= last:
                number = places[first][0]
                piece_last = last
                while places[piece_last][0] != number:
                    piece_last -= 1
                if piece_last != last:
                    cut += 1
                spans[number].append(Span.trusted(gold[number].id, ((places[first][1], places[piece_last][2]),),
                                                  span.label, span.source, span.attributes))
                first = piece_last + 1
        position += len(offsets)
    differing = [(g, p) for g, p in zip(gold_tokens, predicted_tokens) if g != p]
    written: list[list[tuple[int, int, str]]] = [[] for _ in gold]
    if differing:
        for (number, start, end), g, p in zip(places, gold_tokens, predicted_tokens):
            if g != p:
                written[number].append((start, end, p))
    documents = [Document(g.id, g.text, sorted(own, key=Span.sort_key), d_source(prediction, g), True,
                          written_otherwise=tuple(written_here)) for g, own, written_here in zip(gold, spans, written)]
    note = (f"its {len(prediction)} document(s) were cut along {reference} {len(gold)} by token position "
            f"(the {len(gold_tokens)} tokens line up one for one)")
    if differing:
        kinds = Counter(differing)
        shown = ", ".join(f"{p!r} for {g!r}" + (f" ({count}×)" if count > 1 else "")
                          for (g, p), count in list(kinds.items())[:SHOWN])
        note += (f"; {len(differing)} token(s) written otherwise, taken as {reference}: {shown}"
                 + (", ..." if len(kinds) > SHOWN else ""))
    if cut:
        note += f"; {cut} span(s) running over a document boundary of {reference[:-2]} cut there"
    return documents, [note]


def d_source(prediction: list[Document], gold: Document) -> str | None:
    return prediction[0].source if prediction else gold.source


def first_misalignment(first: list[str], second: list[str], look: int = 4) -> int:
    """Where two token sequences of different lengths stop lining up one for one: the first
    differing token where the next ``look`` tokens agree better with one side shifted by a token
    than with neither (a token written otherwise, four double quotes for one, is passed over: the
    difference that matters is the token one side lacks); the end of the shorter when every
    difference is one written otherwise.

    Examples
    --------
    >>> first_misalignment(["A", "'", "B", "C", "D", "E"], ["A", "''", "B", "C", "E"])
    4
    >>> first_misalignment(["A", "B"], ["A", "B", "C"]), first_misalignment(["A", "B", "C"], ["A", "C"])
    (2, 1)
    """
    def agree(x: list[str], y: list[str]) -> int:
        return sum(a == b for a, b in zip(x, y))

    n = min(len(first), len(second))
    for k in range(n):
        if first[k] == second[k]:
            continue
        same = agree(first[k + 1:k + 1 + look], second[k + 1:k + 1 + look])
        shifted = max(agree(first[k + 1:k + 1 + look], second[k:k + look]),   # the first has a token more
                      agree(first[k:k + look], second[k + 1:k + 1 + look]))   # the second has one more
        if shifted > same:
            return k
    return n


def _first_difference(gold, gold_tokens, predicted_tokens, gold_path, prediction_path, name, gold_layout,
                      prediction_layout, reference: str = "the gold's") -> FormatError:
    index = first_misalignment(gold_tokens, predicted_tokens)
    sizes = list(accumulate(len(_tokens([d])) for d in gold))
    number = min(bisect_right(sizes, index), len(gold) - 1) if gold else 0
    gold_lines = token_rows(gold_path, gold_layout)
    predicted_lines = token_rows(prediction_path, prediction_layout)

    def at(tokens, lines, what):
        if index < len(tokens):
            return f"{what} line {lines[index]} {tokens[index]!r}"
        return f"{what} ends"

    side = reference[4:-2]  # "gold", "first input"
    dropped = ("; rows whose token holds a '#' are left out of both, as the HIPE scorer reads them"
               if gold_layout is not None and gold_layout.drop_hash_rows else "")
    return FormatError(prediction_path, f"its {len(predicted_tokens)} tokens do not line up with {reference} "
                       f"{len(gold_tokens)}: first difference in {side} document "
                       f"{gold[number].id if gold else '-'!r}: {at(gold_tokens, gold_lines, side)}, "
                       f"{at(predicted_tokens, predicted_lines, name)} (texts that differ are compared with "
                       "{align_text}" + dropped + ")", align_text="align_text")


def resegmented(gold, predictions: list, format: str | None = None, format_options: dict | None = None, *,
                reference: str = "the gold's") -> list:
    """``score``'s predictions, each CoNLL file cut along a CoNLL gold's documents
    (:func:`along_gold`) when either names its columns or documents (:func:`names_documents`): a
    stream of the cut documents with the note added; any other prediction as it is. ``agree``
    cuts its other inputs along its first (``reference="the first input's"``)."""
    import os

    from .detection import detect_format
    from .reading import reader_options, open_stream
    from .stream import DocumentStream, collect

    def conll_path(item) -> bool:
        return isinstance(item, (str, os.PathLike)) and os.path.isfile(item) and (format or detect_format(item)) == "conll"

    if not conll_path(gold) or not any(conll_path(p) for p in predictions):
        return predictions
    gold_named = names_documents(gold)
    _, own = reader_options(gold, "conll", dict(format_options or {}))
    gold_documents = None
    result = []
    for prediction in predictions:
        if not conll_path(prediction) or not (gold_named or names_documents(prediction)):
            result.append(prediction)
            continue
        if gold_documents is None:
            gold_documents = list(collect(open_stream(gold, "conll", **own)).documents.values())
        stream = open_stream(prediction, "conll", **own)
        documents = list(stream.documents)
        dropping = bool(own.get("conll_drop_hash_rows"))
        cut = along_gold(gold_documents, documents, gold, prediction, stream.name,
                         reading_layout(gold, own.get("conll_column"), dropping),
                         reading_layout(prediction, own.get("conll_column"), dropping), reference=reference)
        if cut is None:
            result.append(prediction)
            continue
        cut_documents, notes = cut
        result.append(DocumentStream(stream.name, "conll", iter(cut_documents), list(stream.notes) + notes))
    return result
