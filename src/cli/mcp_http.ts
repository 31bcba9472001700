/**
 * `dsh-shell mcp --http HOST:PORT --token-file FILE`: the flags of the HTTP
 * mode, checked before any shell is made, and the serving itself.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { type HttpServeOptions, type McpHttpServer, type McpServerOptions, serveHttp } from "../mcp/mod.ts";
import type { Shell } from "../seam/types.ts";
import { type ParsedArgs, parseMs, UsageError } from "./args.ts";
import type { CliOutput } from "./io.ts";

/** The fewest bytes of a token, as `serveHttp` checks it: said here against the flag, before any shell is made. */
const MIN_TOKEN_BYTES = 32;

/** The flags of the HTTP mode: values, and `allowed-host` a list. */
export const HTTP_VALUES: readonly string[] = ["http", "token-file", "idle-timeout", "max-sessions"];
/** The repeatable flag of the HTTP mode. */
export const HTTP_LISTS: readonly string[] = ["allowed-host"];

/** What `--http` and its companions asked for; the token read from its file. */
export type HttpFlags = Omit<HttpServeOptions, keyof McpServerOptions | "signal">;

/**
 * The HTTP mode's flags, checked (each mistake a `UsageError` naming its
 * flag), with the token read once from `--token-file`; undefined without
 * `--http`. The token is never part of a message.
 */
export function parseHttpFlags(parsed: ParsedArgs): HttpFlags | undefined {
  const address = parsed.values.get("http");
  if (address === undefined) {
    const stray = [...HTTP_VALUES, ...HTTP_LISTS].find((flag) => parsed.values.has(flag) || parsed.lists.has(flag));
    if (stray !== undefined) throw new UsageError(`--${stray} is an option of --http: give --http HOST:PORT too`);
    return undefined;
  }
  const { host, port } = hostPort(address);
  const file = parsed.values.get("token-file");
  if (file === undefined) throw new UsageError("--token-file FILE is required with --http (the bearer token)");
  const idle = parsed.values.get("idle-timeout");
  const max = parsed.values.get("max-sessions");
  let maxSessions: number | undefined;
  if (max !== undefined) {
    maxSessions = Number(max);
    if (!/^\d+$/.test(max) || maxSessions < 1 || maxSessions > 1_000_000) {
      throw new UsageError(`--max-sessions needs a whole number from 1 to 1000000, got ${JSON.stringify(max)}`);
    }
  }
  let idleTimeoutMs: number | undefined;
  if (idle !== undefined) {
    idleTimeoutMs = parseMs(idle, "--idle-timeout");
    if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs > 2 ** 31 - 1) {
      throw new UsageError(`--idle-timeout needs a whole number of milliseconds up to 2147483647, got ${idle}`);
    }
  }
  return {
    token: readToken(file),
    host,
    port,
    allowedHosts: parsed.lists.get("allowed-host") ?? [],
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
  };
}

/**
 * Serves `shell` over HTTP, with the MCP server's options `server` (those
 * stdio gets), until `signal` aborts (SIGTERM, Ctrl-C): then
 * every session is ended and everything it started killed. Writes the
 * `listening on` line to stderr once it listens.
 */
export async function serveOverHttp(
  shell: Shell,
  flags: HttpFlags,
  server: Omit<McpServerOptions, "owner">,
  output: CliOutput,
  signal: AbortSignal,
): Promise<void> {
  let listening: McpHttpServer;
  try {
    listening = await serveHttp(shell, { ...server, ...flags, signal });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // EADDRINUSE, EADDRNOTAVAIL, EACCES: the address is the flag's.
    if (typeof code === "string" && code.startsWith("E")) {
      throw new UsageError(`--http: cannot listen on ${flags.host}:${flags.port}: ${code}`);
    }
    throw error;
  }
  output.err(`dsh-shell mcp: listening on ${listening.url.href}\n`);
  await listening.closed;
}

/** `HOST:PORT` (`[::1]:PORT` for IPv6; `:PORT` for the default host, 127.0.0.1). */
function hostPort(address: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(address);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new UsageError(`--http needs HOST:PORT (port 0 to 65535), got ${JSON.stringify(address)}`);
  }
  const host = match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

/** The token: the file's content without the blanks around it (a trailing newline), read once. */
function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code ?? "unreadable";
    throw new UsageError(`--token-file: cannot read ${JSON.stringify(file)}: ${code}`);
  }
  const token = text.trim();
  const bytes = Buffer.byteLength(token, "utf8");
  if (bytes < MIN_TOKEN_BYTES) {
    throw new UsageError(`--token-file: the token must be at least ${MIN_TOKEN_BYTES} bytes, got ${bytes}`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(token)) {
    throw new UsageError("--token-file: the token must be one line with no blanks or control characters");
  }
  return token;
}
