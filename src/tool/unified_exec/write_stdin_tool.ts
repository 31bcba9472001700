/**
 * The `write_stdin` tool as one object, with Codex's unified-exec name and
 * inputs: it types into a program that `exec_command` left running, and
 * reads what the program printed since.
 *
 * @module
 */

import { checkInput } from "../shared/check_input.ts";
import { MAX_YIELD_TIME_MS, WRITE_STDIN_RULES, WRITE_YIELD_TIME_MS, writeStdinInputSchema } from "./input_schema.ts";
import type { WriteStdinTool } from "./types.ts";

const DESCRIPTION: string = [
  "Types `chars` into a program that exec_command left running (its `session_id`), then returns what it printed " +
  `since the last answer, waiting up to \`yield_time_ms\` (default ${WRITE_YIELD_TIME_MS}, at most ` +
  `${MAX_YIELD_TIME_MS}) for more or for its end.`,
  '- `chars` is typed as is: end a line with "\\n"; "\\u0003" is Ctrl-C, "\\u0004" end of input. Empty or absent: ' +
  "only read (poll) the output.",
  "- Typing needs a program started with `tty: true`; any program can be polled.",
  "- The answer has the same form as exec_command's; once it says `Process exited with code <n>` the id is gone.",
].join("\n");

/**
 * The `write_stdin` tool: its name, description and input schema, and the
 * check of a model's input.
 *
 * @example
 * ```ts
 * import { writeStdinTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.equal(writeStdinTool.name, "write_stdin");
 * assert.throws(() => writeStdinTool.parse({ session_id: "7" }), /session_id: must be the number/);
 * ```
 */
export const writeStdinTool: WriteStdinTool = Object.freeze({
  name: "write_stdin",
  description: DESCRIPTION,
  inputSchema: writeStdinInputSchema,
  parse: (input: unknown) => checkInput(WRITE_STDIN_RULES, input),
});
