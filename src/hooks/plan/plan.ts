/**
 * Which hooks one event runs, and how: the matchers and `if` filters
 * select, duplicates are dropped (Claude Code), background hooks are set
 * apart, and each hook gets its timeout (its own, else the event's
 * default; Claude Code's `SessionEnd` hooks share one budget).
 *
 * @module
 */

import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { HookSettingsError } from "../errors.ts";
import { eventRules } from "../events.ts";
import { ifRuleMatches, parseIfRule } from "../settings/if/if_filter.ts";
import { matchScope } from "../settings/matcher.ts";
import { matcherOf } from "../settings/parse.ts";
import { hookPathOf } from "../settings/entry.ts";
import type { HookCommand, HookDialect, HookSettings, HookWarning } from "../settings/types.ts";

/** Claude Code's `SessionEnd` budget: 1.5 s, raised by the settings' own timeouts up to 60 s. */
const SESSION_END_BUDGET_MS = 1_500;
const SESSION_END_BUDGET_MAX_MS = 60_000;

/** One hook selected for the event, with what it runs with. */
export interface PlannedHook {
  readonly hook: HookCommand;
  readonly dialect: HookDialect;
  readonly pluginRoot?: string;
  readonly pluginData?: string;
  /** Where it is in the settings, for warnings. */
  readonly path: string;
  /** Its timeout, when not `runHook`'s default. */
  readonly timeoutMs?: number;
  /** It runs in the background (`async`; `asyncRewake` alone does not, measured in both binaries). */
  readonly background: boolean;
  /** It gets an env file (`CLAUDE_ENV_FILE`). */
  readonly envFile: boolean;
}

/** What the plan reads from the dispatch options. */
export interface PlanInput {
  event: string;
  payload: object;
  projectDir: string;
  matchTarget?: string | readonly string[];
}

/** The hooks to run, in configuration order; `warnings` receives what was worked around. */
export function planHooks(all: readonly HookSettings[], input: PlanInput, warnings: HookWarning[]): PlannedHook[] {
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
    if (!Object.hasOwn(settings.events, input.event)) return;
    const groups = settings.events[input.event];
    if (!Array.isArray(groups)) throw new HookSettingsError(`${where}.events.${input.event}`, "must be an array");
    const dialect = settings.dialect;
    const scope = matchScope(input.event, dialect, input.payload, input.matchTarget);
    const rules = eventRules(input.event, dialect);
    groups.forEach((group, groupIndex) => {
      const groupPath = `${where}.events.${input.event}[${groupIndex}]`;
      if (scope.kind === "target") {
        const test = matcherOf(group, dialect, input.event, groupPath, (warning) => warnings.push(warning));
        if (!test(scope.targets)) return;
      }
      group.hooks.forEach((hook: HookCommand, hookIndex: number) => {
        const path = hookPathOf(hook) ?? `${groupPath}.hooks[${hookIndex}]`;
        if (dialect === "claude-code" && hook.if !== undefined) {
          if (!passesIf(hook.if, path, hookPathOf(hook) !== undefined, input, warnings)) return;
        }
        // Both binaries run a hook with `asyncRewake` but no `async` in the foreground, where its exit 2 blocks.
        const background = hook.async === true;
        if (dialect === "claude-code") {
          const identity = JSON.stringify([
            hook.type ?? "command",
            hook.command,
            hook.headers ?? null,
            hook.allowedEnvVars ?? null,
            hook.args ?? null,
            hook.if ?? null,
            background,
            settings.pluginRoot ?? null,
            settings.pluginData ?? null,
          ]);
          if (seen.has(identity)) return;
          seen.add(identity);
        }
        const timeoutMs = background ? backgroundTimeout(hook, dialect) : hook.timeoutMs ?? rules?.defaultTimeoutMs;
        planned.push({
          hook,
          dialect,
          path,
          background,
          envFile: !background && hook.type === undefined && rules?.envFile === true,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(settings.pluginRoot === undefined ? {} : { pluginRoot: settings.pluginRoot }),
          ...(settings.pluginData === undefined ? {} : { pluginData: settings.pluginData }),
        });
      });
    });
  });
  return shareSessionEndBudget(planned, input.event);
}

/**
 * A background hook's timeout. Claude Code "doesn't enforce `timeout` on"
 * an `async` hook but "still enforces `timeout` on a hook you run with
 * `asyncRewake`" (with `async`) (hooks reference, "Run hooks in the background"): the
 * former gets `runHook`'s default, since every run here has a deadline.
 * Codex enforces every hook's timeout.
 */
function backgroundTimeout(hook: HookCommand, dialect: HookDialect): number | undefined {
  if (dialect === "claude-code" && hook.asyncRewake !== true) return undefined;
  return hook.timeoutMs;
}

/**
 * Claude Code's `if`: evaluated on tool events only ("On other events, a
 * hook with if set never runs"); a rule that cannot be evaluated runs the
 * hook, with a warning.
 */
function passesIf(
  condition: unknown,
  path: string,
  parsed: boolean,
  input: PlanInput,
  warnings: HookWarning[],
): boolean {
  if (typeof condition !== "string") {
    throw new HookSettingsError(`${path}.if`, "must be a string (one permission rule)");
  }
  const rules = eventRules(input.event, "claude-code");
  if (rules?.toolEvent !== true) return false;
  const rule = parseIfRule(condition);
  if (rule === undefined) {
    // parseHookSettings reported it already; settings built by hand hear it here.
    if (!parsed) {
      warnings.push({
        field: `${path}.if`,
        message: `${JSON.stringify(condition)} is not one permission rule; the hook runs (fail open)`,
      });
    }
    return true;
  }
  const payload: Record<string, unknown> = typeof input.payload === "object" && input.payload !== null
    ? input.payload as Record<string, unknown>
    : {};
  const cwd = Object.hasOwn(payload, "cwd") && typeof payload.cwd === "string" && isAbsolute(payload.cwd)
    ? payload.cwd
    : input.projectDir;
  const outcome = ifRuleMatches(rule, {
    toolName: Object.hasOwn(payload, "tool_name") && typeof payload.tool_name === "string"
      ? payload.tool_name
      : undefined,
    toolInput: Object.hasOwn(payload, "tool_input") ? payload.tool_input : undefined,
    cwd,
    home: homedir(),
    settingsRoot: input.projectDir,
  });
  if (outcome.failOpen !== undefined) {
    warnings.push({
      field: `${path}.if`,
      message: `${JSON.stringify(condition)} could not be evaluated (${outcome.failOpen}); the hook runs (fail open)`,
    });
  }
  return outcome.match;
}

/**
 * Claude Code's `SessionEnd` hooks "share a 1.5-second budget; if your
 * settings set a longer per-hook timeout, Claude Code raises the budget to
 * match, up to 60 seconds", and "timeouts set on plugin-provided hooks
 * don't raise the budget". Each hook's timeout is its own, capped at the
 * budget; a hook without one keeps 1.5 s even where a sibling's timeout
 * raised the budget (measured, Claude Code 2.1.328: beside a hook with
 * `timeout: 8`, a 3 s hook without one was cancelled).
 */
function shareSessionEndBudget(planned: PlannedHook[], event: string): PlannedHook[] {
  const shares = (plan: PlannedHook): boolean =>
    !plan.background && plan.dialect === "claude-code" && eventRules(event, plan.dialect)?.sharedBudget === true;
  if (!planned.some(shares)) return planned;
  let budget = SESSION_END_BUDGET_MS;
  for (const plan of planned) {
    if (shares(plan) && plan.pluginRoot === undefined && plan.hook.timeoutMs !== undefined) {
      budget = Math.max(budget, Math.min(plan.hook.timeoutMs, SESSION_END_BUDGET_MAX_MS));
    }
  }
  return planned.map((plan) =>
    shares(plan) ? { ...plan, timeoutMs: Math.min(plan.hook.timeoutMs ?? SESSION_END_BUDGET_MS, budget) } : plan
  );
}
