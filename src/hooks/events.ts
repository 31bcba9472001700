/**
 * What each event is, per dialect: which payload field its matchers test,
 * what an exit code 2 does, whether plain stdout is context, whether its
 * hooks get an env file, its default timeout and which decision fields it
 * reads. One table per harness, each row taken from its reference (see
 * docs/hooks.md for the sources); an event in neither table is "custom"
 * and keeps the 1.0 rules.
 *
 * Internal: the public face is `HOOK_MATCH_FIELDS`.
 *
 * @module
 */

import type { HookDialect } from "./settings/types.ts";

/** What exit code 2 means for an event. */
export type Exit2Effect =
  /** The action is blocked (or denied): `permission: "deny"`. */
  | "block"
  /** The action already happened: the reason is feedback for the model, not a block. */
  | "feedback"
  /** Nothing: the hook failed, and its stderr is for the user. */
  | "none";

/** The decision fields of a JSON answer an event reads. */
export type DecisionForm =
  /** `hookSpecificOutput.permissionDecision` (allow/deny/ask/defer). */
  | "permissionDecision"
  /** `hookSpecificOutput.decision.behavior` (allow/deny), `PermissionRequest`'s shape. */
  | "permissionRequest"
  /** The top-level `decision: "block"` with `reason`. */
  | "block"
  /** The top-level `decision: "approve"` (PreToolUse's deprecated spelling of allow). */
  | "approve";

/** The rules of one event in one dialect. */
export interface EventRules {
  /** The payload field its matchers test; absent when the event has no matcher support. */
  readonly matchField?: string;
  /** Claude Code's `FileChanged` and `StopFailure`: the exact set is only letters, digits, `_` and `|`. */
  readonly narrowMatcher?: boolean;
  /** The matcher tests the basename of the field's value (`FileChanged`'s `file_path`). */
  readonly matchBasename?: boolean;
  /** What exit code 2 does. */
  readonly exit2: Exit2Effect;
  /** Any nonzero exit blocks (`WorktreeCreate`). */
  readonly nonZeroBlocks?: boolean;
  /** Plain stdout on exit 0 is context for the model. */
  readonly stdoutIsContext: boolean;
  /** Codex: plain stdout on exit 0 is an error (Stop's answer must be JSON). */
  readonly stdoutIsError?: boolean;
  /** Its hooks get `CLAUDE_ENV_FILE` (and `CODEX_ENV_FILE` in Codex). */
  readonly envFile: boolean;
  /** The default timeout of its command hooks, when not the bridge's 600 s. */
  readonly defaultTimeoutMs?: number;
  /** Claude Code's `SessionEnd`: the hooks share a budget (1.5 s, raised by settings up to 60 s). */
  readonly sharedBudget?: boolean;
  /** The decision fields it reads. */
  readonly decisions: ReadonlySet<DecisionForm>;
  /** Output and exit code are ignored entirely (`StopFailure`). */
  readonly ignoreOutput?: boolean;
  /**
   * JSON fields the event discards: `"all"` of them (`Setup`,
   * `InstructionsLoaded`, `WorktreeRemove`), or only these universal ones.
   */
  readonly discards?: "all" | ReadonlySet<"systemMessage" | "continue">;
  /**
   * A `hookSpecificOutput.additionalContext` naming the event reaches no
   * model (`TaskCreated`: measured, Claude Code 2.1.328).
   */
  readonly dropsContext?: boolean;
  /** A tool event: `if` filters are evaluated (Claude Code). */
  readonly toolEvent?: boolean;
}

const NONE: ReadonlySet<DecisionForm> = new Set();
const BLOCK: ReadonlySet<DecisionForm> = new Set(["block"]);

/** A row with the common defaults filled in. */
function rules(row: Partial<EventRules> & Pick<EventRules, "exit2">): EventRules {
  return Object.freeze({ stdoutIsContext: false, envFile: false, decisions: NONE, ...row });
}

const tool = (exit2: Exit2Effect, decisions: ReadonlySet<DecisionForm>): EventRules =>
  rules({ matchField: "tool_name", exit2, decisions, toolEvent: true });

const MESSAGE_AND_CONTINUE: ReadonlySet<"systemMessage" | "continue"> = new Set(["systemMessage", "continue"]);
const CONTINUE: ReadonlySet<"systemMessage" | "continue"> = new Set(["continue"]);

/**
 * Claude Code's events, as its current hooks reference gives them
 * (code.claude.com/docs/en/hooks, fetched 2026-10-08: "Matcher patterns",
 * "Exit code 2 behavior per event", "Decision control", "Exit code 0",
 * "Common fields", "Persist environment variables", and each event's
 * section for the fields it discards).
 */
const CLAUDE_CODE: Readonly<Record<string, EventRules>> = Object.freeze({
  PreToolUse: tool("block", new Set<DecisionForm>(["permissionDecision", "block", "approve"])),
  // "Exit code 2 isn't honored for this event": only the decision object decides.
  PermissionRequest: tool("none", new Set<DecisionForm>(["permissionRequest"])),
  PermissionDenied: tool("none", NONE),
  PostToolUse: tool("feedback", BLOCK),
  PostToolUseFailure: tool("feedback", BLOCK),
  PostToolBatch: rules({ exit2: "block", decisions: BLOCK }),
  UserPromptSubmit: rules({ exit2: "block", decisions: BLOCK, stdoutIsContext: true, defaultTimeoutMs: 30_000 }),
  UserPromptExpansion: rules({ matchField: "command_name", exit2: "block", decisions: BLOCK, stdoutIsContext: true }),
  SessionStart: rules({ matchField: "source", exit2: "none", stdoutIsContext: true, envFile: true }),
  Setup: rules({ matchField: "trigger", exit2: "none", envFile: true, discards: "all" }),
  SessionEnd: rules({ matchField: "reason", exit2: "none", sharedBudget: true }),
  Notification: rules({ matchField: "notification_type", exit2: "none", discards: MESSAGE_AND_CONTINUE }),
  MessageDisplay: rules({ exit2: "none", defaultTimeoutMs: 10_000, discards: MESSAGE_AND_CONTINUE }),
  SubagentStart: rules({ matchField: "agent_type", exit2: "none" }),
  SubagentStop: rules({ matchField: "agent_type", exit2: "block", decisions: BLOCK }),
  TaskCreated: rules({ exit2: "block", decisions: BLOCK, discards: CONTINUE, dropsContext: true }),
  TaskCompleted: rules({ exit2: "block" }),
  TeammateIdle: rules({ exit2: "block" }),
  Stop: rules({ exit2: "block", decisions: BLOCK }),
  StopFailure: rules({ matchField: "error", narrowMatcher: true, exit2: "none", ignoreOutput: true }),
  InstructionsLoaded: rules({ matchField: "load_reason", exit2: "none", discards: "all" }),
  ConfigChange: rules({ matchField: "source", exit2: "block", decisions: BLOCK, discards: MESSAGE_AND_CONTINUE }),
  CwdChanged: rules({ exit2: "none", envFile: true, discards: CONTINUE }),
  DirectoryAdded: rules({ matchField: "source", exit2: "none", discards: CONTINUE }),
  FileChanged: rules({
    matchField: "file_path",
    matchBasename: true,
    narrowMatcher: true,
    exit2: "none",
    envFile: true,
    discards: CONTINUE,
  }),
  WorktreeCreate: rules({ exit2: "block", nonZeroBlocks: true, discards: MESSAGE_AND_CONTINUE }),
  WorktreeRemove: rules({ exit2: "block", nonZeroBlocks: true, discards: "all" }),
  PreCompact: rules({ matchField: "trigger", exit2: "block", decisions: BLOCK }),
  PostCompact: rules({ matchField: "trigger", exit2: "none" }),
  // 2.1.251. The matcher tests the canonical name of `to_model`; a harness that canonicalises passes it as matchTarget.
  PreModelSwitch: rules({
    matchField: "to_model",
    exit2: "block",
    decisions: new Set<DecisionForm>(["permissionDecision", "block"]),
    defaultTimeoutMs: 30_000,
  }),
  PostModelSwitch: rules({ matchField: "to_model", exit2: "none", stdoutIsContext: true, defaultTimeoutMs: 30_000 }),
  Elicitation: rules({ matchField: "mcp_server_name", exit2: "block" }),
  ElicitationResult: rules({ matchField: "mcp_server_name", exit2: "block" }),
});

/**
 * Codex's events (`codex-rs/hooks`: `engine/dispatcher.rs` for the
 * matchers, `events/*.rs` for exit codes and plain stdout,
 * `session_start_env_file.rs` for the env file). Exit 2 "none" here means
 * Codex marks the hook Failed.
 */
const CODEX: Readonly<Record<string, EventRules>> = Object.freeze({
  PreToolUse: rules({
    matchField: "tool_name",
    exit2: "block",
    decisions: new Set<DecisionForm>(["permissionDecision", "block"]),
    toolEvent: true,
  }),
  PermissionRequest: rules({
    matchField: "tool_name",
    exit2: "block",
    decisions: new Set<DecisionForm>(["permissionRequest"]),
    toolEvent: true,
  }),
  PostToolUse: rules({ matchField: "tool_name", exit2: "feedback", decisions: BLOCK, toolEvent: true }),
  // No env file: Codex 0.169.0 gives SessionStart hooks none (measured), whatever its sources once had.
  SessionStart: rules({ matchField: "source", exit2: "none", stdoutIsContext: true }),
  SubagentStart: rules({ matchField: "agent_type", exit2: "none", stdoutIsContext: true }),
  SubagentStop: rules({ matchField: "agent_type", exit2: "block", decisions: BLOCK, stdoutIsError: true }),
  UserPromptSubmit: rules({ exit2: "block", decisions: BLOCK, stdoutIsContext: true }),
  Stop: rules({ exit2: "block", decisions: BLOCK, stdoutIsError: true }),
  PreCompact: rules({ matchField: "trigger", exit2: "none" }),
  PostCompact: rules({ matchField: "trigger", exit2: "none" }),
  // In Codex 0.169.0 (measured), and they cannot block. Their matcher fields are not measured: every group runs,
  // which never runs a hook less than Codex does.
  PreModelRequest: rules({ exit2: "none" }),
  SessionEnd: rules({ exit2: "none" }),
});

/**
 * The rules of `event` in `dialect`, or `undefined` for an event the
 * dialect's reference does not list (a custom event).
 */
export function eventRules(event: string, dialect: HookDialect): EventRules | undefined {
  const table = dialect === "codex" ? CODEX : CLAUDE_CODE;
  return Object.hasOwn(table, event) ? table[event] : undefined;
}

/** The payload field each Claude Code event's matchers test (the public `HOOK_MATCH_FIELDS`). */
export function claudeCodeMatchFields(): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [event, row] of Object.entries(CLAUDE_CODE)) {
    if (row.matchField !== undefined) fields[event] = row.matchField;
  }
  return fields;
}
