/**
 * API keys: create (the secret is shown once), list, revoke — POST/GET/DELETE /api-keys. A service
 * without those routes answers 404: said plainly instead of an error.
 */
import { api } from "../api.js";
import { add, badge, field, fill, fmtDate, h, notice, table } from "../dom.js";

const MISSING = "This service has no /api-keys routes (404). Create and revoke keys with `npm run key:create` (see the README).";

export async function keysView(view, ctx) {
  const box = h("div");
  const message = h("div", { "aria-live": "polite" });
  const name = h("input", { type: "text", name: "name", required: true, autocomplete: "off" });
  const created = h("div", { "aria-live": "polite" });
  const reload = () => loadKeys(box, message, ctx);
  const onsubmit = async (e) => {
    e.preventDefault();
    try {
      const k = await api("/api-keys", { method: "POST", json: { name: name.value.trim() } });
      name.value = "";
      fill(created, secretPanel(k));
      created.querySelector("input").focus();
      await reload();
    } catch (err) {
      fill(created, notice(err.status === 404 ? MISSING : err.message, "error"));
    }
  };
  add(
    view,
    h("h1", {}, "API keys"),
    h(
      "form",
      { class: "card stack", onsubmit, "aria-labelledby": "new-key-title" },
      h("h2", { id: "new-key-title" }, "Create a key"),
      field("Key name", name, "What the key is for, e.g. “ci pipeline”."),
      h("button", { type: "submit" }, "Create key"),
      created,
    ),
    h("h2", {}, "Keys of this organization"),
    message,
    box,
  );
  await reload();
}

/** The new key's secret, once, in a read-only field with a copy button. */
function secretPanel(k) {
  const secret = h("input", { type: "text", readonly: true, value: k.key ?? k.secret ?? "", class: "mono", spellcheck: "false" });
  const copy = h("button", { type: "button" }, "Copy");
  copy.addEventListener("click", async () => {
    secret.select();
    await navigator.clipboard?.writeText(secret.value).catch(() => {});
    copy.textContent = "Copied";
  });
  return h(
    "div",
    { class: "notice success stack", role: "status" },
    h("strong", {}, `Key “${k.name}” created. Copy it now: it is not shown again.`),
    field("Secret", secret),
    copy,
  );
}

async function loadKeys(box, message, ctx) {
  let page;
  try {
    page = await api("/api-keys?limit=200");
  } catch (err) {
    if (!ctx.alive()) return;
    fill(box, notice(err.status === 404 ? MISSING : err.message, "error"));
    return;
  }
  if (!ctx.alive()) return;
  const rows = page.items.map((k) => [
    k.name,
    h("code", {}, `${k.prefix ?? ""}…`),
    fmtDate(k.created_at),
    k.revoked_at ? badge("revoked") : k.current ? h("span", { class: "badge succeeded" }, "in use here") : badge("active"),
    k.revoked_at
      ? ""
      : h(
          "button",
          { type: "button", class: "small danger", onclick: () => revoke(k, box, message, ctx), "aria-label": `Revoke key ${k.name}` },
          "Revoke",
        ),
  ]);
  fill(box, table("API keys", ["Name", "Starts with", "Created", "State", "Actions"], rows, { cards: true }));
}

async function revoke(k, box, message, ctx) {
  const warning = k.current ? " This is the key this console signed in with: you will be signed out." : "";
  if (!window.confirm(`Revoke the key “${k.name}”? Programs using it stop working at once.${warning}`)) return;
  try {
    await api(`/api-keys/${k.id}`, { method: "DELETE" });
    fill(message, notice(`Key “${k.name}” revoked.`));
    await loadKeys(box, message, ctx);
  } catch (err) {
    fill(message, notice(err.status === 404 ? MISSING : err.message, "error"));
  }
}
