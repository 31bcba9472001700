/**
 * The start of one command, shared by foreground runs and background
 * tasks: check the workdir, build the environment, spawn the session, wire
 * its output into bounded collectors and its deadline to termination, and
 * hand it to the settle (`settle/settle.ts`).
 *
 * @module
 */

import type { ChildHandle, ProcessAdapter, SpawnRequest } from "../adapter.ts";
import { OutputCollector } from "../capture/collector.ts";
import { OutputEvents } from "../capture/output_events.ts";
import type { AmbientSource } from "../env/ambient_source.ts";
import { mergeEnvWith } from "../env/merge.ts";
import { markNestedShell } from "../env/shell_level.ts";
import { ShellSpawnError } from "../errors.ts";
import { MARK_VARIABLE, newMark } from "../guard/record.ts";
import type { HostProcess } from "../host.ts";
import { ownValue } from "../own_fields.ts";
import type { SessionRegistry } from "../session/registry.ts";
import { CommandSession } from "../session/session.ts";
import { settle } from "../settle/settle.ts";
import { Deadline } from "../terminate/deadline.ts";
import type { ResolvedShellOptions } from "../resolve/options.ts";
import type { Launched } from "../backend.ts";
import type { ShellExecSpec, ShellObserver } from "../types.ts";
import { describeSpawnFailure, wouldStart } from "./failure.ts";
import { checkWorkdir } from "./workdir.ts";
import { type SpawnWrapper, STATE_FD } from "../wrapper.ts";
import { statePrelude } from "../carry/script.ts";
import { takeState } from "../carry/state.ts";

/** What a launch needs from the shell that owns it. */
export interface LaunchContext {
  /** The adapter that spawns and signals. */
  readonly adapter: ProcessAdapter;
  /** The shell's resolved options. */
  readonly options: ResolvedShellOptions;
  /** The host process's shared state: process table, terminations, abort listeners. */
  readonly host: HostProcess;
  /** The spill directory of an owner's commands, created on first use. */
  readonly spillDirectory: (owner: string | null) => string;
  /** The ambient environment, read at each spawn. */
  readonly ambient: AmbientSource;
  /** The shell's sessions. */
  readonly sessions: SessionRegistry;
  /** What wraps the spawns (the shell's sandbox), when anything does. */
  readonly wrapper: SpawnWrapper | undefined;
  /** Aborted by `close()`: ends every command in flight. */
  readonly closeSignal: AbortSignal;
  /** Keeps a background termination that `close()` must await. */
  readonly track: (work: Promise<unknown>) => void;
  /** The path, in a directory no command is shown, where the session's command marked `mark` leaves its state. */
  readonly stateFile: (mark: string) => string;
}

const encoder = new TextEncoder();

/**
 * Starts `spec`. Throws {@linkcode ShellSpawnError} when the workdir or the
 * shell (or the argv form's program) is missing; every later outcome
 * settles `result`.
 *
 * @param timeoutMs The timeout to enforce, or undefined for none (tasks).
 * @param carry Set for a session's command line: its state is left in a file, read by `Launched.state`.
 */
export function launch(
  spec: ShellExecSpec,
  context: LaunchContext,
  timeoutMs: number | undefined,
  observer?: ShellObserver,
  carry?: boolean,
): Launched {
  const { adapter, options, host } = context;
  const startedAt = performance.now();
  checkWorkdir(spec.workdir);
  const stdout = newCollector(context, spec, spec.stdoutMaxBytes, "stdout");
  const stderr = newCollector(context, spec, options.maxOutputBytes, "stderr");
  const events = new OutputEvents(observer);
  // Own properties only: an `env` on a polluted Object.prototype must not reach the child.
  const env = ownValue(spec, "env");
  const dshEnv = ownValue(spec, "dshEnv");
  const stdin = ownValue(spec, "stdin");
  const args = ownValue(spec, "args");
  const mark = newMark();
  const childEnv = markNestedShell(
    mergeEnvWith({ ambient: context.ambient.read(), env, dshEnv }, host.scrubDecisions, context.ambient.key),
  );
  // The library's own: set last, so that no layer can forge or drop it.
  childEnv[MARK_VARIABLE] = mark;
  // Only a command line can change a directory or an environment that outlives its program.
  const stateFile = carry === true && args === undefined ? context.stateFile(mark) : undefined;
  const confined = context.wrapper?.confines(spec) === true;
  const shell = wrapperShell(context.wrapper) ?? options.shell;
  const command = stateFile === undefined
    ? spec.command
    : statePrelude(confined ? { fd: STATE_FD } : { path: stateFile }, shell) + spec.command;
  let request: SpawnRequest = {
    // A command line is run by the shell; the argv form runs the program itself, with no shell in between.
    program: args === undefined ? shell : spec.command,
    args: args === undefined ? ["-c", command] : args,
    cwd: spec.workdir,
    env: childEnv,
    stdin: typeof stdin === "string" ? encoder.encode(stdin) : stdin,
    // Own properties, always: an adapter reads them plainly, and a polluted Object.prototype must not answer.
    keepStdin: ownValue(spec, "keepStdin") === true,
    terminal: undefined,
    onStdout: (chunk) => {
      stdout.write(chunk);
      events.stdout(chunk);
    },
    onStderr: (chunk) => {
      stderr.write(chunk);
      events.stderr(chunk);
    },
  };
  const wrapped = context.wrapper?.wrap(request, spec, confined ? stateFile : undefined);
  if (wrapped !== undefined) request = wrapped.request;
  // Before the spawn: the command may kill its host before spawn() has even returned.
  context.sessions.starting(mark);
  const child = spawn(adapter, args === undefined ? "shell" : "program", request);
  const followed = wrapped === undefined ? undefined : ownValue(wrapped, "followedMark");
  const session = new CommandSession(adapter, child.pid, host.procTable, followed);
  context.sessions.started(session);
  const signals = [ownValue(spec, "signal"), context.closeSignal];
  const deadline = new Deadline(timeoutMs, signals, host.abortListeners, () => {
    const after = wrapped?.terminating(session);
    const ended = host.terminations.terminate(session, options.graceMs);
    context.track(after === undefined ? ended : after(ended));
  });
  let endingSurvivors = false;
  const result = settle({
    child,
    session,
    deadline,
    sessions: context.sessions,
    graceMs: options.graceMs,
    startedAt,
    timeoutMs: timeoutMs ?? spec.timeoutMs,
    stdout,
    stderr,
    events,
    wrapped,
  });
  return {
    pid: child.pid,
    stdout,
    stderr,
    result,
    events,
    state: stateFile === undefined
      ? undefined
      : () => takeState(stateFile, wrapped?.env ?? wrapped?.request.env ?? childEnv),
    input: ownValue(child, "input"),
    resize: ownValue(child, "resize") === undefined ? undefined : (size) => child.resize?.(size),
    stop: (cause) => {
      // Until the result settles the deadline ends the whole session, also once the leader has exited and only a
      // backgrounded child holds the pipes: that cuts the drain short.
      if (deadline.fire(cause)) return true;
      // Settled: what the command left running (a survivor) is still the caller's to end; the result stays as it is.
      if (deadline.cause !== undefined || endingSurvivors || !session.alive()) return false;
      endingSurvivors = true;
      context.track(
        host.terminations.terminate(session, options.graceMs).then((gone) => {
          session.killFollowed();
          return gone;
        }),
      );
      return true;
    },
  };
}

/** The program a wrapper resolved for command lines, if it did (its own property only). */
function wrapperShell(wrapper: SpawnWrapper | undefined): string | undefined {
  return wrapper === undefined ? undefined : ownValue(wrapper, "shell");
}

/**
 * Spawns through the adapter. An adapter reports a process it could not
 * create with its runtime's own error; the wording is the seam's, so that
 * every adapter's failures read alike and name the program and why.
 */
function spawn(adapter: ProcessAdapter, role: "shell" | "program", request: SpawnRequest): ChildHandle {
  try {
    // On a terminal an exec failure would only show in the child: it is looked for here first.
    if (request.terminal !== undefined && !wouldStart(request.program, request.env.PATH, request.cwd)) {
      throw new Error(`${request.program} cannot be started`);
    }
    return adapter.spawn(request);
  } catch (error) {
    if (error instanceof ShellSpawnError) throw error;
    const context = { cwd: request.cwd, cause: error, role };
    const message = describeSpawnFailure(request.program, request.env.PATH, context);
    throw new ShellSpawnError(message, request.program, { cause: error });
  }
}

function newCollector(context: LaunchContext, spec: ShellExecSpec, budget: number, label: string): OutputCollector {
  return new OutputCollector({
    budget,
    maxSpillBytes: context.options.maxSpillBytes,
    spillDirectory: () => context.spillDirectory(spec.owner),
    label,
  });
}
