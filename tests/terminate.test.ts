import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { readPids, waitForPids } from "./helpers/pid_files.ts";
import { isRunning, Leftovers, sessionMembers } from "./helpers/proc.ts";
import { withShell } from "./helpers/shell.ts";
import { canSetLastPid, strangerWithPid } from "./helpers/stranger.ts";
import { appeared, eventually } from "./helpers/wait.ts";

const GRACE_MS = 400;

describe("termination", () => {
  let shell: Shell;
  let dir: string;
  let n = 0;
  const file = (): string => join(dir, `f${n++}`);

  before(() => {
    dir = freshDir("dsh-term-");
    shell = createLocalShell({ graceMs: GRACE_MS });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("a timeout kills the whole group, grandchildren included", async () => {
    const pids = file();
    const result = await shell.run(shell.resolve({
      command: `sleep 60 & echo $! > ${pids}; (sleep 60 & echo $! >> ${pids}; wait) & wait`,
      owner: null,
      timeoutMs: 300,
    }));
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, "SIGTERM");
    const grandchildren = readPids(pids);
    assert.equal(grandchildren.length, 2);
    assert.ok(await eventually(() => grandchildren.every((pid) => !isRunning(pid))), "grandchildren still run");
  });

  it("an abort kills the whole group, grandchildren included", async () => {
    const pids = file();
    const controller = new AbortController();
    const running = shell.run(shell.resolve({
      command: `sleep 60 & echo $! > ${pids}; sleep 60 & echo $! >> ${pids}; wait`,
      owner: null,
      signal: controller.signal,
    }));
    const grandchildren = await waitForPids(pids, 2);
    controller.abort();
    const result = await running;
    assert.equal(result.aborted, true);
    assert.equal(result.timedOut, false);
    assert.ok(await eventually(() => grandchildren.every((pid) => !isRunning(pid))), "grandchildren still run");
  });

  it("a tree that traps SIGTERM dies by SIGKILL after graceMs", async () => {
    const pids = file();
    const result = await shell.run(shell.resolve({
      command: `trap '' TERM; sleep 60 & echo $! > ${pids}; wait`,
      owner: null,
      timeoutMs: 200,
    }));
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, "SIGKILL");
    // The SIGKILL came only after the grace period.
    assert.ok(result.durationMs >= 200 + GRACE_MS - 50, `settled after ${result.durationMs} ms`);
    const [grandchild] = readPids(pids);
    assert.ok(await eventually(() => !isRunning(grandchild)), "the SIGTERM-proof grandchild still runs");
  });

  it("the first cause wins: a timeout followed by an abort is only timedOut", async () => {
    const marker = file();
    const controller = new AbortController();
    const running = shell.run(shell.resolve({
      command: `trap 'echo term > ${marker}' TERM; while :; do sleep 0.05; done`,
      owner: null,
      timeoutMs: 150,
      signal: controller.signal,
    }));
    // The trap writes the marker once our SIGTERM (from the timeout) arrived.
    assert.ok(await appeared(marker));
    controller.abort();
    const result = await running;
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.equal(result.signal, "SIGKILL");
  });

  it("the first cause wins: an abort before the timeout is only aborted", async () => {
    const controller = new AbortController();
    const marker = file();
    const running = shell.run(shell.resolve({
      command: `touch ${marker}; sleep 60`,
      owner: null,
      timeoutMs: 60_000,
      signal: controller.signal,
    }));
    assert.ok(await appeared(marker));
    controller.abort();
    const result = await running;
    assert.deepEqual([result.aborted, result.timedOut], [true, false]);
    assert.equal(result.timeoutMs, 60_000);
  });

  for (const signal of ["TERM", "KILL"]) {
    it(`a command that kills itself with SIG${signal} is neither timed out nor aborted`, async () => {
      const result = await shell.run(shell.resolve({ command: `kill -${signal} $$`, owner: null }));
      assert.equal(result.exitCode, null);
      assert.equal(result.signal, `SIG${signal}`);
      assert.equal(result.timedOut, false);
      assert.equal(result.aborted, false);
    });
  }

  it("a timeout also kills processes that made a process group of their own (GNU timeout, set -m)", async () => {
    const pids = file();
    // Each line: "<pid> <pgid>", written once the process is in a group other than the leader's.
    const record = (pid: string) =>
      `while [ "$(cut -d' ' -f5 /proc/${pid}/stat)" = "$$" ]; do sleep 0.01; done; ` +
      `echo "${pid} $(cut -d' ' -f5 /proc/${pid}/stat)" >> ${pids}`;
    const result = await shell.run(shell.resolve({
      command: `timeout 60 sleep 61 & p=$!; ${record("$p")}; set -m; sleep 62 & q=$!; ${
        record("$q")
      }; echo $$ >> ${pids}; wait`,
      owner: null,
      timeoutMs: 1_000,
    }));
    assert.equal(result.timedOut, true);
    const lines = readFileSync(pids, "utf8").trim().split("\n");
    assert.equal(lines.length, 3, "both processes reached their own group before the timeout");
    const leader = Number(lines[2]);
    const escaped = lines.slice(0, 2).map((line) => line.split(" ").map(Number));
    for (const [, pgid] of escaped) assert.notEqual(pgid, leader);
    assert.ok(await eventually(() => escaped.every(([pid]) => !isRunning(pid))), "a process in its own group survived");
  });

  it("an abort while output is still draining cuts the drain short and ends what is left", async () => {
    const slow = createLocalShell({ graceMs: 20_000 });
    const pids = file();
    const controller = new AbortController();
    try {
      const running = slow.run(slow.resolve({
        command: `sleep 60 & echo $! > ${pids}; echo $$ >> ${pids}; echo hi`,
        owner: null,
        signal: controller.signal,
      }));
      // Abort only once the leader has exited by itself: the run is then draining, held by the sleeper.
      assert.ok(
        await eventually(() => existsSync(pids) && readPids(pids).length === 2 && !isRunning(readPids(pids)[1])),
      );
      controller.abort();
      const result = await running;
      assert.equal(result.exitCode, 0, "the leader had exited by itself");
      assert.equal(result.aborted, true);
      assert.equal(result.stdout.text, "hi\n");
      // Not held for the 20 s drain bound.
      assert.ok(result.durationMs < 15_000, `took ${result.durationMs} ms`);
      const [sleeper] = readPids(pids);
      assert.ok(await eventually(() => !isRunning(sleeper)), "the grandchild holding stdout still runs");
    } finally {
      await slow.close();
    }
  });

  it("a nonzero exit is reported as it is", async () => {
    const result = await shell.run(shell.resolve({ command: "exit 7", owner: null }));
    assert.deepEqual([result.exitCode, result.signal, result.timedOut, result.aborted], [7, null, false, false]);
  });
});

describe("survivors and close()", () => {
  it("`sleep 30 & echo hi` returns within about graceMs, and close() kills the survivor", async () => {
    await withShell({ graceMs: GRACE_MS }, async (shell, dir) => {
      const pids = join(dir, "pids");
      const result = await shell.run(shell.resolve({ command: `sleep 30 & echo $! > ${pids}; echo hi`, owner: null }));
      assert.equal(result.stdout.text, "hi\n");
      assert.equal(result.exitCode, 0);
      // Settled by the drain bound, not by the sleeper: well under its 30 s.
      assert.ok(result.durationMs < GRACE_MS + 5_000, `took ${result.durationMs} ms`);
      const [sleeper] = readPids(pids);
      assert.equal(isRunning(sleeper), true, "the survivor should still run before close()");
      await shell.close();
      assert.equal(isRunning(sleeper), false, "close() must wait until the survivor is gone");
    });
  });

  it("close() ends runs in flight: they resolve with aborted, and later runs reject", async () => {
    await withShell({ graceMs: GRACE_MS }, async (shell, dir) => {
      const marker = join(dir, "started");
      const running = shell.run(shell.resolve({ command: `echo $$ > ${marker}; sleep 60`, owner: null }));
      const [leader] = await waitForPids(marker);
      await shell.close();
      const result = await running;
      assert.equal(result.aborted, true);
      assert.equal(result.timedOut, false);
      assert.equal(isRunning(leader), false);
      await assert.rejects(
        shell.run(shell.resolve({ command: "true", owner: null })),
        (error: Error) => error.name === "ShellClosedError",
      );
    });
  });

  it("close() is idempotent and also serves await using", async () => {
    const shell = createLocalShell({ graceMs: GRACE_MS });
    await shell[Symbol.asyncDispose]();
    await shell.close();
    await assert.rejects(shell.run(shell.resolve({ command: "true", owner: null })), { name: "ShellClosedError" });
  });

  it("close() never signals a stranger that was given a finished survivor's session id", async (t) => {
    if (!canSetLastPid()) return t.skip("steering pid allocation needs root");
    const shell = createLocalShell({ graceMs: GRACE_MS });
    const leftovers = new Leftovers();
    try {
      // The sleeper keeps the session alive past the run: a survivor, which then dies on its own.
      const result = await shell.run(shell.resolve({ command: "sleep 0.3 >/dev/null 2>&1 & echo $$", owner: null }));
      const sid = Number(result.stdout.text);
      assert.ok(await eventually(() => sessionMembers(sid).length === 0, 10_000), "the survivor's session never ended");
      // Hand the same number to a stranger that leads a session of its own.
      const stranger = await strangerWithPid(sid);
      // Other processes forking at the same moment can keep taking the number: that says nothing about the library.
      if (stranger === undefined) return t.skip(`pid ${sid} could not be steered to a stranger on this busy machine`);
      leftovers.add(stranger);
      await shell.close();
      assert.equal(isRunning(sid), true, "close() killed a process that was not ours");
    } finally {
      leftovers.kill();
      await shell.close();
    }
  });
});
