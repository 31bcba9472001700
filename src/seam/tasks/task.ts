/**
 * One background task: a launched command plus read cursors, so a model
 * polling it gets each byte once, in order, even after the command ended.
 *
 * @module
 */

import type { OutputCollector } from "../capture/collector.ts";
import { asStartFailure } from "../error_checks.ts";
import {
  type ShellEngineError,
  type ShellSandboxError,
  type ShellSpawnError,
  ShellSpecError,
  TaskAccessError,
} from "../errors.ts";
import type { ChildInput } from "../adapter.ts";
import type { Launched } from "../backend.ts";
import { ownValue } from "../own_fields.ts";
import { notStartedResult } from "../settle/result.ts";
import type { ShellRunResult } from "../settle/types.ts";
import type { ShellTask, TaskOutput, TaskOutputWait, TaskStatus, WaitForOutputOptions } from "./types.ts";
import { waitForOutput } from "./wait_for_output.ts";

/** Reads one stream of a task incrementally. */
class StreamCursor {
  readonly #collector: OutputCollector;
  #next = 0;

  constructor(collector: OutputCollector) {
    this.#collector = collector;
  }

  /** Whether a read now would return text, or say that bytes were lost. Reads nothing. */
  hasUnread(ended: boolean): boolean {
    if (this.#collector.totalBytes <= this.#next) return false;
    const delta = this.#collector.readFrom(this.#next, ended);
    return delta.text !== "" || delta.lossy;
  }

  read(ended: boolean): { text: string; lossy: boolean; spillPath: string | undefined } {
    const delta = this.#collector.readFrom(this.#next, ended);
    this.#next = delta.next;
    return { text: delta.text, lossy: delta.lossy, spillPath: delta.lossy ? this.#collector.spillPath : undefined };
  }
}

/** A task whose command was started. */
export class LaunchedTask implements ShellTask {
  readonly id: string;
  readonly owner: string | null;
  readonly done: Promise<ShellRunResult>;
  readonly #launched: Launched;
  readonly #stdout: StreamCursor;
  readonly #stderr: StreamCursor;
  #result: ShellRunResult | undefined;
  #spawnError: ShellSpawnError | ShellSandboxError | ShellEngineError | undefined;
  #inputClosed = false;

  constructor(id: string, owner: string | null, launched: Launched) {
    this.id = id;
    this.owner = owner;
    this.#launched = launched;
    this.#stdout = new StreamCursor(launched.stdout);
    this.#stderr = new StreamCursor(launched.stderr);
    this.done = launched.result.then(
      (result) => this.#result = result,
      (error: unknown) => {
        // A sandbox that never started the command, or an engine that could not start it or lost it: the task settles
        // as killed, with the error (any other failure as the cause of a ShellSpawnError, never a sandbox's).
        this.#spawnError = asStartFailure(error);
        this.#result = notStartedResult({
          timeoutMs: 0,
          stdout: launched.stdout.finish(),
          stderr: launched.stderr.finish(),
        });
        return this.#result;
      },
    );
  }

  /** The leader's pid; on a remote engine, its pid there once known (0 until the command has started there). */
  get pid(): number {
    return this.#launched.pid;
  }

  get status(): TaskStatus {
    if (this.#result === undefined) return "running";
    return this.#result.aborted || this.#spawnError !== undefined ? "killed" : "completed";
  }

  /** Why the command did not start (or, on an engine, was lost), once known. */
  get spawnError(): ShellSpawnError | ShellSandboxError | ShellEngineError | undefined {
    return this.#spawnError;
  }

  get exitCode(): number | null {
    return this.#result?.exitCode ?? null;
  }

  get signal(): string | null {
    return this.#result?.signal ?? null;
  }

  read(): TaskOutput {
    const ended = this.#result !== undefined;
    const stdout = this.#stdout.read(ended);
    const stderr = this.#stderr.read(ended);
    const output: TaskOutput = { stdout: stdout.text, stderr: stderr.text, lossy: stdout.lossy || stderr.lossy };
    if (stdout.spillPath !== undefined) output.stdoutSpillPath = stdout.spillPath;
    if (stderr.spillPath !== undefined) output.stderrSpillPath = stderr.spillPath;
    return output;
  }

  kill(): boolean {
    return this.#launched.stop("abort");
  }

  write(data: string | Uint8Array): Promise<void> {
    try {
      const bytes = inputBytes(data);
      return this.#openInput().write(bytes);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  closeStdin(): void {
    const input = this.#openInput();
    this.#inputClosed = true;
    input.end();
  }

  resize(columns: number, rows: number): void {
    checkSide("columns", columns);
    checkSide("rows", rows);
    const resize = ownValue(this.#launched, "resize");
    if (resize === undefined) throw new TaskAccessError(this.id, "has no terminal (it was started without tty)");
    if (this.#result !== undefined) throw new TaskAccessError(this.id, "has no terminal any more (it has ended)");
    resize({ columns, rows });
  }

  /** The task's input while it may be written to; throws `TaskAccessError` saying why it may not. */
  #openInput(): ChildInput {
    const input = ownValue(this.#launched, "input");
    if (input === undefined) {
      throw new TaskAccessError(this.id, "has no open input (it was started without keepStdin or tty)");
    }
    if (this.#inputClosed) throw new TaskAccessError(this.id, "has no open input (closeStdin() closed it)");
    if (this.#result !== undefined) throw new TaskAccessError(this.id, "has no open input (it has ended)");
    return input;
  }

  waitForOutput(options?: WaitForOutputOptions): Promise<TaskOutputWait> {
    return waitForOutput({
      hasUnread: () => {
        const ended = this.#result !== undefined;
        return this.#stdout.hasUnread(ended) || this.#stderr.hasUnread(ended);
      },
      ended: () => this.#result !== undefined,
      listen: (onChange) => {
        let listening = true;
        const unlisten = this.#launched.events.listen(onChange);
        this.done.then(() => {
          if (listening) onChange();
        });
        return () => {
          listening = false;
          unlisten();
        };
      },
    }, options);
  }
}

/** A task whose spawn failed: settled at once as `killed`, with the error on stderr. */
export class FailedTask implements ShellTask {
  readonly id: string;
  readonly owner: string | null;
  readonly pid = -1;
  readonly status: TaskStatus = "killed";
  readonly exitCode = null;
  readonly signal = null;
  readonly done: Promise<ShellRunResult>;
  readonly spawnError: ShellSpawnError | ShellSandboxError | ShellEngineError;
  #unread: string;

  constructor(
    id: string,
    owner: string | null,
    timeoutMs: number,
    error: ShellSpawnError | ShellSandboxError | ShellEngineError,
  ) {
    this.id = id;
    this.owner = owner;
    this.spawnError = error;
    const message = `${error.name}: ${error.message}\n`;
    this.#unread = message;
    const totalBytes = new TextEncoder().encode(message).length;
    this.done = Promise.resolve(notStartedResult({
      timeoutMs,
      stdout: { text: "", truncated: false, totalBytes: 0 },
      stderr: { text: message, truncated: false, totalBytes },
    }));
  }

  read(): TaskOutput {
    const stderr = this.#unread;
    this.#unread = "";
    return { stdout: "", stderr, lossy: false };
  }

  kill(): boolean {
    return false;
  }

  waitForOutput(options?: WaitForOutputOptions): Promise<TaskOutputWait> {
    return waitForOutput({ hasUnread: () => this.#unread !== "", ended: () => true, listen: () => () => {} }, options);
  }

  write(data: string | Uint8Array): Promise<void> {
    try {
      inputBytes(data);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.reject(new TaskAccessError(this.id, "has no open input (it never started)"));
  }

  closeStdin(): void {
    throw new TaskAccessError(this.id, "has no open input (it never started)");
  }

  resize(columns: number, rows: number): void {
    checkSide("columns", columns);
    checkSide("rows", rows);
    throw new TaskAccessError(this.id, "has no terminal (it never started)");
  }
}

const encoder = new TextEncoder();

/** `data` as bytes; throws `ShellSpecError` naming it when it is neither a string nor bytes. */
function inputBytes(data: string | Uint8Array): Uint8Array {
  if (typeof data === "string") return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  throw new ShellSpecError("data", "must be a string or a Uint8Array");
}

/** Throws `ShellSpecError` naming `field` unless `value` is a terminal's side (`struct winsize` holds 16 bits). */
function checkSide(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > 65_535) {
    throw new ShellSpecError(field, "must be a whole number from 1 to 65535");
  }
}
