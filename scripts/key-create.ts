/**
 * Create (or revoke) an API key in local or remote D1.
 *
 *   npm run key:create -- --org-name "Acme" [--name "ci key"] [--user "Ada"]   new organization
 *   npm run key:create -- --org-id <uuid> [--name ...]                          key for an organization
 *   npm run key:create -- --revoke <api_key_id>
 *   add --remote to act on the deployed D1 database instead of the local one
 */
import { parseArgs } from "node:util";
import { applyMigrations, createKey, revokeKey } from "./d1";

const { values } = parseArgs({
  options: {
    "org-name": { type: "string" },
    "org-id": { type: "string" },
    name: { type: "string", default: "cli key" },
    user: { type: "string" },
    revoke: { type: "string" },
    remote: { type: "boolean", default: false },
  },
});

const target = { remote: values.remote };
if (values.revoke) {
  const n = revokeKey(target, values.revoke);
  console.log(n ? `Revoked API key ${values.revoke}.` : `No API key ${values.revoke}.`);
} else {
  if (!target.remote) applyMigrations(target);
  const created = await createKey(target, {
    orgId: values["org-id"],
    orgName: values["org-name"],
    keyName: values.name,
    userName: values.user,
  });
  console.log(`API key (shown once, store it now): ${created.key}`);
  console.log(`api_key_id: ${created.apiKeyId}\norg_id:     ${created.orgId}`);
}
