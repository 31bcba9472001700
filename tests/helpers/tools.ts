/**
 * What the tests of the model-facing tools share: the check of a refused
 * input, and one `bash_output` call as an owner.
 */

import assert from "node:assert/strict";
import type { Shell } from "../../mod.ts";
import { executeBashOutputTool, ToolInputError, type ToolOutcome } from "../../src/tool/mod.ts";

/** Asserts that `error` is a ToolInputError whose field is `field` and whose message names it. */
export function assertToolInputRefused(error: unknown, field: string): asserts error is ToolInputError {
  assert.ok(error instanceof ToolInputError, `expected a ToolInputError, got ${String(error)}`);
  assert.equal(error.name, "ToolInputError");
  assert.equal(error.field, field);
  assert.ok(error.message.includes(field), `the message ${JSON.stringify(error.message)} names ${field}`);
}

/**
 * {@linkcode assertToolInputRefused}, and the error's deprecated 1.0 name
 * of the field, `key`, says the same.
 */
export function assertToolInputRefusedWithKey(error: unknown, key: string): asserts error is ToolInputError {
  assertToolInputRefused(error, key);
  assert.equal(error.key, key, "the deprecated 1.0 name still works");
}

/** One `bash_output` call for `taskId`, as `owner`. */
export function readOutput(shell: Shell, taskId: string, owner: string | null): Promise<ToolOutcome> {
  return executeBashOutputTool(shell, { task_id: taskId }, { owner });
}
