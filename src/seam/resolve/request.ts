/**
 * Requests become specs: validated, the workdir resolved against the
 * shell's, the timeout capped; hand-built specs are checked the same way.
 *
 * @module
 */

import { resolve as resolvePath } from "node:path";
import type { ShellExecRequest, ShellExecSpec } from "../types.ts";
import type { ResolvedShellOptions } from "./options.ts";
import { ShellSpecError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import { commonRequest, requestSchema, specSchema } from "./schemas.ts";
import { parseOrThrow } from "./to_spec_error.ts";

/** Validates `request`, applies the shell's defaults and caps, and returns the spec. */
export function resolveRequest(request: ShellExecRequest, options: ResolvedShellOptions): ShellExecSpec {
  const given = parseOrThrow<ShellExecRequest>(requestSchema, request, "request", commonRequest);
  return withOptionals({
    command: given.command,
    // The shell's workdir is resolved already: path.resolve would give it back as it is.
    workdir: given.workdir === undefined ? options.workdir : resolvePath(options.workdir, given.workdir),
    timeoutMs: Math.min(given.timeoutMs ?? options.timeoutMs, options.maxTimeoutMs),
    stdoutMaxBytes: given.stdoutMaxBytes ?? options.maxOutputBytes,
    owner: given.owner,
  }, given);
}

/** The fields `resolve()` adds: a spec has all three, a request may have none. */
const RESOLVED_FIELDS = ["workdir", "timeoutMs", "stdoutMaxBytes"] as const;

/**
 * Validates a hand-built spec the way `resolve()` validates a request, and
 * caps its timeout. A request passed where a spec is due (none of the
 * fields `resolve()` fills in) gets an error that says what to call.
 */
export function checkSpec(spec: ShellExecSpec, options: ResolvedShellOptions): ShellExecSpec {
  if (
    typeof spec === "object" && spec !== null && ownValue(spec, "command") !== undefined &&
    RESOLVED_FIELDS.every((field) => ownValue(spec, field) === undefined)
  ) {
    throw new ShellSpecError(
      "spec",
      "this is a request, not a spec: pass it through shell.resolve(request) first, " +
        "or call shell.exec(command, options) to do both",
    );
  }
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
  const args = ownValue(from, "args");
  const signal = ownValue(from, "signal");
  const stdin = ownValue(from, "stdin");
  const env = ownValue(from, "env");
  const dshEnv = ownValue(from, "dshEnv");
  const sandbox = ownValue(from, "sandbox");
  // A copy: the spec must not change when the caller's array does.
  if (args !== undefined) spec.args = [...args];
  if (signal !== undefined) spec.signal = signal;
  if (stdin !== undefined) spec.stdin = stdin;
  if (env !== undefined) spec.env = env;
  if (dshEnv !== undefined) spec.dshEnv = dshEnv;
  if (sandbox === false) spec.sandbox = false;
  const tty = ownValue(from, "tty");
  // A copy of a size, for the same reason as `args`.
  if (tty !== undefined && tty !== false) spec.tty = tty === true ? true : { ...tty };
  if (ownValue(from, "keepStdin") === true) spec.keepStdin = true;
  return spec;
}
