/**
 * The paths of `shell.files()`: absolute, or relative to the shell's
 * workdir, written out whole here so that the script is handed one absolute
 * path (never one starting with `-`) and the error names what was meant.
 *
 * @module
 */

import { ShellSpecError } from "../errors.ts";
import { showValue } from "../show_value.ts";

/**
 * The absolute form of `path` against `workdir`, with `.` segments and
 * repeated slashes taken out. Throws `ShellSpecError` naming `field` for a
 * path that is not a non-empty string, holds a NUL byte, or has a `..`
 * segment (where it leads is for the kernel of the machine the shell runs
 * on to say, through symbolic links; a path that climbs is refused rather
 * than guessed at).
 *
 * @example
 * ```ts ignore
 * resolveFilePath("src/./a.ts", "/work", "path"); // "/work/src/a.ts"
 * ```
 */
export function resolveFilePath(path: unknown, workdir: string, field: string): string {
  if (typeof path !== "string" || path === "") {
    throw new ShellSpecError(field, `must be a non-empty string: a path (got ${showValue(path)})`);
  }
  if (path.includes("\0")) throw new ShellSpecError(field, `must not contain a NUL byte (got ${JSON.stringify(path)})`);
  const joined = path.startsWith("/") ? path : `${workdir}/${path}`;
  const segments = joined.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    throw new ShellSpecError(
      field,
      `must not contain ".." segments; give the path from the workdir down, or an absolute one (got ${
        JSON.stringify(path)
      })`,
    );
  }
  return `/${segments.join("/")}`;
}

/** The directory that holds `path` (absolute, as `resolveFilePath` returns it). */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}
