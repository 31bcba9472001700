/**
 * Path questions every part of the sandbox asks: is one path inside
 * another, and where does a path really lead now.
 *
 * @module
 */

import { existsSync, realpathSync, statSync } from "node:fs";
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
  // Up to the deepest directory that exists, or to one this spawn already found searchable: most denied paths share
  // a parent, and `checked` is trusted for the rest of the spawn as it always was (a directory in it is not asked
  // again; the directories below it on the way were missing).
  let dir = dirname(path);
  while (!checked.has(dir) && !existsSync(dir) && dir !== dirname(dir)) dir = dirname(dir);
  if (checked.has(dir)) return undefined;
  // With a trailing slash only a directory resolves: the common case in one cheap call (Deno's statSync builds a
  // whole Stats object). Otherwise the full look, which throws when the directory cannot be looked at any more.
  if (!existsSync(`${dir}/`) && !isDirectoryOrThrow(dir, path)) return undefined;
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

/**
 * Whether `dir` is a directory; false for a file where a directory should
 * be (nothing can be below it). A `dir` that can no longer be looked at (a
 * command made its parent unsearchable, or removed it, since it was found)
 * is a {@linkcode ShellSandboxError}: it must not pass for "nothing there".
 */
function isDirectoryOrThrow(dir: string, path: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch (error) {
    throw new ShellSandboxError(
      `cannot tell whether ${path} exists: ${dir} cannot be looked at (a command may have changed it); ` +
        `nothing runs until it can be`,
      { cause: error },
    );
  }
}
