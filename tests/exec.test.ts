/**
 * shell.exec(): resolve() and run() in one call, with observers, the argv
 * form and the same errors; and the errors that tell a caller used to other
 * libraries what to write instead.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createLocalShell, ShellSpawnError, ShellSpecError } from "../mod.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";

describe("shell.exec()", () => {
  it("runs a command line with the shell's defaults; owner defaults to null", async () => {
    await withShell({}, async (shell, dir) => {
      const result = await shell.exec("pwd; echo $DSH_X", { dshEnv: { DSH_X: "managed" } });
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, `${dir}\nmanaged\n`);
      // Unowned: a task started the same way is visible to every owner.
      const task = shell.start(shell.resolve({ command: "true", owner: null }));
      assert.equal(shell.task(task.id, "anyone"), task);
    });
  });

  it("takes the argv form, stdin, env, workdir, a timeout and a signal", async () => {
    await withShell({}, async (shell, dir) => {
      const argv = await shell.exec("printf", { args: ["%s|", "a b", "$HOME", "*"] });
      assert.equal(argv.stdout.text, "a b|$HOME|*|");
      const piped = await shell.exec("cat; echo $GREETING", { stdin: "in ", env: { GREETING: "hello" }, workdir: "/" });
      assert.equal(piped.stdout.text, "in hello\n");
      const slow = await shell.exec("sleep 30", { timeoutMs: 100 });
      assert.equal(slow.timedOut, true);
      const controller = new AbortController();
      const running = shell.exec("sleep 30", { signal: controller.signal });
      controller.abort();
      assert.equal((await running).aborted, true);
      assert.equal(existsSync(dir), true);
    });
  });

  it("streams to observers and still captures", async () => {
    await withShell({}, async (shell) => {
      const seen: string[] = [];
      const decoder = new TextDecoder();
      const result = await shell.exec("echo out; echo err >&2", {
        onStdout: (chunk) => seen.push(`out:${decoder.decode(chunk)}`),
        onStderr: (chunk) => seen.push(`err:${decoder.decode(chunk)}`),
      });
      assert.deepEqual(seen.sort(), ["err:err\n", "out:out\n"]);
      assert.equal(result.stdout.text, "out\n");
      assert.equal(result.stderr.text, "err\n");
    });
  });

  it("rejects like resolve() and run(): ShellSpecError naming the field, ShellSpawnError naming the path", async () => {
    await withShell({}, async (shell, dir) => {
      const empty = await rejection(shell.exec(""));
      assert.ok(empty instanceof ShellSpecError);
      assert.equal(empty.field, "command");
      const badTimeout = await rejection(shell.exec("true", { timeoutMs: -1 }));
      assert.ok(badTimeout instanceof ShellSpecError);
      assert.equal(badTimeout.field, "timeoutMs");
      const missing = await rejection(shell.exec("true", { workdir: `${dir}/missing` }));
      assert.ok(missing instanceof ShellSpawnError);
      assert.match(missing.message, /workdir does not exist/);
      const notOptions = await rejection(shell.exec("true", "fast" as never));
      assert.ok(notOptions instanceof ShellSpecError);
      assert.equal(notOptions.field, "options");
    });
  });

  it("after close(): ShellClosedError", async () => {
    const shell = createLocalShell();
    await shell.close();
    const error = await rejection(shell.exec("true"));
    assert.equal((error as Error).name, "ShellClosedError");
  });
});

describe("errors that help", () => {
  it("a request passed to run() or start() says to call resolve() or exec()", async () => {
    await withShell({}, async (shell, dir) => {
      const request = { command: `touch '${dir}/ran'`, owner: null };
      for (const error of [await rejection(shell.run(request as never)), thrown(() => shell.start(request as never))]) {
        assert.ok(error instanceof ShellSpecError, String(error));
        assert.equal(error.field, "spec");
        assert.match(error.message, /shell\.resolve\(request\)/);
        assert.match(error.message, /shell\.exec\(command, options\)/);
      }
      assert.equal(existsSync(`${dir}/ran`), false, "nothing ran");
      // A spec with one of the resolved fields missing is a plain field error, as before.
      const partial = await rejection(
        shell.run({ ...shell.resolve({ command: "true", owner: null }), workdir: 7 } as never),
      );
      assert.ok(partial instanceof ShellSpecError);
      assert.equal(partial.field, "workdir");
    });
  });

  it("the names other libraries use get ours: cwd, timeout, input, maxBuffer", async () => {
    await withShell({}, async (shell) => {
      const cases: [Record<string, unknown>, string][] = [
        [{ cwd: "/tmp" }, 'use "workdir" for "cwd"'],
        [{ timeout: 5 }, 'use "timeoutMs" for "timeout"'],
        [{ input: "x" }, 'use "stdin" for "input"'],
        [{ maxBuffer: 10 }, 'use "stdoutMaxBytes" for "maxBuffer"'],
      ];
      for (const [extra, hint] of cases) {
        const viaResolve = thrown(() => shell.resolve({ command: "true", owner: null, ...extra }));
        assert.ok(viaResolve instanceof ShellSpecError);
        assert.ok(viaResolve.message.includes(hint), viaResolve.message);
        const viaExec = await rejection(shell.exec("true", extra as never));
        assert.ok(viaExec instanceof ShellSpecError);
        assert.ok(viaExec.message.includes(hint), viaExec.message);
      }
      const two = thrown(() => shell.resolve({ command: "true", owner: null, cwd: "/", timeout: 1 } as never));
      assert.match(
        (two as Error).message,
        /unknown keys "cwd", "timeout" \(use "workdir" for "cwd"; use "timeoutMs" for "timeout"\)/,
      );
      const unknown = thrown(() => shell.resolve({ command: "true", owner: null, colour: "red" } as never));
      assert.equal((unknown as Error).message, 'request: unknown key "colour"');
    });
  });

  it("the same for the shell's options", () => {
    const error = thrown(() => createLocalShell({ cwd: "/tmp", maxBuffer: 1 } as never));
    assert.ok(error instanceof ShellSpecError);
    assert.match(error.message, /use "workdir" for "cwd"; use "maxOutputBytes" for "maxBuffer"/);
  });
});
