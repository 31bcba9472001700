/**
 * The shell: validation in, results out, and the lifecycle of everything it
 * started. Runtime-neutral: the adapter it is given does the spawning.
 *
 * @module
 */

import process from "node:process";
import type { ProcessAdapter } from "./adapter.ts";
import { SpillDirectory } from "./capture/spill.ts";
import { ShellClosedError, ShellSandboxError, ShellSpawnError } from "./errors.ts";
import { Watchdog } from "./guard/watchdog.ts";
import { type HostProcess, hostProcess } from "./host.ts";
import { type ResolvedShellOptions, resolveOptions } from "./resolve/options.ts";
import { execRequest } from "./resolve/exec_options.ts";
import { checkObserver } from "./resolve/observer.ts";
import { ownValue } from "./resolve/own_fields.ts";
import { checkSpec, resolveRequest } from "./resolve/request.ts";
import { ResolvedSpecs } from "./resolve/resolved_specs.ts";
import { setUpSandbox, type ShellSandbox } from "./sandbox/setup.ts";
import { SessionRegistry } from "./session/registry.ts";
import { launch, type LaunchContext } from "./spawn/launch.ts";
import { TaskRegistry } from "./tasks/registry.ts";
import { FailedTask, LaunchedTask } from "./tasks/task.ts";
import type {
  LocalShellOptions,
  Shell,
  ShellExecOptions,
  ShellExecRequest,
  ShellExecSpec,
  ShellObserver,
  ShellRunResult,
  ShellTask,
} from "./types.ts";

/**
 * Creates a shell over `adapter`. Most callers want `createLocalShell`,
 * which picks the adapter for the current runtime.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * await using shell = createShell(nodeAdapter, { timeoutMs: 5_000 });
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * assert.equal(result.stdout.text, "hi\n");
 * ```
 */
export function createShell(adapter: ProcessAdapter, options?: LocalShellOptions): Shell {
  return createShellIn(hostProcess(), adapter, options);
}

/**
 * Creates a shell over `adapter` that shares `host`'s state. Internal (not
 * exported from the package): tests give a host of their own.
 */
export function createShellIn(host: HostProcess, adapter: ProcessAdapter, options?: LocalShellOptions): Shell {
  return new SeamShell(host, adapter, resolveOptions(options));
}

class SeamShell implements Shell {
  readonly #options: ResolvedShellOptions;
  readonly #host: HostProcess;
  readonly #context: LaunchContext;
  readonly #watchdog: Watchdog;
  readonly #sandbox: ShellSandbox | undefined;
  readonly #spill: SpillDirectory;
  readonly #tasks: TaskRegistry;
  readonly #closer = new AbortController();
  /** What resolve() returned, so run() and start() validate only what changed since. */
  readonly #resolved = new ResolvedSpecs();
  /** Results in flight and terminations under way: what `close()` waits for. */
  readonly #pending = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(host: HostProcess, adapter: ProcessAdapter, options: ResolvedShellOptions) {
    this.#options = options;
    this.#host = host;
    const spill = new SpillDirectory(options.spillDir);
    this.#spill = spill;
    // Fail closed, before anything else: a sandboxed shell that cannot sandbox is never handed out.
    const sandbox = options.sandbox === undefined
      ? undefined
      : setUpSandbox(adapter, host.procTable, options.sandbox, options, spill);
    this.#sandbox = sandbox;
    // The record goes with the sandbox's private files, which no command can see.
    this.#watchdog = new Watchdog(adapter, sandbox === undefined ? {} : { parent: sandbox.state.dir });
    this.#tasks = new TaskRegistry(options.maxTasksPerOwner, options.maxFinishedTasks);
    const fixedAmbient = options.ambientEnv;
    const sessions = new SessionRegistry(this.#watchdog);
    host.exitGuard.guard(adapter, sessions);
    this.#context = {
      adapter,
      options,
      host,
      spillDirectory: () => spill.path(),
      ambientEnv: () => fixedAmbient ?? process.env,
      sessions,
      sandbox,
      closeSignal: this.#closer.signal,
      track: (work) => this.#track(work),
    };
  }

  resolve(request: ShellExecRequest): ShellExecSpec {
    const spec = resolveRequest(request, this.#options);
    this.#resolved.remember(spec);
    return spec;
  }

  async run(spec: ShellExecSpec, observer?: ShellObserver): Promise<ShellRunResult> {
    const checked = this.#admit(spec);
    const launched = launch(checked, this.#context, checked.timeoutMs, checkObserver(observer));
    this.#track(launched.result);
    return await launched.result;
  }

  start(spec: ShellExecSpec, observer?: ShellObserver): ShellTask {
    const checked = this.#admit(spec);
    const watching = checkObserver(observer);
    this.#tasks.checkRoom(checked.owner);
    const id = this.#tasks.newId();
    let task: ShellTask;
    try {
      task = new LaunchedTask(id, checked.owner, launch(checked, this.#context, undefined, watching));
    } catch (error) {
      if (!(error instanceof ShellSpawnError) && !(error instanceof ShellSandboxError)) throw error;
      task = new FailedTask(id, checked.owner, checked.timeoutMs, error);
    }
    this.#tasks.add(task);
    this.#track(task.done);
    return task;
  }

  async exec(command: string, options?: ShellExecOptions): Promise<ShellRunResult> {
    const { request, observer } = execRequest(command, options);
    return await this.run(this.resolve(request), observer);
  }

  task(id: string, owner: string | null): ShellTask {
    return this.#tasks.get(id, owner);
  }

  tasks(owner: string | null): ShellTask[] {
    return this.#tasks.visible(owner);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The checks every new command passes: the shell is open, the spec valid, the signal not aborted. */
  #admit(spec: ShellExecSpec): ShellExecSpec {
    if (this.#closing) throw new ShellClosedError();
    const checked = this.#resolved.unchanged(spec) ?? checkSpec(spec, this.#options);
    ownValue(checked, "signal")?.throwIfAborted();
    return checked;
  }

  async #shutDown(): Promise<void> {
    this.#closer.abort(new ShellClosedError());
    // Until nothing is pending: a settling run can still turn its group into a survivor.
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    const { adapter, sessions } = this.#context;
    await Promise.all(
      sessions.survivors().map(async (session) => {
        if (await this.#host.terminations.terminate(session, this.#options.graceMs)) sessions.ended(session);
      }),
    );
    if (sessions.all().length === 0) {
      await this.#watchdog.stop();
      this.#host.exitGuard.release(adapter, sessions);
      // Every owner's /tmp goes: nothing of any session is left to use it.
      this.#sandbox?.state.dispose();
      this.#spill.removeIfEmpty();
    }
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    const forget = (): void => {
      this.#pending.delete(work);
    };
    work.then(forget, forget);
  }
}
