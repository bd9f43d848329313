"""XGBoost beside bench/service/second-model-large.ts: `hist`, nthread = all cores, on the same CSV
and label, with the service model's split and stopping rule: a 10 % validation holdout (stratified,
seeded), up to 500 rounds, early stopping after 30 rounds without improvement of the validation
log loss; XGBoost's own defaults otherwise (eta 0.3, depth 6). Times reading the CSV, building
the DMatrix and the fit separately (wall and CPU). Prints one JSON object.
Usage: python3 second-model-reference.py --csv F [--label label]
"""
import argparse, json, os, time

import numpy as np
import pandas as pd
import xgboost as xgb

ap = argparse.ArgumentParser()
ap.add_argument("--csv", required=True)
ap.add_argument("--label", default="label")
a = ap.parse_args()
threads = os.cpu_count()
out = {"versions": {"xgboost": xgb.__version__, "pandas": pd.__version__}, "nthread": threads}

t = time.perf_counter()
df = pd.read_csv(a.csv)
out["read_csv_s"] = time.perf_counter() - t
classes = sorted(df[a.label].astype(str).unique())
y = (df.pop(a.label).astype(str) == classes[-1]).astype(np.int8).to_numpy()
for c in df.columns:
    if df[c].dtype == object:
        try:
            df[c] = (pd.to_datetime(df[c]) - pd.Timestamp("1970-01-01")).dt.days
            continue
        except (ValueError, TypeError):
            pass
        n = df[c].nunique()
        # high cardinality: its codes as a number (categorical splits are not meant for 10^5 levels)
        df[c] = df[c].astype("category") if n <= 1000 else df[c].astype("category").cat.codes.astype("float32")
    elif df[c].dtype == bool:
        df[c] = df[c].astype("float32")

# stratified 10 % holdout, seeded
rng = np.random.default_rng(0)
val = np.zeros(len(y), dtype=bool)
for k in (0, 1):
    idx = np.flatnonzero(y == k)
    rng.shuffle(idx)
    val[idx[: round(len(idx) * 0.1)]] = True

t = time.perf_counter()
c0 = time.process_time()
dtrain = xgb.DMatrix(df[~val], label=y[~val], enable_categorical=True, nthread=threads)
dval = xgb.DMatrix(df[val], label=y[val], enable_categorical=True, nthread=threads)
out["dmatrix_s"] = time.perf_counter() - t
params = {"tree_method": "hist", "nthread": threads, "objective": "binary:logistic", "eval_metric": "logloss"}
t = time.perf_counter()
c1 = time.process_time()
booster = xgb.train(params, dtrain, num_boost_round=500, evals=[(dval, "val")], early_stopping_rounds=30, verbose_eval=False)
out["fit_s"] = time.perf_counter() - t
out["fit_cpu_s"] = time.process_time() - c1
out["dmatrix_fit_cpu_s"] = time.process_time() - c0
out["rounds"] = booster.best_iteration + 1
out["rounds_run"] = booster.num_boosted_rounds()
p = booster.predict(dval, iteration_range=(0, booster.best_iteration + 1))
out["val_accuracy"] = float(((p > 0.5) == (y[val] == 1)).mean())
out["val_logloss"] = float(-np.mean(y[val] * np.log(np.clip(p, 1e-15, 1)) + (1 - y[val]) * np.log(np.clip(1 - p, 1e-15, 1))))
out["train_rows"] = int((~val).sum())
out["val_rows"] = int(val.sum())
print(json.dumps(out))
