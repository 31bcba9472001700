/**
 * The tools the MCP server offers, by set: each is a `./tool` definition
 * (name, description, input schema: the very objects, not copies), its
 * MCP annotations, and the connection's method that runs it.
 *
 * @module
 */

import { ShellSpecError } from "../seam/errors.ts";
import {
  bashOutputTool,
  bashTool,
  type BashToolOutcome,
  killShellTool,
  type ToolInputSchema,
  type ToolOutcome,
} from "../tool/mod.ts";
import type { CallContext, McpConnection } from "./connection.ts";
import type { McpToolSet } from "./types.ts";

/** The MCP tool annotations (protocol revision 2025-06-18): hints for the client, never guarantees. */
export interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** One tool of the server. */
export interface McpToolEntry {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  /** The annotations, given whether the shell's commands can reach the world outside (the network, another host). */
  annotations(openWorld: boolean): McpToolAnnotations;
  run(connection: McpConnection, input: unknown, call: CallContext): Promise<ToolOutcome | BashToolOutcome>;
}

const BASH: McpToolEntry = {
  name: bashTool.name,
  description: bashTool.description,
  inputSchema: bashTool.inputSchema,
  // A command line can do anything the shell may: change and delete files, start and end processes; running it
  // twice may do it twice. Whether it reaches the world outside depends on the shell (sandbox network, engine).
  annotations: (openWorld) => ({
    title: "Bash",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: openWorld,
  }),
  run: (connection, input, call) => connection.bash(input, call),
};

const BASH_OUTPUT: McpToolEntry = {
  name: bashOutputTool.name,
  description: bashOutputTool.description,
  inputSchema: bashOutputTool.inputSchema,
  // It reads what a task printed and its status: nothing outside is changed (the read only moves its own cursor,
  // so a second call answers differently: not idempotent, which the protocol asks only of tools that write).
  annotations: () => ({ title: "Background task output", readOnlyHint: true, openWorldHint: false }),
  run: (connection, input, call) => connection.bashOutput(input, call),
};

const KILL_SHELL: McpToolEntry = {
  name: killShellTool.name,
  description: killShellTool.description,
  inputSchema: killShellTool.inputSchema,
  // It ends processes (destructive); killing the same task again changes nothing more (idempotent).
  annotations: () => ({
    title: "Kill background task",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  }),
  run: (connection, input, call) => connection.killShell(input, call),
};

/**
 * The tools of each set, or `undefined` for a set whose tools are not built
 * yet. When `exec_command` and `write_stdin` land, the `codex` line lists
 * their entries and nothing else changes.
 */
const TOOL_SETS: Readonly<Record<Exclude<McpToolSet, "all">, readonly McpToolEntry[] | undefined>> = {
  claude: [BASH, BASH_OUTPUT, KILL_SHELL],
  codex: undefined,
};

/** The names of a set's tools, for the message when they are missing. */
const SET_TOOL_NAMES: Readonly<Record<Exclude<McpToolSet, "all">, string>> = {
  claude: "bash, bash_output, kill_shell",
  codex: "exec_command, write_stdin",
};

/**
 * The tools of `set`. `all` is every set that is built. Throws
 * `ShellSpecError` (field `tools`) for an unknown set and for a set whose
 * tools are not built yet.
 */
export function toolsOf(set: McpToolSet): readonly McpToolEntry[] {
  if (set === "all") return Object.values(TOOL_SETS).flatMap((tools) => tools ?? []);
  if (!Object.hasOwn(TOOL_SETS, set)) {
    throw new ShellSpecError("tools", `must be "claude", "codex" or "all", got ${JSON.stringify(set)}`);
  }
  const tools = TOOL_SETS[set];
  if (tools === undefined) {
    throw new ShellSpecError("tools", `the ${set} tools (${SET_TOOL_NAMES[set]}) are not built yet; use "claude"`);
  }
  return tools;
}
