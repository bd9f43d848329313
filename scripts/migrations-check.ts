/**
 * `npm run check`: D1 migrations only add. During a deploy the Worker versions before and after
 * run side by side against one database, and a restore (D1 Time Travel) brings back data, not
 * code: a dropped or renamed table or column, or a table rebuilt to change a column (drizzle-kit's
 * `__new_` copy on SQLite), breaks the version still running. So every statement must create a
 * table or an index, or add a column; anything else fails the check naming it. To retire a
 * column, stop using it first and leave it in place.
 */
import { readdirSync, readFileSync } from "node:fs";

const DIR = "migrations";
const ADDITIVE = [/^CREATE TABLE (IF NOT EXISTS )?`?\w+`?\s*\(/i, /^CREATE (UNIQUE )?INDEX /i, /^ALTER TABLE `?\w+`? ADD (COLUMN )?`?\w+`? /i];

const problems: string[] = [];
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".sql"))
  .sort();
for (const file of files) {
  const statements = readFileSync(`${DIR}/${file}`, "utf8")
    .replace(/--[^\n]*/g, "") // comments, drizzle-kit's `--> statement-breakpoint` among them
    .split(";")
    .map((s) => s.trim().replace(/\s+/g, " "))
    .filter(Boolean);
  for (const statement of statements) {
    const rebuild = /`__new_/.test(statement);
    if (rebuild || !ADDITIVE.some((rule) => rule.test(statement))) {
      problems.push(`${DIR}/${file}: not additive${rebuild ? " (a table rebuilt)" : ""}: ${statement.slice(0, 160)}`);
    }
  }
}
if (problems.length) {
  console.error("Migrations may only create tables and indexes and add columns (scripts/migrations-check.ts says why):");
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`migrations: ${files.length} files, additive only`);
