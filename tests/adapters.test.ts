import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalShell, type ProcessAdapter } from "../mod.ts";
import { nodeAdapter } from "../src/node_adapter.ts";
import { denoAdapter } from "../src/deno_adapter.ts";
import { eventually, isRunning, procInfo, readPids } from "./helpers/proc.ts";

// Deno runs node:child_process too, so the Deno leg checks both adapters.
const adapters: ProcessAdapter[] = "Deno" in globalThis ? [denoAdapter, nodeAdapter] : [nodeAdapter];

for (const adapter of adapters) {
  describe(`the ${adapter.name} adapter`, () => {
    it("makes the command the leader of its own session and process group", async () => {
      await using shell = createLocalShell({ adapter });
      const result = await shell.run(shell.resolve({ command: "cat /proc/$$/stat; echo; echo $$", owner: null }));
      const pid = Number(result.stdout.text.trim().split("\n").at(-1));
      const fields = result.stdout.text.slice(result.stdout.text.lastIndexOf(")") + 2).split(" ");
      assert.equal(Number(fields[2]), pid, "pgid must equal the pid");
      assert.equal(Number(fields[3]), pid, "sid must equal the pid");
      assert.notEqual(procInfo(Number(fields[1])), undefined);
    });

    it("maps a signal death to exitCode null and the signal's name", async () => {
      await using shell = createLocalShell({ adapter });
      const result = await shell.run(shell.resolve({ command: "kill -INT $$", owner: null }));
      assert.deepEqual([result.exitCode, result.signal], [null, "SIGINT"]);
    });

    it("pipes stdin bytes and gives /dev/null without them", async () => {
      await using shell = createLocalShell({ adapter });
      const piped = await shell.run(
        shell.resolve({ command: "od -An -tx1", owner: null, stdin: new Uint8Array([0, 255, 10]) }),
      );
      assert.equal(piped.stdout.text.trim(), "00 ff 0a");
      const none = await shell.run(shell.resolve({ command: "readlink /proc/$$/fd/0", owner: null }));
      assert.equal(none.stdout.text, "/dev/null\n");
    });

    it("signals the whole group, and reports a gone group as gone", async () => {
      const dir = mkdtempSync(join(tmpdir(), "dsh-adapter-"));
      await using shell = createLocalShell({ adapter, graceMs: 300 });
      try {
        const pids = join(dir, "pids");
        const result = await shell.run(shell.resolve({
          command: `sleep 60 & echo $! > ${pids}; echo $$ >> ${pids}; wait`,
          owner: null,
          timeoutMs: 200,
        }));
        assert.equal(result.timedOut, true);
        const [grandchild, leader] = readPids(pids);
        assert.ok(await eventually(() => !isRunning(grandchild)));
        assert.ok(await eventually(() => !adapter.signalGroup(leader, 0) || procInfo(grandchild)?.state === "Z"));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("throws for a missing shell and spawns nothing; run() words it as a ShellSpawnError naming the shell", async () => {
      const dir = mkdtempSync(join(tmpdir(), "dsh-adapter-"));
      const missing = join(dir, "no-such-shell");
      try {
        // The adapter passes on its runtime's error; the seam words it.
        assert.throws(() =>
          adapter.spawn({
            shell: missing,
            command: `touch ${join(dir, "ran")}`,
            cwd: dir,
            env: {},
            onStdout: () => {},
            onStderr: () => {},
          })
        );
        await using shell = createLocalShell({ adapter, shell: missing, workdir: dir });
        await assert.rejects(
          shell.run(shell.resolve({ command: `touch ${join(dir, "ran")}`, owner: null })),
          (error: Error) => error.name === "ShellSpawnError" && error.message.includes(missing),
        );
        assert.equal(existsSync(join(dir, "ran")), false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
