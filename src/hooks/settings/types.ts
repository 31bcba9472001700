/**
 * The public shapes of the settings phase of the hook bridge: the parsed
 * settings ({@linkcode HookSettings}) with their matcher groups and hooks,
 * whose conventions they follow ({@linkcode HookDialect}), and what the
 * parse skipped or worked around.
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
