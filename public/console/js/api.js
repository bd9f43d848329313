/**
 * Calls to the service's API from the console. The API key lives in sessionStorage (gone when the
 * tab closes, never in a URL) and goes in `Authorization: Bearer` on every call.
 */
const KEY = "tabular-ml-console-key";

export const session = {
  key: () => sessionStorage.getItem(KEY),
  set: (key) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY),
};

class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.body = body;
  }
}

/** The API's `detail`: a string, or a 422 list of {loc, msg}. */
function describe(status, body) {
  const d = body?.detail;
  if (typeof d === "string") return `${d} (HTTP ${status})`;
  if (Array.isArray(d)) return `${d.map((e) => `${(e.loc ?? []).slice(1).join(".") || "request"}: ${e.msg}`).join("; ")} (HTTP ${status})`;
  return `HTTP ${status}`;
}

/** A signed-out event: any 401 means the key is no longer good. */
function checkAuth(status) {
  if (status === 401) window.dispatchEvent(new CustomEvent("console:unauthorized"));
}

/** api("/datasets?limit=5"), api("/models/train", { method: "POST", json: {...} }). */
export async function api(path, { method = "GET", json, form, key = session.key() } = {}) {
  const headers = { Authorization: `Bearer ${key}` };
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form) body = form;
  const res = await fetch(path, { method, headers, body });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!res.ok) {
    checkAuth(res.status);
    throw new ApiError(res.status, data);
  }
  return data;
}

/**
 * A multipart POST through XMLHttpRequest, whose upload events give a progress bar (fetch has
 * none). onProgress(percent) as bytes go out.
 */
export function upload(path, form, onProgress) {
  const headers = { Authorization: `Bearer ${session.key()}` };
  return send("POST", path, form, { headers, onProgress, networkError: "The upload failed: network error.", fromService: true });
}

/**
 * A file PUT to a signed upload URL (straight to the bucket in production), with the headers the
 * URL was signed for and without the API key: the URL itself authorizes. A refusal of the
 * browser (the bucket's CORS rule, the page's connect-src) shows only as a network error.
 */
export function putSigned(url, file, headers, onProgress) {
  const refused =
    "Sending the file to storage failed: a network error, or the bucket's CORS rule or this page's connect-src does not allow it (see the README).";
  return send("PUT", url, file, { headers, onProgress, networkError: refused, fromService: false });
}

/** `fromService`: the answer is the service's (a 401 there signs out), not storage's. */
function send(method, url, body, { headers, onProgress, networkError, fromService }) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.addEventListener("progress", (e) => e.lengthComputable && onProgress((100 * e.loaded) / e.total));
    xhr.addEventListener("load", () => {
      let data = null;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        data = { detail: xhr.responseText.slice(0, 200) };
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(data);
      if (fromService) checkAuth(xhr.status);
      reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener("error", () => reject(new Error(networkError)));
    xhr.send(body);
  });
}

export const TERMINAL = ["succeeded", "failed", "canceled", "rejected"];

/**
 * For a list reloaded as the user types or filters: each call of the returned function starts a
 * request and answers `isNewest()`, false once a later request started. An answer that arrives
 * after a newer request's (a slow first page, then the search typed meanwhile) is dropped instead
 * of drawn over the newer one.
 */
export function newestRequest() {
  let started = 0;
  return () => {
    const mine = ++started;
    return () => mine === started;
  };
}

/**
 * Polls GET /jobs/{id} every `everyMs` until the job ends or alive() turns false (the user left
 * the page); onUpdate(job) at each answer. Resolves with the last job seen.
 */
export async function pollJob(id, onUpdate, alive, everyMs = 1000) {
  let job;
  while (alive()) {
    job = await api(`/jobs/${id}`);
    if (!alive()) break;
    onUpdate(job);
    if (TERMINAL.includes(job.status)) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return job;
}
