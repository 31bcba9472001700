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

/**
 * The programs `exec_command` left running on one shell, each under its id
 * for `write_stdin`. A shell has one table and a table one shell
 * ({@linkcode programsOf}): an id one shell gave means nothing to another,
 * whatever the owner.
 */
export class ProgramTable {
  readonly #programs = new Map<number, Program>();

  /**
   * Keeps `task` as a program under a fresh id, and forgets the oldest
   * programs that ended and were not read again, past {@linkcode ENDED_KEPT}.
   */
  add(task: ShellTask, tty: boolean): Program {
    const program = new Program(this.#newId(), task, tty);
    this.#programs.set(program.id, program);
    const ended = [...this.#programs.values()].filter((kept) => kept.task.status !== "running");
    for (const old of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) this.#programs.delete(old.id);
    return program;
  }

  /** The program under `id`, if it is kept. */
  get(id: number): Program | undefined {
    return this.#programs.get(id);
  }

  /** Forgets `program`: its end has been answered, and its id is gone. */
  forget(program: Program): void {
    this.#programs.delete(program.id);
  }

  /**
   * A fresh id: a random number of six digits or more, so that one owner's
   * ids say nothing of how many programs others started.
   */
  #newId(): number {
    let id: number;
    do {
      id = 100_000 + Math.floor(Math.random() * 900_000);
    } while (this.#programs.has(id));
    return id;
  }
}

/**
 * Each shell's table, made at its first program. The shell owns it: the
 * entry lives exactly as long as the shell object, and no shell reaches
 * another's (the same way `mcp/server.ts` keeps each server's connection).
 */
const tables = new WeakMap<Shell, ProgramTable>();

/** The table of `shell`'s programs: the same one for every call on that shell. */
export function programsOf(shell: Shell): ProgramTable {
  let table = tables.get(shell);
  if (table === undefined) {
    table = new ProgramTable();
    tables.set(shell, table);
  }
  return table;
}
