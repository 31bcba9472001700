/**
 * The programs `exec_command` left running, per shell: each under a number
 * for `write_stdin`, with what it printed since the last answer, in the
 * order it came (stdout and stderr as they arrived).
 *
 * @module
 */

import type { Shell, ShellTask } from "../../seam/types.ts";

/** What one program keeps for its next answer. Past it, the oldest bytes go (Codex keeps 1 MiB too). */
const PENDING_MAX_BYTES = 1024 * 1024;
/** Programs that ended and were not read again, kept for a last answer; past it, the oldest are forgotten. */
const ENDED_KEPT = 64;

/** A program of `exec_command`. */
export class Program {
  readonly id: number;
  readonly task: ShellTask;
  readonly tty: boolean;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Bytes that arrived and were dropped before anyone read them. */
  dropped = 0;

  constructor(id: number, task: ShellTask, tty: boolean) {
    this.id = id;
    this.task = task;
    this.tty = tty;
  }

  /** Keeps a chunk of output (the observer's copy). */
  push(chunk: Uint8Array): void {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    while (this.#pendingBytes > PENDING_MAX_BYTES && this.#pending.length > 1) {
      const oldest = this.#pending.shift() as Uint8Array;
      this.#pendingBytes -= oldest.length;
      this.dropped += oldest.length;
    }
  }

  readonly #decoder = new TextDecoder();

  /** Everything kept since the last take, as text (a character cut by the take's end comes whole next time). */
  takeText(): string {
    return this.#decoder.decode(this.#take(), { stream: this.task.status === "running" });
  }

  #take(): Uint8Array {
    const all = new Uint8Array(this.#pendingBytes);
    let at = 0;
    for (const chunk of this.#pending) {
      all.set(chunk, at);
      at += chunk.length;
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    return all;
  }
}

/** The programs of each shell. */
const tables = new WeakMap<Shell, Map<number, Program>>();

/** The table of `shell`'s programs. */
export function programsOf(shell: Shell): Map<number, Program> {
  let table = tables.get(shell);
  if (table === undefined) {
    table = new Map();
    tables.set(shell, table);
  }
  return table;
}

/**
 * A fresh id: a random number of six digits or more, so that one owner's
 * ids say nothing of how many programs others started.
 */
export function newProgramId(table: Map<number, Program>): number {
  let id: number;
  do {
    id = 100_000 + Math.floor(Math.random() * 900_000);
  } while (table.has(id));
  return id;
}

/** Forgets the oldest programs that ended and were not read again, past {@linkcode ENDED_KEPT}. */
export function forgetOldEnded(table: Map<number, Program>): void {
  const ended = [...table.values()].filter((program) => program.task.status !== "running");
  for (const program of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) table.delete(program.id);
}
