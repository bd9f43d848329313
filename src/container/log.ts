/**
 * The trainer's log: one JSON object a line on stdout, so that a log pipeline (the container's
 * logs in the Cloudflare dashboard, `wrangler tail`'s container output, or `npm start`'s terminal)
 * can filter by job. Fields: `time`, `level`, `component` ("trainer"), `pid`, `msg`, and what the
 * caller knows: `job_id`, `attempt`, `organization`, `duration_ms`, `status`.
 */

type Fields = Record<string, string | number | boolean | null | undefined>;

function write(level: "info" | "warn" | "error", msg: string, fields: Fields): void {
  const line = JSON.stringify({ time: new Date().toISOString(), level, component: "trainer", pid: process.pid, msg, ...fields });
  if (level === "info") console.log(line);
  else console.error(line);
}

export const log = (msg: string, fields: Fields = {}) => write("info", msg, fields);
export const logWarning = (msg: string, fields: Fields = {}) => write("warn", msg, fields);
export const logError = (msg: string, fields: Fields = {}) => write("error", msg, fields);
