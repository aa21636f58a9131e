"""Synthetic span-annotation corpora for the spanagree benchmark.

Writes the *same* annotations of K annotators in three formats, so that every tool in the
benchmark reads exactly the same spans:

* ``brat/ann1/``, ``brat/ann2/``, ... — one ``.txt`` + ``.ann`` per document, and
  ``brat/annotation.conf`` (so that the folder is a brat project that bratiaa accepts);
* ``conll/ann1.conll``, ... — one file per annotator, ``TOKEN<TAB>TAG`` (IOB2), a
  ``-DOCSTART-<TAB>O`` line and a blank line before every document, a blank line after every
  sentence;
* ``jsonl/ann1.jsonl``, ... — ``{"id", "text", "spans": [{"start", "end", "label"}]}`` per line;
* ``meta.json`` — the parameters, span counts and the exact/strict a, b, c, F1 of every pair
  computed here from the generator's own span sets (an independent reference).

Texts are in CoNLL shape: tokens joined by one space, sentences by ``\\n`` (no trailing newline),
so the character offsets of BRAT/JSONL are exactly the token boundaries of the CoNLL files.

Every document is generated from its own random stream (seed, document index), so the first n
documents of a corpus of N > n documents are the documents of the corpus of n documents.

Model
-----
* Words come from a synthetic vocabulary (Zipf-distributed); a document has 10-16 sentences of
  15-30 tokens (``--short``: 5-8 sentences of 12-25 tokens, so 60-200 tokens), each ending
  with ``.``; about one "true" entity per 12 tokens, 1-3 tokens long (two entities of a sentence
  are at least one token apart), labels PER/ORG/LOC/MISC; entity tokens are capitalised.
* Each annotator copies the true entities with independent noise: a miss (``--miss``), a
  boundary shift by one token at either end (``--shift``), a wrong label (``--label-error``),
  and spurious 1-2 token spans (``--spurious``, as a rate per true entity). An annotator's spans
  never overlap one another and never cross a sentence boundary (a shift that would collide
  with a neighbour is not applied; a spurious span that would collide is re-drawn), so the CoNLL
  files hold exactly the BRAT/JSONL spans and every tool's exact/strict F1 must coincide.

Usage::

    python benchmarks/generate.py --docs 10000 --out /tmp/spanagree-bench/docs-10000
    python benchmarks/generate.py --long 10000 --out /tmp/spanagree-bench/long-10000
    python benchmarks/generate.py --docs 10000 --short --out /tmp/spanagree-bench/short-10000

Outputs never go into the repository (the default folder is under /tmp).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import sys
import time
from pathlib import Path

LABELS = ("PER", "ORG", "LOC", "MISC")
LABEL_WEIGHTS = (0.30, 0.25, 0.25, 0.20)
ENTITY_LENGTHS = (1, 2, 3)
ENTITY_LENGTH_WEIGHTS = (0.50, 0.35, 0.15)
DEFAULT_OUT = "/tmp/spanagree-bench"
VOCAB_SIZE = 8000
FORMATS = ("brat", "conll", "jsonl")


def make_vocabulary(seed: int, size: int = VOCAB_SIZE) -> tuple[list[str], list[float]]:
    """Synthetic lower-case words and their cumulative Zipf weights."""
    rng = random.Random(f"vocab:{seed}")
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.choice((1, 1, 2, 2, 2, 3, 3, 4))
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) + rng.choice(("", "", "n", "r", "s"))
                          for _ in range(syllables)))
    ordered = sorted(words)
    rng.shuffle(ordered)
    cum = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(size)))
    return ordered, cum


class Generator:
    """Documents (tokens, sentences, true entities) and each annotator's noisy copy."""

    def __init__(self, *, seed: int = 13, annotators: int = 2, entity_rate: float = 1 / 12,
                 miss: float = 0.05, spurious: float = 0.05, shift: float = 0.05,
                 label_error: float = 0.05, min_tokens: int = 15, max_tokens: int = 30):
        self.seed = seed
        self.annotators = annotators
        self.miss, self.spurious, self.shift, self.label_error = miss, spurious, shift, label_error
        self.min_tokens, self.max_tokens = min_tokens, max_tokens
        self.vocab, self.vocab_cum = make_vocabulary(seed)
        mean_len = sum(l * w for l, w in zip(ENTITY_LENGTHS, ENTITY_LENGTH_WEIGHTS))
        # A walk that starts an entity with probability p at each free token and leaves a gap of
        # one token after it has about one entity per (1/p + mean_len) tokens; the factor 1.075
        # (measured) makes up for the sentence-final tokens where no entity may start.
        self.p_start = min(1.075 / max(1.0 / entity_rate - mean_len, 1.0), 1.0)

    # -- the shared document -------------------------------------------------------------------
    def document(self, rng: random.Random, *, n_sentences: int | None = None,
                 n_entities: int | None = None):
        """Sentences of tokens and the true entities ``(sentence, tok_start, tok_end, label)``."""
        sentences: list[list[str]] = []
        entities: list[tuple[int, int, int, str]] = []
        s = 0
        while (n_sentences is not None and s < n_sentences) or \
              (n_entities is not None and len(entities) < n_entities):
            n = rng.randint(self.min_tokens, self.max_tokens)
            words = rng.choices(self.vocab, cum_weights=self.vocab_cum, k=n - 1)
            words.append(".")
            for i in range(1, n - 2):
                if rng.random() < 0.06:
                    words[i] = ","
            i = 0
            while i < n - 1:  # the final "." is never part of an entity
                if rng.random() < self.p_start and (n_entities is None or len(entities) < n_entities):
                    length = rng.choices(ENTITY_LENGTHS, weights=ENTITY_LENGTH_WEIGHTS)[0]
                    if i + length <= n - 1:
                        label = rng.choices(LABELS, weights=LABEL_WEIGHTS)[0]
                        entities.append((s, i, i + length, label))
                        for j in range(i, i + length):
                            words[j] = (words[j] if words[j] != "," else words[j - 1]).capitalize()
                        i += length + 1
                        continue
                i += 1
            sentences.append(words)
            s += 1
        return sentences, entities

    # -- one annotator's copy ------------------------------------------------------------------
    def annotate(self, rng: random.Random, sentences: list[list[str]],
                 entities: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str]]:
        """The true entities with misses, shifts, label errors and spurious spans; no overlaps."""
        occupied = [bytearray(len(words)) for words in sentences]
        out = []

        def free(s, a, b, ignore=None):
            occ = occupied[s]
            return all(occ[j] == 0 or (ignore is not None and ignore[0] <= j < ignore[1])
                       for j in range(a, b))

        def take(s, a, b, value):
            occ = occupied[s]
            for j in range(a, b):
                occ[j] = value

        # True entities occupy their tokens first; shifts may only move into free tokens.
        kept = []
        for s, a, b, label in entities:
            if rng.random() < self.miss:
                continue
            kept.append([s, a, b, label])
            take(s, a, b, 1)
        for ent in kept:
            s, a, b, label = ent
            n = len(sentences[s])
            if rng.random() < self.shift:
                options = []
                if a > 0:
                    options.append((a - 1, b))
                if b - a > 1:
                    options.append((a + 1, b))
                    options.append((a, b - 1))
                if b < n - 1:
                    options.append((a, b + 1))
                rng.shuffle(options)
                for na, nb in options:
                    if free(s, na, nb, ignore=(a, b)):
                        take(s, a, b, 0)
                        take(s, na, nb, 1)
                        ent[1], ent[2] = na, nb
                        break
            if rng.random() < self.label_error:
                ent[3] = rng.choice([l for l in LABELS if l != label])
            out.append(tuple(ent))
        n_spurious = sum(1 for _ in entities if rng.random() < self.spurious)
        for _ in range(n_spurious):
            for _attempt in range(20):
                s = rng.randrange(len(sentences))
                n = len(sentences[s])
                length = rng.choice((1, 1, 2))
                a = rng.randrange(0, max(n - length, 1))
                b = a + length
                if b <= n - 1 and free(s, a, b):
                    take(s, a, b, 1)
                    out.append((s, a, b, rng.choices(LABELS, weights=LABEL_WEIGHTS)[0]))
                    break
        out.sort()
        return out


def char_offsets(sentences: list[list[str]]) -> tuple[str, list[list[int]]]:
    """The text (tokens joined by ' ', sentences by '\\n') and each token's start offset."""
    starts: list[list[int]] = []
    pos = 0
    for words in sentences:
        row = []
        for w in words:
            row.append(pos)
            pos += len(w) + 1  # one space, or the '\n' after the last token
        starts.append(row)
    text = "\n".join(" ".join(words) for words in sentences)
    return text, starts


class Writers:
    """Open outputs of every annotator in every format."""

    def __init__(self, out: Path, k: int, formats: tuple[str, ...]):
        self.out, self.k, self.formats = out, k, formats
        self.names = [f"ann{i + 1}" for i in range(k)]
        self.conll = self.jsonl = None
        if "brat" in formats:
            for name in self.names:
                (out / "brat" / name).mkdir(parents=True, exist_ok=True)
            (out / "brat" / "annotation.conf").write_text(
                "[entities]\n" + "\n".join(LABELS) + "\n[relations]\n\n[events]\n\n[attributes]\n",
                encoding="utf-8")
        if "conll" in formats:
            (out / "conll").mkdir(parents=True, exist_ok=True)
            self.conll = [open(out / "conll" / f"{n}.conll", "w", encoding="utf-8", newline="")
                          for n in self.names]
        if "jsonl" in formats:
            (out / "jsonl").mkdir(parents=True, exist_ok=True)
            self.jsonl = [open(out / "jsonl" / f"{n}.jsonl", "w", encoding="utf-8", newline="")
                          for n in self.names]

    def write(self, doc_id: str, sentences, annotations):
        text, starts = char_offsets(sentences)
        char_spans = [[(starts[s][a], starts[s][b - 1] + len(sentences[s][b - 1]), label)
                       for s, a, b, label in spans] for spans in annotations]
        if "brat" in self.formats:
            for i, name in enumerate(self.names):
                folder = self.out / "brat" / name
                with open(folder / f"{doc_id}.txt", "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                with open(folder / f"{doc_id}.ann", "w", encoding="utf-8", newline="") as f:
                    f.write("".join(f"T{j + 1}\t{label} {a} {b}\t{text[a:b]}\n"
                                    for j, (a, b, label) in enumerate(char_spans[i])))
        if self.conll is not None:
            for i, f in enumerate(self.conll):
                tags = [["O"] * len(words) for words in sentences]
                for s, a, b, label in annotations[i]:
                    tags[s][a] = "B-" + label
                    for j in range(a + 1, b):
                        tags[s][j] = "I-" + label
                parts = ["-DOCSTART-\tO\n\n"]
                for words, row in zip(sentences, tags):
                    parts.append("".join(f"{w}\t{t}\n" for w, t in zip(words, row)))
                    parts.append("\n")
                f.write("".join(parts))
        if self.jsonl is not None:
            for i, f in enumerate(self.jsonl):
                f.write(json.dumps({"id": doc_id, "text": text,
                                    "spans": [{"start": a, "end": b, "label": label}
                                              for a, b, label in char_spans[i]]},
                                   ensure_ascii=False))
                f.write("\n")
        return char_spans

    def close(self):
        for f in (self.conll or []) + (self.jsonl or []):
            f.close()


def generate(out: Path, *, docs: int | None = None, long: int | None = None, short: bool = False, annotators: int = 2,
             seed: int = 13, miss: float = 0.05, spurious: float = 0.05, shift: float = 0.05,
             label_error: float = 0.05, formats: tuple[str, ...] = FORMATS,
             force: bool = False, quiet: bool = False) -> dict:
    """Write a corpus to ``out`` and return its metadata (also written to ``out/meta.json``).

    If ``out/meta.json`` exists with the same parameters, nothing is written again.
    """
    params = {"docs": docs, "long": long, "annotators": annotators, "seed": seed, "miss": miss,
              "spurious": spurious, "shift": shift, "label_error": label_error,
              "formats": list(formats), "generator_version": 2}
    if short:  # only when asked for: the other corpora's parameters (their cache) stay as they were
        params["short"] = True
    meta_path = out / "meta.json"
    if meta_path.exists() and not force:
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == params:
            return meta
    if out.exists():
        resolved = out.resolve()
        repo = Path(__file__).resolve().parent.parent
        if resolved == repo or repo in resolved.parents:
            raise SystemExit(f"refusing to write into the repository: {out}")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    gen = Generator(seed=seed, annotators=annotators, miss=miss, spurious=spurious, shift=shift,
                    label_error=label_error, **({"min_tokens": 12, "max_tokens": 25} if short else {}))
    writers = Writers(out, annotators, formats)
    k = annotators
    names = writers.names
    counts = {n: 0 for n in names}
    pair_keys = [(i, j) for i in range(k) for j in range(i + 1, k)]
    inter = {p: 0 for p in pair_keys}
    n_tokens = n_true = n_docs = 0
    if long is not None:
        plan = [("long", {"n_entities": long})]
    else:
        width = max(5, len(str(docs)))
        plan = ((f"doc{d:0{width}d}", {"doc_index": d}) for d in range(docs))
    for doc_id, how in plan:
        if "doc_index" in how:
            rng = random.Random(seed * 1_000_003 + how["doc_index"])
            sentences, truth = gen.document(rng, n_sentences=rng.randint(5, 8) if short else rng.randint(10, 16))
        else:
            rng = random.Random(seed * 1_000_003 - 1)
            sentences, truth = gen.document(rng, n_entities=how["n_entities"])
        annotations = [gen.annotate(random.Random(rng.random()), sentences, truth) for _ in range(k)]
        char_spans = writers.write(doc_id, sentences, annotations)
        sets = [set(cs) for cs in char_spans]
        for n, cs, st in zip(names, char_spans, sets):
            assert len(cs) == len(st), "duplicate spans"
            counts[n] += len(cs)
        for i, j in pair_keys:
            inter[(i, j)] += len(sets[i] & sets[j])
        n_tokens += sum(len(s) for s in sentences)
        n_true += len(truth)
        n_docs += 1
    writers.close()
    pairs = []
    for i, j in pair_keys:
        a = inter[(i, j)]
        b = counts[names[i]] - a
        c = counts[names[j]] - a
        pairs.append({"annotators": [names[i], names[j]], "a": a, "b": b, "c": c,
                      "f1": 2 * a / (2 * a + b + c) if (2 * a + b + c) else None})
    meta = {"params": params, "documents": n_docs, "tokens": n_tokens, "true_entities": n_true,
            "spans": counts, "spans_total": sum(counts.values()),
            "exact_strict": pairs, "seconds": round(time.perf_counter() - t0, 2)}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    if not quiet:
        print(f"{out}: {n_docs} documents, {n_tokens} tokens, {sum(counts.values())} spans "
              f"({meta['seconds']} s)", file=sys.stderr)
    return meta


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--docs", type=int, default=None, help="number of documents (default 10000)")
    g.add_argument("--long", type=int, metavar="S", default=None,
                   help="one long document with S true entities instead")
    p.add_argument("--short", action="store_true",
                   help="short documents (5-8 sentences of 12-25 tokens: 60-200 tokens) instead of 10-16 of 15-30")
    p.add_argument("--annotators", "-k", type=int, default=2)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--miss", type=float, default=0.05)
    p.add_argument("--spurious", type=float, default=0.05)
    p.add_argument("--shift", type=float, default=0.05)
    p.add_argument("--label-error", type=float, default=0.05)
    p.add_argument("--formats", default=",".join(FORMATS), help="comma-separated subset of brat,conll,jsonl")
    p.add_argument("--force", action="store_true", help="regenerate even if meta.json matches")
    args = p.parse_args(argv)
    if args.docs is None and args.long is None:
        args.docs = 10000
    formats = tuple(f for f in args.formats.split(",") if f)
    bad = set(formats) - set(FORMATS)
    if bad:
        p.error(f"unknown formats: {', '.join(sorted(bad))}")
    if args.short and args.long is not None:
        p.error("--short makes many short documents: not with --long")
    meta = generate(Path(args.out), docs=args.docs, long=args.long, short=args.short, annotators=args.annotators,
                    seed=args.seed, miss=args.miss, spurious=args.spurious, shift=args.shift,
                    label_error=args.label_error, formats=formats, force=args.force)
    try:
        json.dump({k: v for k, v in meta.items() if k != "params"}, sys.stdout, indent=2)
        print()
    except BrokenPipeError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
