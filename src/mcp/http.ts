/**
 * `serveHttp`: the MCP server over Streamable HTTP, for an agent on another
 * machine than its commands. One MCP session (`Mcp-Session-Id`) is one
 * owner and one shell session, as one stdio connection is.
 *
 * The SDK's web-standard transport speaks the protocol; what is around it
 * is here, on `node:http` (the same on Deno and Node): the route of a
 * request through the token and the `Host` and `Origin` checks
 * (`http_auth.ts`), its body and answer (`http_io.ts`) and its session
 * (`http_sessions.ts`: the table, the cap, the idle clock and the end of
 * each session), and the connections' clocks. The options and their bounds
 * are checked in `http_options.ts`. Nothing is read of a request, not even
 * its body, before its token was checked.
 *
 * @module
 */

import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Shell } from "../seam/types.ts";
import { allowedHosts, fromAllowedPlace } from "./http_auth.ts";
import { CLOSE, header, readBody, reply, webHeaders, write } from "./http_io.ts";
import { checkOptions, type HttpServeOptions } from "./http_options.ts";
import { type HttpSession, HttpSessions } from "./http_sessions.ts";
import { buildServer, endConnection } from "./server.ts";

// The options' shape is in http_options.ts, with their check; the entry names it here, beside serveHttp.
export type { HttpServeOptions } from "./http_options.ts";

/**
 * A running HTTP server, as {@linkcode serveHttp} returns it.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { serveHttp, type McpHttpServer } from "@dsh/shell/mcp";
 * await using shell = createLocalShell();
 * const server: McpHttpServer = await serveHttp(shell, { token: crypto.randomUUID() + crypto.randomUUID() });
 * console.log(server.url.href); // http://127.0.0.1:<port>/mcp
 * await server.close();
 * ```
 */
export interface McpHttpServer {
  /** Where the server answers: `http://HOST:PORT/mcp`, with the port it got. */
  readonly url: URL;
  /** How many MCP sessions are open now. */
  readonly sessions: number;
  /**
   * How many HTTP connections are open now (a stream whose client stopped
   * reading is closed after `stalledReadTimeoutMs`, and stops counting).
   */
  readonly connections: number;
  /** Resolves once the server has closed (by `close()` or the `signal`). */
  readonly closed: Promise<void>;
  /**
   * Stops listening, ends every session (its calls aborted, its background
   * tasks killed) and resolves once their work has ended. The shell stays
   * open: close it next. Idempotent.
   */
  close(): Promise<void>;
  /** `close()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Serves the MCP server ({@linkcode createMcpServer}'s tools) over
 * Streamable HTTP at `/mcp`, and resolves once it listens.
 *
 * - **The token**: every request needs `Authorization: Bearer <token>`;
 *   anything else is 401 and nothing of it is read or run. A token in the
 *   URL is not one. Compared in constant time.
 * - **DNS rebinding**: a `Host` other than the server's (or
 *   `allowedHosts`), or a browser `Origin` other than the server's, is 403.
 * - **Sessions**: each MCP session is one owner and one shell session
 *   (`cd` and `export` carry over between its `bash` calls); a `DELETE`,
 *   `idleTimeoutMs` without a request, or `close()` ends it and everything
 *   it started. Past `maxSessions` open sessions a new one is 503.
 * - **Bounds**: a body over `maxBodyBytes` is 413; a request that has not
 *   arrived within `requestTimeoutMs` is 408; a response stream its client
 *   stopped reading is closed after `stalledReadTimeoutMs`.
 *
 * Throws `ShellSpecError` naming the field for an invalid option (never
 * quoting the token).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { serveHttp } from "@dsh/shell/mcp";
 * import { Client } from "@modelcontextprotocol/sdk/client";
 * import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
 * import assert from "node:assert/strict";
 *
 * await using shell = createLocalShell();
 * const token = crypto.randomUUID() + crypto.randomUUID();
 * await using server = await serveHttp(shell, { token });
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(
 *   new StreamableHTTPClientTransport(server.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
 * );
 * const result = await client.callTool({ name: "bash", arguments: { command: "echo hello" } });
 * assert.deepEqual(result.content, [{ type: "text", text: "hello" }]);
 * await client.close();
 * ```
 */
export async function serveHttp(shell: Shell, options: HttpServeOptions): Promise<McpHttpServer> {
  const checked = checkOptions(options);
  // The server's options are checked by the server: build one now, so a mistake is thrown here, not at the first
  // session (nothing runs: a server that was never connected only has its connection's session closed).
  await endConnection(buildServer(shell, { ...checked.server, owner: "mcp-http-options" }));
  const { token, host, port, extraHosts, idleTimeoutMs, maxSessions, maxBodyBytes, requestTimeoutMs, stalled } =
    checked;
  const signal = checked.signal;
  const sessions = new HttpSessions(shell, checked.server, idleTimeoutMs, maxSessions);
  let closing: Promise<void> | undefined;
  let allowed = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const place = fromAllowedPlace(allowed, req.headers.host, req.headers.origin);
    // Refused requests close their connection: their body is never read.
    if (!place.ok) return reply(res, 403, place.reason, CLOSE);
    if (!token.admits(req.headers.authorization)) {
      return reply(res, 401, "a bearer token is required", {
        ...CLOSE,
        "WWW-Authenticate": 'Bearer realm="dsh-shell"',
      });
    }
    const target = new URL(req.url ?? "/", "http://server");
    if (target.pathname !== "/mcp") return reply(res, 404, "not found: the server is at /mcp");
    if (closing !== undefined) return reply(res, 503, "the server is closing");
    const method = req.method ?? "";
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return reply(res, 405, "method not allowed", { Allow: "GET, POST, DELETE" });
    }
    const sessionId = header(req, "mcp-session-id");
    let body: unknown = undefined;
    if (method === "POST") {
      const read = await readBody(req, maxBodyBytes, requestTimeoutMs);
      if (read === "too large") return reply(res, 413, `the body is larger than ${maxBodyBytes} bytes`, CLOSE);
      if (read === "too slow") return reply(res, 408, `the body took longer than ${requestTimeoutMs} ms`, CLOSE);
      if (read === "failed") return void res.destroy();
      try {
        body = JSON.parse(read.toString("utf8"));
      } catch {
        return reply(res, 400, "the body is not JSON");
      }
    }
    let session: HttpSession;
    let reserved = false;
    if (sessionId === undefined) {
      if (method !== "POST" || !isInitializeRequest(body)) {
        return reply(res, 400, "Mcp-Session-Id is required but for an initialize request");
      }
      // Counted against the cap from here until it is registered or dropped, so a burst of initializes cannot pass it.
      if (!sessions.reserve()) {
        return reply(res, 503, `the server has its most sessions open (${maxSessions})`, { "Retry-After": "5" });
      }
      reserved = true;
      try {
        session = await sessions.create();
      } catch (error) {
        sessions.release();
        reserved = false;
        throw error;
      }
    } else {
      const found = sessions.get(sessionId);
      if (found === undefined) return reply(res, 404, "no such session");
      session = found;
    }
    if (method === "POST") sessions.postStarted(session);
    try {
      const request = new Request(new URL(`/mcp${target.search}`, "http://server"), {
        method,
        headers: webHeaders(req),
      });
      const response = await session.transport.handleRequest(request, { parsedBody: body });
      if (reserved) {
        sessions.release();
        reserved = false;
        // A session is open only once its initialize succeeded.
        if (response.ok && session.transport.sessionId === session.id && closing === undefined) {
          sessions.add(session);
        } else {
          void sessions.end(session);
        }
      }
      await write(res, response, stalled);
    } finally {
      // A transport that threw before answering leaves nothing reserved.
      if (reserved) {
        sessions.release();
        void sessions.end(session);
      }
      if (method === "POST") sessions.postEnded(session);
    }
  };

  const sockets = new Set<Socket>();
  // Per connection: the requests under way on it, and the clock that drops it when it sits with none (headers not yet
  // in, or idle between requests) for longer than `requestTimeoutMs`. Node's own headersTimeout does this on Node;
  // Deno's node:http does not enforce it, so the server does, the same on both.
  const clocks = new WeakMap<Socket, { active: number; timer: ReturnType<typeof setTimeout> | undefined }>();
  const armClock = (socket: Socket): void => {
    const clock = clocks.get(socket);
    if (clock === undefined || clock.active > 0) return;
    clearTimeout(clock.timer);
    clock.timer = setTimeout(() => socket.destroy(), requestTimeoutMs);
  };
  const http: HttpServer = createServer((req, res) => {
    const clock = clocks.get(req.socket);
    if (clock !== undefined) {
      clock.active++;
      clearTimeout(clock.timer);
      res.once("close", () => {
        clock.active--;
        if (!req.socket.destroyed) armClock(req.socket);
      });
    }
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, "internal error");
      else res.destroy();
    });
  });
  http.headersTimeout = requestTimeoutMs;
  http.requestTimeout = requestTimeoutMs;
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    clocks.set(socket, { active: 0, timer: undefined });
    armClock(socket);
    socket.once("close", () => {
      clearTimeout(clocks.get(socket)?.timer);
      sockets.delete(socket);
    });
  });
  http.on("clientError", (_error: Error, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  // Once listening, an accept that fails (EMFILE under a flood of connections) must not end the server: the runtime
  // goes on accepting when it can.
  http.on("error", () => {});
  const address = http.address() as AddressInfo;
  allowed = allowedHosts(host, address.port, extraHosts);
  const url = new URL(
    `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}/mcp`,
  );

  let closed = (): void => {};
  const whenClosed = new Promise<void>((resolve) => closed = resolve);
  const close = (): Promise<void> => {
    closing ??= (async () => {
      signal?.removeEventListener("abort", onAbort);
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      await sessions.endAll();
      for (const socket of sockets) socket.destroy();
      await stopped;
      closed();
    })();
    return closing;
  };
  const onAbort = (): void => void close();
  if (signal?.aborted) await close();
  else signal?.addEventListener("abort", onAbort, { once: true });

  return {
    url,
    get sessions() {
      return sessions.size;
    },
    get connections() {
      return sockets.size;
    },
    closed: whenClosed,
    close,
    [Symbol.asyncDispose]: close,
  };
}
