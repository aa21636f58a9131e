"""bratiaa: instance-level (exact span + label) F1 agreement over a brat project.

Usage: python bratiaa_agree.py PROJECT_ROOT
PROJECT_ROOT holds one sub-folder per annotator and an annotation.conf listing the entity types.
Prints JSON: the mean F1 over annotator pairs (= the pair's F1 with two annotators), its SD, and
the raw counts of bratiaa's count cube.
"""
import json
import sys

from bratiaa import compute_f1_agreement


def main(root):
    f1 = compute_f1_agreement(root)
    mean, sd = f1.mean_sd_total()
    cube = f1._pdcl.sum(axis=(1, 3))  # (pairs, [tp, 2tp+fp+fn])
    print(json.dumps({"tool": "bratiaa", "f1": float(mean), "sd": float(sd),
                      "annotators": f1.annotators, "documents": len(f1.documents),
                      "tp": float(cube[0][0]), "total": float(cube[0][1])}))


if __name__ == "__main__":
    main(sys.argv[1])
