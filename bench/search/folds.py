#!/usr/bin/python3
"""Writes NAME.folds.csv beside each NAME.csv in bench/search/data/: the shared bench-data's
protocol, which these two calls reproduce exactly (checked against lending_club and cps1988):
test = 20% of the rows, val = 10% of the rest, the remaining 72% train, seed 0.
Run from the repository root: /usr/bin/python3 bench/search/folds.py
"""
import glob, os
import numpy as np, pandas as pd
from sklearn.model_selection import train_test_split

for csv in sorted(glob.glob("bench/search/data/*.csv")):
    if csv.endswith(".folds.csv"):
        continue
    n = len(pd.read_csv(csv))
    rest, test = train_test_split(np.arange(n), test_size=0.2, random_state=0)
    train, val = train_test_split(rest, test_size=0.1, random_state=0)
    fold = np.full(n, "train", dtype=object)
    fold[test], fold[val] = "test", "val"
    pd.DataFrame({"fold": fold}).to_csv(csv.replace(".csv", ".folds.csv"), index=False)
    print(f"{os.path.basename(csv)}: {len(train)} train, {len(val)} val, {len(test)} test")
