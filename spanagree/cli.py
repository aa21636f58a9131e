"""The command line: parse, call one public function, render. Errors are one line, no traceback.

Exit codes: 0 success, 1 bad input (the message names the file and line), 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from ._version import __version__
from .collector import collector_paused
from .errors import SpanagreeError, SpanagreeWarning, UsageError
from .formats import FORMATS
from .match import BOUNDARIES, LABEL_RULES
from .outputs import exit_status, signals_as_interrupts, write_stdout

OUTPUTS = ("table", "json", "csv")


class Parser(argparse.ArgumentParser):
    """argparse with exit code 2 and a one-line message on bad usage."""

    def error(self, message):
        raise UsageError(message)


def add_format_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("input format")
    group.add_argument("--format", choices=list(FORMATS), help="input format (default: detected per path)")
    group.add_argument("--xml-label-attr", metavar="ATTR", help="XML: label from this attribute (e.g. TYPE, class)")
    group.add_argument("--xml-span-tags", metavar="A,B", help="XML: only these elements are spans")
    group.add_argument("--xml-doc-tag", metavar="TAG", help="XML: every TAG element is a document (e.g. DOC)")
    group.add_argument("--conll-column", type=int, metavar="N", help="CoNLL: tag column, counted from 1 (default: last)")
    group.add_argument("--scheme", choices=["iob1", "iob2", "ioe", "bioes", "io"],
                       help="CoNLL: decode strictly in this tag scheme (default: conlleval's lenient decoding)")
    group.add_argument("--max-record-bytes", type=int, metavar="N",
                       help="largest record read: a JSONL line, a CoNLL or XML document, a BRAT file "
                            "(default: 64 MiB = 67108864)")


def add_match_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("matching")
    group.add_argument("--match", choices=list(BOUNDARIES), default="exact", help="boundary rule (default: exact)")
    group.add_argument("--labels", choices=list(LABEL_RULES), default="strict", help="label rule (default: strict)")
    group.add_argument("--partial-credit", default="0.5", metavar="X|dice",
                       help="credit of a non-exact overlap under --match partial: a number in (0, 1] or dice (default: 0.5)")
    group.add_argument("--only", metavar="L1,L2", help="compare only these labels (after --map)")
    group.add_argument("--map", action="append", metavar="OLD=NEW", help="relabel before matching (repeatable)")
    group.add_argument("--align-whitespace", action="store_true",
                       help="compare copies of a document that differ only in whitespace")


def add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("report")
    group.add_argument("--by", choices=["label", "document"], help="add a breakdown per label or per document")
    group.add_argument("--output", choices=OUTPUTS, default="table", help="table (default), json or csv")
    group.add_argument("--chance", action="store_true",
                       help="token-level agreement with d known: Cohen's kappa, Scott's pi, informedness, "
                            "markedness, MCC per pair, Fleiss' kappa and Krippendorff's alpha, beside the token PSA")
    group.add_argument("--lang", metavar="L",
                       help="--chance: language of spaCy's blank tokenizer (default: en; CoNLL uses its own tokens)")
    group.add_argument("--spacy-model", metavar="M",
                       help="--chance: tokenise with this installed spaCy pipeline (a name or a path)")
    group.add_argument("--bootstrap", type=int, metavar="N",
                       help="95%% percentile intervals of F1, precision and recall from N resamples of documents")
    group.add_argument("--seed", type=int, metavar="S", help="--bootstrap: random seed (default: drawn and reported)")
    group.add_argument("--jobs", type=int, default=1, metavar="N", help="align documents in N processes")


def build_parser() -> Parser:
    parser = Parser(prog="spanagree", description="Span-level agreement: F1 = positive specific agreement, "
                    "one-to-one span matching, majority-vote merging.")
    parser.add_argument("--version", action="version", version=f"spanagree {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    agree = commands.add_parser("agree", help="agreement between two or more annotators",
                                description="Pairwise F1 (= PSA), mean and pooled, between annotators.")
    agree.add_argument("paths", nargs="+", metavar="PATH", help="one span set per annotator (folder or file)")
    add_format_options(agree)
    add_match_options(agree)
    add_report_options(agree)

    score = commands.add_parser("score", help="score predictions against a gold standard",
                                description="Precision, recall, F1/F-beta and error analysis against a gold standard.")
    score.add_argument("gold", metavar="GOLD")
    score.add_argument("preds", nargs="+", metavar="PRED")
    add_format_options(score)
    add_match_options(score)
    add_report_options(score)
    score.add_argument("--beta", type=float, default=1.0, help="F-beta's beta (default: 1)")
    score.add_argument("--errors", metavar="FILE", help="write every error (CSV, or JSON for .json)")
    score.add_argument("--force", action="store_true", help="replace an existing --errors file")

    merge = commands.add_parser("merge", help="majority-vote gold standard from several annotators",
                                description="Merge annotators by voting; list what needs adjudication "
                                "(rules and tie-breaking: docs/merge.md).")
    merge.add_argument("paths", nargs="+", metavar="PATH", help="one span set per annotator (at least two)")
    add_format_options(merge)
    add_vote_options(merge)

    convert = commands.add_parser("convert", help="convert between BRAT, XML, CoNLL and JSONL")
    convert.add_argument("path", metavar="PATH")
    convert.add_argument("--from", dest="source_format", choices=list(FORMATS), metavar="FORMAT")
    convert.add_argument("--to", required=True, choices=list(FORMATS), metavar="FORMAT")
    convert.add_argument("--out", required=True, metavar="DEST")
    convert.add_argument("--force", action="store_true", help="replace an existing destination")
    add_format_options(convert)
    return parser


def format_options(args) -> dict:
    return {
        "xml_label_attr": args.xml_label_attr,
        "xml_span_tags": args.xml_span_tags,
        "xml_doc_tag": args.xml_doc_tag,
        "conll_column": args.conll_column,
        "scheme": args.scheme,
        "max_record_bytes": args.max_record_bytes,
    }


def read_all(paths, args) -> list:
    from .formats import read

    fmt = getattr(args, "format", None) or getattr(args, "source_format", None)
    with collector_paused(freeze=True):  # what is read lives until the process ends
        return [read(path, fmt, **format_options(args)) for path in paths]


def open_all(paths, args) -> list:
    """Every path's :class:`~spanagree.formats.DocumentStream`, for comparing as they are read.

    A path that cannot be opened gives a stream that raises its error when first read, so that,
    as with :func:`read_all`, an error in an earlier file is the one reported.
    """
    from .formats import DocumentStream, open_stream

    fmt = getattr(args, "format", None)
    streams = []
    for path in paths:
        try:
            streams.append(open_stream(path, fmt, **format_options(args)))
        except SpanagreeError as error:
            streams.append(DocumentStream(str(path), fmt or "", raising(error)))
    return streams


def raising(error: SpanagreeError):
    """A stream of documents whose reading fails at once with ``error``."""
    raise error
    yield  # a generator: the error comes when it is first read


def streamed(args) -> bool:
    """Compare while reading (:mod:`spanagree.pipeline.stream`): always, but where every span must be at
    hand (``--chance``) or the work is split across processes (``--jobs``)."""
    return not args.chance and args.jobs == 1


def recorded_options(args) -> dict:
    """Every option of the run, for the JSON header (a figure can be reproduced from it)."""
    skip = {"paths", "gold", "preds", "path", "output"}
    return {k: v for k, v in vars(args).items() if k not in skip}


def check_common(args) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.bootstrap is not None and args.bootstrap < 1:
        raise UsageError("--bootstrap must be at least 1")
    if args.seed is not None and args.bootstrap is None:
        raise UsageError("--seed goes with --bootstrap")
    for option, value in (("--lang", args.lang), ("--spacy-model", args.spacy_model)):
        if value is not None and not args.chance:
            raise UsageError(f"{option} goes with --chance")
    if args.lang is not None and args.spacy_model is not None:
        raise UsageError("--lang and --spacy-model exclude each other (the pipeline has its own language)")


def command_agree(args) -> str:
    from .agreement import agree, agree_folders
    from .report import agreement_csv, agreement_table, to_json

    check_common(args)
    if len(args.paths) < 2:
        raise UsageError("agree needs at least two paths")
    matching = dict(match=args.match, labels=args.labels, partial_credit=args.partial_credit, only=args.only,
                    label_map=args.map, align_whitespace=args.align_whitespace, options=recorded_options(args),
                    jobs=args.jobs)
    # BRAT folders with --jobs: each process reads its own documents (--chance needs every span here).
    result = None if args.chance else agree_folders(args.paths, format=args.format, **matching)
    spansets = None
    if result is None and streamed(args):
        from .pipeline.stream import agree_streams

        del matching["jobs"]
        result = agree_streams(open_all(args.paths, args), **matching)
    elif result is None:
        spansets = read_all(args.paths, args)
        result = agree(spansets, **matching)
    add_agreement_extras(result, spansets, args)
    if args.output == "json":
        return to_json(result.to_dict(by_document=args.by == "document"))
    if args.output == "csv":
        return agreement_csv(result, by=args.by)
    return agreement_table(result, by=args.by)


def add_agreement_extras(result, spansets, args) -> None:
    """--chance and --bootstrap: figures beside the PSA, from the same documents and annotators."""
    if args.chance:
        from .measures.tokens import token_agreement

        reconciled = reconciled_quietly(prepared(spansets, args), result.documents, args)
        result.extras["chance"] = token_agreement(
            reconciled.spansets, reconciled.documents, tokens=tokenizer_of(spansets), lang=args.lang,
            spacy_model=args.spacy_model, labels=args.labels, names=result.annotators).to_dict()
    if args.bootstrap:
        from .measures.bootstrap import bootstrap_intervals

        per_document = [[astuple(p.by_document[d]) for p in result.pairs] for d in result.documents]
        result.extras["bootstrap"] = bootstrap_intervals(per_document, n=args.bootstrap, seed=args.seed,
                                                         pairs=[[p.first, p.second] for p in result.pairs])


def reconciled_quietly(spansets, documents, args):
    """The texts reconciled again for the token level; agree/score have already warned about them."""
    from .texts import reconcile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanagreeWarning)
        return reconcile(spansets, documents, align_whitespace=args.align_whitespace)


def tokenizer_of(spansets) -> str:
    """CoNLL tokens when every input is CoNLL, else spaCy's tokenizer on the texts."""
    return "conll" if all(s.format == "conll" for s in spansets) else "spacy"


def astuple(counts):
    return counts.a, counts.b, counts.c


def prepared(spansets, args):
    from .pipeline.compare import parse_label_list, parse_label_map, select_labels

    return [select_labels(s, label_map=parse_label_map(args.map), only=parse_label_list(args.only)) for s in spansets]


def command_score(args) -> str:
    from .outputs import check_destination, check_not_inputs, write_text
    from .report import errors_listing, score_csv, score_table, to_json
    from .scoring import score

    check_common(args)
    if args.errors:
        check_not_inputs([args.errors], [args.gold, *args.preds], what="errors file")
        check_destination(args.errors, force=args.force, what="errors file")
    matching = dict(match=args.match, labels=args.labels, partial_credit=args.partial_credit, beta=args.beta,
                    only=args.only, label_map=args.map, align_whitespace=args.align_whitespace,
                    options=recorded_options(args))
    if streamed(args):
        from .pipeline.stream import score_streams

        gold, *preds = open_all([args.gold] + args.preds, args)
        results = score_streams(gold, preds, listing=bool(args.errors), **matching)
    else:
        gold, *preds = read_all([args.gold] + args.preds, args)
        results = score(gold, preds, jobs=args.jobs, **matching)
    for result, pred in zip(results, preds):
        add_score_extras(result, gold, pred, args)
    if args.errors:
        write_text(args.errors, errors_listing(results, args.errors), force=args.force, what="errors file")
    if args.output == "json":
        if len(results) == 1:
            return to_json(results[0].to_dict(by_document=args.by == "document"))
        header = {k: v for k, v in results[0].to_dict().items() if k in ("spanagree", "options")}
        return to_json({**header, "gold": results[0].gold,
                        "predictions": [r.to_dict(by_document=args.by == "document", with_header=False) for r in results]})
    if args.output == "csv":
        return score_csv(results, by=args.by)
    return score_table(results, by=args.by)


def add_score_extras(result, gold, pred, args) -> None:
    """--chance and --bootstrap for one prediction; the prediction is the first side, the gold the second."""
    if args.chance:
        from .measures.tokens import token_agreement

        gold_p, pred_p = prepared([gold, pred], args)
        both = [d for d in result.documents if d in pred_p.documents]
        gold_r, pred_r = reconciled_quietly([gold_p, pred_p], both, args).spansets
        # documents the prediction lacks count as empty (as in the span counts)
        result.extras["chance"] = token_agreement(
            [pred_r, gold_r], result.documents, tokens=tokenizer_of([gold, pred]), lang=args.lang,
            spacy_model=args.spacy_model, labels=args.labels, names=[result.prediction, result.gold]).to_dict()
    if args.bootstrap:
        from .measures.bootstrap import bootstrap_intervals

        per_document = [[astuple(result.pair.by_document[d])] for d in result.documents]
        result.extras["bootstrap"] = bootstrap_intervals(per_document, n=args.bootstrap, seed=args.seed,
                                                         pairs=[[result.prediction, result.gold]], mean=False)


def add_vote_options(parser: argparse.ArgumentParser) -> None:
    from .voting import VOTE_RULES

    group = parser.add_argument_group("voting")
    group.add_argument("--min-votes", type=int, metavar="K",
                       help="annotators needed to keep a span or cluster (default: more than half)")
    group.add_argument("--match", choices=list(VOTE_RULES), default="exact",
                       help="exact: identical spans vote together; overlap: clusters of the pairwise "
                       "one-to-one overlap alignments (default: exact)")
    group.add_argument("--labels", choices=list(LABEL_RULES), default="strict",
                       help="strict: only same-label spans vote together; ignore: the label is voted too (default: strict)")
    group.add_argument("--only", metavar="L1,L2", help="merge only these labels (after --map)")
    group.add_argument("--map", action="append", metavar="OLD=NEW", help="relabel before voting (repeatable)")
    group.add_argument("--align-whitespace", action="store_true",
                       help="merge copies of a document that differ only in whitespace (the first annotator's text is kept)")
    group = parser.add_argument_group("output")
    group.add_argument("--to", required=True, choices=list(FORMATS), metavar="FORMAT",
                       help=f"gold format: {', '.join(FORMATS)}")
    group.add_argument("--out", required=True, metavar="DEST", help="gold output: a folder (BRAT) or a file")
    group.add_argument("--adjudicate", metavar="FILE",
                       help="write the clusters to adjudicate (CSV, or JSON when FILE ends in .json)")
    group.add_argument("--force", action="store_true", help="replace existing outputs")
    group.add_argument("--jobs", type=int, default=1, metavar="N", help="vote on documents in N processes")
    group.add_argument("--output", choices=OUTPUTS, default="table",
                       help="summary on stdout: table (default), json or csv (one row per document)")


def command_merge(args) -> str:
    from .outputs import check_not_inputs
    from .voting import check_outputs, vote
    from .report import to_json

    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    check_not_inputs([args.out, args.adjudicate], args.paths)
    check_outputs(args.out, args.adjudicate, force=args.force)  # refuse before reading anything
    result = vote(read_all(args.paths, args), args.min_votes, match=args.match, labels=args.labels,
                  only=args.only, label_map=args.map, align_whitespace=args.align_whitespace, jobs=args.jobs,
                  options=recorded_options(args))
    result.write(args.out, args.to, adjudicate=args.adjudicate, force=args.force, **format_options(args))
    if args.output == "json":
        return to_json(result.to_dict())
    if args.output == "csv":
        return result.csv()
    counts = result.counts()
    wrote = f"wrote {counts['kept']} spans in {len(result.documents)} documents to {args.out} ({args.to})"
    if args.adjudicate:
        wrote += f"; {counts['to_adjudicate']} clusters to adjudicate in {args.adjudicate}"
    return result.table() + wrote + "\n"


def command_convert(args) -> str:
    from .formats import write
    from .outputs import check_destination, check_not_inputs, write_atomically

    if args.source_format is None:
        args.source_format = args.format
    check_not_inputs([args.out], [args.path])
    check_destination(args.out, force=args.force)  # refuse before reading anything
    (spanset,) = read_all([args.path], args)
    write_atomically(args.out, lambda temporary: write(spanset, temporary, args.to, **format_options(args)),
                     force=args.force)
    return f"wrote {len(spanset.documents)} documents, {len(spanset)} spans to {args.out} ({args.to})\n"


COMMANDS = {"agree": command_agree, "score": command_score, "merge": command_merge, "convert": command_convert}


def show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"spanagree: warning: {message}", file=sys.stderr)


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
        write_stdout(output)
        return 0
    except UsageError as error:
        print(f"spanagree: error: {error}", file=sys.stderr)
        return 2
    except SpanagreeError as error:
        print(f"spanagree: error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        where = f"{error.filename}: " if getattr(error, "filename", None) else ""
        print(f"spanagree: error: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:
        print("spanagree: interrupted", file=sys.stderr)
        return exit_status(interrupt)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
