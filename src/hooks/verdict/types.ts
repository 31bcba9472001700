/**
 * The public shapes of the verdict phase of the hook bridge: what one
 * result means for one event ({@linkcode HookVerdict}) and the merged
 * outcome of an event ({@linkcode HookDispatchResult}), with its
 * background runs.
 *
 * @module
 */

import type { HookEnvFile, HookPermission, HookResult } from "../run/types.ts";
import type { HookWarning } from "../settings/types.ts";

/**
 * What one hook's result means for one event: the fields of its answer
 * that apply, after the event-scoped ones for another event are dropped.
 * See {@linkcode readHookVerdict}.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookVerdict, readHookVerdict, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: "echo 'Release day: no force pushes.'",
 *   payload: { hook_event_name: "SessionStart", source: "startup" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * const verdict: HookVerdict = readHookVerdict(result, "SessionStart");
 * assert.equal(verdict.additionalContext, "Release day: no force pushes.");
 * assert.equal(verdict.continue, true);
 * ```
 */
export interface HookVerdict {
  /** The permission decision, when the hook made one (exit 2 is `deny` where the event can be blocked). */
  permission?: HookPermission;
  /** The reason given with `permission`. */
  reason?: string;
  /**
   * `false` when the hook asked to stop (`continue: false`). Codex's
   * `PostToolUse` is the exception: there `continue: false` does not stop
   * the turn (it stays `true`) and sets `toolOutput` instead.
   */
  continue: boolean;
  /** The `stopReason` given with `continue: false`. */
  stopReason?: string;
  /**
   * Codex `PostToolUse` with `continue: false`: the text the model sees in
   * place of the tool's output (the `stopReason`, `""` when none was
   * given); the turn goes on, as in Codex 0.169.0.
   */
  toolOutput?: string;
  /** Context for the model. */
  additionalContext?: string;
  /** A message for the user. */
  systemMessage?: string;
  /** The replacement tool input (`PreToolUse`). */
  updatedInput?: Record<string, unknown>;
  /** The hook asked to hide its stdout. */
  suppressOutput: boolean;
  /**
   * Text for the model from a hook that exited 2 on an event that cannot be
   * blocked because its action already happened (`PostToolUse`,
   * `PostToolUseFailure`): feedback, not a block.
   */
  feedback?: string;
  /**
   * Why the hook's answer was not used, when the harness counts the hook
   * as failed although it exited 0 (Codex: invalid JSON, an unsupported
   * field or value, a `block` without a reason, plain stdout from `Stop`).
   * Such a hook decides nothing.
   */
  error?: string;
}

/**
 * One hook that ran during a dispatch, with its result.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookDispatchEntry, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { Stop: [{ hooks: [{ type: "command", command: "exit 0" }, { type: "command", command: "./missing.sh" }] }] },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "Stop",
 *   payload: { hook_event_name: "Stop" },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * const failed: HookDispatchEntry[] = outcome.results.filter((entry) => entry.result.outcome !== "success");
 * assert.deepEqual(failed.map((entry) => entry.command), ["./missing.sh"]);
 * assert.match(failed[0].result.reason ?? "", /^exit code 127: /); // then the shell's "No such file" line
 * ```
 */
export interface HookDispatchEntry {
  /** Absent for a command hook; the entry's type otherwise (`command` is then its URL or prompt). */
  type?: "http" | "prompt" | "agent";
  /** The command as the settings wrote it. */
  command: string;
  /** Exec form: the arguments as the settings wrote them (placeholders unexpanded). */
  args?: readonly string[];
  /** How it ended. */
  result: HookResult;
  /** What its result decides for the event (see {@linkcode readHookVerdict}). */
  verdict: HookVerdict;
}

/**
 * The merged outcome of one event: every hook's result and what they decided together.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookDispatchResult, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * function nextStep(outcome: HookDispatchResult): string {
 *   if (outcome.stop) return `stop: ${outcome.stop.reason ?? "a hook asked to stop"}`;
 *   if (outcome.blocked) return `refuse: ${outcome.reasons.join("; ")}`;
 *   if (outcome.permission === "ask") return `ask the user: ${outcome.reasons.join("; ")}`;
 *   return "run the tool";
 * }
 * const ask = { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "pushes need a human" };
 * const settings = parseHookSettings({
 *   hooks: {
 *     PreToolUse: [{
 *       matcher: "Bash",
 *       hooks: [
 *         { type: "command", command: `echo '{"decision": "approve"}'` },
 *         { type: "command", command: `echo '${JSON.stringify({ hookSpecificOutput: ask })}'` },
 *       ],
 *     }],
 *   },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "PreToolUse",
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git push" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(nextStep(outcome), "ask the user: pushes need a human");
 * ```
 */
export interface HookDispatchResult {
  /**
   * Every hook that ran in the foreground, in configuration order (not
   * finish order); a deduplicated hook appears once.
   */
  results: HookDispatchEntry[];
  /** The strongest permission decision: `deny` > `defer` > `ask` > `allow`; absent when no hook decided. */
  permission?: HookPermission;
  /** The reasons given with the winning decision, in configuration order. */
  reasons: string[];
  /** `permission === "deny"`. */
  blocked: boolean;
  /**
   * Present when a hook answered `continue: false` (the first in
   * configuration order): the harness ends the turn. Not set by a Codex
   * `PostToolUse` hook, which sets `toolOutput` instead.
   */
  stop?: { reason?: string };
  /**
   * Codex `PostToolUse`: what the model sees in place of the tool's output,
   * from the first hook (configuration order) that answered `continue:
   * false` (its `stopReason`, `""` without one). The harness replaces the
   * output with it and carries on the turn.
   */
  toolOutput?: string;
  /** Every hook's `additionalContext`, in configuration order. */
  additionalContext: string[];
  /** Every hook's `systemMessage`, in configuration order. */
  systemMessages: string[];
  /** Every hook's `feedback` (exit 2 where the action already happened), in configuration order. */
  feedback: string[];
  /** The hooks started in the background (`async`, `asyncRewake`), in configuration order. */
  background: HookBackgroundRun[];
  /**
   * What the event's hooks wrote to their env files (`CLAUDE_ENV_FILE`),
   * when the event gives them one and any of them wrote something.
   */
  envFile?: HookEnvFile;
  /** What the bridge worked around during this dispatch (e.g. an `if` that could not be evaluated). */
  warnings: HookWarning[];
}

/**
 * A hook running in the background (`"async": true`, with or without
 * `"asyncRewake"`): it never blocks or decides the event, and its outcome arrives
 * when it ends, through `done`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookBackgroundRun, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const context = { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "tests passed" } };
 * const settings = parseHookSettings({
 *   hooks: {
 *     PostToolUse: [{ hooks: [{ type: "command", command: `echo '${JSON.stringify(context)}'`, async: true }] }],
 *   },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "PostToolUse",
 *   payload: { hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "/tmp/a.ts" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.deepEqual(outcome.results, []); // nothing ran in the foreground
 * const [run]: HookBackgroundRun[] = outcome.background;
 * const ended = await run.done; // deliver this on the model's next turn
 * assert.equal(ended.additionalContext, "tests passed");
 * ```
 */
export interface HookBackgroundRun {
  /** The command as the settings wrote it. */
  command: string;
  /** Exec form: the arguments as the settings wrote them. */
  args?: readonly string[];
  /** `asyncRewake` (Claude Code): an exit 2 should wake the model at once with `rewake`. */
  rewake: boolean;
  /** Resolves when the hook ends, however it ends; never rejects. */
  done: Promise<HookBackgroundResult>;
}

/**
 * How a background hook ended and what it has for the model and the user.
 *
 * @example
 * ```ts
 * import type { HookBackgroundResult } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * function deliver(ended: HookBackgroundResult): string[] {
 *   const forModel: string[] = [];
 *   if (ended.rewake !== undefined) forModel.push(`wake up: ${ended.rewake}`);
 *   if (ended.additionalContext !== undefined) forModel.push(ended.additionalContext);
 *   if (ended.error !== undefined) forModel.push(ended.error);
 *   return forModel;
 * }
 * const ended: HookBackgroundResult = {
 *   result: { outcome: "blocking", exitCode: 2, stdout: "", stderr: "2 tests failed\n", reason: "2 tests failed", timedOut: false, durationMs: 900 },
 *   rewake: "2 tests failed",
 * };
 * assert.deepEqual(deliver(ended), ["wake up: 2 tests failed"]);
 * ```
 */
export interface HookBackgroundResult {
  /** The run's result. */
  result: HookResult;
  /** Context for the model's next turn (the JSON answer's `additionalContext`). */
  additionalContext?: string;
  /** A message for the user (the JSON answer's `systemMessage`). */
  systemMessage?: string;
  /** `asyncRewake` and exit 2: the hook's stderr, or its stdout when stderr is empty, to show the model now. */
  rewake?: string;
  /**
   * Codex: why the hook's output is an error (`Async hook exited with code
   * 1`, `Async hook failed to run: …`, invalid JSON); Codex delivers this
   * to the model in place of context.
   */
  error?: string;
}
