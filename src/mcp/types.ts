/**
 * The public shapes of the MCP server: which tools it offers, and its
 * options.
 *
 * @module
 */

/**
 * Which tools the server offers: `claude` is `bash`, `bash_output` and
 * `kill_shell` (Claude Code's names); `codex` is `exec_command` and
 * `write_stdin` (Codex's unified exec); `all` (the default) is both.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { createMcpServer, type McpToolSet } from "@dsh/shell/mcp";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const tools: McpToolSet = "codex";
 * const server = createMcpServer(shell, { tools });
 * assert.ok(server);
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
  /**
   * Whether each result carries `structuredContent` (the facts as data:
   * `{ text, isError, taskId?, sessionId?, exitCode?, … }`) and each tool
   * an `outputSchema`. Default `false`: Claude Code and Codex show the
   * model a result's `structuredContent`, serialized as JSON, instead of
   * its text, so by default there is only the text. `true` is for a client
   * that reads data.
   */
  structured?: boolean;
  /**
   * Keep terminal control sequences (colors, cursor moves, OSC titles and
   * clipboard writes, other control characters but `\t`, `\n`, `\r`) in
   * the texts and progress messages. Default `false`: they are removed
   * (the spill files keep the raw bytes).
   */
  keepControlSequences?: boolean;
}

/**
 * A JSON-RPC message of the protocol, as a transport carries it.
 *
 * @example
 * ```ts
 * import type { McpMessage } from "@dsh/shell/mcp";
 * const ping: McpMessage = { jsonrpc: "2.0", id: 1, method: "ping" };
 * console.log(ping.method);
 * ```
 */
export interface McpMessage {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The request's, notification's or response's fields. */
  [field: string]: unknown;
}

/**
 * What carries a connection's messages: any transport of the official SDK
 * (`StdioServerTransport`, `StreamableHTTPServerTransport`,
 * `InMemoryTransport`, …), or one of your own with these methods.
 *
 * @example
 * ```ts
 * import type { McpTransport } from "@dsh/shell/mcp";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * const transport: McpTransport = serverSide;
 * console.log(typeof transport.send);
 * ```
 */
export interface McpTransport {
  /** Starts reading messages. */
  start(): Promise<void>;
  /** Sends one message. */
  send(message: McpMessage, options?: unknown): Promise<void>;
  /** Closes the transport. */
  close(): Promise<void>;
  /** Set by the server: told when the transport closed. */
  onclose?(): void;
  /** Set by the server: told of a transport error. */
  onerror?(error: Error): void;
  /** Set by the server: told of each message received. */
  onmessage?(message: McpMessage, extra?: unknown): void;
}

/**
 * One connection's MCP server, as {@linkcode createMcpServer} returns it:
 * the official SDK's `Server`, seen through what a caller does with it.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { createMcpServer, type McpServer } from "@dsh/shell/mcp";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * await using shell = createLocalShell();
 * const server: McpServer = createMcpServer(shell);
 * const [, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * await server.close(); // the connection's calls are aborted, its background tasks killed
 * ```
 */
export interface McpServer {
  /** Serves the connection on `transport` (started here); one transport per server. */
  connect(transport: McpTransport): Promise<void>;
  /** Ends the connection: its calls in flight are aborted and its background tasks killed. */
  close(): Promise<void>;
}
