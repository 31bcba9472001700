/**
 * The bubblewrap arguments of one sandboxed command. The order matters:
 * bubblewrap applies file-system operations in argument order and the last
 * mount on a path wins, so the read-only root comes first, then the private
 * `/dev`, `/proc`, `/run` and `/tmp`, then what is writable, then what
 * stays read-only inside it, and the masks last. See `docs/sandbox.md` for
 * why each flag is there.
 *
 * @module
 */

import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ResolvedSandbox } from "./policy.ts";

/** Where one command runs, as the arguments need to know it. */
export interface SandboxPlacement {
  /** The command's workdir, real and absolute: writable, and where it starts. */
  readonly workdir: string;
  /** The owner's private directory on the host, mounted at `/tmp` inside. */
  readonly ownerTmp: string;
  /** Host directories of the library's to hide (spill files, state): masked wherever they would be visible. */
  readonly hidden: readonly string[];
  /** The fd bubblewrap writes its JSON status lines to. */
  readonly statusFd: number;
  /** The fd bubblewrap reads the seccomp program from (`seccomp.ts`). */
  readonly seccompFd: number;
}

/** The arguments between `bwrap` and `--`. */
export function bwrapArgs(sandbox: ResolvedSandbox, placement: SandboxPlacement): string[] {
  const args = [
    // A user namespace of its own, and no nested one: `unshare -U` and the like fail inside.
    "--unshare-user",
    "--disable-userns",
    // A pid namespace of its own: host processes are invisible and cannot be signalled.
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // bubblewrap keeps every capability for a root caller: without this, `mount -o remount,bind,rw /` would work.
    "--cap-drop",
    "ALL",
  ];
  if (sandbox.network === "none") args.push("--unshare-net");
  // ptrace, keyrings, vsock, setuid and setgid bits: see seccomp.ts. Installed on the command and on the init.
  args.push("--seccomp", String(placement.seccompFd));
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // The init (bubblewrap, pid 1 inside; single-threaded) runs as the command's user: its memory is as writable
  // through /proc as through ptrace, and a write there could make it leave the session the library terminates.
  args.push("--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem");
  // Host sockets under /run (docker.sock, the D-Bus session bus) are reachable over any network namespace.
  args.push("--tmpfs", "/run");
  if (sandbox.network === "host") {
    const resolvConf = realOrUndefined("/etc/resolv.conf");
    if (resolvConf !== undefined && isUnder(resolvConf, "/run")) args.push("--ro-bind", resolvConf, resolvConf);
  }
  args.push("--bind", placement.ownerTmp, "/tmp");
  const roots = [placement.workdir, ...sandbox.writableRoots.filter((root) => root !== placement.workdir)]
    .sort((a, b) => a.length - b.length);
  for (const root of roots) args.push("--bind", root, root);
  if (sandbox.protectGit) { for (const root of roots) args.push(...gitProtection(root)); }
  const visible = (path: string): boolean => !isUnder(path, "/tmp") || roots.some((root) => isUnder(path, root));
  for (const path of [...sandbox.denyRead, ...placement.hidden]) {
    const real = realOrUndefined(path);
    // Missing: nothing to hide, and a mount point would have to be created on the host.
    if (real === undefined || !visible(real)) continue;
    if (statSync(real).isDirectory()) args.push("--perms", "0000", "--tmpfs", real, "--remount-ro", real);
    else args.push("--ro-bind", "/dev/null", real);
  }
  args.push("--chdir", placement.workdir, "--json-status-fd", String(placement.statusFd));
  return args;
}

/**
 * `.git` under a writable root: the directory itself pinned (a mount point
 * cannot be renamed away), its `hooks` and `config` read-only, and masked
 * read-only when missing (bubblewrap then leaves an empty `hooks` directory
 * or `config` file in the tree, as `git init` would). A `.git` file (a
 * worktree's or submodule's pointer) is read-only as a whole.
 */
function gitProtection(root: string): string[] {
  const git = join(root, ".git");
  let isDirectory: boolean;
  try {
    const stat = lstatSync(git);
    if (stat.isSymbolicLink()) return [];
    isDirectory = stat.isDirectory();
  } catch {
    return [];
  }
  if (!isDirectory) return ["--ro-bind", git, git];
  const args = ["--bind", git, git];
  const hooks = join(git, "hooks");
  // A missing hooks directory is masked too, or a command could create one and put a pre-commit hook in it that the
  // host's next `git commit` runs. bubblewrap creates the empty mount point, as `git init` would have.
  if (existsSync(hooks)) args.push("--ro-bind", hooks, hooks);
  else args.push("--perms", "0555", "--tmpfs", hooks, "--remount-ro", hooks);
  const config = join(git, "config");
  // Likewise a missing config: a new one could set core.fsmonitor or core.hooksPath. An empty file is a valid config.
  args.push("--ro-bind", existsSync(config) ? config : "/dev/null", config);
  return args;
}

/** Whether `path` is `dir` or below it. */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
