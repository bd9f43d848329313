#!/usr/bin/env python3
"""The four anchors of issue 29's search benchmark on one table, fit on its fixed folds and scored
on test; prints one JSON object on stdout (progress on stderr).

  xgb_es     XGBoost hist, fit on train, early stopping on val
  hgb        scikit-learn HistGradientBoosting with its defaults, fit on train + val (it cannot be
             given our val fold; with more than 10k rows its default early stopping holds out 10%
             of what it is given, so it sees the same rows as the others)
  lgb        LightGBM with its default parameters, fit on train, early stopping on val
  lgb_optuna LightGBM tuned by Optuna: 40 TPE trials (seed 0), each fit on train and scored by
             its early-stopping loss on val; the best parameters are then refit the same way and
             that model is scored. Its time is the whole search plus the refit.

Every booster runs up to MAX_ROUNDS rounds, stopping after PATIENCE rounds without improvement
of the val loss (l2, binary or multiclass log-loss). One thread everywhere (OMP_NUM_THREADS=1,
n_jobs=1, num_threads=1): our trainer is single-threaded, so this compares equal cores.
Categoricals: pandas `category` dtype for XGBoost and LightGBM, the same codes marked in
`categorical_features` for HGB (bench/ml/reference.py's loading, reused).

Usage: anchors.py --csv F --folds F --target COL --task regression|binary|multiclass
                  [--methods xgb_es,hgb,lgb,lgb_optuna] [--trials 40] [--tune-rows N]
--tune-rows: Optuna's trials fit on a random subsample of N training rows (the refit uses all):
only for tables where the full search would take too long (see README.md).
Times: `fit_s` wall clock, `fit_cpu_s` this process's CPU time (the machine is shared).
"""
import os
os.environ["OMP_NUM_THREADS"] = "1"  # before numpy / xgboost / lightgbm load OpenMP
import argparse, json, sys, time, warnings
from pathlib import Path

import numpy as np
import lightgbm as lgb, optuna, sklearn, xgboost as xgb
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ml"))
from reference import load, numeric, scores  # noqa: E402  (same loading and metrics as bench:ml)

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

MAX_ROUNDS, PATIENCE, SEED = 2000, 50, 0


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def proba(task, p):
    """Predictions as scores() wants them: values, or an n × k class-probability matrix."""
    if task == "binary" and p.ndim == 1:
        return np.column_stack([1 - p, p])
    return p


def xgb_es(task, X, y, tr, va):
    kw = dict(tree_method="hist", enable_categorical=True, n_jobs=1, n_estimators=MAX_ROUNDS,
              early_stopping_rounds=PATIENCE, random_state=SEED)
    m = xgb.XGBRegressor(**kw) if task == "regression" else xgb.XGBClassifier(**kw)
    m.fit(X[tr], y[tr], eval_set=[(X[va], y[va])], verbose=False)
    rounds = int(m.best_iteration) + 1
    predict = m.predict if task == "regression" else m.predict_proba
    return (lambda A: predict(A, iteration_range=(0, rounds))), {"rounds": rounds}


def hgb(task, X, y, tr, va):
    cat = [X[c].dtype.name == "category" for c in X.columns]
    kw = dict(categorical_features=cat if any(cat) else None, random_state=SEED)
    m = HistGradientBoostingRegressor(**kw) if task == "regression" else HistGradientBoostingClassifier(**kw)
    rows = tr | va
    m.fit(numeric(X[rows]), y[rows])
    predict = m.predict if task == "regression" else m.predict_proba
    return (lambda A: predict(numeric(A))), {"rounds": int(m.n_iter_)}


def lgb_params(task, n_classes, extra=None):
    p = {"objective": {"regression": "regression", "binary": "binary", "multiclass": "multiclass"}[task],
         "num_threads": 1, "verbosity": -1, "seed": SEED}
    if task == "multiclass":
        p["num_class"] = n_classes
    return {**p, **(extra or {})}


def lgb_fit(params, X, y, tr, va):
    """LightGBM on the train rows, early stopping on val; returns the booster and its best val loss."""
    dtrain = lgb.Dataset(X[tr], y[tr])
    dval = lgb.Dataset(X[va], y[va], reference=dtrain)
    b = lgb.train(params, dtrain, num_boost_round=MAX_ROUNDS, valid_sets=[dval],
                  callbacks=[lgb.early_stopping(PATIENCE, verbose=False)])
    return b, next(iter(b.best_score["valid_0"].values()))


def lgb_default(task, X, y, tr, va, n_classes):
    b, _ = lgb_fit(lgb_params(task, n_classes), X, y, tr, va)
    return (lambda A: b.predict(A, num_iteration=b.best_iteration)), {"rounds": b.best_iteration}


def lgb_optuna(task, X, y, tr, va, n_classes, trials, tune_rows):
    tune_tr = tr
    if tune_rows and tr.sum() > tune_rows:  # trials on a subsample; the refit below uses all rows
        idx = np.flatnonzero(tr)
        keep = np.random.default_rng(SEED).choice(idx, tune_rows, replace=False)
        tune_tr = np.zeros_like(tr)
        tune_tr[keep] = True

    def objective(trial):
        space = {
            "learning_rate": trial.suggest_float("learning_rate", 0.01, 0.3, log=True),
            "num_leaves": trial.suggest_int("num_leaves", 8, 256, log=True),
            "max_depth": trial.suggest_int("max_depth", 3, 12),
            "min_child_samples": trial.suggest_int("min_child_samples", 5, 100, log=True),
            "lambda_l2": trial.suggest_float("lambda_l2", 1e-8, 10.0, log=True),
            "bagging_fraction": trial.suggest_float("bagging_fraction", 0.5, 1.0),
            "bagging_freq": trial.suggest_int("bagging_freq", 1, 7),
            "feature_fraction": trial.suggest_float("feature_fraction", 0.5, 1.0),
        }
        _, loss = lgb_fit(lgb_params(task, n_classes, space), X, y, tune_tr, va)
        return loss

    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=SEED))
    study.optimize(objective, n_trials=trials, n_jobs=1)
    b, _ = lgb_fit(lgb_params(task, n_classes, study.best_params), X, y, tr, va)
    info = {"rounds": b.best_iteration, "best_params": study.best_params, "trials": trials,
            "best_trial": study.best_trial.number, "best_val_loss": study.best_value,
            "tune_rows": int(tune_tr.sum())}
    return (lambda A: b.predict(A, num_iteration=b.best_iteration)), info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True); ap.add_argument("--folds", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--task", required=True, choices=["regression", "binary", "multiclass"])
    ap.add_argument("--methods", default="xgb_es,hgb,lgb,lgb_optuna")
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--tune-rows", type=int, default=0)
    a = ap.parse_args()
    X, y, fold, classes = load(a.csv, a.folds, a.target, a.task)
    tr, va, te = fold == "train", fold == "val", fold == "test"
    k = len(classes) if classes else 0
    fits = {
        "xgb_es": lambda: xgb_es(a.task, X, y, tr, va),
        "hgb": lambda: hgb(a.task, X, y, tr, va),
        "lgb": lambda: lgb_default(a.task, X, y, tr, va, k),
        "lgb_optuna": lambda: lgb_optuna(a.task, X, y, tr, va, k, a.trials, a.tune_rows),
    }
    out = {"versions": {"xgboost": xgb.__version__, "sklearn": sklearn.__version__, "lightgbm": lgb.__version__,
                        "optuna": optuna.__version__, "python": sys.version.split()[0]},
           "rows": {"train": int(tr.sum()), "val": int(va.sum()), "test": int(te.sum())}, "results": {}}
    for m in a.methods.split(","):
        (predict, info), fit_s, fit_cpu_s = timed(fits[m])
        res = {"fit_s": fit_s, "fit_cpu_s": fit_cpu_s, **info, **scores(a.task, y[te], proba(a.task, predict(X[te])))}
        out["results"][m] = res
        print(f"  {m}: {json.dumps(res)}", file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
