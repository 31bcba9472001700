/**
 * `exec_command` and `write_stdin`, executed: a program started as a task
 * of the owner, waited for up to `yield_time_ms`, and answered in Codex's
 * form (`codex-rs/core/src/tools/handlers/unified_exec.rs`,
 * `format_response`): the wall time, the exit code or the running
 * session's id, and the output since the last answer.
 *
 * @module
 */

import { TaskAccessError } from "../../seam/errors.ts";
import type { Shell, ShellRunResult } from "../../seam/types.ts";
import { checkContext } from "../shared/context.ts";
import { isModelFixable, ToolInputError } from "../shared/errors.ts";
import { execCommandTool } from "./exec_command_tool.ts";
import { type Program, programsOf, type ProgramTable } from "./programs.ts";
import { stripControlSequences } from "../shared/control_sequences.ts";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  EXEC_YIELD_TIME_MS,
  MAX_YIELD_TIME_MS,
  WRITE_YIELD_TIME_MS,
} from "./input_schema.ts";
import type { BashToolContext } from "../shared/types.ts";
import type { UnifiedExecOutcome } from "./types.ts";
import { writeStdinTool } from "./write_stdin_tool.ts";

/** Bytes per token, as Codex counts them for its output cap. */
const BYTES_PER_TOKEN = 4;

/** Codex's words for typing into a program with no terminal. */
const STDIN_CLOSED = "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open";

const decoder = new TextDecoder();

/**
 * Runs a model's `exec_command` call as `owner` (the context as for the
 * bash tool: `{ owner, signal? }`; the signal, when it aborts, kills the
 * program). Resolves for every outcome of the program; a refused input or
 * a program that cannot start is an `isError` answer.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeExecCommandTool, executeWriteStdinTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const context = { owner: "agent-1" };
 * const started = await executeExecCommandTool(shell, {
 *   cmd: `read -p "name? " name; echo "hi $name"`,
 *   tty: true,
 *   yield_time_ms: 500,
 * }, context);
 * assert.match(started.text, /Process running with session ID \d+/);
 * const answered = await executeWriteStdinTool(shell, {
 *   session_id: started.sessionId ?? 0,
 *   chars: "Ada\n",
 *   yield_time_ms: 5_000,
 * }, context);
 * assert.equal(answered.exitCode, 0);
 * assert.match(answered.text, /hi Ada/);
 * ```
 */
export async function executeExecCommandTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<UnifiedExecOutcome> {
  const calledAt = performance.now();
  const call = begin(execCommandTool, input, context);
  if ("outcome" in call) return call.outcome;
  const { parsed, owner, signal, keepControl } = call;
  const table = programsOf(shell);
  const tty = parsed.tty === true;
  // The observer's chunks go to the program once it is made: none arrives before, as output comes in later turns.
  const started: { program?: Program } = {};
  let task;
  try {
    const spec = shell.resolve({
      command: parsed.cmd,
      owner,
      ...(parsed.workdir === undefined ? {} : { workdir: parsed.workdir }),
      ...(tty ? { tty: true } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    task = shell.start(spec, {
      onStdout: (chunk) => started.program?.push(chunk),
      onStderr: (chunk) => started.program?.push(chunk),
    });
  } catch (error) {
    if (isModelFixable(error)) return { text: `[error] ${error.message}`, isError: true };
    throw error;
  }
  if (task.spawnError !== undefined) return { text: `[error] ${task.spawnError.message}`, isError: true };
  const program = table.add(task, tty);
  started.program = program;
  await waitFor(program, parsed.yield_time_ms ?? EXEC_YIELD_TIME_MS, signal);
  return answer(table, program, parsed.max_output_tokens, keepControl, calledAt);
}

/**
 * Runs a model's `write_stdin` call as `owner`: types `chars` into the
 * program (a terminal's program only), waits up to `yield_time_ms` for
 * more output or its end, and answers with what it printed since the last
 * answer. An id that is unknown, ended or another owner's gets one and the
 * same `isError` answer. The signal ends the wait, not the program.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { executeExecCommandTool, executeWriteStdinTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const started = await executeExecCommandTool(shell, { cmd: "cat", tty: true, yield_time_ms: 0 }, { owner: "a" });
 * const echoed = await executeWriteStdinTool(shell, { session_id: started.sessionId ?? 0, chars: "ping\n" }, {
 *   owner: "a",
 * });
 * assert.match(echoed.text, /ping/);
 * const stranger = await executeWriteStdinTool(shell, { session_id: started.sessionId ?? 0 }, { owner: "b" });
 * assert.equal(stranger.isError, true);
 * ```
 */
export async function executeWriteStdinTool(
  shell: Shell,
  input: unknown,
  context: BashToolContext,
): Promise<UnifiedExecOutcome> {
  const calledAt = performance.now();
  const call = begin(writeStdinTool, input, context);
  if ("outcome" in call) return call.outcome;
  const { parsed, owner, signal, keepControl } = call;
  const table = programsOf(shell);
  const program = table.get(parsed.session_id);
  if (program === undefined || !visible(shell, program, owner)) {
    return {
      text: `[error] no running program with session ID ${parsed.session_id} is available to you: use the id from ` +
        "`Process running with session ID <id>` of an exec_command answer that has not said it exited",
      isError: true,
    };
  }
  const chars = parsed.chars ?? "";
  if (chars !== "") {
    if (!program.tty) return { text: `[error] ${STDIN_CLOSED}`, isError: true };
    try {
      await program.task.write(chars);
    } catch (error) {
      // It ended between the look-up and the write: the answer says so.
      if (!(error instanceof TaskAccessError)) throw error;
    }
  }
  await waitFor(program, parsed.yield_time_ms ?? WRITE_YIELD_TIME_MS, signal);
  return answer(table, program, parsed.max_output_tokens, keepControl, calledAt);
}

/**
 * The checked input and context of a call, or the answer to a refused
 * input. An already-aborted signal rejects with its reason, as every tool
 * does.
 */
function begin<T>(
  tool: { readonly name: string; parse(input: unknown): T },
  input: unknown,
  context: BashToolContext,
): { parsed: T; owner: string | null; signal?: AbortSignal; keepControl: boolean } | { outcome: UnifiedExecOutcome } {
  let parsed: T;
  try {
    parsed = tool.parse(input);
  } catch (error) {
    if (error instanceof ToolInputError) return { outcome: { text: error.message, isError: true } };
    throw error;
  }
  const { owner, signal, keepControlSequences } = checkContext(context, tool.name);
  signal?.throwIfAborted();
  return { parsed, owner, signal, keepControl: keepControlSequences === true };
}

/** Whether `owner` may reach `program`: the task rule (its own, or unowned). */
function visible(shell: Shell, program: Program, owner: string | null): boolean {
  try {
    return shell.task(program.task.id, owner) === program.task;
  } catch (error) {
    if (error instanceof TaskAccessError) return false;
    throw error;
  }
}

/** Until the program ends, `yieldMs` (capped) pass, or `signal` aborts. */
async function waitFor(program: Program, yieldMs: number, signal: AbortSignal | undefined): Promise<void> {
  if (program.task.status !== "running") {
    await program.task.done;
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  await Promise.race([
    program.task.done,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(yieldMs, MAX_YIELD_TIME_MS));
      onAbort = resolve;
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
}

/** The answer for `program` now; a program that has ended is forgotten once it is given. */
async function answer(
  table: ProgramTable,
  program: Program,
  maxTokens: number | undefined,
  keepControl: boolean,
  calledAt: number,
): Promise<UnifiedExecOutcome> {
  const ended = program.task.status !== "running";
  const result: ShellRunResult | undefined = ended ? await program.task.done : undefined;
  // A terminal's program paints with escape sequences: the model is shown the words (the cut counts what it sees).
  const taken = program.takeText();
  const output = keepControl ? taken : stripControlSequences(taken);
  const budget = (maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS) * BYTES_PER_TOKEN;
  const { text, tokens } = cutMiddle(output, budget);
  // The call's own time, as Codex counts it: how long this call waited, not how long the program has run.
  const lines = [`Wall time: ${((performance.now() - calledAt) / 1000).toFixed(4)} seconds`];
  if (result === undefined) {
    lines.push(`Process running with session ID ${program.id}`);
  } else if (result.exitCode !== null) {
    lines.push(`Process exited with code ${result.exitCode}`);
  } else {
    lines.push(`Process ended by signal ${result.signal ?? "unknown"}${result.aborted ? " (stopped)" : ""}`);
  }
  if (tokens !== undefined) lines.push(`Original token count: ${tokens}`);
  if (program.dropped > 0) lines.push(`Output dropped before this answer: ${program.dropped} bytes`);
  program.dropped = 0;
  lines.push("Output:", text);
  if (ended) table.forget(program);
  return {
    text: lines.join("\n"),
    isError: false,
    ...(result === undefined ? { sessionId: program.id } : {}),
    ...(result?.exitCode === null || result === undefined ? {} : { exitCode: result.exitCode }),
  };
}

/** `text` within `budget` bytes: its start and end, with a line saying how much of the middle went. */
function cutMiddle(text: string, budget: number): { text: string; tokens?: number } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= budget) return { text };
  const half = Math.floor(budget / 2);
  const head = decoder.decode(bytes.subarray(0, half)).replace(/\uFFFD$/, "");
  const tail = decoder.decode(bytes.subarray(bytes.length - half)).replace(/^\uFFFD/, "");
  const cut = bytes.length - 2 * half;
  return {
    text: `${head}\n[... ${cut} bytes (about ${Math.ceil(cut / BYTES_PER_TOKEN)} tokens) cut ...]\n${tail}`,
    tokens: Math.ceil(bytes.length / BYTES_PER_TOKEN),
  };
}
