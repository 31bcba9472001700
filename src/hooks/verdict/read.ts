/**
 * What one hook's result means for one event: the permission it gave,
 * whether it asked to stop, the context, messages and feedback it added,
 * per dialect. The rules themselves are in `verdict/claude_code.ts` and
 * `verdict/codex.ts`.
 *
 * @module
 */

import { ShellSpecError } from "../../seam/errors.ts";
import type { HookResult } from "../run/types.ts";
import type { HookDialect } from "../settings/types.ts";
import type { HookVerdict } from "./types.ts";
import { claudeCodeVerdict } from "./claude_code.ts";
import { codexVerdict } from "./codex.ts";

/**
 * Reads what `result` decides for `event`, in `dialect` (default
 * `"claude-code"`, the 1.0 reading's successor):
 *
 * - `claude-code`: the JSON answer counts on every exit code:
 *   `hookSpecificOutput.permissionDecision` (allow/deny/ask/defer, with
 *   `permissionDecisionReason`) on `PreToolUse`,
 *   `hookSpecificOutput.decision.behavior` on `PermissionRequest`, the
 *   top-level `decision: "block"` (with `reason`) on the events that take it,
 *   `continue: false` with `stopReason`, `additionalContext`,
 *   `systemMessage`, `updatedInput`, `suppressOutput`; the fields of
 *   `hookSpecificOutput` count only when its `hookEventName` is `event`.
 *   Exit 2 is `deny` only on events that can be blocked (its reason: the
 *   answer's, else stderr); on `PostToolUse`/`PostToolUseFailure` it is
 *   `feedback` for the model; elsewhere it decides nothing. Plain stdout on
 *   exit 0 is `additionalContext` on `UserPromptSubmit`,
 *   `UserPromptExpansion` and `SessionStart`;
 * - `codex`: the answer counts only on exit 0 and must pass Codex's
 *   validation, or the verdict has an `error` and decides nothing; exit 2
 *   blocks, is feedback (`PostToolUse`) or is an `error`, per event; plain
 *   stdout is context on `SessionStart`, `SubagentStart` and
 *   `UserPromptSubmit`, and an `error` on `Stop`/`SubagentStop`.
 *
 * Events the dialect does not list (custom events) keep the 1.0 reading:
 * every decision field counts and exit 2 is `deny`.
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
 * // Codex supports no "ask": the hook counts as failed and decides nothing.
 * assert.equal(readHookVerdict(result, "PreToolUse", "codex").permission, undefined);
 * assert.equal(readHookVerdict(result, "PreToolUse", "codex").error, "PreToolUse hook returned unsupported permissionDecision:ask");
 * ```
 */
export function readHookVerdict(result: HookResult, event: string, dialect: HookDialect = "claude-code"): HookVerdict {
  if (dialect === "codex") return codexVerdict(result, event);
  if (dialect === "claude-code") return claudeCodeVerdict(result, event);
  throw new ShellSpecError("dialect", 'must be "claude-code" or "codex"');
}
