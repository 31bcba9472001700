/**
 * The shell: validation in, results out, and the lifecycle of everything it
 * started. Runtime-neutral: the adapter it is given does the spawning.
 *
 * @module
 */

import type { ProcessAdapter } from "./adapter.ts";
import type { BackendContext, ShellBackend } from "./backend.ts";
import type { ShellEngine } from "./engine.ts";
import { isStartFailure } from "./error_checks.ts";
import { EventHub } from "./events/hub.ts";
import { ShellClosedError, ShellSpecError } from "./errors.ts";
import { type HostProcess, hostProcess } from "./host.ts";
import { LocalBackend } from "./local_backend.ts";
import { launch } from "./launch/launch.ts";
import { RemoteBackend } from "./remote/backend.ts";
import { type ResolvedShellOptions, resolveOptions, resolveRemoteOptions } from "./resolve/options.ts";
import { execRequest } from "./resolve/exec_options.ts";
import { checkObserver } from "./resolve/observer.ts";
import { ownValue } from "./own_fields.ts";
import { checkSpec, resolveRequest } from "./resolve/request.ts";
import { ResolvedSpecs } from "./resolve/resolved_specs.ts";
import { TaskRegistry } from "./tasks/registry.ts";
import { FailedTask, LaunchedTask } from "./tasks/task.ts";
import type {
  LocalShellOptions,
  Shell,
  ShellEvents,
  ShellExecOptions,
  ShellExecRequest,
  ShellExecSpec,
  ShellFiles,
  ShellObserver,
  ShellRunResult,
  ShellSession,
  ShellSessionOptions,
  ShellTask,
} from "./types.ts";
import { type CarriedRun, openSession } from "./carry/session.ts";
import { createShellFiles } from "./files/files.ts";

/**
 * Creates a shell whose commands run on `engine`: this machine
 * (`localEngine()`, or a `ProcessAdapter` as in 1.0), a Docker container
 * (`dockerEngine`) or an SSH host (`sshEngine`), behind the same `Shell`.
 * Most local callers want `createLocalShell`, which picks the adapter for
 * the current runtime. Throws `ShellSpecError` naming an invalid option;
 * for a remote engine `workdir` is required (a path on the engine's side)
 * and `adapter`, `sandbox` and `ambientEnv` make no sense; on this machine
 * an `adapter` option must be the engine's own.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * await using shell = createShell(nodeAdapter, { timeoutMs: 5_000 });
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * assert.equal(result.stdout.text, "hi\n");
 * ```
 */
export function createShell(engine: ShellEngine | ProcessAdapter, options?: LocalShellOptions): Shell {
  return createShellIn(hostProcess(), engine, options);
}

/**
 * Creates a shell over `engine` that shares `host`'s state. Internal (not
 * exported from the package): tests give a host of their own.
 */
export function createShellIn(
  host: HostProcess,
  engine: ShellEngine | ProcessAdapter,
  options?: LocalShellOptions,
): Shell {
  const chosen = asEngine(engine);
  if (chosen.kind === "remote") {
    return new SeamShell(
      host,
      resolveRemoteOptions(options, chosen.name),
      (context) => new RemoteBackend(context, chosen),
    );
  }
  // Checked first, so that an adapter that is no adapter at all is refused as that.
  const resolved = resolveOptions(options);
  // One adapter per shell: an `adapter` option that is not the engine's own would be silently unused.
  const adapter = typeof options === "object" && options !== null ? ownValue(options, "adapter") : undefined;
  if (adapter !== undefined && adapter !== chosen.adapter) {
    throw new ShellSpecError(
      "adapter",
      "is not the engine's adapter: give it as the engine (createShell(adapter) or localEngine(adapter)), " +
        "or use createLocalShell({ adapter })",
    );
  }
  return new SeamShell(host, resolved, (context) => new LocalBackend(context, chosen.adapter));
}

/** The engine `value` names: an engine as it is, or 1.0's bare adapter as the local engine over it. */
function asEngine(value: ShellEngine | ProcessAdapter): ShellEngine {
  if (typeof value === "object" && value !== null) {
    const kind = ownValue(value as ShellEngine, "kind");
    if (kind === "local" || kind === "remote") return value as ShellEngine;
    if (typeof (value as ProcessAdapter).spawn === "function") {
      return { kind: "local", name: "local", adapter: value as ProcessAdapter };
    }
  }
  throw new ShellSpecError(
    "engine",
    "must be a ShellEngine (localEngine(), dockerEngine(…), sshEngine(…)) or a ProcessAdapter",
  );
}

class SeamShell implements Shell {
  readonly #options: ResolvedShellOptions;
  readonly #events: EventHub;
  readonly #backend: ShellBackend;
  readonly #context: BackendContext;
  readonly #tasks: TaskRegistry;
  readonly #closer = new AbortController();
  /** What resolve() returned, so run() and start() validate only what changed since. */
  readonly #resolved = new ResolvedSpecs();
  /** Results in flight and terminations under way: what `close()` waits for. */
  readonly #pending = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(host: HostProcess, options: ResolvedShellOptions, backend: (context: BackendContext) => ShellBackend) {
    this.#options = options;
    this.#tasks = new TaskRegistry(options.maxTasksPerOwner, options.maxFinishedTasks);
    this.#context = { host, options, closeSignal: this.#closer.signal, track: (work) => this.#track(work) };
    this.#backend = backend(this.#context);
    this.#events = new EventHub({
      shell: options.shell,
      sandboxed: options.sandbox !== undefined,
      closeSignal: this.#closer.signal,
    });
  }

  get events(): ShellEvents {
    return this.#events;
  }

  resolve(request: ShellExecRequest): ShellExecSpec {
    const spec = resolveRequest(request, this.#options);
    this.#resolved.remember(spec);
    return spec;
  }

  async run(spec: ShellExecSpec, observer?: ShellObserver): Promise<ShellRunResult> {
    return (await this.#run(spec, observer, false)).result;
  }

  start(spec: ShellExecSpec, observer?: ShellObserver): ShellTask {
    const checked = this.#admit(spec);
    const watching = checkObserver(observer);
    this.#tasks.checkRoom(checked.owner);
    const id = this.#tasks.newId();
    let task: ShellTask;
    try {
      const launched = this.#events.launch(
        checked,
        "task",
        id,
        () => launch(checked, this.#backend, this.#context, undefined, watching),
      );
      task = new LaunchedTask(id, checked.owner, launched);
    } catch (error) {
      if (!isStartFailure(error)) throw error;
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

  session(options: ShellSessionOptions): ShellSession {
    if (this.#closing) throw new ShellClosedError();
    return openSession({
      resolve: (request) => this.resolve(request),
      runCarrying: (spec, observer) => this.#run(spec, observer, true),
      start: (spec, observer) => this.start(spec, observer),
      sandboxed: this.#options.sandbox !== undefined,
    }, options);
  }

  files(options: { owner: string | null }): ShellFiles {
    if (typeof options !== "object" || options === null) throw new ShellSpecError("options", "must be { owner }");
    const owner = ownValue(options, "owner");
    if (owner !== null && typeof owner !== "string") {
      throw new ShellSpecError("owner", "is required: a string, or null for unowned work");
    }
    if (this.#closing) throw new ShellClosedError();
    return createShellFiles({ shell: this, emit: (event) => this.#events.file(event) }, owner);
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
  async #run(spec: ShellExecSpec, observer: ShellObserver | undefined, carry: boolean): Promise<CarriedRun> {
    const checked = this.#admit(spec);
    const watching = checkObserver(observer);
    const launched = this.#events.launch(
      checked,
      "run",
      undefined,
      () => launch(checked, this.#backend, this.#context, checked.timeoutMs, watching, carry),
    );
    // Nobody can write to a foreground command: its input ends after `stdin`, as a pipe's would (on a terminal,
    // with the end-of-file character).
    launched.input?.end();
    this.#track(launched.result);
    const result = await launched.result;
    return { result, state: await launched.state?.() };
  }

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
    await this.#backend.shutDown();
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    const forget = (): void => {
      this.#pending.delete(work);
    };
    work.then(forget, forget);
  }
}
