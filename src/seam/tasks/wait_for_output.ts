/**
 * `task.waitForOutput()`: resolve as soon as there is something to read,
 * the task has ended with nothing left, or a timeout passed; reject when
 * the caller's signal aborts. It reads nothing.
 *
 * @module
 */

import { ShellSpecError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import { MAX_TIMER_MS } from "../resolve/schemas.ts";
import type { TaskOutputWait, WaitForOutputOptions } from "./types.ts";
import { showValue } from "../show_value.ts";

/** What a task tells the wait. */
export interface OutputSource {
  /** Whether a `read()` now would return something (text, or a note that bytes were lost). */
  hasUnread(): boolean;
  /** Whether the task has ended. */
  ended(): boolean;
  /** Calls `onChange` when output arrives or the task ends, until the returned function is called. */
  listen(onChange: () => void): () => void;
}

/** Waits on `source` as {@linkcode ShellTask.waitForOutput} describes. */
export function waitForOutput(source: OutputSource, options?: WaitForOutputOptions): Promise<TaskOutputWait> {
  const { signal, timeoutMs } = checkWaitOptions(options);
  if (signal?.aborted) return Promise.reject(signal.reason);
  const now = settledState(source);
  if (now !== undefined) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      unlisten();
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      finish();
      reject(signal?.reason);
    };
    const unlisten = source.listen(() => {
      const state = settledState(source);
      if (state === undefined) return;
      finish();
      resolve(state);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        finish();
        resolve("timeout");
      }, timeoutMs);
    }
  });
}

/** `"output"` or `"ended"` when the wait is over now, else undefined. */
function settledState(source: OutputSource): TaskOutputWait | undefined {
  if (source.hasUnread()) return "output";
  return source.ended() ? "ended" : undefined;
}

function checkWaitOptions(options: unknown): WaitForOutputOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) {
    throw new ShellSpecError("options", "must be an object with signal and/or timeoutMs");
  }
  const record = options as WaitForOutputOptions;
  const signal = ownValue(record, "signal");
  const timeoutMs = ownValue(record, "timeoutMs");
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ShellSpecError("signal", "must be an AbortSignal");
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS)
  ) {
    throw new ShellSpecError(
      "timeoutMs",
      `must be a positive, finite number of ms, at most ${MAX_TIMER_MS} (got ${showValue(timeoutMs)})`,
    );
  }
  return { signal, timeoutMs };
}
