/**
 * The remote transport's command: one command on a remote engine, as the
 * launch pipeline (`launch/launch.ts`) runs it. Its start is the
 * connection, the environment built here from the engine's ambient one,
 * the request wrapped as locally (`../wrapper.ts`: a session's trap, the
 * terminal) and what the wrappers made started as the engine's wrapper
 * (`attempt.ts`: the header, the command's stdin, the first line of
 * stderr); a wrapper refused for want of a session waits and starts again
 * (`busy_retry.ts`) before the command counts as started, so its end is
 * that of a wrapper that ran. Its termination is a line to the supervisor,
 * which ends its whole session on the engine's side. Its end:
 * - the command's status is the exit code of the engine's client (`ssh`
 *   and `docker exec` exit with their program's: the wrapper exits with
 *   its command's), once the supervisor's link has answered a question
 *   after it, or at once when the engine says that exit can only have
 *   come from its side (`EngineLink.fromEngine`: ssh's codes but 255): a
 *   client that ended because the connection did is never taken for a
 *   status. Nothing on stderr after its first line counts:
 *   the command can write anything there, the wrapper's nonce included.
 *   When we ended the command and the status is 128+15 or 128+9 (or 255,
 *   ssh's word for a wrapper that died by a signal: our SIGKILL), the
 *   result says `signal: "SIGTERM"` or `"SIGKILL"` (a shell cannot tell
 *   `exit 143` from a death by SIGTERM; a command's own signal death
 *   reports its code, 128+n, as shells do);
 * - after our termination, the supervisor's word that nothing of the
 *   session runs, and no exit of the client within the grace:
 *   `signal: "SIGKILL"`;
 * - a refusal (`e …`) is the `ShellSpawnError` the same mistake gets
 *   locally (workdir, shell or program missing), or a `ShellEngineError`;
 * - no first line at all, or a lost connection (the supervisor's link
 *   ended, or did not answer after the client exited): a
 *   `ShellEngineError`, never a status.
 *
 * @module
 */

import type { TerminalSize } from "../adapter.ts";
import { commandEnv } from "../env/command_env.ts";
import { ShellEngineError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import type { StopCause } from "../terminate/deadline.ts";
import type { CommandExit, CommandStart, Running } from "../transport.ts";
import type { RemoteSession, RemoteSessions } from "./sessions.ts";
import { checkPortableNames, isShellName } from "./header.ts";
import { terminalSize } from "../terminal/size.ts";
import { carryWrapper } from "../carry/wrapper.ts";
import { stateOf, type TakenState } from "../carry/state.ts";
import { chainWrappers, commandRequest, type SpawnWrapper, STATE_FD } from "../wrapper.ts";
import { firstOf, type Supervisor } from "./supervisor.ts";
import { BusyRetry, type Room, StartStop } from "./busy_retry.ts";
import { PendingInput } from "./input.ts";
import { refusalError } from "./refusal.ts";
import { WrapperAttempt } from "./attempt.ts";

/** How long past the grace a termination may go unconfirmed before the command counts as lost. */
const CONFIRM_AFTER_GRACE_MS = 10_000;

const encoder = new TextEncoder();

/** One command on a remote engine. */
export class RemoteCommand implements Running {
  /** Settles once the connection has answered and the wrapper is started: the timeout counts from then. */
  readonly counting: Promise<void>;
  /** The command's open stdin (`keepStdin`, `tty`), forwarded to the wrapper's client once the command has started. */
  readonly input: PendingInput | undefined;
  readonly resize: ((size: TerminalSize) => void) | undefined;
  readonly #backend: RemoteSessions;
  /** The command: its spec, where its output goes, whether it is a session's (it leaves its state: `#state`). */
  readonly #command: CommandStart;
  /**
   * The connection, once the start is over: a wrapper ran (or never will); undefined when a stop came before the
   * connection answered (nothing was started). Rejects with a failed connection's error.
   */
  readonly #begun: Promise<Supervisor | undefined>;
  /** A stop (the deadline fired) before the wrapper said which session it is. */
  readonly #startStop = new StartStop();
  #supervisor: Supervisor | undefined;
  /** The wrapper now started (the last, once the start is over). */
  #attempt: WrapperAttempt | undefined;
  /** The size of the command's terminal, when it runs on one: the one asked for, then the last resize(). */
  #terminal: TerminalSize | undefined;
  #session: RemoteSession | undefined;
  #pid = 0;
  /** Its client released: the end is known, and nothing of it is waited for any more. */
  #released = false;
  #settled = false;
  /** How the last wrapper's client had exited when the end was known (undefined: it had not). */
  #endExit: { code: number | null; signal: string | null } | undefined;
  /** What became of the last wrapper the engine refused for want of a session. */
  #room: Room = "no";
  #refusal: string | undefined;
  #announceGone: () => void = () => {};
  /** The supervisor's word, after our termination, that nothing of the session runs. */
  readonly #gone = new Promise<void>((resolve) => this.#announceGone = resolve);
  #backstop: ReturnType<typeof setTimeout> | undefined;
  #unconfirmed = false;
  /** What wraps its request before it is sent: the backend's (the terminal), after the carry's for a session's. */
  readonly #wrapper: SpawnWrapper;
  #state: TakenState = { change: undefined };

  /**
   * Checks what can be checked before connecting, and starts. Throws
   * `ShellSpecError` for an explicit variable no shell can pass.
   */
  constructor(backend: RemoteSessions, command: CommandStart) {
    const { spec } = command;
    this.#backend = backend;
    this.#command = command;
    // No shell named: on an engine the trap writes through a `cat`, whatever the shell (`carry/script.ts`).
    this.#wrapper = command.carry
      ? chainWrappers([carryWrapper({ fd: STATE_FD }), backend.wrapper]) ?? backend.wrapper
      : backend.wrapper;
    checkPortableNames("env", ownValue(spec, "env"), backend.engine.name);
    checkPortableNames("dshEnv", ownValue(spec, "dshEnv"), backend.engine.name);
    this.#terminal = terminalSize(ownValue(spec, "tty"));
    this.input = ownValue(spec, "keepStdin") === true || this.#terminal !== undefined ? new PendingInput() : undefined;
    this.resize = this.#terminal === undefined ? undefined : (size) => this.#resize(size);
    // On a terminal the request's stdin is typed once the command's terminal is as the command will see it (after the
    // wrapper's first line), never with the header into a raw one: first in the queue, before any write().
    const stdin = ownValue(spec, "stdin");
    if (this.#terminal !== undefined && stdin !== undefined) {
      void this.input?.write(typeof stdin === "string" ? encoder.encode(stdin) : stdin);
    }
    let count = (): void => {};
    this.counting = new Promise<void>((resolve) => count = resolve);
    this.#begun = this.#begin(count);
    // Read by exited(); a connection that failed must not be an unhandled rejection before that.
    this.#begun.catch(() => {});
  }

  /** Its session's id on the engine, once it has started there (0 until then). */
  get pid(): number {
    return this.#pid;
  }

  /** Ends the command's whole session on the engine; before it started there, as soon as it does (or never starts it). */
  terminate(): void {
    const session = this.#session;
    if (session === undefined) return this.#startStop.stop();
    const { shell } = this.#backend;
    shell.track(
      this.#backend.terminate(session).then(() => {
        if (session.gone) this.#announceGone();
      }),
    );
    if (this.#released) return;
    this.#backstop ??= setTimeout(() => {
      this.#unconfirmed = true;
      this.#attempt?.process.abandon();
    }, shell.options.graceMs + CONFIRM_AFTER_GRACE_MS);
  }

  async exited(): Promise<void> {
    const supervisor = await this.#begun;
    // Stopped before the connection answered: nothing was started.
    if (supervisor === undefined) return;
    const { graceMs } = this.#backend.shell.options;
    const { process, drained } = this.#attempt as WrapperAttempt;
    // The end: the client's exit once its last bytes are read (the wrapper drains what a background process holds for
    // at most graceMs, then exits); or, after our termination, the supervisor's word that nothing of the session runs
    // (a client can take seconds to see its program die).
    await Promise.race([drained, this.#gone.then(() => firstOf(drained, graceMs))]);
    this.#endExit = this.#attempt?.exit;
    // Stops reading the client's output and ends the client (what it started lives on, recorded, until ended).
    this.#released = true;
    process.releaseOutput();
    process.abandon();
    clearTimeout(this.#backstop);
  }

  async interpret(cause: StopCause | undefined): Promise<CommandExit> {
    try {
      return await this.#interpret(cause);
    } finally {
      this.#settled = true;
      clearTimeout(this.#backstop);
    }
  }

  endSurvivors(): boolean {
    // Settled: what the command left running is still the caller's to end.
    const session = this.#session;
    if (!this.#settled || session === undefined || !this.#backend.alive(session)) return false;
    this.#backend.shell.track(this.#backend.terminate(session));
    return true;
  }

  state(): Promise<TakenState> {
    return Promise.resolve(this.#state);
  }

  async #interpret(cause: StopCause | undefined): Promise<CommandExit> {
    const supervisor = this.#supervisor;
    // Stopped before the connection answered, or while it waited for a session: it never ran.
    if (supervisor === undefined) return { exitCode: null, signal: null };
    const { engine, shell } = this.#backend;
    const exit = this.#endExit;
    if (this.#refusal !== undefined) {
      throw refusalError(this.#refusal, {
        engine,
        spec: this.#command.spec,
        shell: shell.options.shell,
        path: supervisor.env.PATH,
      });
    }
    if (this.#room === "stopped") return { exitCode: null, signal: null };
    if (this.#session === undefined) {
      const attempt = this.#attempt as WrapperAttempt;
      const exited = exit ?? await attempt.process.exited;
      if (supervisor.failure !== undefined) throw supervisor.failure;
      throw new ShellEngineError(engine.name, engine.target, supervisor.link.explain(attempt.failure(exited)));
    }
    // It started. Its client's exit is its status only while the link is up: a connection that dropped ends its
    // clients too (ssh's 255), and whether it did is the supervisor's link's to say, never the command's; unless the
    // engine says that this exit can only have come from its side (ssh: any code but 255), which saves the question.
    const fromEngine = exit !== undefined && supervisor.link.fromEngine?.(exit) === true;
    if (supervisor.failure !== undefined || (!fromEngine && !await supervisor.confirm())) throw this.#lost(supervisor);
    if (exit !== undefined && exit.code !== null) {
      // Before settled(): once the supervisor sees the session gone it removes the state file.
      if (this.#command.carry && cause === undefined) await this.#takeState(supervisor, this.#session.sid);
      this.#backend.settled(this.#session);
      const { code } = exit;
      const signal = cause === undefined
        ? null
        : code === 143
        ? "SIGTERM"
        : code === 137 || code === 255
        ? "SIGKILL"
        : null;
      return { exitCode: signal === null ? code : null, signal };
    }
    // After our termination: gone on the engine's side, and its client did not exit in time, or was ended by us.
    if (cause !== undefined && !this.#unconfirmed) return { exitCode: null, signal: "SIGKILL" };
    shell.track(this.#backend.terminate(this.#session));
    throw new ShellEngineError(
      engine.name,
      engine.target,
      this.#unconfirmed
        ? `the end of the command was not confirmed within ${
          shell.options.graceMs + CONFIRM_AFTER_GRACE_MS
        } ms of its termination`
        : `the command's wrapper was ended by ${exit?.signal ?? "a signal"} on the engine's side before it could ` +
          "report how the command ended",
    );
  }

  /**
   * The connection, unless a stop comes first (then undefined, and nothing is started); then the wrapper, started
   * again while the engine refuses it for want of a session (`busy_retry.ts`).
   */
  async #begin(count: () => void): Promise<Supervisor | undefined> {
    const stopped = this.#startStop.came.then(() => undefined);
    const supervisor = await Promise.race([this.#backend.connection(), stopped]);
    if (supervisor === undefined) return undefined;
    this.#supervisor = supervisor;
    // A lost connection ends the wait at once: the result is an engine error whatever the command does.
    supervisor.ended.then(() => {
      if (supervisor.failure !== undefined && !this.#released) this.#attempt?.process.abandon();
    });
    let answered = this.#start(supervisor);
    count();
    const busy = new BusyRetry(this.#backend);
    while (!await answered) {
      // It ended without a word from the engine's side: refused for want of a session, it may start again.
      const attempt = this.#attempt as WrapperAttempt;
      const room = await busy.after(supervisor, attempt.process, this.#startStop, (exit) => attempt.failure(exit));
      if (room !== "retry") {
        this.#room = room;
        break;
      }
      answered = this.#start(supervisor);
    }
    return supervisor;
  }

  /**
   * Resizes the session's terminal over there, through the supervisor only: one writer, in the order of the calls.
   * The client's own terminal here stays 0 × 0 (see `startProcess`), so the client never sends a size of its own: a
   * client that did could land its first size, read before this resize, after it, and undo it (Docker's CLI sends
   * that one when it starts and answers SIGWINCH only once it has landed). Before the wrapper has said which session
   * it is, the size waits for that line (`started`), or goes in the header of a wrapper not yet started.
   */
  #resize(size: TerminalSize): void {
    this.#terminal = size;
    const session = this.#session;
    if (session !== undefined && !session.gone) session.supervisor.resize(session.sid, size);
  }

  async #takeState(supervisor: Supervisor, sid: number): Promise<void> {
    const taken = await supervisor.takeState(sid, this.#backend.shell.options.maxSessionStateBytes);
    const read = taken?.refused ?? taken?.bytes;
    if (read !== undefined) this.#state = stateOf(read, this.#attempt?.env ?? {});
  }

  /**
   * Starts the wrapper with what the wrappers made of the command's request. Resolves once the wrapper has answered
   * (true: it said which session it is, or why it refused), or its client has ended without a word (false).
   */
  #start(supervisor: Supervisor): Promise<boolean> {
    const { host, options } = this.#backend.shell;
    const { spec, stdout, stderr } = this.#command;
    const env = commandEnv(spec, supervisor.env, host.scrubDecisions);
    // The engine's own variables that no shell can pass (the caller's were refused up front) are left out.
    for (const name of Object.keys(env)) if (!isShellName(name)) delete env[name];
    // The request as the local transport builds it; what the wrappers make of it (a session's trap, the terminal's
    // TERM, size and mark) is what the header sends, and the engine's wrapper script does the rest.
    const asked = commandRequest(spec, options.shell, env, { onStdout: stdout, onStderr: stderr });
    const wrapped = this.#wrapper.wrap(asked, spec);
    const request = wrapped?.request ?? asked;
    const attempt = new WrapperAttempt(supervisor, request, ownValue(spec, "args") === undefined, {
      mark: wrapped?.followedMark,
      // On a terminal: the size asked for, or the last resize() since.
      size: request.terminal === undefined ? undefined : this.#terminal ?? request.terminal,
      state: this.#command.carry,
      keepStdin: this.input !== undefined,
      graceMs: options.graceMs,
    }, {
      started: (sid) => this.#started(supervisor, sid),
      refused: (reason) => this.#refusal = reason,
    });
    this.#attempt = attempt;
    this.#backend.holds(attempt.process);
    return attempt.answered.then(() => this.#refusal !== undefined || this.#session !== undefined);
  }

  /** The wrapper now started said which session it is: the command has started. */
  #started(supervisor: Supervisor, sid: number): void {
    const attempt = this.#attempt as WrapperAttempt;
    this.#backend.seated(attempt.process);
    // Only now: a wrapper the engine refused for want of room is started again, and what it was given is lost.
    const given = ownValue(attempt.process, "input");
    if (given !== undefined) this.input?.attach(given);
    this.#pid = sid;
    this.#session = this.#backend.started(supervisor, sid);
    // A resize() made since the header was written: the wrapper has set the header's size, this one comes after.
    const size = this.#terminal;
    if (size !== undefined && size !== attempt.size) supervisor.resize(sid, size);
    if (this.#startStop.stopped) this.terminate();
  }

  /** The error for a command that the supervisor ended because the connection was lost. */
  #lost(supervisor: Supervisor): ShellEngineError {
    const { engine } = this.#backend;
    return supervisor.failure ??
      new ShellEngineError(engine.name, engine.target, "the connection was lost while the command ran");
  }
}
