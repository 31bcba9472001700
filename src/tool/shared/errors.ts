/**
 * The errors of the tools: the input check's, and which errors of the shell
 * a model can fix by another call.
 *
 * @module
 */

import { hasErrorCode } from "../../seam/error_checks.ts";
import { ShellError } from "../../seam/errors.ts";

/**
 * A bash tool call's input is not acceptable: a key that is not an input of
 * the tool, a missing `command`, or a field of the wrong type. `field` names
 * the offending key or field (`"input"` when the input is not an object at
 * all), and the message says what to do instead, in words a model can act
 * on. Nothing was run. The `name` is stable, so the error can be recognised
 * after serialisation, where `instanceof` no longer works.
 *
 * @example
 * ```ts
 * import { bashTool, ToolInputError } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.throws(() => bashTool.parse({ command: "cat", stdin: "hello" }), (error) => {
 *   assert.ok(error instanceof ToolInputError);
 *   assert.equal(error.field, "stdin");
 *   assert.match(error.message, /^stdin is not an input of the bash tool: use a pipe or a heredoc/);
 *   return true;
 * });
 * ```
 */
export class ToolInputError extends ShellError {
  /** The code of this class in the library's error family. */
  readonly code = "ERR_TOOL_INPUT" as const;
  /** The offending key or field, e.g. `"stdin"` or `"timeout"`; `"input"` for the input as a whole. */
  readonly field: string;

  /**
   * Creates the error.
   *
   * @param field The offending key or field.
   * @param message The whole message: it names the key and says what to do instead.
   */
  constructor(field: string, message: string) {
    super(message);
    this.name = "ToolInputError";
    this.field = field;
  }

  /**
   * The offending key or field: the 1.0 name of {@linkcode ToolInputError.field}.
   *
   * @deprecated Use `field`, the name every error of the library gives the place at fault.
   */
  get key(): string {
    return this.field;
  }
}

/**
 * Whether `error` is one the model can fix by another call (its input, a
 * path, too many tasks): the tools answer it as `[error] …` text for the
 * model; every other error is the harness's, and rejects.
 */
export function isModelFixable(error: unknown): error is Error {
  // A sandbox that could not be set up for this call is mostly the call's doing: a workdir the sandbox hides.
  return hasErrorCode(error, "ERR_SHELL_SPEC", "ERR_SHELL_SPAWN", "ERR_TASK_LIMIT", "ERR_SHELL_SANDBOX");
}
