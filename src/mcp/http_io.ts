/**
 * The bytes of `serveHttp`'s requests and answers on `node:http`: a
 * request's body read within its bounds, its headers for the SDK's
 * transport (without the token), the transport's response written as fast
 * as the client reads it, and the small JSON-RPC error answers.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";

/** The header that closes the connection after a refusal: the refused request's body is never read. */
export const CLOSE = { Connection: "close" };

/** Answers with a small JSON-RPC error body (what MCP clients show), `status`, and `headers`. */
export function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  res.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/** A request header's (first) value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request's headers for the transport, but the token: nothing past this module sees it. */
export function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === "authorization" || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

export type BodyRead = Buffer | "too large" | "too slow" | "failed";

/**
 * The body, at most `max` bytes within `ms`: a declared or a received length past the bound is refused without
 * reading on, and so is a body still arriving when the time is up (a slow client holds nothing for long).
 */
export function readBody(req: IncomingMessage, max: number, ms: number): Promise<BodyRead> {
  if (Number(req.headers["content-length"]) > max) return Promise.resolve("too large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      req.pause();
      done("too slow");
    }, ms);
    const done = (outcome: BodyRead): void => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onError);
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        done("too large");
      } else chunks.push(chunk);
    };
    const onEnd = (): void => done(Buffer.concat(chunks));
    const onError = (): void => done("failed");
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onError);
  });
}

/**
 * Writes the transport's response. A stream is read only as fast as the
 * client takes it; a client that stops taking it for `stalledMs` has it
 * closed, and with it what the transport had queued for it.
 */
export async function write(res: ServerResponse, response: Response, stalledMs: number): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => headers[name] = value);
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const gone = (): void => void reader.cancel().catch(() => {});
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value) && !await drained(res, stalledMs)) {
        res.destroy();
        break;
      }
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", gone);
    gone();
  }
}

/** Resolves true once `res` drains, false when it has not within `ms` or closed first. */
function drained(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = (): void => finish(true);
    const onClose = (): void => finish(false);
    const timer = setTimeout(() => finish(false), ms);
    res.once("drain", onDrain);
    res.once("close", onClose);
  });
}
