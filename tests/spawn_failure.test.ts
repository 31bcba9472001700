/**
 * Why a shell cannot start, over both adapters: a name missing from the
 * child's PATH, a file without execute permission, a script whose
 * interpreter is missing, and a process the system refuses to create
 * (E2BIG). An adapter passes on its runtime's error and the seam words it:
 * every failure `run()` reports is a `ShellSpawnError` naming the shell;
 * none is a raw runtime error, and none that is not about a missing shell
 * says "not found".
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createShell, ShellSpawnError } from "../mod.ts";
import type { SpawnRequest } from "../src/seam/mod.ts";
import { describeSpawnFailure } from "../src/seam/spawn/failure.ts";
import { adaptersUnderTest } from "./helpers/adapters.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";

/** More than the 128 KiB Linux allows for one string passed to exec (MAX_ARG_STRLEN). */
const TOO_LONG = 200_000;

for (const adapter of adaptersUnderTest) {
  describe(`the ${adapter.name} adapter: why a shell cannot start`, () => {
    let dir: string;

    before(() => {
      dir = freshDir("dsh-spawn-failure-");
    });

    after(() => removeDir(dir));

    /** The command line that would create `ran` in `dir` if anything ran. */
    const touchRan = (): string => `touch ${join(dir, "ran")}`;

    /** A spawn request that would create `ran` in `dir` if anything ran. */
    function request(shell: string, env: Record<string, string>): SpawnRequest {
      return {
        program: shell,
        args: ["-c", touchRan()],
        cwd: dir,
        env,
        onStdout: () => {},
        onStderr: () => {},
      };
    }

    /**
     * Runs through a shell over this adapter with `shell` and exactly `env` as the ambient environment; expects a
     * ShellSpawnError naming `shell`, checks nothing ran, returns the error.
     */
    async function spawnFailure(shell: string, env: Record<string, string>): Promise<ShellSpawnError> {
      const owned = createShell(adapter, { shell, workdir: dir, ambientEnv: env, graceMs: 300 });
      let error: unknown;
      try {
        error = await rejection(owned.run(owned.resolve({ command: touchRan(), owner: null })));
      } finally {
        await owned.close();
      }
      assert.ok(error instanceof ShellSpawnError, `expected ShellSpawnError, got ${String(error)}`);
      assert.equal(error.name, "ShellSpawnError");
      assert.ok(error.message.includes(`"${shell}"`), `names the shell: ${error.message}`);
      assert.equal(existsSync(join(dir, "ran")), false, "nothing ran");
      return error;
    }

    it("a shell name missing from the child's PATH is not found, and the message gives that PATH", async () => {
      const searched = `${join(dir, "empty-a")}:${join(dir, "empty-b")}`;
      const error = await spawnFailure("dsh-no-such-shell-xyz", { PATH: searched });
      assert.match(error.message, /\bnot found\b/);
      assert.ok(!/not executable/.test(error.message), `does not hedge: ${error.message}`);
      assert.ok(error.message.includes(`PATH=${searched}`), `gives the PATH searched: ${error.message}`);
    });

    it("a long PATH is shown as its count and its first three directories, not whole", async () => {
      const dirs = Array.from({ length: 12 }, (_, i) => join(dir, `empty-${i}`));
      const error = await spawnFailure("dsh-no-such-shell-xyz", { PATH: dirs.join(":") });
      assert.ok(
        error.message.endsWith(`: not found (PATH (12 directories): ${dirs.slice(0, 3).join(":")}:…)`),
        error.message,
      );
      assert.ok(!error.message.includes(dirs[3]), `does not list the rest: ${error.message}`);
    });

    it("a shell path that does not exist is not found", async () => {
      const error = await spawnFailure(join(dir, "missing", "bash"), { PATH: "/usr/bin:/bin" });
      assert.match(error.message, /\bnot found\b/);
      assert.ok(!/not executable/.test(error.message), `does not hedge: ${error.message}`);
    });

    it("a shell path without execute permission is not executable, not missing", async () => {
      const shell = join(dir, "plain-file");
      writeFileSync(shell, "#!/bin/sh\necho hi\n");
      chmodSync(shell, 0o644);
      const error = await spawnFailure(shell, { PATH: "/usr/bin:/bin" });
      assert.match(error.message, /is not executable/);
      assert.ok(!/not found/.test(error.message), `does not say "not found": ${error.message}`);
    });

    it("a name found on PATH only as a file without execute permission is not executable", async () => {
      const bin = join(dir, "bin-noexec");
      mkdirSync(bin);
      writeFileSync(join(bin, "dsh-noexec-shell"), "#!/bin/sh\n", { mode: 0o644 });
      chmodSync(join(bin, "dsh-noexec-shell"), 0o644);
      const error = await spawnFailure("dsh-noexec-shell", { PATH: bin });
      assert.match(error.message, /is not executable/);
      assert.ok(error.message.includes(join(bin, "dsh-noexec-shell")), `names the file found: ${error.message}`);
    });

    it("an executable script whose interpreter is missing is not reported as a missing shell", async () => {
      const shell = join(dir, "bad-interpreter");
      writeFileSync(shell, "#!/nonexistent/dsh-interpreter\n");
      chmodSync(shell, 0o755);
      const error = await spawnFailure(shell, { PATH: "/usr/bin:/bin" });
      assert.ok(error.message.includes("/nonexistent/dsh-interpreter"), `names the interpreter: ${error.message}`);
      assert.ok(!error.message.includes(`"${shell}": not found`), `the shell itself exists: ${error.message}`);
    });

    it("an environment beyond the OS limit gives ShellSpawnError (with the OS error as cause when known)", async () => {
      const error = await spawnFailure("/bin/sh", { PATH: "/usr/bin:/bin", BIG: "x".repeat(TOO_LONG) });
      assert.ok(!/not found|not executable/.test(error.message), `the shell is fine: ${error.message}`);
      assert.match(error.message, /refused|too large|E2BIG/);
      if (error.cause !== undefined) assert.ok(error.cause instanceof Error, "the cause is the runtime's error");
    });

    it("a command beyond the OS limit for one argument: the adapter throws, and the seam's words blame no file", () => {
      // The seam's schema refuses such a command before any spawn; the adapter must still not start it.
      const error = thrown(() =>
        adapter.spawn({ ...request("/bin/sh", { PATH: "/usr/bin:/bin" }), args: ["-c", `: ${"x".repeat(TOO_LONG)}`] })
      );
      assert.ok(error instanceof Error, `expected the runtime's error, got ${String(error)}`);
      const message = describeSpawnFailure("/bin/sh", "/usr/bin:/bin", { cwd: dir, cause: error });
      assert.ok(!/not found|not executable/.test(message), `the shell is fine: ${message}`);
      assert.equal(existsSync(join(dir, "ran")), false, "nothing ran");
    });
  });
}

describe("run(): a spawn the system refuses", () => {
  it("rejects with ShellSpawnError, not a raw runtime error", async () => {
    await withShell({ graceMs: 300 }, async (shell) => {
      const spec = shell.resolve({ command: "true", owner: null, env: { BIG: "x".repeat(TOO_LONG) } });
      await assert.rejects(shell.run(spec), (error: Error) => {
        assert.ok(error instanceof ShellSpawnError, `expected ShellSpawnError, got ${String(error)}`);
        assert.ok(error.message.includes('"bash"'), error.message);
        return true;
      });
    });
  });
});
