/**
 * MCP clients for the tests: the official SDK's `Client`, over stdio to a
 * `dsh-shell mcp` subprocess, or in memory to a server of this process.
 *
 * Over stdio the transport is a small one of the tests' own, on the SDK's
 * own framing (`ReadBuffer`, `serializeMessage`): the SDK's
 * `StdioClientTransport` hides the child's stdin and, on `close()`, sends
 * SIGTERM two seconds after closing stdin, so a test could not tell which
 * of the two ended the server.
 *
 * Nothing here imports the library.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import assert from "node:assert/strict";
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client";
// Deno does not find the types of the SDK's wildcard exports; the same files, named for it.
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { cliCommand } from "./cli.ts";

/**
 * The nine tools the MCP server offers by default, in the order it lists
 * them: the bash set (the bash tool, its task companions and the file
 * tools), then the codex set.
 */
export const MCP_TOOL_NAMES: readonly string[] = Object.freeze([
  "bash",
  "bash_output",
  "kill_shell",
  "Read",
  "Write",
  "Edit",
  "exec_command",
  "write_stdin",
  "apply_patch",
]);

/** How the server process ended. */
export interface ServerExit {
  code: number | null;
  signal: string | null;
}

/** A client connected to a `dsh-shell mcp` subprocess, and the subprocess. */
export interface StdioConnection {
  readonly client: Client;
  readonly child: ChildProcessWithoutNullStreams;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Resolves once the server has exited. */
  readonly exited: Promise<ServerExit>;
}

/** The client's end of a child's stdin and stdout. */
class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #buffer = new ReadBuffer();

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
  }

  start(): Promise<void> {
    this.#child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    this.#child.once("close", () => this.onclose?.());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => this.#child.stdin.write(serializeMessage(message), () => resolve()));
  }

  /** Closes the server's stdin, and nothing else. */
  close(): Promise<void> {
    this.#child.stdin.end();
    return Promise.resolve();
  }
}

/** Spawns `dsh-shell mcp args…` in `cwd` and connects the SDK's client to it over its stdin and stdout. */
export async function connectStdio(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<StdioConnection> {
  const { command, args: argv } = cliCommand(["mcp", ...args]);
  const child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: "pipe" });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr += chunk);
  const exited = new Promise<ServerExit>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const client = new Client({ name: "dsh-tests", version: "1.0.0" });
  await client.connect(new ChildTransport(child));
  return { client, child, stderr: () => stderr, exited };
}

/** A client connected in memory to `server` (anything with the SDK server's `connect`). */
export async function connectInMemory(
  server: { connect(transport: InMemoryTransport): Promise<void> },
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "dsh-tests", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** The text of a tool call's result: its one content block, which must be text. */
export function textOf(result: Record<string, unknown>): string {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0].type, "text");
  return content[0].text;
}

/** The task id a `bash` call's result names in its first line, "started background task <id>". */
export function taskIdOf(result: Record<string, unknown>): string {
  const match = /^started background task (\S+)/.exec(textOf(result));
  assert.ok(match, textOf(result));
  return match[1];
}
