/**
 * The input of `bash_output` and `kill_shell`, declared once with zod:
 * `{ task_id }`, the id the bash tool gave when it started a background
 * task. The validator, the JSON Schema and the check of a call are made
 * from it, for both tools.
 *
 * @module
 */

import { z } from "zod";
import type { InputRules } from "../shared/check_input.ts";
import { generateInputSchema } from "../shared/json_schema.ts";
import type { TaskIdInput } from "./task_types.ts";
import type { ToolInputSchema } from "../shared/types.ts";

/** The one declared input. */
const NAMES: readonly string[] = Object.freeze(["task_id"]);

const EXPECTED = "must be a non-empty string: the id from `started background task <id>`";

const validator: z.ZodType<TaskIdInput> = z.strictObject({
  task_id: z.string({
    error: (issue) => issue.input === undefined ? "is required: the id from `started background task <id>`" : EXPECTED,
  })
    .min(1, { error: EXPECTED })
    .describe("The id of a background task, from the bash tool's `started background task <id>`."),
});

/** Other harnesses' names for the id, and what to say to them. */
const ID_REFUSALS: readonly [string, string][] = ["bash_id", "shell_id", "id", "taskId", "task", "pid"].map((key) => [
  key,
  "the id of the background task is `task_id`",
]);

/** The JSON Schema of `{ task_id }`, frozen; the same object for both tools. */
export const taskIdInputSchema: ToolInputSchema = generateInputSchema("bash_output and kill_shell", validator, NAMES, [
  "task_id",
]);

/**
 * The input rules of the task tool `tool`: `{ task_id }`, with `refusals`
 * adding what that tool says about keys a model is likely to try. A check
 * with them (`checkInput`) throws `ToolInputError` naming the key: an
 * unknown key, a missing or empty `task_id`, one that is not a string.
 */
export function taskIdRules(tool: string, refusals: readonly [string, string][]): InputRules<TaskIdInput> {
  return {
    tool,
    names: NAMES,
    refusals: new Map([...ID_REFUSALS, ...refusals]),
    validator,
    example: '{"task_id": "t1ae911cad4"}',
  };
}
