/**
 * The one place a command's result is built, whatever it ran on: its end
 * (status or signal, and which of our causes stopped it), its timing, and
 * its output, finished.
 *
 * @module
 */

import type { OutputCollector } from "../capture/collector.ts";
import type { OutputEvents } from "../capture/output_events.ts";
import type { StopCause } from "../terminate/deadline.ts";
import type { ShellRunResult } from "./types.ts";

/** How a command ended and what it has, as the result needs it. */
export interface CommandEnd {
  /** Its exit status, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, or null. */
  readonly signal: string | null;
  /** What of ours stopped it first, if anything did. */
  readonly cause: StopCause | undefined;
  /** The effective timeout, reported in the result. */
  readonly timeoutMs: number;
  /** `performance.now()` when the command was started. */
  readonly startedAt: number;
  /** The collectors of stdout and stderr; finished here. */
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  /** The output's observer: what it threw goes on the result. */
  readonly events: OutputEvents;
}

/**
 * The result of a command that ended as `end` says. Finishes both
 * collectors: call it once, when the output is complete.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputCollector } from "../capture/collector.ts";
 * import { OutputEvents } from "../capture/output_events.ts";
 * import { buildResult } from "./result.ts";
 * const collector = () => new OutputCollector({ budget: 100, maxSpillBytes: 0, spillDirectory: () => "/tmp", label: "x" });
 * const stdout = collector();
 * stdout.write(new TextEncoder().encode("hi\n"));
 * const result = buildResult({
 *   exitCode: null, signal: "SIGTERM", cause: "timeout", timeoutMs: 50, startedAt: performance.now(),
 *   stdout, stderr: collector(), events: new OutputEvents(undefined),
 * });
 * assert.equal(result.timedOut, true);
 * assert.equal(result.aborted, false);
 * assert.equal(result.stdout.text, "hi\n");
 * ```
 */
export function buildResult(end: CommandEnd): ShellRunResult {
  const result: ShellRunResult = {
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.cause === "timeout",
    aborted: end.cause === "abort",
    timeoutMs: end.timeoutMs,
    durationMs: performance.now() - end.startedAt,
    stdout: end.stdout.finish(),
    stderr: end.stderr.finish(),
  };
  const failure = end.events.observerError;
  if (failure !== undefined) result.observerError = failure.error;
  return result;
}
