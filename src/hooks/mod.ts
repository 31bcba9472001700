/**
 * The hook bridge of `@dsh/shell`: runs Claude Code– and Codex-style hooks
 * through a {@linkcode Shell}, so every hook gets the process-group kill,
 * the output budgets and the credential scrub of any other command, and
 * reads them as the current Claude Code and Codex do, per dialect (see
 * docs/hooks.md for the rules and their sources).
 *
 * - {@linkcode runHook} runs one hook, in shell form or exec form (`args`):
 *   the event as JSON on stdin, `CLAUDE_PROJECT_DIR` (and the plugin
 *   variables) in the environment, and the exit-code protocol (0 success,
 *   2 blocking, anything else a non-blocking error). It never rejects.
 * - {@linkcode parseHookSettings} reads the `hooks` of a `settings.json` (or
 *   a Codex `hooks.json`, or a plugin's `hooks/hooks.json`), compiles the
 *   matchers and reports what it worked around in `warnings`.
 * - {@linkcode dispatchHookEvent} runs every hook of an event whose matcher
 *   and `if` filter accept it, the foreground ones in parallel and the
 *   `async` ones in the background, and merges their decisions (`deny` >
 *   `defer` > `ask` > `allow`). Claude Code's `http` hooks are POSTed
 *   their event; `prompt` and `agent` hooks go to the harness's
 *   `modelHook`.
 * - {@linkcode readHookVerdict} says what one result decides for one event.
 * - {@linkcode hookPayload} builds the payload of the events a harness sends
 *   most (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop) as
 *   Claude Code 2.1.328 sends it.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 *
 * const settings = parseHookSettings({
 *   hooks: {
 *     PreToolUse: [{
 *       matcher: "Bash",
 *       hooks: [{
 *         type: "command",
 *         command: `grep -q 'rm -rf' && { echo "refusing rm -rf" >&2; exit 2; }; exit 0`,
 *         timeout: 10,
 *       }],
 *     }],
 *   },
 * }, { dialect: "claude-code" });
 *
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, {
 *   event: "PreToolUse",
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(outcome.blocked, true);
 * assert.deepEqual(outcome.reasons, ["refusing rm -rf"]);
 * ```
 *
 * @module
 */

export { HOOK_DEFAULTS, runHook, type RunHookOptions } from "./run/command.ts";
export { parseHookSettings, type ParseHookSettingsOptions } from "./settings/parse.ts";
export { dispatchHookEvent, type DispatchHookEventOptions } from "./dispatch.ts";
export { readHookVerdict } from "./verdict/read.ts";
export { HOOK_MATCH_FIELDS } from "./settings/matcher.ts";
export { HookSettingsError } from "./errors.ts";
export {
  hookPayload,
  type HookPayloadFields,
  type HookPayloadHead,
  type HookPayloads,
  type HookSession,
} from "./payload.ts";
export type {
  HookEnvFile,
  HookHarnessInfo,
  HookJsonOutput,
  HookModelRequest,
  HookOutcome,
  HookPermission,
  HookPermissionRequestDecision,
  HookResult,
  HookSpecificOutput,
} from "./run/types.ts";
export type {
  HookCommand,
  HookDialect,
  HookMatcherGroup,
  HookSettings,
  HookWarning,
  SkippedHookEntry,
} from "./settings/types.ts";
export type {
  HookBackgroundResult,
  HookBackgroundRun,
  HookDispatchEntry,
  HookDispatchResult,
  HookVerdict,
} from "./verdict/types.ts";
