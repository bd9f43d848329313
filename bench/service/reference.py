#!/usr/bin/python3
"""XGBoost reference for the service benchmark (bench/service/run.ts), in-process, one thread.

Fit: XGBoost defaults (tree_method hist), 100 rounds, n_jobs=1, on the whole table the service
was given (every row of the CSV, as uploaded), categoricals as pandas `category` (levels sorted)
with enable_categorical=True, as bench/ml/reference.py does. Fastest of --fit-repeats fits.

Predict (only with --sizes): the first n rows of the test fold, label dropped, each call timed
with perf_counter after --warmup calls, --calls calls per size:
  inplace    booster.inplace_predict on a prepared float32 numpy matrix (category codes) — its
             fastest path, nothing but the trees;
  pandas     XGBClassifier.predict_proba on a pandas DataFrame with the training categories —
             what a Python user typically calls;
  pandas_csv pd.read_csv of the same CSV text the service receives, categories set to the
             training levels, then predict_proba — the closest in-process analogue of our path
             (CSV parsing + prediction), still without HTTP.

Usage: reference.py --csv F --folds F --target COL --task binary|regression [--fit-repeats 3]
                    [--sizes 1,100,10000 --calls 500,200,30 --warmup 20]
Prints one JSON object on stdout; times in milliseconds except fit (seconds).
"""
import os
os.environ["OMP_NUM_THREADS"] = "1"  # before numpy / xgboost load OpenMP
import argparse, io, json, sys, time, warnings
import numpy as np, pandas as pd
import xgboost as xgb, sklearn

warnings.filterwarnings("ignore")


def stats(ts):
    a = np.sort(np.asarray(ts) * 1000.0)
    n = len(a)
    rank = lambda p: float(a[min(n - 1, max(0, int(np.ceil(p * n)) - 1))])
    return {"n": n, "p50": rank(0.5), "p99": rank(0.99), "mean": float(a.mean()), "min": float(a[0]), "max": float(a[-1])}


def timed(fn, calls, warmup):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(calls):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return stats(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--task", required=True, choices=["binary", "regression"])
    ap.add_argument("--fit-repeats", type=int, default=3)
    ap.add_argument("--sizes", default=""); ap.add_argument("--calls", default="")
    ap.add_argument("--warmup", type=int, default=20)
    a = ap.parse_args()

    df = pd.read_csv(a.csv)
    fold = pd.read_csv(a.folds)["fold"].to_numpy()
    assert len(fold) == len(df), "folds file does not match the data"
    y = df.pop(a.target)
    if a.task == "binary":
        classes = sorted(y.astype(str).unique())
        y = y.astype(str).map({c: i for i, c in enumerate(classes)})
    y = y.to_numpy()
    cats = {}
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].astype("category")
            cats[c] = list(df[c].cat.categories)

    kw = dict(tree_method="hist", enable_categorical=True, n_jobs=1, n_estimators=100)
    model = xgb.XGBRegressor(**kw) if a.task == "regression" else xgb.XGBClassifier(**kw)
    fits = []
    for _ in range(a.fit_repeats):
        t = time.perf_counter(); model.fit(df, y); fits.append(time.perf_counter() - t)
    out = {"versions": {"xgboost": xgb.__version__, "sklearn": sklearn.__version__, "pandas": pd.__version__,
                        "numpy": np.__version__, "python": sys.version.split()[0]},
           "fit": {"rows": int(len(df)), "columns": int(df.shape[1]), "rounds": 100, "best_s": min(fits), "all_s": fits},
           "predict": {}}
    print(f"  xgboost fit {a.csv}: {', '.join(f'{f:.2f}' for f in fits)} s", file=sys.stderr, flush=True)

    if a.sizes:
        booster = model.get_booster()
        sk = model.predict if a.task == "regression" else model.predict_proba
        test = df[fold == "test"]
        codes = np.column_stack([test[c].cat.codes.replace(-1, np.nan) if c in cats else test[c]
                                 for c in test.columns]).astype(np.float32)
        # The CSV text the service gets: header + the same rows, label dropped.
        raw = pd.read_csv(a.csv)
        raw = raw[fold == "test"].drop(columns=[a.target])
        dtypes = {c: pd.CategoricalDtype(cats[c]) for c in cats}

        def from_csv(text):
            X = pd.read_csv(io.StringIO(text))
            for c, d in dtypes.items():
                X[c] = X[c].astype(d)
            return sk(X)

        for n, calls in zip(map(int, a.sizes.split(",")), map(int, a.calls.split(","))):
            A, D = codes[:n], test.iloc[:n]
            text = raw.iloc[:n].to_csv(index=False)
            out["predict"][str(n)] = {
                "inplace": timed(lambda: booster.inplace_predict(A), calls, a.warmup),
                "pandas": timed(lambda: sk(D), calls, a.warmup),
                "pandas_csv": timed(lambda: from_csv(text), calls, a.warmup),
            }
            print(f"  xgboost predict {n} rows: " + json.dumps({k: round(v["p50"], 3) for k, v in out["predict"][str(n)].items()}),
                  file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
