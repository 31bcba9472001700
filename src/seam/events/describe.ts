/**
 * What a command's events say, built from its spec and its result: pure
 * functions, so the words of an audit log are tested without a process.
 *
 * @module
 */

import type { CollectedOutput } from "../capture/types.ts";
import type { ShellRunResult } from "../settle/types.ts";
import type { ShellExecSpec } from "../types.ts";
import type { ShellCommandFields, ShellEventOf } from "./types.ts";

/** What the hub notes of one watched command while it runs. */
export interface Watch {
  readonly spec: ShellExecSpec;
  /** A task's `kill()` began its termination. */
  killed: boolean;
  /** The shell's `close()` began its termination. */
  closed: boolean;
  /** Its result has settled. */
  settled: boolean;
}

/** The fields every event of command `id` carries, but its time. */
export function commandFields(
  id: number,
  spec: ShellExecSpec,
  kind: "run" | "task",
  taskId: string | undefined,
  shell: { readonly shell: string; readonly sandboxed: boolean },
): Omit<ShellCommandFields, "time"> {
  const fields: Omit<ShellCommandFields, "time"> = {
    id,
    kind,
    owner: spec.owner,
    command: spec.command,
    // The argv form's program is run as given, with no shell in between (spawn/process_group.ts).
    argv: spec.args === undefined ? [shell.shell, "-c", spec.command] : [spec.command, ...spec.args],
    workdir: spec.workdir,
    sandboxed: shell.sandboxed && spec.sandbox !== false,
  };
  if (taskId !== undefined) fields.taskId = taskId;
  if (spec.args !== undefined) fields.args = [...spec.args];
  // A task has no timeout (shell.start ignores the spec's).
  if (kind === "run") fields.timeoutMs = spec.timeoutMs;
  return fields;
}

/** What an `end` adds, from the settled `result` and what `watch` saw. */
export function endFields(
  result: ShellRunResult,
  watch: Pick<Watch, "killed" | "closed">,
): Pick<
  ShellEventOf<"end">,
  "exitCode" | "signal" | "cause" | "durationMs" | "stdout" | "stderr" | "sandboxDenied"
> {
  const fields: ReturnType<typeof endFields> = {
    exitCode: result.exitCode,
    signal: result.signal,
    cause: result.timedOut
      ? "timeout"
      : !result.aborted
      ? "exit"
      : watch.killed
      ? "kill"
      : watch.closed
      ? "close"
      : "abort",
    durationMs: result.durationMs,
    stdout: summary(result.stdout),
    stderr: summary(result.stderr),
  };
  if (result.sandbox !== undefined) fields.sandboxDenied = result.sandbox.denied;
  return fields;
}

/** A stream's bookkeeping without its text. */
function summary(output: CollectedOutput): Omit<CollectedOutput, "text"> {
  const kept: Omit<CollectedOutput, "text"> = { totalBytes: output.totalBytes, truncated: output.truncated };
  if (output.spillPath !== undefined) kept.spillPath = output.spillPath;
  return kept;
}
