#!/usr/bin/python3
"""XGBoost's side of bench/ml/predict-speed.ts: fit the bench's XGBoost model (reference.py's
`xgb` variant: train + val, 100 rounds, one thread) once, print one JSON line about it, then
time one `inplace_predict` on the whole test fold (float32 codes matrix, as reference.py does)
per line read on stdin, printing the seconds (wall, then this process's CPU time): the caller interleaves these passes with the
engine's, so that both sides see the same load on this shared machine.

Usage: predict_speed.py --csv F --folds F --target COL --task regression|binary|multiclass
"""
import os
os.environ["OMP_NUM_THREADS"] = "1"  # before numpy / xgboost load OpenMP
import argparse, json, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import load, make, numeric  # noqa: E402
import time  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--task", required=True, choices=["regression", "binary", "multiclass"])
    a = ap.parse_args()
    X, y, fold, _ = load(a.csv, a.folds, a.target, a.task)
    model = make("xgb", a.task)  # n_jobs=1
    model.fit(X[fold != "test"], y[fold != "test"])
    booster = model.get_booster()
    nthread = json.loads(booster.save_config())["learner"]["generic_param"]["nthread"]
    Xt = numeric(X[fold == "test"])
    predict = lambda: booster.inplace_predict(Xt, iteration_range=(0, 100))
    predict()  # warm-up
    leaves = sum(d.count("leaf") for d in booster.get_dump())
    print(json.dumps({"test_rows": int(Xt.shape[0]), "trees": len(booster.get_dump()), "leaves": leaves,
                      "nthread": nthread}), flush=True)
    for _ in sys.stdin:
        t, c = time.perf_counter(), time.process_time(); predict()
        print(time.perf_counter() - t, time.process_time() - c, flush=True)


if __name__ == "__main__":
    main()
