"""XGBoost beside bench/large/fit-vs-xgboost.ts: `hist` on the same CSV and label, validated on
the same rows as our model (their indices, int32, in --val-rows), up to 500 rounds, early stopping
after 30 rounds without a better validation log loss, XGBoost's own defaults otherwise (eta 0.3,
depth 6). One fit per --nthread value (a comma list). Columns as bench/service/second-model-reference.py
prepares them. Prints one JSON line per fit.
Usage: python3 fit_reference.py --csv F --val-rows F [--label label] [--nthread 1,2] [--cap-categories 254]
"""
import argparse, json, time

import numpy as np
import pandas as pd
import xgboost as xgb

ap = argparse.ArgumentParser()
ap.add_argument("--csv", required=True)
ap.add_argument("--val-rows", required=True)
ap.add_argument("--label", default="label")
ap.add_argument("--nthread", default="2")
# a diagnostic: keep only the N most frequent levels of each category column (the rest one level),
# as our bins do (254 categories at most: a feature's bins are one byte)
ap.add_argument("--cap-categories", type=int, default=0)
a = ap.parse_args()

t = time.perf_counter()
df = pd.read_csv(a.csv)
read_s = time.perf_counter() - t
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
        if n <= 1000 and a.cap_categories and n > a.cap_categories:
            keep = set(df[c].value_counts().index[: a.cap_categories])
            df[c] = df[c].where(df[c].isin(keep) | df[c].isna(), "__other__")
        df[c] = df[c].astype("category") if n <= 1000 else df[c].astype("category").cat.codes.astype("float32")
    elif df[c].dtype == bool:
        df[c] = df[c].astype("float32")

val = np.zeros(len(y), dtype=bool)
val[np.fromfile(a.val_rows, dtype=np.int32)] = True
x_train, y_train, x_val, y_val = df[~val], y[~val], df[val], y[val]
del df

for nthread in [int(n) for n in a.nthread.split(",")]:
    out = {"versions": {"xgboost": xgb.__version__, "pandas": pd.__version__}, "nthread": nthread, "read_csv_s": read_s, "cap_categories": a.cap_categories}
    t = time.perf_counter()
    c0 = time.process_time()
    dtrain = xgb.DMatrix(x_train, label=y_train, enable_categorical=True, nthread=nthread)
    dval = xgb.DMatrix(x_val, label=y_val, enable_categorical=True, nthread=nthread)
    out["dmatrix_s"] = time.perf_counter() - t
    params = {"tree_method": "hist", "nthread": nthread, "objective": "binary:logistic", "eval_metric": "logloss"}
    t = time.perf_counter()
    c1 = time.process_time()
    booster = xgb.train(params, dtrain, num_boost_round=500, evals=[(dval, "val")], early_stopping_rounds=30, verbose_eval=False)
    out["wall_s"] = time.perf_counter() - t
    out["cpu_s"] = time.process_time() - c1
    out["dmatrix_fit_cpu_s"] = time.process_time() - c0
    out["rounds"] = booster.best_iteration + 1
    out["rounds_run"] = booster.num_boosted_rounds()
    p = booster.predict(dval, iteration_range=(0, booster.best_iteration + 1))
    out["accuracy"] = float(((p > 0.5) == (y_val == 1)).mean())
    pc = np.clip(p, 1e-15, 1 - 1e-15)
    out["log_loss"] = float(-np.mean(y_val * np.log(pc) + (1 - y_val) * np.log(1 - pc)))
    out["train_rows"] = int(len(y_train))
    out["val_rows"] = int(len(y_val))
    print(json.dumps(out), flush=True)
    del dtrain, dval, booster
