"""scikit-learn reference for bench/unsupervised/search.ts.

Reads a JSON manifest (argv[1]): a list of {name, index, queries, rows, queryRows, dims, k, repeats,
out}, where `index` and `queries` hold raw little-endian float32 row-major matrices. For each job,
fits NearestNeighbors(algorithm="brute") on the index matrix and times kneighbors(queries, k)
`repeats` times (fastest kept); writes the neighbour indices (int32) then distances (float64) of
the last run to `out` and prints one JSON object on stdout with the times. Single-threaded (the
caller sets OMP/OPENBLAS/MKL_NUM_THREADS=1).
"""
import json
import sys
import time

import numpy as np
import sklearn
from sklearn.neighbors import NearestNeighbors


def run(job):
    x = np.fromfile(job["index"], dtype="<f4").reshape(job["rows"], job["dims"])
    q = np.fromfile(job["queries"], dtype="<f4").reshape(job["queryRows"], job["dims"])
    t = time.perf_counter()
    nn = NearestNeighbors(n_neighbors=job["k"], algorithm="brute").fit(x)
    fit_s = time.perf_counter() - t
    best = best_cpu = float("inf")
    for _ in range(job["repeats"]):
        t, c = time.perf_counter(), time.process_time()
        dist, ind = nn.kneighbors(q, job["k"])
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    with open(job["out"], "wb") as f:
        f.write(ind.astype("<i4").tobytes())
        f.write(dist.astype("<f8").tobytes())
    return {"fit_s": fit_s, "query_s": best, "query_cpu_s": best_cpu}


def main():
    manifest = json.load(open(sys.argv[1]))
    out = {"versions": {"sklearn": sklearn.__version__, "numpy": np.__version__}, "results": {}}
    for job in manifest:
        out["results"][job["name"]] = run(job)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
