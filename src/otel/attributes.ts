/**
 * The attributes of a command's span, from its events: OpenTelemetry's
 * semantic conventions for a process where one fits (`process.*`,
 * `error.type`), this library's `dsh.*` for the rest. Pure functions of the
 * events, so the words are tested without a tracer.
 *
 * @module
 */

import type { ShellEvent } from "../seam/types.ts";

/** What every event of a command says about it (file events have spans of their own commands). */
type CommandEvent = Omit<Exclude<ShellEvent, { type: "file" }>, "type" | "pid">;
/** An `end` event. */
type Ended = Extract<ShellEvent, { type: "end" }>;
/** An `error` event. */
type Failed = Extract<ShellEvent, { type: "error" }>;

/** A span's attributes, as a `ShellSpan` takes them. */
type Attributes = Record<string, string | number | boolean | string[]>;

/** How `process.command_args` is recorded: not at all, as spawned, or as a function of the argv returns it. */
export type CommandArgs = boolean | ((argv: readonly string[]) => string[]);

/** The span's name: low cardinality, so the program's base name, never the command line. */
export function spanName(event: CommandEvent): string {
  const program = event.argv[0] ?? "";
  return `${event.kind} ${program.slice(program.lastIndexOf("/") + 1)}`;
}

/** What a command's span says from its start: who runs what, where. */
export function startAttributes(event: CommandEvent & { pid: number | null }, args: CommandArgs): Attributes {
  const attributes: Attributes = {
    "process.command": event.argv[0],
    "process.args_count": event.argv.length,
    "process.working_directory": event.workdir,
    "process.creation.time": new Date(event.time).toISOString(),
    "dsh.command.id": event.id,
    "dsh.command.kind": event.kind,
    "dsh.sandboxed": event.sandboxed,
  };
  // The remote engines know the pid only at the end (0 until then).
  if (event.pid !== null && event.pid > 0) attributes["process.pid"] = event.pid;
  // Opt-in in the conventions ("SHOULD NOT be collected by default unless there is sanitization"): a command line
  // can hold a secret typed into it.
  if (args !== false) attributes["process.command_args"] = args === true ? [...event.argv] : args(event.argv);
  if (event.owner !== null) attributes["dsh.owner"] = event.owner;
  if (event.taskId !== undefined) attributes["dsh.task.id"] = event.taskId;
  if (event.timeoutMs !== undefined) attributes["dsh.timeout_ms"] = event.timeoutMs;
  return attributes;
}

/** What an `end` adds: the exit, who ended it, what the output came to. */
export function endAttributes(event: Ended): Attributes {
  const attributes: Attributes = {
    "process.exit.time": new Date(event.time).toISOString(),
    "dsh.end.cause": event.cause,
    "dsh.stdout.bytes": event.stdout.totalBytes,
    "dsh.stdout.truncated": event.stdout.truncated,
    "dsh.stderr.bytes": event.stderr.totalBytes,
    "dsh.stderr.truncated": event.stderr.truncated,
  };
  if (event.pid > 0) attributes["process.pid"] = event.pid;
  if (event.exitCode !== null) attributes["process.exit.code"] = event.exitCode;
  if (event.signal !== null) attributes["dsh.signal"] = event.signal;
  if (event.stdout.spillPath !== undefined) attributes["dsh.stdout.spill_path"] = event.stdout.spillPath;
  if (event.stderr.spillPath !== undefined) attributes["dsh.stderr.spill_path"] = event.stderr.spillPath;
  if (event.sandboxDenied !== undefined) attributes["dsh.sandbox.denied"] = event.sandboxDenied;
  const failure = endFailure(event);
  if (failure !== undefined) attributes["error.type"] = failure;
  return attributes;
}

/**
 * Why an ended command's span is an error, or undefined: it was ended by us
 * (`timeout`, `abort`, `close`, `kill`) or by a signal of someone else's. A
 * non-zero exit code is not: `grep` that finds nothing, `test -f`, answer
 * with codes, and `process.exit.code` has it.
 */
export function endFailure(event: Ended): string | undefined {
  if (event.cause !== "exit") return event.cause;
  return event.signal ?? undefined;
}

/** What an `error` adds: the error's stable code as `error.type`. */
export function errorAttributes(event: Failed): Attributes {
  const attributes: Attributes = { "error.type": event.error.code };
  if (event.pid !== null && event.pid > 0) attributes["process.pid"] = event.pid;
  return attributes;
}
