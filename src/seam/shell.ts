/**
 * The shell: validation in, results out, and the lifecycle of everything it
 * started. Runtime-neutral: the adapter it is given does the spawning.
 *
 * @module
 */

import process from "node:process";
import type { ProcessAdapter } from "./adapter.ts";
import { SpillDirectory } from "./capture/spill.ts";
import { ShellClosedError } from "./errors.ts";
import { checkSpec, resolveOptions, resolveRequest } from "./resolve.ts";
import { GroupRegistry } from "./run/group_registry.ts";
import { launch, type LaunchContext } from "./run/launch.ts";
import { terminateGroup } from "./run/terminate.ts";
import type {
  LocalShellOptions,
  ResolvedShellOptions,
  Shell,
  ShellExecRequest,
  ShellExecSpec,
  ShellRunResult,
} from "./types.ts";

/**
 * Creates a shell over `adapter`. Most callers want `createLocalShell`,
 * which picks the adapter for the current runtime.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell/seam";
 * import { nodeAdapter } from "@dsh/shell/node";
 * const shell = createShell(nodeAdapter, { timeoutMs: 5_000 });
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * console.log(result.stdout.text); // "hi\n"
 * await shell.close();
 * ```
 */
export function createShell(adapter: ProcessAdapter, options?: LocalShellOptions): Shell {
  return new SeamShell(adapter, resolveOptions(options));
}

class SeamShell implements Shell {
  readonly #options: ResolvedShellOptions;
  readonly #context: LaunchContext;
  readonly #closer = new AbortController();
  /** Results in flight and terminations under way: what `close()` waits for. */
  readonly #pending = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(adapter: ProcessAdapter, options: ResolvedShellOptions) {
    this.#options = options;
    const spill = new SpillDirectory(options.spillDir);
    const fixedAmbient = options.ambientEnv;
    this.#context = {
      adapter,
      options,
      spillDirectory: () => spill.path(),
      ambientEnv: () => fixedAmbient ?? process.env,
      groups: new GroupRegistry(),
      closeSignal: this.#closer.signal,
      track: (work) => this.#track(work),
    };
  }

  resolve(request: ShellExecRequest): ShellExecSpec {
    return resolveRequest(request, this.#options);
  }

  async run(spec: ShellExecSpec): Promise<ShellRunResult> {
    if (this.#closing) throw new ShellClosedError();
    const checked = checkSpec(spec, this.#options);
    checked.signal?.throwIfAborted();
    const launched = launch(checked, this.#context, checked.timeoutMs);
    this.#track(launched.result);
    return await launched.result;
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutDown(): Promise<void> {
    this.#closer.abort(new ShellClosedError());
    // Until nothing is pending: a settling run can still turn its group into a survivor.
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    const { adapter, groups } = this.#context;
    await Promise.all(groups.survivors(adapter).map((pgid) => terminateGroup(adapter, pgid, this.#options.graceMs)));
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    const forget = (): void => {
      this.#pending.delete(work);
    };
    work.then(forget, forget);
  }
}
