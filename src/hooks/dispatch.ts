/**
 * One event through one or more settings: plan the hooks (matchers, `if`,
 * duplicates, timeouts), start the background ones, run the rest all at
 * once, merge what they decided, and read back their env files.
 *
 * @module
 */

import { ownFields } from "../seam/own_fields.ts";
import type { EnvPatch, Shell } from "../seam/types.ts";
import { backgroundResult } from "./verdict/background.ts";
import { EnvFiles, readEnvFile } from "./run/env_file.ts";
import { hookEnv } from "./run/hook_env.ts";
import { mergeVerdicts } from "./verdict/merge.ts";
import { planHooks, type PlannedHook } from "./plan/plan.ts";
import { runHook, type RunHookOptions } from "./run/command.ts";
import { runHttpHook } from "./run/http.ts";
import { type ModelHookRunner, runModelHook } from "./run/model.ts";
import type { HookEnvFile, HookHarnessInfo, HookJsonOutput, HookModelRequest, HookResult } from "./run/types.ts";
import type { HookCommand, HookSettings, HookWarning } from "./settings/types.ts";
import type { HookBackgroundRun, HookDispatchResult } from "./verdict/types.ts";
import { readHookVerdict } from "./verdict/read.ts";

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
   * What matchers test, e.g. the tool name, or several names (a group
   * runs when its matcher accepts any of them, as Codex tests a tool's
   * aliases). When absent it comes from the payload for the events of
   * `HOOK_MATCH_FIELDS`. Events without matcher support run all their
   * groups whatever is given here; custom events test it when given.
   */
  matchTarget?: string | readonly string[];
  /** The event, sent to every hook as JSON on stdin. */
  payload: object;
  /** The project root: `CLAUDE_PROJECT_DIR`, and every hook's workdir. */
  projectDir: string;
  /** Who owns the runs, or `null`. */
  owner: string | null;
  /** Aborts every foreground hook still running. */
  signal?: AbortSignal;
  /** Extra environment entries for every hook, as `runHook`'s `env`; the hook variables win over them. */
  env?: EnvPatch;
  /**
   * Aborts the background hooks (`async`) still running, e.g.
   * at the end of the session. They outlive `signal`, which is the event's;
   * `shell.close()` ends them too.
   */
  backgroundSignal?: AbortSignal;
  /** Claude Code's harness values for every hook (`CLAUDE_CODE_SESSION_ID`…): see `runHook`'s `harness`. */
  harness?: HookHarnessInfo;
  /** `false` runs every hook (and the env files' read-back) outside the shell's sandbox: see `runHook`'s `sandbox`. */
  sandbox?: false;
  /**
   * Runs Claude Code's `prompt` and `agent` hooks with the harness's model
   * (see {@linkcode HookModelRequest}); its answer is read as the hook's
   * JSON answer. Without it such hooks are skipped, with a warning.
   */
  modelHook?: (request: HookModelRequest) => Promise<HookJsonOutput>;
}

/**
 * Runs every hook that `settings` (one, or an array such as user, project
 * and plugin settings, in that order) configure for `options.event`, whose
 * matcher accepts the match target and whose `if` (Claude Code) accepts
 * the tool call, and merges what they decided.
 *
 * - Foreground hooks run **all at once**; results come in configuration
 *   order (array order, then group order, then hook order), whatever order
 *   they finish in. Background hooks (`async`) start at the
 *   same time and are not awaited: each is in `background`, with a `done`
 *   promise for its outcome. They never decide the event.
 * - Claude Code dialect: a hook identical to one already selected (same
 *   command, arguments, `if`, mode, plugin root and data) runs once and is
 *   reported once, at its first place. Codex hooks are never deduplicated.
 * - Timeouts: the hook's own, else the event's default (Claude Code:
 *   `UserPromptSubmit` 30 s, `MessageDisplay` 10 s, `SessionEnd` a shared
 *   1.5 s budget raised by the settings' timeouts up to 60 s), else 600 s.
 * - Merge: `deny` > `defer` > `ask` > `allow` (see `readHookVerdict` for
 *   what each hook decides, per dialect); only the winning decision's
 *   reasons are kept (for a deny, the one reason the model sees); the first `continue: false` stops with its
 *   `stopReason`; contexts, system messages and feedback are collected in
 *   order. `blocked` is `permission === "deny"`.
 * - On the events whose hooks get `CLAUDE_ENV_FILE` (Claude Code:
 *   `SessionStart`, `Setup`, `CwdChanged`, `FileChanged`; Codex 0.169.0:
 *   none), each foreground hook gets a fresh private file; what they wrote
 *   is `envFile`.
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
 *       hooks: [{
 *         type: "command",
 *         if: "Bash(git push *)",
 *         command: `echo '{"decision":"block","reason":"no pushes"}'`,
 *       }],
 *     }],
 *   },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const push = await dispatchHookEvent(shell, settings, {
 *   event: "PreToolUse",
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "npm test && git push origin main" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.equal(push.blocked, true);
 * assert.deepEqual(push.reasons, ["no pushes"]);
 * const status = await dispatchHookEvent(shell, settings, {
 *   event: "PreToolUse",
 *   payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "git status" } },
 *   projectDir: "/tmp",
 *   owner: null,
 * });
 * assert.deepEqual(status.results, []); // the `if` filter did not match: the hook never started
 * ```
 */
export async function dispatchHookEvent(
  shell: Shell,
  settings: HookSettings | readonly HookSettings[],
  given: DispatchHookEventOptions,
): Promise<HookDispatchResult> {
  // Own properties only: nothing planted on Object.prototype reaches the hooks.
  const options = ownFields(given) as DispatchHookEventOptions;
  const warnings: HookWarning[] = [];
  const planned = planHooks(Array.isArray(settings) ? settings : [settings as HookSettings], options, warnings)
    .filter((plan) => runnable(plan, options, warnings));
  const foreground = planned.filter((plan) => !plan.background);
  const background = planned.filter((plan) => plan.background).map((plan) => startBackground(shell, plan, options));

  const envFiles = foreground.some((plan) => plan.envFile) ? new EnvFiles() : undefined;
  let results: HookResult[];
  // The order the hooks ended in: Claude Code joins their context in that order.
  const finished: number[] = [];
  try {
    results = await Promise.all(
      foreground.map((plan, index) =>
        runnerOf(plan).run({
          shell,
          plan,
          options,
          signal: options.signal,
          envFile: plan.envFile ? envFiles?.next() : undefined,
        }).then((result) => {
          finished.push(index);
          return result;
        })
      ),
    );
  } catch (error) {
    envFiles?.discard();
    throw error;
  }
  const verdicts = results.map((result, index) => readHookVerdict(result, options.event, foreground[index].dialect));
  const envFile = envFiles === undefined ? undefined : await readBack(shell, envFiles, options, warnings);
  const merged = mergeVerdicts(verdicts, foreground.map((plan) => plan.dialect), finished);
  const dispatch: HookDispatchResult = {
    results: foreground.map((plan, index) => ({
      ...(plan.hook.type === undefined ? {} : { type: plan.hook.type }),
      command: plan.hook.command,
      ...(plan.hook.args === undefined ? {} : { args: plan.hook.args }),
      result: results[index],
      verdict: verdicts[index],
    })),
    ...(merged.permission === undefined ? {} : { permission: merged.permission }),
    reasons: merged.reasons,
    blocked: merged.blocked,
    ...(merged.stop === undefined ? {} : { stop: merged.stop }),
    ...(merged.toolOutput === undefined ? {} : { toolOutput: merged.toolOutput }),
    additionalContext: merged.additionalContext,
    systemMessages: merged.systemMessages,
    feedback: merged.feedback,
    background,
    ...(envFile === undefined ? {} : { envFile }),
    warnings,
  };
  return dispatch;
}

/** What a runner gets: one planned hook of the event, and the signal and env file of this run of it. */
interface RunnerCall {
  readonly shell: Shell;
  readonly plan: PlannedHook;
  readonly options: DispatchHookEventOptions;
  /** The event's `signal` in the foreground, `backgroundSignal` in the background. */
  readonly signal: AbortSignal | undefined;
  /** The private `CLAUDE_ENV_FILE` of a foreground hook on an event that gives one. */
  readonly envFile: string | undefined;
}

/** One row of {@linkcode RUNNERS}: how a hook entry of one type runs. */
interface HookRunner {
  /** Runs the hook; resolves with its result however it ends, never rejects. */
  readonly run: (call: RunnerCall) => Promise<HookResult>;
  /**
   * Why a hook of this type cannot run with these options (the warning's
   * text; the hook is then skipped), or `undefined` when it can.
   */
  readonly unavailable?: (options: DispatchHookEventOptions, type: string) => string | undefined;
}

/** A hook entry's type as the table knows it: a command hook has no `type`. */
type HookType = NonNullable<HookCommand["type"]> | "command";

/** Claude Code's default timeouts of `prompt` and `agent` hooks (CC "Common fields": 30 s and 60 s). */
const MODEL_HOOK_TIMEOUT_MS = { prompt: 30_000, agent: 60_000 } as const;

/** A `prompt` or `agent` hook is run by the harness's model, through `modelHook`. */
const MODEL_RUNNER: HookRunner = {
  run: ({ plan, options, signal }) => {
    const type = plan.hook.type as "prompt" | "agent";
    const request: Omit<HookModelRequest, "signal"> = {
      type,
      prompt: plan.hook.command,
      ...(plan.hook.model === undefined ? {} : { model: plan.hook.model }),
      event: options.event,
      payload: options.payload,
      timeoutMs: plan.timeoutMs ?? MODEL_HOOK_TIMEOUT_MS[type],
    };
    return runModelHook(options.modelHook as ModelHookRunner, request, signal);
  },
  unavailable: (options, type) =>
    typeof options.modelHook === "function"
      ? undefined
      : `a ${type} hook needs the harness's model: skipped (dispatchHookEvent was given no modelHook)`,
};

/**
 * The runner of each hook type, keyed by the entry's type. A new hook type
 * is one row here (and its settings in `settings/entry.ts`).
 */
const RUNNERS: Readonly<Record<HookType, HookRunner>> = {
  // Shell form and exec form (`args`) alike: `runHook` tells them apart.
  command: {
    run: ({ shell, plan, options, signal, envFile }) =>
      runHook(shell, {
        ...runOptions(plan, options),
        ...(envFile === undefined ? {} : { envFile }),
        ...(signal === undefined ? {} : { signal }),
      }),
  },
  http: {
    run: ({ plan, options, signal }) => {
      const { hook } = plan;
      const locations = {
        projectDir: options.projectDir,
        ...(plan.pluginRoot === undefined ? {} : { pluginRoot: plan.pluginRoot }),
        ...(plan.pluginData === undefined ? {} : { pluginData: plan.pluginData }),
      };
      return runHttpHook({
        url: hook.command,
        ...(hook.headers === undefined ? {} : { headers: hook.headers }),
        ...(hook.allowedEnvVars === undefined ? {} : { allowedEnvVars: hook.allowedEnvVars }),
        payload: options.payload,
        ...(plan.timeoutMs === undefined ? {} : { timeoutMs: plan.timeoutMs }),
        ...(signal === undefined ? {} : { signal }),
        env: hookEnv(locations, options.env, plan.dialect, options.harness),
      });
    },
  },
  prompt: MODEL_RUNNER,
  agent: MODEL_RUNNER,
};

/** The row of a planned hook's type. */
function runnerOf(plan: PlannedHook): HookRunner {
  const type = plan.hook.type;
  // Settings built by hand may name a type the table does not know: such an entry runs as a command, as before.
  return type !== undefined && Object.hasOwn(RUNNERS, type) ? RUNNERS[type] : RUNNERS.command;
}

/** Whether a planned hook can run; one that cannot is skipped, with a warning. */
function runnable(plan: PlannedHook, options: DispatchHookEventOptions, warnings: HookWarning[]): boolean {
  const missing = runnerOf(plan).unavailable?.(options, plan.hook.type ?? "command");
  if (missing === undefined) return true;
  warnings.push({ field: plan.path, message: missing });
  return false;
}

/** What `runHook` gets for a planned command hook. */
function runOptions(plan: PlannedHook, options: DispatchHookEventOptions): RunHookOptions {
  return {
    command: plan.hook.command,
    ...(plan.hook.args === undefined ? {} : { args: plan.hook.args }),
    payload: options.payload,
    dialect: plan.dialect,
    projectDir: options.projectDir,
    owner: options.owner,
    ...(plan.timeoutMs === undefined ? {} : { timeoutMs: plan.timeoutMs }),
    ...(plan.pluginRoot === undefined ? {} : { pluginRoot: plan.pluginRoot }),
    ...(plan.pluginData === undefined ? {} : { pluginData: plan.pluginData }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.harness === undefined ? {} : { harness: options.harness }),
    ...(options.sandbox === false ? { sandbox: false as const } : {}),
  };
}

/** Starts a background hook; its `done` resolves when it ends, whatever happens. */
function startBackground(shell: Shell, plan: PlannedHook, options: DispatchHookEventOptions): HookBackgroundRun {
  // Codex has no rewake: its `async` hook's exit 2 only fails.
  const rewake = plan.hook.asyncRewake === true && plan.dialect === "claude-code";
  const run = runnerOf(plan).run({ shell, plan, options, signal: options.backgroundSignal, envFile: undefined });
  const done = run.then((result) => {
    try {
      return backgroundResult(result, options.event, plan.dialect, rewake);
    } catch {
      return { result };
    }
  });
  return {
    command: plan.hook.command,
    ...(plan.hook.args === undefined ? {} : { args: plan.hook.args }),
    rewake,
    done,
  };
}

/** The env files' text and the variables it sets; absent when no hook wrote anything. */
async function readBack(
  shell: Shell,
  files: EnvFiles,
  options: DispatchHookEventOptions,
  warnings: HookWarning[],
): Promise<HookEnvFile | undefined> {
  const text = files.collect();
  if (text === "") return undefined;
  try {
    const workdir = shell.resolve({ command: "true", owner: null, workdir: options.projectDir }).workdir;
    const { env, refused } = await readEnvFile(shell, text, {
      env: hookEnv({ projectDir: workdir }, options.env, "claude-code"),
      workdir,
      owner: options.owner,
      ...(options.sandbox === false ? { sandbox: false as const } : {}),
    });
    if (refused.length > 0) {
      warnings.push({
        field: "envFile",
        message: `the env file set ${refused.join(", ")}, which later commands do not get (DSH_* and BASH_FUNC_* ` +
          "names are the library's and bash's own)",
      });
    }
    return { text, env };
  } catch (error) {
    warnings.push({
      field: "envFile",
      message: `the env file could not be read back (${error instanceof Error ? error.message : String(error)})`,
    });
    return { text, env: {} };
  }
}
