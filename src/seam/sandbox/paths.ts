/**
 * Path questions every part of the sandbox asks: is one path inside
 * another, and where does a path really lead now.
 *
 * @module
 */

import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { ShellSandboxError } from "../errors.ts";

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

/**
 * The real path of `path` that must be hidden or protected, or undefined
 * when it truly does not exist. A path that cannot be looked at is not
 * missing: a command that can write a directory above it could `chmod 000`
 * that directory, and the harness (as an ordinary user) would then see
 * nothing there and skip the mask. So when the path is not found, the
 * deepest directory above it that exists must be searchable; otherwise
 * this throws {@linkcode ShellSandboxError} naming both. `checked` remembers
 * directories already found searchable during one spawn (the default
 * `denyRead` paths share a few parents).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { realIfPresent } from "./paths.ts";
 * assert.equal(realIfPresent("/nonexistent/dsh", new Set()), undefined);
 * assert.equal(realIfPresent("/usr", new Set()), "/usr");
 * ```
 */
export function realIfPresent(path: string, checked: Set<string>): string | undefined {
  const real = realOrUndefined(path);
  if (real !== undefined) return real;
  // Up to the deepest directory that exists, or one this spawn already found searchable (then every directory
  // below it on the way was missing, and nothing is left to ask): most denied paths share a parent.
  let dir = dirname(path);
  while (!checked.has(dir) && !existsSync(dir) && dir !== dirname(dir)) dir = dirname(dir);
  // A file where a directory should be: nothing can be below it. With a trailing slash only a directory resolves
  // (Deno's statSync builds a whole Stats object, several times the cost).
  if (checked.has(dir) || !existsSync(`${dir}/`)) return undefined;
  // Searchable when `dir/.` can be looked up: the kernel decides, root included (Deno's access() guesses from the
  // mode bits, wrongly for root).
  if (!existsSync(`${dir}/.`)) {
    throw new ShellSandboxError(
      `cannot tell whether ${path} exists: ${dir} cannot be searched (a command may have changed its permissions); ` +
        `nothing runs until it can be`,
    );
  }
  checked.add(dir);
  return undefined;
}
