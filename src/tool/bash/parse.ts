/**
 * Checking a bash tool call's input: the bash tool's rules for
 * {@linkcode checkInput}, with what to do instead of the keys a model is
 * likely to try.
 *
 * @module
 */

import { checkInput, type InputRules } from "../shared/check_input.ts";
import { INPUT_NAMES, inputValidator } from "./input_schema.ts";
import type { BashToolInput } from "./types.ts";

/**
 * Why a key is not an input, for keys a model is likely to try: the seam's
 * trusted-caller fields, and other harnesses' names for the declared inputs.
 */
const REFUSALS: ReadonlyMap<string, string> = new Map([
  ["stdin", "use a pipe or a heredoc in the command (printf '%s\\n' data | cmd, or cmd <<'EOF' ... EOF)"],
  ["env", "set variables in the command itself (VAR=value cmd, or export VAR=value; cmd)"],
  ["dshEnv", "the managed DSH_* variables are set by the harness, not by a tool call"],
  [
    "stdoutMaxBytes",
    "long output keeps its head and tail, and the complete stream is saved to a file whose path is shown; " +
    "grep or tail that file",
  ],
  ["owner", "the harness decides who owns a command"],
  ["signal", "the harness cancels commands"],
  ["timeoutMs", "the timeout is `timeout`, in milliseconds"],
  ["timeout_ms", "the timeout is `timeout`, in milliseconds"],
  ["cwd", "the working directory is `workdir`"],
  ["dir", "the working directory is `workdir`"],
  ["working_dir", "the working directory is `workdir`"],
  ["working_directory", "the working directory is `workdir`"],
  ["background", "use `run_in_background: true`"],
  ["runInBackground", "use `run_in_background: true`"],
  ["cmd", "the command line is `command`"],
]);

const RULES: InputRules<BashToolInput> = {
  tool: "bash",
  names: INPUT_NAMES,
  refusals: REFUSALS,
  validator: inputValidator,
  example: '{"command": "ls"}',
};

/**
 * Checks a tool call's input and returns it with only the declared fields.
 * Throws `ToolInputError`: for a key that is not an input (naming
 * it and saying what to do instead), then for a missing or empty `command`
 * or a field of the wrong type (naming the field and what it got).
 */
export function parse(input: unknown): BashToolInput {
  return checkInput(RULES, input);
}
