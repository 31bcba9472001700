/**
 * The life of one command, shared by foreground runs and background tasks:
 * check the workdir, build the environment, spawn the session, capture its
 * output, stop it at the deadline, and settle a result once its pipes close
 * or `graceMs` after it exits.
 *
 * @module
 */

import { accessSync, statSync } from "node:fs";
import type { ChildHandle, ProcessAdapter } from "../adapter.ts";
import { OutputCollector } from "../capture/collector.ts";
import { mergeEnv } from "../env/mod.ts";
import { markNestedShell } from "../env/shell_level.ts";
import { ShellSpawnError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import type { ResolvedShellOptions, ShellExecSpec, ShellRunResult } from "../types.ts";
import { Deadline, type StopCause } from "./deadline.ts";
import type { GroupRegistry } from "./group_registry.ts";
import { CommandSession } from "./session.ts";
import { terminateSession } from "./terminate.ts";

/** What a launch needs from the shell that owns it. */
export interface LaunchContext {
  /** The adapter that spawns and signals. */
  readonly adapter: ProcessAdapter;
  /** The shell's resolved options. */
  readonly options: ResolvedShellOptions;
  /** The spill directory, created on first use. */
  readonly spillDirectory: () => string;
  /** The ambient environment for this spawn. */
  readonly ambientEnv: () => Record<string, string | undefined>;
  /** The shell's live sessions. */
  readonly groups: GroupRegistry;
  /** Aborted by `close()`: ends every command in flight. */
  readonly closeSignal: AbortSignal;
  /** Keeps a background termination that `close()` must await. */
  readonly track: (work: Promise<unknown>) => void;
}

/** A started command. */
export interface Launched {
  /** The leader's pid, which is also the process group id. */
  readonly pid: number;
  /** The collector of stdout, readable while the command runs. */
  readonly stdout: OutputCollector;
  /** The collector of stderr. */
  readonly stderr: OutputCollector;
  /** Settles with the result; never rejects. */
  readonly result: Promise<ShellRunResult>;
  /** Starts termination with `cause`; false when it had already begun or the leader had exited. */
  stop(cause: StopCause): boolean;
}

const encoder = new TextEncoder();

/**
 * Starts `spec`. Throws {@linkcode ShellSpawnError} when the workdir or the
 * shell is missing; every later outcome settles `result`.
 *
 * @param timeoutMs The timeout to enforce, or undefined for none (tasks).
 */
export function launch(spec: ShellExecSpec, context: LaunchContext, timeoutMs: number | undefined): Launched {
  const { adapter, options } = context;
  const startedAt = performance.now();
  checkWorkdir(spec.workdir);
  const stdout = newCollector(context, spec.stdoutMaxBytes, "stdout");
  const stderr = newCollector(context, options.maxOutputBytes, "stderr");
  // Own properties only: an `env` on a polluted Object.prototype must not reach the child.
  const env = ownValue(spec, "env");
  const dshEnv = ownValue(spec, "dshEnv");
  const stdin = ownValue(spec, "stdin");
  const child = adapter.spawn({
    shell: options.shell,
    command: spec.command,
    cwd: spec.workdir,
    env: markNestedShell(mergeEnv({ ambient: context.ambientEnv(), env, dshEnv })),
    stdin: typeof stdin === "string" ? encoder.encode(stdin) : stdin,
    onStdout: (chunk) => stdout.write(chunk),
    onStderr: (chunk) => stderr.write(chunk),
  });
  const session = new CommandSession(adapter, child.pid);
  context.groups.started(session);
  const deadline = new Deadline(timeoutMs, [ownValue(spec, "signal"), context.closeSignal], () => {
    context.track(terminateSession(session, options.graceMs));
  });
  let leaderExited = false;
  child.exited.then(() => leaderExited = true);
  const result = settle(child, session, deadline, context, startedAt, timeoutMs ?? spec.timeoutMs, stdout, stderr);
  return {
    pid: child.pid,
    stdout,
    stderr,
    result,
    stop: (cause) => !leaderExited && deadline.fire(cause),
  };
}

async function settle(
  child: ChildHandle,
  session: CommandSession,
  deadline: Deadline,
  context: LaunchContext,
  startedAt: number,
  timeoutMs: number,
  stdout: OutputCollector,
  stderr: OutputCollector,
): Promise<ShellRunResult> {
  const exit = await child.exited;
  // A grandchild that inherited stdout can hold the pipe open for ever:
  // draining after exit is bounded by graceMs, and cut short by a timeout,
  // an abort or close() (which also terminate what is left of the session).
  const drained = child.drained.then(() => true);
  if (!await firstOf(drained, deadline.fired.then(() => false), context.options.graceMs)) child.releaseOutput();
  const cause = deadline.cause;
  deadline.dispose();
  context.groups.settled(session);
  return {
    exitCode: exit.signal === null ? exit.code : null,
    signal: exit.signal,
    timedOut: cause === "timeout",
    aborted: cause === "abort",
    timeoutMs,
    durationMs: performance.now() - startedAt,
    stdout: stdout.finish(),
    stderr: stderr.finish(),
  };
}

/**
 * Whichever of `a` and `b` settles first, or false after `ms`; the timer is
 * cleared either way so it never holds the event loop.
 */
function firstOf(a: Promise<boolean>, b: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => timer = setTimeout(resolve, ms, false));
  return Promise.race([a, b, timeout]).finally(() => clearTimeout(timer));
}

function newCollector(context: LaunchContext, budget: number, label: string): OutputCollector {
  return new OutputCollector({
    budget,
    maxSpillBytes: context.options.maxSpillBytes,
    spillDirectory: context.spillDirectory,
    label,
  });
}

/** The workdir is checked before spawning so the error names it, not the shell. */
function checkWorkdir(workdir: string): void {
  // The common case in one cheap call: with a trailing slash the path must
  // resolve to a directory (a symlink to one counts, as with stat). Deno's
  // node:fs statSync builds a whole Stats object, which cost 50-90 us per
  // command there; access() builds nothing. Any failure gets the full check.
  try {
    accessSync(`${workdir}/`);
    return;
  } catch {
    // Missing, not a directory, or not reachable: stat says which.
  }
  let isDirectory: boolean;
  try {
    isDirectory = statSync(workdir).isDirectory();
  } catch (error) {
    throw new ShellSpawnError(`workdir does not exist: ${workdir}`, workdir, { cause: error });
  }
  if (!isDirectory) throw new ShellSpawnError(`workdir is not a directory: ${workdir}`, workdir);
}
