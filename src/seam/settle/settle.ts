/**
 * Settling one command: once its leader has exited, wait for its pipes to
 * close, but at most `graceMs` (a background grandchild holding stdout must
 * not hang the result), then hand the session over to the survivors and
 * build the result.
 *
 * @module
 */

import type { ChildHandle } from "../adapter.ts";
import type { OutputCollector } from "../capture/collector.ts";
import type { OutputEvents } from "../capture/output_events.ts";
import type { SessionRegistry } from "../session/registry.ts";
import type { CommandSession } from "../session/session.ts";
import type { Deadline } from "../terminate/deadline.ts";
import type { WrappedCommand } from "../wrapper.ts";
import type { ShellRunResult } from "./types.ts";
import { sharedTimer } from "../terminate/shared_timer.ts";
import { buildResult } from "./result.ts";

/** One command, as far as its settling needs to know it. */
export interface Settling {
  /** The spawned leader. */
  readonly child: ChildHandle;
  /** Its session, handed to the survivors once settled. */
  readonly session: CommandSession;
  /** Its timeout and abort signals; a cause that fires cuts the drain short. */
  readonly deadline: Deadline;
  /** The shell's sessions. */
  readonly sessions: SessionRegistry;
  /** The bound on draining the pipes after the leader exits. */
  readonly graceMs: number;
  /** `performance.now()` when the command was started. */
  readonly startedAt: number;
  /** The effective timeout, reported in the result. */
  readonly timeoutMs: number;
  /** The collectors of stdout and stderr. */
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  /** The output's observer and waiters: what the observer threw goes on the result. */
  readonly events: OutputEvents;
  /** What wrapped the spawn (the sandbox), which reads the end its own way. */
  readonly wrapped?: WrappedCommand;
}

/**
 * Settles `command`'s result once its leader has exited. Rejects only with
 * the error of a wrapper that never ran the command (a `ShellSandboxError`).
 */
export async function settle(command: Settling): Promise<ShellRunResult> {
  const { child, deadline } = command;
  const exit = await child.exited;
  // A grandchild that inherited stdout can hold the pipe open for ever:
  // draining after exit is bounded by graceMs, and cut short by a timeout,
  // an abort or close() (which also terminate what is left of the session).
  const drained = child.drained.then(() => true);
  if (!await firstOf(drained, deadline.fired.then(() => false), command.graceMs)) child.releaseOutput();
  const cause = deadline.cause;
  deadline.dispose();
  command.sessions.settled(command.session);
  const result = buildResult({
    exitCode: exit.signal === null ? exit.code : null,
    signal: exit.signal,
    cause,
    timeoutMs: command.timeoutMs,
    startedAt: command.startedAt,
    stdout: command.stdout,
    stderr: command.stderr,
    events: command.events,
  });
  command.wrapped?.ended(result, exit, command.session);
  return result;
}

/**
 * Whichever of `a` and `b` settles first, or false after `ms`; the timeout
 * is cancelled either way so it never holds the event loop. It is an entry
 * of the process's shared timer: one per command, so no runtime timer.
 */
function firstOf(a: Promise<boolean>, b: Promise<boolean>, ms: number): Promise<boolean> {
  let cancel: (() => void) | undefined;
  const timeout = new Promise<boolean>((resolve) => cancel = sharedTimer.after(ms, () => resolve(false)));
  return Promise.race([a, b, timeout]).finally(() => cancel?.());
}
