/**
 * The trainer in production: a Cloudflare Container running src/container/server.ts (see the
 * Dockerfile), one instance per training job. It holds no credentials: its calls to
 * http://control.internal are intercepted here, inside the Worker, given the internal secret and
 * answered by the Worker's own internal control routes, so the container can reach only those.
 */
import { Container } from "@cloudflare/containers";
import { createApp } from "../api/app";

const app = createApp();

export class TrainerContainer extends Container {
  defaultPort = 8080;
  // A job reports at least every few seconds; an idle container goes away after this long.
  sleepAfter = "5m";
  enableInternet = false;
  envVars: Record<string, string> = { PORT: "8080", CONTROL_URL: "http://control.internal" };
}

TrainerContainer.outboundByHost = {
  "control.internal": async (request: Request, env: Env) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/internal/")) return new Response("Forbidden", { status: 403 });
    const headers = new Headers(request.headers);
    headers.set("Authorization", `Bearer ${env.INTERNAL_SECRET}`);
    return app.fetch(new Request(request, { headers }), env);
  },
};
