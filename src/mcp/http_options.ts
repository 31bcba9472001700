/**
 * The options of `serveHttp`: their shape, and their check (own properties
 * only, each bound in range, the token by `http_auth.ts`), which throws
 * `ShellSpecError` naming the field and never quoting the token.
 *
 * @module
 */

import { ShellSpecError } from "../seam/errors.ts";
import { ownValue } from "../seam/own_fields.ts";
import { BearerToken } from "./http_auth.ts";
import type { McpServerOptions } from "./types.ts";

const MINUTE = 60_000;
// setTimeout's largest delay; a longer one fires at once.
const MAX_DELAY_MS = 2 ** 31 - 1;

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

/** The options of `serveHttp`, checked, with their defaults filled in. */
export interface CheckedHttpOptions {
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
export function checkOptions(options: HttpServeOptions): CheckedHttpOptions {
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
