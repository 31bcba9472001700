/**
 * The sandbox's bubblewrap arguments, exactly: `bwrapArgs()` is a function
 * of the policy, the placement and what the paths are on disk, so each case
 * builds a small tree and states the whole argv, flag by flag, in the order
 * bubblewrap applies it (a later mount on a path wins), and the mounts the
 * mount check must then find.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bwrapArgs } from "../src/seam/sandbox/bwrap_args.ts";
import type { ResolvedSandbox } from "../src/seam/sandbox/policy.ts";
import { isUnder, realOrUndefined } from "../src/seam/sandbox/paths.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";

/** What every sandboxed command gets first: namespaces, capabilities, seccomp, the read-only root, /dev, /proc. */
function head(network: "none" | "host"): string[] {
  return [
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--die-with-parent",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    ...(network === "none" ? ["--unshare-net"] : []),
    "--seccomp",
    "4",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    "/dev/null",
    "/proc/1/mem",
    "--ro-bind",
    "/dev/null",
    "/proc/1/task/1/mem",
    "--tmpfs",
    "/run",
  ];
}

/** Runs `body` in a fresh temporary directory, removed afterwards. */
function inFreshDir(body: (dir: string) => void): void {
  const dir = freshDir("dsh-bwrap-");
  try {
    body(dir);
  } finally {
    removeDir(dir);
  }
}

function policy(fields: Partial<ResolvedSandbox> & { writableRoots: string[] }): ResolvedSandbox {
  return { denyRead: [], network: "none", protectGit: false, bwrapPath: "bwrap", tmpMaxBytes: 1 << 30, ...fields };
}

describe("bwrapArgs", () => {
  it("a workdir as the only writable root, network none", () => {
    inFreshDir((dir) => {
      const work = realpathSync(dir);
      const tmp = join(work, "owner-tmp");
      const { args, expected } = bwrapArgs(policy({ writableRoots: [work] }), {
        workdir: work,
        ownerTmp: tmp,
        hidden: [],
        statusFd: 3,
        seccompFd: 4,
      });
      assert.deepEqual(args, [
        ...head("none"),
        "--bind",
        tmp,
        "/tmp",
        "--bind",
        work,
        work,
        "--chdir",
        work,
        "--json-status-fd",
        "3",
      ]);
      assert.deepEqual(expected, [{ point: work, sameAsHost: true }]);
    });
  });

  it("network host: no network namespace, and resolv.conf kept where /run would hide it", () => {
    inFreshDir((dir) => {
      const work = realpathSync(dir);
      const { args } = bwrapArgs(policy({ writableRoots: [work], network: "host" }), {
        workdir: work,
        ownerTmp: "/owner",
        hidden: [],
        statusFd: 3,
        seccompFd: 4,
      });
      const resolvConf = realOrUndefined("/etc/resolv.conf");
      const kept = resolvConf !== undefined && isUnder(resolvConf, "/run") ? ["--ro-bind", resolvConf, resolvConf] : [];
      assert.deepEqual(args, [
        ...head("host"),
        ...kept,
        "--bind",
        "/owner",
        "/tmp",
        "--bind",
        work,
        work,
        "--chdir",
        work,
        "--json-status-fd",
        "3",
      ]);
    });
  });

  it("git kept read-only, denied paths masked and their parents pinned, the owner's spill directory shown", () => {
    // Under the host's /tmp whatever TMPDIR says: inside, /tmp is the owner's own, so what is there needs no mask.
    const base = realpathSync(mkdtempSync("/tmp/dsh-bwrap-"));
    try {
      const work = join(base, "work");
      const git = join(work, ".git");
      mkdirSync(join(git, "hooks"), { recursive: true }); // hooks there, config missing
      mkdirSync(join(work, "private"));
      mkdirSync(join(work, "sub"));
      writeFileSync(join(work, "sub", "secret.txt"), "s");
      // The spill directory outside every writable root, under the host's /tmp: not visible inside, so not masked.
      const spill = join(base, "spill");
      const own = join(spill, "owner");
      mkdirSync(own, { recursive: true });
      const masked = new Set<string>();
      const { args, expected } = bwrapArgs(
        policy({
          writableRoots: [work],
          protectGit: true,
          denyRead: [join(work, "sub", "secret.txt"), join(work, "private"), join(work, "missing")],
        }),
        {
          workdir: work,
          ownerTmp: "/owner",
          hidden: [spill],
          masked,
          spill: { dir: spill, own },
          statusFd: 3,
          seccompFd: 4,
        },
      );
      assert.deepEqual(args, [
        ...head("none"),
        "--bind",
        "/owner",
        "/tmp",
        "--bind",
        work,
        work,
        // sub/ is on the way to a mask: a rename of it would move the mask away.
        "--bind",
        join(work, "sub"),
        join(work, "sub"),
        "--bind",
        git,
        git,
        "--ro-bind",
        join(git, "hooks"),
        join(git, "hooks"),
        "--ro-bind",
        "/dev/null",
        join(git, "config"),
        // Shallowest first: the directory, then the file.
        "--perms",
        "0000",
        "--tmpfs",
        join(work, "private"),
        "--remount-ro",
        join(work, "private"),
        "--ro-bind",
        "/dev/null",
        join(work, "sub", "secret.txt"),
        "--ro-bind",
        own,
        own,
        "--chdir",
        work,
        "--json-status-fd",
        "3",
      ]);
      assert.deepEqual(expected, [
        { point: work, sameAsHost: true },
        { point: join(work, "sub"), sameAsHost: true },
        { point: git, sameAsHost: true },
        { point: join(git, "hooks"), sameAsHost: true },
        { point: join(git, "config"), sameAsHost: false },
        { point: join(work, "private"), sameAsHost: false },
        { point: join(work, "sub", "secret.txt"), sameAsHost: false },
        { point: own, sameAsHost: true },
      ]);
      // The real paths masked are remembered for the next spawn; the spill directory, invisible, is remembered too.
      assert.deepEqual(
        [...masked].sort(),
        [join(work, "private"), join(work, "sub", "secret.txt"), spill].sort(),
      );
    } finally {
      removeDir(base);
    }
  });

  it("a spill directory inside a writable root: masked, searchable, with only the owner's own shown in it", () => {
    inFreshDir((dir) => {
      const work = realpathSync(dir);
      const spill = join(work, ".spill");
      const own = join(spill, "owner");
      mkdirSync(own, { recursive: true });
      const { args, expected } = bwrapArgs(policy({ writableRoots: [work] }), {
        workdir: work,
        ownerTmp: "/owner",
        hidden: [spill],
        spill: { dir: spill, own },
        statusFd: 3,
        seccompFd: 4,
      });
      assert.deepEqual(args, [
        ...head("none"),
        "--bind",
        "/owner",
        "/tmp",
        "--bind",
        work,
        work,
        "--perms",
        "0711",
        "--tmpfs",
        spill,
        "--ro-bind",
        own,
        own,
        "--remount-ro",
        spill,
        "--chdir",
        work,
        "--json-status-fd",
        "3",
      ]);
      assert.deepEqual(expected, [
        { point: work, sameAsHost: true },
        { point: spill, sameAsHost: false },
        { point: own, sameAsHost: true },
      ]);
    });
  });
});
