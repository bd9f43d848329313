"""XGBoost (hist, 100 rounds, fit on train + val) timed at nthread 1 and at every core, for
bench/ml/threads.ts: each fit `--repeats` times, the median wall time. Prints JSON.
Run: /usr/bin/python3 bench/ml/threads_ref.py --csv C --folds F --target T --task K --cores N
"""
import argparse, json, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from reference import load, make, numeric, scores  # noqa: E402  (reference pins OpenMP to 1 thread; n_jobs overrides it)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True); ap.add_argument("--task", required=True)
    ap.add_argument("--cores", type=int, required=True); ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    X, y, fold, _ = load(a.csv, a.folds, a.target, a.task)
    fit_rows, test = fold != "test", fold == "test"
    out = {}
    for threads in (1, a.cores):
        times = []
        for _ in range(a.repeats):
            model = make("xgb", a.task)
            model.set_params(n_jobs=threads)
            t = time.perf_counter(); model.fit(X[fit_rows], y[fit_rows]); times.append(time.perf_counter() - t)
        pred = model.get_booster().inplace_predict(numeric(X[test]))
        if a.task == "binary" and pred.ndim == 1:
            import numpy as np
            pred = np.column_stack([1 - pred, pred])
        out[str(threads)] = {"fit_s": statistics.median(times), "times": times, **scores(a.task, y[test], pred)}
        print(f"  xgboost nthread={threads}: {json.dumps(out[str(threads)])}", file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
