"""Results as text for the terminal: ``--output table`` (the default) of every command."""

from __future__ import annotations

import math

from ..errorkinds import KINDS, PAIRING_KINDS
from ..measures.registry import MEASURES, f_beta_key


def number(value, digits: int = 4) -> str:
    """A rate with ``digits`` decimals, ``n/a`` when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def count(value) -> str:
    """A count: an integer as such, a fractional credit with its decimals."""
    return f"{value:g}" if isinstance(value, float) and not value.is_integer() else f"{int(value)}"


def table(header: list[str], rows: list[list[str]], *, align_left: int = 1) -> str:
    """A plain text table: the first ``align_left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)] if rows else [len(h) for h in header]
    lines = []
    for k, row in enumerate([header] + rows):
        cells = [str(c).ljust(w) if i < align_left else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def counts_row(name: str, d: dict) -> list[str]:
    return [name, count(d["a"]), count(d["b"]), count(d["c"]), number(d["precision"]), number(d["recall"]), number(d["f1"])]


#: The count columns, then the rates (named by the measure registry).
COUNT_HEADER = ["a", "b", "c", *(MEASURES[key].name for key in ("precision", "recall", "f1"))]


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def rule_text(rule) -> str:
    return (f"match {rule.boundary}, labels {rule.labels}"
            + (f", partial credit {rule.partial_credit}" if rule.boundary == "partial" else "")
            + (f", pairing {rule.pairing}" if rule.pairing != "optimal" else ""))


def mean_text(mean, sd, pairs: int, skipped: int) -> str:
    """``0.8172  (population SD 0.0510, over 3 of 3 pairs)``, saying what was skipped."""
    text = f"{number(mean)}  (population SD {number(sd)}, over {pairs - skipped} of {pairs} pairs"
    return text + (f"; {skipped} with an undefined F1 skipped)" if skipped else ")")


def agreement_table(result, *, by=None) -> str:
    from .document import agreement_document

    by = [by] if isinstance(by, str) else list(by or ())
    data = agreement_document(result, by_document="document" in by)
    head = (f"spanagree agree: {len(result.annotators)} annotators ({', '.join(result.annotators)}), "
            f"{plural(data['documents'], 'document')}, {rule_text(result.rule)}")
    parts = [head, ""]
    rows = [counts_row(" × ".join(p["annotators"]), p) for p in data["pairs"]]
    if result.options.get("documents") == "pairwise":  # each pair on its own documents: say how many
        parts.append(table(["pair"] + COUNT_HEADER + ["documents"],
                           [row + [str(p["documents"])] for row, p in zip(rows, data["pairs"])]))
    else:
        parts.append(table(["pair"] + COUNT_HEADER, rows))
    parts.append("")
    pooled = data["pooled"]
    parts.append("mean pairwise F1  " + mean_text(data["mean_f1"], data["sd_f1"], len(data["pairs"]),
                                                 data["pairs_with_undefined_f1"]))
    parts.append(f"pooled F1         {number(data['pooled_f1'])}  "
                 f"(a {count(pooled['a'])}, b {count(pooled['b'])}, c {count(pooled['c'])} summed over pairs)")
    if len(result.annotators) > 2:
        parts += ["", matrix_section(data["matrix"])]
    if "label" in by:
        parts += ["", label_section(data)]
        if data["by_label"]:
            parts += ["", averages_section(data)]
    if "document" in by:
        parts += ["", document_section(data)]
    if "chance" in data:
        parts += ["", chance_section(data["chance"])]
    if "bootstrap" in data:
        parts += ["", bootstrap_section(data["bootstrap"], [" × ".join(p["annotators"]) for p in data["pairs"]])]
    if "alpha_u" in data:
        parts += ["", unitizing_section(data["alpha_u"])]
    if "comparisons" in data:
        parts += ["", comparisons_section(data["comparisons"], "pairs of annotators")]
    if "gamma" in data:
        parts += ["", gamma_section(data["gamma"])]
    if "relations" in data:
        parts += ["", relations_section("relations", [(" × ".join(p["annotators"]), p["relations"])
                                                      for p in data["pairs"]], data["relations"])]
        if "comparisons" in data["relations"]:
            parts += ["", comparisons_section(data["relations"]["comparisons"],
                                              "pairs of annotators on their relations")]
    if any("attributes" in p for p in data["pairs"]):
        parts += ["", attributes_section([(" × ".join(p["annotators"]), p["attributes"]) for p in data["pairs"]],
                                         "pair")]
    if "attribute_comparisons" in data:
        parts += ["", comparisons_section(data["attribute_comparisons"], "pairs of annotators on their attributes")]
    parts += ["", "b: spans only the first of a pair marked, c: only the second; "
              "precision a/(a+b), recall a/(a+c), F1 2a/(2a+b+c)"]
    for note in data["notes"]:
        parts.append(f"note: {note}")
    return "\n".join(parts).rstrip() + "\n"


def attributes_section(entries: list, key: str) -> str:
    """``--attributes``: per pair (or prediction), every attribute's counts, then each name's with
    its kappa over the aligned spans."""
    rows = []
    for name, figures in entries:
        rows.append(counts_row(name, figures)[:1] + ["(all)"] + counts_row(name, figures)[1:] + [""])
        rows += [[name, attribute] + counts_row(attribute, d)[1:] + [number(d["kappa"])]
                 for attribute, d in figures["by_name"].items()]
    return ("attributes (a: same value on aligned spans; kappa of the values over the aligned spans)\n"
            + table([key, "attribute"] + COUNT_HEADER + ["kappa"], rows, align_left=2))


def relations_section(title: str, pairs: list, found: dict) -> str:
    """``--relations``: each pair's counts (``agree``), then each type's (pooled over the pairs)
    and the total."""
    rows = [counts_row(name, figures) for name, figures in pairs]
    if pairs:
        rows.append([""] * len(COUNT_HEADER + [""]))
    rows += [counts_row(kind, figures) for kind, figures in found["by_type"].items()]
    rows.append(counts_row("all types" + (" (pooled)" if pairs else ""), found))
    lines = f"{title}\n" + table(["pair / type" if pairs else "type"] + COUNT_HEADER, rows)
    if pairs:
        lines += "\nmean pairwise F1  " + mean_text(found["mean_f1"], found["sd_f1"], len(pairs),
                                                   found["pairs_with_undefined_f1"])
    return lines


def matrix_section(matrix: dict) -> str:
    """The k×k pairwise F1 matrix."""
    names = matrix["annotators"]
    rows = [[name] + [number(v) for v in row] for name, row in zip(names, matrix["f1"])]
    return "pairwise F1\n" + table([""] + names, rows)


def skipped_footnote(entries) -> str:
    skipped = sum(1 for entry in entries if entry.get("pairs_with_undefined_f1"))
    return (f"\nn/a: undefined (0/0: neither annotator of the pair marked one); the mean F1 skips those pairs "
            f"({skipped} row(s))" if skipped else "")


def label_section(data: dict) -> str:
    if not data["by_label"]:
        return "per label: only with --labels strict"
    return breakdown_section("F1 per label", "label", data["by_label"], data)


def document_section(data: dict) -> str:
    return breakdown_section("F1 per document", "document", data["by_document"], data)


def breakdown_section(title: str, key: str, entries: dict, data: dict) -> str:
    """One row per label or document: each pair's F1, the mean and the pooled F1."""
    pair_names = [" × ".join(p["annotators"]) for p in data["pairs"]]
    header = [key] + pair_names + ["mean F1", "pooled F1"]
    rows = [[name] + [number(p["f1"]) for p in entry["pairs"]] + [number(entry["mean_f1"]), number(entry["pooled_f1"])]
            for name, entry in entries.items()]
    return f"{title}\n" + table(header, rows) + skipped_footnote(entries.values())


def chance_section(chance: dict) -> str:
    """The ``--chance`` block: token PSA beside kappa and the other chance-corrected figures."""
    head = (f"token level (d known): {chance.get('tokens')} tokens ({chance.get('tokenizer')}), "
            f"categories {', '.join(chance.get('categories', []))}")
    rows = []
    for p in chance.get("pairs", []):
        rows.append([" × ".join(p["annotators"]), str(p.get("tokens", "")), count(p.get("d", 0)),
                     number(p.get("psa")), number(p.get("kappa_2x2")), number(p.get("cohen_kappa")),
                     number(p.get("scott_pi")), number(p.get("informedness")), number(p.get("markedness")),
                     number(p.get("mcc"))])
    text = head + "\n" + table(
        ["pair", "tokens", "d", "PSA", "kappa 2×2", "kappa", "pi", "inform.", "marked.", "MCC"], rows)
    if "fleiss_kappa" in chance:
        who = "all annotators" if len(chance.get("pairs", [])) > 1 else "both sides"
        text += (f"\n{who}: Fleiss' kappa {number(chance.get('fleiss_kappa'))}   "
                 f"Krippendorff's alpha {number(chance.get('krippendorff_alpha'))}")
        if chance.get("fleiss_kappa", 0) is None:
            text += ("  (Fleiss' kappa needs every annotator on every token; Krippendorff's alpha takes the "
                     "tokens of documents an annotator did not see as missing)")
    text += ("\nPSA = 2a/(2a+b+c) and kappa 2×2 = Cohen's kappa of [[a, b], [c, d]] on token counts "
             "(d = tokens both left O; kappa 2×2 → PSA as d grows); kappa, pi, informedness, markedness, MCC "
             "on the k×k token table over the categories (informedness, markedness: second of the pair as reference)")
    return text


def bootstrap_section(boot: dict, pair_names: list[str]) -> str:
    """The ``--bootstrap`` block: percentile intervals per pair and of the mean pairwise F1."""
    if not boot or boot.get("pairs") is None:
        return f"bootstrap: no interval ({(boot or {}).get('reason', 'fewer than two documents')})"
    level = boot.get("level", 0.95)
    rows = []
    for name, p in zip(pair_names, boot["pairs"]):
        rows.append([name] + [interval(p.get(k)) for k in ("f1", "precision", "recall")])
    text = (f"{level:.0%} percentile bootstrap intervals ({boot.get('n')} resamples of "
            f"{boot.get('documents')} documents, seed {boot.get('seed')})\n")
    text += table(["pair", "F1", "precision", "recall"], rows)
    if boot.get("mean_f1") is not None:
        text += f"\nmean pairwise F1 {interval(boot['mean_f1'])}"
    left_out = [f"{name} {k} {n}" for name, p in zip(pair_names, boot["pairs"])
                for k, n in p.get("undefined", {}).items() if n]
    if boot.get("mean_f1_undefined"):
        left_out.append(f"mean F1 {boot['mean_f1_undefined']}")
    if left_out:
        text += "\nresamples left out (figure undefined): " + ", ".join(left_out)
    return text


def interval(bounds) -> str:
    """``[lower, upper]`` with four decimals, ``n/a`` when there is no interval."""
    if not bounds:
        return "n/a"
    return f"[{number(bounds[0])}, {number(bounds[1])}]"


def score_table(results: list, *, by=None) -> str:
    from .document import ranks, score_document

    by = [by] if isinstance(by, str) else list(by or ())
    first = results[0]
    head = f"spanagree score: gold {first.gold}, {plural(len(first.documents), 'document')}, {rule_text(first.rule)}"
    beta = first.beta
    extra = [f"F{beta:g}"] if beta != 1 else []

    def row(name: str, d: dict) -> list[str]:
        return counts_row(name, d) + ([number(d[f_beta_key(beta)])] if beta != 1 else [])

    header = ["prediction"] + COUNT_HEADER + extra
    rows = [row(result.prediction, score_document(result, with_header=False)) for result in results]
    if len(results) > 1:  # in rank order (by F1; the JSON keeps the order given)
        ranked = ranks([r.counts.as_dict()["f1"] for r in results])
        order = sorted(range(len(results)), key=lambda k: (ranked[k] is None, ranked[k] or 0, k))
        header = ["rank"] + header
        rows = [[str(ranked[k]) if ranked[k] is not None else "n/a"] + rows[k] for k in order]
    parts = [head, "", table(header, rows), ""]
    kinds = list(KINDS)
    headings = ["prediction", "correct", "partial", "wrong label", "label+boundary", "missed", "spurious"]
    counted = [r.error_counts() for r in results]
    for kind in PAIRING_KINDS:  # (a pairing's own kinds, where they occur)
        if any(counts.get(kind) for counts in counted):
            kinds.append(kind)
            headings.append(kind.replace("_", " "))
    error_rows = [[r.prediction] + [str(counts.get(k, 0)) for k in kinds] for r, counts in zip(results, counted)]
    parts.append("spans by kind\n" + table(headings, error_rows))
    for result in results:
        if "label" in by:
            data = score_document(result, with_header=False)
            label_rows = [row(label, d) + [count(d["support"])] for label, d in data["by_label"].items()]
            title = f"\nper label: {result.prediction}"
            if label_rows:
                label_rows += average_rows(data["averages"], sum(d["support"] for d in data["by_label"].values()),
                                           len(extra))
            parts.append(title + "\n" + (table(["label"] + COUNT_HEADER + extra + ["support"], label_rows)
                                         if label_rows else "only with --labels strict"))
            parts.append(f"\nlabel confusion: {result.prediction}\n" + confusion_section(result.confusion()))
        if "document" in by:
            doc_rows = [row(doc, d) for doc, d in score_document(result, by_document=True, with_header=False)["by_document"].items()]
            parts.append(f"\nper document: {result.prediction}\n" + table(["document"] + COUNT_HEADER + extra, doc_rows))
        extras = result.extras
        if "chance" in extras:
            parts += ["", f"{result.prediction}: " + chance_section(extras["chance"])]
        if "bootstrap" in extras:
            parts += ["", f"{result.prediction}: " + bootstrap_section(extras["bootstrap"], [result.prediction])]
        if "relations" in extras:
            parts += ["", relations_section(f"relations: {result.prediction}", [], extras["relations"])]
    if any("attributes" in r.extras for r in results):
        parts += ["", attributes_section([(r.prediction, r.extras["attributes"]) for r in results], "prediction")]
    if getattr(results, "comparisons", None) is not None:
        parts += ["", comparisons_section(results.comparisons, "predictions")]
    for key, what in (("relation_comparisons", "relations"), ("attribute_comparisons", "attributes")):
        if getattr(results, key, None) is not None:
            parts += ["", comparisons_section(getattr(results, key), f"predictions on their {what}")]
    parts += ["", "b: spurious (predicted, not in the gold), c: missed (in the gold, not predicted); "
              "precision a/(a+b), recall a/(a+c)"]
    for note in sorted({n for r in results for n in r.notes}):
        parts.append(f"note: {note}")
    return "\n".join(parts).rstrip() + "\n"


def average_rows(averages: dict, support, blanks: int) -> list[list[str]]:
    """The micro, macro and weighted averages as rows under a per-label table: precision,
    recall, F1 in their columns (the count columns left empty), and the total support."""
    return [[f"{name} avg"] + [""] * 3 + [number(averages[name][key]) for key in ("precision", "recall", "f1")]
            + [""] * (blanks) + [count(support)] for name in ("micro", "macro", "weighted")]


def averages_section(data: dict) -> str:
    """``agree --by label``: each pair's micro, macro and weighted averages over the labels."""
    rows = []
    for p in data["pairs"]:
        averages = p["averages"]
        rows.append([" × ".join(p["annotators"])] + [number(averages[name][key]) for name in
                                                      ("micro", "macro", "weighted") for key in ("precision", "recall", "f1")])
    header = ["pair"] + [f"{name} {key}" for name in ("micro", "macro", "weighted") for key in ("P", "R", "F1")]
    return ("averages over labels (weighted by the mean of both annotators' spans of each label; "
            "an undefined per-label rate counts 0)\n" + table(header, rows))


def unitizing_section(found: dict) -> str:
    """``--unitizing``: α_U overall and per label, with each label's observed and expected disagreement."""
    head = (f"Krippendorff's unitizing alpha (α_U): {number(found['overall'])} over {found['characters']} characters "
            f"of {found['documents']} document(s), {found['annotators']} annotators")
    rows = [[label, number(entry["alpha"]), f"{entry['observed']:.6f}", f"{entry['expected']:.6f}"]
            for label, entry in found["labels"].items()]
    return head + "\n" + table(["label", "α_U", "D_O", "D_E"], rows)


def gamma_section(found: dict) -> str:
    """``--gamma``: γ and γ-cat, the disorders and the sampling, then γ-k per label."""
    if found["documents"] == 0:
        return "gamma (γ): n/a (no unit in any document)"
    head = (f"gamma (γ): {number(found['gamma'])}, γ-cat {number(found['gamma_cat'])}; disorder "
            f"{found['disorder']:.6f} observed ({found['alignments']} unitary alignments of {found['units']} units), "
            f"{found['expected_disorder']:.6f} expected (SE {found['expected_disorder_se']:.6f}, {found['samples']} "
            f"{found['sampler']} samples over {found['documents']} document(s), seed {found['seed']})")
    rows = [[label, number(value)] for label, value in found["gamma_k"].items()]
    return head + "\n" + table(["label", "γ-k"], rows)


def comparisons_section(comparisons: list[dict], what: str) -> str:
    """``--compare``: every pair (best-ranked first) and measure: Δ, its 95% interval, p and Holm's p."""
    if not comparisons:
        return f"comparisons of {what}: none"
    first = comparisons[0]
    test = {"randomization": "approximate randomization", "bootstrap": "paired bootstrap"}[first["test"]]
    head = (f"paired comparisons of {what} ({test}, {first['resamples']} rounds over {first['units']} "
            f"{first['unit']}s, seed {first['seed']}); Δ = first − second")
    rows = []
    for entry in comparisons:
        interval = ("n/a" if entry["low"] is None else f"[{number(entry['low'])}, {number(entry['high'])}]")
        rows.append([entry["first"], entry["second"], {"f1": "F1"}.get(entry["measure"], entry["measure"]),
                     signed(entry["difference"]), interval, p_text(entry["p_value"]), p_text(entry["p_value_holm"])])
    return head + "\n" + table(["first", "second", "measure", "Δ", "95% interval", "p", "p (Holm)"], rows)


def signed(value) -> str:
    return "n/a" if value is None or value != value else f"{value:+.4f}"


def p_text(p) -> str:
    """A p-value: four decimals, or ``< 0.0001`` below them; n/a when none."""
    if p is None:
        return "n/a"
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def confusion_section(confusion: dict) -> str:
    """Gold label (rows) × predicted label (columns) over the paired spans; (none) = missed / spurious."""
    labels = confusion["labels"]
    rows = [[f"gold {label}"] + [str(v) if v else "." for v in values]
            for label, values in zip(labels, confusion["matrix"])]
    return table(["predicted →"] + labels, rows)


def vote_table(result) -> str:
    """``merge``'s summary: one row per document and the total."""
    header = ["document", "clusters", "kept"] + [k.replace("_", " ") for k in result.kinds]
    keys = ["clusters", "kept", *result.kinds]
    rows = [[d] + [str(counts[k]) for k in keys] for d, counts in result.counts_by_document().items()]
    total = result.counts()
    rows.append(["total"] + [str(total[k]) for k in keys])
    head = (f"spanagree merge: {len(result.annotators)} annotators ({', '.join(result.annotators)}), "
            f"{len(result.documents)} documents, match {result.rule.boundary}, labels {result.rule.labels}, "
            + (f"min votes {result.min_votes} of {len(result.annotators)}" if result.present is None else
               f"min votes {result.min_votes if result.min_votes is not None else 'a majority'} of the annotators "
               "who have each document"))
    parts = [head, "", table(header, rows), "",
             f"{total['kept']} spans kept; {total['to_adjudicate']} clusters to adjudicate"]
    for note in result.notes:
        parts.append(f"note: {note}")
    return "\n".join(parts) + "\n"
