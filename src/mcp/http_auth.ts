/**
 * Who may talk to the HTTP server: the bearer token, compared in constant
 * time, and the `Host` and `Origin` the server was started for (DNS
 * rebinding).
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";
import { ShellSpecError } from "../seam/errors.ts";

/** The fewest bytes a token may have: 32 random bytes is the least a guess cannot reach. */
export const MIN_TOKEN_BYTES = 32;

/**
 * The server's token, kept only as its digest: a request's token is hashed
 * the same way and the two digests (of equal length, whatever was sent) are
 * compared with `timingSafeEqual`, so the time taken says nothing of how
 * much of a guess was right, nor of the token's length.
 */
export class BearerToken {
  readonly #digest: Buffer;

  /** Throws `ShellSpecError` naming `token` (never quoting it) when it is not a usable token. */
  constructor(token: unknown) {
    if (typeof token !== "string") throw new ShellSpecError("token", "must be a string");
    const bytes = Buffer.byteLength(token, "utf8");
    if (bytes < MIN_TOKEN_BYTES) {
      throw new ShellSpecError("token", `must be at least ${MIN_TOKEN_BYTES} bytes, got ${bytes}`);
    }
    // A header value cannot carry these; a token that holds one could never be sent.
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u0020\u007f]/.test(token)) {
      throw new ShellSpecError("token", "must not hold blanks or control characters");
    }
    this.#digest = digest(token);
  }

  /** Whether `header` (the request's `Authorization`) is `Bearer <this token>`. */
  admits(header: string | undefined): boolean {
    if (header === undefined) return false;
    const match = /^bearer +(\S+) *$/i.exec(header);
    // Hash even what is no bearer header, so a malformed one takes the same path as a wrong token.
    const presented = digest(match === null ? "" : match[1]);
    return timingSafeEqual(presented, this.#digest) && match !== null;
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The hosts a loopback server answers to. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/**
 * The `Host` values the server answers to: what it was started for. A
 * server on loopback answers to the loopback names with its port; one on
 * every interface (`0.0.0.0`, `::`) also to this machine's addresses and
 * name; one on a given address to that address. `extra` are added as given
 * (exact `Host` values, as a proxy in front sends them).
 */
export function allowedHosts(bound: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set<string>();
  const add = (name: string) => names.add(`${bracketed(name)}:${port}`.toLowerCase());
  if (isLoopback(bound)) {
    LOOPBACK_NAMES.forEach(add);
  } else if (bound === "0.0.0.0" || bound === "::" || bound === "[::]") {
    LOOPBACK_NAMES.forEach(add);
    add(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) add(address.address);
    }
  } else {
    add(bound);
  }
  for (const host of extra) names.add(host.toLowerCase());
  return names;
}

/** Whether a request's `Host` and `Origin` headers are ones the server was started for. */
export function fromAllowedPlace(
  allowed: ReadonlySet<string>,
  host: string | undefined,
  origin: string | undefined,
): { ok: true } | { ok: false; reason: string } {
  if (host === undefined || !allowed.has(host.toLowerCase())) return { ok: false, reason: "Host is not this server" };
  // No Origin: not a browser (Claude Code, Codex, the SDKs send none). A browser's page must be this server's own.
  if (origin === undefined) return { ok: true };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, reason: "Origin is not a URL" };
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !allowed.has(url.host.toLowerCase())) {
    return { ok: false, reason: "Origin is not this server" };
  }
  return { ok: true };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
