/**
 * Settling one command, whatever it ran on: wait for its transport to say
 * it has ended (its exit, then its output drained, bounded by `graceMs`:
 * `drain.ts`), stop its deadline, have the transport say what the end
 * means, and build the result (`result.ts`). A command that could not be
 * run rejects with its transport's error, which also goes on its stderr, so
 * that a task's reader sees it; an error that is not of the library's
 * family (one it did not foresee) is the cause of a `ShellSpawnError`.
 *
 * @module
 */

import type { OutputCollector } from "../capture/collector.ts";
import { asStartFailure } from "../error_checks.ts";
import { isShellError } from "../errors.ts";
import type { OutputEvents } from "../capture/output_events.ts";
import type { Deadline } from "../terminate/deadline.ts";
import type { Running } from "../transport.ts";
import type { ShellRunResult } from "./types.ts";
import { buildResult } from "./result.ts";

/** One command, as far as its settling needs to know it. */
export interface Settling {
  /** The command, as its transport runs it. */
  readonly running: Running;
  /** Its timeout and abort signals. */
  readonly deadline: Deadline;
  /** `performance.now()` when the command was started. */
  readonly startedAt: number;
  /** The effective timeout, reported in the result. */
  readonly timeoutMs: number;
  /** The collectors of stdout and stderr. */
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  /** The output's observer and waiters: what the observer threw goes on the result. */
  readonly events: OutputEvents;
}

const encoder = new TextEncoder();

/**
 * Settles `command`'s result. Rejects with the transport's error (an
 * engine's, a refusal) or a wrapper's (a sandbox that never ran the
 * command), or a `ShellSpawnError` whose `cause` is an error not of the
 * library's family.
 */
export async function settle(command: Settling): Promise<ShellRunResult> {
  const { running, deadline } = command;
  // Once the wrapper reads the result, the output is finished: its error is not added to it.
  let finished = false;
  try {
    await running.exited(deadline);
    const cause = deadline.cause;
    deadline.dispose();
    // Most ends are read at once (the local one always): no turn of the event loop between the drain and the result.
    const interpreted = running.interpret(cause);
    const end = interpreted instanceof Promise ? await interpreted : interpreted;
    return buildResult({
      exitCode: end.exitCode,
      signal: end.signal,
      cause,
      timeoutMs: command.timeoutMs,
      startedAt: command.startedAt,
      stdout: command.stdout,
      stderr: command.stderr,
      events: command.events,
      wrapped: (result) => {
        finished = true;
        return running.ended?.(result);
      },
    });
  } catch (error) {
    deadline.dispose();
    // The transport's or the wrapper's error as it is; one the library did not foresee keeps its identity as the
    // cause of a ShellSpawnError (never labelled the sandbox's).
    const failure = isShellError(error) ? error : asStartFailure(error);
    if (!finished) {
      command.stderr.write(encoder.encode(`${failure.name}: ${failure.message}\n`));
      command.stdout.finish();
      command.stderr.finish();
    }
    throw failure;
  }
}
