/**
 * The variables a hook reads its context from. They go through the seam's
 * trusted `env` channel, so the ambient scrub and `ENV_OVERRIDES` still
 * apply to everything else.
 *
 * @module
 */

import type { EnvPatch } from "../../seam/types.ts";
import { ShellSpecError } from "../../seam/errors.ts";
import type { HookHarnessInfo } from "./types.ts";
import type { HookDialect } from "../settings/types.ts";

/** Where a hook's context is: absolute paths. */
export interface HookLocations {
  /** The project root: `CLAUDE_PROJECT_DIR` (Claude Code dialect). */
  projectDir: string;
  /** A plugin's root: `CLAUDE_PLUGIN_ROOT` and `PLUGIN_ROOT`. */
  pluginRoot?: string;
  /** A plugin's data directory: `CLAUDE_PLUGIN_DATA` and `PLUGIN_DATA`. */
  pluginData?: string;
  /** A file for `export` lines: `CLAUDE_ENV_FILE` (and `CODEX_ENV_FILE` in the Codex dialect). */
  envFile?: string;
}

/** Variables a hook must never inherit from the host: another plugin's, another session's. */
const HOST_ONLY = [
  "CLAUDE_PLUGIN_ROOT",
  "PLUGIN_ROOT",
  "CLAUDE_PLUGIN_DATA",
  "PLUGIN_DATA",
  "CLAUDE_ENV_FILE",
  "CODEX_ENV_FILE",
  // The host's own Claude Code session, when the harness itself runs under one.
  "CLAUDECODE",
  "CLAUDE_CODE_SESSION_ID",
  "CLAUDE_CODE_ENTRYPOINT",
  "CLAUDE_PID",
];

/**
 * The hook variables themselves, by name: what the bridge promises the
 * hook, and what exec form's `${NAME}` placeholders expand to.
 */
export function hookVariables(locations: HookLocations, dialect: HookDialect): Record<string, string> {
  // Codex 0.169.0 sets no CLAUDE_PROJECT_DIR (measured); the Codex dialect does as it does.
  const variables: Record<string, string> = dialect === "codex" ? {} : { CLAUDE_PROJECT_DIR: locations.projectDir };
  if (locations.pluginRoot !== undefined) {
    variables.CLAUDE_PLUGIN_ROOT = locations.pluginRoot;
    variables.PLUGIN_ROOT = locations.pluginRoot;
  }
  if (locations.pluginData !== undefined) {
    variables.CLAUDE_PLUGIN_DATA = locations.pluginData;
    variables.PLUGIN_DATA = locations.pluginData;
  }
  if (locations.envFile !== undefined) {
    variables.CLAUDE_ENV_FILE = locations.envFile;
    if (dialect === "codex") variables.CODEX_ENV_FILE = locations.envFile;
  }
  return variables;
}

/**
 * The `env` patch for one hook run, in three layers:
 *
 * 1. the plugin and env-file variables are removed, so a hook never
 *    inherits another plugin's root or another session's env file from the
 *    host's environment (a harness that itself runs under Claude Code has
 *    them);
 * 2. the caller's `env`;
 * 3. Claude Code's `CLAUDECODE` and the harness's values (`harness`);
 * 4. `CLAUDE_PROJECT_DIR` (not in the Codex dialect, where the host's is
 *    removed too) and, when given, the plugin and env-file variables: the
 *    bridge's contract with the hook, which the caller's `env` cannot
 *    displace.
 */
export function hookEnv(
  locations: HookLocations,
  callerEnv: EnvPatch | undefined,
  dialect: HookDialect,
  harness?: HookHarnessInfo,
): EnvPatch {
  const removed: EnvPatch = {};
  for (const name of HOST_ONLY) removed[name] = undefined;
  // The host's own project dir is another project's: a Codex hook gets one only from the caller's env.
  if (dialect === "codex") removed.CLAUDE_PROJECT_DIR = undefined;
  // Spread, not Object.assign: a caller's own "__proto__" key stays a plain key.
  return { ...removed, ...callerEnv, ...harnessVariables(harness, dialect), ...hookVariables(locations, dialect) };
}

/**
 * Claude Code's own variables for its hooks (measured on 2.1.328):
 * `CLAUDECODE=1` always, the others from the harness. Not placeholders of
 * exec form (Claude Code substitutes only the project and plugin ones).
 * Throws {@linkcode ShellSpecError} for a value of the wrong type.
 */
export function harnessVariables(harness: HookHarnessInfo | undefined, dialect: HookDialect): Record<string, string> {
  if (dialect === "codex") return {};
  const variables: Record<string, string> = { CLAUDECODE: "1" };
  if (harness === undefined) return variables;
  if (typeof harness !== "object" || harness === null) throw new ShellSpecError("harness", "must be an object");
  const text = (name: "sessionId" | "entrypoint", variable: string): void => {
    const value = Object.hasOwn(harness, name) ? harness[name] : undefined;
    if (value === undefined) return;
    if (typeof value !== "string" || value.includes("\0")) {
      throw new ShellSpecError(`harness.${name}`, "must be a string without NUL characters");
    }
    variables[variable] = value;
  };
  text("sessionId", "CLAUDE_CODE_SESSION_ID");
  text("entrypoint", "CLAUDE_CODE_ENTRYPOINT");
  const pid = Object.hasOwn(harness, "pid") ? harness.pid : undefined;
  if (pid !== undefined) {
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) {
      throw new ShellSpecError("harness.pid", "must be a positive integer");
    }
    variables.CLAUDE_PID = String(pid);
  }
  return variables;
}
