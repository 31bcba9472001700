/**
 * What one hook's result decides for one event, as Codex reads it
 * (`codex-rs/hooks`: `schema.rs` for the wire shapes, which deny unknown
 * fields; `engine/output_parser.rs` for the rules on top; `events/*.rs`
 * for exit codes and plain stdout). A JSON answer counts only on exit 0
 * and must be exactly right: an unknown or wrong-typed field, or a rule
 * broken (`ask`, `allow` without `updatedInput`, `block` without a reason),
 * makes the hook Failed, and it decides nothing.
 *
 * Custom events (not in Codex's list) are read as in the Claude Code
 * dialect.
 *
 * @module
 */

import { z } from "zod";
import { eventRules } from "../events.ts";
import { stdoutShape } from "../run/answer.ts";
import type { HookResult } from "../run/types.ts";
import type { HookVerdict } from "./types.ts";
import { claudeCodeVerdict } from "./claude_code.ts";

/** serde's `Option<String>`: absent, `null` or a string. */
const optionalString = z.string().nullish();
/** serde's `Option<Value>`: anything, `null` meaning absent. */
const optionalValue = z.unknown().optional();

/** The event names `hookEventName` may hold (Codex's `HookEventNameWire`). */
const EVENT_NAME = z.enum([
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "SessionStart",
  "SubagentStart",
  "SubagentStop",
  "UserPromptSubmit",
  "Stop",
  "PreCompact",
  "PostCompact",
  "PreModelRequest",
  "SessionEnd",
]);

/** `HookUniversalOutputWire`, flattened into every answer. */
const universal = {
  continue: z.boolean().optional(),
  stopReason: optionalString,
  suppressOutput: z.boolean().optional(),
  systemMessage: optionalString,
};

const contextOnly = z.strictObject({ hookEventName: EVENT_NAME, additionalContext: optionalString }).nullish();

/** Each Codex event's answer schema. */
const SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  PreToolUse: z.strictObject({
    ...universal,
    decision: z.enum(["approve", "block"]).nullish(),
    reason: optionalString,
    hookSpecificOutput: z.strictObject({
      hookEventName: EVENT_NAME,
      permissionDecision: z.enum(["allow", "deny", "ask"]).nullish(),
      permissionDecisionReason: optionalString,
      updatedInput: optionalValue,
      additionalContext: optionalString,
    }).nullish(),
  }),
  PermissionRequest: z.strictObject({
    ...universal,
    hookSpecificOutput: z.strictObject({
      hookEventName: EVENT_NAME,
      decision: z.strictObject({
        behavior: z.enum(["allow", "deny"]),
        updatedInput: optionalValue,
        updatedPermissions: optionalValue,
        message: optionalString,
        interrupt: z.boolean().optional(),
      }).nullish(),
    }).nullish(),
  }),
  PostToolUse: z.strictObject({
    ...universal,
    decision: z.enum(["block"]).nullish(),
    reason: optionalString,
    hookSpecificOutput: z.strictObject({
      hookEventName: EVENT_NAME,
      additionalContext: optionalString,
      updatedMCPToolOutput: optionalValue,
      updatedToolOutput: optionalValue,
    }).nullish(),
  }),
  SessionStart: z.strictObject({ ...universal, hookSpecificOutput: contextOnly }),
  SubagentStart: z.strictObject({ ...universal, hookSpecificOutput: contextOnly }),
  UserPromptSubmit: z.strictObject({
    ...universal,
    decision: z.enum(["block"]).nullish(),
    reason: optionalString,
    hookSpecificOutput: contextOnly,
  }),
  Stop: z.strictObject({ ...universal, decision: z.enum(["block"]).nullish(), reason: optionalString }),
  SubagentStop: z.strictObject({ ...universal, decision: z.enum(["block"]).nullish(), reason: optionalString }),
  PreCompact: z.strictObject(universal),
  PostCompact: z.strictObject(universal),
  PreModelRequest: z.strictObject(universal),
  SessionEnd: z.strictObject(universal),
};

/** A validated answer, loosely typed: every field is optional and `null` means absent. */
interface Answer {
  continue?: boolean;
  stopReason?: string | null;
  suppressOutput?: boolean;
  systemMessage?: string | null;
  decision?: string | null;
  reason?: string | null;
  hookSpecificOutput?: {
    hookEventName: string;
    permissionDecision?: string | null;
    permissionDecisionReason?: string | null;
    updatedInput?: unknown;
    additionalContext?: string | null;
    decision?: {
      behavior: "allow" | "deny";
      updatedInput?: unknown;
      updatedPermissions?: unknown;
      message?: string | null;
      interrupt?: boolean;
    } | null;
  } | null;
}

/** The verdict of `result` for `event` in the Codex dialect. */
export function codexVerdict(result: HookResult, event: string): HookVerdict {
  const rules = eventRules(event, "codex");
  if (rules === undefined) return claudeCodeVerdict(result, event, true);
  const verdict: HookVerdict = { continue: true, suppressOutput: false };
  if (result.outcome === "non-blocking-error") return verdict;
  if (result.outcome === "blocking") {
    if (rules.exit2 === "block") {
      verdict.permission = "deny";
      if (result.reason !== undefined) verdict.reason = result.reason;
    } else if (rules.exit2 === "feedback") {
      if (result.reason !== undefined) verdict.feedback = result.reason;
    } else {
      verdict.error = "hook exited with code 2";
    }
    return verdict;
  }

  const shape = stdoutShape(result.stdout);
  if (shape.kind === "empty") return verdict;
  if (shape.kind === "text") {
    if (rules.stdoutIsContext) verdict.additionalContext = shape.text;
    else if (rules.stdoutIsError) verdict.error = `hook returned invalid ${wireName(event)} JSON output`;
    return verdict;
  }
  const parsed = shape.kind === "object" ? SCHEMAS[event].safeParse(shape.value) : undefined;
  if (parsed === undefined || !parsed.success) {
    verdict.error = `hook returned invalid ${wireName(event)} JSON output`;
    return verdict;
  }
  const answer = parsed.data as Answer;
  // Codex shows the systemMessage of an answer it parsed, even one it then refuses.
  if (typeof answer.systemMessage === "string") verdict.systemMessage = answer.systemMessage;
  const invalid = invalidReason(answer, event);
  if (invalid !== undefined) {
    verdict.error = invalid;
    return verdict;
  }
  applyAnswer(verdict, answer, event);
  return verdict;
}

/**
 * What a background hook's stdout holds for the model, as Codex's
 * `deliverable_output` reads it for a Codex event: the answer's
 * `additionalContext` when the answer passes the schema (its other rules
 * are not applied to background hooks), `undefined` for empty stdout, and
 * `"invalid"` for anything else, plain text included. `undefined` for
 * custom events.
 */
export function codexBackgroundContext(stdout: string, event: string): { context?: string } | "invalid" | undefined {
  if (!Object.hasOwn(SCHEMAS, event)) return undefined;
  const shape = stdoutShape(stdout);
  if (shape.kind === "empty") return {};
  if (shape.kind !== "object") return "invalid";
  const parsed = SCHEMAS[event].safeParse(shape.value);
  if (!parsed.success) return "invalid";
  const context = (parsed.data as Answer).hookSpecificOutput?.additionalContext;
  return typeof context === "string" && context.trim() !== "" ? { context } : {};
}

/** The wording of Codex's "invalid … JSON output" errors. */
function wireName(event: string): string {
  const names: Record<string, string> = {
    PreToolUse: "pre-tool-use",
    PermissionRequest: "permission-request",
    PostToolUse: "post-tool-use",
    SessionStart: "session-start",
    SubagentStart: "subagent-start",
    SubagentStop: "stop hook",
    UserPromptSubmit: "user-prompt-submit",
    Stop: "stop hook",
    PreCompact: "pre-compact",
    PostCompact: "post-compact",
    PreModelRequest: "pre-model-request",
    SessionEnd: "session-end",
  };
  return names[event] ?? event;
}

/** `trimmed_reason`: the text when it is not blank. */
function nonBlank(text: string | null | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** The rules Codex applies on top of the schema; the first one broken, in Codex's order. */
function invalidReason(answer: Answer, event: string): string | undefined {
  const stops = answer.continue === false;
  const universalUnsupported = (): string | undefined => {
    if (stops) return `${event} hook returned unsupported continue:false`;
    if (typeof answer.stopReason === "string") return `${event} hook returned unsupported stopReason`;
    if (answer.suppressOutput === true) return `${event} hook returned unsupported suppressOutput`;
    return undefined;
  };
  const specific = answer.hookSpecificOutput ?? undefined;
  const blocks = answer.decision === "block";
  const blockWithoutReason = blocks && nonBlank(answer.reason) === undefined;
  switch (event) {
    case "PreToolUse": {
      const fromUniversal = universalUnsupported();
      if (fromUniversal !== undefined) return fromUniversal;
      const decision = specific?.permissionDecision ?? undefined;
      const hasUpdate = specific?.updatedInput !== undefined && specific.updatedInput !== null;
      const usesSpecific = decision !== undefined || typeof specific?.permissionDecisionReason === "string" ||
        hasUpdate;
      if (usesSpecific) {
        if (hasUpdate && decision !== "allow") {
          return "PreToolUse hook returned updatedInput without permissionDecision:allow";
        }
        if (decision === "allow" && !hasUpdate) return "PreToolUse hook returned unsupported permissionDecision:allow";
        if (decision === "ask") return "PreToolUse hook returned unsupported permissionDecision:ask";
        if (decision === "deny" && nonBlank(specific?.permissionDecisionReason) === undefined) {
          return "PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason";
        }
        if (decision === undefined) {
          return "PreToolUse hook returned permissionDecisionReason without permissionDecision";
        }
        return undefined;
      }
      if (answer.decision === "approve") return "PreToolUse hook returned unsupported decision:approve";
      if (blockWithoutReason) return "PreToolUse hook returned decision:block without a non-empty reason";
      if (!blocks && typeof answer.reason === "string") return "PreToolUse hook returned reason without decision";
      return undefined;
    }
    case "PermissionRequest": {
      const fromUniversal = universalUnsupported();
      if (fromUniversal !== undefined) return fromUniversal;
      const decision = specific?.decision ?? undefined;
      // "PermissionRequest hooks currently fail closed if this field is present."
      if (decision?.updatedInput !== undefined && decision.updatedInput !== null) {
        return "PermissionRequest hook returned unsupported updatedInput";
      }
      if (decision?.updatedPermissions !== undefined && decision.updatedPermissions !== null) {
        return "PermissionRequest hook returned unsupported updatedPermissions";
      }
      if (decision?.interrupt === true) return "PermissionRequest hook returned unsupported interrupt:true";
      return undefined;
    }
    case "PostToolUse":
      if (answer.suppressOutput === true) return "PostToolUse hook returned unsupported suppressOutput";
      if (blockWithoutReason) return "PostToolUse hook returned decision:block without a non-empty reason";
      if (!blocks && !stops && typeof answer.reason === "string") {
        return "PostToolUse hook returned reason without decision";
      }
      return undefined;
    case "UserPromptSubmit":
    case "Stop":
    case "SubagentStop":
      if (blockWithoutReason) return `${event} hook returned decision:block without a non-empty reason`;
      return undefined;
    default:
      return undefined;
  }
}

/** The fields of a valid answer, as the verdict reads them. */
function applyAnswer(verdict: HookVerdict, answer: Answer, event: string): void {
  // Event-scoped fields count only for the event they name, except a PreToolUse deny and additionalContext:
  // Codex 0.169.0 was measured to act on both whatever event `hookEventName` names (a deny blocks, the context
  // reaches the model), and a guard must not block less here.
  const given = answer.hookSpecificOutput ?? undefined;
  const specific = given?.hookEventName === event ? given : undefined;
  const reason = nonBlank(answer.reason);
  if (event === "PreToolUse" && given?.permissionDecision === "deny") {
    verdict.permission = "deny";
    verdict.reason = nonBlank(given.permissionDecisionReason);
  } else if (event === "PreToolUse" && specific?.permissionDecision === "allow") {
    // Codex's `allow` only carries a rewrite: it approves nothing.
    verdict.updatedInput = specific.updatedInput as Record<string, unknown>;
  } else if (event === "PermissionRequest" && specific?.decision != null) {
    verdict.permission = specific.decision.behavior;
    if (specific.decision.behavior === "deny") {
      verdict.reason = nonBlank(specific.decision.message) ?? "PermissionRequest hook denied approval";
    }
  } else if (answer.decision === "block") {
    verdict.permission = "deny";
    if (reason !== undefined) verdict.reason = reason;
  }
  if (verdict.reason === undefined) delete verdict.reason;
  if (answer.continue === false && event === "PostToolUse") {
    // Codex 0.169.0, measured: the stopReason takes the place of the tool's output and the turn goes on.
    if (typeof answer.stopReason === "string") verdict.stopReason = answer.stopReason;
    verdict.toolOutput = typeof answer.stopReason === "string" ? answer.stopReason : "";
  } else if (answer.continue === false) {
    verdict.continue = false;
    if (typeof answer.stopReason === "string") verdict.stopReason = answer.stopReason;
  }
  const context = given?.additionalContext;
  if (typeof context === "string" && context.trim() !== "") verdict.additionalContext = context;
  if (answer.suppressOutput === true) verdict.suppressOutput = true;
}
