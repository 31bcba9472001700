/**
 * task.waitForOutput(): "output" as soon as there is something to read (at
 * once if there already is), "ended" once the task is over with nothing
 * left, "timeout" after timeoutMs, a rejection with the signal's reason on
 * abort. It reads nothing.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { ShellSpecError } from "../mod.ts";
import { untilFileExists } from "./helpers/bash.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";

describe("task.waitForOutput()", () => {
  it("resolves 'output' when output arrives, reads nothing, and 'ended' once all is read and the task is over", async () => {
    await withShell({}, async (shell, dir) => {
      const go = join(dir, "go");
      const task = shell.start(
        shell.resolve({ command: `${untilFileExists(go)}; echo first; ${untilFileExists(`${go}2`)}`, owner: null }),
      );
      const first = task.waitForOutput();
      // Nothing is printed until the test says so: the wait must still be pending.
      assert.equal(
        await Promise.race([first, new Promise((resolve) => setImmediate(() => resolve("pending")))]),
        "pending",
      );
      writeFileSync(go, "");
      assert.equal(await first, "output");
      assert.equal(await task.waitForOutput(), "output", "at once: the output is still unread");
      assert.equal(task.read().stdout, "first\n", "waiting read nothing");
      const end = task.waitForOutput();
      writeFileSync(`${go}2`, "");
      assert.equal(await end, "ended");
      assert.equal(await task.waitForOutput(), "ended", "at once, after the end");
    });
  });

  it("output left unread after the end is still 'output' until read", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "echo late >&2", owner: null }));
      await task.done;
      assert.equal(await task.waitForOutput(), "output");
      assert.equal(task.read().stderr, "late\n");
      assert.equal(await task.waitForOutput(), "ended");
    });
  });

  it("half a UTF-8 character is not output yet: read() would hold it back", async () => {
    await withShell({}, async (shell, dir) => {
      const go = join(dir, "go");
      // "é" is c3 a9: the first byte alone, then the rest once told.
      const task = shell.start(
        shell.resolve({ command: `printf '\\303'; ${untilFileExists(go)}; printf '\\251'`, owner: null }),
      );
      const waiting = task.waitForOutput({ timeoutMs: 300 });
      assert.equal(await waiting, "timeout", "a lone lead byte is nothing to read");
      writeFileSync(go, "");
      assert.equal(await task.waitForOutput(), "output");
      assert.equal(task.read().stdout, "é");
    });
  });

  it("times out with 'timeout', and the task goes on", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 30", owner: null }));
      assert.equal(await task.waitForOutput({ timeoutMs: 50 }), "timeout");
      assert.equal(task.status, "running");
    });
  });

  it("rejects with the signal's reason on abort (also when already aborted), and the task goes on", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 30", owner: null }));
      const controller = new AbortController();
      const waiting = task.waitForOutput({ signal: controller.signal });
      const reason = new Error("the turn is over");
      controller.abort(reason);
      assert.equal(await rejection(waiting), reason);
      assert.equal(await rejection(task.waitForOutput({ signal: AbortSignal.abort(reason) })), reason);
      assert.equal(task.status, "running");
    });
  });

  it("a task whose spawn failed has its error to read, then has ended", async () => {
    await withShell({}, async (shell, dir) => {
      const task = shell.start(shell.resolve({ command: "true", owner: null, workdir: join(dir, "missing") }));
      assert.equal(await task.waitForOutput(), "output");
      assert.match(task.read().stderr, /workdir does not exist/);
      assert.equal(await task.waitForOutput(), "ended");
    });
  });

  it("bad options are a ShellSpecError naming the option", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "true", owner: null }));
      for (
        const [options, field] of [[{ timeoutMs: 0 }, "timeoutMs"], [{ signal: "stop" }, "signal"], ["soon", "options"]]
      ) {
        const error = thrown(() => task.waitForOutput(options as never));
        assert.ok(error instanceof ShellSpecError, String(error));
        assert.equal(error.field, field);
      }
      await task.done;
    });
  });
});
