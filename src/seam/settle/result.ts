/**
 * The one place a command's result is built, whatever it ran on: its end
 * (status or signal, and which of our causes stopped it), its timing, and
 * its output, finished, with what a wrapper adds to it; the result of a
 * command that never started (or was lost), which a task settles with; and
 * a session's result with its note.
 *
 * @module
 */

import type { OutputCollector } from "../capture/collector.ts";
import type { OutputEvents } from "../capture/output_events.ts";
import type { CollectedOutput } from "../capture/types.ts";
import type { StopCause } from "../terminate/deadline.ts";
import type { ResultFields, ShellRunResult } from "./types.ts";

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
  /**
   * What wrapped the command, if anything did: it reads the result's
   * fields, once the output is finished, and returns what it adds (or
   * throws its own error: the command never ran).
   */
  readonly wrapped?: (result: Readonly<ShellRunResult>) => ResultFields | void;
}

/**
 * The result of a command that ended as `end` says. Finishes both
 * collectors: call it once, when the output is complete. Throws what the
 * wrapper throws.
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
 *   wrapped: (built) => ({ sandbox: { denied: built.stdout.text === "denied\n" } }),
 * });
 * assert.equal(result.timedOut, true);
 * assert.equal(result.aborted, false);
 * assert.equal(result.stdout.text, "hi\n");
 * assert.deepEqual(result.sandbox, { denied: false });
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
  const added = end.wrapped?.(result);
  if (added !== undefined && Object.hasOwn(added, "sandbox")) result.sandbox = added.sandbox;
  return result;
}

/** What a command that never started (or was lost) has to show. */
export interface NotStarted {
  /** The timeout reported in the result. */
  readonly timeoutMs: number;
  /** Its output, finished: what it printed before it was lost, or the error's line on stderr. */
  readonly stdout: CollectedOutput;
  readonly stderr: CollectedOutput;
}

/**
 * The result of a command that never started, or whose engine lost it: no
 * exit status and no signal, stopped by none of our causes, no time spent.
 * The fields a settled result always has, no others.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notStartedResult } from "./result.ts";
 * const result = notStartedResult({
 *   timeoutMs: 1000,
 *   stdout: { text: "", truncated: false, totalBytes: 0 },
 *   stderr: { text: "ShellSpawnError: no such directory\n", truncated: false, totalBytes: 35 },
 * });
 * assert.deepEqual([result.exitCode, result.signal, result.timedOut, result.durationMs], [null, null, false, 0]);
 * ```
 */
export function notStartedResult(command: NotStarted): ShellRunResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    timeoutMs: command.timeoutMs,
    durationMs: 0,
    stdout: command.stdout,
    stderr: command.stderr,
  };
}

/**
 * `result` with the line a session's command adds once the session has
 * taken (or refused) the state the command left: a copy, for the result is
 * settled by then and may be held elsewhere (the events' end).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notStartedResult, withSessionNote } from "./result.ts";
 * const output = { text: "", truncated: false, totalBytes: 0 };
 * const result = notStartedResult({ timeoutMs: 1000, stdout: output, stderr: output });
 * const noted = withSessionNote(result, "session state refused: too large");
 * assert.equal(noted.sessionNote, "session state refused: too large");
 * assert.equal(result.sessionNote, undefined);
 * ```
 */
export function withSessionNote(result: ShellRunResult, note: string): ShellRunResult {
  return { ...result, sessionNote: note };
}
