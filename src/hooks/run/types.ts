/**
 * The public shapes of the run phase of the hook bridge: what one hook run
 * returns ({@linkcode HookResult}), the JSON a hook may answer with
 * ({@linkcode HookJsonOutput}), and what a run is given besides the event
 * (the harness's values, a `prompt` or `agent` hook's request to the
 * model) or leaves behind (its env file).
 *
 * @module
 */

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
