/**
 * The shell as a Model Context Protocol server, for any agent that takes
 * MCP servers (Claude Code, Codex, Gemini CLI, Cursor, the SDKs): the
 * tools of `@dsh/shell/tool` (`bash`, `bash_output`, `kill_shell`), with
 * their names, schemas and texts, built on the official TypeScript SDK
 * (`@modelcontextprotocol/sdk`). One server is one connection and one
 * owner. `dsh-shell mcp` serves it over stdio, and `dsh-shell mcp --http`
 * ({@linkcode serveHttp}) over Streamable HTTP; see `docs/mcp.md`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { createMcpServer } from "@dsh/shell/mcp";
 * import { Client } from "@modelcontextprotocol/sdk/client";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import assert from "node:assert/strict";
 *
 * await using shell = createLocalShell();
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await createMcpServer(shell).connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * const result = await client.callTool({ name: "bash", arguments: { command: "echo hello" } });
 * // The model reads the text itself: no structuredContent unless createMcpServer(shell, { structured: true }).
 * assert.deepEqual(result, { content: [{ type: "text", text: "hello" }], isError: false });
 * await client.close();
 * ```
 *
 * @module
 */

export { createMcpServer, SERVER_INFO } from "./server.ts";
export { serveStdio, type StdioServeOptions } from "./stdio.ts";
export { type HttpServeOptions, type McpHttpServer, serveHttp } from "./http.ts";
export type { McpMessage, McpServer, McpServerOptions, McpToolSet, McpTransport } from "./types.ts";
export type { McpToolResult } from "./result.ts";
