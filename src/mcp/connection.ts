/**
 * One MCP connection's side of the shell: its owner, and the one place its
 * tool calls are run.
 *
 * @module
 */

import type { Shell, ShellSession } from "../seam/types.ts";
import {
  type BashToolContext,
  type BashToolOutcome,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeKillShellTool,
  executeWriteStdinTool,
  type ToolOutcome,
  type UnifiedExecOutcome,
} from "../tool/mod.ts";

/** What a tool call brings besides its input: its cancellation and its output listeners (for progress). */
export type CallContext = Omit<BashToolContext, "owner">;

/** How a file tool of `./tool` runs: `executeReadTool` and its siblings. */
export type FileToolRun = (shell: Shell, input: unknown, context: BashToolContext) => Promise<ToolOutcome>;

/**
 * A connection: one owner for everything its calls start, and the place
 * where each tool runs. Every call of the connection goes through here, so
 * what the calls share (the owner; the session its `bash` calls run in, so
 * that `cd` and `export` carry over as in Claude Code's Bash tool) is
 * decided in this one class.
 */
export class McpConnection {
  /** The owner of every task the connection's calls start; no other connection reaches them. */
  readonly owner: string;
  readonly #shell: Shell;
  readonly #closing = new AbortController();
  readonly #session: ShellSession;
  readonly #keepControl: boolean;

  /**
   * @param shell The shell the calls run on (not closed by the connection: that is its creator's).
   * @param owner The connection's owner.
   * @param keepControl Whether the texts keep terminal control sequences.
   */
  constructor(shell: Shell, owner: string, keepControl = false) {
    this.#shell = shell;
    this.owner = owner;
    this.#keepControl = keepControl;
    this.#session = shell.session({ owner });
  }

  /**
   * The one place a `bash` call runs. The call's signal and the
   * connection's end both abort it.
   */
  bash(input: unknown, call: CallContext): Promise<BashToolOutcome> {
    return executeBashTool(this.#shell, input, { ...this.#context(call), session: this.#session });
  }

  /** An `exec_command` call, as this connection's owner: a program left running is this owner's. */
  execCommand(input: unknown, call: CallContext): Promise<UnifiedExecOutcome> {
    return executeExecCommandTool(this.#shell, input, this.#context(call));
  }

  /** A `write_stdin` call, as this connection's owner. */
  writeStdin(input: unknown, call: CallContext): Promise<UnifiedExecOutcome> {
    return executeWriteStdinTool(this.#shell, input, this.#context(call));
  }

  /** A `bash_output` call, as this connection's owner. */
  bashOutput(input: unknown, call: CallContext): Promise<ToolOutcome> {
    return executeBashOutputTool(this.#shell, input, this.#context(call));
  }

  /** A `kill_shell` call, as this connection's owner. */
  killShell(input: unknown, call: CallContext): Promise<ToolOutcome> {
    return executeKillShellTool(this.#shell, input, this.#context(call));
  }

  /** A file tool's call (`Read`, `Write`, `Edit`, `apply_patch`), as this connection's owner. */
  file(execute: FileToolRun, input: unknown, call: CallContext): Promise<ToolOutcome> {
    return execute(this.#shell, input, this.#context(call));
  }

  /**
   * Ends the connection's work: its calls in flight are aborted and the
   * background tasks its owner started are killed (their whole groups);
   * resolves once those tasks have ended. Idempotent.
   */
  async close(): Promise<void> {
    this.#closing.abort(new Error("the MCP connection closed"));
    const tasks = this.#shell.tasks(this.owner).filter((task) => task.owner === this.owner);
    for (const task of tasks) task.kill();
    await Promise.all([this.#session.close(), ...tasks.map((task) => task.done)]);
  }

  #context(call: CallContext): BashToolContext {
    const signal = call.signal === undefined
      ? this.#closing.signal
      : AbortSignal.any([call.signal, this.#closing.signal]);
    return { ...call, owner: this.owner, signal, ...(this.#keepControl ? { keepControlSequences: true } : {}) };
  }
}
