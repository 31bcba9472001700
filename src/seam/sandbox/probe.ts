/**
 * Fail closed: before a sandboxed shell is handed out, the sandbox is set
 * up once for real, with `/bin/true` as the command. Anything that stops it
 * — no bubblewrap, an old one, user namespaces switched off, an unsupported
 * platform — is a `ShellSandboxError` that says why and how to fix it, so a
 * sandboxed shell never runs anything unsandboxed.
 *
 * @module
 */

import process from "node:process";
import { statSync } from "node:fs";
import type { ProcessAdapter } from "../adapter.ts";
import { ShellSandboxError } from "../errors.ts";
import { sandboxedRequest, type SandboxWrapper, setupFailureReason, takeStatus } from "./launcher.ts";
import type { ResolvedSandbox } from "./policy.ts";
import type { ProcTable } from "../session/proc_table.ts";
import type { SandboxPlacement } from "./bwrap_args.ts";
import { findOnPath, isExecutableFile } from "./lookup.ts";
import { isUnder, realOrUndefined } from "./paths.ts";

/** The install hint every "no bubblewrap" message ends with. */
const INSTALL = "install bubblewrap 0.8 or newer (Debian/Ubuntu: apt-get install bubblewrap) or set sandbox.bwrapPath";

/**
 * The absolute path of the bubblewrap binary, checked: found (on `PATH`,
 * outside every `writable` directory), executable, not inside a writable
 * directory (a command could replace it), not setuid (a setuid bubblewrap
 * cannot keep nested user namespaces off). Throws
 * {@linkcode ShellSandboxError} otherwise, and on any platform but Linux.
 */
export function findBwrap(bwrapPath: string, writable: readonly string[]): string {
  if (process.platform !== "linux") {
    throw new ShellSandboxError(
      `the sandbox is supported on Linux only (bubblewrap); this is ${process.platform}: create the shell without sandbox`,
    );
  }
  const found = bwrapPath.includes("/")
    ? (isExecutableFile(bwrapPath) ? bwrapPath : undefined)
    : findOnPath(bwrapPath, writable);
  if (found === undefined) throw new ShellSandboxError(`bubblewrap (${bwrapPath}) was not found: ${INSTALL}`);
  const real = realOrUndefined(found) ?? found;
  const inside = writable.find((root) => isUnder(real, root));
  if (inside !== undefined) {
    throw new ShellSandboxError(
      `${found} is inside the writable ${inside}, where a sandboxed command could replace it: ` +
        "use a bubblewrap outside the sandbox's writable directories (set sandbox.bwrapPath)",
    );
  }
  if ((statSync(found).mode & 0o4000) !== 0) {
    throw new ShellSandboxError(
      `${found} is setuid root, which cannot keep nested user namespaces off (--disable-userns): ` +
        "use a bubblewrap that is not setuid (the distribution's package is not, where user namespaces are on)",
    );
  }
  return found;
}

/** Where bash is looked for: never on `PATH`, which a harness's environment may point anywhere. */
const BASH_CANDIDATES: readonly string[] = ["/usr/bin/bash", "/bin/bash"];

/**
 * The bash the wrapper runs on the host (`launcher.ts`): it must close
 * inherited fds above 9, which `dash` and POSIX `sh` cannot name. Throws
 * {@linkcode ShellSandboxError} when there is none outside the `writable`
 * directories (real paths), where a command could replace it.
 */
export function findBash(writable: readonly string[]): string {
  const found = BASH_CANDIDATES.find((path) => {
    const real = realOrUndefined(path);
    return real !== undefined && !writable.some((root) => isUnder(real, root)) && isExecutableFile(path);
  });
  if (found === undefined) {
    throw new ShellSandboxError(
      `bash was not found at ${BASH_CANDIDATES.join(" or ")} outside the writable directories: the sandbox needs ` +
        "it to close the file descriptors a command would otherwise inherit from the harness (Debian/Ubuntu: " +
        "apt-get install bash)",
    );
  }
  return found;
}

/** Where `dash` is looked for: like bash, never on `PATH`. */
const DASH_CANDIDATES: readonly string[] = ["/usr/bin/dash", "/bin/dash"];

/**
 * `dash` at a fixed path outside the writable directories, or undefined:
 * the launcher of a command without a session's state (`launcher.ts`),
 * which starts faster than bash; without it, bash launches every command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findDash } from "./probe.ts";
 * assert.equal(findDash(["/"]), undefined); // everything is writable: no program found there is trusted
 * ```
 */
export function findDash(writable: readonly string[]): string | undefined {
  return DASH_CANDIDATES.find((path) => {
    const real = realOrUndefined(path);
    return real !== undefined && !writable.some((root) => isUnder(real, root)) && isExecutableFile(path);
  });
}

/** Known refusals of bubblewrap, and what to do about each. */
const DIAGNOSES: readonly [RegExp, string][] = [
  [/Unknown option --disable-userns/, "this bubblewrap is older than 0.8.0, which added --disable-userns: upgrade it"],
  [
    /No permissions to creat|Operation not permitted.*namespace|setting up uid map/i,
    "unprivileged user namespaces are off: enable them (sysctl kernel.unprivileged_userns_clone=1 on Debian/Ubuntu; " +
    "on Ubuntu 23.10+ also kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap)",
  ],
  [
    /Creating new namespace failed|max_user_namespaces|ENOSPC/,
    "no user namespace can be created here (user.max_user_namespaces is 0, or this runs inside another sandbox)",
  ],
  [/loopback: Failed RTM_NEWADDR/, 'this environment refuses a network namespace: use sandbox.network "host"'],
  [
    /Can't mount proc/,
    "this environment refuses a fresh /proc (a restricted container): the sandbox cannot hide host processes here",
  ],
];

/**
 * Sets the sandbox up once with `/bin/true` through `adapter`'s synchronous
 * probe; throws {@linkcode ShellSandboxError} naming the cause and the fix
 * when that fails.
 */
export function probeSandbox(
  adapter: ProcessAdapter,
  table: ProcTable,
  sandbox: ResolvedSandbox,
  placement: Omit<SandboxPlacement, "statusFd" | "seccompFd">,
  statusPath: string,
  wrapper: SandboxWrapper,
): void {
  if (adapter.probe === undefined) {
    throw new ShellSandboxError(`the ${adapter.name} adapter cannot check the sandbox (it has no probe())`);
  }
  const request = sandboxedRequest(
    {
      program: "/bin/true",
      args: [],
      cwd: placement.workdir,
      env: { PATH: "/usr/bin:/bin" },
      onStdout: () => {},
      onStderr: () => {},
    },
    sandbox,
    placement,
    { statusPath },
    wrapper,
  );
  const outcome = adapter.probe({ program: request.program, args: request.args, cwd: request.cwd, env: request.env });
  const status = takeStatus(statusPath);
  if (status.exitCode === 0) return;
  // A failure after bubblewrap's clone leaves its init waiting for ever, in the probe's group: end that group.
  const stuck = status.initPid === undefined ? undefined : table.read(status.initPid);
  if (stuck !== undefined && !stuck.finished) adapter.signalGroup(stuck.pgrp, "SIGKILL");
  const reason = setupFailureReason(outcome.stderr);
  const fix = DIAGNOSES.find(([pattern]) => pattern.test(reason))?.[1];
  throw new ShellSandboxError(
    `the sandbox could not be set up (${reason})${fix === undefined ? "" : `: ${fix}`}; no command runs unsandboxed`,
  );
}
