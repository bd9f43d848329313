#!/usr/bin/python3
"""XGBoost's side of bench/ml/predict-speed.ts: fit the bench's XGBoost model (reference.py's
`xgb` variant: train + val, 100 rounds, one thread) once, print one JSON line about it, then
time one `inplace_predict` on the whole test fold (float32 codes matrix, as reference.py does)
per line read on stdin, printing the seconds (wall, then this process's CPU time): the caller interleaves these passes with the
engine's, so that both sides see the same load on this shared machine.
--shapes: a JSON list of engine model shapes ({rounds, maxLeaves, maxDepth, learningRate}); for
each, an XGBoost model of that shape is fit on the same rows (hist, grow_policy=lossguide,
max_leaves, max_depth, learning_rate, that many rounds) and timed in the same pass, after the
reference model: a pass prints wall and CPU seconds of the reference, then of each shape.

Usage: predict_speed.py --csv F --folds F --target COL --task regression|binary|multiclass [--shapes JSON]
"""
import os
os.environ["OMP_NUM_THREADS"] = "1"  # before numpy / xgboost load OpenMP
import argparse, json, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import load, make, numeric  # noqa: E402
import time  # noqa: E402
import xgboost as xgb  # noqa: E402


def shaped(task, shape):
    """An XGBoost model of an engine model's shape (see the module docstring)."""
    kw = dict(tree_method="hist", enable_categorical=True, n_jobs=1, grow_policy="lossguide",
              n_estimators=shape["rounds"], max_leaves=shape["maxLeaves"], max_depth=shape["maxDepth"],
              learning_rate=shape["learningRate"])
    return xgb.XGBRegressor(**kw) if task == "regression" else xgb.XGBClassifier(**kw)


def timed(fn):
    t, c = time.perf_counter(), time.process_time(); fn()
    return time.perf_counter() - t, time.process_time() - c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--task", required=True, choices=["regression", "binary", "multiclass"])
    ap.add_argument("--shapes", default="[]")
    a = ap.parse_args()
    X, y, fold, _ = load(a.csv, a.folds, a.target, a.task)
    fit = fold != "test"
    models = [make("xgb", a.task)] + [shaped(a.task, s) for s in json.loads(a.shapes)]  # n_jobs=1
    for model in models:
        model.fit(X[fit], y[fit])
    boosters = [m.get_booster() for m in models]
    nthread = json.loads(boosters[0].save_config())["learner"]["generic_param"]["nthread"]
    Xt = numeric(X[fold == "test"])
    predicts = [lambda b=b: b.inplace_predict(Xt, iteration_range=(0, b.num_boosted_rounds())) for b in boosters]
    for p in predicts:
        p()  # warm-up
    info = [{"trees": len(b.get_dump()), "leaves": sum(d.count("leaf") for d in b.get_dump())} for b in boosters]
    print(json.dumps({"test_rows": int(Xt.shape[0]), **info[0], "shaped": info[1:], "nthread": nthread}), flush=True)
    for _ in sys.stdin:
        print(" ".join(f"{w} {c}" for w, c in map(timed, predicts)), flush=True)


if __name__ == "__main__":
    main()
