/**
 * The inputs of `exec_command` and `write_stdin`, declared once with zod:
 * the validators and the JSON Schemas the model is given come from them.
 *
 * @module
 */

import { z } from "zod";
import type { InputRules } from "../shared/check_input.ts";
import { generateInputSchema } from "../shared/json_schema.ts";
import type { ToolInputSchema } from "../shared/types.ts";
import type { ExecCommandInput, WriteStdinInput } from "./types.ts";

/** The longest wait a call may ask for, in ms; a longer `yield_time_ms` is capped. */
export const MAX_YIELD_TIME_MS = 30_000;
/** `exec_command`'s wait when the model gives none, in ms (Codex's). */
export const EXEC_YIELD_TIME_MS = 10_000;
/** `write_stdin`'s wait when the model gives none, in ms (Codex's). */
export const WRITE_YIELD_TIME_MS = 250;
/** The output cap when the model gives none, in tokens. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

const YIELD = "must be a number of milliseconds, 0 or more";
const TOKENS = "must be a positive whole number of tokens";

const yieldTime = (wait: number) =>
  z.number({ error: YIELD }).min(0, { error: YIELD }).refine(Number.isFinite, { error: YIELD })
    .describe(
      `How long to wait for the program to end before answering, in milliseconds (default ${wait}, at most ` +
        `${MAX_YIELD_TIME_MS}). An answer comes sooner when it ends.`,
    )
    .optional();

const maxOutputTokens = z.number({ error: TOKENS }).int({ error: TOKENS }).positive({ error: TOKENS })
  .describe(
    `The most output to return, in tokens of about 4 bytes (default ${DEFAULT_MAX_OUTPUT_TOKENS}); the middle ` +
      "of longer output is cut out.",
  )
  .optional();

const EXEC_NAMES: readonly string[] = Object.freeze(["cmd", "workdir", "tty", "yield_time_ms", "max_output_tokens"]);

const execValidator: z.ZodType<ExecCommandInput> = z.strictObject({
  cmd: z.string({
    error: (issue) => issue.input === undefined ? "is required: the command line to run" : "must be a non-empty string",
  }).min(1, { error: "must be a non-empty string" })
    .describe("The command line, run as `bash -c <cmd>`."),
  workdir: z.string({ error: "must be a non-empty string (a directory path)" })
    .min(1, { error: "must be a non-empty string (a directory path)" })
    .describe("Directory to run in: absolute, or relative to the default working directory.")
    .optional(),
  tty: z.boolean({ error: "must be true or false" })
    .describe(
      "Run it on a terminal, for interactive programs (REPLs, prompts, pagers): its input stays open for " +
        "write_stdin and stderr comes with stdout. Without it the program gets no input.",
    )
    .optional(),
  yield_time_ms: yieldTime(EXEC_YIELD_TIME_MS),
  max_output_tokens: maxOutputTokens,
});

const WRITE_NAMES: readonly string[] = Object.freeze(["session_id", "chars", "yield_time_ms", "max_output_tokens"]);

const SESSION = "must be the number from `Process running with session ID <id>`";

const writeValidator: z.ZodType<WriteStdinInput> = z.strictObject({
  session_id: z.number({
    error: (issue) => issue.input === undefined ? `is required: ${SESSION.slice("must be ".length)}` : SESSION,
  }).int({ error: SESSION })
    .describe("The id of a running program, from `Process running with session ID <id>`."),
  chars: z.string({ error: "must be a string" })
    .describe('What to type into the program, as typed ("\\n" is Enter, "\\u0003" Ctrl-C); empty: only read.')
    .optional(),
  yield_time_ms: yieldTime(WRITE_YIELD_TIME_MS),
  max_output_tokens: maxOutputTokens,
});

/** The JSON Schema of `exec_command`'s input. */
export const execCommandInputSchema: ToolInputSchema = generateInputSchema("exec_command", execValidator, EXEC_NAMES, [
  "cmd",
]);

/** The JSON Schema of `write_stdin`'s input. */
export const writeStdinInputSchema: ToolInputSchema = generateInputSchema("write_stdin", writeValidator, WRITE_NAMES, [
  "session_id",
]);

/** What `exec_command` accepts, and what to say to the inputs other tools have. */
export const EXEC_COMMAND_RULES: InputRules<ExecCommandInput> = {
  tool: "exec_command",
  names: EXEC_NAMES,
  refusals: new Map([
    ["command", "the command line is `cmd`"],
    ["shell", "the command line always runs in the shell's own program"],
    ["login", "the command line never runs as a login shell"],
    ["timeout", "exec_command has no timeout: a program still running after yield_time_ms stays alive for write_stdin"],
    ["env", "a model cannot set the environment; export a variable in cmd"],
    ["stdin", "use tty: true and write_stdin to give a program input"],
  ]),
  validator: execValidator,
  example: '{"cmd": "ls"}',
};

/** What `write_stdin` accepts, and what to say to the inputs other tools have. */
export const WRITE_STDIN_RULES: InputRules<WriteStdinInput> = {
  tool: "write_stdin",
  names: WRITE_NAMES,
  refusals: new Map([
    ["input", "what to type is `chars`"],
    ["text", "what to type is `chars`"],
    ["process_id", "the program's id is `session_id`"],
    ["task_id", "the program's id is `session_id` (task_id is for bash_output and kill_shell)"],
  ]),
  validator: writeValidator,
  example: '{"session_id": 4242, "chars": "y\\n"}',
};
