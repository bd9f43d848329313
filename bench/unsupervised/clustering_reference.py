"""scikit-learn reference for bench/unsupervised/clustering.ts.

Serves jobs: reads one JSON job per line on stdin, answers one JSON line on stdout (so the
benchmark can interleave our runs and these, and both see the same load on a shared machine).
The first line out gives the versions. Each job is on a matrix stored as raw little-endian
float64, row-major (`path`, `rows`, `cols`):
- {"kind": "fit", name, path, rows, cols, k, n_init, algorithm, seeds, repeats, labels?}:
  KMeans(n_clusters=k, init="k-means++", n_init, algorithm, max_iter=300, tol=1e-4,
  random_state=seed) for each seed; the first seed is fitted `repeats` times (fastest wall and
  CPU time kept). Reports per seed: inertia, n_iter_, and the adjusted Rand index against
  `labels` (raw little-endian int32) when given.
- {"kind": "silhouette", name, path, rows, cols, labels}: silhouette_score(X, labels).
Run single-threaded (the caller sets OMP/OPENBLAS/MKL_NUM_THREADS=1).
"""
import json
import sys
import time

import numpy as np
import sklearn
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score


def load(job):
    return np.fromfile(job["path"], dtype="<f8").reshape(job["rows"], job["cols"])


def labels_of(job):
    return np.fromfile(job["labels"], dtype="<i4") if job.get("labels") else None


def fit(job):
    x = load(job)
    y = labels_of(job)
    runs = []
    best_wall = best_cpu = float("inf")
    for i, seed in enumerate(job["seeds"]):
        for _ in range(job["repeats"] if i == 0 else 1):
            model = KMeans(
                n_clusters=job["k"], init="k-means++", n_init=job["n_init"], algorithm=job["algorithm"],
                max_iter=300, tol=1e-4, random_state=seed,
            )
            wall, cpu = time.perf_counter(), time.process_time()
            model.fit(x)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if i == 0:
                best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        run = {"seed": seed, "inertia": float(model.inertia_), "n_iter": int(model.n_iter_)}
        if y is not None:
            run["ari"] = float(adjusted_rand_score(y, model.labels_))
        runs.append(run)
    return {"wall_s": best_wall, "cpu_s": best_cpu, "runs": runs}


def main():
    print(json.dumps({"scikit-learn": sklearn.__version__, "numpy": np.__version__}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if job["kind"] == "fit":
            out = fit(job)
        else:
            out = {"silhouette": float(silhouette_score(load(job), labels_of(job)))}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
