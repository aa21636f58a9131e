"""nervaluate: the four schemes (strict, exact, partial, ent_type) on JSONL span files.

Usage: python nervaluate_score.py GOLD.jsonl PRED.jsonl
Reads both files here (``{"id","text","spans":[{"start","end","label"}]}`` per line), pairs the
documents by id in the gold's order, converts each span to nervaluate's dict shape and calls
``Evaluator(true, pred, tags=LABELS, loader="dict").evaluate()`` once (it computes all four
schemes). nervaluate treats ``end`` as inclusive (its loaders produce inclusive token ends), so
the half-open character ``end`` is passed as ``end - 1``; without this, touching spans would
count as overlapping under partial/ent_type. Prints JSON with each scheme's counts and F1.
"""
import json
import sys

from nervaluate import Evaluator


def read_jsonl(path):
    docs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                docs[rec["id"]] = [{"label": s["label"], "start": s["start"], "end": s["end"] - 1}
                                   for s in rec["spans"]]
    return docs


def main(gold_path, pred_path):
    gold, pred = read_jsonl(gold_path), read_jsonl(pred_path)
    ids = list(gold)
    true = [gold[i] for i in ids]
    predicted = [pred.get(i, []) for i in ids]
    tags = sorted({s["label"] for doc in true + predicted for s in doc})
    results = Evaluator(true, predicted, tags=tags, loader="dict").evaluate()
    out = {"tool": "nervaluate", "documents": len(ids), "tags": tags}
    for scheme, r in results["overall"].items():
        out[scheme] = {k: getattr(r, k) for k in ("correct", "incorrect", "partial", "missed",
                                                   "spurious", "precision", "recall", "f1")}
    out["f1"] = out["strict"]["f1"]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
