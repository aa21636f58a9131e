"""pygamma-agreement's γ of one continuum, as its users compute it (the peer of ``agree --gamma``).

Usage: python pygamma_gamma.py FILE.csv SEED ALPHA BETA DELTA_EMPTY
Reads the CSV (``annotator,category,start,end``, no header) with ``Continuum.from_csv``, seeds
numpy, computes γ with the combined categorical dissimilarity and its default sampler and 30
samples, and prints JSON: the best alignment's disorder, its unitary alignments, the expected
disorder, γ and γ-cat.
"""
import json
import logging
import sys

import numpy as np

logging.disable(logging.WARNING)  # "CBC solver not installed. Using GLPK." once per alignment

from pygamma_agreement import CombinedCategoricalDissimilarity, Continuum  # noqa: E402

path, seed, alpha, beta, delta_empty = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:6])
np.random.seed(seed)
continuum = Continuum.from_csv(path)
dissimilarity = CombinedCategoricalDissimilarity(alpha=alpha, beta=beta, delta_empty=delta_empty)
result = continuum.compute_gamma(dissimilarity)
print(json.dumps({"disorder": float(result.observed_disorder), "alignments": result.alignments_nb,
                  "expected_disorder": float(result.expected_disorder), "gamma": float(result.gamma),
                  "gamma_cat": float(result.gamma_cat), "samples": result.n_samples}))
