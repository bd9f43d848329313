"""Selection rules for the causal model's CATE, compared offline on captures of ./capture.ts.

Per replication: the rules read the candidates' out-of-fold CATE (O), the cross-fitted pseudo-
outcomes phi and overlap weights w (and mu, e for the R-loss), and pick convex weights; the
served effect of a mix is the same mix of the fixed learners' served effects (plus the AIPW ATE
for the constant candidate "+c"). Prints per benchmark each fixed learner's and each rule's
sqrt(PEHE), mean +- se, the gap to the best fixed learner (paired, +- se) and how many
replications the rule is <= every fixed learner; then each rule's relative gap per benchmark.
`grid` is the engine's rule before (a 0.1 grid over the four learners, ties to the single best);
`bagstack+c/r20` the rule after (src/ml/causal/select.ts).

    python3 bench/causal/selection/rules.py [--table] '/tmp/cap/[ABCD]-1000-1??.json' ...
"""
import json, glob, sys, itertools
import numpy as np
from scipy.optimize import nnls, minimize

L = ["t", "s", "x", "dr"]

def load(pattern):
    out = []
    for f in sorted(glob.glob(pattern)):
        d = json.load(open(f))
        a = d["arms"][0]
        r = dict(
            suite=d["suite"], rep=d["rep"], tau=np.array(d["tau"]),
            eff={l: np.array(d["effects"][l]) for l in ["auto"] + L},
            O=np.array([a["oof"][l] for l in L]).T,  # n x 4
            phi=np.array(a["phi"]), w=np.array(a["weight"]), fold=np.array(d["fold"]),
            rows=np.array(d["rows"]), served=d["served"], seconds=d["seconds"],
        )
        mu = np.array(d["mu"]).reshape(-1, 2); e = np.array(d["e"]).reshape(-1, 2)
        r["mu"] = mu; r["e"] = e[:, 1]
        t = np.array(d["t"])[r["rows"]]; y = np.array(d["y"])[r["rows"]]
        r["t"] = t; r["y"] = y
        out.append(r)
    return out

def dr_loss(tau, r, idx=None):
    if idx is None: idx = slice(None)
    return np.sum(r["w"][idx] * (r["phi"][idx] - tau[idx]) ** 2) / np.sum(r["w"][idx])

GRID = [np.array(c) / 10 for c in itertools.product(range(11), repeat=4) if sum(c) == 10]

def grid_pick(O, phi, w):
    best = None; bl = np.inf
    # best single first (ties keep single, as in select.ts)
    for i in range(4):
        l = np.sum(w * (phi - O[:, i]) ** 2)
        if l < bl: bl = l; best = np.eye(4)[i]
    for c in GRID:
        if np.count_nonzero(c) < 2: continue
        l = np.sum(w * (phi - O @ c) ** 2)
        if l < bl: bl = l; best = c
    return best

def convex_stack(O, target, w):
    # min sum w (target - O c)^2, c >= 0, sum c = 1: substitute via heavy augmented row for sum constraint
    sw = np.sqrt(w)
    A = O * sw[:, None]; b = target * sw
    big = 1e3 * np.sqrt(np.sum(w))
    A2 = np.vstack([A, big * np.ones((1, 4))]); b2 = np.concatenate([b, [big]])
    c, _ = nnls(A2, b2)
    return c / c.sum()

def nnls_free(O, target, w):
    sw = np.sqrt(w)
    c, _ = nnls(O * sw[:, None], target * sw)
    return c

def r_target(r, clip=(0.01, 0.99)):
    e = np.clip(r["e"], *clip)
    m = e * r["mu"][:, 1] + (1 - e) * r["mu"][:, 0]
    res_t = r["t"] - e
    # R-loss sum ((y-m) - res_t tau)^2 = sum res_t^2 ((y-m)/res_t - tau)^2
    return (r["y"] - m) / res_t, res_t ** 2

def rules(r):
    O, phi, w, fold = r["O"], r["phi"], r["w"], r["fold"]
    out = {}
    out["grid"] = grid_pick(O, phi, w)
    losses = np.array([np.sum(w * (phi - O[:, i]) ** 2) for i in range(4)])
    out["single"] = np.eye(4)[np.argmin(losses)]
    out["equal"] = np.ones(4) / 4
    cs = convex_stack(O, phi, w); out["stack"] = cs
    out["nnls"] = nnls_free(O, phi, w)
    fw = np.mean([convex_stack(O[fold == f], phi[fold == f], w[fold == f]) for f in np.unique(fold)], axis=0)
    out["stack_foldavg"] = fw
    fg = np.mean([grid_pick(O[fold == f], phi[fold == f], w[fold == f]) for f in np.unique(fold)], axis=0)
    out["grid_foldavg"] = fg
    rt, rw = r_target(r)
    out["rstack"] = convex_stack(O, rt, rw)
    rl = np.array([np.sum(rw * (rt - O[:, i]) ** 2) for i in range(4)])
    out["rsingle"] = np.eye(4)[np.argmin(rl)]
    out["dr+r stack"] = (cs + out["rstack"]) / 2
    for lam in (0.25, 0.5, 0.75):
        out[f"shrink{lam}"] = lam * cs + (1 - lam) * out["equal"]
    # bagged convex stack (bootstrap rows)
    rng = np.random.default_rng(r["rep"])
    n = len(phi)
    bs = []
    for _ in range(30):
        i = rng.integers(0, n, n)
        bs.append(convex_stack(O[i], phi[i], w[i]))
    out["bagstack"] = np.mean(bs, axis=0)
    # confidence set: learners not significantly worse than the best (paired per-row loss diff), equal weights
    sq = w[:, None] * (phi[:, None] - O) ** 2
    b = np.argmin(losses)
    for z in (1.0, 2.0):
        keep = []
        for i in range(4):
            d = sq[:, i] - sq[:, b]
            m = d.mean(); s = d.std(ddof=1) / np.sqrt(n) if i != b else 1
            keep.append(i == b or m <= z * s)
        k = np.array(keep, float)
        out[f"mcs{z}"] = k / k.sum()
        # stack over the kept, shrunk to their equal blend
        Ok = O[:, k > 0]
        ck = convex_stack_k(Ok, phi, w)
        cfull = np.zeros(4); cfull[k > 0] = ck
        out[f"mcs{z}+stack/2"] = (cfull + k / k.sum()) / 2
    # a constant candidate: the mean of phi outside the fold (served: the mean over all rows, the AIPW ATE)
    c_oof = np.zeros(n)
    for f in np.unique(fold):
        c_oof[fold == f] = phi[fold != f].mean()
    O5 = np.column_stack([O, c_oof])
    for name, tgt, ww in (("stack+c", phi, w), ("rstack+c", rt, rw)):
        c5 = convex_stack_k(O5, tgt, ww)
        out[name] = ("c", c5)
    c5 = convex_stack_k(O5, phi, w)
    out["shrink0.5+c"] = ("c", 0.5 * c5 + 0.5 * np.ones(5) / 5)
    for a in (0.0, 0.5):
        wa = w ** a
        out[f"stack+c w^{a}"] = ("c", convex_stack_k(O5, phi, wa))
    bs5 = []
    for _ in range(30):
        i = rng.integers(0, n, n)
        bs5.append(convex_stack_k(O5[i], phi[i], w[i]))
    out["bagstack+c"] = ("c", np.mean(bs5, axis=0))
    return out

def convex_stack_k(O, target, w):
    k = O.shape[1]
    if k == 1: return np.ones(1)
    sw = np.sqrt(w)
    A = O * sw[:, None]; b = target * sw
    big = 1e3 * np.sqrt(np.sum(w))
    c, _ = nnls(np.vstack([A, big * np.ones((1, k))]), np.concatenate([b, [big]]))
    return c / c.sum()

def round_w(c, steps):
    c = np.asarray(c, float)
    f = np.floor(c * steps)
    left = int(round(steps - f.sum()))
    order = np.argsort(-(c * steps - f), kind="stable")
    for i in order[:left]: f[i] += 1
    return f / steps

def pehe(eff, tau): return np.sqrt(np.mean((eff - tau) ** 2))

def evaluate(reps):
    by = {}
    for r in reps:
        E = np.array([r["eff"][l] for l in L]).T
        res = {l: pehe(r["eff"][l], r["tau"]) for l in L}
        res["auto(run)"] = pehe(r["eff"]["auto"], r["tau"])
        res["oracle-single"] = min(res[l] for l in L)
        E5 = np.column_stack([E, np.full(len(r["tau"]), r["phi"].mean())])
        for k, c in rules(r).items():
            res[k] = pehe(E5 @ c[1], r["tau"]) if isinstance(c, tuple) else pehe(E @ c, r["tau"])
            if k in ("bagstack+c", "stack+c"):
                res[k + "/r20"] = pehe(E5 @ round_w(c[1], 20), r["tau"])
        by.setdefault(r["suite"], []).append(res)
    return by

def report(by):
    names = None
    summary = {}
    for suite, rs in by.items():
        names = list(rs[0].keys())
        M = {k: np.array([x[k] for x in rs]) for k in names}
        best_fixed = min(L, key=lambda l: M[l].mean())
        print(f"\n== {suite} (reps {len(rs)}), best fixed {best_fixed} {M[best_fixed].mean():.3f}")
        for k in names:
            d = M[k] - M[best_fixed]
            bf = np.min(np.array([M[l] for l in L]), axis=0)
            wins = np.sum(M[k] <= bf + 1e-12)
            print(f"  {k:16s} {M[k].mean():.3f} ± {M[k].std(ddof=1)/np.sqrt(len(rs)):.3f}  vs best fixed {d.mean():+.3f} ± {d.std(ddof=1)/np.sqrt(len(rs)):.3f}  (≤ all fixed {wins}/{len(rs)})")
            summary.setdefault(k, []).append(d.mean() / M[best_fixed].mean())
    print("\n== relative gap to best fixed (mean over suites, max over suites)")
    for k, v in sorted(summary.items(), key=lambda kv: max(kv[1])):
        print(f"  {k:16s} mean {np.mean(v):+.3f}  max {np.max(v):+.3f}  " + " ".join(f"{x:+.3f}" for x in v))

def table(by, rules_shown=("grid", "stack", "rstack", "bagstack", "stack+c", "bagstack+c/r20")):
    print("| benchmark | reps | T / S / X / DR | best fixed | " + " | ".join(f"{k}: gap to best fixed (≤ all fixed)" for k in rules_shown) + " |")
    print("|---|---|---|---|" + "---|" * len(rules_shown))
    for suite, rs in by.items():
        n = len(rs)
        M = {k: np.array([x[k] for x in rs]) for k in rs[0]}
        se = lambda v: v.std(ddof=1) / np.sqrt(n)
        bf = min(L, key=lambda l: M[l].mean())
        low = np.min(np.array([M[l] for l in L]), axis=0)
        cells = []
        for k in rules_shown:
            d = M[k] - M[bf]
            cells.append(f"{M[k].mean():.3f} ± {se(M[k]):.3f}: {d.mean():+.3f} ± {se(d):.3f} ({int(np.sum(M[k] <= low + 1e-12))}/{n})")
        fixed = " / ".join(f"{M[l].mean():.3f}" for l in L)
        print(f"| {suite} | {n} | {fixed} | {bf.upper()} {M[bf].mean():.3f} ± {se(M[bf]):.3f} | " + " | ".join(cells) + " |")

def gaps(by, rules_shown):
    """One line per benchmark: each rule's paired gap to the best fixed learner, mean ± se."""
    print("| benchmark | reps | " + " | ".join(rules_shown) + " |")
    print("|---|---|" + "---|" * len(rules_shown))
    for suite, rs in by.items():
        n = len(rs)
        M = {k: np.array([x[k] for x in rs]) for k in rs[0]}
        bf = min(L, key=lambda l: M[l].mean())
        cells = [f"{(M[k] - M[bf]).mean():+.3f} ± {(M[k] - M[bf]).std(ddof=1) / np.sqrt(n):.3f}" for k in rules_shown]
        print(f"| {suite} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    by = {}
    for pattern in sys.argv[1:]:
        if not pattern.startswith("--"):
            for k, v in evaluate(load(pattern)).items(): by.setdefault(k, []).extend(v)
    if "--table" in sys.argv:
        table(by)
    elif "--gaps" in sys.argv:
        gaps(by, ["grid", "single", "equal", "stack", "rstack", "stack_foldavg", "shrink0.5", "bagstack", "mcs1.0", "stack+c", "rstack+c", "bagstack+c/r20"])
    else:
        report(by)


