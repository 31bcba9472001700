/**
 * The bubblewrap arguments of one sandboxed command. The order matters:
 * bubblewrap applies file-system operations in argument order and the last
 * mount on a path wins, so the read-only root comes first, then the private
 * `/dev`, `/proc`, `/run` and `/tmp`, then what is writable, then the
 * directories pinned in place, then what stays read-only inside, and the
 * masks last. See `docs/sandbox.md` for
 * why each flag is there.
 *
 * @module
 */

import { existsSync, lstatSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ShellSandboxError } from "../errors.ts";
import { isUnder, realIfPresent, realOrUndefined } from "./paths.ts";
import type { ResolvedSandbox } from "./policy.ts";
import type { MountExpectation } from "./mount_check.ts";

/** Where one command runs, as the arguments need to know it. */
export interface SandboxPlacement {
  /** Where the command starts, real and absolute (see `placement.ts`): never what it may write. */
  readonly workdir: string;
  /** The owner's private directory on the host, mounted at `/tmp` inside. */
  readonly ownerTmp: string;
  /** Host directories of the library's to hide (spill files, state): masked wherever they would be visible. */
  readonly hidden: readonly string[];
  /**
   * The real paths the shell has masked so far, kept by the shell: masked
   * again wherever they still are. A denied `~/.ssh` that is a link to
   * `~/.vault/ssh` is masked at the real path; a command that removes the
   * link must not make the next command skip it. The arguments add to it.
   */
  readonly masked?: Set<string>;
  /**
   * The spill directory and the command's owner's subdirectory of it, both
   * real: the subdirectory is shown read-only at its own path, so that the
   * path the bash tool names works inside; the rest of the spill directory
   * stays hidden (it is in `hidden`).
   */
  readonly spill?: { readonly dir: string; readonly own: string };
  /** The fd bubblewrap writes its JSON status lines to. */
  readonly statusFd: number;
  /** The fd bubblewrap reads the seccomp program from (`seccomp.ts`). */
  readonly seccompFd: number;
}

/** The arguments between `bwrap` and `--`, and what the mount check must find once they are applied. */
export interface BwrapArgs {
  /** The arguments. */
  readonly args: string[];
  /** The mounts made from inside the writable roots, which a command could race (`mount_check.ts`). */
  readonly expected: MountExpectation[];
}

/** The arguments between `bwrap` and `--`. */
export function bwrapArgs(sandbox: ResolvedSandbox, placement: SandboxPlacement): BwrapArgs {
  const args = [
    // A user namespace of its own, and no nested one: `unshare -U` and the like fail inside.
    "--unshare-user",
    "--disable-userns",
    // A pid namespace of its own: host processes are invisible and cannot be signalled.
    "--unshare-pid",
    // The init gets SIGKILL when bubblewrap's outer process exits, which it does as soon as the command's leader
    // has: the pid namespace ends with its init, so nothing the command started (setsid, nohup, a double fork)
    // outlives it, and the result never waits on such a survivor holding the pipes.
    "--die-with-parent",
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
  // A bind covers what is below it: a writable root inside another one needs no bind of its own.
  const binds = outermost(sandbox.writableRoots);
  for (const root of binds) args.push("--bind", root, root);
  const expected: MountExpectation[] = binds.map((point) => ({ point, sameAsHost: true }));
  const git = sandbox.protectGit ? sandbox.writableRoots.flatMap(gitProtection) : [];
  const masks = maskedPaths([...sandbox.denyRead, ...placement.hidden], binds, placement.masked ?? new Set());
  // What is mounted below a writable root stays where it is only if no directory on the way can be renamed; a
  // mount point cannot be, so each one is bound onto itself first. Otherwise a command renames a parent, and the
  // next command's bubblewrap finds the masked path gone, or follows a symbolic link put in the parent's place.
  // A writable root inside another one is pinned itself, or a rename would make it point elsewhere (see placement.ts).
  const nested = sandbox.writableRoots.filter((root) => !binds.includes(root));
  const targets = [...nested, ...git.map((protection) => protection.path), ...masks.map((mask) => mask.path)];
  for (const pin of pinsFor(targets, binds, nested)) {
    args.push("--bind", pin, pin);
    expected.push({ point: pin, sameAsHost: true });
  }
  for (const mount of [...git, ...withOwnSpill(masks, placement.spill)]) {
    args.push(...mount.args);
    expected.push(...mount.expected);
  }
  args.push("--chdir", placement.workdir, "--json-status-fd", String(placement.statusFd));
  return { args, expected };
}

/** The paths of `roots` that no other one contains. */
function outermost(roots: readonly string[]): string[] {
  return roots.filter((root) => !roots.some((outer) => outer !== root && isUnder(root, outer)));
}

/** A path mounted over below a writable root (hidden, or kept read-only), and the arguments that do it. */
interface Mask {
  readonly path: string;
  readonly args: readonly string[];
  /** What the mount check must find. */
  readonly expected: readonly MountExpectation[];
}

/**
 * The masks of `paths`, and of the real paths in `masked` (which gains
 * those of `paths`), that exist and are visible inside: an unreadable empty
 * directory, or `/dev/null` for a file. A path inside another masked one is
 * hidden with it already (and a mount point could not be made in the
 * read-only mask). A path that cannot be looked at throws (`realIfPresent`).
 */
function maskedPaths(paths: readonly string[], binds: readonly string[], masked: Set<string>): Mask[] {
  // Under /tmp only what a writable root brings in is the host's; the rest of /tmp is the owner's own.
  const visible = (path: string): boolean => !isUnder(path, "/tmp") || binds.some((root) => isUnder(path, root));
  const searched = new Set<string>();
  const now = new Set<string>();
  for (const path of [...paths, ...masked]) {
    // Already resolved by this spawn: a denied path's real path is in `masked` from the last spawn on.
    if (now.has(path)) continue;
    // Missing now: nothing to hide, and a mount point would have to be created on the host.
    const real = realIfPresent(path, searched);
    if (real !== undefined) now.add(real);
  }
  for (const path of now) masked.add(path);
  const real = [...now].filter(visible).sort((a, b) => a.length - b.length);
  const kept = real.filter((path, index) => !real.slice(0, index).some((outer) => isUnder(path, outer)));
  return kept.map((path) => ({
    path,
    args: statSync(path).isDirectory()
      ? ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
      : ["--ro-bind", "/dev/null", path],
    expected: [{ point: path, sameAsHost: false }],
  }));
}

/**
 * `masks`, with the owner's spill subdirectory `spill.own` bound read-only
 * at its own path. Where the spill directory is masked, the bind goes into
 * its mask, which is then searchable (0711) so that the command can reach
 * the one directory in it; where it is not visible (under the host's
 * `/tmp`, which inside is the owner's own), bubblewrap makes the mount
 * point in the owner's `/tmp`, and the mount check refuses a bind that a
 * command's link sent elsewhere. Inside another mask (a denied directory),
 * it stays hidden with it.
 */
function withOwnSpill(masks: readonly Mask[], spill: SandboxPlacement["spill"]): Mask[] {
  if (spill === undefined) return [...masks];
  const bind = ["--ro-bind", spill.own, spill.own];
  const shown = { point: spill.own, sameAsHost: true };
  if (masks.some((mask) => mask.path !== spill.dir && isUnder(spill.own, mask.path))) return [...masks];
  const own = masks.find((mask) => mask.path === spill.dir);
  if (own === undefined) return [...masks, { path: spill.own, args: bind, expected: [shown] }];
  return masks.map((mask) =>
    mask !== own ? mask : {
      path: mask.path,
      args: ["--perms", "0711", "--tmpfs", mask.path, ...bind, "--remount-ro", mask.path],
      expected: [...mask.expected, shown],
    }
  );
}

/**
 * The directories strictly between each target and the outermost writable
 * root above it, and the nested roots themselves, shallowest first. Targets
 * outside every writable root need none: nothing there can be renamed from
 * inside.
 */
function pinsFor(targets: readonly string[], binds: readonly string[], nested: readonly string[]): string[] {
  const pins = new Set<string>(nested);
  for (const target of targets) {
    const root = binds.find((bind) => bind !== target && isUnder(target, bind));
    if (root === undefined) continue;
    for (let dir = dirname(target); dir !== root && isUnder(dir, root); dir = dirname(dir)) pins.add(dir);
  }
  return [...pins].sort((a, b) => a.length - b.length);
}

/**
 * `.git` under a writable root: the directory itself pinned (a mount point
 * cannot be renamed away), its `hooks` and `config` read-only, and masked
 * read-only when missing (bubblewrap then leaves an empty `hooks` directory
 * or `config` file in the tree, as `git init` would). A `.git` file (a
 * worktree's or submodule's pointer) is read-only as a whole.
 */
function gitProtection(root: string): Mask[] {
  const git = join(root, ".git");
  let isDirectory: boolean;
  try {
    const stat = lstatSync(git);
    if (stat.isSymbolicLink()) return [];
    isDirectory = stat.isDirectory();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return [];
    // A root a command made unreadable (`chmod 000`) must not pass for one without a repository.
    throw new ShellSandboxError(`cannot tell whether ${git} exists (${String(error)}): nothing runs until it can be`);
  }
  if (!isDirectory) return [{ path: git, args: ["--ro-bind", git, git], expected: [{ point: git, sameAsHost: true }] }];
  const args = ["--bind", git, git];
  const hooks = join(git, "hooks");
  const config = join(git, "config");
  const hooksThere = existsSync(hooks);
  const configThere = existsSync(config);
  // A missing hooks directory is masked too, or a command could create one and put a pre-commit hook in it that the
  // host's next `git commit` runs. bubblewrap creates the empty mount point, as `git init` would have.
  if (hooksThere) args.push("--ro-bind", hooks, hooks);
  else args.push("--perms", "0555", "--tmpfs", hooks, "--remount-ro", hooks);
  // Likewise a missing config: a new one could set core.fsmonitor or core.hooksPath. An empty file is a valid config.
  args.push("--ro-bind", configThere ? config : "/dev/null", config);
  const expected = [
    { point: git, sameAsHost: true },
    { point: hooks, sameAsHost: hooksThere },
    { point: config, sameAsHost: configThere },
  ];
  return [{ path: git, args, expected }];
}
