/**
 * The shell's options: validated, their defaults filled in, the spill
 * directory checked.
 *
 * @module
 */

import process from "node:process";
import { statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { SPILL_DIR_MISSING, spillDirProblem } from "../capture/spill.ts";
import { DEFAULTS } from "../defaults.ts";
import { ShellSpecError } from "../errors.ts";
import { type ResolvedSandbox, resolveSandbox } from "../sandbox/policy.ts";
import type { LocalShellOptions } from "../types.ts";
import { ownValue } from "../own_fields.ts";
import { optionsSchema } from "./schemas.ts";
import { parseOrThrow } from "./to_spec_error.ts";

/** `LocalShellOptions` after validation, with every default filled in. Internal. */
export interface ResolvedShellOptions {
  /** Absolute default working directory. */
  workdir: string;
  /** Default foreground timeout in ms. */
  timeoutMs: number;
  /** Cap on any requested timeout in ms. */
  maxTimeoutMs: number;
  /** In-memory budget per stream in bytes. */
  maxOutputBytes: number;
  /** Cap on one stream's spill file in bytes. */
  maxSpillBytes: number;
  /** Where spill files go; `undefined` means the private default directory. */
  spillDir: string | undefined;
  /** SIGTERM→SIGKILL delay and drain bound in ms. */
  graceMs: number;
  /** The shell program. */
  shell: string;
  /** A fixed ambient environment, or `undefined` to read the process environment at each spawn. */
  ambientEnv: Record<string, string | undefined> | undefined;
  /** Running background tasks per owner. */
  maxTasksPerOwner: number;
  /** Finished tasks kept readable per owner. */
  maxFinishedTasks: number;
  /** The most a session's command may leave as its state, in bytes. */
  maxSessionStateBytes: number;
  /** The sandbox policy with its paths resolved, or undefined for no sandbox. */
  sandbox: ResolvedSandbox | undefined;
}

/**
 * A shell's workdir that does not exist, or is no directory, is refused
 * when the shell is made, naming the option: every command would fail
 * otherwise, far from the mistake.
 */
function checkShellWorkdir(workdir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(workdir).isDirectory();
  } catch {
    throw new ShellSpecError("workdir", `no such directory: ${workdir}`);
  }
  if (!isDirectory) throw new ShellSpecError("workdir", `is not a directory: ${workdir}`);
}

/** Validates `options` and fills in every default. Throws {@linkcode ShellSpecError} naming the option. */
export function resolveOptions(options: LocalShellOptions | undefined): ResolvedShellOptions {
  return resolveWith(options, "here");
}

/**
 * The resolution of both kinds of shell; the workdir is checked on this
 * machine only when it is a path here.
 */
function resolveWith(options: LocalShellOptions | undefined, where: "here" | "engine"): ResolvedShellOptions {
  const given = parseOrThrow<LocalShellOptions>(optionsSchema, options ?? {}, "options");
  const workdir = resolvePath(process.cwd(), given.workdir ?? ".");
  // Only a workdir the caller gave: the process's own directory is what it is (commands then fail by name).
  if (where === "here" && given.workdir !== undefined) checkShellWorkdir(workdir);
  const spillDir = given.spillDir === undefined ? undefined : resolvePath(workdir, given.spillDir);
  if (spillDir !== undefined) checkSpillDir(spillDir);
  return {
    workdir,
    timeoutMs: given.timeoutMs ?? DEFAULTS.timeoutMs,
    maxTimeoutMs: given.maxTimeoutMs ?? DEFAULTS.maxTimeoutMs,
    maxOutputBytes: given.maxOutputBytes ?? DEFAULTS.maxOutputBytes,
    maxSpillBytes: given.maxSpillBytes ?? DEFAULTS.maxSpillBytes,
    spillDir,
    graceMs: given.graceMs ?? DEFAULTS.graceMs,
    shell: given.shell ?? DEFAULTS.shell,
    ambientEnv: given.ambientEnv,
    maxTasksPerOwner: given.maxTasksPerOwner ?? DEFAULTS.maxTasksPerOwner,
    maxFinishedTasks: given.maxFinishedTasks ?? DEFAULTS.maxFinishedTasks,
    maxSessionStateBytes: given.maxSessionStateBytes ?? DEFAULTS.maxSessionStateBytes,
    sandbox: given.sandbox === undefined || given.sandbox === false
      ? undefined
      : resolveSandbox(given.sandbox, workdir),
  };
}

/**
 * The options of a shell on a remote engine: the same as a local shell's,
 * except that `workdir` is required and must be absolute (it is a path on
 * the engine's side: this process's directory means nothing there), a
 * relative `spillDir` is this machine's (spill files stay local), and
 * `adapter`, a sandbox policy and `ambientEnv` are refused: the engine
 * spawns, and the ambient environment is the engine's own.
 */
export function resolveRemoteOptions(options: LocalShellOptions | undefined, engine: string): ResolvedShellOptions {
  if (typeof options !== "object" || options === null) {
    throw new ShellSpecError("workdir", `is required for the ${engine} engine: an absolute path on the engine's side`);
  }
  const refuse = (field: string, why: string): never => {
    throw new ShellSpecError(field, `makes no sense for the ${engine} engine: ${why}`);
  };
  if (ownValue(options, "adapter") !== undefined) refuse("adapter", "the engine starts the commands");
  const sandbox = ownValue(options, "sandbox");
  if (sandbox !== undefined && sandbox !== false) refuse("sandbox", "the engine is the boundary (a container, a host)");
  if (ownValue(options, "ambientEnv") !== undefined) {
    refuse("ambientEnv", "the ambient environment is the engine's own; pass what a command needs through env");
  }
  const workdir = ownValue(options, "workdir");
  if (workdir === undefined) {
    throw new ShellSpecError("workdir", `is required for the ${engine} engine: an absolute path on the engine's side`);
  }
  if (typeof workdir === "string" && !workdir.startsWith("/")) {
    throw new ShellSpecError("workdir", `must be an absolute path on the ${engine} engine's side`);
  }
  const local: LocalShellOptions = { ...options };
  const spillDir = ownValue(options, "spillDir");
  if (typeof spillDir === "string") local.spillDir = resolvePath(process.cwd(), spillDir);
  return resolveWith(local, "engine");
}

/**
 * An existing spill directory must be the caller's own private directory
 * (see `spillDirProblem`): not a symbolic link (never followed: it could
 * point the complete output of every command somewhere an attacker reads),
 * a directory, owned by this process's user, not writable by group or
 * others, and writable by us. A missing one is created (0700) at the first
 * spill, and every spill checks the directory again.
 */
function checkSpillDir(dir: string): void {
  const problem = spillDirProblem(dir);
  if (problem === undefined || problem === SPILL_DIR_MISSING) return;
  throw new ShellSpecError("spillDir", `${problem}: ${dir}`);
}
