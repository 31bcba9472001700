/**
 * The variables a hook reads its context from. They go through the seam's
 * trusted `env` channel, so the ambient scrub and `ENV_OVERRIDES` still
 * apply to everything else.
 *
 * @module
 */

import type { EnvPatch } from "../seam/types.ts";

/** Where a hook's context is: absolute paths. */
export interface HookLocations {
  /** The project root: `CLAUDE_PROJECT_DIR`. */
  projectDir: string;
  /** A plugin's root: `CLAUDE_PLUGIN_ROOT` and `PLUGIN_ROOT`. */
  pluginRoot?: string;
  /** A plugin's data directory: `CLAUDE_PLUGIN_DATA` and `PLUGIN_DATA`. */
  pluginData?: string;
}

/**
 * The `env` patch for one hook run, in three layers:
 *
 * 1. the plugin variables are removed, so a hook never inherits another
 *    plugin's root from the host's environment (a harness that itself runs
 *    under Claude Code has them);
 * 2. the caller's `env`;
 * 3. `CLAUDE_PROJECT_DIR` and, when given, the plugin variables: the bridge's
 *    contract with the hook, which the caller's `env` cannot displace.
 */
export function hookEnv(locations: HookLocations, callerEnv: EnvPatch | undefined): EnvPatch {
  const env: EnvPatch = {
    CLAUDE_PLUGIN_ROOT: undefined,
    PLUGIN_ROOT: undefined,
    CLAUDE_PLUGIN_DATA: undefined,
    PLUGIN_DATA: undefined,
    ...callerEnv,
    CLAUDE_PROJECT_DIR: locations.projectDir,
  };
  if (locations.pluginRoot !== undefined) {
    env.CLAUDE_PLUGIN_ROOT = locations.pluginRoot;
    env.PLUGIN_ROOT = locations.pluginRoot;
  }
  if (locations.pluginData !== undefined) {
    env.CLAUDE_PLUGIN_DATA = locations.pluginData;
    env.PLUGIN_DATA = locations.pluginData;
  }
  return env;
}
