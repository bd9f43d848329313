import type { IncomingMessage } from "node:http";

/** A request's whole body (the Node test servers standing in for the Worker and R2). */
export async function requestBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
