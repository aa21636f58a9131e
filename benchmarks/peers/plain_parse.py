"""The practical limit: a plain-Python parse of the same files, no matching at all.

Usage: python plain_parse.py brat DIR [DIR...] | conll FILE [FILE...] | jsonl FILE [FILE...]
BRAT: for every .ann (and its .txt) read both, split lines, split fields, int() the offsets.
CoNLL: read, split lines, split fields, collect the tag of each token per sentence.
JSONL: json.loads each line, collect (start, end, label) per span.
Prints JSON with the number of documents and spans (tags for CoNLL) read.
"""
import json
import os
import sys


def parse_brat(folder):
    docs = spans = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ann"):
            continue
        with open(os.path.join(folder, name[:-4] + ".txt"), encoding="utf-8", newline="") as f:
            text = f.read()
        with open(os.path.join(folder, name), encoding="utf-8", newline="") as f:
            doc = []
            for line in f.read().split("\n"):
                if line.startswith("T"):
                    _id, mid, _text = line.split("\t", 2)
                    label, rest = mid.split(" ", 1)
                    frags = [tuple(int(x) for x in frag.split(" ")) for frag in rest.split(";")]
                    doc.append((frags, label))
        docs += 1
        spans += len(doc) + 0 * len(text)
    return docs, spans


def parse_conll(path):
    docs = tags = 0
    sentences, current = [], []
    with open(path, encoding="utf-8", newline="") as f:
        for line in f.read().split("\n"):
            if not line:
                if current:
                    sentences.append(current)
                    current = []
                continue
            fields = line.split()
            if fields[0] == "-DOCSTART-":
                docs += 1
                continue
            current.append(fields[-1])
    if current:
        sentences.append(current)
    for s in sentences:
        tags += len(s)
    return docs, tags


def parse_jsonl(path):
    docs = spans = 0
    with open(path, encoding="utf-8", newline="") as f:
        for line in f:
            rec = json.loads(line)
            doc = [(s["start"], s["end"], s["label"]) for s in rec["spans"]]
            docs += 1
            spans += len(doc)
    return docs, spans


def main(fmt, paths):
    parse = {"brat": parse_brat, "conll": parse_conll, "jsonl": parse_jsonl}[fmt]
    docs = items = 0
    for p in paths:
        d, n = parse(p)
        docs += d
        items += n
    print(json.dumps({"tool": "plain", "format": fmt, "documents": docs,
                      "tags" if fmt == "conll" else "spans": items}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
