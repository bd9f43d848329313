#!/usr/bin/python3
"""Reference for bench/unsupervised/anomaly.ts: scikit-learn IsolationForest, single thread, on
the exact float32 matrices our engine scores (written by the TypeScript side as raw little-endian
files). Reads one JSON job on stdin, prints one JSON object on stdout.

Job: {"seeds": [..], "n_estimators": 200, "max_samples": 256,
      "datasets": [{"name", "matrix", "rows", "cols", "fit", "evaluate", "labels"}],
      "timing": {"matrix", "rows", "cols", "repeats"} | null}
matrix: float32 [rows x cols]; fit / evaluate: int32 row indices; labels: uint8 per row.
Per dataset and seed: ROC-AUC of -score_samples on the evaluate rows (fit on the fit rows), and
the precision / recall / flagged share of sklearn's default cut (contamination="auto": score > 0.5).
Timing: score_samples on every row of the timing matrix, best of `repeats`, wall and CPU seconds.
"""
import os

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"
import json, sys, time
import numpy as np
import sklearn
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score


def load(d):
    X = np.fromfile(d["matrix"], dtype="<f4").reshape(d["rows"], d["cols"])
    return X


def main():
    job = json.load(sys.stdin)
    out = {"versions": {"sklearn": sklearn.__version__, "numpy": np.__version__}, "datasets": {}, "timing": None}
    for d in job["datasets"]:
        X = load(d)
        fit = np.fromfile(d["fit"], dtype="<i4")
        ev = np.fromfile(d["evaluate"], dtype="<i4")
        y = np.fromfile(d["labels"], dtype="u1")[ev]
        res = []
        for seed in job["seeds"]:
            f = IsolationForest(n_estimators=job["n_estimators"], max_samples=job["max_samples"], random_state=seed).fit(X[fit])
            s = -f.score_samples(X[ev])
            flag = f.predict(X[ev]) == -1
            tp = int((flag & (y == 1)).sum())
            res.append({
                "seed": seed,
                "auc": float(roc_auc_score(y, s)),
                "flagged": float(flag.mean()),
                "precision": tp / max(1, int(flag.sum())),
                "recall": tp / max(1, int(y.sum())),
            })
        out["datasets"][d["name"]] = res
    t = job.get("timing")
    if t:
        X = load(t)
        f = IsolationForest(n_estimators=job["n_estimators"], max_samples=job["max_samples"], random_state=0).fit(X)
        best_wall, best_cpu = float("inf"), float("inf")
        for _ in range(t["repeats"]):
            w, c = time.perf_counter(), time.process_time()
            s = f.score_samples(X)
            best_wall = min(best_wall, time.perf_counter() - w)
            best_cpu = min(best_cpu, time.process_time() - c)
        out["timing"] = {"rows": t["rows"], "wall_s": best_wall, "cpu_s": best_cpu, "checksum": float(s.sum())}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
