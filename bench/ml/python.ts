/** Runs bench/ml/reference.py (XGBoost, scikit-learn HGB) with Debian's /usr/bin/python3. */
import { execFileSync, spawnSync } from "node:child_process";
import type { BenchSpec } from "./datasets";

const PY = "/usr/bin/python3";
const PACKAGES = ["python3-xgboost", "python3-sklearn", "python3-pandas", "python3-numpy"];

export interface RefResult {
  fit_s: number;
  /** The same fits timed by the process's CPU clock (fastest). */
  fit_cpu_s?: number;
  rounds: number;
  predict_1_s: number;
  predict_1000_s: number;
  predict_all_s: number;
  test_rows: number;
  predict_1_pandas_s?: number;
  r2?: number;
  accuracy?: number;
  auc?: number;
  logloss?: number;
}
export interface RefOutput {
  versions: Record<string, string>;
  results: Record<string, RefResult>;
}

const importsOk = () => spawnSync(PY, ["-c", "import xgboost, sklearn, pandas, numpy"], { stdio: "ignore" }).status === 0;

/** True when the reference can run; installs the Debian packages through apt when missing. */
export function ensurePython(): boolean {
  if (importsOk()) return true;
  if (spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status !== 0) {
    console.warn(`reference skipped: ${PY} lacks xgboost/sklearn and apt-get is unavailable (install ${PACKAGES.join(" ")})`);
    return false;
  }
  console.log(`installing ${PACKAGES.join(" ")} with apt-get ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    execFileSync("apt-get", ["update"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", ...PACKAGES], { stdio: "inherit", env });
  } catch (e) {
    console.warn(`reference skipped: apt-get failed (${(e as Error).message})`);
    return false;
  }
  return importsOk();
}

export function runReference(
  spec: BenchSpec,
  csv: string,
  folds: string,
  repeats: number,
  variants = ["xgb", "hgb", ...(spec.name === "shuttle" ? ["hgb_l2"] : []), "xgb_es"],
): RefOutput {
  const out = execFileSync(
    PY,
    [
      "bench/ml/reference.py",
      "--csv",
      csv,
      "--folds",
      folds,
      "--target",
      spec.target,
      "--task",
      spec.task,
      "--repeats",
      String(repeats),
      "--variants",
      variants.join(","),
    ],
    { env: { ...process.env, OMP_NUM_THREADS: "1" }, stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 },
  );
  return JSON.parse(out.toString());
}
