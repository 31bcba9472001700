/**
 * `createMcpServer`: the tools of `./tool` as a Model Context Protocol
 * server, on the official TypeScript SDK's `Server`.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server";
// Deno does not find the types of the package's wildcard exports (`./*.js`); tsc does. The same file, named for Deno.
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULTS } from "../seam/defaults.ts";
import { VERSION } from "../version.ts";
import { ShellSpecError } from "../seam/errors.ts";
import { ownValue } from "../seam/own_fields.ts";
import type { Shell } from "../seam/types.ts";
import { McpConnection } from "./connection.ts";
import { progressListeners } from "./progress.ts";
import { OUTCOME_OUTPUT_SCHEMA, toMcpResult } from "./result.ts";
import { toolsOf } from "./tools.ts";
import type { McpServer, McpServerOptions } from "./types.ts";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** What the server says it is in `initialize` (the package's version). */
export const SERVER_INFO: { readonly name: string; readonly version: string } = Object.freeze({
  name: "dsh-shell",
  version: VERSION,
});

/**
 * Builds an MCP server for ONE connection on `shell`: connect it to one
 * transport (`server.connect(transport)`); for another connection, build
 * another. It offers the tools of `options.tools` (`bash`, `bash_output`,
 * `kill_shell`) with the very names, descriptions, input schemas and texts
 * of `@dsh/shell/tool` (`bash` is `bashSessionTool`: the connection's calls
 * share a session, and its description says that `cd` and `export` carry
 * over), and answers each `tools/call` with the text as
 * `content` and the tool's outcome as `isError` (a nonzero exit, a timeout,
 * a refused input); with `structured: true`, also the same facts as
 * `structuredContent` (and an `outputSchema` for each tool).
 *
 * - Every call of the connection runs as one owner (`options.owner`, by
 *   default a new `mcp-<uuid>`): its background tasks are out of reach of
 *   every other connection.
 * - A `notifications/cancelled` for a running `bash` call aborts its
 *   command: the command's whole process group is killed.
 * - A call with a `progressToken` gets its output as `notifications/progress`
 *   (the text as `message`, the bytes so far as `progress`), bounded as the
 *   result is: of each stream its head, then, before the answer, a note of
 *   what was left out and its tail; at most one every 100 ms.
 * - When the connection closes (`server.close()`, or the transport ends),
 *   its calls in flight are aborted and its background tasks killed. The
 *   shell stays open; closing it is the caller's.
 *
 * Throws `ShellSpecError` naming the field for an invalid option.
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
 * const server = createMcpServer(shell, { owner: "connection-1" });
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assert.deepEqual(tools.map((tool) => tool.name), [
 *   ...["bash", "bash_output", "kill_shell", "Read", "Write", "Edit"],
 *   ...["exec_command", "write_stdin", "apply_patch"],
 * ]);
 * const result = await client.callTool({ name: "bash", arguments: { command: "echo hi; exit 3" } });
 * assert.deepEqual(result.content, [{ type: "text", text: "hi\n[exit code: 3]" }]);
 * assert.equal(result.isError, true);
 * await client.close();
 * ```
 */
export function createMcpServer(shell: Shell, options: McpServerOptions = {}): McpServer {
  const server = buildServer(shell, options);
  return {
    // The SDK's Transport and McpTransport describe the same objects; only the message type is named more loosely.
    connect: (transport) => server.connect(transport as unknown as Transport),
    close: () => server.close(),
  };
}

/** The SDK's server for one connection: {@linkcode createMcpServer}'s, for the modules here that need all of it. */
export function buildServer(shell: Shell, options: McpServerOptions = {}): Server {
  const {
    owner = `mcp-${randomUUID()}`,
    tools: set = "all",
    openWorld = true,
    structured = false,
    keepControlSequences = false,
  } = checkOptions(options);
  const tools = toolsOf(set);
  const connection = new McpConnection(shell, owner, keepControlSequences);
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  const listed: ListToolsResult = {
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.annotations(openWorld).title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations(openWorld),
      ...(structured ? { outputSchema: OUTCOME_OUTPUT_SCHEMA } : {}),
    })),
  };
  server.setRequestHandler(ListToolsRequestSchema, () => listed);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((tool) => tool.name === request.params.name);
    if (tool === undefined) {
      // The error's message goes out as is, and the client's McpError puts "MCP error -32602: " in front of it: an
      // McpError here would put it there too, and the client would show it twice.
      throw Object.assign(new Error(`unknown tool ${JSON.stringify(request.params.name)}`), {
        code: ErrorCode.InvalidParams,
      });
    }
    const token = request.params._meta?.progressToken;
    const progress = token === undefined
      ? undefined
      : progressListeners(token, outputBudget(shell), keepControlSequences, (note) => extra.sendNotification(note));
    try {
      const outcome = await tool.run(connection, request.params.arguments ?? {}, {
        signal: extra.signal,
        ...progress?.listeners,
      });
      return toMcpResult(outcome, structured);
    } finally {
      // The last notification (the tails) goes before the answer: none may follow it.
      await progress?.end();
    }
  });
  server.onclose = () => void connection.close();
  connections.set(server, connection);
  return server;
}

// Each server's connection, for the transports here that must wait until a connection's work has ended.
const connections = new WeakMap<Server, McpConnection>();

/** Ends `server`'s connection (its calls aborted, its tasks killed) and resolves once that work has ended. */
export function endConnection(server: Server): Promise<void> {
  return connections.get(server)?.close() ?? Promise.resolve();
}

/** What a call's result keeps of each stream: the shell's `maxOutputBytes`, as its `resolve()` fills it in. */
function outputBudget(shell: Shell): number {
  try {
    return shell.resolve({ command: "true", owner: null }).stdoutMaxBytes;
  } catch {
    // A shell that can no longer resolve (closed) runs nothing either: the default bounds what little may come.
    return DEFAULTS.maxOutputBytes;
  }
}

/** The options, own properties only, checked; throws `ShellSpecError` naming the field. */
function checkOptions(options: McpServerOptions): McpServerOptions {
  if (typeof options !== "object" || options === null) throw new ShellSpecError("options", "must be an object");
  const owner = ownValue(options, "owner");
  const tools = ownValue(options, "tools");
  const openWorld = ownValue(options, "openWorld");
  const structured = ownValue(options, "structured");
  const keepControlSequences = ownValue(options, "keepControlSequences");
  if (owner !== undefined && (typeof owner !== "string" || owner === "")) {
    throw new ShellSpecError("owner", "must be a non-empty string");
  }
  if (openWorld !== undefined && typeof openWorld !== "boolean") {
    throw new ShellSpecError("openWorld", "must be a boolean");
  }
  if (structured !== undefined && typeof structured !== "boolean") {
    throw new ShellSpecError("structured", "must be a boolean");
  }
  if (keepControlSequences !== undefined && typeof keepControlSequences !== "boolean") {
    throw new ShellSpecError("keepControlSequences", "must be a boolean");
  }
  return {
    ...(owner === undefined ? {} : { owner }),
    ...(tools === undefined ? {} : { tools }),
    openWorld,
    structured,
    keepControlSequences,
  };
}
