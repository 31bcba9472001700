/**
 * One `abort` listener per signal, shared by every command that listens to
 * it. Each command in flight listens to the shell's close signal, and often
 * to a caller's signal that many commands share (the hook bridge passes one
 * to every hook of an event). With a listener per command, Node warns
 * "MaxListenersExceededWarning: Possible EventTarget memory leak detected"
 * on the host's stderr as soon as an 11th command listens to one signal.
 *
 * @module
 */

/** The callbacks waiting on one signal, and the one listener that calls them. */
interface Fanout {
  callbacks: Set<() => void>;
  listener: () => void;
}

/**
 * The shared listeners of the host process, one per signal that anything
 * listens to (see `host.ts`).
 */
export class AbortFanout {
  /** Weak: a signal nobody else holds any more takes its entry with it. */
  readonly #fanouts = new WeakMap<AbortSignal, Fanout>();

  /**
   * Calls `callback` once when `signal` aborts, through the one listener
   * that all callbacks on `signal` share; the listener is removed when the
   * last callback stops listening. Like `addEventListener`, it never calls
   * back for a signal that had already aborted: check `signal.aborted` as
   * well.
   *
   * @returns A function that stops listening; calling it again does nothing.
   */
  onAbort(signal: AbortSignal, callback: () => void): () => void {
    const fanouts = this.#fanouts;
    let fanout = fanouts.get(signal);
    if (fanout === undefined) {
      const callbacks = new Set<() => void>();
      const listener = (): void => {
        fanouts.delete(signal);
        callAll(callbacks);
      };
      fanout = { callbacks, listener };
      fanouts.set(signal, fanout);
      signal.addEventListener("abort", listener, { once: true });
    }
    const { callbacks, listener } = fanout;
    // A wrapper of its own, so the same callback added twice is two registrations.
    const registration = (): void => callback();
    callbacks.add(registration);
    return () => {
      if (!callbacks.delete(registration) || callbacks.size > 0) return;
      signal.removeEventListener("abort", listener);
      if (fanouts.get(signal)?.listener === listener) fanouts.delete(signal);
    };
  }
}

/**
 * Calls the callbacks as separate listeners would be called: those added
 * meanwhile are not called, those removed meanwhile are not called, and one
 * that throws does not stop the others. The first error is then thrown from
 * the listener, so the runtime reports it as it reports a listener's error.
 */
function callAll(callbacks: Set<() => void>): void {
  let failure: { error: unknown } | undefined;
  for (const callback of [...callbacks]) {
    if (!callbacks.has(callback)) continue;
    try {
      callback();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
