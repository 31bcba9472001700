/**
 * A session's command as a wrapper of its request (`../wrapper.ts`): its
 * command line gets the `EXIT` trap of `script.ts` in front, which writes
 * the state the session takes over where its transport said. Every
 * transport puts it first in the command's chain, before the terminal and
 * the sandbox: the local one (`spawn/process_group.ts`: into the host's
 * state file, or into fd 9, `STATE_FD`, inside the sandbox) and the
 * remote one (`remote/command.ts`: into fd 9, which the
 * engine's wrapper opens on a file of its own). How the state is read back
 * is the transport's; what it means is `state.ts`'s.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { SpawnRequest } from "../adapter.ts";
import { ownValue } from "../own_fields.ts";
import type { ShellExecSpec } from "../types.ts";
import type { SpawnWrapper, WrappedCommand } from "../wrapper.ts";
import { statePrelude, type StateTarget } from "./script.ts";

/**
 * The wrapper of one session's command, whose trap writes to `target`.
 *
 * @param shell The program that runs the command line, where the transport knows it is the one that will (bash
 *   then writes with its builtins, `script.ts`); absent, every shell writes through a `cat`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { carryWrapper } from "./wrapper.ts";
 * import { STATE_FD } from "../wrapper.ts";
 * const request = { program: "/bin/sh", args: ["-c", "cd /tmp"], cwd: "/", env: {}, onStdout() {}, onStderr() {} };
 * const spec = { command: "cd /tmp", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1 };
 * const [flag, line] = carryWrapper({ fd: STATE_FD }).wrap(request, spec)?.request.args ?? [];
 * assert.equal(flag, "-c");
 * assert.ok(line.startsWith("trap ") && line.endsWith("cd /tmp"));
 * // The argv form runs no shell: there is nothing to carry.
 * assert.equal(carryWrapper({ fd: STATE_FD }).wrap(request, { ...spec, args: [] }), undefined);
 * ```
 */
export function carryWrapper(target: StateTarget, shell?: string): SpawnWrapper {
  return {
    // Where the state goes is the target's; whoever confines the command opens STATE_FD.
    confines: () => false,
    wrap(request: SpawnRequest, spec: ShellExecSpec): WrappedCommand | undefined {
      // Only a command line can change a directory or an environment that outlives its program.
      if (ownValue(spec, "args") !== undefined) return undefined;
      // A command line's request is `<shell> -c <line>`: the trap goes at the start of the line, on its first line.
      const [flag, line, ...rest] = request.args;
      return {
        request: { ...request, args: [flag, statePrelude(target, shell) + line, ...rest] },
        terminating: () => (ended) => ended,
        ended: () => {},
      };
    },
  };
}
