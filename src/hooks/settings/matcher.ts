/**
 * Matchers: how a matcher group's pattern is read per dialect and event,
 * and what it is tested against when the caller does not say.
 *
 * @module
 */

import { claudeCodeMatchFields, eventRules } from "../events.ts";
import type { HookDialect } from "../types.ts";

/** A compiled matcher; `targets` is empty when the event gave nothing to test. */
export type MatcherTest = (targets: readonly string[]) => boolean;

/**
 * Claude Code's exact-match set: letters, digits, `_`, `-`, spaces, `,` and
 * `|`, with `|` or `,` between names (hooks reference, "Matcher patterns";
 * commas ≥ 2.1.191, hyphens ≥ 2.1.195).
 */
const CLAUDE_EXACT = /^[A-Za-z0-9_\- ,|]+$/;
/** The narrow set: Claude Code's `FileChanged`/`StopFailure`, and every Codex matcher. */
const NARROW_EXACT = /^[A-Za-z0-9_|]+$/;

const matchAll: MatcherTest = () => true;

/**
 * Compiles `pattern` for `event` in `dialect`:
 *
 * - absent, `""` and `"*"` match everything;
 * - `claude-code`: only letters, digits, `_`, `-`, spaces, `,` and `|` is a
 *   list of exact names separated by `|` or `,`, each trimmed (`"Edit, Write"`,
 *   `"code-reviewer"`); for `FileChanged` and `StopFailure` only letters,
 *   digits, `_` and `|` (names separated by `|`); anything else is an
 *   unanchored JavaScript regular expression;
 * - `codex`: only ASCII letters, digits, `_` and `|` is an exact `|`-list
 *   (`Bash` does not match `BashOutput`); anything else an unanchored
 *   regular expression.
 *
 * A pattern other than the match-all ones matches nothing when there is no
 * target, and a target list matches when any of its entries does. Throws
 * `SyntaxError` for an invalid regular expression.
 */
export function compileMatcher(pattern: string | undefined, dialect: HookDialect, event?: string): MatcherTest {
  if (pattern === undefined || pattern === "" || pattern === "*") return matchAll;
  const narrow = dialect === "codex" || (event !== undefined && eventRules(event, dialect)?.narrowMatcher === true);
  if (narrow ? NARROW_EXACT.test(pattern) : CLAUDE_EXACT.test(pattern)) {
    const names = new Set(narrow ? pattern.split("|") : pattern.split(/[|,]/).map((name) => name.trim()));
    return (targets) => targets.some((target) => names.has(target));
  }
  const regex = new RegExp(pattern);
  return (targets) => targets.some((target) => regex.test(target));
}

/**
 * The payload field each Claude Code event's matchers test when the caller
 * gives no `matchTarget` (`FileChanged` tests the basename of `file_path`).
 * Events not listed have no matcher support: every group runs, whatever its
 * matcher says. Codex's events with matcher support use the same fields.
 *
 * @example
 * ```ts
 * import { HOOK_MATCH_FIELDS } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * assert.equal(HOOK_MATCH_FIELDS.PreToolUse, "tool_name");
 * assert.equal(HOOK_MATCH_FIELDS.StopFailure, "error");
 * assert.equal(Object.hasOwn(HOOK_MATCH_FIELDS, "Stop"), false); // every Stop group runs
 * ```
 */
export const HOOK_MATCH_FIELDS: Readonly<Record<string, string>> = Object.freeze(claudeCodeMatchFields());

/** What an event's matchers are tested against. */
export type MatchScope =
  /** The event has no matcher support (or is custom and no target was given): every group applies. */
  | { kind: "all" }
  /** Matchers are tested against `targets` (empty: only the match-all patterns apply). */
  | { kind: "target"; targets: readonly string[] };

/**
 * The match scope of `event` in `dialect`:
 *
 * - an event the dialect lists without matcher support: every group
 *   applies, even when the caller gives a `matchTarget` (the harnesses
 *   ignore such matchers);
 * - the caller's `matchTarget` (one name, or several such as Codex's tool
 *   aliases) when given;
 * - else, for an event with matcher support, the payload's field when it
 *   is a string (`FileChanged`: its basename);
 * - else (a custom event without `matchTarget`) every group applies.
 */
export function matchScope(
  event: string,
  dialect: HookDialect,
  payload: unknown,
  matchTarget: string | readonly string[] | undefined,
): MatchScope {
  const rules = eventRules(event, dialect);
  if (rules !== undefined && rules.matchField === undefined) return { kind: "all" };
  if (matchTarget !== undefined) {
    return { kind: "target", targets: typeof matchTarget === "string" ? [matchTarget] : [...matchTarget] };
  }
  if (rules?.matchField === undefined) return { kind: "all" };
  const value = typeof payload === "object" && payload !== null && Object.hasOwn(payload, rules.matchField)
    ? (payload as Record<string, unknown>)[rules.matchField]
    : undefined;
  if (typeof value !== "string") return { kind: "target", targets: [] };
  return { kind: "target", targets: [rules.matchBasename ? value.slice(value.lastIndexOf("/") + 1) : value] };
}

/** Whether `event` in `dialect` reads matchers at all (custom events do, for a caller's `matchTarget`). */
export function hasMatcherSupport(event: string, dialect: HookDialect): boolean {
  const rules = eventRules(event, dialect);
  return rules === undefined || rules.matchField !== undefined;
}
