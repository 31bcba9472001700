/**
 * What happens with each chunk besides its capture: the caller's observer
 * gets a copy, in order, and whoever waits for output (a task's
 * `waitForOutput`) hears that there is some.
 *
 * @module
 */

import type { ShellObserver } from "./types.ts";

/** The output of one command, as its observer and its waiters see it. */
export class OutputEvents {
  #observer: ShellObserver | undefined;
  #failure: { error: unknown } | undefined;
  readonly #listeners = new Set<() => void>();

  /** @param observer The caller's observer, already checked (`resolve/observer.ts`); undefined for none. */
  constructor(observer: ShellObserver | undefined) {
    this.#observer = observer;
  }

  /** What the observer threw the first time it threw (it was not called again), or undefined. */
  get observerError(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** A stdout chunk arrived (the collector already has it; the chunk may be reused after this call). */
  stdout(chunk: Uint8Array): void {
    this.#deliver(this.#observer?.onStdout, chunk);
    this.#notify();
  }

  /** A stderr chunk arrived. */
  stderr(chunk: Uint8Array): void {
    this.#deliver(this.#observer?.onStderr, chunk);
    this.#notify();
  }

  /** Calls `listener` after each chunk until the returned function is called. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #deliver(callback: ((chunk: Uint8Array) => void) | undefined, chunk: Uint8Array): void {
    if (callback === undefined || this.#observer === undefined) return;
    try {
      // A copy: the adapter lends its read buffer, and the observer may keep what it gets.
      const returned: unknown = callback(chunk.slice());
      // An async observer's rejection counts as a throw (and must not go unhandled).
      if (isThenable(returned)) returned.then(undefined, (error) => this.#fail(error));
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    this.#failure ??= { error };
    this.#observer = undefined;
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
