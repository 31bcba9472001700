/**
 * `serveStdio`: one MCP connection over this process's stdin and stdout,
 * for as long as the client keeps stdin open.
 *
 * @module
 */

import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Shell } from "../seam/types.ts";
import { buildServer } from "./server.ts";
import type { McpServerOptions } from "./types.ts";

/**
 * {@linkcode McpServerOptions}, and what ends the connection besides the
 * end of stdin.
 *
 * @example
 * ```ts
 * import type { StdioServeOptions } from "@dsh/shell/mcp";
 * const stop = new AbortController();
 * const options: StdioServeOptions = { tools: "claude", openWorld: false, signal: stop.signal };
 * console.log(options.tools);
 * ```
 */
export interface StdioServeOptions extends McpServerOptions {
  /** Ends the connection when aborted (the CLI aborts it on SIGTERM). */
  signal?: AbortSignal;
}

/**
 * Serves one MCP connection ({@linkcode createMcpServer}) over
 * `process.stdin` and `process.stdout`, and resolves once it has ended:
 * the client closed stdin, or `options.signal` aborted. By then the
 * connection's calls are aborted and its background tasks are being killed.
 * The shell stays open: close it next (`close()` resolves once nothing it
 * started is left running).
 * Nothing but protocol messages is written to stdout.
 *
 * @example
 * ```ts ignore
 * import { createLocalShell } from "@dsh/shell";
 * import { serveStdio } from "@dsh/shell/mcp";
 * await using shell = createLocalShell({ sandbox: { network: "none" } });
 * await serveStdio(shell); // until the client closes stdin
 * ```
 */
export async function serveStdio(shell: Shell, options: StdioServeOptions = {}): Promise<void> {
  const { signal, ...serverOptions } = options;
  const server = buildServer(shell, serverOptions);
  let end = (): void => {};
  const ended = new Promise<void>((resolve) => end = resolve);
  process.stdin.once("end", end);
  process.stdin.once("close", end);
  signal?.addEventListener("abort", end, { once: true });
  try {
    if (signal?.aborted) return;
    await server.connect(new StdioServerTransport());
    await ended;
    await server.close();
  } finally {
    process.stdin.off("end", end);
    process.stdin.off("close", end);
    signal?.removeEventListener("abort", end);
  }
}
