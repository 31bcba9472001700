/**
 * The workdir check before a spawn, so that a missing workdir is reported
 * by name (a runtime would say the shell was not found) and nothing is
 * spawned at all.
 *
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { ShellSpawnError } from "../errors.ts";

/** Throws {@linkcode ShellSpawnError} naming `workdir` when it is missing or not a directory. */
export function checkWorkdir(workdir: string): void {
  // The common case in one cheap call: with a trailing slash the path must
  // resolve to a directory (a symlink to one counts, as with stat). Deno's
  // node:fs statSync builds a whole Stats object, which cost 50-90 us per
  // command there, and its accessSync checks modes on one; existsSync only
  // asks (2 us there, against 5 for accessSync). Any failure gets the full check.
  if (existsSync(`${workdir}/`)) return;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(workdir).isDirectory();
  } catch (error) {
    throw new ShellSpawnError(`workdir does not exist: ${workdir}`, workdir, { cause: error });
  }
  if (!isDirectory) throw new ShellSpawnError(`workdir is not a directory: ${workdir}`, workdir);
}
