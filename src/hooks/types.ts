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
 */
export type HookDialect = "claude-code" | "codex";

/** How a hook ended, in the terms of the hook protocol. */
export type HookOutcome = "success" | "blocking" | "non-blocking-error";

/** A permission decision, from the strongest (`deny`) to the weakest (`allow`). */
export type HookPermission = "allow" | "deny" | "ask";

/**
 * The `hookSpecificOutput` object of a hook's JSON answer: fields that
 * apply only to the event named by `hookEventName`. Fields of a wrong type
 * are dropped; unknown fields are kept as the hook wrote them.
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

/** What one hook run returns. {@linkcode runHook} always resolves with one. */
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

/** One hook of a matcher group: a shell command and its timeout. */
export interface HookCommand {
  /** The command line, run as `bash -c <command>`. */
  readonly command: string;
  /** The timeout in ms (the settings give seconds); absent means the bridge's default. */
  readonly timeoutMs?: number;
}

/** One matcher group of an event: a pattern and the hooks it selects. */
export interface HookMatcherGroup {
  /** The pattern as written; absent, `""` and `"*"` match everything. */
  readonly matcher?: string;
  /** The command hooks of the group, in order (entries of other types are skipped). */
  readonly hooks: readonly HookCommand[];
}

/** A hook entry that {@linkcode parseHookSettings} skipped because it is not a shell command. */
export interface SkippedHookEntry {
  /** Where it is, e.g. `hooks.Stop[0].hooks[1]`. */
  readonly path: string;
  /** Its `type`, e.g. `"prompt"`. */
  readonly type: string;
}

/**
 * Parsed hook settings, as {@linkcode parseHookSettings} returns them and
 * {@linkcode dispatchHookEvent} takes them: plain, frozen data.
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

/** One hook that ran during a dispatch, with its result. */
export interface HookDispatchEntry {
  /** The command as the settings wrote it. */
  command: string;
  /** How it ended. */
  result: HookResult;
}

/** The merged outcome of one event: every hook's result and what they decided together. */
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
