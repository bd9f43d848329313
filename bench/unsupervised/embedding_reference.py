"""kNN (brute force) on the standardized features and on the embedding; prints {"std": score, "emb": score}."""
import json
import sys

import numpy as np
from sklearn.metrics import accuracy_score, r2_score
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

base = sys.argv[1]
meta = json.load(open(base + ".json"))
n = meta["n"]
y = np.fromfile(base + ".y", dtype="<f8")
train = np.array(meta["train"])
test = np.array(meta["test"])
keep_train = train[~np.isnan(y[train])]
keep_test = test[~np.isnan(y[test])]
scores = {}
for space, d in (("std", meta["d_std"]), ("emb", meta["d_emb"])):
    X = np.fromfile(base + "." + space, dtype="<f8").reshape(n, d)
    if meta["task"] == "regression":
        model = KNeighborsRegressor(n_neighbors=meta["k"], algorithm="brute").fit(X[keep_train], y[keep_train])
        scores[space] = float(r2_score(y[keep_test], model.predict(X[keep_test])))
    else:
        model = KNeighborsClassifier(n_neighbors=meta["k"], algorithm="brute").fit(X[keep_train], y[keep_train].astype(int))
        scores[space] = float(accuracy_score(y[keep_test].astype(int), model.predict(X[keep_test])))
print(json.dumps(scores))
