/**
 * Checking a tool call's input: unknown keys first, each refused with the
 * reason and what to do instead, then the declared fields' types.
 *
 * @module
 */

import { ToolInputError } from "./errors.ts";
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

const DECLARED: ReadonlySet<string> = new Set(INPUT_NAMES);

/** A key as it appears in a message: bare when it is a plain name, quoted otherwise. */
function showKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
}

/** A short description of a value a model sent, for "(got …)". */
function showValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}

/** The refusal of `keys` (all unknown), naming the first. */
function unknownKeyError(keys: string[]): ToolInputError {
  const [key, ...others] = keys;
  const why = REFUSALS.get(key) ?? `its inputs are ${INPUT_NAMES.join(", ")}`;
  const also = others.length === 0 ? "" : `; also not inputs: ${others.map(showKey).join(", ")}`;
  return new ToolInputError(key, `${showKey(key)} is not an input of the bash tool: ${why}${also}`);
}

/**
 * Checks a tool call's input and returns it with only the declared fields.
 * Throws {@linkcode ToolInputError}: for a key that is not an input (naming
 * it and saying what to do instead), then for a missing or empty `command`
 * or a field of the wrong type (naming the field and what it got).
 */
export function parse(input: unknown): BashToolInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ToolInputError(
      "input",
      `input: must be an object of named arguments such as {"command": "ls"} (got ${showValue(input)})`,
    );
  }
  const unknown = Object.keys(input).filter((key) => !DECLARED.has(key));
  if (unknown.length > 0) throw unknownKeyError(unknown);

  const checked = inputValidator.safeParse(input);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  const field = String(issue.path[0] ?? "input");
  const given = Object.hasOwn(input, field) ? ` (got ${showValue((input as Record<string, unknown>)[field])})` : "";
  throw new ToolInputError(field, `${field}: ${issue.message}${given}`);
}
