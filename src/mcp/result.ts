/**
 * A tool's outcome as an MCP tool result: the text as `content`, the
 * outcome's error flag as `isError`, and the same facts as
 * `structuredContent` for a client that reads data rather than text.
 *
 * @module
 */

import type { BashToolOutcome, ToolOutcome } from "../tool/mod.ts";

/** What `tools/call` answers. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError: boolean;
  structuredContent: Record<string, unknown>;
}

/**
 * The MCP result of `outcome`. `structuredContent` holds the text too: some
 * clients show the model the structured result instead of `content`
 * (Codex does, when it is there), and the model must see the same words.
 */
export function toMcpResult(outcome: ToolOutcome | BashToolOutcome): McpToolResult {
  const structured: Record<string, unknown> = { text: outcome.text, isError: outcome.isError };
  if ("taskId" in outcome && outcome.taskId !== undefined) structured.taskId = outcome.taskId;
  if ("result" in outcome && outcome.result !== undefined) {
    const { exitCode, signal, timedOut, aborted } = outcome.result;
    Object.assign(structured, { exitCode, signal, timedOut, aborted });
  }
  return { content: [{ type: "text", text: outcome.text }], isError: outcome.isError, structuredContent: structured };
}
