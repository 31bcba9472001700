/**
 * From a checked tool input to a shell request.
 *
 * @module
 */

import { ownValue } from "../../seam/own_fields.ts";
import type { ShellExecRequest } from "../../seam/types.ts";
import { checkContext } from "../shared/context.ts";
import type { BashToolContext } from "../shared/types.ts";
import type { BashToolInput } from "./types.ts";

/**
 * Builds the shell request from the declared inputs (`command`, `timeout`
 * as `timeoutMs`, `workdir`), the context's `owner` and its `signal` —
 * field by field, so nothing else a caller's objects carry at run time
 * (`stdin`, `env`, `dshEnv`, `stdoutMaxBytes`, …) can reach the shell.
 * `description` and `run_in_background` are not part of the request.
 * Throws `TypeError` (`ERR_SHELL_ARGUMENT`) when the context has no valid `owner` or `signal`:
 * that is the harness's mistake, not the model's.
 */
export function toRequest(input: BashToolInput, context: BashToolContext): ShellExecRequest {
  const { owner, signal } = checkContext(context, "bash");
  const request: ShellExecRequest = { command: input.command, owner };
  const timeout = ownValue(input, "timeout");
  const workdir = ownValue(input, "workdir");
  if (timeout !== undefined) request.timeoutMs = timeout;
  if (workdir !== undefined) request.workdir = workdir;
  if (signal !== undefined) request.signal = signal;
  return request;
}
