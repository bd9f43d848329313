#!/usr/bin/python3
"""Reference scores and timings for one dataset: XGBoost (hist) and scikit-learn
HistGradientBoosting, single thread, on the fixed folds of /work/shared/bench-data.

Protocol (as in the bench-data README): fit on train + val, 100 rounds, default parameters,
score on test. Extra row `xgb_es`: XGBoost fit on train only, early stopping on val (patience
20, up to 1000 rounds), which is what our engine does.
Categoricals: pandas `category` dtype (levels sorted) with `enable_categorical=True` for XGBoost;
the same integer codes marked in `categorical_features` for HGB. HGB runs with
early_stopping=False so that it does exactly 100 rounds.

Usage: reference.py --csv F --folds F --target COL --task regression|binary|multiclass
                    [--repeats 3] [--variants xgb,hgb,xgb_es,hgb_l2]
Prints one JSON object on stdout. Times in seconds; `predict_1` is the median of many calls.
Prediction input is a float32 numpy matrix of category codes (XGBoost: `inplace_predict`, its
fastest path); `predict_1_pandas_s` (xgb only) times the scikit-learn API on a one-row DataFrame.
"""
import os
os.environ["OMP_NUM_THREADS"] = "1"  # before numpy / xgboost / sklearn load OpenMP
import argparse, json, sys, time, warnings
import numpy as np, pandas as pd
import xgboost as xgb, sklearn
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.metrics import accuracy_score, r2_score, roc_auc_score, log_loss

warnings.filterwarnings("ignore")


def load(csv, folds, target, task):
    df = pd.read_csv(csv)
    fold = pd.read_csv(folds)["fold"].to_numpy()
    assert len(fold) == len(df), "folds file does not match the data"
    y = df.pop(target)
    classes = None
    if task != "regression":
        classes = sorted(y.astype(str).unique())
        y = y.astype(str).map({c: i for i, c in enumerate(classes)})
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].astype("category")
    return df, y.to_numpy(), fold, classes


def best_of(n, fn):
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter(); out = fn(); best = min(best, time.perf_counter() - t)
    return best, out


def best_fit(n, fn):
    """Fastest of n fits by the wall clock and by this process's CPU time (one thread: the CPU
    time is what the fit costs, without the waits a loaded machine adds)."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(n):
        t, c = time.perf_counter(), time.process_time(); fn()
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return wall, cpu


def median_call(fn, n=200):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def scores(task, y, pred):
    """pred: values (regression) or class-probability matrix."""
    if task == "regression":
        return {"r2": r2_score(y, pred)}
    out = {"accuracy": accuracy_score(y, pred.argmax(1)),
           "logloss": log_loss(y, pred, labels=list(range(pred.shape[1])))}
    if task == "binary":
        out["auc"] = roc_auc_score(y, pred[:, 1])
    return out


def make(variant, task):
    reg = task == "regression"
    if variant.startswith("xgb"):
        kw = dict(tree_method="hist", enable_categorical=True, n_jobs=1)
        if variant == "xgb":
            kw["n_estimators"] = 100
        else:
            kw.update(n_estimators=1000, early_stopping_rounds=20)
        return xgb.XGBRegressor(**kw) if reg else xgb.XGBClassifier(**kw)
    kw = dict(max_iter=100, early_stopping=False, categorical_features=None, random_state=0)
    if variant == "hgb_l2":
        kw["l2_regularization"] = 1.0
    return HistGradientBoostingRegressor(**kw) if reg else HistGradientBoostingClassifier(**kw)


def numeric(X):
    """Category codes (NaN = missing) as a float32 matrix: what HGB needs, and XGBoost's fastest
    prediction input (the booster knows which features are categorical)."""
    cols = [X[c].cat.codes.replace(-1, np.nan) if X[c].dtype.name == "category" else X[c] for c in X.columns]
    return np.column_stack(cols).astype(np.float32)


def run(variant, task, X, y, fold, repeats):
    test = fold == "test"
    fit_rows = fold == "train" if variant == "xgb_es" else fold != "test"
    model = make(variant, task)
    fit_kw = {}
    if variant.startswith("hgb"):
        cat = [X[c].dtype.name == "category" for c in X.columns]
        model.set_params(categorical_features=cat if any(cat) else None)
        Xf = numeric(X[fit_rows])
    else:
        Xf = X[fit_rows]
        if variant == "xgb_es":
            fit_kw = dict(eval_set=[(X[fold == "val"], y[fold == "val"])], verbose=False)
    fit_s, fit_cpu_s = best_fit(repeats, lambda: model.fit(Xf, y[fit_rows], **fit_kw))
    if variant.startswith("xgb"):
        rounds = int(model.best_iteration) + 1 if variant == "xgb_es" else 100
        booster = model.get_booster()
        predict = lambda A: booster.inplace_predict(A, iteration_range=(0, rounds))
    else:
        rounds = int(model.n_iter_)
        predict = model.predict if task == "regression" else model.predict_proba
    Xt = numeric(X[test])
    pred_all_s, pred = best_of(repeats, lambda: predict(Xt))
    pred_1000_s, _ = best_of(max(repeats, 5), lambda: predict(Xt[:1000]))
    X1 = Xt[:1]
    extra = {}
    if variant == "xgb":  # what a pandas user sees: the sklearn API on a one-row DataFrame
        sk_predict = model.predict if task == "regression" else model.predict_proba
        X1df = X[test].iloc[:1]
        extra["predict_1_pandas_s"] = median_call(lambda: sk_predict(X1df), 100)
    if task == "binary" and pred.ndim == 1:
        pred = np.column_stack([1 - pred, pred])
    return {"fit_s": fit_s, "fit_cpu_s": fit_cpu_s, "rounds": rounds,
            "predict_1_s": median_call(lambda: predict(X1), 100 if repeats < 3 else 300),
            "predict_1000_s": pred_1000_s, "predict_all_s": pred_all_s, "test_rows": int(test.sum()),
            **extra, **scores(task, y[test], pred)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--task", required=True, choices=["regression", "binary", "multiclass"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--variants", default="xgb,hgb,xgb_es")
    a = ap.parse_args()
    X, y, fold, _ = load(a.csv, a.folds, a.target, a.task)
    out = {"versions": {"xgboost": xgb.__version__, "sklearn": sklearn.__version__,
                        "python": sys.version.split()[0]}, "results": {}}
    for v in a.variants.split(","):
        out["results"][v] = run(v, a.task, X, y, fold, a.repeats)
        print(f"  {v}: {json.dumps(out['results'][v])}", file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
