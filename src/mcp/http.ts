/**
 * `serveHttp`: the MCP server over Streamable HTTP, for an agent on another
 * machine than its commands. One MCP session (`Mcp-Session-Id`) is one
 * owner and one shell session, as one stdio connection is.
 *
 * The SDK's web-standard transport speaks the protocol; what is around it
 * is here, on `node:http` (the same on Deno and Node): the token, the
 * `Host` and `Origin` checks, the bounds (body, time, sessions) and the
 * end of each session. Nothing is read of a request, not even its body,
 * before its token was checked.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server";
// Deno does not find the types of the package's wildcard exports (`./*.js`); tsc does. The same file, named for Deno.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ShellSpecError } from "../seam/errors.ts";
import { ownValue } from "../seam/own_fields.ts";
import type { Shell } from "../seam/types.ts";
import { allowedHosts, BearerToken, fromAllowedPlace } from "./http_auth.ts";
import { buildServer, endConnection } from "./server.ts";
import type { McpServerOptions } from "./types.ts";

/**
 * How {@linkcode serveHttp} serves: the token, where it listens, and its
 * bounds. The tool options are {@linkcode McpServerOptions}'s, but `owner`:
 * each MCP session has its own.
 *
 * @example
 * ```ts
 * import type { HttpServeOptions } from "@dsh/shell/mcp";
 * const options: HttpServeOptions = { token: "x".repeat(32), port: 0, maxSessions: 4 };
 * console.log(options.maxSessions);
 * ```
 */
export interface HttpServeOptions extends Omit<McpServerOptions, "owner"> {
  /**
   * The bearer token every request must carry (`Authorization: Bearer
   * <token>`): at least 32 bytes, no blanks. Required; never logged.
   */
  token: string;
  /** The address to listen on (default `"127.0.0.1"`: this machine only). */
  host?: string;
  /** The port (default `0`: one the system picks; see {@linkcode McpHttpServer.url}). */
  port?: number;
  /**
   * More `Host` values to answer to, exactly as requests carry them (a
   * proxy in front: `"mcp.example.com"`). By default the server answers
   * only to the address it listens on (the loopback names for loopback).
   */
  allowedHosts?: readonly string[];
  /** A session with no request for this long is ended (default 30 minutes). */
  idleTimeoutMs?: number;
  /** The most sessions open at once (default 16); a new one past it is answered 503. */
  maxSessions?: number;
  /** The largest request body, in bytes (default 1 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
  /** The time a request has to arrive, headers and body (default 30 s); past it, 408 and the socket closed. */
  requestTimeoutMs?: number;
  /**
   * How long a client may stop reading a response stream (default 30 s):
   * the stream is then closed, so an unread stream holds no memory.
   */
  stalledReadTimeoutMs?: number;
  /** Closes the server (as {@linkcode McpHttpServer.close}) when aborted. */
  signal?: AbortSignal;
}

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

const MINUTE = 60_000;
// How long an ending session waits for the answers of its aborted calls to be written.
const ANSWER_GRACE_MS = 2_000;
// setTimeout's largest delay; a longer one fires at once.
const MAX_DELAY_MS = 2 ** 31 - 1;

/** One MCP session: its transport, its server (and so its owner and shell session), and its idle clock. */
interface Session {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** POST requests under way: a session is idle only when none is. */
  posts: number;
  /** Told when `posts` falls to 0. */
  quiet: (() => void)[];
  idle: ReturnType<typeof setTimeout> | undefined;
  ending: Promise<void> | undefined;
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
  const sessions = new Map<string, Session>();
  // Sessions being created: they count against the cap before their id is known.
  let opening = 0;
  let closing: Promise<void> | undefined;
  let allowed = new Set<string>();

  const endSession = (session: Session): Promise<void> => {
    session.ending ??= (async () => {
      clearTimeout(session.idle);
      sessions.delete(session.id);
      // The calls are aborted and the tasks killed; this resolves once they have ended.
      await endConnection(session.server);
      // The aborted calls' answers are on their way to their streams: let them go out before the streams close
      // (a client would otherwise wait for them until its own timeout), for a moment at most.
      if (session.posts > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => session.quiet.push(resolve)),
          new Promise<void>((resolve) => timer = setTimeout(resolve, ANSWER_GRACE_MS)),
        ]);
        clearTimeout(timer);
      }
      await session.transport.close();
    })();
    return session.ending;
  };
  const armIdle = (session: Session): void => {
    clearTimeout(session.idle);
    session.idle = setTimeout(() => void endSession(session), idleTimeoutMs);
    // The clock alone must not keep a process alive whose server was closed.
    (session.idle as { unref?: () => void }).unref?.();
  };

  const openSession = async (): Promise<Session> => {
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      // Awaited by the transport before it answers a DELETE: the answer comes once the session's work has ended.
      onsessionclosed: () => endSession(session),
    });
    const server = buildServer(shell, { ...checked.server, owner: `mcp-http-${id}` });
    const session: Session = { id, transport, server, posts: 0, quiet: [], idle: undefined, ending: undefined };
    transport.onclose = () => void endSession(session);
    await server.connect(transport);
    return session;
  };

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
    let session: Session;
    let reserved = false;
    if (sessionId === undefined) {
      if (method !== "POST" || !isInitializeRequest(body)) {
        return reply(res, 400, "Mcp-Session-Id is required but for an initialize request");
      }
      if (sessions.size + opening >= maxSessions) {
        return reply(res, 503, `the server has its most sessions open (${maxSessions})`, { "Retry-After": "5" });
      }
      // Counted against the cap from here until it is registered or dropped, so a burst of initializes cannot pass it.
      opening++;
      reserved = true;
      try {
        session = await openSession();
      } catch (error) {
        opening--;
        reserved = false;
        throw error;
      }
    } else {
      const found = sessions.get(sessionId);
      if (found === undefined || found.ending !== undefined) return reply(res, 404, "no such session");
      session = found;
    }
    if (method === "POST") {
      session.posts++;
      clearTimeout(session.idle);
    }
    try {
      const request = new Request(new URL(`/mcp${target.search}`, "http://server"), {
        method,
        headers: webHeaders(req),
      });
      const response = await session.transport.handleRequest(request, { parsedBody: body });
      if (reserved) {
        opening--;
        reserved = false;
        // A session is open only once its initialize succeeded.
        if (response.ok && session.transport.sessionId === session.id && closing === undefined) {
          sessions.set(session.id, session);
        } else {
          void endSession(session);
        }
      }
      await write(res, response, stalled);
    } finally {
      // A transport that threw before answering leaves nothing reserved.
      if (reserved) {
        opening--;
        void endSession(session);
      }
      if (method === "POST" && --session.posts === 0) {
        session.quiet.splice(0).forEach((tell) => tell());
        if (session.ending === undefined) armIdle(session);
      }
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
      await Promise.all([...sessions.values()].map(endSession));
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

const CLOSE = { Connection: "close" };

/** Answers with a small JSON-RPC error body (what MCP clients show), `status`, and `headers`. */
function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
  res.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request's headers for the transport, but the token: nothing past this module sees it. */
function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === "authorization" || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

type BodyRead = Buffer | "too large" | "too slow" | "failed";

/**
 * The body, at most `max` bytes within `ms`: a declared or a received length past the bound is refused without
 * reading on, and so is a body still arriving when the time is up (a slow client holds nothing for long).
 */
function readBody(req: IncomingMessage, max: number, ms: number): Promise<BodyRead> {
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
async function write(res: ServerResponse, response: Response, stalledMs: number): Promise<void> {
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

interface Checked {
  token: BearerToken;
  host: string;
  port: number;
  extraHosts: readonly string[];
  idleTimeoutMs: number;
  maxSessions: number;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  stalled: number;
  signal: AbortSignal | undefined;
  server: McpServerOptions;
}

/** The options, own properties only, checked; throws `ShellSpecError` naming the field. */
function checkOptions(options: HttpServeOptions): Checked {
  if (typeof options !== "object" || options === null) throw new ShellSpecError("options", "must be an object");
  if (Object.hasOwn(options, "owner")) {
    throw new ShellSpecError("owner", "is not an option of serveHttp: each MCP session has its own owner");
  }
  const token = new BearerToken(ownValue(options, "token"));
  const host = ownValue(options, "host") ?? "127.0.0.1";
  if (typeof host !== "string" || host === "") throw new ShellSpecError("host", "must be a non-empty string");
  const port = ownValue(options, "port") ?? 0;
  if (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535) {
    throw new ShellSpecError("port", "must be an integer from 0 to 65535");
  }
  const extraHosts = ownValue(options, "allowedHosts") ?? [];
  if (!Array.isArray(extraHosts) || !extraHosts.every((one) => typeof one === "string" && one !== "")) {
    throw new ShellSpecError("allowedHosts", "must be an array of non-empty strings");
  }
  const signal = ownValue(options, "signal");
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ShellSpecError("signal", "must be an AbortSignal");
  }
  // What is not the HTTP layer's is the MCP server's (tools, openWorld, and whatever createMcpServer takes).
  const {
    token: _token,
    host: _host,
    port: _port,
    allowedHosts: _allowedHosts,
    idleTimeoutMs: _idle,
    maxSessions: _max,
    maxBodyBytes: _body,
    requestTimeoutMs: _request,
    stalledReadTimeoutMs: _stalled,
    signal: _signal,
    ...server
  } = options;
  return {
    token,
    host,
    port: port as number,
    extraHosts: [...extraHosts],
    idleTimeoutMs: positive(options, "idleTimeoutMs", 30 * MINUTE, MAX_DELAY_MS),
    maxSessions: positive(options, "maxSessions", 16, 1_000_000),
    maxBodyBytes: positive(options, "maxBodyBytes", 1024 * 1024, 2 ** 31),
    requestTimeoutMs: positive(options, "requestTimeoutMs", 30_000, MAX_DELAY_MS),
    stalled: positive(options, "stalledReadTimeoutMs", 30_000, MAX_DELAY_MS),
    signal,
    server,
  };
}

function positive(options: HttpServeOptions, field: keyof HttpServeOptions, fallback: number, max: number): number {
  const value = ownValue(options, field) ?? fallback;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > max) {
    throw new ShellSpecError(field, `must be an integer from 1 to ${max}`);
  }
  return value as number;
}
