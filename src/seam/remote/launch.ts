/**
 * One command on a remote engine, from spec to result: the connection, the
 * environment built here from the engine's ambient one, the wrapper started
 * through the engine's link with the header and the command's stdin, its
 * first line of stderr read (`frames.ts`), its deadline wired to a
 * termination of its whole session on the engine's side, and the result.
 *
 * How it ends, and what the caller sees:
 * - the command's status is the exit code of the engine's client (`ssh`
 *   and `docker exec` exit with their program's: the wrapper exits with
 *   its command's), once the supervisor's link has answered a question
 *   after it: a client that ended because the connection did is never
 *   taken for a status. Nothing on stderr after its first line counts:
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

import type { ChildInput, TerminalSize } from "../adapter.ts";
import { OutputCollector } from "../capture/collector.ts";
import { OutputEvents } from "../capture/output_events.ts";
import type { EngineFailure, EngineProcess } from "../engine.ts";
import { mergeEnvWith } from "../env/merge.ts";
import { markNestedShell } from "../env/shell_level.ts";
import { ShellEngineError, ShellSpawnError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import type { Launched } from "../backend.ts";
import { Deadline, type StopCause } from "../terminate/deadline.ts";
import { buildResult } from "../settle/result.ts";
import { sharedTimer } from "../terminate/shared_timer.ts";
import type { ShellExecSpec, ShellObserver, ShellRunResult } from "../types.ts";
import type { RemoteSession, RemoteSessions } from "./sessions.ts";
import { WrapperFrames } from "./frames.ts";
import { checkPortableNames, commandHeader, isShellName } from "./header.ts";
import { TERMINAL_WRAPPER_ARGV, WRAPPER_ARGV } from "./scripts.ts";
import { terminalSize } from "../terminal/size.ts";
import { DEFAULT_TERM } from "../terminal/wrapper.ts";
import { statePrelude } from "../carry/script.ts";
import { newMark } from "../guard/record.ts";
import { MARK_VARIABLE } from "../session/marked.ts";
import { parseState, type StateChange } from "../carry/state.ts";
import { STATE_FD } from "../wrapper.ts";
import { firstOf, type Supervisor } from "./supervisor.ts";

/**
 * sshd frees a session a moment after its client has gone, so a command woken by a freed session can be refused
 * again with nothing of the shell holding one: it tries again after each of these pauses before the refusal stands
 * (about 1.3 s in all). Seen in CI: the retry right after the wake was refused, on two Node legs of three.
 */
const SETTLING_RETRY_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 640];

/** What became of a command whose wrapper the engine refused for want of a session (see `#waitForRoom`). */
type Room = "no" | "retry" | "stopped";

/** How long past the grace a termination may go unconfirmed before the command counts as lost. */
const CONFIRM_AFTER_GRACE_MS = 10_000;

const encoder = new TextEncoder();

/** One command on a remote engine. */
export class RemoteCommand {
  /** What the shell and its task see. */
  readonly launched: Launched;
  readonly #backend: RemoteSessions;
  readonly #spec: ShellExecSpec;
  readonly #timeoutMs: number | undefined;
  readonly #startedAt = performance.now();
  readonly #stdout: OutputCollector;
  readonly #stderr: OutputCollector;
  readonly #events: OutputEvents;
  #deadline: Deadline | undefined;
  /** Ends the wait for a connection: a stop that came before the command started. */
  #stopConnecting: ((cause: StopCause) => void) | undefined;
  #earlyCause: StopCause | undefined;
  #process: EngineProcess | undefined;
  /** The command's open stdin (`keepStdin`, `tty`), forwarded to the wrapper's client once the command has started. */
  #input: PendingInput | undefined;
  /** The size of the command's terminal, when it runs on one: the one asked for, then the last resize(). */
  #terminal: TerminalSize | undefined;
  /** The size the header of the wrapper now starting carries (the wrapper sets it before the command runs). */
  #headerSize: TerminalSize | undefined;
  #session: RemoteSession | undefined;
  #pid = 0;
  #terminateWhenStarted = false;
  #settled = false;
  #endingSurvivors = false;
  /** How the current wrapper's client exited, once it has. */
  #exit: { code: number | null; signal: string | null } | undefined;
  #refusal: string | undefined;
  #announceGone: () => void = () => {};
  #backstop: ReturnType<typeof setTimeout> | undefined;
  #unconfirmed = false;
  /** Woken by a freed session at least once, and how many settling retries it has had since. */
  #woken = false;
  #settlingRetries = 0;
  /** A session's command: it leaves its state, taken once it exited (`#state`). */
  readonly #carry: boolean;
  #state: StateChange | undefined;
  /** The environment the command was given, which its state is read against. */
  #env: Record<string, string> = {};

  /**
   * Checks what can be checked before connecting, and starts. Throws
   * `ShellSpecError` for an explicit variable no shell can pass.
   */
  constructor(
    backend: RemoteSessions,
    spec: ShellExecSpec,
    timeoutMs: number | undefined,
    observer: ShellObserver | undefined,
    carry: boolean,
  ) {
    this.#backend = backend;
    // Only a command line can change a directory or an environment that outlives its program.
    this.#carry = carry && ownValue(spec, "args") === undefined;
    this.#spec = spec;
    this.#timeoutMs = timeoutMs;
    checkPortableNames("env", ownValue(spec, "env"), backend.engine.name);
    checkPortableNames("dshEnv", ownValue(spec, "dshEnv"), backend.engine.name);
    const { options } = backend.shell;
    this.#stdout = this.#collector(spec.stdoutMaxBytes, "stdout");
    this.#stderr = this.#collector(options.maxOutputBytes, "stderr");
    this.#events = new OutputEvents(observer);
    this.#terminal = terminalSize(ownValue(spec, "tty"));
    if (ownValue(spec, "keepStdin") === true || this.#terminal !== undefined) this.#input = new PendingInput();
    // On a terminal the request's stdin is typed once the command's terminal is as the command will see it (after the
    // wrapper's first line), never with the header into a raw one: first in the queue, before any write().
    const stdin = ownValue(spec, "stdin");
    if (this.#terminal !== undefined && stdin !== undefined) {
      void this.#input?.write(typeof stdin === "string" ? encoder.encode(stdin) : stdin);
    }
    const result = this.#run().then(
      (value) => this.#finish(value),
      (error: unknown) => this.#finish(undefined, error),
    );
    const pid = (): number => this.#pid;
    const input = this.#input;
    this.launched = {
      get pid(): number {
        return pid();
      },
      stdout: this.#stdout,
      stderr: this.#stderr,
      result,
      events: this.#events,
      stop: (cause) => this.#stop(cause),
      input,
      resize: this.#terminal === undefined ? undefined : (size) => this.#resize(size),
      state: this.#carry ? () => this.#state : undefined,
    };
  }

  async #run(): Promise<ShellRunResult> {
    const { engine, shell } = this.#backend;
    const signals = [ownValue(this.#spec, "signal"), shell.closeSignal];
    const supervisor = await this.#connect(signals);
    if (supervisor === undefined) return this.#result(null, null, this.#earlyCause);
    let process = this.#start(supervisor);
    const deadline = new Deadline(this.#timeoutMs, signals, shell.host.abortListeners, () => this.#terminate());
    this.#deadline = deadline;
    if (this.#earlyCause !== undefined) deadline.fire(this.#earlyCause);
    // A lost connection ends the wait at once: the result is an engine error whatever the command does.
    supervisor.ended.then(() => {
      if (supervisor.failure !== undefined && !this.#settled) this.#process?.abandon();
    });
    const { graceMs } = shell.options;
    const ended = new Promise<void>((resolve) => this.#announceGone = resolve);
    let room: Room = "no";
    do {
      if (room === "retry") process = this.#start(supervisor);
      const current = process;
      // The end: the client's exit once its last bytes are read (the wrapper drains what a background process holds
      // for at most graceMs, then exits); or, after our termination, the supervisor's word that nothing of the session
      // runs (a client can take seconds to see its program die).
      await Promise.race([
        current.exited.then(() => firstOf(current.drained, graceMs)),
        ended.then(() => firstOf(current.exited.then(() => firstOf(current.drained, graceMs)), graceMs)),
      ]);
      room = await this.#waitForRoom(supervisor, current, deadline);
    } while (room === "retry");
    const exit = this.#exit;
    this.#release(process);
    const cause = deadline.cause;
    deadline.dispose();
    clearTimeout(this.#backstop);
    if (this.#refusal !== undefined) throw this.#refused(this.#refusal, supervisor);
    // Stopped while it waited for a session: it never ran, as when stopped before the connection answered.
    if (room === "stopped") return this.#result(null, null, cause);
    if (this.#session === undefined) {
      const exited = exit ?? await process.exited;
      if (supervisor.failure !== undefined) throw supervisor.failure;
      throw new ShellEngineError(engine.name, engine.target, supervisor.link.explain(this.#clientFailure(exited)));
    }
    // It started. Its client's exit is its status only while the link is up: a connection that dropped ends its
    // clients too (ssh's 255), and whether it did is the supervisor's link's to say, never the command's.
    if (supervisor.failure !== undefined || !await supervisor.confirm()) throw this.#lost(supervisor);
    if (exit !== undefined && exit.code !== null) {
      // Before settled(): once the supervisor sees the session gone it removes the state file.
      if (this.#carry && cause === undefined) await this.#takeState(supervisor, this.#session.sid);
      this.#backend.settled(this.#session);
      const { code } = exit;
      const signal = cause === undefined
        ? null
        : code === 143
        ? "SIGTERM"
        : code === 137 || code === 255
        ? "SIGKILL"
        : null;
      return this.#result(signal === null ? code : null, signal, cause);
    }
    // After our termination: gone on the engine's side, and its client did not exit in time, or was ended by us.
    if (cause !== undefined && !this.#unconfirmed) return this.#result(null, "SIGKILL", cause);
    this.#backend.shell.track(this.#backend.terminate(this.#session));
    throw new ShellEngineError(
      engine.name,
      engine.target,
      this.#unconfirmed
        ? `the end of the command was not confirmed within ${graceMs + CONFIRM_AFTER_GRACE_MS} ms of its termination`
        : `the command's wrapper was ended by ${exit?.signal ?? "a signal"} on the engine's side before it could ` +
          "report how the command ended",
    );
  }

  #frames: WrapperFrames | undefined;

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
    const bytes = await supervisor.takeState(sid);
    if (bytes !== undefined) this.#state = parseState(new TextDecoder().decode(bytes), this.#env);
  }

  /**
   * After a wrapper ended without a word from the engine's side: whether it
   * was refused only for want of a session on the connection (see
   * `EngineLink.busy`) while other commands of the shell hold one. Then it
   * waits for one of them to end and says `retry` (and, once woken, a few
   * more times after short pauses while the server lets go of the freed
   * session: see {@linkcode SETTLING_RETRY_MS}); `stopped` when the
   * deadline fired or the connection ended meanwhile; `no` otherwise, and
   * the failure is reported as before.
   */
  async #waitForRoom(supervisor: Supervisor, process: EngineProcess, deadline: Deadline): Promise<Room> {
    if (this.#refusal !== undefined || this.#session !== undefined) return "no";
    const busy = supervisor.link.busy;
    if (busy === undefined || supervisor.failure !== undefined) return "no";
    const exit = await process.exited;
    if (!busy.call(supervisor.link, this.#clientFailure(exit))) return "no";
    // Stopped while an attempt was on its way: it never ran either.
    if (deadline.cause !== undefined) return "stopped";
    const freed = this.#backend.sessionFreed();
    if (this.#backend.othersHolding(process)) {
      await Promise.race([freed, deadline.fired, supervisor.ended]);
      this.#woken = true;
      this.#settlingRetries = 0;
    } else {
      // Nothing of the shell holds a session: refused for good, unless one was freed just now and the server has
      // not let go of it yet.
      if (!this.#woken || this.#settlingRetries >= SETTLING_RETRY_MS.length) return "no";
      let cancel = (): void => {};
      const paused = new Promise<void>((resolve) => {
        cancel = sharedTimer.after(SETTLING_RETRY_MS[this.#settlingRetries++], resolve);
      });
      await Promise.race([paused, freed, deadline.fired, supervisor.ended]);
      cancel();
    }
    if (supervisor.failure !== undefined) return "no";
    return deadline.cause === undefined ? "retry" : "stopped";
  }

  /** The connection, unless a stop comes first (then undefined, and nothing is started). */
  async #connect(signals: (AbortSignal | undefined)[]): Promise<Supervisor | undefined> {
    const { host } = this.#backend.shell;
    const stopped = new Promise<undefined>((resolve) => {
      this.#stopConnecting = (cause) => {
        this.#earlyCause ??= cause;
        resolve(undefined);
      };
    });
    const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    const unsubscribes = given.map((signal) =>
      host.abortListeners.onAbort(signal, () => this.#stopConnecting?.("abort"))
    );
    if (given.some((signal) => signal.aborted)) this.#stopConnecting?.("abort");
    try {
      return await Promise.race([this.#backend.connection(), stopped]);
    } finally {
      this.#stopConnecting = undefined;
      for (const unsubscribe of unsubscribes) unsubscribe();
    }
  }

  /** Starts the wrapper with the header, its stdin after it. */
  #start(supervisor: Supervisor): EngineProcess {
    const { host, options } = this.#backend.shell;
    const env = markNestedShell(mergeEnvWith({
      ambient: supervisor.env,
      env: ownValue(this.#spec, "env"),
      dshEnv: ownValue(this.#spec, "dshEnv"),
    }, host.scrubDecisions));
    // The engine's own variables that no shell can pass (the caller's were refused up front) are left out.
    for (const name of Object.keys(env)) if (!isShellName(name)) delete env[name];
    const terminal = this.#terminal;
    this.#headerSize = terminal;
    if (terminal !== undefined && typeof ownValue(this.#spec, "env")?.TERM !== "string") env.TERM = DEFAULT_TERM;
    // A terminal's command is followed by its mark, as locally: what it starts with `setsid` leaves its session but
    // carries the mark, which the supervisor sweeps for when it ends the session (the wrapper records it).
    const mark = terminal === undefined ? undefined : newMark();
    if (mark !== undefined) env[MARK_VARIABLE] = mark;
    const stdin = ownValue(this.#spec, "stdin");
    const args = ownValue(this.#spec, "args");
    const input = this.#input;
    this.#env = env;
    const header = commandHeader({
      env,
      mark,
      ...(terminal === undefined ? {} : { size: terminal }),
      state: this.#carry,
      workdir: this.#spec.workdir,
      recordDir: supervisor.recordDir,
      stdin: stdin !== undefined || input !== undefined,
      graceMs: options.graceMs,
      run: args === undefined
        ? {
          shell: options.shell,
          command: this.#carry ? statePrelude({ fd: STATE_FD }) + this.#spec.command : this.#spec.command,
        }
        : { argv: [this.#spec.command, ...args] },
    });
    const frames = new WrapperFrames(header.nonce, {
      started: (sid) => {
        if (this.#process !== undefined) this.#backend.seated(this.#process);
        // Only now: a wrapper the engine refused for want of room is started again, and what it was given is lost.
        const given = this.#process === undefined ? undefined : ownValue(this.#process, "input");
        if (given !== undefined) input?.attach(given);
        this.#pid = sid;
        this.#session = this.#backend.started(supervisor, sid);
        // A resize() made since the header was written: the wrapper has set the header's size, this one comes after.
        const size = this.#terminal;
        if (size !== undefined && size !== this.#headerSize) supervisor.resize(sid, size);
        if (this.#terminateWhenStarted) this.#terminate();
      },
      refused: (reason) => this.#refusal = reason,
      // On a terminal everything after the first line is the command's, and it is all stdout.
      stderr: terminal === undefined
        ? (chunk) => {
          this.#stderr.write(chunk);
          this.#events.stderr(chunk);
        }
        : (chunk) => {
          this.#stdout.write(chunk);
          this.#events.stdout(chunk);
        },
    });
    this.#frames = frames;
    const bytes = typeof stdin === "string" ? encoder.encode(stdin) : stdin;
    const first = bytes === undefined ? header.bytes : join(header.bytes, bytes);
    let process: EngineProcess;
    if (terminal === undefined) {
      process = supervisor.link.run(WRAPPER_ARGV, first, {
        onStdout: (chunk) => {
          this.#stdout.write(chunk);
          this.#events.stdout(chunk);
        },
        onStderr: (chunk) => frames.push(chunk),
      }, input === undefined ? undefined : { keepStdin: true });
    } else {
      // The header is typed into the engine's terminal only once the wrapper has made it raw and said so: before
      // that, the terminal would echo it and act on its control characters.
      const ready = new ReadyLine(() => void process.input?.write(header.bytes));
      process = supervisor.link.run(TERMINAL_WRAPPER_ARGV, new Uint8Array(0), {
        onStdout: (chunk) => {
          ready.push(chunk);
          frames.push(chunk);
        },
        // The local client runs on a terminal of its own: nothing comes apart.
        onStderr: (chunk) => frames.push(chunk),
      }, { keepStdin: true, terminal });
    }
    this.#process = process;
    this.#exit = undefined;
    process.exited.then((exit) => {
      if (this.#process === process) this.#exit = exit;
    });
    this.#backend.holds(process);
    process.drained.then(() => frames.end());
    return process;
  }

  /** Ends the command's whole session on the engine; before it started there, as soon as it does. */
  #terminate(): void {
    const session = this.#session;
    if (session === undefined) {
      this.#terminateWhenStarted = true;
      return;
    }
    const { shell } = this.#backend;
    shell.track(
      this.#backend.terminate(session).then(() => {
        if (session.gone) this.#announceGone();
      }),
    );
    this.#backstop ??= setTimeout(() => {
      this.#unconfirmed = true;
      this.#process?.abandon();
    }, shell.options.graceMs + CONFIRM_AFTER_GRACE_MS);
  }

  #stop(cause: StopCause): boolean {
    if (!this.#settled) {
      if (this.#deadline !== undefined) return this.#deadline.fire(cause);
      if (this.#earlyCause !== undefined) return false;
      this.#earlyCause = cause;
      this.#stopConnecting?.(cause);
      return true;
    }
    // Settled: what the command left running is still the caller's to end; the result stays as it is.
    const session = this.#session;
    if (session === undefined || this.#deadline?.cause !== undefined || this.#endingSurvivors) return false;
    if (!this.#backend.alive(session)) return false;
    this.#endingSurvivors = true;
    this.#backend.shell.track(this.#backend.terminate(session));
    return true;
  }

  /** Stops reading the client's output and ends the client (what it started lives on, recorded, until ended). */
  #release(process: EngineProcess): void {
    process.releaseOutput();
    process.abandon();
  }

  #result(exitCode: number | null, signal: string | null, cause: StopCause | undefined): ShellRunResult {
    return buildResult({
      exitCode,
      signal,
      cause,
      timeoutMs: this.#timeoutMs ?? this.#spec.timeoutMs,
      startedAt: this.#startedAt,
      stdout: this.#stdout,
      stderr: this.#stderr,
      events: this.#events,
    });
  }

  /** Settles: a failure goes on stderr too (a task's reader sees it), and the collectors are finished. */
  #finish(result: ShellRunResult | undefined, error?: unknown): ShellRunResult {
    this.#settled = true;
    clearTimeout(this.#backstop);
    this.#deadline?.dispose();
    if (result !== undefined) return result;
    if (error instanceof Error) this.#stderr.write(encoder.encode(`${error.name}: ${error.message}\n`));
    this.#stdout.finish();
    this.#stderr.finish();
    throw error;
  }

  /** The error for a command that the supervisor ended because the connection was lost. */
  #lost(supervisor: Supervisor): ShellEngineError {
    const { engine } = this.#backend;
    return supervisor.failure ??
      new ShellEngineError(engine.name, engine.target, "the connection was lost while the command ran");
  }

  /** The error for a wrapper's refusal: the same `ShellSpawnError` as locally where the caller's input is at fault. */
  #refused(reason: string, supervisor: Supervisor): Error {
    const { engine, shell } = this.#backend;
    const where = `${engine.name} ${engine.target}`;
    const workdir = this.#spec.workdir;
    const program = ownValue(this.#spec, "args") === undefined ? shell.options.shell : this.#spec.command;
    const role = ownValue(this.#spec, "args") === undefined ? "shell" : "program";
    const path = supervisor.env.PATH;
    switch (reason) {
      case "cwd-missing":
        return new ShellSpawnError(`workdir does not exist on ${where}: ${workdir}`, workdir);
      case "cwd-not-dir":
        return new ShellSpawnError(`workdir is not a directory on ${where}: ${workdir}`, workdir);
      case "cwd-access":
        return new ShellSpawnError(`workdir cannot be entered on ${where}: ${workdir}`, workdir);
      case "shell":
      case "program": {
        const searched = program.includes("/") ? "" : ` (PATH=${this.#childPath() ?? path ?? "/usr/bin:/bin"})`;
        return new ShellSpawnError(
          `cannot start the ${role} "${program}" on ${where}: not found or not executable${searched}`,
          program,
        );
      }
      case "supervisor":
        return new ShellEngineError(
          engine.name,
          engine.target,
          "the supervisor's record directory is gone: it is ending every session (the connection was lost), or a " +
            "command removed it",
        );
      case "session":
        return new ShellEngineError(
          engine.name,
          engine.target,
          "the engine did not start the command's wrapper as the leader of a new session, so its processes could " +
            "not be ended as a whole",
        );
      default:
        return new ShellEngineError(engine.name, engine.target, `the command's wrapper refused it: ${reason}`);
    }
  }

  /** The `PATH` the command itself would have had. */
  #childPath(): string | undefined {
    const env = ownValue(this.#spec, "env");
    return env !== undefined && Object.hasOwn(env, "PATH") ? env.PATH : undefined;
  }

  /** How the current wrapper's client ended, with what it said itself (outside the wrapper's frames). */
  #clientFailure(exit: { code: number | null; signal: string | null }): EngineFailure {
    return { code: exit.code, signal: exit.signal, stderr: this.#frames?.clientText ?? "" };
  }

  #collector(budget: number, label: string): OutputCollector {
    const { options } = this.#backend.shell;
    return new OutputCollector({
      budget,
      maxSpillBytes: options.maxSpillBytes,
      spillDirectory: () => this.#backend.spill.path(),
      label,
    });
  }
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * A remote command's open stdin: what is written before the command has
 * started on the engine is queued (a wrapper may be refused and started
 * again), and handed to the wrapper's client, in order, once it has.
 */
class PendingInput implements ChildInput {
  #target: ChildInput | undefined;
  #queue: Uint8Array[] = [];
  #ended = false;

  write(bytes: Uint8Array): Promise<void> {
    if (this.#target !== undefined) return this.#target.write(bytes);
    // A copy: the caller may reuse its buffer before the command starts.
    this.#queue.push(bytes.slice());
    return Promise.resolve();
  }

  end(): void {
    if (this.#target !== undefined) this.#target.end();
    else this.#ended = true;
  }

  /** From now on writes go to `target`, what was queued first. */
  attach(target: ChildInput): void {
    if (this.#target !== undefined) return;
    this.#target = target;
    for (const bytes of this.#queue) void target.write(bytes);
    this.#queue = [];
    if (this.#ended) target.end();
  }
}

/** What the terminal wrapper says once its terminal is raw: the header may be sent. */
const READY_LINE = "dsh-ready\n";

/** Watches the start of a terminal wrapper's output for its ready line, and calls `onReady` once (bounded). */
class ReadyLine {
  readonly #onReady: () => void;
  #seen = "";
  #done = false;

  constructor(onReady: () => void) {
    this.#onReady = onReady;
  }

  push(chunk: Uint8Array): void {
    if (this.#done) return;
    this.#seen = (this.#seen + new TextDecoder().decode(chunk)).slice(-4096);
    // The client's own terminal may still turn "\n" into "\r\n" when the line comes (before it made itself raw).
    if (!this.#seen.includes(READY_LINE) && !this.#seen.includes(READY_LINE.replace("\n", "\r\n"))) return;
    this.#done = true;
    this.#seen = "";
    this.#onReady();
  }
}
