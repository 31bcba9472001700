import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell } from "../mod.ts";
import { adaptersUnderTest } from "./helpers/adapters.ts";
import { withFreshDir } from "./helpers/dirs.ts";
import { readPids } from "./helpers/pid_files.ts";
import { isRunning, procInfo } from "./helpers/proc.ts";
import { eventually } from "./helpers/wait.ts";

for (const adapter of adaptersUnderTest) {
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
      await withFreshDir("dsh-adapter-", async (dir) => {
        await using shell = createLocalShell({ adapter, graceMs: 300 });
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
      });
    });

    it("throws for a missing shell and spawns nothing; run() words it as a ShellSpawnError naming the shell", async () => {
      await withFreshDir("dsh-adapter-", async (dir) => {
        const missing = join(dir, "no-such-shell");
        // The adapter passes on its runtime's error; the seam words it.
        assert.throws(() =>
          adapter.spawn({
            program: missing,
            args: ["-c", `touch ${join(dir, "ran")}`],
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
      });
    });
  });
}
