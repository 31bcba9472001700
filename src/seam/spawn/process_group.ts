/**
 * The local transport's command: a process group on this machine. Its
 * start checks the workdir, builds the environment, has the shell's
 * wrapper (`wrapper.ts`: the terminal, the sandbox; a session's command is
 * carried first, `carry/wrapper.ts`) wrap the request,
 * spawns the leader of a new session through the adapter and records the
 * session; its termination signals the whole session (the wrapper told
 * first); its end is the leader's exit and the pipes drained, and a signal
 * or an exit code as the adapter reports it.
 *
 * @module
 */

import type { ChildExit, ChildHandle, ProcessAdapter, SpawnRequest } from "../adapter.ts";
import type { AmbientSource } from "../env/ambient_source.ts";
import { commandEnv } from "../env/command_env.ts";
import { ShellSpawnError } from "../errors.ts";
import { MARK_VARIABLE, newMark } from "../guard/record.ts";
import type { HostProcess } from "../host.ts";
import { ownValue } from "../own_fields.ts";
import type { SessionRegistry } from "../session/registry.ts";
import { CommandSession } from "../session/session.ts";
import { drainAfterExit } from "../settle/drain.ts";
import type { ResolvedShellOptions } from "../resolve/options.ts";
import type { CommandExit, CommandStart, Running } from "../transport.ts";
import { describeSpawnFailure, wouldStart } from "./failure.ts";
import { checkWorkdir } from "./workdir.ts";
import { chainWrappers, commandRequest, type SpawnWrapper, STATE_FD, type WrappedCommand } from "../wrapper.ts";
import { carryWrapper } from "../carry/wrapper.ts";
import { dropStateFile, makeStateFile, type StateFile, type TakenState, takeState } from "../carry/state.ts";
import type { Deadline } from "../terminate/deadline.ts";
import type { ResultFields, ShellRunResult } from "../settle/types.ts";

/** What a local command needs from the shell that owns it. */
export interface ProcessGroupContext {
  /** The adapter that spawns and signals. */
  readonly adapter: ProcessAdapter;
  /** The shell's resolved options. */
  readonly options: ResolvedShellOptions;
  /** The host process's shared state: process table, terminations, abort listeners. */
  readonly host: HostProcess;
  /** The ambient environment, read at each spawn. */
  readonly ambient: AmbientSource;
  /** The shell's sessions. */
  readonly sessions: SessionRegistry;
  /** What wraps the spawns (the terminal, the sandbox), when anything does. */
  readonly wrapper: SpawnWrapper | undefined;
  /** Keeps a background termination that `close()` must await. */
  readonly track: (work: Promise<unknown>) => void;
  /** The path, in a directory no command is shown, where the session's command marked `mark` leaves its state. */
  readonly stateFile: (mark: string) => string;
}

/**
 * Starts `command` as the leader of a new session. Throws
 * {@linkcode ShellSpawnError} when the workdir or the shell (or the argv
 * form's program) is missing.
 */
export function startProcessGroup(command: CommandStart, context: ProcessGroupContext): Running {
  const { spec } = command;
  const { host } = context;
  checkWorkdir(spec.workdir);
  // Drawn ahead when it can be, already in the watchdog's record (`Watchdog.added`): nothing to draw or write before
  // this spawn. Not for a session's command: its state file is named by its mark, and a mark listed in the record
  // while the command before it runs must not name a file a command could make first.
  const mark = (command.carry ? undefined : context.sessions.announced()) ?? newMark();
  const childEnv = commandEnv(spec, context.ambient.read(), host.scrubDecisions, context.ambient.key);
  // The library's own: set last, so that no layer can forge or drop it.
  childEnv[MARK_VARIABLE] = mark;
  // Made here, before the command can name it: only this very file is read back (`takeState`).
  const stateFile = command.carry ? makeStateFile(context.stateFile(mark)) : undefined;
  try {
    return startMarked(command, context, mark, childEnv, stateFile);
  } catch (error) {
    if (stateFile !== undefined) dropStateFile(stateFile);
    throw error;
  }
}

function startMarked(
  command: CommandStart,
  context: ProcessGroupContext,
  mark: string,
  childEnv: Record<string, string>,
  stateFile: StateFile | undefined,
): Running {
  const { spec } = command;
  const { adapter, options, host } = context;
  const args = ownValue(spec, "args");
  const confined = context.wrapper?.confines(spec) === true;
  const shell = wrapperShell(context.wrapper) ?? options.shell;
  // A session's command is carried first: its trap goes on the command line before anything wraps it.
  const wrapper = stateFile === undefined
    ? context.wrapper
    : chainWrappers([carryWrapper(confined ? { fd: STATE_FD } : { path: stateFile.path }, shell), context.wrapper]);
  // A command line is run by the shell; the argv form runs the program itself, with no shell in between.
  let request = commandRequest(spec, shell, childEnv, { onStdout: command.stdout, onStderr: command.stderr });
  const wrapped = wrapper?.wrap(
    request,
    spec,
    confined && stateFile !== undefined ? { path: stateFile.path, maxBytes: options.maxSessionStateBytes } : undefined,
  );
  if (wrapped !== undefined) request = wrapped.request;
  // Before the spawn: the command may kill its host before spawn() has even returned.
  context.sessions.starting(mark);
  const child = spawn(adapter, args === undefined ? "shell" : "program", request);
  const followed = wrapped === undefined ? undefined : ownValue(wrapped, "followedMark");
  const session = new CommandSession(adapter, child.pid, host.procTable, followed, mark);
  context.sessions.started(session);
  return new ProcessGroup(context, child, session, wrapped, stateFile, childEnv);
}

/** A started local command. */
class ProcessGroup implements Running {
  readonly pid: number;
  readonly input: Running["input"];
  readonly resize: Running["resize"];
  readonly #context: ProcessGroupContext;
  readonly #child: ChildHandle;
  readonly #session: CommandSession;
  readonly #wrapped: WrappedCommand | undefined;
  readonly #stateFile: StateFile | undefined;
  readonly #env: Readonly<Record<string, string>>;
  #exit: ChildExit = { code: null, signal: null };

  constructor(
    context: ProcessGroupContext,
    child: ChildHandle,
    session: CommandSession,
    wrapped: WrappedCommand | undefined,
    stateFile: StateFile | undefined,
    env: Readonly<Record<string, string>>,
  ) {
    this.#context = context;
    this.#child = child;
    this.#session = session;
    this.#wrapped = wrapped;
    this.#stateFile = stateFile;
    this.#env = env;
    this.pid = child.pid;
    this.input = ownValue(child, "input");
    this.resize = ownValue(child, "resize") === undefined ? undefined : (size) => child.resize?.(size);
  }

  terminate(): void {
    const { host, options, track } = this.#context;
    const after = this.#wrapped?.terminating(this.#session);
    // Then what carries the command's mark outside its session (`setsid`), whatever group it is in.
    const ended = host.terminations.terminate(this.#session, options.graceMs).then((gone) => {
      this.#session.killFollowed();
      return gone;
    });
    track(after === undefined ? ended : after(ended));
  }

  async exited(deadline: Deadline): Promise<void> {
    const child = this.#child;
    this.#exit = await child.exited;
    // A timeout, an abort or close() during the drain cuts it short: they also terminate what is left of the session.
    if (!await drainAfterExit(child, this.#context.options.graceMs, deadline.fired)) child.releaseOutput();
  }

  interpret(): CommandExit {
    this.#context.sessions.settled(this.#session);
    const exit = this.#exit;
    return { exitCode: exit.signal === null ? exit.code : null, signal: exit.signal };
  }

  ended(result: Readonly<ShellRunResult>): ResultFields | void {
    return this.#wrapped?.ended(result, this.#exit, this.#session);
  }

  endSurvivors(): boolean {
    if (!this.#session.alive()) return false;
    const { host, options, track } = this.#context;
    track(
      host.terminations.terminate(this.#session, options.graceMs).then((gone) => {
        this.#session.killFollowed();
        return gone;
      }),
    );
    return true;
  }

  state(): Promise<TakenState> {
    const wrapped = this.#wrapped;
    return this.#stateFile === undefined ? Promise.resolve({ change: undefined }) : takeState(
      this.#stateFile,
      wrapped?.env ?? wrapped?.request.env ?? this.#env,
      this.#context.options.maxSessionStateBytes,
    );
  }
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
  // On a terminal an exec failure would only show in the child: it is looked for here first.
  if (request.terminal !== undefined && !wouldStart(request.program, request.env.PATH, request.cwd)) {
    throw spawnFailure(request, role);
  }
  try {
    return adapter.spawn(request);
  } catch (error) {
    // Worded already (the terminal's library is missing: `pseudo_terminal.ts`).
    if (error instanceof ShellSpawnError) throw error;
    throw spawnFailure(request, role, error);
  }
}

/** The error for `request`'s program, which could not be started (`cause`: the adapter's error, if it threw one). */
function spawnFailure(request: SpawnRequest, role: "shell" | "program", cause?: unknown): ShellSpawnError {
  const message = describeSpawnFailure(request.program, request.env.PATH, { cwd: request.cwd, cause, role });
  return new ShellSpawnError(message, request.program, cause === undefined ? undefined : { cause });
}
