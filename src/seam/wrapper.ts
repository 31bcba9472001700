/**
 * What wraps a command's request, on every transport: a session's trap
 * (`carry/wrapper.ts`), the pseudo-terminal (`terminal/wrapper.ts`) and,
 * locally, the sandbox (`sandbox/wrapper.ts`), chained in that order by
 * {@linkcode chainWrappers}. The transport builds the request (`<shell> -c
 * <line>`, or the argv form's program and arguments) and runs what the
 * wrappers made of it: the local one spawns it; the remote one sends it in
 * the engine's header (its command line or argv, environment, workdir,
 * terminal size and followed mark), and the engine's wrapper script and
 * supervisor do there what the local spawn does here. A wrapper may run the
 * request another way (inside bubblewrap), and then has a say at two
 * moments the transport does not know the meaning of: just before the
 * command's session is terminated (what of the wrapper must be noted while
 * it still runs), and when the command has ended (a wrapper that never ran
 * the command fails the run with its own error; one that did may add to the
 * result, fields that `settle/result.ts` puts on it). Those two are the local transport's: the wrappers an engine
 * applies (the carry, the terminal) have nothing to do there that its
 * supervisor does not (it sweeps for the followed mark itself).
 *
 * @module
 */

import type { ChildExit, SpawnRequest } from "./adapter.ts";
import { ownValue } from "./own_fields.ts";
import type { CommandSession } from "./session/session.ts";
import type { ResultFields } from "./settle/types.ts";
import type { ShellExecSpec, ShellRunResult } from "./types.ts";

/**
 * The fd on which a session's command finds its state file open
 * (`carry/script.ts`) when a wrapper confines it where the file's path is
 * not writable (the sandbox).
 */
export const STATE_FD = 9;

/**
 * The last entry of a complete state dump (`carry/script.ts` writes it, the
 * sandbox's copier and `carry/state.ts` look for it): a dump without it was
 * cut short.
 */
export const STATE_END = "dsh-state-end";

const encoder = new TextEncoder();

/**
 * A command's request before anything wraps it, as every transport builds
 * it: a command line is run by `shell` (`<shell> -c <line>`), the argv
 * form runs its program with its arguments and no shell in between.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandRequest } from "./wrapper.ts";
 * const output = { onStdout() {}, onStderr() {} };
 * const spec = { command: "echo hi", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1, stdin: "x" };
 * const line = commandRequest(spec, "/bin/sh", {}, output);
 * assert.deepEqual([line.program, ...line.args], ["/bin/sh", "-c", "echo hi"]);
 * assert.deepEqual(line.stdin, new TextEncoder().encode("x"));
 * const argv = commandRequest({ ...spec, command: "ls", args: ["-l"] }, "/bin/sh", {}, output);
 * assert.deepEqual([argv.program, ...argv.args], ["ls", "-l"]);
 * ```
 */
export function commandRequest(
  spec: ShellExecSpec,
  shell: string,
  env: Record<string, string>,
  output: Pick<SpawnRequest, "onStdout" | "onStderr">,
): SpawnRequest {
  const stdin = ownValue(spec, "stdin");
  const args = ownValue(spec, "args");
  return {
    program: args === undefined ? shell : spec.command,
    args: args === undefined ? ["-c", spec.command] : args,
    cwd: spec.workdir,
    env,
    stdin: typeof stdin === "string" ? encoder.encode(stdin) : stdin,
    // Own properties, always: an adapter reads them plainly, and a polluted Object.prototype must not answer.
    keepStdin: ownValue(spec, "keepStdin") === true,
    terminal: undefined,
    onStdout: output.onStdout,
    onStderr: output.onStderr,
  };
}

/** A wrapper of the commands of one shell (or of one command: a session's trap). */
export interface SpawnWrapper {
  /** The program a command line runs with, where the wrapper resolved its own (an absolute path). */
  readonly shell?: string;
  /**
   * Whether this command will run where the host's files cannot be written
   * (inside the sandbox): a session's state then reaches the host through
   * {@linkcode STATE_FD}.
   */
  confines(spec: ShellExecSpec): boolean;
  /**
   * Wraps one command's `request`; undefined when this command runs
   * unwrapped (its spec says so). `stateFile` is given for a confined
   * session's command, which must then find {@linkcode STATE_FD} open for
   * writing, and whatever it writes there must leave at most one byte more
   * than `maxBytes` in the file: nothing the command does may put more of
   * it on the host's disk. May throw what a command that cannot start at
   * all throws.
   */
  wrap(request: SpawnRequest, spec: ShellExecSpec, stateFile?: ConfinedStateFile): WrappedCommand | undefined;
}

/** Where a confined command's state goes on the host, and the most of it that may land there. */
export interface ConfinedStateFile {
  /** The file the library made for it. */
  readonly path: string;
  /** The bound (`maxSessionStateBytes`). */
  readonly maxBytes: number;
}

/** One wrapped command. */
export interface WrappedCommand {
  /** The request to run instead: what the local transport spawns, and what the remote one sends. */
  readonly request: SpawnRequest;
  /** The environment the command itself is given, where the wrapper changed it (its request's may be its own). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The command's mark, when what carries it must end with the session
   * wherever it went (`setsid`): at a termination, at the host's exit and
   * at its death (the watchdog; on an engine, its supervisor). The terminal
   * sets it.
   */
  readonly followedMark?: string;
  /**
   * Called when the session's termination starts, before its first signal;
   * returns what must follow that termination once it has ended.
   */
  terminating(session: CommandSession): (ended: Promise<unknown>) => Promise<unknown>;
  /**
   * Reads how the wrapped command ended, from its result's fields: throws
   * the wrapper's own error when the command never ran; otherwise returns
   * what it adds to the result (`settle/result.ts` puts it on), if anything.
   */
  ended(result: Readonly<ShellRunResult>, exit: ChildExit, session: CommandSession): ResultFields | void;
}

/**
 * One wrapper made of `wrappers`, applied in order (each wraps what the one
 * before it made): the terminal first, so that the sandbox carries it into
 * bubblewrap. At a termination each is told, the first listed first, and
 * what follows it is chained from the last listed out; at the end the last
 * applied reads it first (it alone knows whether the command ran).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chainWrappers, type SpawnWrapper } from "./wrapper.ts";
 * const tagging = (tag: string): SpawnWrapper => ({
 *   confines: () => false,
 *   wrap: (request) => ({
 *     request: { ...request, args: [...request.args, tag] },
 *     terminating: () => (ended) => ended,
 *     ended: () => {},
 *   }),
 * });
 * const chain = chainWrappers([tagging("first"), undefined, tagging("second")]);
 * const request = { program: "/bin/echo", args: [], cwd: "/", env: {}, onStdout() {}, onStderr() {} };
 * const spec = { command: "/bin/echo", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1 };
 * assert.deepEqual(chain?.wrap(request, spec)?.request.args, ["first", "second"]);
 * assert.equal(chainWrappers([undefined]), undefined);
 * ```
 */
export function chainWrappers(wrappers: readonly (SpawnWrapper | undefined)[]): SpawnWrapper | undefined {
  const chain = wrappers.filter((wrapper): wrapper is SpawnWrapper => wrapper !== undefined);
  if (chain.length <= 1) return chain[0];
  // Own properties only, as everywhere the seam reads an object it did not build.
  const shell = chain.map((wrapper) => Object.hasOwn(wrapper, "shell") ? wrapper.shell : undefined)
    .find((value) => value !== undefined);
  return {
    ...(shell === undefined ? {} : { shell }),
    confines: (spec) => chain.some((wrapper) => wrapper.confines(spec)),
    wrap(request, spec, stateFile) {
      const applied: WrappedCommand[] = [];
      let current = request;
      for (const wrapper of chain) {
        const wrapped = wrapper.wrap(current, spec, stateFile);
        if (wrapped === undefined) continue;
        applied.push(wrapped);
        current = wrapped.request;
      }
      if (applied.length <= 1) return applied[0];
      const followedMark = applied.map((wrapped) =>
        Object.hasOwn(wrapped, "followedMark") ? wrapped.followedMark : undefined
      )
        .find((value) => value !== undefined);
      const env = applied.findLast((wrapped) => wrapped.env !== undefined)?.env;
      return {
        request: current,
        ...(env === undefined ? {} : { env }),
        ...(followedMark === undefined ? {} : { followedMark }),
        terminating(session) {
          const afters = applied.map((wrapped) => wrapped.terminating(session));
          return (ended) => afters.reduceRight((inner, after) => after(inner), ended);
        },
        ended(result, exit, session) {
          const added: ResultFields = {};
          for (const wrapped of [...applied].reverse()) Object.assign(added, wrapped.ended(result, exit, session));
          return added;
        },
      };
    },
  };
}
