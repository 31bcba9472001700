/**
 * Background hooks (`"async": true`, with or without `"asyncRewake"`): started with
 * the event, never awaited by it, never deciding it. When one ends, what
 * it has for the model and the user is read as the harness reads it:
 *
 * - Claude Code ("Run hooks in the background"): the JSON answer's
 *   `additionalContext` for the model's next turn and `systemMessage` for
 *   the user, fields of a wrong type dropped; `asyncRewake` with exit 2
 *   wakes the model with stderr, or stdout when stderr is empty;
 * - Codex (`engine/async_output.rs`): on exit 0 the answer's
 *   `additionalContext`; otherwise an error text Codex hands the model
 *   instead (`Async hook exited with code 1`, …).
 *
 * @module
 */

import type { HookResult } from "../run/types.ts";
import type { HookDialect } from "../settings/types.ts";
import type { HookBackgroundResult } from "./types.ts";
import { codexBackgroundContext } from "./codex.ts";

/** What a finished background hook delivers, in `dialect`, for `event`. */
export function backgroundResult(
  result: HookResult,
  event: string,
  dialect: HookDialect,
  rewake: boolean,
): HookBackgroundResult {
  const ended: HookBackgroundResult = { result };
  if (dialect === "codex") {
    if (result.exitCode === null) {
      ended.error = `Async hook failed to run: ${result.reason ?? "no exit code"}`;
    } else if (result.exitCode !== 0) {
      ended.error = `Async hook exited with code ${result.exitCode}`;
    } else {
      const read = codexBackgroundContext(result.stdout, event);
      if (read === "invalid") ended.error = `Async ${event} hook returned invalid JSON output`;
      else if (read !== undefined) {
        if (read.context !== undefined) ended.additionalContext = read.context;
      } else readAnswer(ended, result, event);
    }
  } else {
    readAnswer(ended, result, event);
  }
  if (rewake && result.exitCode === 2) {
    const text = result.stderr.trim() || result.stdout.trim();
    if (text !== "") ended.rewake = text;
  }
  return ended;
}

/** The answer's context and message, leniently read (wrong-typed fields were dropped by `runHook`). */
function readAnswer(ended: HookBackgroundResult, result: HookResult, event: string): void {
  const json = result.json;
  if (json === undefined) return;
  const specific = json.hookSpecificOutput?.hookEventName === event ? json.hookSpecificOutput : undefined;
  if (specific?.additionalContext !== undefined && specific.additionalContext.trim() !== "") {
    ended.additionalContext = specific.additionalContext;
  }
  if (json.systemMessage !== undefined && json.systemMessage.trim() !== "") ended.systemMessage = json.systemMessage;
}
