/**
 * Path questions every part of the sandbox asks: is one path inside
 * another, and where does a path really lead now.
 *
 * @module
 */

import { existsSync, realpathSync } from "node:fs";

/**
 * Whether `path` is `dir` or below it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isUnder } from "./paths.ts";
 * assert.equal(isUnder("/srv/a/b", "/srv/a"), true);
 * assert.equal(isUnder("/srv/ab", "/srv/a"), false);
 * ```
 */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The real path of `path` now, or undefined when it does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { realOrUndefined } from "./paths.ts";
 * assert.equal(realOrUndefined("/nonexistent/dsh"), undefined);
 * assert.equal(realOrUndefined("/"), "/");
 * ```
 */
export function realOrUndefined(path: string): string | undefined {
  // Asked for every denyRead path at every spawn, and most of them are missing: a thrown ENOENT costs ten times
  // what existsSync does (measured on both runtimes). The native realpath is one call instead of one per component.
  if (!existsSync(path)) return undefined;
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
