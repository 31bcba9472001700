/**
 * One event through one or more settings: select the matching hooks, drop
 * duplicates, run them all at once, and merge what they decided.
 *
 * @module
 */

import { ownFields } from "../seam/resolve/own_fields.ts";
import type { Shell } from "../seam/types.ts";
import { HookSettingsError } from "./errors.ts";
import { matchScope } from "./matcher.ts";
import { mergeVerdicts } from "./merge.ts";
import { runHook } from "./run_hook.ts";
import { matcherOf } from "./settings.ts";
import type { HookCommand, HookDialect, HookDispatchResult, HookSettings } from "./types.ts";
import { readHookVerdict } from "./verdict.ts";

/**
 * The event {@linkcode dispatchHookEvent} runs the hooks for.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, type DispatchHookEventOptions, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "echo formatted" }] }] },
 * }, { dialect: "claude-code" });
 * const turn = new AbortController();
 * const options: DispatchHookEventOptions = {
 *   event: "PostToolUse",
 *   payload: { hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "/tmp/a.ts" } },
 *   projectDir: "/tmp",
 *   owner: "session-7",
 *   signal: turn.signal,
 * };
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, options);
 * assert.deepEqual(outcome.results.map((entry) => entry.result.stdout), ["formatted\n"]);
 * ```
 */
export interface DispatchHookEventOptions {
  /** The event name, e.g. `"PreToolUse"`: the key under `hooks` in the settings. */
  event: string;
  /**
   * What matchers test, e.g. the tool name. When absent it comes from the
   * payload for the events of `HOOK_MATCH_FIELDS` (`tool_name` for tool
   * events); other events have no matcher concept, and all their groups run.
   */
  matchTarget?: string;
  /** The event, sent to every hook as JSON on stdin. */
  payload: object;
  /** The project root: `CLAUDE_PROJECT_DIR`, and every hook's workdir. */
  projectDir: string;
  /** Who owns the runs, or `null`. */
  owner: string | null;
  /** Aborts every hook still running. */
  signal?: AbortSignal;
}

/** One hook selected for this event, with what it runs with. */
interface PlannedHook {
  hook: HookCommand;
  dialect: HookDialect;
  pluginRoot?: string;
  pluginData?: string;
}

/**
 * Runs every hook that `settings` (one, or an array such as user, project
 * and plugin settings, in that order) configure for `options.event` and
 * whose matcher accepts the match target, **all at once**, and merges what
 * they decided.
 *
 * - Results come in configuration order (array order, then matcher group
 *   order, then hook order), whatever order the hooks finish in.
 * - Claude Code dialect: a command identical to one already selected (same
 *   text, same plugin root and data) runs once and is reported once, at its
 *   first place. Codex hooks are never deduplicated.
 * - Merge: `deny` > `ask` > `allow` (`decision: "block"` is `deny`,
 *   `"approve"` is `allow`, exit 2 is `deny` with stderr as the reason); only
 *   the winning decision's reasons are kept; the first `continue: false`
 *   stops with its `stopReason`; contexts and system messages are collected
 *   in order. `blocked` is `permission === "deny"`.
 *
 * Every hook's failure is in its result; this rejects only with
 * {@linkcode HookSettingsError} for settings that were not made by
 * `parseHookSettings` and are not valid.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   hooks: {
 *     PreToolUse: [{
 *       matcher: "Bash",
 *       hooks: [{ type: "command", command: `grep -q 'git push' && echo '{"decision":"block","reason":"no pushes"}'; exit 0` }],
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
 * assert.equal(outcome.blocked, true);
 * assert.deepEqual(outcome.reasons, ["no pushes"]);
 * ```
 */
export async function dispatchHookEvent(
  shell: Shell,
  settings: HookSettings | readonly HookSettings[],
  given: DispatchHookEventOptions,
): Promise<HookDispatchResult> {
  // Own properties only: nothing planted on Object.prototype reaches the hooks.
  const options = ownFields(given) as DispatchHookEventOptions;
  const planned = planHooks(Array.isArray(settings) ? settings : [settings as HookSettings], options);
  const results = await Promise.all(planned.map((plan) =>
    runHook(shell, {
      command: plan.hook.command,
      payload: options.payload,
      dialect: plan.dialect,
      projectDir: options.projectDir,
      owner: options.owner,
      ...(plan.hook.timeoutMs === undefined ? {} : { timeoutMs: plan.hook.timeoutMs }),
      ...(plan.pluginRoot === undefined ? {} : { pluginRoot: plan.pluginRoot }),
      ...(plan.pluginData === undefined ? {} : { pluginData: plan.pluginData }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
  ));
  const merged = mergeVerdicts(results.map((result) => readHookVerdict(result, options.event)));
  const dispatch: HookDispatchResult = {
    results: planned.map((plan, index) => ({ command: plan.hook.command, result: results[index] })),
    ...(merged.permission === undefined ? {} : { permission: merged.permission }),
    reasons: merged.reasons,
    blocked: merged.blocked,
    ...(merged.stop === undefined ? {} : { stop: merged.stop }),
    additionalContext: merged.additionalContext,
    systemMessages: merged.systemMessages,
  };
  return dispatch;
}

/** The hooks to run, in configuration order, duplicates (Claude Code dialect) dropped. */
function planHooks(all: readonly HookSettings[], options: DispatchHookEventOptions): PlannedHook[] {
  const scope = matchScope(options.event, options.payload, options.matchTarget);
  const planned: PlannedHook[] = [];
  const seen = new Set<string>();
  all.forEach((settings, settingsIndex) => {
    const where = all.length === 1 ? "settings" : `settings[${settingsIndex}]`;
    if (
      typeof settings !== "object" || settings === null || typeof settings.events !== "object" ||
      settings.events === null
    ) {
      throw new HookSettingsError(where, "must be the result of parseHookSettings");
    }
    if (!Object.hasOwn(settings.events, options.event)) return;
    const groups = settings.events[options.event];
    if (!Array.isArray(groups)) throw new HookSettingsError(`${where}.events.${options.event}`, "must be an array");
    groups.forEach((group, groupIndex) => {
      if (scope.kind === "target") {
        const path = `${where}.events.${options.event}[${groupIndex}]`;
        if (!matcherOf(group, settings.dialect, path)(scope.target)) return;
      }
      for (const hook of group.hooks) {
        if (settings.dialect === "claude-code") {
          const identity = JSON.stringify([hook.command, settings.pluginRoot ?? null, settings.pluginData ?? null]);
          if (seen.has(identity)) continue;
          seen.add(identity);
        }
        planned.push({
          hook,
          dialect: settings.dialect,
          ...(settings.pluginRoot === undefined ? {} : { pluginRoot: settings.pluginRoot }),
          ...(settings.pluginData === undefined ? {} : { pluginData: settings.pluginData }),
        });
      }
    });
  });
  return planned;
}
