/**
 * Typed builders of the payloads a harness sends its hooks most, as Claude
 * Code 2.1.328 sends them (measured: `tests/hook_payloads.test.ts` runs the
 * binary with a hook on each event and compares): the same keys, in the
 * same order, with the same types. A harness gives the facts once per
 * session ({@linkcode HookSession}) and per event, and gets the JSON's
 * snake_case right without writing it by hand.
 *
 * @module
 */

/**
 * What every payload of one session says: who, where, in which mode.
 *
 * @example
 * ```ts
 * import type { HookSession } from "@dsh/shell/hooks";
 * const session: HookSession = {
 *   sessionId: "694709c4-01a6-4926-b6c3-cde97a542277",
 *   transcriptPath: "/home/me/.claude/projects/-work/694709c4-01a6-4926-b6c3-cde97a542277.jsonl",
 *   cwd: "/work",
 *   permissionMode: "default",
 * };
 * ```
 */
export interface HookSession {
  /** `session_id`. */
  sessionId: string;
  /** `transcript_path`: the session's transcript (JSON lines). */
  transcriptPath: string;
  /** `cwd`: the session's working directory. */
  cwd: string;
  /** `permission_mode` (`"default"`, `"plan"`, `"acceptEdits"`, `"bypassPermissions"`…), sent from the first prompt on. */
  permissionMode?: string;
  /** `prompt_id`: the user prompt being worked on, sent from the first prompt on. */
  promptId?: string;
  /** `effort.level` (`"medium"`…), sent with the tool and stop events when the model has one. */
  effort?: string;
}

/**
 * The facts of each event, beside the session's.
 *
 * @example
 * ```ts
 * import type { HookPayloadFields } from "@dsh/shell/hooks";
 * const call: HookPayloadFields["PreToolUse"] = { toolName: "Bash", toolInput: { command: "ls" }, toolUseId: "toolu_1" };
 * ```
 */
export interface HookPayloadFields {
  /** Why the session starts: `"startup"`, `"resume"`, `"clear"` or `"compact"`. */
  SessionStart: { source: "startup" | "resume" | "clear" | "compact" };
  /** The prompt the user submitted. */
  UserPromptSubmit: { prompt: string };
  /** The tool call about to run. */
  PreToolUse: { toolName: string; toolInput: Record<string, unknown>; toolUseId: string };
  /** The tool call that ran, with its response and how long it took. */
  PostToolUse: {
    toolName: string;
    toolInput: Record<string, unknown>;
    toolUseId: string;
    /** `tool_response`: for Claude Code's Bash, `{ stdout, stderr, interrupted, isImage, noOutputExpected }`. */
    toolResponse: unknown;
    durationMs: number;
  };
  /** The turn ends. */
  Stop: {
    /** The model's last message. */
    lastAssistantMessage: string;
    /** A Stop hook already made the model go on (default false). */
    stopHookActive?: boolean;
    /** The background tasks still running (default none). */
    backgroundTasks?: unknown[];
    /** The session's scheduled prompts (default none). */
    sessionCrons?: unknown[];
  };
}

/**
 * The keys every payload starts with, as Claude Code orders them (a type,
 * not an interface, so that a payload is a `Record<string, unknown>` too).
 *
 * @example
 * ```ts
 * import type { HookPayloadHead } from "@dsh/shell/hooks";
 * const head: HookPayloadHead = { session_id: "s-1", transcript_path: "/tmp/s-1.jsonl", cwd: "/tmp" };
 * ```
 */
export type HookPayloadHead = {
  /** From {@linkcode HookSession.sessionId}. */
  session_id: string;
  /** From {@linkcode HookSession.transcriptPath}. */
  transcript_path: string;
  /** From {@linkcode HookSession.cwd}. */
  cwd: string;
  /** From {@linkcode HookSession.promptId}. */
  prompt_id?: string;
  /** From {@linkcode HookSession.permissionMode}. */
  permission_mode?: string;
  /** From {@linkcode HookSession.effort}. */
  effort?: { level: string };
};

/**
 * The payload of each event, as Claude Code 2.1.328 sends it.
 *
 * @example
 * ```ts
 * import type { HookPayloads } from "@dsh/shell/hooks";
 * const isBash = (payload: HookPayloads["PreToolUse"]): boolean => payload.tool_name === "Bash";
 * ```
 */
export type HookPayloads = {
  /** `SessionStart`. */
  SessionStart: HookPayloadHead & {
    hook_event_name: "SessionStart";
    source: HookPayloadFields["SessionStart"]["source"];
  };
  /** `UserPromptSubmit`. */
  UserPromptSubmit: HookPayloadHead & { hook_event_name: "UserPromptSubmit"; prompt: string };
  /** `PreToolUse`. */
  PreToolUse: HookPayloadHead & {
    hook_event_name: "PreToolUse";
    tool_name: string;
    tool_input: Record<string, unknown>;
    tool_use_id: string;
  };
  /** `PostToolUse`. */
  PostToolUse: HookPayloadHead & {
    hook_event_name: "PostToolUse";
    tool_name: string;
    tool_input: Record<string, unknown>;
    tool_response: unknown;
    tool_use_id: string;
    duration_ms: number;
  };
  /** `Stop`. */
  Stop: HookPayloadHead & {
    hook_event_name: "Stop";
    stop_hook_active: boolean;
    last_assistant_message: string;
    background_tasks: unknown[];
    session_crons: unknown[];
  };
};

/**
 * The payload of `event` for `session`, with `fields`: what to give
 * `dispatchHookEvent` or `runHook` as `payload`. Keys and their order are
 * Claude Code 2.1.328's; the session's optional fields are left out when
 * not given, as Claude Code leaves them out of `SessionStart`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { dispatchHookEvent, hookPayload, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const session = { sessionId: "s-1", transcriptPath: "/tmp/s-1.jsonl", cwd: "/tmp", permissionMode: "default" };
 * const payload = hookPayload("PreToolUse", session, {
 *   toolName: "Bash",
 *   toolInput: { command: "rm -rf /", description: "Clean up" },
 *   toolUseId: "toolu_1",
 * });
 * assert.equal(payload.tool_input.command, "rm -rf /");
 * const settings = parseHookSettings({
 *   hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "grep -q 'rm -rf' && exit 2; exit 0" }] }] },
 * }, { dialect: "claude-code" });
 * await using shell = createLocalShell();
 * const outcome = await dispatchHookEvent(shell, settings, { event: "PreToolUse", payload, projectDir: "/tmp", owner: null });
 * assert.equal(outcome.blocked, true);
 * ```
 */
export function hookPayload<E extends keyof HookPayloadFields>(
  event: E,
  session: HookSession,
  fields: HookPayloadFields[E],
): HookPayloads[E] {
  const head: HookPayloadHead = {
    session_id: session.sessionId,
    transcript_path: session.transcriptPath,
    cwd: session.cwd,
  };
  // SessionStart comes before any prompt: Claude Code sends it none of these.
  if (event !== "SessionStart") {
    if (session.promptId !== undefined) head.prompt_id = session.promptId;
    if (session.permissionMode !== undefined) head.permission_mode = session.permissionMode;
    if (session.effort !== undefined && event !== "UserPromptSubmit") head.effort = { level: session.effort };
  }
  return { ...head, hook_event_name: event, ...eventFields(event, fields) } as HookPayloads[E];
}

/** The event's own keys, in Claude Code's order. */
function eventFields(
  event: keyof HookPayloadFields,
  fields: HookPayloadFields[keyof HookPayloadFields],
): Record<string, unknown> {
  switch (event) {
    case "SessionStart":
      return { source: (fields as HookPayloadFields["SessionStart"]).source };
    case "UserPromptSubmit":
      return { prompt: (fields as HookPayloadFields["UserPromptSubmit"]).prompt };
    case "PreToolUse": {
      const call = fields as HookPayloadFields["PreToolUse"];
      return { tool_name: call.toolName, tool_input: call.toolInput, tool_use_id: call.toolUseId };
    }
    case "PostToolUse": {
      const call = fields as HookPayloadFields["PostToolUse"];
      return {
        tool_name: call.toolName,
        tool_input: call.toolInput,
        tool_response: call.toolResponse,
        tool_use_id: call.toolUseId,
        duration_ms: call.durationMs,
      };
    }
    case "Stop": {
      const stop = fields as HookPayloadFields["Stop"];
      return {
        stop_hook_active: stop.stopHookActive ?? false,
        last_assistant_message: stop.lastAssistantMessage,
        background_tasks: stop.backgroundTasks ?? [],
        session_crons: stop.sessionCrons ?? [],
      };
    }
  }
}
