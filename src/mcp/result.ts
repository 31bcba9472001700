/**
 * A tool's outcome as an MCP tool result: the text as `content`, the
 * outcome's error flag as `isError`, and, when the server was asked for it
 * (`structured: true`), the same facts as `structuredContent`.
 *
 * @module
 */

import {
  type BashToolOutcome,
  type ToolOutcome,
  type ToolOutcomeData,
  toolOutcomeData,
  type UnifiedExecOutcome,
} from "../tool/mod.ts";

/**
 * What `tools/call` answers: the text as one text block and the tool's
 * outcome as `isError`; {@linkcode ToolOutcomeData} as `structuredContent`
 * only from a server made with `structured: true`.
 *
 * @example
 * ```ts
 * import type { McpToolResult } from "@dsh/shell/mcp";
 * import assert from "node:assert/strict";
 * const result: McpToolResult = { content: [{ type: "text", text: "hi" }], isError: false };
 * assert.equal(result.structuredContent, undefined); // the default: the model reads the text itself
 * ```
 */
export interface McpToolResult {
  /** Any other field (none today): the index signature makes it a JSON object for the SDKs. */
  [key: string]: unknown;
  /** The text, as one block. */
  content: { type: "text"; text: string }[];
  /** The tool's outcome. */
  isError: boolean;
  /** The same facts as data (its `text` is the block's); only with `structured: true`. */
  structuredContent?: ToolOutcomeData;
}

/**
 * The `outputSchema` of every tool of a server made with `structured:
 * true`: the shape of {@linkcode ToolOutcomeData}. Without `structured`
 * no tool has one, since a client that sees one may show the model the
 * serialized data instead of the text.
 */
export const OUTCOME_OUTPUT_SCHEMA: {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
} = {
  type: "object",
  properties: {
    text: { type: "string" },
    isError: { type: "boolean" },
    taskId: { type: "string" },
    sessionId: { type: "integer" },
    exitCode: { type: ["integer", "null"] },
    signal: { type: ["string", "null"] },
    timedOut: { type: "boolean" },
    aborted: { type: "boolean" },
  },
  required: ["text", "isError"],
};

/**
 * The MCP result of `outcome`: the text and `isError`, and with
 * `structured` the facts as `structuredContent` too. Claude Code 2.1.328
 * and Codex 0.169.0 show the model a result's `structuredContent`
 * (serialized) instead of its text when it has one
 * (`tests/mcp_clients.test.ts`), so by default it has none.
 */
export function toMcpResult(
  outcome: ToolOutcome | BashToolOutcome | UnifiedExecOutcome,
  structured: boolean,
): McpToolResult {
  const result: McpToolResult = { content: [{ type: "text", text: outcome.text }], isError: outcome.isError };
  if (structured) result.structuredContent = toolOutcomeData(outcome);
  return result;
}
