/**
 * The console's shell: sign-in, navigation and a hash router (#/datasets, #/models/<id>, …).
 * Each view renders into #view; leaving a view stops its polling (ctx.alive() turns false).
 */
import { api, session } from "./api.js";
import { notice } from "./dom.js";
import { datasetDetail, datasetList } from "./views/datasets.js";
import { inferenceView } from "./views/inference.js";
import { jobDetail, jobList } from "./views/jobs.js";
import { keysView } from "./views/keys.js";
import { modelDetail, modelList, trainForm } from "./views/models.js";

// Ids in a route are letters, digits, "_" and "-" only (UUIDs, job_<hex>): a crafted link such as
// #/jobs/..%2Fapi-keys must not turn into another API path called with the user's key.
const ROUTES = [
  [/^\/datasets$/, datasetList],
  [/^\/datasets\/([\w-]+)$/, datasetDetail],
  [/^\/models$/, modelList],
  [/^\/models\/new$/, trainForm],
  [/^\/models\/([\w-]+)$/, modelDetail],
  [/^\/infer$/, inferenceView],
  [/^\/jobs$/, jobList],
  [/^\/jobs\/([\w-]+)$/, jobDetail],
  [/^\/keys$/, keysView],
];

const $ = (id) => document.getElementById(id);
let generation = 0;

function showSignIn(message) {
  generation++;
  $("nav").hidden = true;
  $("view").hidden = true;
  $("sign-in").hidden = false;
  const msg = $("sign-in-message");
  msg.hidden = !message;
  msg.textContent = message ?? "";
  $("api-key").focus();
}

async function route() {
  if (!session.key()) return showSignIn();
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  const view = $("view");
  view.hidden = false;
  const [path, query = ""] = (location.hash.slice(1) || "/datasets").split("?");
  const found = ROUTES.map(([re, fn]) => [path.match(re), fn]).find(([m]) => m);
  for (const a of document.querySelectorAll("#nav a")) {
    const current = path.startsWith(a.getAttribute("href").slice(1));
    if (current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const mine = ++generation;
  const ctx = { alive: () => mine === generation && !!session.key(), params: new URLSearchParams(query) };
  view.replaceChildren();
  if (!found) {
    view.append(notice(`No page at ${path}.`, "error"));
    return;
  }
  try {
    await found[1](view, ...found[0].slice(1).map(decodeURIComponent), ctx);
  } catch (e) {
    if (mine === generation) view.append(notice(e.message, "error"));
  }
  // Move focus to the page heading so keyboard and screen-reader users land on the new page.
  const heading = view.querySelector("h1");
  if (heading && mine === generation) {
    heading.tabIndex = -1;
    heading.focus();
    document.title = `${heading.textContent} · Tabular ML console`;
  }
}

$("sign-in-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const key = $("api-key").value.trim();
  try {
    await api("/datasets?limit=1", { key });
  } catch (err) {
    return showSignIn(err.status === 401 ? "That key was not accepted." : err.message);
  }
  session.set(key);
  $("api-key").value = "";
  if (!location.hash) location.hash = "#/datasets";
  else route();
});

$("sign-out").addEventListener("click", () => {
  session.clear();
  showSignIn("Signed out.");
});

window.addEventListener("console:unauthorized", () => {
  session.clear();
  showSignIn("The API key was refused (401). Sign in again.");
});
window.addEventListener("hashchange", route);
document.querySelector("#sign-in-form button").disabled = false;
route();
