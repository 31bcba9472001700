/**
 * The sandbox policy as the shell uses it: every path absolute and real
 * (bubblewrap refuses a symbolic link as a mount point, and a mount on the
 * real path covers every spelling of it), the defaults filled in, and the
 * writable set fixed: the shell's workdir and `writableRoots`, nothing a
 * request can add to.
 *
 * @module
 */

import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { statSync } from "node:fs";
import { ShellSpecError } from "../errors.ts";
import { isUnder, realOrUndefined } from "./paths.ts";
import type { SandboxPolicy } from "./types.ts";

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
  // Beyond the specification's list: where the agent CLIs, git, cargo, libpq, Vault, Terraform, pass, the desktop
  // keyring and other common CLIs keep credentials, which a model's command has no business reading either.
  "~/.claude/.credentials.json",
  "~/.codex/auth.json",
  "~/.gemini/oauth_creds.json",
  "~/.config/git/credentials",
  "~/.cargo/credentials.toml",
  "~/.cargo/credentials",
  "~/.pgpass",
  "~/.vault-token",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.config/hub",
  "~/.config/op",
  "~/.config/doctl",
  "~/.huggingface/token",
  "~/.cache/huggingface/token",
  "~/.s3cfg",
]);

/** What an owner's private `/tmp` holds at most unless the policy says otherwise: 1 GiB. */
export const DEFAULT_TMP_MAX_BYTES = 1024 * 1024 * 1024;

/** A policy with its defaults filled in and its paths resolved. Internal. */
export interface ResolvedSandbox {
  /**
   * The real paths a command may write: the shell's workdir and the
   * policy's `writableRoots`, shallowest first, without repeats. Fixed
   * when the shell is made: a request's `workdir` is where a command
   * starts, never what it may write.
   */
  readonly writableRoots: readonly string[];
  /** Absolute paths to hide; missing ones stay in the list and are skipped at each spawn. */
  readonly denyRead: readonly string[];
  /** `"none"`: a private loopback only; `"host"`: the host's network. */
  readonly network: "none" | "host";
  /** Keep `.git/hooks` and `.git/config` under a writable root read-only. */
  readonly protectGit: boolean;
  /** The bubblewrap binary: a path, or a name looked up on `PATH`. */
  readonly bwrapPath: string;
  /** The size of each owner's `/tmp` (a tmpfs), in bytes. */
  readonly tmpMaxBytes: number;
}

/**
 * Fills in the defaults of `policy` for a shell whose workdir is
 * `workdir`, and resolves its paths. Throws {@linkcode ShellSpecError}
 * naming the field (`workdir` or `sandbox.writableRoots[i]`) for a
 * writable path that does not exist, is not a directory, or would open
 * what the sandbox keeps apart (see {@linkcode writableProblem}).
 */
export function resolveSandbox(policy: SandboxPolicy, workdir: string): ResolvedSandbox {
  const given = [
    ["workdir", workdir],
    ...(policy.writableRoots ?? []).map((root, index) => {
      return [`sandbox.writableRoots[${index}]`, root];
    }),
  ];
  const real = given.map(([field, root]) => realWritable(field, root));
  return {
    writableRoots: [...new Set(real)].sort((a, b) => a.length - b.length),
    denyRead: (policy.denyRead ?? DEFAULT_DENY_READ).map(expandHome),
    network: policy.network ?? "none",
    protectGit: policy.protectGit ?? true,
    bwrapPath: policy.bwrapPath ?? "bwrap",
    tmpMaxBytes: policy.tmpMaxBytes ?? DEFAULT_TMP_MAX_BYTES,
  };
}

/** `root` as a real directory a sandbox can make writable; {@linkcode ShellSpecError} naming `field` otherwise. */
function realWritable(field: string, root: string): string {
  const real = realOrUndefined(root);
  if (real === undefined) throw new ShellSpecError(field, `does not exist: ${root}`);
  if (!statSync(real).isDirectory()) throw new ShellSpecError(field, `is not a directory: ${root}`);
  const problem = writableProblem(real);
  if (problem !== undefined) throw new ShellSpecError(field, `${root} ${problem}`);
  return real;
}

/**
 * Why a sandbox must not make the real directory `real` writable, or
 * undefined. The root of the file system would make everything writable;
 * `/tmp` and `/run` hold other programs' files and sockets, and other
 * shells' private state; `/dev`, `/proc` and `/sys` are the kernel's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writableProblem } from "./policy.ts";
 * assert.match(writableProblem("/") ?? "", /whole file system/);
 * assert.equal(writableProblem("/srv/project"), undefined);
 * ```
 */
export function writableProblem(real: string): string | undefined {
  if (real === "/") return "is the root of the file system: the sandbox would make the whole file system writable";
  if (real === "/tmp" || real === "/run") {
    return `holds every program's temporary files and sockets: use a directory of its own below it (each owner has a private /tmp inside)`;
  }
  const system = ["/dev", "/proc", "/sys"].find((dir) => isUnder(real, dir));
  if (system !== undefined) return `is in ${system}, which the sandbox keeps to itself`;
  return undefined;
}

/** `~/x` as the host user's `$HOME/x`; an absolute path as it is. */
function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  if (!isAbsolute(path)) throw new ShellSpecError("sandbox.denyRead", `must hold absolute paths or ~/…: ${path}`);
  return path;
}
