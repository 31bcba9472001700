/**
 * What hook tests share: a command that answers with JSON, the plugin
 * fixtures' directory, and settings with one group of command entries.
 *
 * Imports the hook bridge only for its types and `parseHookSettings`.
 */

import { fileURLToPath } from "node:url";
import { type HookDialect, type HookSettings, parseHookSettings } from "../../src/hooks/mod.ts";
import { shQuote } from "./bash.ts";

/** A sh command that prints `json` as one line and exits with `exitCode`. */
export function answer(json: unknown, exitCode = 0): string {
  return `echo ${shQuote(JSON.stringify(json))}${exitCode === 0 ? "" : `; exit ${exitCode}`}`;
}

/** `tests/fixtures/plugins/<name>`, found beside the tests under either runtime. */
export function pluginDir(name: string): string {
  return fileURLToPath(new URL(`../fixtures/plugins/${name}`, import.meta.url));
}

/** Settings with one group (matcher `matcher`, absent when undefined) of command entries for `event`. */
export function settingsWith(
  event: string,
  entries: Record<string, unknown>[],
  dialect: HookDialect = "claude-code",
  matcher?: string,
): HookSettings {
  return parseHookSettings({
    hooks: {
      [event]: [{
        ...(matcher === undefined ? {} : { matcher }),
        hooks: entries.map((entry) => ({ type: "command", ...entry })),
      }],
    },
  }, { dialect });
}
