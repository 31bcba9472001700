/**
 * Hook settings: the `hooks` of a Claude Code `settings.json` (or a Codex
 * `hooks.json`) checked, with every matcher compiled, into the plain data
 * {@linkcode dispatchHookEvent} takes.
 *
 * @module
 */

import { ownValue } from "../seam/resolve/own_fields.ts";
import { ShellSpecError } from "../seam/errors.ts";
import { HookSettingsError } from "./errors.ts";
import { compileMatcher, type MatcherTest } from "./matcher.ts";
import type { HookCommand, HookDialect, HookMatcherGroup, HookSettings, SkippedHookEntry } from "./types.ts";

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

/**
 * Hook types that are valid in a settings file but are not shell commands:
 * they are skipped (and listed in `skipped`), because running a model
 * prompt, an agent, an HTTP call or an MCP tool is the harness's job, not
 * a shell's.
 */
const SKIPPED_TYPES: ReadonlySet<string> = new Set(["prompt", "agent", "http", "mcp_tool"]);

/** The compiled matcher of each group made by {@linkcode parseHookSettings}. */
const compiledMatchers = new WeakMap<HookMatcherGroup, MatcherTest>();

/**
 * Reads the hooks out of the parsed JSON of a whole settings file:
 * `{ "hooks": { "<Event>": [ { "matcher": "…", "hooks": [ { "type": "command",
 * "command": "…", "timeout": 30 } ] } ] } }`, with `timeout` in seconds.
 *
 * Every other top-level key (`permissions`, `env`, `model`, …) is ignored;
 * a file without `hooks` has no hooks, and so has a Claude Code file with
 * `"disableAllHooks": true`. Entry keys other than `type`, `command` and
 * `timeout` (`statusMessage`, `async`, `once`, …) are ignored. Entries of
 * type `prompt`, `agent`, `http` or `mcp_tool` are not shell commands: they
 * are skipped and listed in `skipped`.
 *
 * Given `pluginRoot`/`pluginData`, these are a plugin's hooks, and every run
 * of them gets the plugin variables.
 *
 * @throws {HookSettingsError} naming the event and the entry, e.g.
 * `hooks.PreToolUse[0].matcher: invalid regular expression "(": …` or
 * `hooks.PreToolUse[0].hooks[1].command: must be a non-empty string`.
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
  const skipped: SkippedHookEntry[] = [];
  const hooks = ownValue(settings, "hooks");
  if (hooks !== undefined) {
    if (!isPlainObject(hooks)) {
      throw new HookSettingsError("hooks", "must be an object mapping event names to arrays of matcher groups");
    }
    for (const [event, groups] of Object.entries(hooks)) {
      const parsed = parseEvent(`hooks${key(event)}`, groups, dialect, skipped);
      // defineProperty: an event named "__proto__" stays a plain key.
      Object.defineProperty(events, event, { value: parsed, enumerable: true });
    }
  }
  const disabled = dialect === "claude-code" && ownValue(settings, "disableAllHooks") === true;
  const result: HookSettings = {
    dialect,
    ...(pluginRoot === undefined ? {} : { pluginRoot }),
    ...(pluginData === undefined ? {} : { pluginData }),
    events: Object.freeze(disabled ? {} : events),
    skipped: Object.freeze(disabled ? [] : skipped),
  };
  return Object.freeze(result);
}

/**
 * The compiled matcher of `group`: the one {@linkcode parseHookSettings}
 * made, or a new one for settings built by hand. Throws
 * {@linkcode HookSettingsError} for an invalid pattern.
 */
export function matcherOf(group: HookMatcherGroup, dialect: HookDialect, path: string): MatcherTest {
  const known = compiledMatchers.get(group);
  if (known !== undefined) return known;
  const test = compile(group.matcher, dialect, `${path}.matcher`);
  compiledMatchers.set(group, test);
  return test;
}

function parseEvent(
  path: string,
  groups: unknown,
  dialect: HookDialect,
  skipped: SkippedHookEntry[],
): readonly HookMatcherGroup[] {
  if (!Array.isArray(groups)) throw new HookSettingsError(path, "must be an array of matcher groups");
  return Object.freeze(groups.map((group, index) => parseGroup(`${path}[${index}]`, group, dialect, skipped)));
}

function parseGroup(path: string, group: unknown, dialect: HookDialect, skipped: SkippedHookEntry[]): HookMatcherGroup {
  if (!isPlainObject(group)) throw new HookSettingsError(path, 'must be an object with "matcher" and "hooks"');
  const matcher = ownValue(group, "matcher");
  if (matcher !== undefined && typeof matcher !== "string") {
    throw new HookSettingsError(`${path}.matcher`, "must be a string");
  }
  const test = compile(matcher, dialect, `${path}.matcher`);
  const entries = ownValue(group, "hooks");
  if (!Array.isArray(entries)) throw new HookSettingsError(`${path}.hooks`, "must be an array of hook entries");
  const hooks: HookCommand[] = [];
  entries.forEach((entry, index) => {
    const command = parseEntry(`${path}.hooks[${index}]`, entry, skipped);
    if (command !== undefined) hooks.push(command);
  });
  const parsed: HookMatcherGroup = Object.freeze({
    ...(matcher === undefined ? {} : { matcher }),
    hooks: Object.freeze(hooks),
  });
  compiledMatchers.set(parsed, test);
  return parsed;
}

/** One hook entry: a command, or `undefined` for a skipped type. */
function parseEntry(path: string, entry: unknown, skipped: SkippedHookEntry[]): HookCommand | undefined {
  if (!isPlainObject(entry)) throw new HookSettingsError(path, 'must be an object with "type" and "command"');
  const type = ownValue(entry, "type");
  if (typeof type !== "string") {
    throw new HookSettingsError(`${path}.type`, 'must be a string naming the hook type, e.g. "command"');
  }
  if (SKIPPED_TYPES.has(type)) {
    skipped.push(Object.freeze({ path, type }));
    return undefined;
  }
  if (type !== "command") {
    throw new HookSettingsError(
      `${path}.type`,
      `unknown hook type ${
        JSON.stringify(type)
      } (expected "command"; "prompt", "agent", "http" and "mcp_tool" are skipped)`,
    );
  }
  const command = ownValue(entry, "command");
  if (typeof command !== "string" || command.trim() === "") {
    throw new HookSettingsError(`${path}.command`, "must be a non-empty string");
  }
  if (command.includes("\0")) throw new HookSettingsError(`${path}.command`, "must not contain a NUL character");
  const timeout = ownValue(entry, "timeout");
  if (timeout === undefined) return Object.freeze({ command });
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
    throw new HookSettingsError(`${path}.timeout`, "must be a positive number of seconds");
  }
  return Object.freeze({ command, timeoutMs: Math.max(1, Math.round(timeout * 1000)) });
}

function compile(pattern: string | undefined, dialect: HookDialect, path: string): MatcherTest {
  try {
    return compileMatcher(pattern, dialect);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new HookSettingsError(path, `invalid regular expression ${JSON.stringify(pattern)}: ${detail}`);
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
