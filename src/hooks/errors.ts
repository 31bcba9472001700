/**
 * The error of the hook bridge. Running a hook never throws
 * ({@linkcode runHook} turns every failure into a result); only settings
 * that cannot be understood do.
 *
 * @module
 */

/**
 * Hook settings are malformed. The message starts with the path of the
 * faulty part, so the user can find it in the file, e.g.
 * `hooks.PreToolUse[0].hooks[1].command: must be a non-empty string`.
 *
 * @example
 * ```ts
 * import { HookSettingsError, parseHookSettings } from "@dsh/shell/hooks";
 * try {
 *   parseHookSettings({ hooks: { PreToolUse: [{ matcher: "(", hooks: [] }] } }, { dialect: "claude-code" });
 * } catch (error) {
 *   if (error instanceof HookSettingsError) console.log(error.path); // "hooks.PreToolUse[0].matcher"
 * }
 * ```
 */
export class HookSettingsError extends Error {
  /** Where the problem is, e.g. `hooks.PreToolUse[0].hooks[1].timeout`. */
  readonly path: string;

  /**
   * Creates the error; the message is `<path>: <problem>`.
   *
   * @param path Where the problem is.
   * @param problem What is wrong, in words a user can act on.
   */
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = "HookSettingsError";
    this.path = path;
  }
}
