/**
 * Finding a program on `PATH` for a sandboxed shell. What is found runs on
 * the host (bubblewrap itself; the shell of a `sandbox: false` request), so
 * a `PATH` directory that a sandboxed command could write is skipped: a
 * harness started by `npm run` has `<project>/node_modules/.bin` first on
 * `PATH`, and the project is the sandbox's workdir, where a model's command
 * could plant a `bwrap` or a `bash` of its own.
 *
 * @module
 */

import process from "node:process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { isUnder, realOrUndefined } from "./paths.ts";

/**
 * The first executable `name` in the host's `PATH` directories that are
 * absolute and not inside any of `writable` (real paths), or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findOnPath } from "./lookup.ts";
 * const sh = findOnPath("sh", []);
 * assert.ok(sh === undefined || sh.endsWith("/sh"));
 * assert.equal(findOnPath("sh", ["/"]), undefined); // every directory is writable: none is searched
 * ```
 */
export function findOnPath(name: string, writable: readonly string[]): string | undefined {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const real = realOrUndefined(dir);
    if (real === undefined || writable.some((root) => isUnder(real, root))) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Whether `path` is a file this process may execute.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isExecutableFile } from "./lookup.ts";
 * assert.equal(isExecutableFile("/nonexistent/dsh"), false);
 * ```
 */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
