"""References for bench/large/run.ts on the same files, in one process per call:
pandas read_csv (and read_parquet when pyarrow or fastparquet is importable), and XGBoost
`hist` single-thread (nthread=1), 100 rounds, on the rows the service trained on (a seeded
random fraction). Prints one JSON object.
Usage: python3 reference.py --csv F [--parquet F] [--train-frac 0.9] [--rounds 100] [--no-xgb]
"""
import argparse, json, resource, time

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--csv", required=True)
ap.add_argument("--parquet")
ap.add_argument("--train-frac", type=float, default=0.9)
ap.add_argument("--rounds", type=int, default=100)
ap.add_argument("--no-xgb", action="store_true")
a = ap.parse_args()
out = {"versions": {"pandas": pd.__version__, "numpy": np.__version__}}

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

t = time.perf_counter()
df = pd.read_csv(a.csv)
out["read_csv_s"] = time.perf_counter() - t
out["read_csv_peak_rss_mb"] = peak_mb()
out["rows"] = len(df)

if a.parquet:
    try:
        t = time.perf_counter()
        pq = pd.read_parquet(a.parquet)
        out["read_parquet_s"] = time.perf_counter() - t
        del pq
    except ImportError as e:
        out["read_parquet_error"] = str(e).splitlines()[0]

if not a.no_xgb:
    import xgboost as xgb
    out["versions"]["xgboost"] = xgb.__version__
    y = (df.pop("label") == "yes").astype(np.int8).to_numpy()
    df["signup"] = (pd.to_datetime(df["signup"]) - pd.Timestamp("1970-01-01")).dt.days
    df["active"] = df["active"].astype("float32")
    for c in ["plan", "region", "channel"]:
        df[c] = df[c].astype("category")
    # high cardinality: its codes as a number (XGBoost's categorical splits are not meant for 10^6 levels)
    df["user"] = df["user"].astype("category").cat.codes.astype("float32")
    rng = np.random.default_rng(0)
    train = rng.random(len(df)) < a.train_frac
    t = time.perf_counter()
    dtrain = xgb.DMatrix(df[train], label=y[train], enable_categorical=True, nthread=1)
    dval = xgb.DMatrix(df[~train], label=y[~train], enable_categorical=True, nthread=1)
    out["dmatrix_s"] = time.perf_counter() - t
    params = {"tree_method": "hist", "nthread": 1, "objective": "binary:logistic", "eval_metric": "logloss"}
    t = time.perf_counter()
    c0 = time.process_time()
    booster = xgb.train(params, dtrain, num_boost_round=a.rounds)
    out["xgb_fit_s"] = time.perf_counter() - t
    out["xgb_fit_cpu_s"] = time.process_time() - c0
    p = booster.predict(dval)
    out["xgb_val_accuracy"] = float(((p > 0.5) == (y[~train] == 1)).mean())
    out["xgb_train_rows"] = int(train.sum())
    out["xgb_rounds"] = a.rounds
    out["peak_rss_mb"] = peak_mb()
print(json.dumps(out))
