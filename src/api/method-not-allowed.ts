import type { Hono } from "hono";

/**
 * Hono answers an unknown method on a known path with 404. To answer 405 with an `Allow`
 * header instead, match the path against the registered routes' patterns.
 */
export function allowedMethods(app: Hono<any>, path: string): string[] {
  const methods = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" || !patternOf(r.path).test(path)) continue;
    methods.add(r.method);
  }
  return [...methods];
}

const cache = new Map<string, RegExp>();

function patternOf(routePath: string): RegExp {
  let re = cache.get(routePath);
  if (!re) {
    const body = routePath
      .split("/")
      .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    re = new RegExp(`^${body}/?$`);
    cache.set(routePath, re);
  }
  return re;
}
