/**
 * A session: each command line starts from the directory and variables the
 * ones before it left, and one command runs at a time.
 *
 * @module
 */

import { isAbsolute, resolve as resolvePath } from "node:path";
import { ShellClosedError, ShellSpecError } from "../errors.ts";
import { ownFields, ownValue } from "../own_fields.ts";
import { execRequest } from "../resolve/exec_options.ts";
import type {
  EnvPatch,
  ShellExecRequest,
  ShellExecSpec,
  ShellSession,
  ShellSessionExecOptions,
  ShellSessionOptions,
} from "../types.ts";
import type { ShellObserver } from "../capture/types.ts";
import type { ShellRunResult } from "../settle/types.ts";
import type { ShellTask } from "../tasks/types.ts";
import type { TakenState } from "./state.ts";

/** What a session needs of its shell. */
export interface SessionHost {
  /** The shell's `resolve()`. */
  resolve(request: ShellExecRequest): ShellExecSpec;
  /** `run()`, keeping the state the command leaves. */
  runCarrying(spec: ShellExecSpec, observer: ShellObserver | undefined): Promise<CarriedRun>;
  /** The shell's `start()`. */
  start(spec: ShellExecSpec, observer: ShellObserver | undefined): ShellTask;
}

/** A session's command, run. */
export interface CarriedRun {
  /** Its result. */
  readonly result: ShellRunResult;
  /** The state it left when it exited, as read (undefined: none was asked for). */
  readonly state: TakenState | undefined;
}

/** Makes a session of `host`, checking `options` the way a request is checked. */
export function openSession(host: SessionHost, options: ShellSessionOptions): ShellSession {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ShellSpecError("options", "must be an object ({ owner, workdir?, env? })");
  }
  const { owner, workdir, env, ...rest } = ownFields(options) as ShellSessionOptions;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ShellSpecError(unknown, "is not a session option (owner, workdir, env)");
  if (owner === undefined) throw new ShellSpecError("owner", "is required (a string, or null for unowned)");
  // The request's own rules check the owner, the workdir and the variables, and name the field that is wrong.
  const first = host.resolve({ command: "true", owner, workdir, env });
  return new CarryingSession(host, first.owner, first.workdir, { ...ownValue(first, "env") });
}

class CarryingSession implements ShellSession {
  readonly owner: string | null;
  #cwd: string;
  #env: EnvPatch;
  readonly #host: SessionHost;
  // Aborted by close(): ends the command it runs and the tasks it started.
  readonly #closer = new AbortController();
  readonly #tasks = new Set<ShellTask>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(host: SessionHost, owner: string | null, cwd: string, env: EnvPatch) {
    this.#host = host;
    this.owner = owner;
    this.#cwd = cwd;
    this.#env = env;
  }

  get cwd(): string {
    return this.#cwd;
  }

  get env(): Readonly<EnvPatch> {
    return { ...this.#env };
  }

  exec(command: string, options?: ShellSessionExecOptions): Promise<ShellRunResult> {
    const turn = this.#queue.then(() => this.#execNow(command, options));
    this.#queue = turn.catch(() => {});
    return turn;
  }

  start(command: string, options?: ShellSessionExecOptions): ShellTask {
    const { spec, observer } = this.#spec(command, options);
    const task = this.#host.start(spec, observer);
    this.#tasks.add(task);
    const forget = (): void => void this.#tasks.delete(task);
    task.done.then(forget, forget);
    return task;
  }

  async close(): Promise<void> {
    if (!this.#closer.signal.aborted) this.#closer.abort(new ShellClosedError("session"));
    await Promise.allSettled([this.#queue, ...[...this.#tasks].map((task) => task.done)]);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #execNow(command: string, options: ShellSessionExecOptions | undefined): Promise<ShellRunResult> {
    const { spec, observer } = this.#spec(command, options);
    const { result, state } = await this.#host.runCarrying(spec, observer);
    // Only a command that exited by itself hands its state on: a killed one leaves the session as it was.
    const ended = result.exitCode !== null && !result.timedOut && !result.aborted;
    const change = state?.change;
    if (change !== undefined && ended) {
      this.#cwd = change.cwd;
      this.#env = { ...this.#env, ...change.env };
    }
    if (state?.note !== undefined && ended) result.sessionNote = state.note;
    return result;
  }

  /** The spec of `command` from the session's state as it is now. */
  #spec(command: string, options: ShellSessionExecOptions | undefined): {
    spec: ShellExecSpec;
    observer: ShellObserver | undefined;
  } {
    if (this.#closer.signal.aborted) throw new ShellClosedError("session");
    const { request, observer } = execRequest(command, options);
    if (typeof options === "object" && options !== null && Object.hasOwn(options, "owner")) {
      throw new ShellSpecError("owner", "is the session's: give it to shell.session({ owner })");
    }
    const workdir = ownValue(request, "workdir");
    const env = ownValue(request, "env");
    const signal = ownValue(request, "signal");
    const spec = this.#host.resolve({
      ...request,
      owner: this.owner,
      // Not a string: left as it is, for the request's rules to name.
      workdir: typeof workdir !== "string"
        ? workdir ?? this.#cwd
        : isAbsolute(workdir)
        ? workdir
        : resolvePath(this.#cwd, workdir),
      env: typeof env === "object" && env !== null
        ? { ...this.#env, ...(ownFields(env) as EnvPatch) }
        : env ?? { ...this.#env },
      signal: signal instanceof AbortSignal
        ? AbortSignal.any([signal, this.#closer.signal])
        : signal ?? this.#closer.signal,
    });
    return { spec, observer };
  }
}
