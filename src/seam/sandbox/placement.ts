/**
 * Where a sandboxed command starts, checked at each spawn. A request's
 * `workdir` is where the command starts, never what it may write (a model
 * chooses it through its tool); it must be a directory the sandbox shows
 * as the host has it. The writable roots are checked again too: a root
 * that no longer resolves to the directory the shell was made with is
 * refused, never bound wherever its path leads now.
 *
 * @module
 */

import { ShellSandboxError } from "../errors.ts";
import { isUnder, realOrUndefined } from "./paths.ts";
import type { ResolvedSandbox } from "./policy.ts";

/** Where the sandbox puts its own file systems instead of the host's. */
const SANDBOX_OWN = ["/tmp", "/dev", "/proc", "/run"] as const;

/**
 * The real path a command of `sandbox` starts in, for the request's
 * `workdir`. Throws {@linkcode ShellSandboxError} naming the path when a
 * writable root moved since the shell was made, or when the workdir is
 * missing or one the sandbox replaces (its own `/tmp`, `/dev`, `/proc`,
 * `/run`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { realpathSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { startingPoint } from "./placement.ts";
 * const sandbox = {
 *   writableRoots: [realpathSync(tmpdir())],
 *   denyRead: [],
 *   network: "none",
 *   protectGit: true,
 *   bwrapPath: "/usr/bin/bwrap",
 *   tmpMaxBytes: 1 << 30,
 * } as const;
 * assert.equal(startingPoint(sandbox, "/usr"), "/usr");
 * assert.throws(() => startingPoint(sandbox, "/proc"), { name: "ShellSandboxError" });
 * ```
 */
export function startingPoint(sandbox: ResolvedSandbox, workdir: string): string {
  for (const root of sandbox.writableRoots) {
    const now = realOrUndefined(root);
    if (now !== root) {
      throw new ShellSandboxError(
        now === undefined
          ? `the writable root ${root} no longer exists: make it again, or create a new shell`
          : `the writable root ${root} now resolves to ${now}: a directory on its path was replaced; ` +
            "nothing is bound there, create a new shell",
      );
    }
  }
  const real = realOrUndefined(workdir);
  if (real === undefined) throw new ShellSandboxError(`workdir ${workdir} does not exist`);
  const own = SANDBOX_OWN.find((dir) => isUnder(real, dir));
  if (own !== undefined && !sandbox.writableRoots.some((root) => isUnder(real, root))) {
    throw new ShellSandboxError(
      `workdir ${workdir} is not visible in the sandbox: ${own} inside is the sandbox's own; ` +
        "use the shell's workdir or a writable root",
    );
  }
  // A hidden workdir is bubblewrap's to refuse (`Can't chdir`): the masks are worked out once, in bwrapArgs.
  return real;
}
