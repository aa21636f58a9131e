"""The JSON documents of every command: ``--output json``, ``--errors FILE.json`` and
``--adjudicate FILE.json``.

They are a contract that users' scripts parse (docs/design.md, "Contracts"): undefined rates are
``null``, fields are only ever added, and each kind of document has a JSON Schema in
``spanagree/report/schemas`` (:func:`spanagree.report.schemas.schema`); a change of a key's type
or of an order is a version bump recorded in CHANGELOG.md.
"""

from __future__ import annotations

import json
import math

from .._version import __version__
from ..measures.counts import Counts
from ..measures.averages import AVERAGED_RATES, label_averages
from ..measures.registry import counts_dict, value
from ..pipeline.compare import MeanF1
from ..span import context_of


class LazyMap(dict):
    """A map whose entries are made as it is iterated: a per-document breakdown written entry by
    entry (the HTML report writes its ``--by document`` JSON while iterating, so the corpus's
    breakdown is never held whole). Only the encoder's way of reading it works: ``len``,
    ``items()``, ``keys()``, ``[key]``; json's pure-Python encoder (``JSONEncoder.iterencode``)
    writes it like a dict."""

    def __init__(self, keys, value):
        super().__init__()
        self.ids = keys
        self.value = value

    def __len__(self):
        return len(self.ids)

    def __iter__(self):
        return iter(self.ids)

    def keys(self):
        return list(self.ids)

    def items(self):
        return ((key, self.value(key)) for key in self.ids)

    def __getitem__(self, key):
        return self.value(key)


def json_safe(value):
    """Replace NaN and infinities by ``None`` (JSON ``null``), recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, LazyMap):
        return LazyMap(value.ids, lambda key, value=value.value: json_safe(value(key)))
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        return json_safe(value.item())
    return value


def to_json(document: dict) -> str:
    """A JSON document as spanagree writes it: indented, UTF-8 as is, NaN as ``null``."""
    return json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def json_pieces(document: dict, size: int = 1 << 16):
    """:func:`to_json` in pieces of about ``size`` characters, made as they are written: a
    document holding a :class:`LazyMap` is never held whole, as a text or as its entries.

    Examples
    --------
    >>> document = {"n": 1, "by_document": LazyMap(["a", "b"], lambda d: {"x": d})}
    >>> "".join(json_pieces(document)) == to_json({"n": 1, "by_document": {"a": {"x": "a"}, "b": {"x": "b"}}})
    True
    """
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False)
    pending, length = [], 0
    for chunk in encoder.iterencode(json_safe(document)):
        pending.append(chunk)
        length += len(chunk)
        if length >= size:
            yield "".join(pending)
            pending, length = [], 0
    pending.append("\n")
    yield "".join(pending)


def pair_entry(first: str, second: str, counts: Counts) -> dict:
    return {"annotators": [first, second], **counts_dict(counts)}


def relations_entry(result, k: int) -> dict:
    """Pair ``k``'s ``relations`` (``agree(relations=True)``), or nothing."""
    found = getattr(result, "relation_pairs", None)
    return {} if found is None else {"relations": found[k]}


def pairs_summary(pairs, counts: list[Counts], *, label: str | None = None) -> dict:
    """One breakdown's pairs (per label, per document), their mean F1 and the pooled F1; per
    label (``label``), each pair's spans of it on either side (``support_first``, ``support_second``)."""
    mean = MeanF1.of(c.as_dict()["f1"] for c in counts)
    entries = [pair_entry(p.first, p.second, c) for p, c in zip(pairs, counts)]
    if label is not None:
        for entry, p in zip(entries, pairs):
            entry["support_first"], entry["support_second"] = agree_support(p, label)
    return {
        "pairs": entries,
        "mean_f1": mean.mean,
        "sd_f1": mean.sd,
        "pairs_with_undefined_f1": mean.skipped,
        "pooled_f1": sum(counts, Counts()).as_dict()["f1"],
    }


def agree_support(pair, label: str) -> tuple[int, int]:
    """A pair's spans of ``label`` on each side (each annotator's distinct spans, as matched)."""
    tally = pair.tally
    return (tally.first.get(label, 0), tally.second.get(label, 0)) if tally is not None else (0, 0)


def pair_averages(pair) -> dict:
    """A pair's micro, macro and weighted averages over its labels (support: the mean of both
    sides' spans of the label: :mod:`spanagree.measures.averages`)."""
    support = {label: sum(agree_support(pair, label)) / 2 for label in pair.by_label}
    return label_averages(pair.by_label, support)


def score_support(result) -> dict[str, int]:
    """Each label's spans in the gold (``support``)."""
    tally = result.pair.tally
    return {label: tally.second.get(label, 0) if tally is not None else 0 for label in result.pair.by_label}


def ranks(values: list[float]) -> list[int | None]:
    """Rank by value, highest first; equal values share the lower rank ("min": 1, 2, 2, 4);
    undefined (NaN) values have no rank (``None``)."""
    defined = sorted((v for v in values if not math.isnan(v)), reverse=True)
    return [None if math.isnan(v) else 1 + defined.index(v) for v in values]


def summary_of(values) -> dict:
    """Mean and population SD of per-document values, undefined ones skipped and counted."""
    mean = MeanF1.of(values)
    return {"mean": mean.mean, "sd": mean.sd, "defined": mean.defined, "skipped": mean.skipped}


def header(result) -> dict:
    """What every ``agree`` and ``merge`` document starts with: version, options, annotators,
    documents and the rule."""
    return {"spanagree": __version__, "options": result.options, "annotators": result.annotators,
            "documents": len(result.documents), "match": result.rule.boundary, "labels": result.rule.labels}


def with_chance(entry: dict, result, doc_id: str) -> dict:
    """A ``by_document`` entry with the document's token-level figures as ``"chance"`` when the
    run had ``chance`` (:attr:`spanagree.agreement.Agreement.chance_of`)."""
    chance_of = getattr(result, "chance_of", None)
    if chance_of is not None:
        figures = chance_of(doc_id)
        if figures is not None:
            entry["chance"] = figures
    return entry


def agreement_document(result, *, by_document: bool = False, lazy: bool = False) -> dict:
    """``agree --output json``: see the ``agree`` schema (``lazy``: ``by_document`` as a :class:`LazyMap`)."""
    mean = result.mean
    pooled = result.pooled
    document = {
        **header(result),
        "partial_credit": result.rule.partial_credit,
        "pairs": [{**pair_entry(p.first, p.second, p.counts), "documents": len(p.by_document),
                   "averages": pair_averages(p), **relations_entry(result, k)} for k, p in enumerate(result.pairs)],
        "mean_f1": mean.mean,
        "sd_f1": mean.sd,
        "pairs_with_undefined_f1": mean.skipped,
        "pooled_f1": pooled.as_dict()["f1"],
        "pooled": counts_dict(pooled),
        "matrix": {"annotators": result.annotators, "f1": result.matrix()},
        "by_label": {label: pairs_summary(result.pairs, result.label_pairs(label), label=label)
                     for label in result.labels},
        "left_out": result.left_out,
        "notes": result.notes,
    }
    if by_document:
        gamma = getattr(result, "gamma_documents", None)

        def entry(d):
            on = result.pairs_on(d)
            found = with_chance(pairs_summary([p for p, _ in on], [c for _, c in on]), result, d)
            if gamma is not None:
                found["gamma"] = gamma[d]
            return found

        document["by_document"] = LazyMap(result.documents, entry) if lazy else {d: entry(d) for d in result.documents}
        on = [result.document_pairs(d) for d in result.documents]
        document["by_document_summary"] = {
            "mean_f1": summary_of(MeanF1.of(c.as_dict()["f1"] for c in counts).mean for counts in on),
            "pooled_f1": summary_of(sum(counts, Counts()).as_dict()["f1"] for counts in on),
        }
    attributes = getattr(result, "attributes", None)
    if attributes is not None:  # each pair's attribute figures (agree attributes=...)
        for entry, figures in zip(document["pairs"], attributes):
            entry["attributes"] = figures
    document.update(result.extras)
    return document


def score_document(result, *, by_document: bool = False, with_header: bool = True, lazy: bool = False) -> dict:
    """``score --output json`` of one prediction (``with_header=False``: an entry of several;
    ``lazy``: ``by_document`` as a :class:`LazyMap`)."""
    beta = result.beta
    support = score_support(result)
    document = {"spanagree": __version__, "options": result.options} if with_header else {}
    document.update({
        "gold": result.gold,
        "prediction": result.prediction,
        "documents": len(result.pair.by_document),
        "match": result.rule.boundary,
        "labels": result.rule.labels,
        "partial_credit": result.rule.partial_credit,
        "beta": beta,
        **counts_dict(result.counts, beta=beta),
        "by_label": {label: {**counts_dict(c, beta=beta), "support": support[label]}
                     for label, c in sorted(result.pair.by_label.items())},
        "averages": label_averages(result.pair.by_label, support),
        "errors": result.error_counts(),
        "confusion": result.confusion(),
        "missing_predictions": result.missing_predictions,
        "notes": result.notes,
    })
    if by_document:
        counts = result.pair.by_document
        if lazy:
            document["by_document"] = LazyMap(list(counts), lambda d: with_chance(counts_dict(counts[d], beta=beta),
                                                                                  result, d))
        else:
            document["by_document"] = {d: with_chance(counts_dict(c, beta=beta), result, d) for d, c in counts.items()}
        document["by_document_summary"] = {key: summary_of(value(key, c.a, c.b, c.c) for c in counts.values())
                                           for key in AVERAGED_RATES}
    document.update(result.extras)
    return document


def scores_document(results: list, *, by_document: bool = False, lazy: bool = False) -> dict:
    """``score --output json``: one prediction's document, or several under ``predictions``."""
    if len(results) == 1:
        return score_document(results[0], by_document=by_document, lazy=lazy)
    first = results[0]
    predictions = [score_document(r, by_document=by_document, with_header=False, lazy=lazy) for r in results]
    for entry, rank in zip(predictions, ranks([r.counts.as_dict()["f1"] for r in results])):
        entry["rank"] = rank
    document = {"spanagree": __version__, "options": first.options, "gold": first.gold, "predictions": predictions}
    if getattr(results, "comparisons", None) is not None:
        document["comparisons"] = results.comparisons
    if getattr(results, "relation_comparisons", None) is not None:
        document["relation_comparisons"] = results.relation_comparisons
    if getattr(results, "attribute_comparisons", None) is not None:
        document["attribute_comparisons"] = results.attribute_comparisons
    return document


def errors_document(results: list) -> dict:
    """``score --errors FILE.json``: every item that is not ``correct``, prediction by prediction."""
    return {"errors": [{"prediction": r.prediction, **item.as_dict()} for r in results for item in r.errors()]}


def disagreements_document(result) -> dict:
    """``agree --errors FILE.json``: every disagreement of every pair."""
    return {"errors": list(disagreement_records(result))}


def disagreement_records(result):
    """``agree --errors``' records one at a time, pair by pair: the pair, then the item with
    ``first_*``/``second_*`` fields (the JSON listing's entries and the CSV's rows)."""
    return ({"first": first, "second": second, **item.as_pair_dict()} for first, second, item in result.iter_errors())


def vote_document(result, *, lazy: bool = False) -> dict:
    """``merge --output json``: counts of clusters kept, dropped, tied, split, per document too
    (``lazy``: ``by_document`` a :class:`LazyMap`, its entries made as :func:`json_pieces` writes them)."""
    counts = result.counts()
    return {
        **header(result),
        "min_votes": result.min_votes,
        **counts,
        "spans": counts["kept"],
        "votes": {str(v): number for v, number in result.votes_histogram().items()},
        "by_document": (LazyMap(result.documents, result.counts_of) if lazy else result.counts_by_document()),
        "left_out": result.left_out,
        "notes": result.notes,
    }


def cluster_entry(result, cluster) -> dict:
    """One cluster of the adjudication list: document, proposed span, kinds (those to adjudicate,
    then those the vote settled), votes, K, every version, and the text around all of them."""
    text = result.texts[cluster.doc]
    span = cluster.span
    before, after = context_of(text, [span, *(s for _, s in cluster.members)], result.context)
    return {
        "document": cluster.doc,
        "start": span.start,
        "end": span.end,
        "fragments": [list(f) for f in span.fragments],
        "text": span_text(span, text),
        "label": span.label,
        "kind": [*cluster.kinds, *cluster.settled_kinds(result.annotators_on(cluster.doc))],
        "kept": cluster.kept,
        "votes": cluster.votes,
        "boundary_votes": cluster.boundary_votes,
        "label_votes": cluster.label_votes,
        "min_votes": result.min_votes_on(cluster.doc),
        "versions": {name: [{"fragments": [list(f) for f in s.fragments], "label": s.label,
                             "text": span_text(s, text)} for s in cluster.versions(k)]
                     for k, name in enumerate(result.annotators) if result.has(k, cluster.doc)},
        "context_before": before,
        "context_after": after,
    }


def adjudication_document(result, *, every: bool = False) -> dict:
    """``merge --adjudicate FILE.json`` (``every``: ``--adjudicate-all FILE.json``)."""
    return {"spanagree": __version__, "options": result.options, "annotators": result.annotators,
            "min_votes": result.min_votes, "clusters": result.adjudication_rows(every=every)}


def span_text(span, text: str | None) -> str:
    return "" if text is None else span.text(text)
