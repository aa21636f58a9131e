"""The command line: parse, call one public function, render. Errors are one line, no traceback.

Exit codes: 0 success, 1 bad input (the message names the file and line), 2 bad usage.

The library's messages name its parameters (``jobs``, ``documents="common"``); the command line
prints them with its flags instead (``--jobs``, ``--documents common``: ``command_line_message()``
of :class:`~spanagree.errors.SpanagreeError` and :class:`~spanagree.errors.SpanagreeWarning`), and
does not repeat a check the library makes (``--jobs``, ``--beta``, ``--resamples``, ``--context``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import warnings
from pathlib import Path

from ._version import __version__
from .errors import SpanagreeError, SpanagreeWarning, UsageError, find_stack_level
from .formats import FORMATS, registered_options, writable_formats
from .agreement import DOCUMENT_DESIGNS
from .measures.significance import TESTS, UNITS
from .match import BOUNDARIES, LABEL_RULES, PAIRINGS
from .measures.tokens import CATEGORIES
from .options import RunOptions
from .pipeline import NamedPath, named_input
from .outputs import Interrupted, exit_status, received, signals_as_interrupts, write_stdout

OUTPUTS = ("table", "json", "csv")


class Parser(argparse.ArgumentParser):
    """argparse with exit code 2 and a one-line message on bad usage."""

    def error(self, message):
        raise UsageError(message)


def add_format_options(parser: argparse.ArgumentParser) -> None:
    """``--format`` and every format's options, made from the registry (:class:`~spanagree.formats.FormatOption`)."""
    group = parser.add_argument_group("input format")
    group.add_argument("--format", choices=list(FORMATS), help="input format (default: detected per path)")
    for option, formats in registered_options():
        help = f"{'/'.join(f.title for f in formats)}: {option.help}"
        if option.flag_only:
            group.add_argument(option.flag, dest=option.keyword, action="store_true", default=None, help=help)
        else:
            group.add_argument(option.flag, dest=option.keyword, type=option.type, choices=option.choices,
                               metavar=option.metavar, help=help)
    group.add_argument("--max-record-bytes", type=int, metavar="N",
                       help="largest record read: a JSONL line, a CoNLL or XML document, a BRAT file "
                            "(default: 64 MiB = 67108864)")
    group.add_argument("--annotators", type=names_list, metavar="A,B",
                       help="pick and order the span sets of exports holding several annotators (Label Studio, "
                            "INCEpTION, GATE) by the tool's annotator names")


def add_document_key(parser: argparse.ArgumentParser) -> None:
    """``--document-key``: how the copies of a document are paired (``agree``, ``score``, ``merge``)."""
    from .pipeline.document_key import DOCUMENT_KEYS

    parser.add_argument("--document-key", choices=DOCUMENT_KEYS, default="id",
                        help="pair the copies of a document by their id (default) or by their text, when tools "
                             "gave them other ids (the first input's ids are kept)")


def gamma_precision(value: str):
    """``--gamma-precision``: high, medium, low or a number."""
    if value in ("high", "medium", "low"):
        return value
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"high, medium, low or a number between 0 and 1, not {value!r}") from None


def add_gamma_options(parser: argparse.ArgumentParser) -> None:
    """``agree --gamma`` and its settings (pygamma-agreement's names and defaults; docs/measures.md)."""
    group = parser.add_argument_group("gamma agreement")
    group.add_argument("--gamma", action="store_true",
                       help="add Mathet et al.'s γ, γ-cat and γ-k per label of all annotators (pygamma-agreement's "
                            "definitions, an exact best alignment; docs/concepts.md)")
    group.add_argument("--gamma-alpha", type=float, default=1.0, metavar="A",
                       help="--gamma: weight of the positional dissimilarity (default: 1)")
    group.add_argument("--gamma-beta", type=float, default=1.0, metavar="B",
                       help="--gamma: weight of the categorical dissimilarity (default: 1)")
    group.add_argument("--gamma-delta-empty", type=float, default=1.0, metavar="D",
                       help="--gamma: dissimilarity of a unit and a missing one (default: 1)")
    group.add_argument("--gamma-sampler", default="statistical", metavar="statistical|shuffle",
                       help="--gamma: how chance continua are drawn (default: statistical)")
    group.add_argument("--gamma-samples", type=int, default=30, metavar="N",
                       help="--gamma: continua sampled per document (default: 30)")
    group.add_argument("--gamma-precision", type=gamma_precision, metavar="P|high|medium|low",
                       help="--gamma: sample more until the expected disorder is known within this fraction "
                            "(pygamma's precision_level; default: exactly --gamma-samples)")


def add_strings_options(parser: argparse.ArgumentParser) -> None:
    """``--strings``, ``--strings-case``, ``--strings-fuzzy``: how ``score`` compares predictions of
    strings without offsets (:mod:`spanagree.pipeline.placing`, docs/strings.md)."""
    from .pipeline.placing import STRINGS_CASES, STRINGS_MODES

    parser.add_argument("--strings", choices=STRINGS_MODES, default="place",
                        help="predictions of strings without offsets: place each where in the gold's text it earns "
                             "the most credit (default), also recover spans whose offsets miss their own text, or "
                             "compare per-document bags of (text, label)")
    parser.add_argument("--strings-case", choices=STRINGS_CASES, default="exact",
                        help="compare the strings' case exactly (default) or ignore it")
    parser.add_argument("--strings-fuzzy", type=float, default=None, metavar="T",
                        help="also place a string on a run of words within this normalised edit distance (0 to 1)")


def names_list(value: str) -> list[str]:
    """``A,B`` as a list of names (none empty)."""
    names = [name.strip() for name in value.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"names separated by commas, got {value!r}")
    return names


def add_attribute_options(parser: argparse.ArgumentParser) -> None:
    """``--attributes [NAME,...]``, ``--match-attributes NAME,...`` and ``--link-top K`` (docs/measures.md,
    docs/matching.md). Echoed in the JSON's ``options`` as understood: ``attributes`` false, true or
    the names; ``match_attributes`` the names (empty: none); ``link_top``."""
    group = parser.add_argument_group("attributes and links")
    group.add_argument("--attributes", nargs="?", const=True, type=names_list, default=False,
                       metavar="NAME,...",
                       help="add agreement on the spans' attributes (all of them, or these names): a, b, c, "
                            "precision, recall, F1 and, per attribute, Cohen's kappa over the aligned spans")
    group.add_argument("--match-attributes", type=names_list, default=[], metavar="NAME,...",
                       help="make these attributes part of a span's identity: entity linking with kb_id "
                            "(strict: --match exact; fuzzy: --match overlap)")
    group.add_argument("--link-top", type=int, default=1, metavar="K",
                       help="--match-attributes: a value's first K candidates (Q1|Q2|Q3) count (default: 1)")


def attribute_settings(args) -> dict:
    """The keywords of :class:`~spanagree.options.RunOptions` that :func:`add_attribute_options` gives."""
    if args.link_top != 1 and not args.match_attributes:
        raise UsageError("--link-top goes with --match-attributes")
    return {"attributes": args.attributes or None, "match_attributes": tuple(args.match_attributes),
            "link_top": args.link_top}


def add_match_options(parser: argparse.ArgumentParser, *, pairing: bool = False) -> None:
    group = parser.add_argument_group("matching")
    group.add_argument("--match", choices=list(BOUNDARIES), default="exact", help="boundary rule (default: exact)")
    group.add_argument("--labels", choices=list(LABEL_RULES), default="strict", help="label rule (default: strict)")
    group.add_argument("--partial-credit", default="0.5", metavar="X|dice",
                       help="credit of a non-exact overlap under --match partial: a number in (0, 1] or dice (default: 0.5)")
    if pairing:
        group.add_argument("--pairing", choices=list(PAIRINGS), default="optimal",
                           help="optimal (default): one-to-one with maximum credit; hipe, nervaluate: the official "
                                "scorer's greedy pairing, to reproduce its figures; greedy: the linking scorers' "
                                "counting, HIPE's (docs/matching.md)")
    group.add_argument("--only", metavar="L1,L2", help="compare only these labels (after --map)")
    group.add_argument("--map", action="append", metavar="OLD=NEW", help="relabel before matching (repeatable)")
    group.add_argument("--align-whitespace", action="store_true",
                       help="compare copies of a document that differ only in whitespace")
    group.add_argument("--align-text", action="store_true",
                       help="compare copies whose texts differ (re-annotations, normalised texts, CoNLL tokenised "
                            "differently) through a character alignment to the first copy's text")


#: The ``--by`` breakdowns, in the order the reports give them.
BREAKDOWNS = ("label", "document")


def breakdowns(value: str) -> list[str]:
    """``--by label,document``: the breakdowns named (each one of :data:`BREAKDOWNS`)."""
    names = [name.strip() for name in value.split(",")]
    unknown = [name for name in names if name not in BREAKDOWNS]
    if unknown or not all(names):
        raise argparse.ArgumentTypeError(f"choose among {', '.join(BREAKDOWNS)} (separated by commas), "
                                         f"not {value!r}")
    return names


def chosen_breakdowns(given) -> list[str]:
    """Every ``--by`` given (repeated or comma-separated), each once, in the order of :data:`BREAKDOWNS`."""
    named = {name for names in given or () for name in names}
    return [name for name in BREAKDOWNS if name in named]


def add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("report")
    group.add_argument("--by", action="append", type=breakdowns, metavar="label|document",
                       help="add a breakdown per label (with its support and the micro, macro and weighted averages) "
                            "or per document; several: --by label,document or --by label --by document")
    group.add_argument("--output", choices=OUTPUTS, default="table", help="table (default), json or csv")
    group.add_argument("--chance", action="store_true",
                       help="token-level agreement with d known: Cohen's kappa, Scott's pi, informedness, "
                            "markedness, MCC per pair, Fleiss' kappa and Krippendorff's alpha, beside the token PSA")
    group.add_argument("--chance-categories", choices=list(CATEGORIES), default="label",
                       help="--chance: a token's category: its label (default), its IOB2 tag (B-PER, I-PER, O; "
                            "CoNLL's tag column as written) or the tag's letter (B, I, O), as papers report kappa")
    group.add_argument("--lang", metavar="L",
                       help="--chance: language of spaCy's blank tokenizer (default: en; CoNLL uses its own tokens)")
    group.add_argument("--spacy-model", metavar="M",
                       help="--chance: tokenise with this installed spaCy pipeline (a name or a path)")
    group.add_argument("--bootstrap", type=int, metavar="N",
                       help="95%% percentile intervals of F1, precision and recall from N resamples of documents")
    group.add_argument("--seed", type=int, metavar="S",
                       help="--bootstrap and --compare: random seed (default: drawn and reported)")
    group.add_argument("--compare", action="store_true",
                       help="paired significance tests: score, between every two predictions; agree, between every "
                            "two pairs of annotators (F1, precision, recall; 95%% interval, p-value, Holm)")
    group.add_argument("--test", choices=list(TESTS), default="randomization",
                       help="--compare: approximate randomization (default) or paired bootstrap")
    group.add_argument("--unit", choices=list(UNITS), default="document",
                       help="--compare and --bootstrap: resample or swap documents (default) or sentences "
                            "(CoNLL's, or spaCy's sentencizer for --lang)")
    group.add_argument("--resamples", type=int, default=10_000, metavar="N",
                       help="--compare: rounds of the test and resamples of its interval (default: 10000)")
    group.add_argument("--jobs", type=int, default=1, metavar="N", help="align documents in N processes")
    add_scheduler_option(group)
    add_quiet_option(group)
    add_html_report_options(group)


def add_scheduler_option(group) -> None:
    """``--scheduler ADDRESS``: compare on a Dask cluster (docs/cluster.md)."""
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="compare on the Dask cluster of this scheduler (tcp://host:8786; needs "
                            "pip install 'spanagree[dask]' and a filesystem the workers share: docs/cluster.md)")
    group.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                       help="--scheduler: seconds the connection may take, handshake included (default: 10)")


def add_quiet_option(group) -> None:
    """``--quiet``: no progress bar (warnings stay)."""
    group.add_argument("--quiet", action="store_true",
                       help="no progress bar on standard error (shown on a terminal for runs over a second); "
                            "warnings stay")


def progress_wanted(args) -> bool:
    """A progress bar when standard error is a terminal and ``--quiet`` is not given."""
    return not args.quiet and sys.stderr.isatty()


def add_html_report_options(group) -> None:
    """``--report FILE.html`` and ``--report-documents N`` (docs/report.md)."""
    group.add_argument("--report", metavar="FILE.html",
                       help="write a self-contained HTML report: the figures, charts and every disagreement "
                            "in context (docs/report.md)")
    group.add_argument("--report-documents", type=int, metavar="N",
                       help="--report: keep the N documents with the most disagreement in its document view")


def add_listing_options(parser: argparse.ArgumentParser, *, plots: bool = True) -> None:
    """``--context N`` (every listing) and ``--plots DIR`` (the commands that draw figures)."""
    group = parser.add_argument_group("listings and figures")
    group.add_argument("--context", type=int, default=40, metavar="N",
                       help="characters of text before and after each listed span (default: 40; 0: none)")
    if plots:
        group.add_argument("--plots", metavar="DIR",
                           help="write the figures as PNG and SVG into DIR (needs matplotlib: "
                                "pip install 'spanagree[plots]'; file names in docs/cli.md)")


def add_relation_options(parser: argparse.ArgumentParser) -> None:
    """``--relations`` and ``--symmetric-relations`` (``agree`` and ``score``; docs/measures.md)."""
    group = parser.add_argument_group("relations")
    group.add_argument("--relations", action="store_true",
                       help="compare the relations and events (BRAT R and E lines) too: same type, arguments "
                            "aligned spans role by role under --match/--labels, one-to-one (docs/measures.md)")
    group.add_argument("--symmetric-relations", metavar="T1,T2",
                       help="--relations: these relation types match in either argument order (besides those "
                            "a BRAT folder's annotation.conf declares symmetric)")


def build_parser() -> Parser:
    parser = Parser(prog="spanagree", description="Span-level agreement: F1 = positive specific agreement, "
                    "one-to-one span matching, majority-vote merging.")
    parser.add_argument("--version", action="version", version=f"spanagree {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    agree = commands.add_parser("agree", help="agreement between two or more annotators",
                                description="Pairwise F1 (= PSA), mean and pooled, between annotators.")
    agree.add_argument("paths", nargs="+", metavar="PATH", type=named_input,
                       help="one span set per annotator (folder or file; NAME=PATH names it)")
    add_format_options(agree)
    add_match_options(agree)
    add_report_options(agree)
    agree.add_argument("--errors", metavar="FILE",
                       help="write every disagreement of every pair (CSV, or JSON for .json); the second "
                            "annotator of a pair is the reference: spurious = only the first marked it")
    agree.add_argument("--force", action="store_true", help="replace an existing --errors file, --plots folder or --report file")
    agree.add_argument("--unitizing", action="store_true",
                       help="add Krippendorff's unitizing alpha (α_U) of all annotators over the texts' characters, "
                            "overall and per label (DKPro Agreement's definition; docs/concepts.md)")
    agree.add_argument("--documents", choices=list(DOCUMENT_DESIGNS), default="common",
                       help="common (default): the documents every annotator has; pairwise: each pair compares "
                            "the documents both its annotators have (round-robin designs)")
    add_listing_options(agree)
    add_document_key(agree)
    add_gamma_options(agree)
    add_attribute_options(agree)
    add_relation_options(agree)  # last: a new key of the JSON's options goes after the others

    score = commands.add_parser("score", help="score predictions against a gold standard",
                                description="Precision, recall, F1/F-beta and error analysis against a gold standard.")
    score.add_argument("gold_path", metavar="GOLD", type=named_input,
                       help="the gold (with --gold, any input; NAME=PATH names it)")
    score.add_argument("preds", nargs="*", metavar="PRED", type=named_input,
                       help="predictions (none when GOLD is an export holding several span sets; NAME=PATH names one)")
    add_format_options(score)
    add_match_options(score, pairing=True)
    add_report_options(score)
    score.add_argument("--gold", metavar="NAME",
                       help="the gold is the span set called NAME (an annotator, a curation or a prediction "
                            "of an export); the others are scored against it")
    score.add_argument("--beta", type=float, default=1.0, help="F-beta's beta (default: 1)")
    score.add_argument("--errors", metavar="FILE", help="write every error (CSV, or JSON for .json)")
    score.add_argument("--force", action="store_true", help="replace an existing --errors file, --plots folder or --report file")
    add_listing_options(score)
    add_document_key(score)
    add_strings_options(score)  # after it: the options' keys strings, strings_case, strings_fuzzy
    add_attribute_options(score)
    add_relation_options(score)  # last: a new key of the JSON's options goes after the others

    merge = commands.add_parser("merge", help="majority-vote gold standard from several annotators",
                                description="Merge annotators by voting; list what needs adjudication "
                                "(rules and tie-breaking: docs/merge.md).")
    merge.add_argument("paths", nargs="+", metavar="PATH", type=named_input,
                       help="one span set per annotator (at least two; NAME=PATH names it)")
    add_format_options(merge)
    add_vote_options(merge)
    add_document_key(merge)  # last: a new key of the JSON's options goes after the others

    convert = commands.add_parser("convert", help="convert between BRAT, XML, CoNLL and JSONL")
    convert.add_argument("path", metavar="PATH", type=named_input,
                         help="the input; NAME=PATH names its span set where the output format writes a name")
    convert.add_argument("--from", dest="source_format", choices=list(FORMATS), metavar="FORMAT")
    convert.add_argument("--to", required=True, choices=writable_formats(), metavar="FORMAT")
    convert.add_argument("--out", required=True, metavar="DEST")
    convert.add_argument("--force", action="store_true", help="replace an existing destination")
    convert.add_argument("--tokenize", action="store_true",
                         help="--to conll from raw texts: tokenise and split sentences with spaCy (a blank "
                              "pipeline with its sentencizer, or --spacy-model)")
    convert.add_argument("--lang", metavar="L", help="--tokenize: language of the blank spaCy pipeline (default: en)")
    convert.add_argument("--spacy-model", metavar="M",
                         help="--tokenize: tokenise and split sentences with this spaCy pipeline (a name or a path)")
    add_format_options(convert)
    return parser


def format_options(args) -> dict:
    """Every registered format option's value, by keyword (``None`` when not given), and the
    record limit every reader takes."""
    return {**{option.keyword: getattr(args, option.keyword, None) for option, _ in registered_options()},
            "max_record_bytes": args.max_record_bytes}


def recorded_options(args) -> dict:
    """Every option of the run, for the JSON header (a figure can be reproduced from it)."""
    skip = {"paths", "gold_path", "preds", "path", "output"}
    return {k: v for k, v in vars(args).items() if k not in skip}


def warn_averages(name: str, by_label) -> None:
    """``--by label``: the labels whose rate is undefined enter the macro and weighted averages as 0."""
    from .measures.averages import undefined_labels, undefined_text

    undefined = undefined_labels(by_label)
    if undefined:
        warnings.warn(f"{name}: {undefined_text(undefined)}; the macro and weighted averages count them as 0 (as "
                      "scikit-learn and seqeval do), the per-label values stay undefined", SpanagreeWarning,
                      stacklevel=find_stack_level())


def check_common(args) -> None:
    args.by = chosen_breakdowns(args.by)
    if args.output == "csv" and len(args.by) > 1:
        raise UsageError("--output csv writes one table: give one --by (JSON and the table take several)")
    if args.bootstrap is not None and args.bootstrap < 1:
        raise UsageError("--bootstrap must be at least 1")
    gamma = getattr(args, "gamma", False)
    if args.seed is not None and args.bootstrap is None and not args.compare and not gamma:
        raise UsageError("--seed goes with --bootstrap, --compare or --gamma" if hasattr(args, "gamma")
                         else "--seed goes with --bootstrap or --compare")
    if not gamma and hasattr(args, "gamma"):
        defaults = {"gamma_alpha": 1.0, "gamma_beta": 1.0, "gamma_delta_empty": 1.0, "gamma_sampler": "statistical",
                    "gamma_samples": 30, "gamma_precision": None}
        given = [name for name, default in defaults.items() if getattr(args, name) != default]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} goes with --gamma")
    if args.unit != "document" and args.bootstrap is None and not args.compare:
        raise UsageError("--unit goes with --bootstrap or --compare")
    if args.test != "randomization" and not args.compare:
        raise UsageError("--test goes with --compare")
    if args.lang is not None and not args.chance and args.unit != "sentence":
        raise UsageError("--lang goes with --chance or --unit sentence")
    if args.chance_categories != "label" and not args.chance:
        raise UsageError("--chance-categories goes with --chance")
    if args.spacy_model is not None and not args.chance:
        raise UsageError("--spacy-model goes with --chance")
    if args.lang is not None and args.spacy_model is not None:
        raise UsageError("--lang and --spacy-model exclude each other (the pipeline has its own language)")


def run_options(args, **command) -> RunOptions:
    """The run's :class:`~spanagree.options.RunOptions`, built from the command line's flags
    (``command``: the command's own settings, such as ``agree``'s ``documents``)."""
    return RunOptions(match=args.match, labels=args.labels, partial_credit=args.partial_credit, only=args.only,
                      label_map=args.map, align_whitespace=args.align_whitespace, align_text=args.align_text,
                      chance=args.chance, chance_categories=args.chance_categories, lang=args.lang,
                      spacy_model=args.spacy_model, bootstrap=args.bootstrap,
                      seed=args.seed, jobs=args.jobs, compare=args.compare, test=args.test, unit=args.unit,
                      resamples=args.resamples, format=args.format, format_options=format_options(args),
                      record=recorded_options(args), annotators=args.annotators, progress=progress_wanted(args),
                      scheduler=args.scheduler, scheduler_timeout=args.scheduler_timeout,
                      errors=args.errors or False, context=args.context,
                      report=args.report or False, document_key=args.document_key, **attribute_settings(args),
                      relations=args.relations, symmetric_relations=args.symmetric_relations, **command)


def check_listing_outputs(args, inputs: list[str]) -> None:
    """The ``--errors`` file and ``--plots`` folder refused before anything is read."""
    from .outputs import check_destination, check_not_inputs

    check_not_inputs([args.errors], inputs, what="errors file")
    check_not_inputs([args.plots], inputs, what="plots folder")
    if args.errors:
        check_destination(args.errors, force=args.force, what="errors file", folder=False)
    if args.plots:
        from .report.plots import check_plots

        check_plots(args.plots, force=args.force, other=args.errors)


def check_report(args, inputs: list, others=()) -> None:
    """``--report``'s destination, refused before anything is read (docs/report.md)."""
    from .outputs import check_destination, check_not_inputs

    if args.report_documents is not None and args.report is None:
        raise UsageError("--report-documents goes with --report")
    if args.report_documents is not None and args.report_documents < 0:
        raise UsageError("--report-documents must be at least 0")
    if args.report is None:
        return
    check_not_inputs([args.report], inputs, what="report")
    check_destination(args.report, force=args.force, what="report", folder=False)
    for other in others:
        if other is not None and os.path.abspath(other) == os.path.abspath(args.report):
            raise UsageError(f"{args.report}: the report cannot be another output of the run ({other})")


def write_report(args, result, inputs: list) -> None:
    if args.report is not None:
        from .report.html import write_report as write

        write(result, args.report, documents=args.report_documents, force=args.force, inputs=inputs)


def command_agree(args) -> str:
    from .agreement import agree_with
    from .report import render_agreement, write_listing
    from .report.tabular import DISAGREEMENT_COLUMNS, iter_disagreement_rows

    check_common(args)
    check_listing_outputs(args, args.paths)
    check_report(args, args.paths, others=[args.errors, args.plots])
    result = agree_with(args.paths, run_options(args, documents=args.documents, unitizing=args.unitizing,
                                                gamma=args.gamma, gamma_alpha=args.gamma_alpha,
                                                gamma_beta=args.gamma_beta, gamma_delta_empty=args.gamma_delta_empty,
                                                gamma_sampler=args.gamma_sampler, gamma_samples=args.gamma_samples,
                                                gamma_precision=args.gamma_precision))
    if args.errors:
        rows, columns = iter_disagreement_rows(result), DISAGREEMENT_COLUMNS
        if args.align_text:  # which rows' spans touch changed characters
            from .report.tabular import with_text_changed

            rows = with_text_changed(rows, [result.extras.get("aligned_texts")], (("first", "first"), ("second", "second")))
            columns = [*columns, "text_changed"]
        if args.relations:  # the relations' rows after the spans'
            from .report.tabular import RELATION_DISAGREEMENT_COLUMNS, relation_disagreement_rows

            rows = itertools.chain(rows, relation_disagreement_rows(result))
            columns = [*columns, *RELATION_DISAGREEMENT_COLUMNS]
        write_listing(args.errors, rows, columns, force=args.force)
    if args.plots:
        from .report.plots import agreement_plots

        agreement_plots(result, args.plots, force=args.force)
    write_report(args, result, args.paths)
    if "label" in args.by:
        for pair in result.pairs:
            warn_averages(f"{pair.first} × {pair.second}", pair.by_label)
    return render_agreement(result, args.output, by=args.by)


def command_score(args) -> str:
    from .report import render_scores, write_listing
    from .report.tabular import ERROR_COLUMNS, iter_error_rows
    from .scoring import score_with

    check_common(args)
    check_listing_outputs(args, [args.gold_path, *args.preds])
    check_report(args, [args.gold_path, *args.preds], others=[args.errors, args.plots])
    results = score_with(args.gold_path, args.preds, run_options(args, beta=args.beta, pairing=args.pairing,
                                                                 strings=args.strings, strings_case=args.strings_case,
                                                                 strings_fuzzy=args.strings_fuzzy),
                         gold_name=args.gold)
    if not isinstance(results, list):
        results = [results]
    if args.errors:
        rows, columns = iter_error_rows(results), ERROR_COLUMNS
        if args.align_text:  # which rows' spans touch changed characters
            from .report.tabular import with_text_changed

            gold_name = results[0].gold
            rows = with_text_changed(rows, [r.extras.get("aligned_texts") for r in results],
                                     (("gold", gold_name), ("pred", "prediction")))
            columns = [*columns, "text_changed"]
        if args.relations:  # the relations' rows after the spans'
            from .report.tabular import RELATION_ERROR_COLUMNS, relation_error_rows

            rows = itertools.chain(rows, relation_error_rows(results))
            columns = [*columns, *RELATION_ERROR_COLUMNS]
        write_listing(args.errors, rows, columns, force=args.force)
    if args.plots:
        from .report.plots import score_plots

        score_plots(results, args.plots, force=args.force)
    write_report(args, results, [args.gold_path, *args.preds])
    if "label" in args.by:
        for result in results:
            warn_averages(result.prediction, result.pair.by_label)
    return render_scores(results, args.output, by=args.by)


def min_votes_arg(value: str) -> int | None:
    """``--min-votes``: a whole number, or ``majority`` (the default: ``None``)."""
    if value == "majority":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number or majority, not {value!r}") from None


def add_vote_options(parser: argparse.ArgumentParser) -> None:
    from .voting import MERGE_DESIGNS, VOTE_RULES

    group = parser.add_argument_group("voting")
    group.add_argument("--min-votes", type=min_votes_arg, metavar="K|majority",
                       help="annotators needed to keep a span or cluster (default: majority, more than half of "
                            "them; with --documents present, of those who have the document)")
    group.add_argument("--documents", choices=list(MERGE_DESIGNS), default="common",
                       help="common (default): merge the documents every annotator has; present: vote on each "
                            "document among the annotators who have it (round-robin designs)")
    group.add_argument("--match", choices=list(VOTE_RULES), default="exact",
                       help="exact: identical spans vote together; overlap: clusters of the pairwise "
                       "one-to-one overlap alignments (default: exact)")
    group.add_argument("--labels", choices=list(LABEL_RULES), default="strict",
                       help="strict: only same-label spans vote together; ignore: the label is voted too (default: strict)")
    group.add_argument("--only", metavar="L1,L2", help="merge only these labels (after --map)")
    group.add_argument("--map", action="append", metavar="OLD=NEW", help="relabel before voting (repeatable)")
    group.add_argument("--align-whitespace", action="store_true",
                       help="merge copies of a document that differ only in whitespace (the first annotator's text is kept)")
    group.add_argument("--align-text", action="store_true",
                       help="merge copies whose texts differ through a character alignment to the first "
                            "annotator's text")
    group = parser.add_argument_group("output")
    group.add_argument("--to", required=True, choices=writable_formats(), metavar="FORMAT",
                       help=f"gold format: {', '.join(writable_formats())}")
    group.add_argument("--out", required=True, metavar="DEST", help="gold output: a folder (BRAT) or a file")
    group.add_argument("--adjudicate", metavar="FILE",
                       help="write the clusters to adjudicate (CSV, or JSON when FILE ends in .json)")
    group.add_argument("--adjudicate-all", metavar="FILE",
                       help="write every cluster that is not unanimous, each with its kinds (those to adjudicate "
                            "and those the vote settled: docs/merge.md), as --adjudicate does")
    group.add_argument("--context", type=int, default=40, metavar="N",
                       help="characters of text before and after each listed cluster (default: 40; 0: none)")
    group.add_argument("--plots", metavar="DIR",
                       help="write the figure of the votes as PNG and SVG into DIR (needs matplotlib: "
                            "pip install 'spanagree[plots]')")
    group.add_argument("--force", action="store_true", help="replace existing outputs")
    group.add_argument("--jobs", type=int, default=1, metavar="N", help="vote on documents in N processes")
    add_scheduler_option(group)
    add_quiet_option(group)
    group.add_argument("--output", choices=OUTPUTS, default="table",
                       help="summary on stdout: table (default), json or csv (one row per document)")
    add_html_report_options(group)


def command_merge(args) -> str:
    from .outputs import check_not_inputs
    from .report import render_vote
    from .voting import OutputPlan, check_outputs, vote_with

    check_not_inputs([args.out, args.adjudicate, args.adjudicate_all], args.paths)
    check_not_inputs([args.plots], args.paths, what="plots folder")
    # refuse before reading anything
    check_outputs(args.out, args.adjudicate, force=args.force, adjudicate_all=args.adjudicate_all, format=args.to)
    if args.plots:
        from .report.plots import check_plots

        check_plots(args.plots, force=args.force, other=[args.out, args.adjudicate, args.adjudicate_all])
    check_report(args, args.paths, others=[args.out, args.adjudicate, args.adjudicate_all, args.plots])
    if args.report is not None:
        report, gold = Path(args.report).resolve(), Path(args.out).resolve()
        if gold in report.parents:
            raise UsageError(f"{args.report}: the report cannot be inside the gold output ({args.out})")
    options = RunOptions(match=args.match, labels=args.labels, only=args.only, label_map=args.map,
                         align_whitespace=args.align_whitespace, align_text=args.align_text, jobs=args.jobs,
                         format=args.format, format_options=format_options(args), record=recorded_options(args),
                         annotators=args.annotators, context=args.context, documents=args.documents,
                         progress=progress_wanted(args), scheduler=args.scheduler,
                         scheduler_timeout=args.scheduler_timeout, document_key=args.document_key)
    kept = {every: path for every, path in ((False, args.adjudicate), (True, args.adjudicate_all)) if path}
    result = vote_with(args.paths, options, args.min_votes,
                       outputs=OutputPlan(args.to, format_options(args), kept, dest=args.out))
    try:
        result.write(args.out, args.to, adjudicate=args.adjudicate, adjudicate_all=args.adjudicate_all,
                     force=args.force, **format_options(args))
    except BaseException:
        result.discard()  # nothing left behind, the spool beside the gold included
        raise
    if args.plots:
        from .report.plots import vote_plots

        vote_plots(result, args.plots, force=args.force)
    write_report(args, result, args.paths)
    return render_vote(result, args.output, out=args.out, to=args.to, adjudicate=args.adjudicate,
                       adjudicate_all=args.adjudicate_all)


def command_convert(args) -> str:
    from .formats import convert
    from .outputs import check_destination, check_not_inputs

    check_not_inputs([args.out], [args.path])
    check_destination(args.out, force=args.force, folder=FORMATS[args.to].writes_to_folder)  # before reading
    if args.annotators is not None and len(args.annotators) != 1:
        raise UsageError("convert writes one span set: --annotators names one")
    if args.tokenize and not FORMATS[args.to].tokens:
        raise UsageError("--tokenize puts texts in CoNLL's shape: it goes with --to conll")
    for option, value in (("--lang", args.lang), ("--spacy-model", args.spacy_model)):
        if value is not None and not args.tokenize:
            raise UsageError(f"{option} goes with --tokenize")
    if args.lang is not None and args.spacy_model is not None:
        raise UsageError("--lang and --spacy-model exclude each other (the pipeline has its own language)")
    spanset = convert(args.path, args.out, source_format=args.source_format or args.format, to=args.to,
                      force=args.force, annotator=args.annotators[0] if args.annotators else None,
                      name=args.path.name if isinstance(args.path, NamedPath) else None,
                      tokenize=args.tokenize, lang=args.lang, spacy_model=args.spacy_model, **format_options(args))
    return f"wrote {len(spanset.documents)} documents, {len(spanset)} spans to {args.out} ({args.to})\n"


COMMANDS = {"agree": command_agree, "score": command_score, "merge": command_merge, "convert": command_convert}


def show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr, the parameters it names spelt as flags."""
    text = message.command_line_message() if isinstance(message, SpanagreeWarning) else message
    print(f"spanagree: warning: {text}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``spanagree`` command."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        with signals_as_interrupts(), warnings.catch_warnings():
            warnings.simplefilter("always", SpanagreeWarning)
            warnings.showwarning = show_warning
            output = COMMANDS[args.command](args)
            if received() is not None:  # an interrupt swallowed on the way (in a finaliser): still one
                raise Interrupted(received())
            write_stdout(output)
        return 0
    except UsageError as error:
        print(f"spanagree: error: {error.command_line_message()}", file=sys.stderr)
        return 2
    except SpanagreeError as error:
        print(f"spanagree: error: {error.command_line_message()}", file=sys.stderr)
        return 1
    except OSError as error:
        where = f"{error.filename}: " if getattr(error, "filename", None) else ""
        print(f"spanagree: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:
        print("spanagree: interrupted", file=sys.stderr)
        return exit_status(interrupt)


if __name__ == "__main__":
    sys.exit(main())
