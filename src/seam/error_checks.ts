/**
 * Questions the library asks of an error, by the family's codes rather than
 * by chains of `instanceof`. Internal: not exported from the package.
 *
 * @module
 */

import {
  isShellError,
  type ShellEngineError,
  type ShellError,
  type ShellErrorCode,
  type ShellSandboxError,
  ShellSpawnError,
} from "./errors.ts";

/**
 * Whether `value` is an error of the family with one of `codes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellClosedError } from "./errors.ts";
 * import { hasErrorCode } from "./error_checks.ts";
 * assert.ok(hasErrorCode(new ShellClosedError(), "ERR_SHELL_SPAWN", "ERR_SHELL_CLOSED"));
 * assert.equal(hasErrorCode(new ShellClosedError(), "ERR_SHELL_SPAWN"), false);
 * ```
 */
export function hasErrorCode(value: unknown, ...codes: ShellErrorCode[]): value is ShellError {
  return isShellError(value) && codes.includes(value.code);
}

/**
 * Whether `error` means a command never started or its engine could not
 * run it: the spawn, the sandbox or the engine failed. `start()` turns such
 * an error into a task that settles as killed, with the error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellClosedError, ShellSpawnError } from "./errors.ts";
 * import { isStartFailure } from "./error_checks.ts";
 * assert.ok(isStartFailure(new ShellSpawnError("cannot start the shell /bin/nope: No such file", "/bin/nope")));
 * assert.equal(isStartFailure(new ShellClosedError()), false);
 * ```
 */
export function isStartFailure(error: unknown): error is ShellSpawnError | ShellSandboxError | ShellEngineError {
  return hasErrorCode(error, "ERR_SHELL_SPAWN", "ERR_SHELL_SANDBOX", "ERR_SHELL_ENGINE");
}

/**
 * `error` as the failure of a command that did not run to its end, as a
 * task and an event report it: a start failure (the spawn's, the
 * sandbox's, the engine's) as it is; any other error keeps its identity as
 * the `cause` of a `ShellSpawnError` that says the command could not be
 * run. Only the sandbox's own failure is a `ShellSandboxError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellSandboxError, ShellSpawnError } from "./errors.ts";
 * import { asStartFailure } from "./error_checks.ts";
 * const refused = new ShellSandboxError("the sandbox could not start the command");
 * assert.equal(asStartFailure(refused), refused);
 * const bug = new TypeError("undefined is not a function");
 * const failure = asStartFailure(bug);
 * assert.ok(failure instanceof ShellSpawnError);
 * assert.equal(failure.cause, bug);
 * assert.equal(failure.message, "the command could not be run: TypeError: undefined is not a function");
 * ```
 */
export function asStartFailure(error: unknown): ShellSpawnError | ShellSandboxError | ShellEngineError {
  if (isStartFailure(error)) return error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ShellSpawnError(`the command could not be run: ${what}`, undefined, { cause: error });
}
