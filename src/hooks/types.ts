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
 * payload plus `"\n"`; a JSON answer counts on every exit code; matchers,
 * `if`, decisions and events as the Claude Code hooks reference gives them;
 * identical hooks run once per event. `"codex"`: stdin is the JSON payload
 * without a newline; JSON only on exit 0, validated strictly; matchers and
 * events as `codex-rs/hooks` has them; nothing is deduplicated. See
 * docs/hooks.md for the table.
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
 * A permission decision, from the strongest to the weakest: `deny` >
 * `defer` > `ask` > `allow`. `defer` (Claude Code, `PreToolUse`) asks the
 * harness to pause at the tool call and resume it later.
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
export type HookPermission = "allow" | "deny" | "ask" | "defer";

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
  /** `PreToolUse`: allow the tool call, deny it, ask the user, or defer it. */
  permissionDecision?: HookPermission;
  /** Why: shown to the user (`ask`) or the model (`deny`); ignored with `defer`. */
  permissionDecisionReason?: string;
  /** Text to add to the model's context. */
  additionalContext?: string;
  /** `PreToolUse`: the tool input to use instead of the model's. */
  updatedInput?: Record<string, unknown>;
  /** `PermissionRequest`: the answer to the permission request. */
  decision?: HookPermissionRequestDecision;
  /** Fields the bridge does not interpret, kept for the caller. */
  [field: string]: unknown;
}

/**
 * `PermissionRequest`'s decision object (`hookSpecificOutput.decision`).
 *
 * @example
 * ```ts
 * import type { HookPermissionRequestDecision } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const answer: HookPermissionRequestDecision = { behavior: "deny", message: "no writes to prod" };
 * assert.equal(answer.behavior, "deny");
 * ```
 */
export interface HookPermissionRequestDecision {
  /** Grant or deny the permission. */
  behavior?: "allow" | "deny";
  /** `allow`: the tool input to use instead. */
  updatedInput?: Record<string, unknown>;
  /** `deny`: why, for the model. */
  message?: string;
  /** Fields the bridge does not interpret (`updatedPermissions`, `interrupt`), kept for the caller. */
  [field: string]: unknown;
}

/**
 * The JSON object a hook printed on stdout (`HookResult.json`), read
 * leniently: each known field is kept when it has the right type and
 * dropped when it has not, and unknown fields are kept as the hook wrote
 * them, so a caller sees what the hook meant. Whether the answer counts is
 * the verdict's call ({@linkcode readHookVerdict}): the harnesses refuse an
 * answer with a wrong-typed field.
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
  /**
   * The parsed JSON answer, when trimmed stdout starts with `{` and is a
   * valid JSON object: on every exit code in the Claude Code dialect
   * (current Claude Code reads it there too), only on exit 0 in Codex's.
   */
  json?: HookJsonOutput;
  /**
   * Why the hook blocked (`blocking`: the JSON answer's reason when it gives
   * one, else its trimmed stderr) or failed
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
 * One hook of a matcher group: a command (shell form, or exec form with
 * `args`), its timeout, and how it runs. Claude Code's other hook types
 * are the same shape with a `type`: `"http"` (`command` is the `url`; run
 * by the bridge), `"prompt"` and `"agent"` (`command` is the `prompt`; run
 * by the harness's `modelHook` callback of `dispatchHookEvent`).
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
  /** Absent for a command hook; `"http"`, `"prompt"` or `"agent"` for Claude Code's other types. */
  readonly type?: "http" | "prompt" | "agent";
  /**
   * Shell form: the command line, run as `/bin/sh -c <command>`
   * (`claude-code`) or `bash -c <command>` (`codex`). Exec form: the program.
   * An `http` hook: its URL; a `prompt` or `agent` hook: its prompt.
   */
  readonly command: string;
  /** `http`: the request headers; `$NAME` and `${NAME}` in a value name a variable of `allowedEnvVars`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `http`: the variables a header may name (from the dispatch's `env` and the hook variables); others become `""`. */
  readonly allowedEnvVars?: readonly string[];
  /** `prompt`/`agent`: the model the entry names, for the harness. */
  readonly model?: string;
  /**
   * Exec form: the program's arguments. No shell is involved; `${NAME}`
   * placeholders of the hook variables are substituted into `command` and
   * each argument as plain strings.
   */
  readonly args?: readonly string[];
  /** The timeout in ms (the settings give seconds); absent means the event's default. */
  readonly timeoutMs?: number;
  /** Claude Code: a permission rule the tool call must match for the hook to run. */
  readonly if?: string;
  /** Runs in the background: never blocks or decides; reported in `background`. */
  readonly async?: boolean;
  /**
   * Claude Code, with `async`: its exit 2 wakes the model with its output. Without `async` the hook runs in
   * the foreground like any other (measured, Claude Code 2.1.328 and Codex 0.169.0); Codex ignores it.
   */
  readonly asyncRewake?: boolean;
  /** A message for the user while the hook runs. */
  readonly statusMessage?: string;
}

/**
 * What the harness's `modelHook` callback of `dispatchHookEvent` gets for
 * one Claude Code `prompt` or `agent` hook: ask the model, and resolve with
 * its answer, either as Claude Code asks its model for one (`{ ok: false,
 * reason }` blocks, `{ ok: true }` does not) or as a command hook's JSON
 * answer ({@linkcode HookJsonOutput}).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookModelRequest, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Are the tests green? $ARGUMENTS" }] }] },
 * }, { dialect: "claude-code" });
 * const asked: HookModelRequest[] = [];
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "Stop",
 *   payload: { hook_event_name: "Stop", stop_hook_active: false },
 *   projectDir: "/tmp",
 *   owner: null,
 *   modelHook: async (request) => {
 *     asked.push(request);
 *     return { ok: false, reason: "two tests fail" }; // what the harness's model answered
 *   },
 * });
 * assert.equal(asked[0].prompt, "Are the tests green? $ARGUMENTS");
 * assert.equal(outcome.blocked, true);
 * assert.deepEqual(outcome.reasons, ["two tests fail"]);
 * ```
 */
export interface HookModelRequest {
  /** `"prompt"` (one model call) or `"agent"` (a subagent with tools). */
  readonly type: "prompt" | "agent";
  /** The entry's prompt, as written (`$ARGUMENTS` is the harness's to fill). */
  readonly prompt: string;
  /** The entry's `model`, when it names one. */
  readonly model?: string;
  /** The event name. */
  readonly event: string;
  /** The event's payload. */
  readonly payload: object;
  /** The hook's timeout; the bridge gives up on the answer after it. */
  readonly timeoutMs: number;
  /** Aborted when the bridge gives up (the timeout, or the dispatch's `signal`). */
  readonly signal: AbortSignal;
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
  /** The hooks of the group, in order (entries of a type the dialect does not run are skipped). */
  readonly hooks: readonly HookCommand[];
}

/**
 * A hook entry that {@linkcode parseHookSettings} skipped because the
 * bridge does not run its type in the dialect (Claude Code's `mcp_tool`;
 * in the Codex dialect `http`, `prompt`, `agent` and `mcp_tool`, as Codex
 * runs none of them).
 *
 * @example
 * ```ts
 * import { parseHookSettings, type SkippedHookEntry } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Is every task done?" }] }] },
 * }, { dialect: "codex" });
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
 * Something in the settings (or met while dispatching) that the bridge
 * worked around instead of refusing, e.g. a matcher group disabled by an
 * invalid regular expression. Worth showing to the user.
 *
 * @example
 * ```ts
 * import { type HookWarning, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { PreToolUse: [{ matcher: "Bash(", hooks: [{ type: "command", command: "true" }] }] },
 * }, { dialect: "claude-code" });
 * const warnings: readonly HookWarning[] = settings.warnings ?? [];
 * assert.equal(warnings[0].field, "hooks.PreToolUse[0].matcher");
 * assert.match(warnings[0].message, /^invalid regular expression "Bash\(": .*; this group is disabled$/);
 * ```
 */
export interface HookWarning {
  /** Where, e.g. `hooks.PreToolUse[1].matcher`. */
  readonly field: string;
  /** What happened and what the bridge did about it. */
  readonly message: string;
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
  /** Entries of a type the dialect does not run (`mcp_tool`; in `codex` also `http`, `prompt`, `agent`). */
  readonly skipped: readonly SkippedHookEntry[];
  /**
   * What the bridge worked around while reading the settings (always
   * present from `parseHookSettings`; optional so that settings built by
   * hand for 1.0 still type-check).
   */
  readonly warnings?: readonly HookWarning[];
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

/**
 * What a Claude Code harness tells its hooks about itself. Claude Code
 * 2.1.328 gives every hook `CLAUDECODE=1` (the bridge sets it in the
 * `claude-code` dialect), `CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_ENTRYPOINT`
 * and `CLAUDE_PID`; the last three are the harness's own values, so it
 * passes them here. They never come from the ambient environment (the
 * host's are removed), and the Codex dialect sets none of them.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { type HookHarnessInfo, runHook } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const harness: HookHarnessInfo = { sessionId: "s-42", entrypoint: "sdk-ts", pid: process.pid };
 * await using shell = createLocalShell();
 * const result = await runHook(shell, {
 *   command: 'echo "$CLAUDECODE $CLAUDE_CODE_SESSION_ID $CLAUDE_CODE_ENTRYPOINT"',
 *   payload: { hook_event_name: "SessionStart", source: "startup" },
 *   dialect: "claude-code",
 *   projectDir: "/tmp",
 *   owner: null,
 *   harness,
 * });
 * assert.equal(result.stdout, "1 s-42 sdk-ts\n");
 * ```
 */
export interface HookHarnessInfo {
  /** The session's id, given as `CLAUDE_CODE_SESSION_ID`. */
  sessionId?: string;
  /** How the harness was started, e.g. `"cli"` or `"sdk-ts"`, given as `CLAUDE_CODE_ENTRYPOINT`. */
  entrypoint?: string;
  /** The harness's process id, given as `CLAUDE_PID`. */
  pid?: number;
}

/**
 * What the hooks of one event wrote to their env files (`CLAUDE_ENV_FILE`,
 * and `CODEX_ENV_FILE` in Codex): the text, in configuration order, and the
 * variables it sets once sourced by bash, ready to pass as `env` to later
 * commands.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type HookEnvFile, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { SessionStart: [{ hooks: [{ type: "command", command: `echo 'export NODE_ENV=test' >> "$CLAUDE_ENV_FILE"` }] }] },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "SessionStart",
 *   payload: { hook_event_name: "SessionStart", source: "startup" },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * const file: HookEnvFile | undefined = outcome.envFile;
 * assert.equal(file?.text, "export NODE_ENV=test\n");
 * assert.deepEqual(file?.env, { NODE_ENV: "test" });
 * const later = await shell.run(shell.resolve({ command: "echo $NODE_ENV", owner: null, env: file?.env }));
 * assert.equal(later.stdout.text, "test\n");
 * ```
 */
export interface HookEnvFile {
  /** The files' text, each hook's in configuration order. */
  text: string;
  /**
   * The variables the text sets (a string) or unsets (`undefined`) when
   * sourced by bash, compared with the environment before it.
   */
  env: Record<string, string | undefined>;
}
