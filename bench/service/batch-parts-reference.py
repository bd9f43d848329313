#!/usr/bin/python3
"""XGBoost reference for the batch-parts benchmark (bench/service/batch-parts.ts).

The same work as the service's batch, in one Python process: a model fitted on the small table
(XGBoost defaults, 100 rounds, categoricals as pandas `category`, enable_categorical=True), then
the large table read from CSV, scored (predict_proba) and written back as CSV (pandas to_csv).
--jobs 1 and 2: XGBoost's threads (n_jobs / nthread for the prediction). Prints one JSON object:
seconds of read, predict, write, and their total, per thread count.

Usage: batch-parts-reference.py --train F --score F --target COL
"""
import os
import argparse, json, tempfile, time, warnings
import pandas as pd
import xgboost as xgb

warnings.filterwarnings("ignore")

p = argparse.ArgumentParser()
p.add_argument("--train", required=True)
p.add_argument("--score", required=True)
p.add_argument("--target", required=True)
a = p.parse_args()

train = pd.read_csv(a.train)
y = (train.pop(a.target) == "yes").astype(int)
cats = {c: sorted(train[c].unique()) for c in train.columns if train[c].dtype == object}
for c, levels in cats.items():
    train[c] = pd.Categorical(train[c], categories=levels)

out = {"xgboost": xgb.__version__, "pandas": pd.__version__}
for jobs in (1, 2):
    model = xgb.XGBClassifier(n_estimators=100, tree_method="hist", enable_categorical=True, n_jobs=jobs)
    model.fit(train, y)
    t0 = time.perf_counter()
    x = pd.read_csv(a.score)
    x.pop(a.target)
    for c, levels in cats.items():
        x[c] = pd.Categorical(x[c], categories=levels)
    t1 = time.perf_counter()
    prob = model.predict_proba(x)[:, 1]
    t2 = time.perf_counter()
    res = pd.DataFrame({"id": range(len(x)), "prediction": ["yes" if q >= 0.5 else "no" for q in prob], "prediction_prob": prob})
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        res.to_csv(f.name, index=False)
    t3 = time.perf_counter()
    out[f"jobs_{jobs}"] = {"read_s": t1 - t0, "predict_s": t2 - t1, "write_s": t3 - t2, "total_s": t3 - t0}
print(json.dumps(out))
