/**
 * The tools the MCP server offers, by set: each is a `./tool` definition
 * (name, description, input schema: the very objects, not copies), its
 * MCP annotations, and the connection's method that runs it.
 *
 * @module
 */

import { ShellSpecError } from "../seam/errors.ts";
import {
  applyPatchTool,
  bashOutputTool,
  bashSessionTool,
  type BashToolOutcome,
  editTool,
  execCommandTool,
  executeApplyPatchTool,
  executeEditTool,
  executeReadTool,
  executeWriteTool,
  killShellTool,
  readTool,
  type ToolInputSchema,
  type ToolOutcome,
  type UnifiedExecOutcome,
  writeStdinTool,
  writeTool,
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
  run(
    connection: McpConnection,
    input: unknown,
    call: CallContext,
  ): Promise<ToolOutcome | BashToolOutcome | UnifiedExecOutcome>;
}

/** What a tool definition of `./tool` gives an entry: the very objects, not copies. */
type Definition = Pick<McpToolEntry, "name" | "description" | "inputSchema">;

/**
 * The annotations of a tool that runs a command line's effects (`bash`,
 * `exec_command`, `write_stdin`): it can do anything the shell may — change
 * and delete files, start and end processes — and twice may do it twice;
 * whether it reaches the world outside depends on the shell (its sandbox's
 * network, the engine).
 */
function runsCommands(title: string): McpToolEntry["annotations"] {
  return (openWorld) => ({
    title,
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: openWorld,
  });
}

function entry(
  { name, description, inputSchema }: Definition,
  annotations: McpToolEntry["annotations"],
  run: McpToolEntry["run"],
): McpToolEntry {
  return { name, description, inputSchema, annotations, run };
}

// The connection's bash calls share its session: the description that says cd and export carry over.
const BASH = entry(bashSessionTool, runsCommands("Bash"), (connection, input, call) => connection.bash(input, call));

// It reads what a task printed and its status: nothing outside is changed (the read only moves its own cursor, so a
// second call answers differently: not idempotent, which the protocol asks only of tools that write).
const BASH_OUTPUT = entry(
  bashOutputTool,
  () => ({ title: "Background task output", readOnlyHint: true, openWorldHint: false }),
  (connection, input, call) => connection.bashOutput(input, call),
);

// It ends processes (destructive); killing the same task again changes nothing more (idempotent).
const KILL_SHELL = entry(
  killShellTool,
  () => ({
    title: "Kill background task",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  }),
  (connection, input, call) => connection.killShell(input, call),
);

// Like bash, and it may leave a program running.
const EXEC_COMMAND = entry(
  execCommandTool,
  runsCommands("Exec command"),
  (connection, input, call) => connection.execCommand(input, call),
);

// What is typed into a program is the program's to act on: anything it may do (an empty poll only reads).
const WRITE_STDIN = entry(
  writeStdinTool,
  runsCommands("Write to a running program"),
  (connection, input, call) => connection.writeStdin(input, call),
);

// The file tools: reading changes nothing; a write or an edit may change a file, and again changes nothing more (the
// same content; an edit's text is no longer there to match). A patch's second run fails or changes again: not
// idempotent. None reaches the world outside the shell's files.
const READ = entry(
  readTool,
  () => ({ title: "Read file", readOnlyHint: true, openWorldHint: false }),
  (connection, input, call) => connection.file(executeReadTool, input, call),
);
const writesFiles = (title: string, idempotentHint: boolean): McpToolEntry["annotations"] => () => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint,
  openWorldHint: false,
});
const WRITE = entry(
  writeTool,
  writesFiles("Write file", true),
  (connection, input, call) => connection.file(executeWriteTool, input, call),
);
const EDIT = entry(
  editTool,
  writesFiles("Edit file", false),
  (connection, input, call) => connection.file(executeEditTool, input, call),
);
const APPLY_PATCH = entry(
  applyPatchTool,
  writesFiles("Apply patch", false),
  (connection, input, call) => connection.file(executeApplyPatchTool, input, call),
);

/** The tools of each set: `claude` as Claude Code names them, `codex` as Codex's unified exec does. */
const TOOL_SETS: Readonly<Record<Exclude<McpToolSet, "all">, readonly McpToolEntry[]>> = {
  claude: [BASH, BASH_OUTPUT, KILL_SHELL, READ, WRITE, EDIT],
  codex: [EXEC_COMMAND, WRITE_STDIN, APPLY_PATCH],
};

/** The tools of `set` (`all`: both sets). Throws `ShellSpecError` (field `tools`) for an unknown set. */
export function toolsOf(set: McpToolSet): readonly McpToolEntry[] {
  if (set === "all") return Object.values(TOOL_SETS).flat();
  if (!Object.hasOwn(TOOL_SETS, set)) {
    throw new ShellSpecError("tools", `must be "claude", "codex" or "all", got ${JSON.stringify(set)}`);
  }
  return TOOL_SETS[set];
}
