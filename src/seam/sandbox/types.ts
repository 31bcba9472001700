/**
 * The shape of the sandbox a shell runs its commands in,
 * {@linkcode SandboxPolicy}: checked by `schema.ts`, resolved by
 * `policy.ts`. Re-exported by `../types.ts`, the root's source.
 *
 * @module
 */

/**
 * What a sandboxed shell's commands may do. Everything outside the shell's
 * workdir and `writableRoots` is read-only (a request's own `workdir` is
 * where a command starts, not what it may write); `/tmp` is private to each owner; the
 * command sees only its own processes, holds no capabilities and cannot
 * make namespaces.
 *
 * @example
 * ```ts
 * import type { SandboxPolicy } from "@dsh/shell";
 * import assert from "node:assert/strict";
 * const policy: SandboxPolicy = {
 *   writableRoots: ["/var/cache/build"],
 *   network: "none",
 *   protectGit: true,
 *   tmpMaxBytes: 256 * 1024 * 1024,
 * };
 * assert.equal(policy.network, "none");
 * ```
 */
export interface SandboxPolicy {
  /**
   * Absolute paths writable besides the shell's workdir (default none).
   * Each must exist, and none may be `/`, `/tmp`, `/run` or in `/dev`,
   * `/proc`, `/sys`.
   */
  writableRoots?: string[];
  /**
   * Paths that read as unreadable inside (default: `~/.ssh`, `~/.aws`,
   * `~/.azure`, `~/.config/gcloud`, `~/.config/gh`, `~/.gnupg`, `~/.kube`,
   * `~/.docker`, `~/.netrc`, `~/.npmrc`, `~/.pypirc`, `~/.git-credentials`,
   * and the credential files of the agent CLIs, git, cargo, libpq, Vault,
   * Terraform, pass and the desktop keyring: see `docs/sandbox.md`).
   * Absolute, or starting `~/`; missing ones are fine.
   */
  denyRead?: string[];
  /** `"none"` (the default): no network at all, a private loopback only; `"host"`: the host's network. */
  network?: "none" | "host";
  /** `.git/hooks` and `.git/config` under a writable root stay read-only (default true). */
  protectGit?: boolean;
  /** The bubblewrap binary (default `bwrap` on `PATH`). */
  bwrapPath?: string;
  /**
   * The most bytes an owner's private `/tmp` holds (default 1 GiB; at least
   * 4096): a write past it fails inside with ENOSPC ("No space left on
   * device"). It is a tmpfs, in memory (and swap), never on the host's
   * disk, and it lasts until `close()`.
   */
  tmpMaxBytes?: number;
}
