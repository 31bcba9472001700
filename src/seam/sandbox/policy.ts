/**
 * The sandbox policy as the shell uses it: every path absolute and real
 * (bubblewrap refuses a symbolic link as a mount point, and a mount on the
 * real path covers every spelling of it), the defaults filled in.
 *
 * @module
 */

import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { realpathSync, statSync } from "node:fs";
import { ShellSpecError } from "../errors.ts";
import type { SandboxPolicy } from "../types.ts";

/**
 * What `denyRead` holds unless the policy says otherwise: where the usual
 * tools keep credentials, under the host user's home.
 */
export const DEFAULT_DENY_READ: readonly string[] = Object.freeze([
  "~/.ssh",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.gnupg",
  "~/.kube",
  "~/.docker",
  "~/.netrc",
  "~/.npmrc",
  "~/.pypirc",
  "~/.git-credentials",
]);

/** A policy with its defaults filled in and its paths resolved. Internal. */
export interface ResolvedSandbox {
  /** Real paths writable besides each command's workdir, shallowest first. */
  readonly writableRoots: readonly string[];
  /** Absolute paths to hide; missing ones stay in the list and are skipped at each spawn. */
  readonly denyRead: readonly string[];
  /** `"none"`: a private loopback only; `"host"`: the host's network. */
  readonly network: "none" | "host";
  /** Keep `.git/hooks` and `.git/config` under a writable root read-only. */
  readonly protectGit: boolean;
  /** The bubblewrap binary: a path, or a name looked up on `PATH`. */
  readonly bwrapPath: string;
}

/**
 * Fills in the defaults of `policy` and resolves its paths. Throws
 * {@linkcode ShellSpecError} naming the entry for a `writableRoots` entry
 * that does not exist or is not a directory.
 */
export function resolveSandbox(policy: SandboxPolicy): ResolvedSandbox {
  const writableRoots = (policy.writableRoots ?? []).map((root, index) => {
    const field = `sandbox.writableRoots[${index}]`;
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      throw new ShellSpecError(field, `does not exist: ${root}`);
    }
    if (!statSync(real).isDirectory()) throw new ShellSpecError(field, `is not a directory: ${root}`);
    return real;
  }).sort((a, b) => a.length - b.length);
  return {
    writableRoots,
    denyRead: (policy.denyRead ?? DEFAULT_DENY_READ).map(expandHome),
    network: policy.network ?? "none",
    protectGit: policy.protectGit ?? true,
    bwrapPath: policy.bwrapPath ?? "bwrap",
  };
}

/** `~/x` as the host user's `$HOME/x`; an absolute path as it is. */
function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  if (!isAbsolute(path)) throw new ShellSpecError("sandbox.denyRead", `must hold absolute paths or ~/…: ${path}`);
  return path;
}
