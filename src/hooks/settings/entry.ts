/**
 * One hook entry of a settings file: checked, and turned into a
 * {@linkcode HookCommand}. Entry types that are not commands are listed as
 * skipped; what a dialect does not know is read as that harness reads it,
 * with a warning.
 *
 * @module
 */

import { ownValue } from "../../seam/own_fields.ts";
import { HookSettingsError } from "../errors.ts";
import { eventRules } from "../events.ts";
import { parseIfRule } from "./if/if_filter.ts";
import type { HookCommand, HookDialect, HookWarning, SkippedHookEntry } from "../types.ts";

/**
 * Hook types that are valid in a settings file but are not shell commands:
 * they are skipped (and listed in `skipped`), because running a model
 * prompt, an agent, an HTTP call or an MCP tool is the harness's job, not
 * a shell's.
 */
const SKIPPED_TYPES: ReadonlySet<string> = new Set(["prompt", "agent", "http", "mcp_tool"]);

/** Where the results of reading entries go. */
export interface EntrySink {
  readonly skipped: SkippedHookEntry[];
  readonly warnings: HookWarning[];
}

/** The settings path of each hook made by `parseEntry`, for warnings at dispatch. */
const hookPaths = new WeakMap<HookCommand, string>();

/** Where `hook` is in its settings file, when `parseHookSettings` made it. */
export function hookPathOf(hook: HookCommand): string | undefined {
  return hookPaths.get(hook);
}

/**
 * One hook entry of `event`: a command, or `undefined` for a skipped type
 * or (Codex) an empty command. Throws {@linkcode HookSettingsError} naming
 * the field for an entry that cannot be read.
 */
export function parseEntry(
  path: string,
  entry: unknown,
  dialect: HookDialect,
  event: string,
  sink: EntrySink,
): HookCommand | undefined {
  if (!isPlainObject(entry)) throw new HookSettingsError(path, 'must be an object with "type" and "command"');
  const type = ownValue(entry, "type");
  if (typeof type !== "string") {
    throw new HookSettingsError(`${path}.type`, 'must be a string naming the hook type, e.g. "command"');
  }
  if (SKIPPED_TYPES.has(type)) {
    sink.skipped.push(Object.freeze({ path, type }));
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
  if (dialect === "codex" && (command === undefined || (typeof command === "string" && command.trim() === ""))) {
    // Codex: "skipping empty hook command", and the other hooks load.
    sink.warnings.push({ field: `${path}.command`, message: "empty command: this hook is skipped, as in Codex" });
    return undefined;
  }
  if (typeof command !== "string" || command.trim() === "") {
    throw new HookSettingsError(`${path}.command`, "must be a non-empty string");
  }
  if (command.includes("\0")) throw new HookSettingsError(`${path}.command`, "must not contain a NUL character");

  const hook: {
    -readonly [K in keyof HookCommand]: HookCommand[K];
  } = { command };
  const args = readArgs(path, entry, dialect, sink);
  if (args !== undefined) hook.args = args;
  const timeoutMs = readTimeout(path, entry, dialect, sink);
  if (timeoutMs !== undefined) hook.timeoutMs = timeoutMs;
  const condition = readIf(path, entry, dialect, event, sink);
  if (condition !== undefined) hook.if = condition;
  const async = readBoolean(path, entry, "async");
  const asyncRewake = readBoolean(path, entry, "asyncRewake");
  if (asyncRewake === true && dialect === "codex") {
    sink.warnings.push({
      field: `${path}.asyncRewake`,
      message:
        "Codex has no asyncRewake (it would run this hook in the foreground); the bridge runs it in the background",
    });
  }
  if (async !== undefined) hook.async = async;
  if (asyncRewake !== undefined) hook.asyncRewake = asyncRewake;
  const statusMessage = ownValue(entry, "statusMessage");
  if (statusMessage !== undefined) {
    if (typeof statusMessage !== "string") throw new HookSettingsError(`${path}.statusMessage`, "must be a string");
    hook.statusMessage = statusMessage;
  }
  const frozen = Object.freeze(hook);
  hookPaths.set(frozen, path);
  return frozen;
}

/** Exec form's `args`: an array of strings. */
function readArgs(
  path: string,
  entry: Record<string, unknown>,
  dialect: HookDialect,
  sink: EntrySink,
): readonly string[] | undefined {
  const args = ownValue(entry, "args");
  if (args === undefined) return undefined;
  if (!Array.isArray(args)) throw new HookSettingsError(`${path}.args`, "must be an array of strings");
  args.forEach((arg, index) => {
    if (typeof arg !== "string") throw new HookSettingsError(`${path}.args[${index}]`, "must be a string");
    if (arg.includes("\0")) throw new HookSettingsError(`${path}.args[${index}]`, "must not contain a NUL character");
  });
  const command = ownValue(entry, "command") as string;
  if (!command.includes("/") && /\s/.test(command.trim())) {
    // Claude Code logs the same warning: there is no executable named "node script.js".
    sink.warnings.push({
      field: `${path}.command`,
      message: `with "args", "command" is one program: there is no executable named ${JSON.stringify(command)}`,
    });
  }
  if (dialect === "codex") {
    sink.warnings.push({
      field: `${path}.args`,
      message: "Codex has no exec form (it would run the command through the shell without these arguments); " +
        "the bridge runs it in exec form",
    });
  }
  return Object.freeze([...args] as string[]);
}

/**
 * `timeout` in seconds. Codex raises anything below one second to one
 * second, and ignores `timeoutSec`: 0.169.0 was measured to run a hook with
 * only `timeoutSec` on the 600 s default and one with both on `timeout`.
 * Honouring `timeoutSec` would kill a guard Codex lets finish (and so block
 * less), so it is ignored here too, with a warning.
 */
function readTimeout(
  path: string,
  entry: Record<string, unknown>,
  dialect: HookDialect,
  sink: EntrySink,
): number | undefined {
  if (dialect === "codex" && ownValue(entry, "timeoutSec") !== undefined) {
    sink.warnings.push({
      field: `${path}.timeoutSec`,
      message: 'Codex ignores timeoutSec: the hook runs on "timeout", else the default (600 s)',
    });
  }
  const seconds = ownValue(entry, "timeout");
  if (seconds === undefined) return undefined;
  const minimum = dialect === "codex" ? 0 : Number.MIN_VALUE;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < minimum) {
    throw new HookSettingsError(`${path}.timeout`, "must be a positive number of seconds");
  }
  const ms = Math.round(seconds * 1000);
  return dialect === "codex" ? Math.max(1000, ms) : Math.max(1, ms);
}

/** Claude Code's `if`: one permission rule, kept as written and checked here. */
function readIf(
  path: string,
  entry: Record<string, unknown>,
  dialect: HookDialect,
  event: string,
  sink: EntrySink,
): string | undefined {
  const condition = ownValue(entry, "if");
  if (condition === undefined) return undefined;
  if (typeof condition !== "string") {
    throw new HookSettingsError(`${path}.if`, "must be a string (one permission rule)");
  }
  const field = `${path}.if`;
  if (dialect === "codex") {
    sink.warnings.push({ field, message: "Codex has no if filter: the hook runs whenever its matcher matches" });
    return undefined;
  }
  const rules = eventRules(event, dialect);
  if (rules !== undefined && rules.toolEvent !== true) {
    sink.warnings.push({ field, message: `if is evaluated only on tool events: on ${event} this hook never runs` });
  } else if (parseIfRule(condition) === undefined) {
    sink.warnings.push({
      field,
      message: `${JSON.stringify(condition)} is not one permission rule (Tool or Tool(specifier)); ` +
        "the hook runs on every matching call (fail open)",
    });
  }
  return condition;
}

function readBoolean(path: string, entry: Record<string, unknown>, name: string): boolean | undefined {
  const value = ownValue(entry, name);
  if (value === undefined || typeof value === "boolean") return value;
  throw new HookSettingsError(`${path}.${name}`, "must be true or false");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
