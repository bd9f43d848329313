/**
 * The trainer in production: a Cloudflare Container running src/container/server.ts (see the
 * Dockerfile), one instance per training job, named by the job id. It holds no credentials: its
 * calls to http://control.internal are intercepted here, inside the Worker, checked to concern
 * the container's own job, given the internal secret and answered by the internal control routes.
 * Its bulk transfers go to R2's S3 endpoint with URLs those routes presigned.
 */
import { Container, type OutboundHandlerContext } from "@cloudflare/containers";
import { MAX_SEARCH_INSTANCES, TRAINER_HEAP_PERCENT } from "../core/limits";
import { trialInstanceName } from "./trainer-client";

export class TrainerContainer extends Container {
  defaultPort = 8080;
  sleepAfter = "5m";
  enableInternet = false;
  envVars: Record<string, string> = {
    PORT: "8080",
    CONTROL_URL: "http://control.internal",
    // The heap as a share of the instance's memory: `instance_type` in wrangler.toml sizes both.
    NODE_OPTIONS: `--max-old-space-size-percentage=${TRAINER_HEAP_PERCENT}`,
  };

  constructor(...args: ConstructorParameters<typeof Container<Cloudflare.Env>>) {
    super(...args);
    const env = args[1];
    // The trainer moves its bulk bytes straight to and from R2 through presigned URLs the Worker
    // signs (src/storage/presign.ts), over HTTPS. The containers package intercepts HTTPS only
    // with `interceptHttps` (a CA to trust in the image, and every byte then proxied through this
    // Worker, which is what the URLs avoid), and an `allowedHosts` list gates only what it
    // intercepts: with the internet closed, HTTPS to R2 would just fail. So the internet is opened
    // when an S3 endpoint is configured; the container holds no credentials (only URLs valid 1 h
    // for its own job's objects), and its plain-HTTP control calls are still intercepted per host.
    if (/^https:\/\//.test(String(env.R2_S3_ENDPOINT ?? ""))) this.enableInternet = true;
  }

  /**
   * Only inbound requests renew the idle timer, and a training gets one (its dispatch): without
   * this a training longer than `sleepAfter` would be stopped half-way. Ask the trainer instead.
   */
  override async onActivityExpired(): Promise<void> {
    try {
      const res = await this.containerFetch(new Request("http://trainer/health"));
      const health = (await res.json()) as { running?: unknown[] };
      if (Array.isArray(health.running) && health.running.length > 0) {
        this.renewActivityTimeout();
        return;
      }
    } catch (e) {
      console.warn("trainer health check failed; stopping the idle container", e);
    }
    await this.stop();
  }
}

const ownJob = (env: Cloudflare.Env, jobId: string, containerId: string) => env.TRAINER.idFromName(jobId).toString() === containerId;

function ownSearch(env: Cloudflare.Env, jobId: string, path: string, containerId: string): boolean {
  if (!path.startsWith(`/internal/jobs/${jobId}/search/`)) return false;
  for (let slot = 0; slot < MAX_SEARCH_INSTANCES; slot++) {
    if (env.TRAINER.idFromName(trialInstanceName(jobId, slot)).toString() === containerId) return true;
  }
  return false;
}

/** Answers the container's calls to the control routes (the Worker's internal app, wired in index.ts). */
export type ControlHandler = (request: Request, env: Env) => Response | Promise<Response>;

/** Route the containers' calls to http://control.internal to `handle`, for their own job only. */
export function routeControlCalls(handle: ControlHandler): void {
  TrainerContainer.outboundByHost = {
    "control.internal": async (request: Request, env: Cloudflare.Env, ctx: OutboundHandlerContext) => {
      const url = new URL(request.url);
      const jobId = url.pathname.match(/^\/internal\/jobs\/([0-9a-f-]{36})\//)?.[1];
      // A container may act on its own job only (it is named by the job id, see trainer-client),
      // and a search trial's container (named by the job and its slot) on that job's search.
      if (!jobId || !(ownJob(env, jobId, ctx.containerId) || ownSearch(env, jobId, url.pathname, ctx.containerId))) {
        return Response.json({ detail: "Forbidden" }, { status: 403 });
      }
      const headers = new Headers(request.headers);
      headers.set("Authorization", `Bearer ${env.INTERNAL_SECRET}`);
      return handle(new Request(request, { headers }), env);
    },
  };
}
