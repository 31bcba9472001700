/**
 * The runner of Claude Code's `prompt` and `agent` hooks: the harness's
 * callback asks its model, and its answer becomes the same
 * {@linkcode HookResult} a command hook gives (read as a JSON answer on
 * exit 0), so the verdict phase reads it unchanged. The bridge has no
 * model of its own: without a callback such hooks are skipped, with a
 * warning, by the dispatch.
 *
 * @module
 */

import { HOOK_DEFAULTS } from "./command.ts";
import { answeredResult, failedResult } from "./result.ts";
import type { HookJsonOutput, HookModelRequest, HookResult } from "./types.ts";

/** The harness's callback for `prompt` and `agent` hooks. */
export type ModelHookRunner = (request: HookModelRequest) => Promise<HookJsonOutput>;

/**
 * Asks `runner`; never rejects. A `{ ok: false, reason }` answer (the
 * shape Claude Code asks its model for) is read as `decision: "block"`
 * with that reason, `{ ok: true }` as an empty answer; any other object as
 * a command hook's JSON. A rejection, a non-object, the timeout and an
 * abort are non-blocking errors.
 */
export async function runModelHook(
  runner: ModelHookRunner,
  request: Omit<HookModelRequest, "signal">,
  signal?: AbortSignal,
): Promise<HookResult> {
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? HOOK_DEFAULTS.timeoutMs;
  const timeout = new AbortController();
  const failed = (reason: string, timedOut = false): HookResult => failedResult(reason, started, timedOut);
  if (signal?.aborted) return failed("aborted before the hook started");
  const both = signal === undefined ? timeout.signal : AbortSignal.any([timeout.signal, signal]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<"timeout" | "aborted">((resolve) => {
    timer = setTimeout(() => {
      timeout.abort();
      resolve("timeout");
    }, timeoutMs);
    onAbort = () => resolve("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => runner({ ...request, timeoutMs, signal: both })),
      ended,
    ]);
    if (answer === "timeout") return failed(`timed out after ${timeoutMs}ms`, true);
    if (answer === "aborted") return failed("aborted by the caller's signal");
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
      return failed("the model hook's answer is not an object");
    }
    return answeredResult(JSON.stringify(okAnswer(answer)), started);
  } catch (error) {
    return failed(`the model hook failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

/** Claude Code's `{ ok, reason }` in the hook vocabulary; anything else as it is. */
function okAnswer(answer: HookJsonOutput): HookJsonOutput {
  if (typeof answer.ok !== "boolean") return answer;
  const { ok, reason, ...rest } = answer;
  if (ok) return rest;
  return { ...rest, decision: "block", ...(typeof reason === "string" ? { reason } : {}) };
}
