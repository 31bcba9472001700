/**
 * The remote backend: a shell's commands on an engine, the remote transport
 * of the launch pipeline (each command is a `RemoteCommand`,
 * `command.ts`). It keeps the shell's
 * connection (opened at the first command, opened again after one was
 * lost), the sessions its commands started there (running, or left behind
 * by a finished command), and ends them: one by one on a timeout, an abort
 * or `kill()`, all of them at `close()`.
 *
 * A lost connection is not the end of the story. Where the engine's side
 * noticed (its stdin reached end of file, its heartbeat stopped), the
 * supervisor has already ended every session. But a supervisor can also be
 * killed on the engine's side — by a command, say — and then nobody there
 * ends anything. So the sessions of a lost connection are ended again
 * through a fresh connection, whenever one can be had.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { BackendContext, ShellBackend } from "../backend.ts";
import { SpillDirectory } from "../capture/spill.ts";
import type { EngineLink, EngineProcess, RemoteEngine } from "../engine.ts";
import { terminalWrapper } from "../terminal/wrapper.ts";
import type { CommandStart, Running } from "../transport.ts";
import type { SpawnWrapper } from "../wrapper.ts";
import { RemoteCommand } from "./command.ts";
import type { RemoteSession, RemoteSessions } from "./sessions.ts";
import { Supervisor } from "./supervisor.ts";

/** Default silence after which the engine's side ends everything (see `docs/engines.md`). */
export const DEFAULT_HEARTBEAT_MS = 3_000;
/** Default time a connection may take to answer. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;

/** A shell's commands on one remote engine. */
export class RemoteBackend implements ShellBackend, RemoteSessions {
  readonly engine: RemoteEngine;
  readonly shell: BackendContext;
  readonly spill: SpillDirectory;
  /**
   * The terminal, as locally (an engine has no sandbox); it marks each command on a terminal itself, since only those
   * carry a mark on an engine.
   */
  readonly wrapper: SpawnWrapper = terminalWrapper({ marks: true });
  readonly #sessions = new Set<RemoteSession>();
  readonly #supervisors = new Set<Supervisor>();
  #current: Supervisor | undefined;
  #shutDown = false;
  /** The commands' clients now running: each holds, or may yet get, a session of its connection. */
  readonly #holding = new Set<EngineProcess>();
  /** Those of them whose wrapper started: they certainly hold one. */
  readonly #seated = new Set<EngineProcess>();
  /** Commands waiting for a session to be freed. */
  #waiting: (() => void)[] = [];

  constructor(shell: BackendContext, engine: RemoteEngine) {
    this.shell = shell;
    this.engine = engine;
    this.spill = new SpillDirectory(shell.options.spillDir);
  }

  spillDirectory(): string {
    return this.spill.path();
  }

  start(command: CommandStart): Running {
    return new RemoteCommand(this, command);
  }

  /**
   * The shell's connection, once its supervisor has answered: the current
   * one, or a new one. Rejects with the `ShellEngineError` of a connection
   * that failed; the next call tries again.
   */
  connection(): Promise<Supervisor> {
    const current = this.#current;
    if (current !== undefined && current.usable) return current.ready.then(() => current);
    const { graceMs } = this.shell.options;
    let supervisor: Supervisor;
    let link: EngineLink | undefined;
    try {
      link = this.engine.connect();
      supervisor = new Supervisor(this.engine, link, {
        graceMs,
        heartbeatMs: this.engine.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
        connectTimeoutMs: this.engine.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        maxStateBytes: this.shell.options.maxSessionStateBytes,
      });
    } catch (error) {
      // Its supervisor never started (the CLI is missing): what the link holds goes now.
      link?.dispose();
      return Promise.reject(error);
    }
    this.#current = supervisor;
    this.#supervisors.add(supervisor);
    supervisor.ended.then(() => this.#ended(supervisor));
    return supervisor.ready.then(() => supervisor);
  }

  /**
   * Notes a command's client, running until it exits. Only the exit of one
   * whose wrapper started (see {@linkcode seated}) frees a session: a
   * client the server refused one never had it, and waking the waiters for
   * it would have them take turns refusing each other.
   */
  holds(process: EngineProcess): void {
    this.#holding.add(process);
    process.exited.then(() => {
      this.#holding.delete(process);
      if (!this.#seated.delete(process)) return;
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const wake of waiting) wake();
    });
  }

  /** Notes that the wrapper of `process` started on the engine: it holds a session. */
  seated(process: EngineProcess): void {
    if (this.#holding.has(process)) this.#seated.add(process);
  }

  /** Whether a client other than `process` holds, or may yet get, a session now. */
  othersHolding(process: EngineProcess): boolean {
    for (const other of this.#holding) if (other !== process) return true;
    return false;
  }

  /** Resolves when the next client whose wrapper started exits. */
  sessionFreed(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Records a session a command just started; its supervisor remembers it, whatever happens to its record file. */
  started(supervisor: Supervisor, sid: number): RemoteSession {
    const session: RemoteSession = { sid, supervisor, gone: false, ending: undefined };
    this.#sessions.add(session);
    supervisor.remember(sid);
    if (supervisor.failure !== undefined) this.shell.track(this.terminate(session));
    return session;
  }

  /** Its command has settled: what it left running stays recorded until the engine's side sees it gone. */
  settled(session: RemoteSession): void {
    if (session.gone || session.ending !== undefined) return;
    session.supervisor.watch(session.sid).then((gone) => {
      if (gone) this.#gone(session);
    });
  }

  /** Whether anything of `session` may still run. */
  alive(session: RemoteSession): boolean {
    return !session.gone;
  }

  /**
   * Ends `session` on the engine: SIGTERM to each of its process groups,
   * SIGKILL after `graceMs`; resolves once it is gone, or once no
   * connection can tell. Idempotent.
   */
  terminate(session: RemoteSession): Promise<void> {
    if (session.gone) return Promise.resolve();
    session.ending ??= this.#terminate(session).finally(() => session.ending = undefined);
    return session.ending;
  }

  async shutDown(): Promise<void> {
    this.#shutDown = true;
    // What the commands left running, then the connections: a supervisor asked to end ends whatever is left.
    await Promise.all([...this.#sessions].map((session) => this.terminate(session)));
    // Until none is left: ending a lost connection's sessions may have opened another.
    while (this.#supervisors.size > 0) await Promise.all([...this.#supervisors].map((supervisor) => supervisor.end()));
    // As locally: a spill directory the shell made and never used goes.
    this.spill.removeIfEmpty();
  }

  async #terminate(session: RemoteSession): Promise<void> {
    // Its own connection if it still has one; else a fresh one (the old supervisor may have been killed).
    for (let attempt = 0; attempt < 2 && !session.gone; attempt++) {
      let supervisor = session.supervisor;
      if (!supervisor.usable) {
        if (this.#shutDown && attempt > 0) return;
        const fresh = await this.connection().catch(() => undefined);
        if (fresh === undefined) return;
        supervisor = fresh;
        session.supervisor = fresh;
        fresh.remember(session.sid);
      }
      if (await supervisor.terminate(session.sid)) this.#gone(session);
    }
  }

  #gone(session: RemoteSession): void {
    session.gone = true;
    this.#sessions.delete(session);
    session.supervisor.forget(session.sid);
  }

  /** A connection ended. Ended on purpose, nothing to do; lost, its sessions are ended through a fresh one. */
  #ended(supervisor: Supervisor): void {
    this.#supervisors.delete(supervisor);
    if (this.#current === supervisor) this.#current = undefined;
    if (supervisor.failure === undefined) return;
    for (const session of this.#sessions) {
      if (session.supervisor === supervisor) this.shell.track(this.terminate(session));
    }
  }
}
