/**
 * The error of the hook bridge. Running a hook never throws
 * ({@linkcode runHook} turns every failure into a result); only settings
 * that cannot be understood do.
 *
 * @module
 */

import { ShellError } from "../seam/errors.ts";

/**
 * Hook settings are malformed. `field` is the path of the faulty part in the
 * settings, and the message starts with it, so the user can find it in the
 * file, e.g. `hooks.PreToolUse[0].hooks[1].command: must be a non-empty
 * string`. (An invalid option of the bridge's functions, such as an unknown
 * `dialect`, is a `ShellSpecError` like every invalid option.)
 *
 * @example
 * ```ts
 * import { HookSettingsError, parseHookSettings } from "@dsh/shell/hooks";
 * import assert from "node:assert/strict";
 * const file = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command" }] }] } };
 * assert.throws(() => parseHookSettings(file, { dialect: "claude-code" }), (error) => {
 *   assert.ok(error instanceof HookSettingsError);
 *   assert.equal(error.field, "hooks.PreToolUse[0].hooks[0].command");
 *   assert.equal(error.message, "hooks.PreToolUse[0].hooks[0].command: must be a non-empty string");
 *   return true;
 * });
 * ```
 */
export class HookSettingsError extends ShellError {
  /** The code of this class in the library's error family. */
  readonly code = "ERR_HOOK_SETTINGS" as const;
  /** Where the problem is, e.g. `hooks.PreToolUse[0].hooks[1].timeout`. */
  readonly field: string;

  /**
   * Creates the error; the message is `<field>: <problem>`.
   *
   * @param field Where the problem is.
   * @param problem What is wrong, in words a user can act on.
   */
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = "HookSettingsError";
    this.field = field;
  }

  /**
   * Where the problem is: the 1.0 name of {@linkcode HookSettingsError.field}.
   *
   * @deprecated Use `field`, the name every error of the library gives the place at fault.
   */
  get path(): string {
    return this.field;
  }
}
