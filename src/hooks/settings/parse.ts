/**
 * Hook settings: the `hooks` of a Claude Code `settings.json` (or a Codex
 * `hooks.json`) checked, with every matcher compiled, into the plain data
 * {@linkcode dispatchHookEvent} takes.
 *
 * @module
 */

import { ownValue } from "../../seam/own_fields.ts";
import { ShellSpecError } from "../../seam/errors.ts";
import { HookSettingsError } from "../errors.ts";
import { compileMatcher, hasMatcherSupport, type MatcherTest } from "./matcher.ts";
import { type EntrySink, parseEntry } from "./entry.ts";
import type { HookCommand, HookDialect, HookMatcherGroup, HookSettings, HookWarning } from "./types.ts";

/**
 * How {@linkcode parseHookSettings} reads the settings.
 *
 * @example
 * ```ts
 * import { parseHookSettings, type ParseHookSettingsOptions } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * // A plugin's hooks/hooks.json: every run gets CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA.
 * const options: ParseHookSettingsOptions = {
 *   dialect: "claude-code",
 *   pluginRoot: "/home/me/.claude/plugins/formatter",
 *   pluginData: "/home/me/.claude/plugins/data/formatter",
 * };
 * const settings = parseHookSettings({
 *   hooks: {
 *     PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: '"${CLAUDE_PLUGIN_ROOT}"/format.sh' }] }],
 *   },
 * }, options);
 * assert.equal(settings.pluginRoot, "/home/me/.claude/plugins/formatter");
 * assert.equal(settings.events.PostToolUse[0].matcher, "Edit|Write");
 * ```
 */
export interface ParseHookSettingsOptions {
  /** The conventions of these hooks: stdin, matchers, deduplication. */
  dialect: HookDialect;
  /** When these are a plugin's hooks: its root, given to every run as `CLAUDE_PLUGIN_ROOT` and `PLUGIN_ROOT`. */
  pluginRoot?: string;
  /** The plugin's data directory, given to every run as `CLAUDE_PLUGIN_DATA` and `PLUGIN_DATA`. */
  pluginData?: string;
}

/** The compiled matcher of each group made by {@linkcode parseHookSettings}. */
const compiledMatchers = new WeakMap<HookMatcherGroup, MatcherTest>();

/**
 * Reads the hooks out of the parsed JSON of a whole settings file:
 * `{ "hooks": { "<Event>": [ { "matcher": "…", "hooks": [ { "type": "command",
 * "command": "…", "timeout": 30 } ] } ] } }`, with `timeout` in seconds.
 *
 * Every other top-level key (`permissions`, `env`, `model`, `description`,
 * …) is ignored; a file without `hooks` has no hooks, and so has a Claude
 * Code file with `"disableAllHooks": true`. In the Codex dialect a key other
 * than `hooks` and `description` gets a warning: Codex loads no hook of such
 * a file (the bridge runs them: more hooks, never fewer). A command entry's fields:
 * `command`, `args` (exec form), `timeout` (seconds; Codex also
 * `timeoutSec`), `if` (Claude Code), `async`, `asyncRewake`,
 * `statusMessage`; others (`once`, `shell`, …) are ignored. Entries of type
 * `prompt`, `agent`, `http` or `mcp_tool` are not shell commands: they are
 * skipped and listed in `skipped`.
 *
 * What the harnesses work around instead of refusing is a warning in
 * `warnings`, not an error: an invalid matcher regex disables its own group
 * (the rest of the file loads); a matcher on an event without matcher
 * support is ignored without one, as both harnesses do; fields a dialect
 * does not know are read as that harness reads them.
 *
 * Given `pluginRoot`/`pluginData`, these are a plugin's hooks, and every run
 * of them gets the plugin variables.
 *
 * @throws {HookSettingsError} naming the event and the entry, e.g.
 * `hooks.PreToolUse[0].hooks[1].command: must be a non-empty string` or
 * `hooks.Stop[0].hooks[0].args[1]: must be a string`.
 *
 * @example
 * ```ts
 * import { parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const settings = parseHookSettings({
 *   permissions: { allow: ["Bash(ls:*)"] },
 *   hooks: {
 *     PreToolUse: [
 *       { matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/hooks/check.sh', timeout: 30 }] },
 *     ],
 *   },
 * }, { dialect: "claude-code" });
 * assert.equal(settings.events.PreToolUse[0].hooks[0].timeoutMs, 30_000); // `timeout` is in seconds
 * ```
 */
export function parseHookSettings(settings: unknown, options: ParseHookSettingsOptions): HookSettings {
  const dialect = options === null || typeof options !== "object" ? undefined : ownValue(options, "dialect");
  if (dialect !== "claude-code" && dialect !== "codex") {
    throw new ShellSpecError("dialect", 'must be "claude-code" or "codex"');
  }
  const pluginRoot = optionalPath(ownValue(options, "pluginRoot"), "pluginRoot");
  const pluginData = optionalPath(ownValue(options, "pluginData"), "pluginData");
  if (!isPlainObject(settings)) {
    throw new HookSettingsError("settings", "must be an object (the parsed JSON of the settings file)");
  }
  const events: Record<string, readonly HookMatcherGroup[]> = {};
  const sink: EntrySink = { skipped: [], warnings: [] };
  const hooks = ownValue(settings, "hooks");
  if (hooks !== undefined) {
    if (!isPlainObject(hooks)) {
      throw new HookSettingsError("hooks", "must be an object mapping event names to arrays of matcher groups");
    }
    for (const [event, groups] of Object.entries(hooks)) {
      const parsed = parseEvent(`hooks${key(event)}`, groups, dialect, event, sink);
      // defineProperty: an event named "__proto__" stays a plain key.
      Object.defineProperty(events, event, { value: parsed, enumerable: true });
    }
  }
  if (dialect === "codex") {
    for (const name of Object.keys(settings)) {
      if (name === "hooks" || name === "description") continue;
      // Measured: Codex 0.169.0 loads no hook of a hooks.json with another top-level key (`disableAllHooks` too).
      sink.warnings.push({
        field: name,
        message: "Codex loads no hook of this file because of this key; the bridge ignores the key and runs them",
      });
    }
  }
  const disabled = dialect === "claude-code" && ownValue(settings, "disableAllHooks") === true;
  const result: HookSettings = {
    dialect,
    ...(pluginRoot === undefined ? {} : { pluginRoot }),
    ...(pluginData === undefined ? {} : { pluginData }),
    events: Object.freeze(disabled ? {} : events),
    skipped: Object.freeze(disabled ? [] : sink.skipped),
    warnings: Object.freeze(disabled ? [] : sink.warnings.map((warning) => Object.freeze(warning))),
  };
  return Object.freeze(result);
}

/**
 * The compiled matcher of `group` for `event`: the one
 * {@linkcode parseHookSettings} made, or a new one for settings built by
 * hand. An invalid pattern disables the group: the test matches nothing,
 * and `warn` is called with why.
 */
export function matcherOf(
  group: HookMatcherGroup,
  dialect: HookDialect,
  event: string,
  path: string,
  warn: (warning: HookWarning) => void,
): MatcherTest {
  const known = compiledMatchers.get(group);
  if (known !== undefined) return known;
  const test = compile(group.matcher, dialect, event, `${path}.matcher`, warn);
  compiledMatchers.set(group, test);
  return test;
}

function parseEvent(
  path: string,
  groups: unknown,
  dialect: HookDialect,
  event: string,
  sink: EntrySink,
): readonly HookMatcherGroup[] {
  if (!Array.isArray(groups)) throw new HookSettingsError(path, "must be an array of matcher groups");
  return Object.freeze(groups.map((group, index) => parseGroup(`${path}[${index}]`, group, dialect, event, sink)));
}

function parseGroup(
  path: string,
  group: unknown,
  dialect: HookDialect,
  event: string,
  sink: EntrySink,
): HookMatcherGroup {
  if (!isPlainObject(group)) throw new HookSettingsError(path, 'must be an object with "matcher" and "hooks"');
  const matcher = ownValue(group, "matcher");
  if (matcher !== undefined && typeof matcher !== "string") {
    throw new HookSettingsError(`${path}.matcher`, "must be a string");
  }
  // A matcher on an event without matcher support is ignored, and never validated (both harnesses).
  const test = hasMatcherSupport(event, dialect)
    ? compile(matcher, dialect, event, `${path}.matcher`, (warning) => sink.warnings.push(warning))
    : undefined;
  const entries = ownValue(group, "hooks");
  if (!Array.isArray(entries)) throw new HookSettingsError(`${path}.hooks`, "must be an array of hook entries");
  const hooks: HookCommand[] = [];
  entries.forEach((entry, index) => {
    const command = parseEntry(`${path}.hooks[${index}]`, entry, dialect, event, sink);
    if (command !== undefined) hooks.push(command);
  });
  const parsed: HookMatcherGroup = Object.freeze({
    ...(matcher === undefined ? {} : { matcher }),
    hooks: Object.freeze(hooks),
  });
  if (test !== undefined) compiledMatchers.set(parsed, test);
  return parsed;
}

/** Compiles a matcher; an invalid regular expression disables the group, with a warning. */
function compile(
  pattern: string | undefined,
  dialect: HookDialect,
  event: string,
  path: string,
  warn: (warning: HookWarning) => void,
): MatcherTest {
  try {
    return compileMatcher(pattern, dialect, event, path);
  } catch (error) {
    // The warning names the field itself: a HookSettingsError's message starts with it, the problem follows.
    const detail = error instanceof HookSettingsError
      ? error.message.slice(`${error.field}: `.length)
      : error instanceof Error
      ? error.message
      : String(error);
    warn({
      field: path,
      message: `invalid regular expression ${JSON.stringify(pattern)}: ${detail}; this group is disabled`,
    });
    return () => false;
  }
}

function optionalPath(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new ShellSpecError(field, "must be a non-empty string");
  return value;
}

/** `.Name` for identifier-like keys, `["odd key"]` otherwise. */
function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
