import type { Command } from "commander";
import { client, int, pageQuery } from "./common.js";
import { printRecord, printTable, show } from "./output.js";

export function keyCommands(program: Command): void {
  const keys = program.command("keys").description("The organization's API keys: create, list, revoke");

  keys
    .command("create <name>")
    .description("Create a key; its secret is printed this once")
    .action(async (name: string) => {
      const c = client();
      const k = await c.call(c.api.POST("/api-keys", { body: { name } }));
      show(k, () => {
        // No Idempotency-Key is sent, so the answer is the 201 with the secret (a repeat's 200 has none).
        printRecord({ id: k.id, name: k.name, key: "key" in k ? k.key : "(not shown again)" });
        process.stderr.write("Store the key now: it is not shown again.\n");
      });
    });

  keys
    .command("list")
    .description("List keys, revoked ones included (never their secrets)")
    .option("-l, --limit <n>", "page size (1-200)", int)
    .option("--cursor <cursor>")
    .action(async (o) => {
      const c = client();
      const page = await c.call(c.api.GET("/api-keys", { params: { query: pageQuery(o) as never } }));
      show(page, () => {
        printTable(
          page.items.map((k) => ({ ...k, current: k.current ? "*" : "" })),
          ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at", "current"],
        );
        if (page.next_cursor) process.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
      });
    });

  keys
    .command("revoke <id>")
    .description("Revoke a key (the one in use too: then log in again with another)")
    .action(async (id: string) => {
      const c = client();
      await c.call(c.api.DELETE("/api-keys/{api_key_id}", { params: { path: { api_key_id: id } } }));
      show({ revoked: id }, () => process.stdout.write(`Revoked key ${id}\n`));
    });
}
