/**
 * The public shapes of the MCP server: which tools it offers, and its
 * options.
 *
 * @module
 */

/**
 * Which tools the server offers: `claude` is `bash`, `bash_output` and
 * `kill_shell` (Claude Code's names); `codex` is `exec_command` and
 * `write_stdin` (Codex's unified exec), not built yet, so asking for it is
 * refused; `all` (the default) is every set that is built.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { createMcpServer, type McpToolSet } from "@dsh/shell/mcp";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools: McpToolSet = "codex";
 * assert.throws(() => createMcpServer(shell, { tools }), /not built yet/);
 * ```
 */
export type McpToolSet = "claude" | "codex" | "all";

/**
 * How {@linkcode createMcpServer} sets up one connection's server.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { createMcpServer, type McpServerOptions } from "@dsh/shell/mcp";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const options: McpServerOptions = { owner: "editor-window-3", tools: "claude", openWorld: false };
 * const server = createMcpServer(shell, options);
 * assert.equal(typeof server.connect, "function");
 * ```
 */
export interface McpServerOptions {
  /**
   * The owner of everything the connection's calls start (default: a new
   * `mcp-<uuid>` for each server). Tasks of another owner are unreachable
   * from this connection, and those of this one from every other.
   */
  owner?: string;
  /** The tools offered (default `"all"`). */
  tools?: McpToolSet;
  /**
   * Whether the shell's commands can reach the world outside this machine
   * (the network, another host): the `openWorldHint` of the `bash` tool.
   * Default `true`; `false` is honest for a sandbox with network `"none"`.
   */
  openWorld?: boolean;
}
