/**
 * The owner-checked task registry: who may see which task, how many may
 * run per owner, and how long finished tasks stay readable (the newest
 * `maxFinishedTasks` of each owner).
 *
 * @module
 */

import { TaskAccessError, TaskLimitError } from "../errors.ts";
import type { ShellTask } from "./types.ts";
import { randomHex } from "../random_hex.ts";

/** Tasks of one shell, by id, in start order. */
export class TaskRegistry {
  readonly #maxPerOwner: number;
  readonly #maxFinished: number;
  readonly #tasks = new Map<string, ShellTask>();
  /**
   * Ids of each owner's finished tasks, oldest first: the eviction order.
   * Per owner (unowned tasks share one list), so that one owner's finished
   * tasks never push out another's unread results.
   */
  readonly #finished = new Map<string | null, string[]>();

  /**
   * @param maxPerOwner Running tasks allowed per owner (unowned tasks share one bucket).
   * @param maxFinished Finished tasks kept readable per owner (unowned tasks share one bucket).
   */
  constructor(maxPerOwner: number, maxFinished: number) {
    this.#maxPerOwner = maxPerOwner;
    this.#maxFinished = maxFinished;
  }

  /** Throws {@linkcode TaskLimitError} when `owner` has no room for another running task. */
  checkRoom(owner: string | null): void {
    let running = 0;
    for (const task of this.#tasks.values()) {
      if (task.owner === owner && task.status === "running") running++;
    }
    if (running >= this.#maxPerOwner) throw new TaskLimitError(owner, this.#maxPerOwner);
  }

  /** A fresh id: short enough to quote, random enough not to guess. */
  newId(): string {
    let id: string;
    do {
      id = `t${randomHex(5)}`;
    } while (this.#tasks.has(id));
    return id;
  }

  /** Adds `task`; once it is done it joins the finished list. */
  add(task: ShellTask): void {
    this.#tasks.set(task.id, task);
    task.done.then(() => this.#finish(task));
  }

  /** The task when `owner` may see it; otherwise {@linkcode TaskAccessError}, the same for unknown ids. */
  get(id: string, owner: string | null): ShellTask {
    const task = this.#tasks.get(id);
    if (task === undefined || !visibleTo(task, owner)) throw new TaskAccessError(id);
    return task;
  }

  /** Every task `owner` may see, in start order. */
  visible(owner: string | null): ShellTask[] {
    return [...this.#tasks.values()].filter((task) => visibleTo(task, owner));
  }

  #finish(task: ShellTask): void {
    let finished = this.#finished.get(task.owner);
    if (finished === undefined) {
      finished = [];
      this.#finished.set(task.owner, finished);
    }
    finished.push(task.id);
    while (finished.length > this.#maxFinished) this.#tasks.delete(finished.shift()!);
  }
}

/** Unowned tasks are everyone's; owned ones only their owner's. */
function visibleTo(task: ShellTask, owner: string | null): boolean {
  return task.owner === null || task.owner === owner;
}
