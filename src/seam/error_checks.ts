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
  type ShellSpawnError,
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
