"""scikit-learn baselines for bench/causal/causal.ts, on the same generated data.

Reads a raw float64 file of row-major [n x 7] = x1, x2, c, t, y, tau, 0 (argv[1]), with argv[2] =
"binary" or "numeric"; prints JSON: per learner (naive, t_learner, s_learner) its ATE, PEHE
and fit seconds. T-learner: one HistGradientBoosting model per arm; S-learner: one model with
the treatment as a feature. Binary outcomes: classifiers, effects on the probability scale.
"""
import json
import sys
import time

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

a = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 7)
binary = sys.argv[2] == "binary"
X = a[:, :3]
t = a[:, 3]
y = a[:, 4]
tau = a[:, 5]


def model():
    kw = dict(categorical_features=[2], random_state=0)
    return HistGradientBoostingClassifier(**kw) if binary else HistGradientBoostingRegressor(**kw)


def pred(m, x):
    return m.predict_proba(x)[:, 1] if binary else m.predict(x)


out = {}
out["naive"] = {"ate": float(y[t == 1].mean() - y[t == 0].mean()), "pehe": None, "seconds": 0.0}
s = time.perf_counter()
m1 = model().fit(X[t == 1], y[t == 1])
m0 = model().fit(X[t == 0], y[t == 0])
cate = pred(m1, X) - pred(m0, X)
out["t_learner"] = {"ate": float(cate.mean()), "pehe": float(np.sqrt(np.mean((cate - tau) ** 2))), "seconds": time.perf_counter() - s}
s = time.perf_counter()
Xs = np.column_stack([X, t])
ms = model().fit(Xs, y)
cate = pred(ms, np.column_stack([X, np.ones_like(t)])) - pred(ms, np.column_stack([X, np.zeros_like(t)]))
out["s_learner"] = {"ate": float(cate.mean()), "pehe": float(np.sqrt(np.mean((cate - tau) ** 2))), "seconds": time.perf_counter() - s}
print(json.dumps(out))
