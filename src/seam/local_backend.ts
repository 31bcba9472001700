/**
 * The local backend: commands are process groups on this machine, spawned
 * by an adapter (`spawn/process_group.ts`, the local transport), tracked
 * through `/proc`, guarded by the exit guard and the watchdog, and wrapped
 * by the terminal and the sandbox. What `createLocalShell` runs on.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { join } from "node:path";
import type { ProcessAdapter } from "./adapter.ts";
import type { BackendContext, ShellBackend } from "./backend.ts";
import { SpillDirectory } from "./capture/spill.ts";
import { ambientSource } from "./env/ambient_source.ts";
import { Watchdog } from "./guard/watchdog.ts";
import { setUpSandbox, type ShellSandbox } from "./sandbox/setup.ts";
import { sandboxWrapper } from "./sandbox/wrapper.ts";
import { SessionRegistry } from "./session/registry.ts";
import { type ProcessGroupContext, startProcessGroup } from "./spawn/process_group.ts";
import { terminalWrapper } from "./terminal/wrapper.ts";
import { chainWrappers } from "./wrapper.ts";
import type { CommandStart, Running } from "./transport.ts";

/** Process groups on this machine, through `adapter`. */
export class LocalBackend implements ShellBackend {
  readonly #context: ProcessGroupContext;
  readonly #spillDirectory: (owner: string | null) => string;
  readonly #watchdog: Watchdog;
  readonly #sandbox: ShellSandbox | undefined;
  readonly #spill: SpillDirectory;

  /** Throws `ShellSandboxError` when the shell asks for a sandbox that cannot be set up. */
  constructor(shell: BackendContext, adapter: ProcessAdapter) {
    const { host, options } = shell;
    const spill = new SpillDirectory(options.spillDir);
    this.#spill = spill;
    // Fail closed, before anything else: a sandboxed shell that cannot sandbox is never handed out.
    const sandbox = options.sandbox === undefined
      ? undefined
      : setUpSandbox(adapter, host.procTable, options.sandbox, options, spill);
    this.#sandbox = sandbox;
    // The record goes with the sandbox's private files, which no command can see.
    this.#watchdog = new Watchdog(
      adapter,
      sandbox === undefined ? {} : { parent: sandbox.state.dir, remove: sandbox.state.dir },
    );
    const sessions = new SessionRegistry(this.#watchdog);
    host.exitGuard.guard(adapter, sessions);
    // A sandboxed shell shows each owner its own spill files (bwrap_args.ts): they go in a directory per owner.
    this.#spillDirectory = (owner) =>
      sandbox === undefined ? spill.path() : spill.subdirectory(sandbox.state.ownerName(owner));
    this.#context = {
      adapter,
      options,
      host,
      ambient: ambientSource(adapter, options.ambientEnv),
      sessions,
      // The terminal first: the sandbox carries it into bubblewrap.
      wrapper: chainWrappers([
        terminalWrapper(),
        sandbox === undefined ? undefined : sandboxWrapper(sandbox, adapter, host.procTable),
      ]),
      track: shell.track,
      // Where no command can see it: a session's environment may hold what another owner must not read.
      stateFile: (mark) => join(sandbox === undefined ? spill.path() : sandbox.state.dir, `.state-${mark}`),
    };
  }

  spillDirectory(owner: string | null): string {
    return this.#spillDirectory(owner);
  }

  start(command: CommandStart): Running {
    return startProcessGroup(command, this.#context);
  }

  async shutDown(): Promise<void> {
    const { adapter, sessions, host, options } = this.#context;
    await Promise.all(
      sessions.survivors().map(async (session) => {
        if (await host.terminations.terminate(session, options.graceMs)) sessions.ended(session);
      }),
    );
    if (sessions.all().length === 0) {
      await this.#watchdog.stop();
      // No command runs in its namespaces any more: every owner's /tmp goes with it.
      await this.#sandbox?.holder.close();
      host.exitGuard.release(adapter, sessions);
      // Every owner's /tmp goes: nothing of any session is left to use it.
      this.#sandbox?.state.dispose();
      this.#spill.removeIfEmpty();
    }
  }
}
