/**
 * Matchers: which matcher groups of an event apply, per dialect, and what
 * they are tested against when the caller does not say.
 *
 * @module
 */

import type { HookDialect } from "./types.ts";

/** A compiled matcher; `target` is `undefined` when the event gave nothing to test. */
export type MatcherTest = (target: string | undefined) => boolean;

/** Patterns that a Claude Code matcher takes as an exact name or `A|B` list rather than a regex. */
const EXACT_ALTERNATION = /^[A-Za-z0-9_|]+$/;

const matchAll: MatcherTest = () => true;

/**
 * Compiles `pattern` for `dialect`:
 *
 * - absent, `""` and `"*"` match everything, in both dialects;
 * - `claude-code`: a pattern of only `[A-Za-z0-9_|]` is an exact alternation
 *   (`Edit|Write` matches exactly `Edit` or `Write`, never `EditNotebook`);
 *   anything else is an unanchored JavaScript regular expression;
 * - `codex`: always an unanchored regular expression (`Bash` matches `BashOutput`).
 *
 * A pattern other than the match-all ones matches nothing when there is no
 * target. Throws `SyntaxError` for an invalid regular expression.
 */
export function compileMatcher(pattern: string | undefined, dialect: HookDialect): MatcherTest {
  if (pattern === undefined || pattern === "" || pattern === "*") return matchAll;
  if (dialect === "claude-code" && EXACT_ALTERNATION.test(pattern)) {
    const names = new Set(pattern.split("|"));
    return (target) => target !== undefined && names.has(target);
  }
  const regex = new RegExp(pattern);
  return (target) => target !== undefined && regex.test(target);
}

/**
 * The payload field each event's matchers test when the caller gives no
 * `matchTarget`. Events not listed have no matcher concept: every group
 * applies, whatever its matcher says.
 *
 * @example
 * ```ts
 * import { HOOK_MATCH_FIELDS } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * assert.equal(HOOK_MATCH_FIELDS.PreToolUse, "tool_name");
 * assert.equal(Object.hasOwn(HOOK_MATCH_FIELDS, "Stop"), false); // every Stop group runs
 * ```
 */
export const HOOK_MATCH_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  PreToolUse: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name",
  PermissionRequest: "tool_name",
  PermissionDenied: "tool_name",
  SessionStart: "source",
  SessionEnd: "reason",
  PreCompact: "trigger",
  PostCompact: "trigger",
  Notification: "notification_type",
  SubagentStart: "agent_type",
  SubagentStop: "agent_type",
});

/** What an event's matchers are tested against. */
export type MatchScope =
  /** The event has no matcher concept and no target was given: every group applies. */
  | { kind: "all" }
  /** Matchers are tested against `target` (`undefined`: only the match-all patterns apply). */
  | { kind: "target"; target: string | undefined };

/**
 * The match scope of `event`: the caller's `matchTarget` when given; else,
 * for an event listed in {@linkcode HOOK_MATCH_FIELDS}, the payload's field
 * (e.g. `tool_name`) when it is a string; else every group applies.
 */
export function matchScope(event: string, payload: unknown, matchTarget: string | undefined): MatchScope {
  if (matchTarget !== undefined) return { kind: "target", target: matchTarget };
  if (!Object.hasOwn(HOOK_MATCH_FIELDS, event)) return { kind: "all" };
  const value = typeof payload === "object" && payload !== null
    ? (payload as Record<string, unknown>)[HOOK_MATCH_FIELDS[event]]
    : undefined;
  return { kind: "target", target: typeof value === "string" ? value : undefined };
}
