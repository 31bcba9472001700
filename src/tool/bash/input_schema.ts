/**
 * The tool's input, declared once with zod: the validator that
 * {@linkcode parse} uses and the JSON Schema the model is given are both
 * made from it, so they cannot disagree.
 *
 * @module
 */

import { z } from "zod";
import { DEFAULTS } from "../../seam/defaults.ts";
import { generateInputSchema } from "../shared/json_schema.ts";
import type { BashToolInput, BashToolInputSchema } from "./types.ts";

/** The declared inputs, in the order the schema lists them. */
export const INPUT_NAMES: readonly string[] = Object.freeze([
  "command",
  "description",
  "timeout",
  "workdir",
  "run_in_background",
]);

/** What each input must be: the message of its check and the start of its schema description. */
export const EXPECTED = {
  command: "must be a non-empty string",
  description: "must be a string",
  timeout: "must be a positive, finite number of milliseconds",
  workdir: "must be a non-empty string (a directory path)",
  run_in_background: "must be true or false",
} as const;

/** The validator of the input. Unknown keys are refused (and reported before zod sees them, by `parse`). */
export const inputValidator: z.ZodType<BashToolInput> = z.strictObject({
  command: z.string({
    error: (issue) => issue.input === undefined ? "is required: the bash command line to run" : EXPECTED.command,
  })
    .min(1, { error: EXPECTED.command })
    .describe("The command line, run as `bash -c <command>` in a fresh process. Chain steps with && or ;."),
  description: z.string({ error: EXPECTED.description })
    .describe("What the command does, in 5-10 words, for the user. It does not affect the run.")
    .optional(),
  timeout: z.number({ error: EXPECTED.timeout })
    .positive({ error: EXPECTED.timeout })
    .describe(
      `Timeout in milliseconds (default ${DEFAULTS.timeoutMs}, at most ${DEFAULTS.maxTimeoutMs}; ` +
        "larger values are capped). The whole process tree is killed when it passes. Foreground only.",
    )
    .optional(),
  workdir: z.string({ error: EXPECTED.workdir })
    .min(1, { error: EXPECTED.workdir })
    .describe("Directory to run in: absolute, or relative to the default working directory. Use it instead of cd.")
    .optional(),
  run_in_background: z.boolean({ error: EXPECTED.run_in_background })
    .describe(
      "Start the command as a background task and return its id at once, for servers, watchers and other " +
        "long-running commands. No timeout applies. Do not also end the command with &. " +
        "Read its output with bash_output and stop it with kill_shell.",
    )
    .optional(),
});

/** The input's JSON Schema, handed to the model as the tool's parameters. */
export const inputSchema: BashToolInputSchema = generateInputSchema("bash", inputValidator, INPUT_NAMES, ["command"]);
