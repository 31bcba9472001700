/**
 * The mount check that runs first in every sandbox (src/seam/sandbox/mount_check.ts), run here outside one, on
 * mount tables the test writes: the host's as the harness read it, and the sandbox's as bubblewrap left it. A bind
 * whose source or destination followed a link swapped in while the sandbox was set up must stop the command before
 * it runs; a table that matches must let it run, and keep its pid.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMountRefusal, mountCheckArgs, type MountExpectation } from "../src/seam/sandbox/mount_check.ts";

const BASH = ["/usr/bin/bash", "/bin/bash"].find((path) => spawnSync(path, ["-c", "true"]).status === 0) ?? "bash";

/** The host: the root file system, and a second one mounted at /srv from its directory /vol/srv. */
const HOST = [
  "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
  "40 22 8:2 /vol/srv /srv rw,relatime shared:9 - ext4 /dev/sdb1 rw",
];

/** Runs the check on `inside` (the sandbox's table), then `echo ran $$` when it lets the command run. */
function check(expected: MountExpectation[], inside: string[] | undefined) {
  const dir = mkdtempSync(join(tmpdir(), "dsh-mount-check-"));
  try {
    const host = join(dir, "host");
    const sandbox = join(dir, "inside");
    writeFileSync(host, HOST.join("\n") + "\n");
    if (inside !== undefined) writeFileSync(sandbox, inside.join("\n") + (inside.length > 0 ? "\n" : ""));
    const [program, ...args] = mountCheckArgs(BASH, expected, { host, inside: sandbox });
    const run = spawnSync(program, [...args, "/bin/sh", "-c", "echo ran"], { encoding: "utf8" });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What bubblewrap leaves when nothing was raced: the read-only root, /tmp, and each expected bind or mask. */
function sandboxTable(...mounts: string[]): string[] {
  return [
    "300 250 8:1 / / ro,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
    "301 300 8:2 /vol/srv /srv ro,nosuid,relatime master:9 - ext4 /dev/sdb1 rw",
    "310 300 0:50 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw",
    ...mounts,
  ];
}

const git: MountExpectation = { point: "/srv/p/.git", sameAsHost: true };
const workdir: MountExpectation = { point: "/work/p", sameAsHost: true };
const mask: MountExpectation = { point: "/work/p/.env", sameAsHost: false };

describe("the mount check", () => {
  it("lets the command run when every bind holds the host's own directory and every mask is there", () => {
    const run = check(
      [workdir, git, mask],
      sandboxTable(
        "320 300 8:1 /work/p /work/p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
        "321 301 8:2 /vol/srv/p/.git /srv/p/.git rw,nosuid,relatime master:9 - ext4 /dev/sdb1 rw",
        "322 320 0:61 / /work/p/.env ro,nosuid,nodev - tmpfs tmpfs rw",
      ),
    );
    assert.deepEqual(run, { code: 0, stdout: "ran\n", stderr: "" });
  });

  it("refuses a bind whose source followed a link: the right place, the host's /etc in it", () => {
    const run = check(
      [workdir, git],
      sandboxTable(
        "320 300 8:1 /work/p /work/p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
        "321 301 8:1 /etc /srv/p/.git rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
      ),
    );
    assert.equal(run.stdout, "", "the command ran");
    assert.equal(run.code, 125);
    assert.match(
      run.stderr,
      /refused: the mount at \/srv\/p\/\.git holds \/etc of 8:1, not \/vol\/srv\/p\/\.git of 8:2/,
    );
    assert.equal(isMountRefusal(run.code ?? undefined, run.stderr), true);
  });

  it("refuses a bind whose destination followed a link: the host's /etc mounted at /etc, nothing at its own place", () => {
    const run = check(
      [workdir, git],
      sandboxTable(
        "320 300 8:1 /work/p /work/p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
        "321 300 8:1 /etc /etc rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
      ),
    );
    assert.equal(run.stdout, "");
    assert.equal(run.code, 125);
    assert.match(run.stderr, /refused: nothing is mounted at \/srv\/p\/\.git/);
  });

  it("refuses a missing mask, and a table it cannot read or that is empty", () => {
    const noMask = check(
      [workdir, mask],
      sandboxTable(
        "320 300 8:1 /work/p /work/p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
      ),
    );
    assert.deepEqual([noMask.code, noMask.stdout], [125, ""]);
    assert.match(noMask.stderr, /nothing is mounted at \/work\/p\/\.env/);
    for (const table of [undefined, []]) {
      const run = check([workdir], table);
      assert.deepEqual([run.code, run.stdout], [125, ""], JSON.stringify(table));
      assert.match(run.stderr, /dsh-sandbox: refused: /);
    }
  });

  it("compares paths as mountinfo spells them: a space is \\040", () => {
    const spaced: MountExpectation = { point: "/work/my p", sameAsHost: true };
    const good = check(
      [spaced],
      sandboxTable(
        "320 300 8:1 /work/my\\040p /work/my\\040p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
      ),
    );
    assert.deepEqual(good, { code: 0, stdout: "ran\n", stderr: "" });
    const swapped = check(
      [spaced],
      sandboxTable(
        "320 300 8:1 /work/other /work/my\\040p rw,nosuid,relatime master:1 - ext4 /dev/sda1 rw",
      ),
    );
    assert.equal(swapped.code, 125);
  });

  it("execs the command in place: the command keeps the check's pid", () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-mount-check-"));
    try {
      const table = join(dir, "inside");
      writeFileSync(table, "1 0 8:1 / / ro - ext4 /dev/sda1 rw\n");
      const [program, ...args] = mountCheckArgs(BASH, [], { host: table, inside: table });
      const run = spawnSync(program, [...args, "/bin/sh", "-c", "echo $$"], { encoding: "utf8" });
      // The command is the process spawnSync started: its pid is the child's own.
      assert.equal(run.stdout, `${run.pid}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
