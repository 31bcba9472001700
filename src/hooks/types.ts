/**
 * The public shapes of the hook bridge: what one hook run returns
 * ({@linkcode HookResult}), the JSON a hook may answer with
 * ({@linkcode HookJsonOutput}), what that answer means for one event
 * ({@linkcode HookVerdict}), the parsed settings ({@linkcode HookSettings})
 * and the merged outcome of an event ({@linkcode HookDispatchResult}).
 *
 * @module
 */

/**
 * Whose conventions a hook follows. `"claude-code"`: stdin is the JSON
 * payload plus `"\n"`; a matcher of only `[A-Za-z0-9_|]` is an exact
 * alternation; identical commands run once per event. `"codex"`: stdin is
 * the JSON payload without a newline; a matcher is always a regular
 * expression; nothing is deduplicated.
 *
 * @example
 * ```ts
 * import { type HookDialect, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * function dialectOf(file: string): HookDialect {
 *   return file.endsWith("/.codex/hooks.json") ? "codex" : "claude-code";
 * }
 * const settings = parseHookSettings({ hooks: {} }, { dialect: dialectOf("/home/me/.codex/hooks.json") });
 * assert.equal(settings.dialect, "codex");
 * ```
 */
export type HookDialect = "claude-code" | "codex";

/**
 * How a hook ended, in the terms of the hook protocol.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookOutcome, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const shown: Record<HookOutcome, string> = {
 *   "success": "ok",
 *   "blocking": "blocked",
 *   "non-blocking-error": "hook failed (ignored)",
 * };
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: "echo 'lint failed' >&2; exit 1",
 *   payload: { hook_event_name: "Stop" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(shown[result.outcome], "hook failed (ignored)");
 * assert.equal(result.reason, "exit code 1: lint failed");
 * ```
 */
export type HookOutcome = "success" | "blocking" | "non-blocking-error";

/**
 * A permission decision, from the strongest (`deny`) to the weakest (`allow`).
 *
 * @example
 * ```ts
 * import type { HookPermission } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * function nextStep(permission: HookPermission | undefined): "run" | "refuse" | "ask the user" {
 *   if (permission === "deny") return "refuse";
 *   if (permission === "allow") return "run";
 *   return "ask the user"; // "ask", or no hook decided and the harness's own rules ask
 * }
 * assert.equal(nextStep("deny"), "refuse");
 * assert.equal(nextStep(undefined), "ask the user");
 * ```
 */
export type HookPermission = "allow" | "deny" | "ask";

/**
 * The `hookSpecificOutput` object of a hook's JSON answer: fields that
 * apply only to the event named by `hookEventName`. Fields of a wrong type
 * are dropped; unknown fields are kept as the hook wrote them.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookSpecificOutput, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * // What a PreToolUse hook prints to refuse a call.
 * const answer: HookSpecificOutput = {
 *   hookEventName: "PreToolUse",
 *   permissionDecision: "deny",
 *   permissionDecisionReason: "run the tests with npm test",
 * };
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: `echo '${JSON.stringify({ hookSpecificOutput: answer })}'`,
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "jest" } },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(result.json?.hookSpecificOutput?.permissionDecision, "deny");
 * ```
 */
export interface HookSpecificOutput {
  /** The event these fields are meant for; they are ignored for any other event. */
  hookEventName?: string;
  /** `PreToolUse`: allow the tool call, deny it, or ask the user. */
  permissionDecision?: HookPermission;
  /** Why: shown to the user (`ask`) or the model (`deny`). */
  permissionDecisionReason?: string;
  /** Text to add to the model's context. */
  additionalContext?: string;
  /** `PreToolUse`: the tool input to use instead of the model's. */
  updatedInput?: Record<string, unknown>;
  /** Fields the bridge does not interpret, kept for the caller. */
  [field: string]: unknown;
}

/**
 * The JSON object a hook printed on stdout (exit 0), validated leniently:
 * each known field is kept when it has the right type and dropped when it
 * has not, so one wrong field never discards the whole answer. Unknown
 * fields are kept as the hook wrote them.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookJsonOutput, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: `echo '{"continue": false, "stopReason": "the build is red", "suppressOutput": "yes"}'`,
 *   payload: { hook_event_name: "Stop" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * const json: HookJsonOutput | undefined = result.json;
 * assert.equal(json?.continue, false);
 * assert.equal(json?.stopReason, "the build is red");
 * assert.equal(json?.suppressOutput, undefined); // not a boolean, so dropped
 * ```
 */
export interface HookJsonOutput {
  /** `false` stops the agent after this event (default `true`). */
  continue?: boolean;
  /** Why the agent stops; shown to the user when `continue` is `false`. */
  stopReason?: string;
  /** Hide the hook's stdout from the transcript. */
  suppressOutput?: boolean;
  /** A message for the user. */
  systemMessage?: string;
  /** `block` counts as `deny`, `approve` as `allow`. */
  decision?: "approve" | "block";
  /** Why, for `decision`. */
  reason?: string;
  /** Fields scoped to one event (see {@linkcode HookSpecificOutput}). */
  hookSpecificOutput?: HookSpecificOutput;
  /** Fields the bridge does not interpret, kept for the caller. */
  [field: string]: unknown;
}

/**
 * What one hook run returns. {@linkcode runHook} always resolves with one.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookResult, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * function report(result: HookResult): string {
 *   return result.outcome === "success" ? `ok in ${result.durationMs}ms` : `${result.outcome}: ${result.reason}`;
 * }
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: "sleep 5",
 *   payload: { hook_event_name: "Stop" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 *   timeoutMs: 200,
 * });
 * assert.equal(report(result), "non-blocking-error: timed out after 200ms");
 * assert.equal(result.timedOut, true);
 * ```
 */
export interface HookResult {
  /**
   * `success` (exit 0), `blocking` (exit 2), or `non-blocking-error` (any
   * other exit, a signal, a timeout, an abort, or a failure to start).
   */
  outcome: HookOutcome;
  /** The exit code, or `null` when the hook did not exit by itself (signal, timeout, never started). */
  exitCode: number | null;
  /** The hook's stdout (head and tail with a marker line when it exceeded its budget). */
  stdout: string;
  /** The hook's stderr (same budget rule). */
  stderr: string;
  /** The parsed JSON answer: only on `success`, when trimmed stdout starts with `{` and is valid JSON. */
  json?: HookJsonOutput;
  /**
   * Why the hook blocked (`blocking`: its trimmed stderr) or failed
   * (`non-blocking-error`: e.g. `exit code 1: <first stderr line>`,
   * `timed out after 1000ms`, `killed by signal SIGKILL`). Absent on `success`.
   */
  reason?: string;
  /** The hook's timeout ended it. */
  timedOut: boolean;
  /** Wall time of the run in ms. */
  durationMs: number;
}

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
  /** The permission decision, when the hook made one (exit 2 is `deny`). */
  permission?: HookPermission;
  /** The reason given with `permission`. */
  reason?: string;
  /** `false` when the hook asked to stop (`continue: false`). */
  continue: boolean;
  /** The `stopReason` given with `continue: false`. */
  stopReason?: string;
  /** Context for the model. */
  additionalContext?: string;
  /** A message for the user. */
  systemMessage?: string;
  /** The replacement tool input (`PreToolUse`). */
  updatedInput?: Record<string, unknown>;
  /** The hook asked to hide its stdout. */
  suppressOutput: boolean;
}

/**
 * One hook of a matcher group: a shell command and its timeout.
 *
 * @example
 * ```ts
 * import { type HookCommand, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { Stop: [{ hooks: [{ type: "command", command: "npm test", timeout: 120 }] }] },
 * }, { dialect: "claude-code" });
 * const hook: HookCommand = settings.events.Stop[0].hooks[0];
 * assert.deepEqual(hook, { command: "npm test", timeoutMs: 120_000 });
 * ```
 */
export interface HookCommand {
  /** The command line, run as `bash -c <command>`. */
  readonly command: string;
  /** The timeout in ms (the settings give seconds); absent means the bridge's default. */
  readonly timeoutMs?: number;
}

/**
 * One matcher group of an event: a pattern and the hooks it selects.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookMatcherGroup } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * // Built by hand instead of parsed: "Edit|Write" matches exactly Edit or Write.
 * const guard: HookMatcherGroup = { matcher: "Edit|Write", hooks: [{ command: "echo checked", timeoutMs: 5_000 }] };
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, {
 *   dialect: "claude-code",
 *   events: { PreToolUse: [guard] },
 *   skipped: [],
 * }, {
 *   event: "PreToolUse",
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: "/tmp/a.ts" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.deepEqual(outcome.results.map((entry) => entry.command), ["echo checked"]);
 * ```
 */
export interface HookMatcherGroup {
  /** The pattern as written; absent, `""` and `"*"` match everything. */
  readonly matcher?: string;
  /** The command hooks of the group, in order (entries of other types are skipped). */
  readonly hooks: readonly HookCommand[];
}

/**
 * A hook entry that {@linkcode parseHookSettings} skipped because it is not a shell command.
 *
 * @example
 * ```ts
 * import { parseHookSettings, type SkippedHookEntry } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Is every task done?" }] }] },
 * }, { dialect: "claude-code" });
 * const skipped: readonly SkippedHookEntry[] = settings.skipped;
 * // Worth a warning to the user: the shell does not run these.
 * assert.deepEqual(skipped, [{ path: "hooks.Stop[0].hooks[0]", type: "prompt" }]);
 * ```
 */
export interface SkippedHookEntry {
  /** Where it is, e.g. `hooks.Stop[0].hooks[1]`. */
  readonly path: string;
  /** Its `type`, e.g. `"prompt"`. */
  readonly type: string;
}

/**
 * Parsed hook settings, as {@linkcode parseHookSettings} returns them and
 * {@linkcode dispatchHookEvent} takes them: plain, frozen data.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookSettings, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * // User settings first, then the project's: their hooks run together, reported in this order.
 * const layers: HookSettings[] = [
 *   parseHookSettings({ hooks: { Stop: [{ hooks: [{ type: "command", command: "echo user" }] }] } }, {
 *     dialect: "claude-code",
 *   }),
 *   parseHookSettings({ hooks: { Stop: [{ hooks: [{ type: "command", command: "echo project" }] }] } }, {
 *     dialect: "claude-code",
 *   }),
 * ];
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, layers, {
 *   event: "Stop",
 *   payload: { hook_event_name: "Stop" },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.deepEqual(outcome.results.map((entry) => entry.command), ["echo user", "echo project"]);
 * ```
 */
export interface HookSettings {
  /** The conventions these hooks follow. */
  readonly dialect: HookDialect;
  /** The plugin's root: every run of these hooks gets `CLAUDE_PLUGIN_ROOT` and `PLUGIN_ROOT`. */
  readonly pluginRoot?: string;
  /** The plugin's data directory: every run gets `CLAUDE_PLUGIN_DATA` and `PLUGIN_DATA`. */
  readonly pluginData?: string;
  /** Event name to its matcher groups, in file order. */
  readonly events: Readonly<Record<string, readonly HookMatcherGroup[]>>;
  /** Entries of other types (`prompt`, `agent`, `http`, `mcp_tool`), which the bridge does not run. */
  readonly skipped: readonly SkippedHookEntry[];
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
  /** The command as the settings wrote it. */
  command: string;
  /** How it ended. */
  result: HookResult;
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
  /** Every hook that ran, in configuration order (not finish order); a deduplicated command appears once. */
  results: HookDispatchEntry[];
  /** The strongest permission decision: `deny` > `ask` > `allow`; absent when no hook decided. */
  permission?: HookPermission;
  /** The reasons given with the winning decision, in configuration order. */
  reasons: string[];
  /** `permission === "deny"`. */
  blocked: boolean;
  /** Present when a hook answered `continue: false` (the first in configuration order). */
  stop?: { reason?: string };
  /** Every hook's `additionalContext`, in configuration order. */
  additionalContext: string[];
  /** Every hook's `systemMessage`, in configuration order. */
  systemMessages: string[];
}
