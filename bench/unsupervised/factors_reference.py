"""scikit-learn reference for bench/unsupervised/factors.ts.

Reads a JSON manifest (argv[1]): a list of {name, path, rows, cols, k, solvers, repeats}, where
path holds the standardized matrix as raw little-endian float64, row-major. For each solver
("full" or "randomized") fits sklearn's PCA `repeats` times (fastest time kept) and prints, as one
JSON object on stdout, per dataset and solver: fit seconds, explained_variance_ratio_,
explained_variance_ and the first k components_. Run single-threaded (the caller sets
OMP/OPENBLAS/MKL_NUM_THREADS=1).
"""
import json
import sys
import time

import numpy as np
import sklearn
from sklearn.decomposition import PCA


def fit(x, solver, k, repeats):
    best = float("inf")
    pca = None
    for _ in range(repeats):
        if solver == "full":
            model = PCA(svd_solver="full")
        else:
            model = PCA(n_components=k, svd_solver="randomized", random_state=0)
        t = time.perf_counter()
        model.fit(x)
        best = min(best, time.perf_counter() - t)
        pca = model
    return {
        "fit_s": best,
        "ratio": pca.explained_variance_ratio_.tolist(),
        "variance": pca.explained_variance_.tolist(),
        "components": pca.components_[:k].tolist(),
    }


def main():
    manifest = json.load(open(sys.argv[1]))
    out = {"versions": {"sklearn": sklearn.__version__, "numpy": np.__version__}, "results": {}}
    for job in manifest:
        x = np.fromfile(job["path"], dtype="<f8").reshape(job["rows"], job["cols"])
        out["results"][job["name"]] = {s: fit(x, s, job["k"], job["repeats"]) for s in job["solvers"]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
