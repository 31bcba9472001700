/**
 * Random hex digits for the names the library makes up: a command's mark,
 * a spill file's name, a remote header's nonce, a task's id.
 *
 * They come from a pool of random bytes that `crypto.getRandomValues`
 * refills 4 KiB at a time, not from one call per name, because of what
 * a spawn does to Node's generator: Node's random bytes come from
 * OpenSSL, which reseeds its generator in a process that has forked, and
 * every spawn forks. The first `getRandomValues` after each spawn took
 * 228 µs here against 18 µs between two calls with no spawn (Node 20,
 * measured for issue 26): about a third of what `run()` added to a spawn
 * (+6.2 % of it before the pool, +3.9 % after, in one A/B run). With the
 * pool, that reseed is paid once per 256 marks. The bytes are the same
 * generator's either way (Node's own `crypto.randomUUID` keeps such a
 * pool), and the pool lives in the host's memory, where every mark it
 * hands out is kept anyway.
 *
 * Internal: not exported from the seam.
 *
 * @module
 */

import { ShellArgumentError } from "./errors.ts";

/** How many random bytes one refill draws. */
const POOL_BYTES = 4096;

/** Each byte's two hex digits, by value. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

let pool = new Uint8Array(0);
let used = 0;

/**
 * `byteCount` fresh random bytes as `2 × byteCount` lowercase hex digits.
 * No byte is handed out twice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { randomHex } from "./random_hex.ts";
 * assert.match(randomHex(16), /^[0-9a-f]{32}$/);
 * assert.notEqual(randomHex(16), randomHex(16));
 * ```
 */
export function randomHex(byteCount: number): string {
  if (!Number.isInteger(byteCount) || byteCount < 0) {
    throw new ShellArgumentError("byteCount", `randomHex() needs a whole number ≥ 0, got ${byteCount}`);
  }
  if (byteCount > POOL_BYTES) return hexOf(crypto.getRandomValues(new Uint8Array(byteCount)), 0, byteCount);
  if (used + byteCount > pool.length) {
    // getRandomValues fills at most 65 536 bytes a call: 4 KiB is well within.
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  const hex = hexOf(pool, used, byteCount);
  used += byteCount;
  return hex;
}

function hexOf(bytes: Uint8Array, from: number, count: number): string {
  let hex = "";
  for (let i = from; i < from + count; i++) hex += HEX[bytes[i]];
  return hex;
}
