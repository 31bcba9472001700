/**
 * What a remote command needs of its shell's remote backend: the shell's
 * context, the connection, the accounting of the
 * server's sessions, and the record of the sessions its commands start.
 * The backend implements it; the command (`command.ts`) knows only this, so
 * the two do not import each other.
 *
 * @module
 */

import type { BackendContext } from "../backend.ts";
import type { EngineProcess, RemoteEngine } from "../engine.ts";
import type { SpawnWrapper } from "../wrapper.ts";
import type { Supervisor } from "./supervisor.ts";

/** A session a command started on the engine, until it is seen gone. */
export interface RemoteSession {
  /** Its id on the engine's side (the wrapper's pid). */
  readonly sid: number;
  /** The connection that ends it (a fresh one once its own was lost). */
  supervisor: Supervisor;
  /** Seen gone: nothing of it runs any more. */
  gone: boolean;
  /** A termination under way. */
  ending: Promise<void> | undefined;
}

/** The remote backend as its commands see it. */
export interface RemoteSessions {
  /** The engine the commands run on. */
  readonly engine: RemoteEngine;
  /** The shell the commands belong to. */
  readonly shell: BackendContext;
  /** What wraps each command's request before it is sent (`../wrapper.ts`): the terminal. */
  readonly wrapper: SpawnWrapper;
  /**
   * The shell's connection, once its supervisor has answered. Rejects with
   * the `ShellEngineError` of a connection that failed.
   */
  connection(): Promise<Supervisor>;
  /** Notes a command's client, running until it exits. */
  holds(process: EngineProcess): void;
  /** Notes that the wrapper of `process` started on the engine: it holds a session. */
  seated(process: EngineProcess): void;
  /** Whether a client other than `process` holds, or may yet get, a session now. */
  othersHolding(process: EngineProcess): boolean;
  /** Resolves when the next client whose wrapper started exits. */
  sessionFreed(): Promise<void>;
  /** Records a session a command just started. */
  started(supervisor: Supervisor, sid: number): RemoteSession;
  /** Its command has settled: what it left running stays recorded until the engine's side sees it gone. */
  settled(session: RemoteSession): void;
  /** Whether anything of `session` may still run. */
  alive(session: RemoteSession): boolean;
  /** Ends `session` on the engine; resolves once it is gone, or once no connection can tell. Idempotent. */
  terminate(session: RemoteSession): Promise<void>;
}
