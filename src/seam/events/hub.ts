/**
 * A shell's command events: its listeners, and the watch on each command
 * launched while any listens. The shell hands every launch to
 * {@linkcode EventHub.launch}; with no listener that is the launch itself,
 * so a shell nobody listens to pays one length check per command.
 *
 * The shape is Node's `diagnostics_channel` tracing channel (start, then
 * end or error, delivered synchronously; `hasSubscribers` for a caller who
 * would build something only for listeners) with execa's per-command serial
 * number, bound to one shell instead of a process-wide name, so that two
 * shells (or two copies of the library) never mix their commands and the
 * seam needs nothing from either runtime.
 *
 * Internal: `shell.events` is its public face.
 *
 * @module
 */

import type { Launched } from "../backend.ts";
import { asStartFailure, isStartFailure } from "../error_checks.ts";
import { ShellArgumentError } from "../errors.ts";
import type { ShellRunResult } from "../settle/types.ts";
import type { ShellExecSpec } from "../types.ts";
import { commandFields, endFields, type Watch } from "./describe.ts";
import type { ShellEvent, ShellEvents, ShellFileEvent } from "./types.ts";

/** One subscription: the listener and where its failures go. */
interface Subscription {
  readonly listener: (event: ShellEvent) => unknown;
  readonly onError: ((error: unknown, event: ShellEvent) => void) | undefined;
}

/** What the hub needs of its shell. */
export interface EventHubContext {
  /** The shell program, for a command line's argv. */
  readonly shell: string;
  /** The shell is sandboxed (a spec may still opt out). */
  readonly sandboxed: boolean;
  /** Aborted by the shell's `close()`: a command ended then ended by `"close"`. */
  readonly closeSignal: AbortSignal;
}

/** The listeners of one shell, and the commands they watch. */
export class EventHub implements ShellEvents {
  readonly #context: EventHubContext;
  /** Replaced, never changed in place: an emit in progress goes on over the array it started with. */
  #subscriptions: readonly Subscription[] = [];
  #nextId = 1;
  /** Commands watched and not settled: the ones a `close()` ends. */
  readonly #inFlight = new Set<Watch>();
  #listeningToClose = false;

  constructor(context: EventHubContext) {
    this.#context = context;
  }

  get hasSubscribers(): boolean {
    return this.#subscriptions.length > 0;
  }

  subscribe(
    listener: (event: ShellEvent) => unknown,
    options?: { onError?: (error: unknown, event: ShellEvent) => void },
  ): () => void {
    if (typeof listener !== "function") throw new ShellArgumentError("listener", "must be a function");
    const subscription: Subscription = { listener, onError: options?.onError };
    this.#subscriptions = [...this.#subscriptions, subscription];
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== subscription);
    };
  }

  /**
   * Launches through `start` (the backend's launch of `spec`), reporting it
   * to the listeners when there are any. Throws what `start` throws.
   */
  launch(spec: ShellExecSpec, kind: "run" | "task", taskId: string | undefined, start: () => Launched): Launched {
    if (this.#subscriptions.length === 0) return start();
    return this.#watch(spec, kind, taskId, start);
  }

  #watch(spec: ShellExecSpec, kind: "run" | "task", taskId: string | undefined, start: () => Launched): Launched {
    const fields = commandFields(this.#nextId++, spec, kind, taskId, this.#context);
    const called = Date.now();
    let launched: Launched;
    try {
      launched = start();
    } catch (error) {
      if (isStartFailure(error)) {
        this.#emit({ ...fields, time: Date.now(), type: "error", pid: null, error, durationMs: Date.now() - called });
      }
      throw error;
    }
    const watch: Watch = { spec, killed: false, closed: false, settled: false };
    this.#inFlight.add(watch);
    this.#listenToClose();
    this.#emit({ ...fields, time: Date.now(), type: "start", pid: launched.pid });
    const settled = (): void => {
      watch.settled = true;
      this.#inFlight.delete(watch);
    };
    launched.result.then(
      (result: ShellRunResult) => {
        settled();
        this.#emit({ ...fields, time: Date.now(), type: "end", pid: launched.pid, ...endFields(result, watch) });
      },
      (error: unknown) => {
        settled();
        // As a task words it (tasks/task.ts): any other failure is the cause of a ShellSpawnError, never a sandbox's.
        const failure = asStartFailure(error);
        this.#emit({
          ...fields,
          time: Date.now(),
          type: "error",
          pid: launched.pid,
          error: failure,
          durationMs: Date.now() - called,
        });
      },
    );
    return watchedLaunch(launched, watch);
  }

  /** One listener on the close signal for the whole shell, from the first watched command on. */
  /** Hands a file operation's event to the listeners (`shell.files()`). */
  file(event: ShellFileEvent): void {
    if (this.#subscriptions.length > 0) this.#emit(event);
  }

  #listenToClose(): void {
    if (this.#listeningToClose) return;
    this.#listeningToClose = true;
    this.#context.closeSignal.addEventListener("abort", () => {
      // Ended by close() unless its own signal or a kill() came first (the deadline keeps the first cause only).
      for (const watch of this.#inFlight) if (!watch.killed && watch.spec.signal?.aborted !== true) watch.closed = true;
    }, { once: true });
  }

  #emit(event: ShellEvent): void {
    for (const subscription of this.#subscriptions) {
      try {
        const returned = subscription.listener(event);
        if (returned instanceof Promise) {
          returned.then(undefined, (error: unknown) => report(subscription, error, event));
        }
      } catch (error) {
        report(subscription, error, event);
      }
    }
  }
}

/** Hands a listener's failure to its `onError`; what that throws in turn goes nowhere. */
function report(subscription: Subscription, error: unknown, event: ShellEvent): void {
  try {
    subscription.onError?.(error, event);
  } catch {
    // Nothing left to tell: the command must not fail for its audit.
  }
}

/**
 * A launch as its caller sees it, with a `stop` that notes a kill for the
 * end event. Every field is the launch's own property, as the task reads
 * them (`ownValue`: a polluted prototype must not answer); `pid` stays a
 * getter, since a remote command learns its pid once it has started.
 */
function watchedLaunch(launched: Launched, watch: Watch): Launched {
  const state = launched.state;
  const resize = launched.resize;
  return {
    get pid(): number {
      return launched.pid;
    },
    stdout: launched.stdout,
    stderr: launched.stderr,
    result: launched.result,
    events: launched.events,
    state: state === undefined ? undefined : () => state.call(launched),
    input: launched.input,
    resize: resize === undefined ? undefined : (size) => resize.call(launched, size),
    stop(cause) {
      const begun = launched.stop(cause);
      if (begun && !watch.settled && !watch.closed) watch.killed = true;
      return begun;
    },
  };
}
