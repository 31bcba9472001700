/**
 * A tool's outcome as plain JSON data, for a client that reads data rather
 * than text (MCP `structuredContent`, a framework tool's output).
 *
 * @module
 */

import type { BashToolOutcome } from "./bash/types.ts";
import type { ToolOutcome } from "./shared/types.ts";
import type { UnifiedExecOutcome } from "./unified_exec/types.ts";

/**
 * A tool outcome as JSON: its text and error flag, and for the bash tool
 * the started task's id or how the foreground command ended.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashTool, type ToolOutcomeData, toolOutcomeData } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const data: ToolOutcomeData = toolOutcomeData(await executeBashTool(shell, { command: "exit 2" }, { owner: null }));
 * assert.deepEqual(data, {
 *   text: "(no output)\n[exit code: 2]",
 *   isError: true,
 *   exitCode: 2,
 *   signal: null,
 *   timedOut: false,
 *   aborted: false,
 * });
 * ```
 */
export interface ToolOutcomeData {
  /** Any other field (none today): the index signature makes it a JSON object for the SDKs. */
  [key: string]: unknown;
  /** The text the model is shown. */
  text: string;
  /** The outcome's `isError`. */
  isError: boolean;
  /** The started background task's id (bash, `run_in_background`). */
  taskId?: string;
  /** How the foreground command ended (bash): its exit code, or null when a signal ended it. */
  exitCode?: number | null;
  /** The signal that ended it, or null. */
  signal?: string | null;
  /** Whether its timeout ended it. */
  timedOut?: boolean;
  /** Whether the call's signal (a cancellation) ended it. */
  aborted?: boolean;
  /** The running program's id for `write_stdin` (`exec_command`, `write_stdin`). */
  sessionId?: number;
}

/**
 * The outcome of any of the three tools as {@linkcode ToolOutcomeData}:
 * the same words as the text, so a client that shows the model the data
 * instead of the text shows the same.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeBashOutputTool, toolOutcomeData } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const outcome = await executeBashOutputTool(shell, { task_id: "t0" }, { owner: "session-7" });
 * assert.deepEqual(toolOutcomeData(outcome), { text: outcome.text, isError: true });
 * ```
 */
export function toolOutcomeData(outcome: ToolOutcome | BashToolOutcome | UnifiedExecOutcome): ToolOutcomeData {
  const data: ToolOutcomeData = { text: outcome.text, isError: outcome.isError };
  if ("sessionId" in outcome && outcome.sessionId !== undefined) data.sessionId = outcome.sessionId;
  if ("exitCode" in outcome && outcome.exitCode !== undefined) data.exitCode = outcome.exitCode;
  if ("taskId" in outcome && outcome.taskId !== undefined) data.taskId = outcome.taskId;
  if ("result" in outcome && outcome.result !== undefined) {
    const { exitCode, signal, timedOut, aborted } = outcome.result;
    Object.assign(data, { exitCode, signal, timedOut, aborted });
  }
  return data;
}
