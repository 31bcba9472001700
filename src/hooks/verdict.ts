/**
 * What one hook's result means for one event: the permission it gave, whether
 * it asked to stop, and the context and messages it added. This is where
 * event-scoped fields meant for another event are dropped.
 *
 * @module
 */

import type { HookPermission, HookResult, HookVerdict } from "./types.ts";

/**
 * Events whose plain stdout (exit 0, no JSON answer) is context for the
 * model, as in Claude Code and Codex; for every other event plain stdout is
 * only shown to the user.
 */
const STDOUT_IS_CONTEXT: ReadonlySet<string> = new Set(["UserPromptSubmit", "SessionStart"]);

/**
 * Reads what `result` decides for `event`:
 *
 * - `blocking` (exit 2) is `permission: "deny"` with the hook's stderr as the reason;
 * - `non-blocking-error` decides nothing;
 * - `success` with a JSON answer: `hookSpecificOutput.permissionDecision`
 *   (with `permissionDecisionReason`) or else `decision` (`block` → `deny`,
 *   `approve` → `allow`, with `reason`); `continue: false` with
 *   `stopReason`; `additionalContext`, `systemMessage`, `updatedInput`,
 *   `suppressOutput`. The fields of `hookSpecificOutput` count only when its
 *   `hookEventName` is `event`;
 * - `success` with plain stdout on `UserPromptSubmit` or `SessionStart`: the
 *   trimmed stdout is `additionalContext`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { readHookVerdict, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`,
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push" } },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(readHookVerdict(result, "PreToolUse").permission, "ask");
 * assert.equal(readHookVerdict(result, "PostToolUse").permission, undefined); // scoped to PreToolUse
 * ```
 */
export function readHookVerdict(result: HookResult, event: string): HookVerdict {
  const verdict: HookVerdict = { continue: true, suppressOutput: false };
  if (result.outcome === "blocking") {
    verdict.permission = "deny";
    if (result.reason !== undefined) verdict.reason = result.reason;
    return verdict;
  }
  if (result.outcome !== "success") return verdict;

  const json = result.json;
  if (json === undefined) {
    const text = result.stdout.trim();
    if (STDOUT_IS_CONTEXT.has(event) && text !== "") verdict.additionalContext = text;
    return verdict;
  }
  const specific = json.hookSpecificOutput?.hookEventName === event ? json.hookSpecificOutput : undefined;
  if (specific?.permissionDecision !== undefined) {
    verdict.permission = specific.permissionDecision;
    if (specific.permissionDecisionReason !== undefined) verdict.reason = specific.permissionDecisionReason;
  } else if (json.decision !== undefined) {
    verdict.permission = DECISION_TO_PERMISSION[json.decision];
    if (json.reason !== undefined) verdict.reason = json.reason;
  }
  if (json.continue === false) {
    verdict.continue = false;
    if (json.stopReason !== undefined) verdict.stopReason = json.stopReason;
  }
  if (specific?.additionalContext !== undefined) verdict.additionalContext = specific.additionalContext;
  if (specific?.updatedInput !== undefined) verdict.updatedInput = specific.updatedInput;
  if (json.systemMessage !== undefined) verdict.systemMessage = json.systemMessage;
  if (json.suppressOutput === true) verdict.suppressOutput = true;
  return verdict;
}

/** The older top-level `decision` field, as a permission. */
const DECISION_TO_PERMISSION: Readonly<Record<"approve" | "block", HookPermission>> = {
  approve: "allow",
  block: "deny",
};
