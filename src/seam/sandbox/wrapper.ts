/**
 * The sandbox as a wrapper of the local spawn (`spawn/wrapper.ts`): each
 * command runs inside bubblewrap with its owner's private `/tmp`, `TMPDIR`
 * pointing at it unless the caller set one, and the owner's spill files
 * shown at their own path; a termination first notes the sandbox's init
 * (so that one that escaped the session is ended too); and the end is read
 * from bubblewrap's status file, which tells a command's exit from a set-up
 * that failed.
 *
 * @module
 */

import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import type { ChildExit, ProcessAdapter, SpawnRequest } from "../adapter.ts";
import { ShellSandboxError } from "../errors.ts";
import { ownValue } from "../own_fields.ts";
import type { ProcTable } from "../session/proc_table.ts";
import type { CommandSession } from "../session/session.ts";
import type { ConfinedStateFile, SpawnWrapper, WrappedCommand } from "../wrapper.ts";
import type { ResultFields, ShellRunResult } from "../settle/types.ts";
import type { ShellExecSpec } from "../types.ts";
import type { SandboxPlacement } from "./bwrap_args.ts";
import { deniedBySandbox } from "./denied.ts";
import { findSandboxInit, killEscapedInit } from "./init.ts";
import { sandboxedRequest, setupFailureReason, takeStatus } from "./launcher.ts";
import { isMountRefusal } from "./mount_check.ts";
import { startingPoint } from "./placement.ts";
import type { ShellSandbox } from "./setup.ts";

/**
 * The wrapper that runs every command of a shell in `sandbox`, but those
 * whose spec says `sandbox: false`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxWrapper } from "./wrapper.ts";
 * import type { ShellSandbox } from "./setup.ts";
 * import type { ProcessAdapter } from "../adapter.ts";
 * import { ProcTable } from "../session/proc_table.ts";
 * // A spec that opts out is not wrapped; nothing of the sandbox is touched for it.
 * const wrapper = sandboxWrapper({ shell: "/bin/bash" } as ShellSandbox, {} as ProcessAdapter, new ProcTable());
 * assert.equal(wrapper.shell, "/bin/bash");
 * const spec = { command: "true", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1, sandbox: false as const };
 * assert.equal(wrapper.confines(spec), false);
 * ```
 */
export function sandboxWrapper(sandbox: ShellSandbox, adapter: ProcessAdapter, table: ProcTable): SpawnWrapper {
  return {
    shell: sandbox.shell,
    confines: (spec) => ownValue(spec, "sandbox") !== false,
    wrap: (request, spec, stateFile) =>
      ownValue(spec, "sandbox") === false ? undefined : inSandbox(request, spec, stateFile),
  };

  function inSandbox(request: SpawnRequest, spec: ShellExecSpec, stateFile?: ConfinedStateFile): WrappedCommand {
    const explicit = { ...ownValue(spec, "env"), ...ownValue(spec, "dshEnv") } as Record<string, string | undefined>;
    const env = Object.hasOwn(explicit, "TMPDIR") ? request.env : { ...request.env, TMPDIR: "/tmp" };
    const statusPath = sandbox.state.statusPath();
    const owner = sandbox.state.ownerName(spec.owner);
    const placement = {
      workdir: startingPoint(sandbox.policy, spec.workdir),
      ownerTmp: sandbox.state.ownerTmp(spec.owner),
      hidden: sandbox.hidden(),
      masked: sandbox.masked,
      spill: ownSpill(sandbox, owner),
    };
    return {
      env,
      request: sandboxedRequest(
        { ...request, env },
        sandbox.policy,
        placement,
        { statusPath, stateFile },
        sandbox.wrapper,
      ),
      terminating: (session) => {
        // Noted before the SIGTERM ends bubblewrap's outer process, while the sandbox's init is still its child.
        const init = findSandboxInit(statusPath, session.id, table);
        if (init === undefined) return (ended) => ended;
        return (ended) => ended.finally(() => killEscapedInit(init, session.id, table, adapter));
      },
      ended: (result, exit, session) => readEnd(statusPath, result, exit, session),
    };
  }
}

/**
 * What bubblewrap's status file says of the end: a set-up that failed (no
 * command exit recorded) or a mount the check refused is a
 * `ShellSandboxError`; otherwise the result is to say what the sandbox
 * denied.
 */
function readEnd(
  statusPath: string,
  result: Readonly<ShellRunResult>,
  exit: ChildExit,
  session: CommandSession,
): ResultFields {
  const status = takeStatus(statusPath);
  if (status.exitCode === undefined && exit.signal === null) {
    // bubblewrap exited by itself without running the command: its set-up failed. A failure after its clone
    // leaves the sandbox's init waiting for ever in the session: end the whole session.
    session.signal("SIGKILL");
    throw new ShellSandboxError(`the sandbox could not start the command: ${setupFailureReason(result.stderr.text)}`);
  }
  if (isMountRefusal(status.exitCode, result.stderr.text)) {
    throw new ShellSandboxError(`the sandbox refused to start the command: ${setupFailureReason(result.stderr.text)}`);
  }
  return { sandbox: { denied: deniedBySandbox(result) } };
}

/**
 * The spill directory and the owner's subdirectory of it, both real, for
 * the owner's spill files to be shown read-only at their own path
 * (`bwrap_args.ts`); undefined when the directory is unusable now: the
 * command runs without it, and a spill fails as it would anyway.
 */
function ownSpill(sandbox: ShellSandbox, owner: string): SandboxPlacement["spill"] {
  try {
    const own = realpathSync(sandbox.spill.subdirectory(owner));
    return { dir: dirname(own), own };
  } catch {
    return undefined;
  }
}
