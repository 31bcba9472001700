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
import { withSessionNote } from "../settle/result.ts";
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
  /** Whether the shell runs its commands in a sandbox (unless a request says `sandbox: false`). */
  readonly sandboxed: boolean;
}

/** A session's command, run. */
export interface CarriedRun {
  /** Its result. */
  readonly result: ShellRunResult;
  /** The state it left when it exited, as read (undefined: none was asked for). */
  readonly state: TakenState | undefined;
}

/** Linux's bound on one `NAME=value` string of an environment, its NUL included (`MAX_ARG_STRLEN`). */
export const MAX_CARRIED_VALUE_BYTES = 128 * 1024;
/**
 * The most a session's variables may take together: half of Linux's usual
 * bound on a program's arguments and environment together (2 MiB, a
 * quarter of the 8 MiB stack), so that the ambient environment and the
 * command line still fit beside them.
 */
export const MAX_CARRIED_ENV_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

/** The bytes `name=value` takes in a program's environment: the string, its NUL and its pointer. */
function entryBytes(name: string, value: string): number {
  return encoder.encode(name).length + 1 + encoder.encode(value).length + 1 + 8;
}

/**
 * What of `change` the session can take so that the next command can still
 * start (`execve` fails with E2BIG otherwise, for every later command): a
 * variable over {@linkcode MAX_CARRIED_VALUE_BYTES} is not taken; then,
 * while the session's variables would pass {@linkcode MAX_CARRIED_ENV_BYTES},
 * the largest of those the command set is not taken. Each left out is
 * named, with why, for the result's `sessionNote`.
 */
export function startable(env: EnvPatch, change: EnvPatch): { taken: EnvPatch; dropped: string[] } {
  const taken: EnvPatch = { ...change };
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined) continue;
    const bytes = entryBytes(name, value) - 8;
    if (bytes > MAX_CARRIED_VALUE_BYTES) {
      delete taken[name];
      dropped.push(`${name} (${bytes} bytes, over ${MAX_CARRIED_VALUE_BYTES} for one variable)`);
    }
  }
  const merged = { ...env, ...taken };
  let total = 0;
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) total += entryBytes(name, value);
  if (total > MAX_CARRIED_ENV_BYTES) {
    const largest = Object.entries(taken)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .sort((a, b) => entryBytes(b[0], b[1]) - entryBytes(a[0], a[1]));
    const names: string[] = [];
    for (const [name, value] of largest) {
      if (total <= MAX_CARRIED_ENV_BYTES) break;
      // What it replaced comes back: the session keeps the value it had.
      const before = env[name];
      total -= entryBytes(name, value) - (before === undefined ? 0 : entryBytes(name, before));
      delete taken[name];
      names.push(name);
    }
    if (names.length > 0) dropped.push(`${names.join(", ")} (together over ${MAX_CARRIED_ENV_BYTES} bytes)`);
  }
  return { taken, dropped };
}

/** Makes a session of `host`, checking `options` the way a request is checked. */
export function openSession(host: SessionHost, options: ShellSessionOptions): ShellSession {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ShellSpecError("options", "must be an object ({ owner, workdir?, env?, sandbox? })");
  }
  const { owner, workdir, env, sandbox, ...rest } = ownFields(options) as ShellSessionOptions;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw new ShellSpecError(unknown, "is not a session option (owner, workdir, env, sandbox)");
  }
  if (owner === undefined) throw new ShellSpecError("owner", "is required (a string, or null for unowned)");
  // The request's own rules check the owner, the workdir, the variables and `sandbox`, and name the field.
  const first = host.resolve({ command: "true", owner, workdir, env, ...(sandbox === undefined ? {} : { sandbox }) });
  const sandboxed = host.sandboxed && ownValue(first, "sandbox") !== false;
  return new CarryingSession(host, first.owner, first.workdir, { ...ownValue(first, "env") }, sandboxed);
}

class CarryingSession implements ShellSession {
  readonly owner: string | null;
  #cwd: string;
  #env: EnvPatch;
  /** The state at creation, for `reset()`. */
  readonly #first: { readonly cwd: string; readonly env: Readonly<EnvPatch> };
  readonly #host: SessionHost;
  // Aborted by close(): ends the command it runs and the tasks it started.
  readonly #closer = new AbortController();
  readonly #tasks = new Set<ShellTask>();
  #queue: Promise<unknown> = Promise.resolve();

  /** Whether its commands run in the shell's sandbox: fixed at creation. */
  readonly #sandboxed: boolean;

  constructor(host: SessionHost, owner: string | null, cwd: string, env: EnvPatch, sandboxed: boolean) {
    this.#host = host;
    this.#sandboxed = sandboxed;
    this.owner = owner;
    this.#cwd = cwd;
    this.#env = env;
    this.#first = { cwd, env: { ...env } };
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

  unset(...names: string[]): void {
    if (this.#closer.signal.aborted) throw new ShellClosedError("session");
    names.forEach((name, at) => {
      if (typeof name !== "string") throw new ShellSpecError(`names[${at}]`, "must be a variable name (a string)");
    });
    const env = { ...this.#env };
    for (const name of names) delete env[name];
    this.#env = env;
  }

  reset(): void {
    if (this.#closer.signal.aborted) throw new ShellClosedError("session");
    this.#cwd = this.#first.cwd;
    this.#env = { ...this.#first.env };
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
    let note = state?.note;
    if (change !== undefined && ended) {
      const { taken, dropped } = startable(this.#env, change.env);
      this.#cwd = change.cwd;
      this.#env = { ...this.#env, ...taken };
      if (dropped.length > 0) {
        note = `session variables not carried (the next command could not start with them): ${dropped.join(", ")}`;
      }
    }
    return note !== undefined && ended ? withSessionNote(result, note) : result;
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
    // What the session's commands exported (a planted PATH, LD_PRELOAD) must never reach a command outside the
    // sandbox they were confined to: a session's sandbox is fixed at creation, and trusted code uses shell.exec.
    if (Object.hasOwn(request, "sandbox") && this.#host.sandboxed && (request.sandbox !== false) !== this.#sandboxed) {
      throw new ShellSpecError(
        "sandbox",
        this.#sandboxed
          ? "is the session's, fixed at creation: this session runs in the sandbox; run a trusted command with " +
            "shell.exec(), or make a session with shell.session({ owner, sandbox: false })"
          : "is the session's, fixed at creation: this session runs outside the sandbox",
      );
    }
    const spec = this.#host.resolve({
      ...request,
      ...(this.#sandboxed || !this.#host.sandboxed ? {} : { sandbox: false as const }),
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
