/**
 * Reads what a session's command left (`script.ts`) and turns it into the
 * change the session takes: the directory it ended in, and the variables
 * it added, changed or unset, against the environment it was given.
 *
 * @module
 */

import { readFileSync, rmSync } from "node:fs";
import { DSH_ENV_PREFIX } from "../env/merge.ts";
import type { EnvPatch } from "../types.ts";
import { STATE_END } from "./script.ts";

/** A dump larger than this is no state (Linux caps a program's environment and arguments at a few MiB). */
const MAX_STATE_BYTES = 8 * 1024 * 1024;

/**
 * Names a session never takes: the shell's own bookkeeping (`_`, `PWD` and
 * `OLDPWD`, which the directory stands for; `SHLVL`, which every shell
 * raises by one), the managed `DSH_*` channel and exported functions
 * (`BASH_FUNC_*`: functions do not carry over).
 */
export function carriesOver(name: string): boolean {
  return !(name === "_" || name === "PWD" || name === "OLDPWD" || name === "SHLVL" ||
    name.startsWith(DSH_ENV_PREFIX) || name.startsWith("BASH_FUNC_"));
}

/** A name a POSIX shell can give a variable. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What one command changed. */
export interface StateChange {
  /** The absolute directory the command ended in. */
  readonly cwd: string;
  /** Each variable it added or changed, with its value; each it unset (or unexported), as `undefined`. */
  readonly env: EnvPatch;
}

/**
 * Reads and removes the dump at `path`, against `given` (the command's
 * environment as spawned). Undefined when there is none or it is not
 * whole: the command then changes nothing.
 */
export function takeState(path: string, given: Readonly<Record<string, string>>): StateChange | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  } finally {
    rmSync(path, { force: true });
  }
  if (bytes.length > MAX_STATE_BYTES) return undefined;
  return parseState(new TextDecoder().decode(bytes), given);
}

/** The change a dump (`text`) describes against `given`, or undefined when the dump is not whole. */
export function parseState(text: string, given: Readonly<Record<string, string>>): StateChange | undefined {
  const entries = text.split("\0");
  // `pwd`'s line, the environment's entries, the end mark, and the empty string after its NUL.
  if (entries.length < 3 || entries.at(-1) !== "" || entries.at(-2) !== STATE_END) return undefined;
  const line = entries[0];
  if (!line.endsWith("\n") || !line.startsWith("/")) return undefined;
  const cwd = line.slice(0, -1);
  const now = new Map<string, string>();
  for (const entry of entries.slice(1, -2)) {
    const equals = entry.indexOf("=");
    // An entry with no name, or no "=", is no variable a shell could have exported.
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (carriesOver(name)) now.set(name, entry.slice(equals + 1));
  }
  const env: EnvPatch = {};
  for (const [name, value] of now) {
    if (given[name] !== value) env[name] = value;
  }
  for (const name of Object.keys(given)) {
    // A name no shell variable can have (`A-B`) is passed on by the shell as it came, never unset by a command;
    // bash's own dump (`script.ts`) lists only the variables it holds, so its absence there says nothing.
    if (carriesOver(name) && !now.has(name) && SHELL_NAME.test(name)) env[name] = undefined;
  }
  return { cwd, env };
}
