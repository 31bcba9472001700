/**
 * Matchers: how a matcher group's pattern is read per dialect and event,
 * and what it is tested against when the caller does not say.
 *
 * @module
 */

import { HookSettingsError } from "../errors.ts";
import { claudeCodeMatchFields, eventRules } from "../events.ts";
import type { HookDialect } from "./types.ts";

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
 *   regular expression, with Rust's inline flags translated (`(?i)bash`).
 *
 * A pattern other than the match-all ones matches nothing when there is no
 * target, and a target list matches when any of its entries does. Throws
 * `SyntaxError` for an invalid regular expression, and `HookSettingsError`
 * at `field` for Rust syntax that cannot be translated.
 */
export function compileMatcher(
  pattern: string | undefined,
  dialect: HookDialect,
  event?: string,
  field = "matcher",
): MatcherTest {
  if (pattern === undefined || pattern === "" || pattern === "*") return matchAll;
  const narrow = dialect === "codex" || (event !== undefined && eventRules(event, dialect)?.narrowMatcher === true);
  if (narrow ? NARROW_EXACT.test(pattern) : CLAUDE_EXACT.test(pattern)) {
    const names = new Set(narrow ? pattern.split("|") : pattern.split(/[|,]/).map((name) => name.trim()));
    return (targets) => targets.some((target) => names.has(target));
  }
  const regex = dialect === "codex" ? rustRegex(pattern, field) : new RegExp(pattern);
  return (targets) => targets.some((target) => regex.test(target));
}

/** Rust's inline flags that have a JavaScript flag of the same meaning. */
const RUST_FLAGS: Readonly<Record<string, string>> = { i: "i", m: "m", s: "s" };
/** A leading `(?flags)`: Rust applies it to the whole pattern. */
const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;
/** `(?flags:body)` with a body of no class, no group and no escaped letter: one we can spell out. */
const SIMPLE_GROUP = /\(\?([a-zA-Z]+):((?:[^\\()[\]]|\\[^A-Za-z0-9\\])*)\)/g;
/** An inline flag group the translation left: Rust syntax JavaScript must not guess at. */
const INLINE_FLAGS = /\(\?[a-zA-Z-]+[:)]/;

/**
 * A Codex matcher (Rust `regex` syntax) as a JavaScript `RegExp`: a leading
 * `(?i)` (or `m`, `s`, combined) becomes the regex's flags, and a simple
 * `(?i:…)` group (no class, group or escaped letter inside) spells each
 * letter as `[aA]`. Codex 0.169.0 accepts `(?i)bash` and matches `Bash`
 * with it. Any other inline flag syntax (`(?x)`, `(?U)`, `(?-i)`, a flag
 * group around a class) throws `HookSettingsError` at `field`, so the
 * group is disabled on both runtimes alike (a newer V8 would read
 * `(?i:[a-z])` itself, Node 20 would not).
 */
function rustRegex(pattern: string, field: string): RegExp {
  let source = pattern;
  let flags = "";
  const leading = LEADING_FLAGS.exec(source);
  if (leading !== null && [...leading[1]].every((flag) => Object.hasOwn(RUST_FLAGS, flag))) {
    flags = [...new Set([...leading[1]].map((flag) => RUST_FLAGS[flag]))].join("");
    source = source.slice(leading[0].length);
  }
  source = source.replace(SIMPLE_GROUP, (whole: string, groupFlags: string, body: string) => {
    if (groupFlags !== "i") return whole;
    return `(?:${body.replace(/(?<!\\)[A-Za-z]/g, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`)})`;
  });
  if (INLINE_FLAGS.test(source)) {
    throw new HookSettingsError(
      field,
      `Rust inline flag syntax the bridge cannot translate: ${JSON.stringify(pattern)}`,
    );
  }
  return new RegExp(source, flags);
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
