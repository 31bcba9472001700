/**
 * Validation and defaulting: options become {@linkcode ResolvedShellOptions},
 * requests become specs, and hand-built specs are checked the same way.
 *
 * @module
 */

import process from "node:process";
import { resolve as resolvePath } from "node:path";
import { SPILL_DIR_MISSING, spillDirProblem } from "./capture/spill.ts";
import { ShellSpecError } from "./errors.ts";
import { ownValue } from "./own_fields.ts";
import { optionsSchema, requestSchema, specSchema } from "./schemas.ts";
import { parseOrThrow } from "./validate.ts";
import type { LocalShellOptions, ResolvedShellOptions, ShellExecRequest, ShellExecSpec } from "./types.ts";

/**
 * The defaults of {@linkcode LocalShellOptions}, in one place.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from "@dsh/shell";
 * console.log(DEFAULTS.timeoutMs, DEFAULTS.graceMs); // 120000 3000
 * ```
 */
export const DEFAULTS = {
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputBytes: 64_000,
  maxSpillBytes: 64 * 1024 * 1024,
  graceMs: 3_000,
  shell: "bash",
  maxTasksPerOwner: 10,
  maxFinishedTasks: 100,
} as const;

/** Validates `options` and fills in every default. Throws {@linkcode ShellSpecError} naming the option. */
export function resolveOptions(options: LocalShellOptions | undefined): ResolvedShellOptions {
  const given = parseOrThrow<LocalShellOptions>(optionsSchema, options ?? {}, "options");
  const workdir = resolvePath(process.cwd(), given.workdir ?? ".");
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
  };
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

/** Validates `request`, applies the shell's defaults and caps, and returns the spec. */
export function resolveRequest(request: ShellExecRequest, options: ResolvedShellOptions): ShellExecSpec {
  const given = parseOrThrow<ShellExecRequest>(requestSchema, request, "request");
  return withOptionals({
    command: given.command,
    workdir: resolvePath(options.workdir, given.workdir ?? "."),
    timeoutMs: Math.min(given.timeoutMs ?? options.timeoutMs, options.maxTimeoutMs),
    stdoutMaxBytes: given.stdoutMaxBytes ?? options.maxOutputBytes,
    owner: given.owner,
  }, given);
}

/** Validates a hand-built spec the way `resolve()` validates a request, and caps its timeout. */
export function checkSpec(spec: ShellExecSpec, options: ResolvedShellOptions): ShellExecSpec {
  const given = parseOrThrow<ShellExecSpec>(specSchema, spec, "spec");
  return withOptionals({
    command: given.command,
    workdir: given.workdir,
    timeoutMs: Math.min(given.timeoutMs, options.maxTimeoutMs),
    stdoutMaxBytes: given.stdoutMaxBytes,
    owner: given.owner,
  }, given);
}

/**
 * Copies the plain optionals that are present as own properties; absent
 * ones stay absent (not `undefined`), and inherited ones are never read.
 */
function withOptionals(base: ShellExecSpec, from: ShellExecRequest | ShellExecSpec): ShellExecSpec {
  const spec: ShellExecSpec = { ...base };
  const signal = ownValue(from, "signal");
  const stdin = ownValue(from, "stdin");
  const env = ownValue(from, "env");
  const dshEnv = ownValue(from, "dshEnv");
  if (signal !== undefined) spec.signal = signal;
  if (stdin !== undefined) spec.stdin = stdin;
  if (env !== undefined) spec.env = env;
  if (dshEnv !== undefined) spec.dshEnv = dshEnv;
  return spec;
}

/**
 * The specs one shell's `resolve()` returned, so that `run()` and `start()`
 * need not validate them again: a spec passed back exactly as it was
 * resolved is valid and capped for that shell already. Specs stay plain
 * mutable objects, so each is compared with a private copy of what
 * `resolve()` returned: a field changed, added or removed sends it through
 * {@linkcode checkSpec} like any hand-built spec, and an unchanged one runs
 * from the private copy (a getter redefined on the caller's object cannot
 * change what runs). Specs with `env` or `dshEnv` are not remembered: those
 * records are the caller's own objects and may have changed inside.
 */
export class ResolvedSpecs {
  /** Weak: a spec the caller drops takes its copy with it. */
  readonly #copies = new WeakMap<ShellExecSpec, Readonly<ShellExecSpec>>();

  /** Remembers `spec`, just returned by `resolveRequest` for this shell. */
  remember(spec: ShellExecSpec): void {
    if (spec.env !== undefined || spec.dshEnv !== undefined) return;
    this.#copies.set(spec, Object.freeze({ ...spec }));
  }

  /** The private copy of `spec` when it is a remembered spec with no field changed, added or removed. */
  unchanged(spec: ShellExecSpec): ShellExecSpec | undefined {
    // Anything, not only objects, can reach run() from untyped callers; WeakMap.get is fine with all of it.
    const copy = this.#copies.get(spec);
    if (copy === undefined) return undefined;
    const keys = Object.keys(spec);
    if (keys.length !== Object.keys(copy).length) return undefined;
    for (const key of keys) {
      if (!Object.hasOwn(copy, key)) return undefined;
      if (spec[key as keyof ShellExecSpec] !== copy[key as keyof ShellExecSpec]) return undefined;
    }
    return copy;
  }
}
