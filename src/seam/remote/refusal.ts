/**
 * The error for a remote wrapper's refusal (its `e …` line): the same
 * `ShellSpawnError` as locally where the caller's input is at fault (the
 * workdir, the shell or the program missing), a `ShellEngineError`
 * otherwise.
 *
 * @module
 */

import type { RemoteEngine } from "../engine.ts";
import { ShellEngineError, ShellSpawnError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import type { ShellExecSpec } from "../types.ts";

/** What the wording of a refusal needs. */
export interface RefusedCommand {
  /** The engine it was refused on (its name and target). */
  readonly engine: Pick<RemoteEngine, "name" | "target">;
  /** The command's spec. */
  readonly spec: ShellExecSpec;
  /** The shell's program, for a command line. */
  readonly shell: string;
  /** The engine's ambient `PATH`, when it has one. */
  readonly path: string | undefined;
}

/**
 * The error for the refusal `reason` of `command`'s wrapper.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refusalError } from "./refusal.ts";
 * const engine = { name: "docker", target: "box" };
 * const spec = { command: "true", owner: null, workdir: "/nope", timeoutMs: 1, stdoutMaxBytes: 1 };
 * const error = refusalError("cwd-missing", { engine, spec, shell: "/bin/sh", path: undefined });
 * assert.equal(error.message, "workdir does not exist on docker box: /nope");
 * ```
 */
export function refusalError(reason: string, command: RefusedCommand): ShellSpawnError | ShellEngineError {
  const { engine, spec } = command;
  const where = `${engine.name} ${engine.target}`;
  const workdir = spec.workdir;
  const args = ownValue(spec, "args");
  const program = args === undefined ? command.shell : spec.command;
  const role = args === undefined ? "shell" : "program";
  switch (reason) {
    case "cwd-missing":
      return new ShellSpawnError(`workdir does not exist on ${where}: ${workdir}`, workdir);
    case "cwd-not-dir":
      return new ShellSpawnError(`workdir is not a directory on ${where}: ${workdir}`, workdir);
    case "cwd-access":
      return new ShellSpawnError(`workdir cannot be entered on ${where}: ${workdir}`, workdir);
    case "shell":
    case "program": {
      const searched = program.includes("/") ? "" : ` (PATH=${childPath(spec) ?? command.path ?? "/usr/bin:/bin"})`;
      return new ShellSpawnError(
        `cannot start the ${role} "${program}" on ${where}: not found or not executable${searched}`,
        program,
      );
    }
    case "supervisor":
      return new ShellEngineError(
        engine.name,
        engine.target,
        "the supervisor's record directory is gone: it is ending every session (the connection was lost), or a " +
          "command removed it",
      );
    case "session":
      return new ShellEngineError(
        engine.name,
        engine.target,
        "the engine did not start the command's wrapper as the leader of a new session, so its processes could " +
          "not be ended as a whole",
      );
    default:
      return new ShellEngineError(engine.name, engine.target, `the command's wrapper refused it: ${reason}`);
  }
}

/** The `PATH` the command itself would have had. */
function childPath(spec: ShellExecSpec): string | undefined {
  const env = ownValue(spec, "env");
  return env !== undefined && Object.hasOwn(env, "PATH") ? env.PATH : undefined;
}
