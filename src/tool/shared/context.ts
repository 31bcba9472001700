/**
 * Checking the harness's context of a tool call: a missing owner or a
 * signal that is not an `AbortSignal` is the harness's mistake, not the
 * model's, so it throws instead of becoming text for the model. It throws
 * the family's `TypeError` (`ERR_SHELL_ARGUMENT`, a `ShellError`)
 * naming the field.
 *
 * @module
 */

import { ShellArgumentError } from "../../seam/errors.ts";
import { ownValue } from "../../seam/own_fields.ts";
import type { ShellObserver } from "../../seam/types.ts";
import type { BashToolContext } from "./types.ts";

/**
 * The context's `owner`, `signal` and output listeners, read as own
 * properties only. Throws `ShellArgumentError` naming the field when the context has
 * no valid `owner` (a string, or `null` for unowned work), a `signal` that
 * is not an `AbortSignal`, or a listener that is not a function.
 *
 * @param tool The tool's name, for the message: `"bash"`, `"bash_output"`.
 */
export function checkContext(context: BashToolContext, tool: string): BashToolContext {
  if (typeof context !== "object" || context === null) {
    throw new ShellArgumentError("context", `the ${tool} tool needs { owner, signal? } from the harness`);
  }
  const owner = ownValue(context, "owner") as BashToolContext["owner"];
  const signal = ownValue(context, "signal");
  if (owner !== null && typeof owner !== "string") {
    throw new ShellArgumentError(
      "owner",
      `is required in the ${tool} tool's context (a string, or null for unowned work)`,
    );
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ShellArgumentError("signal", "must be an AbortSignal or absent");
  }
  const checked: BashToolContext = signal === undefined ? { owner } : { owner, signal };
  const session = ownValue(context, "session");
  if (session !== undefined) {
    if (typeof session !== "object" || session === null || typeof session.exec !== "function") {
      throw new ShellArgumentError("session", "must be a ShellSession (shell.session({ owner })) or absent");
    }
    // The owner check of the task tools rests on the owner: a session's commands belong to its own.
    if (session.owner !== owner) throw new ShellArgumentError("session", "belongs to another owner than the context's");
    checked.session = session;
  }
  const keep = ownValue(context, "keepControlSequences");
  if (keep !== undefined) {
    if (typeof keep !== "boolean") throw new ShellArgumentError("keepControlSequences", "must be a boolean or absent");
    checked.keepControlSequences = keep;
  }
  for (const name of ["onStdout", "onStderr"] as const) {
    const listener = ownValue(context, name);
    if (listener === undefined) continue;
    if (typeof listener !== "function") throw new ShellArgumentError(name, "must be a function or absent");
    checked[name] = listener;
  }
  return checked;
}

/** The context's output listeners as the shell's observer, or undefined when it has none. */
export function observerOf(context: BashToolContext): ShellObserver | undefined {
  if (context.onStdout === undefined && context.onStderr === undefined) return undefined;
  const observer: ShellObserver = {};
  if (context.onStdout !== undefined) observer.onStdout = context.onStdout;
  if (context.onStderr !== undefined) observer.onStderr = context.onStderr;
  return observer;
}
