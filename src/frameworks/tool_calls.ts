/**
 * What both framework adapters wrap: the five tools of `./tool` (`bash`,
 * `bash_output`, `kill_shell`, `exec_command`, `write_stdin`, as the MCP
 * server offers them), each with the function that runs a call, the owner
 * the harness gives and, when it gives one, the session its `bash` calls
 * share.
 *
 * @module
 */

import type { Shell, ShellSession } from "../seam/types.ts";
import { ShellArgumentError } from "../seam/errors.ts";
import {
  bashOutputTool,
  bashSessionTool,
  bashTool,
  type BashToolContext,
  execCommandTool,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeKillShellTool,
  executeWriteStdinTool,
  killShellTool,
  type ToolInputSchema,
  type ToolOutcomeData,
  toolOutcomeData,
  writeStdinTool,
} from "../tool/mod.ts";

/** The tools' names, in the order the adapters offer them. */
export type FrameworkToolName = "bash" | "bash_output" | "kill_shell" | "exec_command" | "write_stdin";

/** What the adapters take: the owner of the work, and a session of that owner for the `bash` calls to share. */
export interface FrameworkToolOptions {
  /** The owner of everything the calls start (one per conversation or run), or `null` for unowned work. */
  owner: string | null;
  /**
   * A session of `owner` (`shell.session({ owner })`), one per conversation
   * or run: the `bash` calls run in it, so `cd` and `export` carry over to
   * the next call, and the model is told so (`bashSessionTool`'s
   * description). Without it each call is a fresh shell, and the model is
   * told that too. Closing it is the caller's.
   */
  session?: ShellSession;
}

/** One tool: its definition and a call of it, as data. */
export interface ToolCall {
  readonly name: FrameworkToolName;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  run(
    input: unknown,
    signal: AbortSignal | undefined,
    listeners?: Pick<BashToolContext, "onStdout" | "onStderr">,
  ): Promise<ToolOutcomeData>;
}

/**
 * The five tools on `shell` as `options.owner`, `bash` in `options.session`
 * when given. Throws `ShellArgumentError` (a `TypeError`) when `owner` is
 * missing, or when the session is not a session of that owner.
 */
export function toolCalls(shell: Shell, options: FrameworkToolOptions): readonly ToolCall[] {
  const owner = typeof options === "object" && options !== null ? options.owner : undefined;
  if (owner !== null && typeof owner !== "string") {
    throw new ShellArgumentError("owner", "is required (a string, or null for unowned work)");
  }
  const session = options.session;
  if (session !== undefined && (typeof session !== "object" || session === null || session.owner !== owner)) {
    throw new ShellArgumentError(
      "session",
      "must be a ShellSession of the same owner (shell.session({ owner })) or absent",
    );
  }
  const contextOf = (signal: AbortSignal | undefined): BashToolContext =>
    signal === undefined ? { owner } : { owner, signal };
  const bash = session === undefined ? bashTool : bashSessionTool;
  const calls: {
    tool: { name: FrameworkToolName; description: string; inputSchema: ToolInputSchema };
    execute: (shell: Shell, input: unknown, context: BashToolContext) => Promise<Parameters<typeof toolOutcomeData>[0]>;
    session?: boolean;
  }[] = [
    { tool: bash, execute: executeBashTool, session: true },
    { tool: bashOutputTool, execute: executeBashOutputTool },
    { tool: killShellTool, execute: executeKillShellTool },
    { tool: execCommandTool, execute: executeExecCommandTool },
    { tool: writeStdinTool, execute: executeWriteStdinTool },
  ];
  return calls.map(({ tool, execute, session: inSession }) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    run: async (input, signal, listeners) => {
      const context: BashToolContext = { ...contextOf(signal), ...listeners };
      if (inSession === true && session !== undefined) context.session = session;
      return toolOutcomeData(await execute(shell, input, context));
    },
  }));
}
