"""seqeval: entity-level F1 of a CoNLL prediction against a CoNLL gold standard.

Usage: python seqeval_score.py GOLD.conll PRED.conll [--strict]
Reads both files here (TOKEN<TAB>...<TAB>TAG, blank line between sentences, -DOCSTART- lines
skipped), one list of tags per sentence, then calls ``seqeval.metrics.f1_score`` in its default
(conlleval-like) mode, or with ``mode="strict", scheme=IOB2``. Prints JSON.
"""
import json
import sys

from seqeval.metrics import f1_score, precision_score, recall_score


def read_conll(path):
    sentences, current = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if current:
                    sentences.append(current)
                    current = []
                continue
            fields = line.split()
            if fields[0] == "-DOCSTART-":
                continue
            current.append(fields[-1])
    if current:
        sentences.append(current)
    return sentences


def main(gold_path, pred_path, strict):
    gold, pred = read_conll(gold_path), read_conll(pred_path)
    kwargs = {}
    if strict:
        from seqeval.scheme import IOB2
        kwargs = {"mode": "strict", "scheme": IOB2}
    f1 = f1_score(gold, pred, **kwargs)
    out = {"tool": "seqeval", "mode": "strict" if strict else "default", "f1": float(f1),
           "sentences": len(gold)}
    if "--prf" in sys.argv:
        out["precision"] = float(precision_score(gold, pred, **kwargs))
        out["recall"] = float(recall_score(gold, pred, **kwargs))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--strict" in sys.argv[3:])
