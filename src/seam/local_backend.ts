/**
 * The local backend: commands are process groups on this machine, spawned
 * by an adapter, tracked through `/proc`, guarded by the exit guard and the
 * watchdog, and optionally sandboxed. What `createLocalShell` runs on.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { join } from "node:path";
import type { ProcessAdapter } from "./adapter.ts";
import type { BackendContext, Launched, ShellBackend } from "./backend.ts";
import { SpillDirectory } from "./capture/spill.ts";
import { ambientSource } from "./env/ambient_source.ts";
import { Watchdog } from "./guard/watchdog.ts";
import { setUpSandbox, type ShellSandbox } from "./sandbox/setup.ts";
import { sandboxWrapper } from "./sandbox/wrapper.ts";
import { SessionRegistry } from "./session/registry.ts";
import { launch, type LaunchContext } from "./spawn/launch.ts";
import { terminalWrapper } from "./terminal/wrapper.ts";
import { chainWrappers } from "./wrapper.ts";
import type { ShellExecSpec, ShellObserver } from "./types.ts";

/** Process groups on this machine, through `adapter`. */
export class LocalBackend implements ShellBackend {
  readonly #context: LaunchContext;
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
    this.#context = {
      adapter,
      options,
      host,
      // A sandboxed shell shows each owner its own spill files (bwrap_args.ts): they go in a directory per owner.
      spillDirectory: (owner) =>
        sandbox === undefined ? spill.path() : spill.subdirectory(sandbox.state.ownerName(owner)),
      ambient: ambientSource(adapter, options.ambientEnv),
      sessions,
      // The terminal first: the sandbox carries it into bubblewrap.
      wrapper: chainWrappers([
        terminalWrapper(),
        sandbox === undefined ? undefined : sandboxWrapper(sandbox, adapter, host.procTable),
      ]),
      closeSignal: shell.closeSignal,
      track: shell.track,
      // Where no command can see it: a session's environment may hold what another owner must not read.
      stateFile: (mark) => join(sandbox === undefined ? spill.path() : sandbox.state.dir, `.state-${mark}`),
    };
  }

  launch(
    spec: ShellExecSpec,
    timeoutMs: number | undefined,
    observer: ShellObserver | undefined,
    carry?: boolean,
  ): Launched {
    return launch(spec, this.#context, timeoutMs, observer, carry);
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
