/**
 * The shapes of a shell's command events, {@linkcode ShellEvent}, and of
 * the subscription to them, {@linkcode ShellEvents} (`shell.events`): what
 * an audit log or a tracer learns of every command a shell runs, on any
 * engine. Re-exported by `../types.ts`, the root's source.
 *
 * @module
 */

import type { CollectedOutput } from "../capture/types.ts";
import type { ShellEngineError, ShellSandboxError, ShellSpawnError } from "../errors.ts";

/**
 * One event of a shell's commands. Each command that reaches the spawn has
 * a number in its shell (`id`, from 1) and gets a `start` once it runs,
 * then exactly one `end` (its result settled: delivered before `run()`
 * resolves and before a task's `done` does) or `error` (it never ran, or
 * was lost; a spawn that fails has an `error` only, with `pid: null`).
 * Commands refused before the spawn (an invalid spec, a closed shell, an
 * aborted signal, a task limit) have none: they throw to their caller. The
 * fields besides `type` and the outcome are the same in every event of one
 * command. One kind of event is `Extract<ShellEvent, { type: "end" }>`.
 *
 * @example
 * ```ts
 * import { createLocalShell, type ShellEvent } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const log: string[] = [];
 * const line = (event: ShellEvent): string => {
 *   switch (event.type) {
 *     case "start":
 *       return `#${event.id} ${event.owner} start ${event.command}`;
 *     case "end":
 *       return `#${event.id} end ${event.cause} ${event.exitCode ?? event.signal}`;
 *     case "error":
 *       return `#${event.id} error ${event.error.code}`;
 *     case "file":
 *       return `${event.operation} ${event.path} ${event.outcome}`;
 *   }
 * };
 * await using shell = createLocalShell();
 * shell.events.subscribe((event) => log.push(line(event)));
 * await shell.exec("exit 3", { owner: "agent-1" });
 * await shell.exec("sleep 5", { timeoutMs: 100 });
 * await shell.exec("pwd", { workdir: "/nonexistent" }).catch(() => {});
 * assert.deepEqual(log, [
 *   "#1 agent-1 start exit 3",
 *   "#1 end exit 3",
 *   "#2 null start sleep 5",
 *   "#2 end timeout SIGTERM",
 *   "#3 error ERR_SHELL_SPAWN",
 * ]);
 * ```
 */
export type ShellEvent = ShellCommandEvent | ShellFileEvent;

/** The events of one command: its `start`, then its `end` or `error`. Internal: callers write `ShellEvent`. */
export type ShellCommandEvent =
  & {
    /** This command's number in its shell, from 1: what ties its `start` to its `end` or `error`. */
    id: number;
    /** `"run"` for `run()` and `exec()`, `"task"` for `start()`. */
    kind: "run" | "task";
    /** The task's id, for a task. */
    taskId?: string;
    /** The spec's owner. */
    owner: string | null;
    /** The spec's command: a command line, or the program when `args` is given. */
    command: string;
    /** The spec's arguments (the argv form); absent for a command line. */
    args?: string[];
    /** The program and arguments as spawned: `[shell, "-c", command]`, or `[command, ...args]`. */
    argv: string[];
    /** The absolute working directory. */
    workdir: string;
    /** The timeout in ms for a run; absent for a task, which has none. */
    timeoutMs?: number;
    /** The command runs in the shell's sandbox. */
    sandboxed: boolean;
    /** When the event happened, in ms since the epoch. */
    time: number;
  }
  & (
    | {
      /** The command was spawned and runs. */
      type: "start";
      /** The leader's pid; on a remote engine 0, since its pid over there is not known yet (the `end` has it). */
      pid: number;
    }
    | {
      /** The command's process ended and its result is settled. */
      type: "end";
      /** The leader's pid (on a remote engine, its pid there). */
      pid: number;
      /** The exit code, or `null` when a signal ended it. */
      exitCode: number | null;
      /** The signal that ended it, or `null`. */
      signal: string | null;
      /**
       * Why it ended: by itself (`"exit"`, whatever its code or signal), or by us: its timeout, its abort signal,
       * the shell's `close()`, or a task's `kill()`.
       */
      cause: "exit" | "timeout" | "abort" | "close" | "kill";
      /** Wall time from spawn to settlement in ms. */
      durationMs: number;
      /** Standard output's bookkeeping: bytes in all, whether the result's text was cut, the spill file. */
      stdout: Omit<CollectedOutput, "text">;
      /** Standard error's bookkeeping. */
      stderr: Omit<CollectedOutput, "text">;
      /** On sandboxed runs, the result's hint that the sandbox refused the command something. */
      sandboxDenied?: boolean;
    }
    | {
      /**
       * The command never ran, or was lost: the spawn failed (`ShellSpawnError`, no `start` before it), the
       * sandbox refused to start it (`ShellSandboxError`), or the engine could not start it or lost it
       * (`ShellEngineError`). `run()` rejects with that error; a task settles as `killed` with it. A failure the
       * library did not foresee is the `cause` of a `ShellSpawnError`.
       */
      type: "error";
      /** The pid that was spawned, or `null` when nothing was. */
      pid: number | null;
      /** Why. */
      error: ShellSpawnError | ShellSandboxError | ShellEngineError;
      /** Time from the call to the failure in ms. */
      durationMs: number;
    }
  );

/**
 * One file operation of `shell.files()` (`type: "file"`): which, by whom,
 * on which path, how many bytes, and how it ended. Never the content. A
 * patch reports each file it changed (or the one that failed it). The file
 * operation's commands have their own `start` and `end` besides.
 */
export interface ShellFileEvent {
  /** A file operation. */
  type: "file";
  /** What was done: `read`, `write`, `edit`, or `patch` (with `action`). */
  operation: "read" | "write" | "edit" | "patch";
  /** For a patch: what it did to this file. */
  action?: "add" | "update" | "move" | "delete";
  /** The owner the operation ran as. */
  owner: string | null;
  /** The absolute path (for a move, the source; `movedTo` the destination). */
  path: string;
  /** For a move, where the file went. */
  movedTo?: string;
  /** Bytes read (returned) or written; 0 for a delete or a failure. */
  bytes: number;
  /** `"ok"`, or the failure's `ShellFileError` code (or the code of the error that ended it). */
  outcome: string;
  /** When the operation ended, in ms since the epoch. */
  time: number;
}

/** One kind of {@linkcode ShellEvent}. Internal: callers write `Extract<ShellEvent, { type: … }>`. */
export type ShellEventOf<T extends ShellEvent["type"]> = Extract<ShellEvent, { type: T }>;

/** What every event of one command carries, but its kind and outcome. Internal. */
export type ShellCommandFields = Omit<ShellEventOf<"start">, "type" | "pid">;

/**
 * A shell's command events, `shell.events`. Listeners are called
 * synchronously, in the order they subscribed, as each event happens; with
 * none, a command costs one check of a counter. A listener that throws (or
 * returns a promise that rejects) does not affect the command, the other
 * listeners, or itself: it stays subscribed, and the error goes to its
 * `onError`, or nowhere when it has none (an audit log that failed once,
 * on a full disk, may work again; the command must not fail for it).
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const errors: unknown[] = [];
 * await using shell = createLocalShell();
 * const unsubscribe = shell.events.subscribe(() => {
 *   throw new Error("audit log down");
 * }, { onError: (error) => errors.push(error) });
 * const result = await shell.exec("echo still runs");
 * assert.equal(result.stdout.text, "still runs\n");
 * assert.equal(errors.length, 2); // its start and its end
 * unsubscribe();
 * assert.equal(shell.events.hasSubscribers, false);
 * ```
 */
export interface ShellEvents {
  /**
   * Calls `listener` with every event of this shell's commands from now on,
   * until the returned function is called. What it returns is ignored, but
   * for a promise's rejection, which goes to `onError`.
   */
  subscribe(
    listener: (event: ShellEvent) => unknown,
    options?: {
      /** Called with what the listener threw (or its promise rejected with) and the event; its own throw is ignored. */
      onError?: (error: unknown, event: ShellEvent) => void;
    },
  ): () => void;
  /** Whether any listener is subscribed. */
  readonly hasSubscribers: boolean;
}
