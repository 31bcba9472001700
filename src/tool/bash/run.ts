/**
 * One bash tool call from start to finish: check, request, resolve, then
 * run in the foreground or start in the background, and turn what happened
 * into an outcome for the model. `runBashTool` returns its text;
 * `executeBashTool` (`execute_bash.ts`) all of it.
 *
 * @module
 */

import type {
  Shell,
  ShellExecRequest,
  ShellObserver,
  ShellRunResult,
  ShellSession,
  ShellTask,
} from "../../seam/types.ts";
import { checkContext, observerOf } from "../shared/context.ts";
import { isModelFixable } from "../shared/errors.ts";
import { parse } from "./parse.ts";
import { render } from "./render.ts";
import { toRequest } from "./request.ts";
import type { BashToolContext } from "../shared/types.ts";
import type { BashToolInput, BashToolOutcome } from "./types.ts";

/** The second line of a background start: how the model follows the task. */
const BACKGROUND_NOTE = "No timeout applies. Read its output with bash_output and stop it with kill_shell, " +
  "giving this id as task_id.";

/** Whether a finished command did not succeed: a timeout, an abort, a signal or a nonzero exit. */
function failed(result: ShellRunResult): boolean {
  return result.timedOut || result.aborted || result.signal !== null || result.exitCode !== 0;
}

/** Starts `spec` in the background; a spawn that failed at once is reported as an error, without an id. */
function started(task: ShellTask): BashToolOutcome {
  if (task.spawnError !== undefined) return { text: `[error] ${task.spawnError.message}`, isError: true };
  return { text: `started background task ${task.id}\n${BACKGROUND_NOTE}`, isError: false, taskId: task.id };
}

/** Runs the call in the foreground, or starts it as a task: in the session when the harness gave one. */
function runOrStart(
  shell: Shell,
  session: ShellSession | undefined,
  request: ShellExecRequest,
  observer: ShellObserver | undefined,
  background: boolean,
): Promise<ShellRunResult> | ShellTask {
  if (session === undefined) {
    const spec = shell.resolve(request);
    return background ? shell.start(spec, observer) : shell.run(spec, observer);
  }
  const { command, owner: _owner, ...options } = request;
  const withObserver = { ...options, ...observer };
  return background ? session.start(command, withObserver) : session.exec(command, withObserver);
}

/**
 * Runs one checked bash call. Mistakes the model can fix resolve as
 * `[error] …` outcomes; harness problems reject (see {@linkcode runBashTool}).
 */
export async function runCheckedBashCall(
  shell: Shell,
  input: BashToolInput,
  context: BashToolContext,
): Promise<BashToolOutcome> {
  const checked = checkContext(context, "bash");
  const request = toRequest(input, context);
  const observer = observerOf(checked);
  request.signal?.throwIfAborted();
  try {
    const result = await runOrStart(shell, checked.session, request, observer, input.run_in_background === true);
    if ("id" in result) return started(result);
    const text = render(result, { keepControlSequences: checked.keepControlSequences === true });
    return { text, isError: failed(result), result };
  } catch (error) {
    const abortReason = request.signal?.aborted === true && error === request.signal.reason;
    if (isModelFixable(error) && !abortReason) return { text: `[error] ${error.message}`, isError: true };
    throw error;
  }
}

/**
 * Runs one bash tool call on `shell` and returns the text for the model.
 *
 * 1. `input` is checked (`bashTool.parse`): a bad input rejects
 *    with `ToolInputError` and nothing is spawned. Send its
 *    message back to the model as an error result.
 * 2. An already-aborted `signal` rejects with its reason; nothing is spawned.
 * 3. The request is built from the declared inputs, `owner` and `signal`
 *    only, and resolved by the shell.
 * 4. In the foreground the command runs and the result is rendered
 *    (`bashTool.render`). With `run_in_background: true` a task is
 *    started and the text's first line is `started background task <id>`;
 *    the second tells the model to follow it with `bash_output` and
 *    `kill_shell` (see `bashOutputTool`, `killShellTool`).
 *
 * Mistakes the model can fix come back as text starting with `[error] `, not
 * as a rejection: a `ShellSpecError` (e.g. a workdir with a NUL), a
 * `ShellSpawnError` (e.g. a missing workdir, named in the text), a
 * `TaskLimitError` (too many running background tasks) and a
 * `ShellSandboxError` (a sandbox that could not be set up for the call, as
 * for a workdir the sandbox hides). Harness problems
 * reject: `ShellClosedError`, the signal's reason, a context without an owner.
 *
 * `executeBashTool` makes the same call and also says whether it is an
 * error, the task's id and the run's result.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { runBashTool, ToolInputError } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const turn = new AbortController();
 * const context = { owner: "session-7", signal: turn.signal };
 * const text = await runBashTool(shell, { command: "echo oops >&2; echo done" }, context);
 * assert.equal(text, "done\n[stderr]\noops");
 * // A mistake the model can fix comes back as text for the model:
 * const missing = await runBashTool(shell, { command: "pwd", workdir: "/nonexistent" }, context);
 * assert.match(missing, /^\[error\] .*\/nonexistent/);
 * // An input that is not a bash call rejects: give its message back to the model as an error result.
 * await assert.rejects(runBashTool(shell, { cmd: "ls" }, context), ToolInputError);
 * ```
 */
export async function runBashTool(shell: Shell, input: unknown, context: BashToolContext): Promise<string> {
  const outcome = await runCheckedBashCall(shell, parse(input), context);
  return outcome.text;
}
