/**
 * The web console in a real browser (Debian's Chromium driven by playwright-core) against the
 * local service: sign in, upload a CSV, train and watch the loss curve, predict and explain a
 * row, cancel a job, API keys. Screenshots of each page (1280 px and 390 px wide) go to
 * test-output/console/. Without Chromium the browser part skips, saying why.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureChromium } from "./chromium";
import { type RunningService, sharedService, table } from "./service";

const SHOTS = join(process.cwd(), "test-output", "console");
const browserBin = ensureChromium();
if (browserBin.reason) console.warn(`console browser tests skipped: ${browserBin.reason}`);

let svc: RunningService;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  svc = await sharedService(inject("sharedService"), "console");
  if (!browserBin.path) return;
  mkdirSync(SHOTS, { recursive: true });
  console.log(`console screenshots: ${SHOTS}`);
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  browser = await chromium.launch({ executablePath: browserBin.path, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Script errors and CSP refusals (an inline style or script the policy blocks) fail the run at the end.
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && /Refused|Content Security Policy/i.test(m.text()) && problems.push(m.text()));
}, 180_000);

// A failing step leaves a picture of the page it failed on.
afterEach(async (ctx) => {
  if (page && ctx.task.result?.state === "fail") await shot(`failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}`);
});

afterAll(async () => {
  await browser?.close();
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(svc.base + path, { ...init, headers: { Authorization: `Bearer ${svc.key}`, ...(init.headers ?? {}) } });
  return { status: res.status, body: (await res.json()) as any };
};

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** A dataset of `rows` churn rows uploaded through the API, once its ingestion has succeeded. */
async function readyDataset(name: string, rows: number): Promise<string> {
  const form = new FormData();
  form.append("file", new File([table(rows)], `${name}.csv`, { type: "text/csv" }));
  form.append("dataset_name", name);
  const up = await api("/datasets", { method: "POST", body: form });
  expect(up.status).toBe(201);
  await expect.poll(async () => (await api(`/jobs/${up.body.job_id}`)).body.status, { timeout: 60_000, interval: 250 }).toBe("succeeded");
  return up.body.dataset.id;
}

/** Opens a console page, signing in first when this tab holds no key (a test run alone, with -t). */
async function openSignedIn(hash: string) {
  await page.goto(`${svc.base}/console/${hash}`);
  // The script enables the button just before it routes: by then the sign-in form shows or not.
  await page.locator("#sign-in-form button:enabled").waitFor({ state: "attached" });
  if (await page.locator("#sign-in").isVisible()) {
    await page.getByLabel("API key").fill(svc.key);
    await page.keyboard.press("Enter");
  }
}

describe("the console's files", () => {
  it("load without a key, with a strict CSP, while the API stays closed", async () => {
    const res = await fetch(`${svc.base}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'self';/);
    expect(res.headers.get("content-security-policy")).not.toMatch(/unsafe-inline/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect((await fetch(`${svc.base}/console/js/main.js`)).headers.get("content-type")).toMatch(/javascript/);
    expect((await fetch(`${svc.base}/console`, { redirect: "manual" })).headers.get("location")).toBe("/console/");
    expect((await fetch(`${svc.base}/console/missing.js`)).status).toBe(404);
    expect((await fetch(`${svc.base}/datasets`)).status).toBe(401);
    expect((await fetch(`${svc.base}/jobs`)).status).toBe(401);
  });
});

describe.skipIf(!browserBin.path)(`the console in Chromium${browserBin.reason ? ` (skipped: ${browserBin.reason})` : ""}`, () => {
  let modelId: string;
  let datasetId: string;
  let anomalyId: string;

  it("refuses a wrong key, signs in with the right one, and keeps the key out of the URL", async () => {
    await page.goto(`${svc.base}/console/`);
    await shot("01-sign-in");
    await page.getByLabel("API key").fill("sk_wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/not accepted/);
    await page.getByLabel("API key").fill(svc.key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Datasets", level: 1 }).waitFor();
    expect(page.url()).not.toContain(svc.key);
    expect(await page.evaluate("Object.values(sessionStorage)")).toContain(svc.key);
  });

  it("uploads a CSV with a progress bar and shows its profile and preview", async () => {
    await page.getByLabel(/CSV or Parquet file/).setInputFiles({ name: "churn.csv", mimeType: "text/csv", buffer: Buffer.from(table(5000)) });
    await expect.poll(() => page.getByLabel("Dataset name").inputValue()).toBe("churn");
    await page.getByRole("button", { name: "Upload" }).click();
    // The upload's progress bar ends full, the ingestion's too, and the dataset is listed.
    await page.getByRole("link", { name: "open its profile and preview" }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole("progressbar", { name: "Uploading churn.csv" }).getAttribute("value")).toBe("100");
    expect(await page.getByRole("progressbar", { name: "Ingesting" }).getAttribute("value")).toBe("100");
    await page.getByRole("link", { name: "churn", exact: true }).waitFor();
    await shot("02-uploaded");
    await page.getByRole("link", { name: "open its profile and preview" }).click();
    await page.getByRole("heading", { name: "churn", level: 1 }).waitFor();
    datasetId = page.url().split("#/datasets/")[1];
    await page.getByRole("heading", { name: /Preview/ }).waitFor();
    expect(await page.getByRole("table", { name: "Column profile" }).textContent()).toMatch(/plan.*categorical/s);
    await shot("03-dataset");
    await page.goto(`${svc.base}/console/#/datasets`);
    await page.getByLabel("Search by name").fill("chu");
    await page.getByRole("table", { name: "Datasets matching “chu”" }).getByRole("link", { name: "churn" }).waitFor();
    await page.getByLabel("Search by name").fill("nothing like it");
    await page.getByRole("table", { name: "Datasets matching “nothing like it”" }).getByText("Nothing yet.").waitFor();
    await page.getByLabel("Search by name").fill("chu");
    await page.getByRole("table", { name: "Datasets matching “chu”" }).waitFor();
    await shot("04-datasets");
  });

  it("keeps the search's answer when the unfiltered list answers after it", async () => {
    // the page's first list (no search) answers 2 s late: after the search typed meanwhile
    const unfiltered = (url: URL) => url.pathname === "/datasets" && url.searchParams.get("limit") === "50" && !url.searchParams.has("search");
    await page.route(unfiltered, async (route) => {
      await new Promise((r) => setTimeout(r, 2000));
      await route.continue();
    });
    try {
      const late = page.waitForResponse((res) => unfiltered(new URL(res.url())));
      // a page load of its own: on the datasets page already, going to it again would load nothing
      await page.goto("about:blank");
      await openSignedIn("#/datasets");
      await page.getByLabel("Search by name").fill("chu");
      await page.getByRole("table", { name: "Datasets matching “chu”" }).waitFor();
      // once the late list has arrived, the search's table is still the one shown
      await late;
      await new Promise((r) => setTimeout(r, 200));
      expect(await page.getByRole("table", { name: "Datasets matching “chu”" }).count()).toBe(1);
      expect(await page.getByRole("table", { name: "Datasets, newest first" }).count()).toBe(0);
    } finally {
      await page.unroute(unfiltered);
    }
  });

  it("uploads a file over 30 MB through the signed URL, straight to storage", async () => {
    // Over the direct limit (30 MiB): ~35 MB. From a file: a buffer this large is slow to hand over.
    const path = join(mkdtempSync(join(tmpdir(), "console-")), "large-table.csv");
    writeFileSync(path, table(3_300_000));
    const puts: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => r.method() === "PUT" && puts.push(new URL(r.url()).pathname);
    page.on("request", onRequest);
    await page.goto(`${svc.base}/console/#/datasets`);
    await page.getByLabel(/CSV or Parquet file/).setInputFiles(path);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("link", { name: "open its profile and preview" }).waitFor({ timeout: 240_000 });
    page.off("request", onRequest);
    expect(await page.getByRole("progressbar", { name: "Uploading large-table.csv" }).getAttribute("value")).toBe("100");
    expect(puts).toEqual([expect.stringMatching(/^\/cdn-cgi\/local\/r2\/s3\/[^/]+\/orgs\//)]); // npm start's R2 S3 endpoint
    await shot("04b-signed-upload");
  }, 300_000);

  it("trains a model picked from the dataset's columns and draws its loss curve", async () => {
    await page.getByRole("link", { name: "churn" }).click();
    await page.getByRole("link", { name: "Train a model on this dataset" }).click();
    await page.getByLabel("Model name").fill("churn model");
    await page.getByLabel(/Label column/).selectOption("churned");
    await shot("05-train-form");
    await page.getByRole("button", { name: "Start training" }).click();
    await page.getByRole("heading", { name: "churn model", level: 1 }).waitFor();
    modelId = page.url().split("#/models/")[1];
    // The curve: both series drawn once the job has reported points.
    await page.locator('path[data-series="val_loss"]').waitFor({ timeout: 90_000 });
    await page.locator("#model-status .badge.ready").waitFor({ timeout: 90_000 });
    expect(Number(await page.locator("svg.chart").getAttribute("data-points"))).toBeGreaterThan(1);
    expect(await page.locator("#model-metrics").textContent()).toMatch(/accuracy/);
    await shot("06-model");
  });

  it("predicts a typed row, explains it, and predicts a file", async () => {
    await page.getByRole("link", { name: "Predict with this model" }).click();
    await page.getByLabel("usage").fill("10");
    await page.getByLabel("plan").fill("pro");
    await page.getByRole("button", { name: "Predict", exact: true }).click();
    const predictions = page.getByRole("table", { name: /Predictions \(1 row\)/ });
    await predictions.waitFor();
    expect(await predictions.textContent()).toMatch(/yes/);
    await page.getByRole("button", { name: "Explain this prediction" }).click();
    await page.getByRole("heading", { name: /^Why/ }).waitFor({ timeout: 60_000 });
    expect(await page.locator(".explanation .lead").textContent()).toMatch(/Predicted 'yes'/);
    await page
      .getByLabel("CSV or Parquet file")
      .setInputFiles({ name: "rows.csv", mimeType: "text/csv", buffer: Buffer.from("usage,plan\n10,pro\n80,team\n") });
    await page.getByRole("button", { name: "Run inference" }).click();
    await page.getByRole("table", { name: /Predictions \(2 rows\)/ }).waitFor();
    await shot("07-inference");
  });

  it("draws the loss curve live while a training runs, and cancels it from the jobs page", async () => {
    // 40,000 rows: boosting 10,000 deep trees takes minutes, not seconds, so the cancel stops real work.
    const form = new FormData();
    form.append("file", new File([table(40_000)], "big.csv", { type: "text/csv" }));
    form.append("dataset_name", "big churn");
    const up = await api("/datasets", { method: "POST", body: form });
    expect(up.status).toBe(201);
    await expect.poll(async () => (await api(`/jobs/${up.body.job_id}`)).body.status, { timeout: 60_000, interval: 250 }).toBe("succeeded");
    const started = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        model_name: "long",
        model_type: "prediction",
        dataset_id: up.body.dataset.id,
        label_column: "usage",
        // thousands of deep trees at a tiny learning rate: minutes of work, one model (no search)
        params: {
          search: "off",
          task: "regression",
          max_rounds: 10_000,
          early_stopping_rounds: 0,
          learning_rate: 0.001,
          num_leaves: 255,
          min_data_in_leaf: 1,
        },
      }),
    });
    expect(started.status).toBe(201);
    // Running in the trainer (boosting) before the page is opened, so the cancel stops real work.
    await expect
      .poll(async () => (await api(`/jobs/${started.body.job_id}`)).body.current_phase, { timeout: 60_000, interval: 250 })
      .toBe("finetune");
    // The model page follows the job: the curve gains points while the badge says running.
    await page.goto(`${svc.base}/console/#/models/${started.body.model.id}`);
    await page.locator("#train-job-title .badge.running").waitFor();
    const points = () => page.locator("svg.chart").getAttribute("data-points").then(Number);
    // the curve's newest step (its label says "… up to step N …"): the point count alone can fall
    // while the curve advances, when the job's history passes 200 points and is thinned to half
    const lastStep = () =>
      page
        .locator("svg.chart")
        .getAttribute("aria-label")
        .then((label) => Number(/up to step (\d+)/.exec(label ?? "")?.[1] ?? 0));
    await expect.poll(points, { timeout: 30_000 }).toBeGreaterThan(1);
    const seen = await lastStep();
    await expect.poll(lastStep, { timeout: 30_000 }).toBeGreaterThan(seen);
    await shot("08-live-curve");
    await page.getByRole("link", { name: "Jobs" }).click();
    await page.getByLabel("Type").selectOption("train");
    const jobId = (await api(`/jobs/${started.body.job_id}`)).body.id as string;
    const cancel = page.getByRole("button", { name: `Cancel job ${jobId.replace(/^job_/, "").slice(0, 8)}` });
    await cancel.waitFor();
    expect(await page.getByRole("row").filter({ has: cancel }).textContent()).toMatch(/running/);
    await shot("09-jobs");
    await cancel.click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/canceled/);
    expect((await api(`/jobs/${started.body.job_id}`)).body.status).toBe("canceled");
    await page.getByRole("link", { name: `Job ${jobId.replace(/^job_/, "").slice(0, 8)}` }).click();
    await page.locator('.badge:text("canceled")').first().waitFor();
    await shot("10-job-canceled");
  });

  it("retries a failed job from the jobs page", async () => {
    const form = new FormData();
    form.append("file", new File(["a,b\n"], "header-only.csv", { type: "text/csv" }));
    form.append("dataset_name", "header only");
    const up = await api("/datasets", { method: "POST", body: form });
    expect(up.status).toBe(201);
    await expect.poll(async () => (await api(`/jobs/${up.body.job_id}`)).body.status, { timeout: 30_000, interval: 250 }).toBe("failed");
    const short = (await api(`/jobs/${up.body.job_id}`)).body.id.replace(/^job_/, "").slice(0, 8);
    await page.getByRole("link", { name: "Jobs" }).click();
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: `Retry job ${short}` }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/Retried as job \w{8} \(queued\)/);
  });

  it("creates, lists and revokes an API key, or says the routes are missing", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("console test key");
    await page.getByRole("button", { name: "Create key" }).click();
    const answer = page.locator("#view .notice.success, #view .notice.error").first();
    await answer.waitFor();
    if ((await answer.getAttribute("class"))?.includes("error")) {
      expect(await answer.textContent()).toMatch(/no \/api-keys routes \(404\)/);
    } else {
      expect(await page.getByLabel("Secret").inputValue()).toMatch(/^sk_/);
      page.once("dialog", (d) => d.accept());
      await page.getByRole("button", { name: "Revoke key console test key" }).click();
      await expect.poll(() => page.getByRole("status").last().textContent()).toMatch(/revoked/);
    }
    await shot("11-keys");
  });

  it("shows a model of another type (no loss curve) in the list and on its page", async () => {
    const started = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model_name: "odd rows", model_type: "anomaly", dataset_id: datasetId }),
    });
    expect(started.status).toBe(201);
    anomalyId = started.body.model.id;
    await page.goto(`${svc.base}/console/#/models/${anomalyId}`);
    await page.locator("#model-status .badge.ready").waitFor({ timeout: 60_000 });
    expect(await page.locator(".chart-slot").textContent()).toMatch(/This anomaly model has no loss curve/);
    expect(await page.getByLabel("Model summary").textContent()).toMatch(/threshold/);
    await page.getByRole("link", { name: "Models", exact: true }).click();
    const list = page.getByRole("table", { name: "Models, newest first" });
    await list.getByRole("link", { name: "odd rows" }).waitFor();
    expect(await list.textContent()).toMatch(/churn model.*prediction/s);
    await shot("12-models");
  });

  it("filters the model list by model type and status", async () => {
    await page.goto(`${svc.base}/console/#/models`);
    await page.getByLabel("Model type").selectOption("anomaly");
    const anomalies = page.getByRole("table", { name: "Models (anomaly), newest first" });
    await anomalies.getByRole("link", { name: "odd rows" }).waitFor();
    expect(await anomalies.textContent()).not.toMatch(/churn model/);
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("table", { name: "Models (anomaly, failed), newest first" }).getByText("Nothing yet.").waitFor();
    await page.getByLabel("Model type").selectOption("");
    await page.getByLabel("Status").selectOption("ready");
    await page.getByRole("table", { name: "Models (ready), newest first" }).getByRole("link", { name: "churn model" }).waitFor();
    await shot("12b-models-filtered");
  });

  it("shows a prediction model's search trials, the best marked, once its training ends", async () => {
    const dataset = await readyDataset("search churn", 2000);
    const started = await api("/models/train", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        model_name: "searched",
        model_type: "prediction",
        dataset_id: dataset,
        label_column: "churned",
        params: { max_trials: 4 },
      }),
    });
    expect(started.status).toBe(201);
    // Opened while it trains: the section appears when the panel sees the job end.
    await openSignedIn(`#/models/${started.body.model.id}`);
    await page.locator("#model-status .badge.ready").waitFor({ timeout: 120_000 });
    const trials = page.getByRole("table", { name: /Search trials/ });
    await expect.poll(() => trials.locator("tbody tr").count()).toBe(4);
    // The job's own trials, by number; the best one's row marked.
    const search = (await api(`/jobs/${started.body.job_id}`)).body.output.search;
    const numbers = search.trials.map((t: { trial: number }) => t.trial).sort((a: number, b: number) => a - b);
    expect(await trials.locator("tbody td:first-child .trial").allTextContents()).toEqual(numbers.map(String));
    expect(await trials.locator("tr.best td:first-child .trial").allTextContents()).toEqual([String(search.best)]);
    expect(await page.locator(".search-summary").textContent()).toMatch(/4 trials on \d+ instances?; stopped: .+\. Best: trial \d/);
    await shot("13-model-search");
  });

  it("every page fits a 390 px wide screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, hash] of [
      ["models", "#/models"],
      ["anomaly-model", `#/models/${anomalyId}`],
      ["datasets", "#/datasets"],
      ["dataset", `#/datasets/${datasetId}`],
      ["model", `#/models/${modelId}`],
      ["train-form", "#/models/new"],
      ["inference", `#/infer?model=${modelId}`],
      ["jobs", "#/jobs"],
      ["keys", "#/keys"],
    ]) {
      await page.goto(`${svc.base}/console/${hash}`);
      await page.locator("h1:focus").waitFor();
      await page.waitForLoadState("networkidle");
      // Nothing wider than the screen except inside the scrollable table regions.
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
      await shot(`narrow-${name}`);
    }
  });

  it("raised no script error and no CSP refusal on any page", () => {
    expect(problems).toEqual([]);
  });
});
