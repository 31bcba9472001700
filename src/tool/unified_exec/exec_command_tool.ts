/**
 * The `exec_command` tool as one object, with Codex's unified-exec name and
 * inputs: it runs a command line and, if the program is still running when
 * the wait is over, keeps it alive for `write_stdin`.
 *
 * @module
 */

import { checkInput } from "../shared/check_input.ts";
import { EXEC_COMMAND_RULES, EXEC_YIELD_TIME_MS, execCommandInputSchema, MAX_YIELD_TIME_MS } from "./input_schema.ts";
import type { ExecCommandTool } from "./types.ts";

const DESCRIPTION: string = [
  "Runs a command line (`bash -c <cmd>`) and returns its output once it ends, or after `yield_time_ms` " +
  `(default ${EXEC_YIELD_TIME_MS}, at most ${MAX_YIELD_TIME_MS}) if it is still running.`,
  "- The answer starts with `Wall time: <s> seconds`, then `Process exited with code <n>`, or " +
  "`Process running with session ID <id>` while it runs, then `Output:` and what it printed.",
  "- A program still running stays alive: read what it prints next, or type into it, with write_stdin and that id.",
  "- With `tty: true` it runs on a terminal (for REPLs, prompts, `ssh`, `npm init`): write_stdin types into it, " +
  '"\\u0003" is Ctrl-C; stderr comes with stdout. Without it the program gets no input at all.',
  "- Each call is a fresh process: `cd` and `export` do not carry over to the next call; give `workdir` instead.",
  "- Output over `max_output_tokens` keeps its start and its end; the middle is cut out.",
].join("\n");

/**
 * The `exec_command` tool: its name, description and input schema, and the
 * check of a model's input.
 *
 * @example
 * ```ts
 * import { execCommandTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.equal(execCommandTool.name, "exec_command");
 * assert.throws(() => execCommandTool.parse({ command: "ls" }), /the command line is `cmd`/);
 * ```
 */
export const execCommandTool: ExecCommandTool = Object.freeze({
  name: "exec_command",
  description: DESCRIPTION,
  inputSchema: execCommandInputSchema,
  parse: (input: unknown) => checkInput(EXEC_COMMAND_RULES, input),
});
