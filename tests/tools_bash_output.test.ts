/**
 * bash_output on real background tasks: what is new since the previous
 * read, then the status — running, completed with an exit code or a
 * signal, killed, never started — and reads that overflowed memory, which
 * point at the spill files. Where a test waits for output it waits on
 * task.waitForOutput() or task.done, never on time.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Shell } from "../mod.ts";
import { executeBashTool } from "../src/tool/mod.ts";
import { untilFileExists } from "./helpers/bash.ts";
import { seqText } from "./helpers/capture.ts";
import { freshDir, listDir, removeDir } from "./helpers/dirs.ts";
import { withShell } from "./helpers/shell.ts";
import { readOutput } from "./helpers/tools.ts";

const OWNER = "session-1";

/** Starts `command` as OWNER's task and returns its id. */
function startTask(shell: Shell, command: string): string {
  return shell.start(shell.resolve({ command, owner: OWNER })).id;
}

describe("bash_output: a running task", () => {
  it("shows what is new since the previous read, then running; each byte once", async () => {
    await withShell({}, async (shell, dir) => {
      const go = [1, 2].map((i) => join(dir, `go${i}`));
      const id = startTask(
        shell,
        `echo one; ${untilFileExists(go[0])}; echo warn >&2; ${untilFileExists(go[1])}; echo two`,
      );
      const task = shell.task(id, OWNER);
      assert.equal(await task.waitForOutput(), "output");
      assert.deepEqual(await readOutput(shell, id, OWNER), { text: "one\n[status: running]", isError: false });
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "(no new output)\n[status: running]",
        isError: false,
      });
      writeFileSync(go[0], "");
      assert.equal(await task.waitForOutput(), "output");
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "[stderr]\nwarn\n[status: running]",
        isError: false,
      });
      writeFileSync(go[1], "");
      await task.done;
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "two\n[status: completed; exit code: 0]",
        isError: false,
      });
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "(no new output)\n[status: completed; exit code: 0]",
        isError: false,
      });
    });
  });
});

describe("bash_output: a finished task", () => {
  it("a nonzero exit: the output, then the status with the exit code, and still no error", async () => {
    await withShell({}, async (shell) => {
      const id = startTask(shell, "printf out; printf err >&2; exit 3");
      await shell.task(id, OWNER).done;
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "out\n[stderr]\nerr\n[status: completed; exit code: 3]",
        isError: false,
      });
    });
  });

  it("a signal the command sent itself: completed, with the signal", async () => {
    await withShell({}, async (shell) => {
      const id = startTask(shell, "echo before; kill -TERM $$");
      await shell.task(id, OWNER).done;
      assert.equal((await readOutput(shell, id, OWNER)).text, "before\n[status: completed; signal: SIGTERM]");
    });
  });

  it("a killed task: killed, with the signal", async () => {
    await withShell({}, async (shell) => {
      const id = startTask(shell, "echo up; sleep 300");
      const task = shell.task(id, OWNER);
      await task.waitForOutput();
      assert.equal(task.kill(), true);
      await task.done;
      assert.equal((await readOutput(shell, id, OWNER)).text, "up\n[status: killed; signal: SIGTERM]");
    });
  });

  it("a task whose spawn failed: the error on stderr once, then killed, never started", async () => {
    await withShell({}, async (shell, dir) => {
      const missing = join(dir, "no-such-dir");
      const task = shell.start(shell.resolve({ command: "echo never", owner: OWNER, workdir: missing }));
      assert.deepEqual(await readOutput(shell, task.id, OWNER), {
        text: `[stderr]\nShellSpawnError: workdir does not exist: ${missing}\n[status: killed; it never started]`,
        isError: false,
      });
      assert.equal(
        (await readOutput(shell, task.id, OWNER)).text,
        "(no new output)\n[status: killed; it never started]",
      );
    });
  });

  it("whitespace-only output counts as none, inner blank lines are kept", async () => {
    await withShell({}, async (shell) => {
      const blank = startTask(shell, "echo; echo '  ' >&2");
      await shell.task(blank, OWNER).done;
      assert.equal((await readOutput(shell, blank, OWNER)).text, "(no new output)\n[status: completed; exit code: 0]");
      const inner = startTask(shell, "printf 'a\\n\\nb\\n'");
      await shell.task(inner, OWNER).done;
      assert.equal((await readOutput(shell, inner, OWNER)).text, "a\n\nb\n[status: completed; exit code: 0]");
    });
  });

  it("reads keep working after the shell is closed", async () => {
    await withShell({}, async (shell) => {
      const id = startTask(shell, "echo last words; sleep 300");
      await shell.task(id, OWNER).waitForOutput();
      await shell.close();
      assert.deepEqual(await readOutput(shell, id, OWNER), {
        text: "last words\n[status: killed; signal: SIGTERM]",
        isError: false,
      });
    });
  });
});

describe("bash_output: output past the budget", () => {
  const BUDGET = 1_000;

  for (const stream of ["stdout", "stderr"] as const) {
    it(`a read after unread ${stream} fell out of memory shows the newest part and names the spill file`, async () => {
      const spillDir = freshDir("dsh-tools-spill-");
      try {
        await withShell({ maxOutputBytes: BUDGET, spillDir }, async (shell) => {
          const full = seqText(1, 10_000);
          const redirect = stream === "stderr" ? " >&2" : "";
          const id = startTask(shell, `seq 1 10000${redirect}`);
          await shell.task(id, OWNER).done;
          const outcome = await readOutput(shell, id, OWNER);
          assert.equal(outcome.isError, false);
          const lines = outcome.text.split("\n");
          assert.equal(lines.at(-1), "[status: completed; exit code: 0]");
          const [spillName] = listDir(spillDir);
          const spillPath = join(spillDir, spillName);
          assert.equal(
            lines.at(-2),
            `[${stream} truncated: only the newest unread output is shown; full output: ${spillPath}]`,
          );
          assert.equal(readFileSync(spillPath, "utf8"), full, "the spill file holds the complete stream");
          const shown = stream === "stderr" ? lines.slice(1, -2) : lines.slice(0, -2);
          if (stream === "stderr") assert.equal(lines[0], "[stderr]");
          const text = `${shown.join("\n")}\n`;
          assert.ok(full.endsWith(text), "the newest output: a suffix of the stream");
          assert.ok(text.length > 1 && text.length <= BUDGET, `within the budget, got ${text.length}`);
          // Read: the next read has nothing new and is not lossy.
          assert.equal((await readOutput(shell, id, OWNER)).text, "(no new output)\n[status: completed; exit code: 0]");
        });
      } finally {
        removeDir(spillDir);
      }
    });
  }

  it("says the full output is unavailable when no spill file was kept", async () => {
    await withShell({ maxOutputBytes: BUDGET, maxSpillBytes: 2_000 }, async (shell) => {
      const id = startTask(shell, "seq 1 10000");
      await shell.task(id, OWNER).done;
      const lines = (await readOutput(shell, id, OWNER)).text.split("\n");
      assert.deepEqual(lines.slice(-2), [
        "[output truncated: only the newest unread output is shown; full output unavailable]",
        "[status: completed; exit code: 0]",
      ]);
    });
  });
});

describe("bash_output after the bash tool", () => {
  it("reads the task executeBashTool started, by the id it gave", async () => {
    await withShell({}, async (shell) => {
      const started = await executeBashTool(shell, { command: "echo from bash", run_in_background: true }, {
        owner: OWNER,
      });
      const id = started.taskId ?? assert.fail(started.text);
      await shell.task(id, OWNER).done;
      assert.equal((await readOutput(shell, id, OWNER)).text, "from bash\n[status: completed; exit code: 0]");
    });
  });
});
