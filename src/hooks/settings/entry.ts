/**
 * One hook entry of a settings file: checked, and turned into a
 * {@linkcode HookCommand} (an `http`, `prompt` or `agent` entry too, with
 * its `type`). Entry types a dialect does not run are listed as skipped;
 * what a dialect does not know is read as that harness reads it, with a
 * warning.
 *
 * @module
 */

import { ownValue } from "../../seam/own_fields.ts";
import { HookSettingsError } from "../errors.ts";
import { eventRules } from "../events.ts";
import { parseIfRule } from "./if/if_filter.ts";
import type { HookCommand, HookDialect, HookWarning, SkippedHookEntry } from "./types.ts";

/**
 * Hook types that are valid in a settings file but that the bridge does
 * not run, per dialect (listed in `skipped`). Claude Code: `mcp_tool` (an
 * MCP call is the harness's); `http` runs here, `prompt` and `agent` go to
 * the harness's `modelHook`. Codex 0.169.0 runs none of the four (it skips
 * `prompt` and `agent` with a warning, CX-DISC; an `http` hook was measured
 * never to be called).
 */
const SKIPPED_TYPES: Readonly<Record<HookDialect, ReadonlySet<string>>> = {
  "claude-code": new Set(["mcp_tool"]),
  codex: new Set(["prompt", "agent", "http", "mcp_tool"]),
};

/**
 * Events on which Claude Code does not run `http` hooks: 2.1.328 was
 * measured never to call one on `SessionStart`.
 */
const NO_HTTP_EVENTS: ReadonlySet<string> = new Set(["SessionStart"]);

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
 * One hook entry of `event`: a command, or `undefined` for a skipped type,
 * an empty command, or (Codex) a missing one. Throws {@linkcode HookSettingsError} naming
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
  if (SKIPPED_TYPES[dialect].has(type) || (type === "http" && NO_HTTP_EVENTS.has(event))) {
    sink.skipped.push(Object.freeze({ path, type }));
    if (type === "http" && dialect === "claude-code") {
      sink.warnings.push({ field: `${path}.type`, message: `Claude Code does not run http hooks on ${event}` });
    }
    if (type === "http" && dialect === "codex") {
      // Measured: Codex 0.169.0 runs none of the file's hooks then. Skipping only this entry runs more, never fewer.
      sink.warnings.push({
        field: `${path}.type`,
        message: "Codex runs no http hooks, and loads no hook of this file because of it; " +
          "the bridge skips only this entry",
      });
    }
    return undefined;
  }
  if (type === "http" || type === "prompt" || type === "agent") {
    return otherEntry(path, entry, type, dialect, event, sink);
  }
  if (type !== "command") {
    throw new HookSettingsError(
      `${path}.type`,
      `unknown hook type ${JSON.stringify(type)} (expected "command", "http", "prompt", "agent" or "mcp_tool")`,
    );
  }
  const command = ownValue(entry, "command");
  const blank = typeof command === "string" && command.trim() === "";
  if (blank || (dialect === "codex" && command === undefined)) {
    // Codex: "skipping empty hook command", and the other hooks load. Claude Code 2.1.328 too runs the file's
    // other hooks beside `"command": ""` (measured: tests/conformance_events.test.ts); failing the whole file
    // here would lose its guards.
    sink.warnings.push({
      field: `${path}.command`,
      message: "empty command: this hook is skipped, as in the binaries",
    });
    return undefined;
  }
  if (typeof command !== "string" || command.trim() === "") {
    throw new HookSettingsError(`${path}.command`, "must be a non-empty string");
  }
  if (command.includes("\0")) throw new HookSettingsError(`${path}.command`, "must not contain a NUL character");

  const hook: Building = { command };
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
      message: "Codex has no asyncRewake: ignored (the hook runs in the background only with async: true)",
    });
  } else if (asyncRewake === true && async !== true) {
    sink.warnings.push({
      field: `${path}.asyncRewake`,
      message:
        "asyncRewake without async: true runs in the foreground (as Claude Code 2.1.328 does), where exit 2 blocks",
    });
  }
  if (async !== undefined) hook.async = async;
  if (asyncRewake !== undefined) hook.asyncRewake = asyncRewake;
  return finish(path, entry, hook);
}

/** A hook being built: every field writable. */
type Building = { -readonly [K in keyof HookCommand]: HookCommand[K] };

/** The fields every type shares (`statusMessage`); frozen and remembered with its path. */
function finish(path: string, entry: Record<string, unknown>, hook: Building): HookCommand {
  const statusMessage = ownValue(entry, "statusMessage");
  if (statusMessage !== undefined) {
    if (typeof statusMessage !== "string") throw new HookSettingsError(`${path}.statusMessage`, "must be a string");
    hook.statusMessage = statusMessage;
  }
  const frozen = Object.freeze(hook);
  hookPaths.set(frozen, path);
  return frozen;
}

/**
 * A Claude Code `http`, `prompt` or `agent` entry: `command` holds its
 * `url` or `prompt`, so results and dedup name it as a command's line.
 */
function otherEntry(
  path: string,
  entry: Record<string, unknown>,
  type: "http" | "prompt" | "agent",
  dialect: HookDialect,
  event: string,
  sink: EntrySink,
): HookCommand {
  const main = type === "http" ? "url" : "prompt";
  const value = ownValue(entry, main);
  if (typeof value !== "string" || value.trim() === "") {
    throw new HookSettingsError(`${path}.${main}`, "must be a non-empty string");
  }
  const hook: Building = { type, command: value };
  if (type === "http") readHttp(path, entry, value, hook);
  else {
    const model = ownValue(entry, "model");
    if (model !== undefined) {
      if (typeof model !== "string") throw new HookSettingsError(`${path}.model`, "must be a string");
      hook.model = model;
    }
  }
  const timeoutMs = readTimeout(path, entry, dialect, sink);
  if (timeoutMs !== undefined) hook.timeoutMs = timeoutMs;
  const condition = readIf(path, entry, dialect, event, sink);
  if (condition !== undefined) hook.if = condition;
  const async = readBoolean(path, entry, "async");
  if (async !== undefined) hook.async = async;
  return finish(path, entry, hook);
}

/** An `http` entry's `url` (http: or https:), `headers` (strings) and `allowedEnvVars` (names). */
function readHttp(path: string, entry: Record<string, unknown>, url: string, hook: Building): void {
  if (!URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol)) {
    throw new HookSettingsError(`${path}.url`, "must be an http: or https: URL");
  }
  const headers = ownValue(entry, "headers");
  if (headers !== undefined) {
    if (!isPlainObject(headers) || Object.values(headers).some((header) => typeof header !== "string")) {
      throw new HookSettingsError(`${path}.headers`, "must be an object of strings");
    }
    hook.headers = Object.freeze({ ...headers } as Record<string, string>);
  }
  const allowed = ownValue(entry, "allowedEnvVars");
  if (allowed !== undefined) {
    if (!Array.isArray(allowed) || allowed.some((name) => typeof name !== "string")) {
      throw new HookSettingsError(`${path}.allowedEnvVars`, "must be an array of variable names");
    }
    hook.allowedEnvVars = Object.freeze([...allowed] as string[]);
  }
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
  if (dialect === "codex" && !Number.isInteger(seconds)) {
    // Measured: Codex 0.169.0 then loads none of the file's hooks. Running them blocks more, never less.
    sink.warnings.push({
      field: `${path}.timeout`,
      message: "Codex loads no hook of this file when a timeout is not a whole number of seconds; " +
        "the bridge runs them, this one with its timeout as given (at least 1 s)",
    });
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
