"""The poor-overlap follow-up (bench/causal/RESULTS.md, "Poor overlap: ..."), on captures of
./capture.ts (and ./fold-bags.ts for --bags). Modes:

    python3 bench/causal/selection/overlap.py --variants '/tmp/cap/po-2000-20??.json' ...
        each selection variant's paired gap of sqrt(PEHE) to the best fixed learner, per benchmark
    python3 bench/causal/selection/overlap.py --regions '/tmp/cap/po-2000-*.json'
        each learner's and auto's contribution to PEHE^2 from rows with the cross-fitted
        propensity in (0.1, 0.9), between that and the clip bounds, and past the clip bounds
    python3 bench/causal/selection/overlap.py --coverage '/tmp/cap/C-1000-*.json' ...
        coverage of the AIPW 95% interval (mean of phi, sd/sqrt(n)) of the sample ATE
    python3 bench/causal/selection/overlap.py --bags '/tmp/cap/po-2000-20??.json' ...
        the served mix with each member the average of its out-of-fold scoring fits (./fold-bags.ts)
        instead of one fit on all rows

"engine" is the auto run's own served effect; "cur" the engine's rule replayed here (bagged convex
stack over T, S, X, DR and the constant, 30 rounds, weights rounded to 0.05).
"""
import sys, json, glob, os
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rules import load, convex_stack_k, round_w, pehe, L


def with_constant(r):
    O, phi, fold = r["O"], r["phi"], r["fold"]
    c_oof = np.zeros(len(phi))
    for f in np.unique(fold):
        c_oof[fold == f] = phi[fold != f].mean()
    return np.column_stack([O, c_oof])


def bag(r, O5, weight, rounds=30, frac=1.0, seed=0, replace=True):
    phi = r["phi"]; n = len(phi); m = int(frac * n)
    rng = np.random.default_rng(r["rep"] + seed)
    cs = []
    for _ in range(rounds):
        i = rng.integers(0, n, m) if replace else rng.choice(n, m, replace=False)
        cs.append(convex_stack_k(O5[i], phi[i], weight[i]))
    return np.mean(cs, axis=0)


def variants(r):
    O5 = with_constant(r); w, e, fold, phi = r["w"], r["e"], r["fold"], r["phi"]
    base = bag(r, O5, w)
    out = {"cur": base}
    for a in (0.5, 1.5, 2.0):  # overlap weights to a power: 0 = unweighted, 1 = the engine's
        out[f"w^{a}"] = bag(r, O5, w ** a)
    out["half-subbag"] = bag(r, O5, w, frac=0.5, replace=False)
    out["100 rounds"] = bag(r, O5, w, rounds=100, seed=7)
    keep = ((e > 0.05) & (e < 0.95)).astype(float)  # rows trimmed to e in (0.05, 0.95)
    out["trim.05 unw"] = bag(r, O5, keep)
    out["trim.05 w"] = bag(r, O5, keep * w)
    eq = np.array([.25, .25, .25, .25, 0])
    for lam in (0.25, 0.5):  # shrunk toward the equal blend of the four learners
        out[f"shrinkeq{lam}"] = (1 - lam) * base + lam * eq
    kept = (base > 0.05).astype(float)  # shrunk toward the equal blend of the members the stack keeps
    out["shrinkkept0.5"] = 0.5 * base + 0.5 * kept / kept.sum()
    out["shrinkkept0.25"] = 0.75 * base + 0.25 * kept / kept.sum()
    fs = np.mean([convex_stack_k(O5[fold == f], phi[fold == f], w[fold == f]) for f in np.unique(fold)], axis=0)
    out["bag+foldavg"] = (fs + base) / 2
    return out


def table(by, names):
    print("| benchmark | reps | best fixed | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for suite, rs in by.items():
        n = len(rs); M = {k: np.array([x[k] for x in rs]) for k in rs[0]}
        bf = min(L, key=lambda l: M[l].mean())
        cells = [f"{(M[k] - M[bf]).mean():+.3f} ± {(M[k] - M[bf]).std(ddof=1) / np.sqrt(n):.3f}" for k in names]
        print(f"| {suite} | {n} | {bf.upper()} {M[bf].mean():.3f} | " + " | ".join(cells) + " |")


def run_variants(reps):
    by = {}
    for r in reps:
        E5 = np.column_stack([np.array([r["eff"][l] for l in L]).T, np.full(len(r["tau"]), r["phi"].mean())])
        res = {l: pehe(r["eff"][l], r["tau"]) for l in L}
        res["engine"] = pehe(r["eff"]["auto"], r["tau"])
        for k, c in variants(r).items():
            res[k] = pehe(E5 @ round_w(c, 20), r["tau"])
        by.setdefault(r["suite"], []).append(res)
    table(by, [k for k in next(iter(by.values()))[0] if k not in L])


def run_regions(files):
    acc = {}
    for f in files:
        d = json.load(open(f)); tau = np.array(d["tau"]); e = np.array(d["e"]).reshape(-1, 2)[:, 1]
        reg = {"0.1 < e < 0.9": (e > 0.1) & (e < 0.9), "past the clip": (e < 0.01) | (e > 0.99)}
        reg["between"] = ~reg["0.1 < e < 0.9"] & ~reg["past the clip"]
        share = {k: m.mean() for k, m in reg.items()}
        for l in L + ["auto"]:
            err = np.array(d["effects"][l]) - tau
            for k, m in reg.items():
                acc.setdefault((l, k), []).append(np.sum(err[m] ** 2) / len(tau))
        for k, s in share.items():
            acc.setdefault(("share", k), []).append(s)
    regions = ["0.1 < e < 0.9", "between", "past the clip"]
    n = len(acc[("share", regions[0])])
    print(f"| learner ({n} reps) | " + " | ".join(f"{k} (rows {np.mean(acc[('share', k)]):.2f})" for k in regions) + " | PEHE² |")
    print("|---|---|---|---|---|")
    for l in L + ["auto"]:
        print(f"| {l} | " + " | ".join(f"{np.mean(acc[(l, k)]):.4f}" for k in regions) + f" | {sum(np.mean(acc[(l, k)]) for k in regions):.4f} |")
    for ref in L:
        cells = []
        for k in regions:
            d = np.array(acc[("auto", k)]) - np.array(acc[(ref, k)])
            cells.append(f"{d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(n):.4f}")
        print(f"| auto − {ref} | " + " | ".join(cells) + " | |")


def run_coverage(files):
    z = 1.959963984540054
    by = {}
    for f in files:
        d = json.load(open(f)); phi = np.array(d["arms"][0]["phi"]); tau = np.array(d["tau"])[np.array(d["rows"])]
        ate, se = phi.mean(), phi.std(ddof=1) / np.sqrt(len(phi))
        by.setdefault(d["suite"], []).append((abs(ate - tau.mean()) <= z * se, ate - tau.mean()))
    for suite, v in by.items():
        c = np.array([x[0] for x in v]); b = np.array([x[1] for x in v])
        print(f"| {suite} | {len(v)} | {c.mean():.2f} ({c.sum()}/{len(v)}) | {b.mean():+.3f} |")


def run_bags(reps):
    by = {}
    for r in reps:
        rows = len(r["tau"]) if r["suite"] != "ihdp" else 0
        path = f"/tmp/capbag/{r['suite']}-{rows}-{r['rep']}.json"
        if not os.path.exists(path):
            continue
        B = np.array([json.load(open(path))["bag"][l] for l in L]).T
        tau = r["tau"]; ate = np.full(len(tau), r["phi"].mean())
        E5 = np.column_stack([np.array([r["eff"][l] for l in L]).T, ate]); B5 = np.column_stack([B, ate])
        c = round_w(bag(r, with_constant(r), r["w"]), 20)
        res = {l: pehe(r["eff"][l], tau) for l in L}
        res.update({"bag-" + l: pehe(B[:, i], tau) for i, l in enumerate(L)})
        res["auto, full fits"] = pehe(E5 @ c, tau); res["auto, fold bags"] = pehe(B5 @ c, tau)
        by.setdefault(r["suite"], []).append(res)
    print("| benchmark | reps | T / S / X / DR: one fit on all rows | the same, average of the 5 fold fits | auto, full fits − best fixed | auto, fold bags − best fixed | auto, fold bags − auto, full fits |")
    print("|---|---|---|---|---|---|---|")
    for suite, rs in by.items():
        n = len(rs); M = {k: np.array([x[k] for x in rs]) for k in rs[0]}
        bf = min(L, key=lambda l: M[l].mean())
        pm = lambda d: f"{d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(n):.3f}"
        print(f"| {suite} | {n} | " + " / ".join(f"{M[l].mean():.3f}" for l in L) + " | " + " / ".join(f"{M['bag-' + l].mean():.3f}" for l in L)
              + f" | {pm(M['auto, full fits'] - M[bf])} | {pm(M['auto, fold bags'] - M[bf])} | {pm(M['auto, fold bags'] - M['auto, full fits'])} |")


if __name__ == "__main__":
    mode, patterns = sys.argv[1], sys.argv[2:]
    files = [f for p in patterns for f in sorted(glob.glob(p))]
    if mode == "--regions":
        run_regions(files)
    elif mode == "--coverage":
        run_coverage(files)
    else:
        reps = [r for p in patterns for r in load(p)]
        (run_bags if mode == "--bags" else run_variants)(reps)
