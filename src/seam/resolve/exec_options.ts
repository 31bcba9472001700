/**
 * `exec(command, options)` as a request and an observer: the one-call form
 * for trusted callers, checked like `resolve()` checks a request.
 *
 * @module
 */

import { ShellSpecError } from "../errors.ts";
import type { ShellObserver } from "../capture/types.ts";
import type { ShellExecOptions, ShellExecRequest } from "../types.ts";
import { ownFields } from "../own_fields.ts";

/**
 * Splits `exec()`'s options into the request `resolve()` checks (with
 * `command`, and `owner` defaulting to `null`) and the observer's
 * callbacks. Only own properties count. Throws {@linkcode ShellSpecError}
 * when the options are not an object.
 */
export function execRequest(
  command: string,
  options: ShellExecOptions | undefined,
): { request: ShellExecRequest; observer: ShellObserver | undefined } {
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) {
    throw new ShellSpecError("options", "must be an object (the fields of a request, and onStdout/onStderr)");
  }
  const { onStdout, onStderr, owner, ...rest } = ownFields(options ?? {}) as ShellExecOptions;
  const request = { ...rest, command, owner: owner === undefined ? null : owner } as ShellExecRequest;
  const observer = onStdout === undefined && onStderr === undefined ? undefined : { onStdout, onStderr };
  return { request, observer };
}
