/**
 * A tool's outcome as an MCP tool result: the text as `content`, the
 * outcome's error flag as `isError`, and the same facts as
 * `structuredContent` for a client that reads data rather than text.
 *
 * @module
 */

import { type BashToolOutcome, type ToolOutcome, type ToolOutcomeData, toolOutcomeData } from "../tool/mod.ts";

/**
 * What `tools/call` answers: the text as one text block, the tool's
 * outcome as `isError`, and {@linkcode ToolOutcomeData} as
 * `structuredContent`.
 *
 * @example
 * ```ts
 * import type { McpToolResult } from "@dsh/shell/mcp";
 * import assert from "node:assert/strict";
 * const result: McpToolResult = {
 *   content: [{ type: "text", text: "hi" }],
 *   isError: false,
 *   structuredContent: { text: "hi", isError: false, exitCode: 0, signal: null, timedOut: false, aborted: false },
 * };
 * assert.equal(result.structuredContent.text, result.content[0].text);
 * ```
 */
export interface McpToolResult {
  /** Any other field (none today): the index signature makes it a JSON object for the SDKs. */
  [key: string]: unknown;
  /** The text, as one block. */
  content: { type: "text"; text: string }[];
  /** The tool's outcome. */
  isError: boolean;
  /** The same facts as data; its `text` is the block's. */
  structuredContent: ToolOutcomeData;
}

/**
 * The MCP result of `outcome`. `structuredContent` holds the text too:
 * clients show the model the structured result instead of `content`
 * (Claude Code 2.1.328 and Codex 0.169.0 do, `tests/mcp_clients.test.ts`),
 * and the model must see the same words.
 */
export function toMcpResult(outcome: ToolOutcome | BashToolOutcome): McpToolResult {
  return {
    content: [{ type: "text", text: outcome.text }],
    isError: outcome.isError,
    structuredContent: toolOutcomeData(outcome),
  };
}
