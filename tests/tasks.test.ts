/**
 * Background tasks through `shell.start()` of real bash commands:
 * incremental, consuming reads (each byte once, in order, UTF-8 characters
 * never split), status/exitCode/signal over a task's life, the owner rule
 * of `task()`/`tasks()`, `maxTasksPerOwner`, `kill()` and the spec's signal,
 * group kill, lossy reads and spill files, no timeout for tasks,
 * `maxFinishedTasks`, spawn failures, and `close()`.
 *
 * Tasks are driven step by step with marker files the test creates (the
 * command waits for them), so what a read can return is decided by the
 * test, not by timing. Where only OS state tells (a process gone, bytes
 * arrived in a pipe), it is polled with `eventually`.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  createLocalShell,
  ShellClosedError,
  type ShellEvent,
  ShellSpawnError,
  type ShellTask,
  TaskAccessError,
  TaskLimitError,
  type TaskOutput,
} from "../mod.ts";
import { shQuote, untilFileExists } from "./helpers/bash.ts";
import { byteLength, seqText } from "./helpers/capture.ts";
import { freshDir, listDir, removeDir } from "./helpers/dirs.ts";
import { breakingAdapter } from "./helpers/adapters.ts";
import { rejection, thrown, throwsNamed } from "./helpers/errors.ts";
import { waitForPids } from "./helpers/pid_files.ts";
import { childrenOf, isRunning, procInfo, runningGroupMembers } from "./helpers/proc.ts";
import { withShell } from "./helpers/shell.ts";
import { appeared, eventually } from "./helpers/wait.ts";

const GRACE_MS = 300;
/** Bound on polling for OS state; generous, as the Node leg runs test files in parallel. */
const POLL_MS = 15_000;

/** Lets a task blocked in {@linkcode untilFileExists} go on. */
function release(file: string): void {
  writeFileSync(file, "");
}

/** Children of this process (zombies included) that were not in `before`. */
function newChildren(before: number[]): number[] {
  return childrenOf(process.pid).filter((pid) => !before.includes(pid));
}

/**
 * Reads a task and keeps every result, so a test can check that the
 * concatenation of all reads is exactly the stream (each byte once, in
 * order) and what each step added.
 */
class TaskReader {
  readonly task: ShellTask;
  readonly reads: TaskOutput[] = [];
  stdout = "";
  stderr = "";

  constructor(task: ShellTask) {
    this.task = task;
  }

  read(): TaskOutput {
    const out = this.task.read();
    this.reads.push(out);
    this.stdout += out.stdout;
    this.stderr += out.stderr;
    return out;
  }

  /** Reads until the accumulated streams are exactly `stdout`/`stderr`; returns what this step's reads added. */
  async until(stdout: string, stderr = this.stderr): Promise<{ stdout: string; stderr: string }> {
    const from = this.reads.length;
    const reached = await eventually(() => {
      this.read();
      return this.stdout.length >= stdout.length && this.stderr.length >= stderr.length;
    }, POLL_MS);
    assert.ok(reached, `never read ${JSON.stringify(stdout)}; got ${JSON.stringify(this.stdout)}`);
    assert.equal(this.stdout, stdout, "the reads so far, joined, are exactly the stream");
    assert.equal(this.stderr, stderr, "the stderr reads so far, joined, are exactly the stream");
    const step = this.reads.slice(from);
    return { stdout: step.map((r) => r.stdout).join(""), stderr: step.map((r) => r.stderr).join("") };
  }
}

describe("tasks: incremental reads", () => {
  it("returns each byte exactly once, in order, while the task runs and after it exits", async () => {
    await withShell({}, async (shell, dir) => {
      const go = [1, 2, 3].map((i) => join(dir, `go${i}`));
      const task = shell.start(shell.resolve({
        command: [
          `printf 'one\\n'`,
          `printf 'err1\\n' >&2`,
          untilFileExists(go[0]),
          `printf 'two\\n'`,
          untilFileExists(go[1]),
          `printf 'three\\nfour'`,
          untilFileExists(go[2]),
          `printf 'tail'`,
          `exit 3`,
        ].join("; "),
        owner: null,
      }));
      let settled = false;
      void task.done.then(() => settled = true);
      const reader = new TaskReader(task);

      const running = (): void => {
        assert.equal(settled, false, "done settled while the task was blocked");
        assert.equal(task.status, "running");
        assert.equal(task.exitCode, null);
        assert.equal(task.signal, null);
      };
      running();

      assert.deepEqual(await reader.until("one\n", "err1\n"), { stdout: "one\n", stderr: "err1\n" });
      // The task is blocked on go1: nothing new, and nothing read twice.
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      running();

      release(go[0]);
      assert.deepEqual(await reader.until("one\ntwo\n"), { stdout: "two\n", stderr: "" });
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      running();

      release(go[1]);
      assert.deepEqual(await reader.until("one\ntwo\nthree\nfour"), { stdout: "three\nfour", stderr: "" });
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      running();

      release(go[2]);
      const result = await task.done;
      assert.equal(task.status, "completed");
      assert.equal(task.exitCode, 3);
      assert.equal(task.signal, null);
      // After the exit: the rest, then nothing, and reads keep working.
      assert.deepEqual(reader.read(), { stdout: "tail", stderr: "", lossy: false });
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      const full = "one\ntwo\nthree\nfourtail";
      assert.equal(reader.stdout, full);
      assert.equal(reader.stderr, "err1\n");

      assert.equal(result.exitCode, 3);
      assert.equal(result.signal, null);
      assert.equal(result.timedOut, false);
      assert.equal(result.aborted, false);
      assert.deepEqual(result.stdout, { text: full, truncated: false, totalBytes: byteLength(full) });
      assert.deepEqual(result.stderr, { text: "err1\n", truncated: false, totalBytes: 5 });
    });
  });

  it("holds back an incomplete UTF-8 character until it is complete", async () => {
    await withShell({}, async (shell, dir) => {
      const go = [1, 2, 3].map((i) => join(dir, `go${i}`));
      // "€" is e2 82 ac, printed in three writes. The "a" comes in the same
      // write(2) as e2, so once "a" has been read, e2 has arrived too.
      const task = shell.start(shell.resolve({
        command: [
          `printf 'a\\xe2'`,
          untilFileExists(go[0]),
          `printf '\\x82'`,
          untilFileExists(go[1]),
          `printf '\\xac'`,
          untilFileExists(go[2]),
        ].join("; "),
        owner: null,
      }));
      const reader = new TaskReader(task);

      assert.deepEqual(await reader.until("a"), { stdout: "a", stderr: "" });
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false }, "e2 alone is held back");

      release(go[0]);
      // e2 82 is still incomplete: whatever arrives, nothing is returned.
      for (let i = 0; i < 5; i++) assert.equal(reader.read().stdout, "");

      release(go[1]);
      assert.deepEqual(await reader.until("a€"), { stdout: "€", stderr: "" });
      assert.equal(task.status, "running", "the character came out whole before the exit");

      release(go[2]);
      const result = await task.done;
      assert.deepEqual(reader.read(), { stdout: "", stderr: "", lossy: false });
      for (const read of reader.reads) assert.ok(!read.stdout.includes("\uFFFD"), `U+FFFD in ${JSON.stringify(read)}`);
      assert.equal(reader.reads.map((r) => r.stdout).join(""), "a€");
      assert.equal(result.stdout.text, "a€");
      assert.equal(task.status, "completed");
    });
  });
});

describe("tasks: owners", () => {
  it("task() returns own and unowned tasks and hides others' tasks like unknown ids; tasks() agrees", async () => {
    await withShell({}, async (shell) => {
      const start = (owner: string | null): ShellTask => shell.start(shell.resolve({ command: "sleep 300", owner }));
      const a1 = start("a");
      const b1 = start("b");
      const n1 = start(null);
      const a2 = start("a");
      const b2 = start("b");
      const all = [a1, b1, n1, a2, b2];
      assert.equal(new Set(all.map((t) => t.id)).size, all.length, "ids are unique");
      assert.deepEqual(all.map((t) => t.owner), ["a", "b", null, "a", "b"]);

      // Own and unowned: the very task objects.
      assert.equal(shell.task(a1.id, "a"), a1);
      assert.equal(shell.task(a2.id, "a"), a2);
      assert.equal(shell.task(n1.id, "a"), n1);
      assert.equal(shell.task(b1.id, "b"), b1);
      assert.equal(shell.task(n1.id, "b"), n1);

      // Another owner's task: TaskAccessError.
      const foreign = throwsNamed(() => shell.task(b1.id, "a"), "TaskAccessError", TaskAccessError);
      throwsNamed(() => shell.task(a1.id, "b"), "TaskAccessError", TaskAccessError);

      // The same id where it is unknown (another shell) gives the very same error text.
      const other = createLocalShell({ graceMs: GRACE_MS });
      try {
        const unknownSameId = throwsNamed(() => other.task(b1.id, "a"), "TaskAccessError", TaskAccessError);
        assert.equal(foreign.message, unknownSameId.message);
        assert.equal(foreign.name, unknownSameId.name);
      } finally {
        await other.close();
      }
      // An unknown id in this shell: the same message, but for the id itself.
      const unknownId = "t0000000000";
      assert.ok(!all.some((t) => t.id === unknownId));
      const unknown = throwsNamed(() => shell.task(unknownId, "a"), "TaskAccessError", TaskAccessError);
      assert.equal(unknown.name, foreign.name);
      assert.equal(unknown.message.split(unknownId).join("<id>"), foreign.message.split(b1.id).join("<id>"));

      // null sees only unowned tasks.
      assert.equal(shell.task(n1.id, null), n1);
      for (const t of [a1, a2, b1, b2]) throwsNamed(() => shell.task(t.id, null), "TaskAccessError", TaskAccessError);

      // tasks(owner) is exactly what task() returns, in start order.
      const expected: Record<string, ShellTask[]> = {
        a: [a1, n1, a2],
        b: [b1, n1, b2],
        c: [n1],
      };
      for (const owner of ["a", "b", "c", null]) {
        const listed = shell.tasks(owner).map((t) => t.id);
        const viaTask = all.filter((t) => {
          try {
            return shell.task(t.id, owner) === t;
          } catch (error) {
            if (error instanceof TaskAccessError) return false;
            throw error;
          }
        }).map((t) => t.id);
        assert.deepEqual(listed, viaTask, `tasks(${owner}) agrees with task()`);
        assert.deepEqual(listed, expected[owner ?? "c"].map((t) => t.id), `tasks(${owner}) in start order`);
      }
    });
  });
});

describe("tasks: maxTasksPerOwner", () => {
  it("refuses a third running task per owner, spawning nothing, and has room again after one ends", async () => {
    await withShell({ maxTasksPerOwner: 2 }, async (shell, dir) => {
      const spec = (owner: string | null, command = "sleep 300") => shell.resolve({ command, owner });
      const a1 = shell.start(spec("a"));
      const a2 = shell.start(spec("a"));
      assert.equal(a2.status, "running");

      const marker = join(dir, "third-ran");
      const before = childrenOf(process.pid);
      const limit = throwsNamed(
        () => shell.start(spec("a", `touch ${shQuote(marker)}; sleep 300`)),
        "TaskLimitError",
        TaskLimitError,
      );
      // Spawning is synchronous in both adapters: a spawn would show up as a new child right now.
      assert.deepEqual(newChildren(before), [], "the refused start spawned a process");
      assert.deepEqual(shell.tasks("a").map((t) => t.id), [a1.id, a2.id]);
      assert.equal((limit as TaskLimitError).owner, "a");

      // Another owner has its own bucket.
      const b1 = shell.start(spec("b"));
      assert.equal(b1.status, "running");

      // All unowned tasks share one bucket.
      const n1 = shell.start(spec(null));
      const n2 = shell.start(spec(null));
      const nullLimit = throwsNamed(() => shell.start(spec(null)), "TaskLimitError", TaskLimitError);
      assert.equal((nullLimit as TaskLimitError).owner, null);
      assert.deepEqual(shell.tasks(null).map((t) => t.id), [n1.id, n2.id]);

      // Once one of a's tasks has ended, a may start again; then it is full again.
      assert.equal(a1.kill(), true);
      await a1.done;
      assert.equal(a1.status, "killed");
      const a3 = shell.start(spec("a"));
      assert.equal(a3.status, "running");
      throwsNamed(() => shell.start(spec("a")), "TaskLimitError", TaskLimitError);

      // The refused command never ran: a task that does the same does create its marker.
      const probeMarker = join(dir, "probe-ran");
      const probe = shell.start(spec("b", `touch ${shQuote(probeMarker)}`));
      await probe.done;
      assert.equal(existsSync(probeMarker), true);
      assert.equal(existsSync(marker), false, "the refused command ran");
    });
  });
});

describe("tasks: kill() and the signal", () => {
  it("kill() is true while running, false the second time; the task is killed by SIGTERM", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 300", owner: null }));
      assert.equal(task.kill(), true);
      assert.equal(task.kill(), false);
      const result = await task.done;
      assert.equal(task.status, "killed");
      assert.equal(task.signal, "SIGTERM");
      assert.equal(task.exitCode, null);
      assert.equal(result.signal, "SIGTERM");
      assert.equal(result.exitCode, null);
      assert.equal(result.timedOut, false);
      assert.equal(task.kill(), false, "kill() after the end");
    });
  });

  it("kill() is false after the task exited by itself, which is completed", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "echo hi", owner: null }));
      const result = await task.done;
      assert.equal(task.kill(), false);
      assert.equal(task.status, "completed");
      assert.equal(task.exitCode, 0);
      assert.equal(result.stdout.text, "hi\n");
    });
  });

  it("kill() once the leader exited, while a backgrounded child holds the output: the task ends killed, the child too", async () => {
    // A long grace keeps the task running on the held pipe for the whole test: the kill, not the drain bound, ends it.
    await withShell({ graceMs: 60_000 }, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 300 & echo $!", owner: null }));
      assert.equal(await task.waitForOutput(), "output");
      const child = Number(task.read().stdout);
      assert.ok(await eventually(() => !isRunning(task.pid), 10_000), "the leader never exited");
      assert.ok(isRunning(child), "the backgrounded child is not running");
      assert.equal(task.status, "running");
      assert.equal(task.kill(), true);
      const result = await task.done;
      assert.equal(task.status, "killed");
      assert.equal(result.aborted, true);
      assert.equal(result.exitCode, 0, "the leader's own exit is still reported");
      assert.ok(await eventually(() => !isRunning(child), 10_000), `the child ${child} outlived kill()`);
    });
  });

  it("kill() after the task completed ends what its command left running; the result stays completed", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 300 & echo $!", owner: null }));
      const result = await task.done;
      const child = Number(result.stdout.text);
      assert.equal(task.status, "completed");
      assert.ok(isRunning(child), "nothing was left running to kill");
      assert.equal(task.kill(), true);
      assert.equal(task.kill(), false, "a second kill() while the first one's termination is under way");
      assert.ok(await eventually(() => !isRunning(child), 10_000), `the child ${child} outlived kill()`);
      assert.equal(task.kill(), false, "nothing of the task runs any more");
      assert.equal(task.status, "completed");
      assert.equal((await task.done).exitCode, 0);
    });
  });

  it("an abort of the spec's signal kills the task", async () => {
    await withShell({}, async (shell, dir) => {
      const started = join(dir, "started");
      const controller = new AbortController();
      const task = shell.start(shell.resolve({
        command: `touch ${shQuote(started)}; sleep 300`,
        owner: null,
        signal: controller.signal,
      }));
      assert.ok(await appeared(started, POLL_MS));
      controller.abort();
      const result = await task.done;
      assert.equal(task.status, "killed");
      assert.equal(task.signal, "SIGTERM");
      assert.equal(task.exitCode, null);
      assert.equal(result.aborted, true);
      assert.equal(task.kill(), false);
    });
  });

  it("a task that exits nonzero by itself is completed", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "echo oops >&2; exit 7", owner: null }));
      const result = await task.done;
      assert.equal(task.status, "completed");
      assert.equal(task.exitCode, 7);
      assert.equal(task.signal, null);
      assert.equal(result.stderr.text, "oops\n");
      assert.equal(task.kill(), false);
    });
  });

  it("a task that kills itself with SIGTERM is completed", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "kill -TERM $$", owner: null }));
      const result = await task.done;
      assert.equal(task.status, "completed");
      assert.equal(task.signal, "SIGTERM");
      assert.equal(task.exitCode, null);
      assert.equal(result.aborted, false);
      assert.equal(task.kill(), false);
    });
  });

  it("a pre-aborted signal makes start() throw its reason and spawn nothing", async () => {
    await withShell({}, async (shell, dir) => {
      const marker = join(dir, "ran");
      const reason = new Error("stopped before the start");
      const controller = new AbortController();
      controller.abort(reason);
      const spec = shell.resolve({ command: `touch ${shQuote(marker)}`, owner: null, signal: controller.signal });
      const before = childrenOf(process.pid);
      assert.equal(thrown(() => shell.start(spec)), reason, "start() throws the signal's reason itself");
      assert.deepEqual(newChildren(before), [], "a process was spawned");
      assert.deepEqual(shell.tasks(null), []);

      // The same command without the signal runs and creates its marker; the refused one never did.
      const probeMarker = join(dir, "probe-ran");
      const probe = shell.start(shell.resolve({ command: `touch ${shQuote(probeMarker)}`, owner: null }));
      await probe.done;
      assert.equal(existsSync(probeMarker), true);
      assert.equal(existsSync(marker), false, "the pre-aborted command ran");
    });
  });

  it("kill() ends the whole group: a grandchild does not survive", async () => {
    await withShell({}, async (shell, dir) => {
      const pidFile = join(dir, "pids");
      const task = shell.start(shell.resolve({
        command: `sleep 300 & echo $! > ${shQuote(pidFile)}; wait`,
        owner: null,
      }));
      const [grandchild] = await waitForPids(pidFile, 1, POLL_MS);
      assert.equal(isRunning(grandchild), true);
      assert.equal(procInfo(grandchild)?.pgrp, task.pid, "the grandchild is in the task's group");
      assert.equal(task.kill(), true);
      await task.done;
      assert.equal(task.status, "killed");
      assert.ok(await eventually(() => !isRunning(grandchild), POLL_MS), "the grandchild still runs");
      assert.ok(await eventually(() => runningGroupMembers(task.pid).length === 0, POLL_MS), "the group lives on");
    });
  });
});

describe("tasks: output past the budget", () => {
  it("a read after unread bytes fell out of memory is lossy, points at the spill, and the spill is complete", async () => {
    const BUDGET = 1000;
    const spillDir = freshDir("dsh-tasks-spill-");
    try {
      await withShell({ maxOutputBytes: BUDGET, spillDir }, async (shell, dir) => {
        const go = [1, 2].map((i) => join(dir, `go${i}`));
        const phase1 = seqText(1, 10_000);
        const phase2 = seqText(10_001, 10_050);
        assert.ok(byteLength(phase1) > 40 * BUDGET);
        assert.ok(byteLength(phase2) < BUDGET / 2, "phase 2 fits the tail");
        const task = shell.start(shell.resolve({
          command: [`seq 1 10000`, untilFileExists(go[0]), `seq 10001 10050`, untilFileExists(go[1])].join("; "),
          owner: null,
        }));

        // The spill file receives every byte the collector takes: once it
        // holds all of phase 1, the task's memory has seen all of it.
        let spillPath = "";
        assert.ok(
          await eventually(() => {
            const files = listDir(spillDir).filter((name) => name.includes("stdout"));
            if (files.length !== 1) return false;
            spillPath = join(spillDir, files[0]);
            return statSync(spillPath).size === byteLength(phase1);
          }, POLL_MS),
          "the spill file never held phase 1",
        );

        const first = task.read();
        assert.equal(first.lossy, true);
        assert.equal(first.stdoutSpillPath, spillPath);
        assert.equal(first.stderrSpillPath, undefined);
        assert.equal(first.stderr, "");
        assert.ok(first.stdout.length > 0, "the newest output is returned");
        assert.ok(byteLength(first.stdout) <= BUDGET, `a read returns at most the budget, got ${first.stdout.length}`);
        assert.ok(phase1.endsWith(first.stdout), "the lossy read is the newest output: a suffix of the stream");
        assert.ok(!first.stdout.includes("\uFFFD"));

        // Nothing new: not lossy any more.
        assert.deepEqual(task.read(), { stdout: "", stderr: "", lossy: false });

        // More output that fits: read whole, not lossy.
        release(go[0]);
        const reader = new TaskReader(task);
        await reader.until(phase2);
        for (const read of reader.reads) {
          assert.equal(read.lossy, false, `lossy again: ${JSON.stringify(read)}`);
          assert.equal(read.stdoutSpillPath, undefined);
        }

        release(go[1]);
        const result = await task.done;
        assert.deepEqual(task.read(), { stdout: "", stderr: "", lossy: false });
        assert.equal(task.status, "completed");
        const full = phase1 + phase2;
        assert.equal(result.stdout.truncated, true);
        assert.equal(result.stdout.totalBytes, byteLength(full));
        assert.equal(result.stdout.spillPath, spillPath);
        assert.equal(readFileSync(spillPath, "utf8"), full, "the spill file holds every byte");
      });
    } finally {
      removeDir(spillDir);
    }
  });

  it("a lossy read of stderr points at the stderr spill file", async () => {
    const spillDir = freshDir("dsh-tasks-spill-");
    try {
      await withShell({ maxOutputBytes: 1000, spillDir }, async (shell, dir) => {
        const go = join(dir, "go");
        const full = seqText(1, 10_000);
        const task = shell.start(shell.resolve({ command: `seq 1 10000 >&2; ${untilFileExists(go)}`, owner: null }));
        let spillPath = "";
        assert.ok(
          await eventually(() => {
            const files = listDir(spillDir).filter((name) => name.includes("stderr"));
            if (files.length !== 1) return false;
            spillPath = join(spillDir, files[0]);
            return statSync(spillPath).size === byteLength(full);
          }, POLL_MS),
        );
        const out = task.read();
        assert.equal(out.lossy, true);
        assert.equal(out.stderrSpillPath, spillPath);
        assert.equal(out.stdoutSpillPath, undefined);
        assert.equal(out.stdout, "");
        assert.ok(out.stderr.length > 0 && full.endsWith(out.stderr));
        release(go);
        await task.done;
        assert.equal(readFileSync(spillPath, "utf8"), full);
      });
    } finally {
      removeDir(spillDir);
    }
  });
});

describe("tasks: no timeout", () => {
  it("ignores the spec's timeoutMs", async () => {
    await withShell({}, async (shell) => {
      const spec = shell.resolve({ command: "sleep 0.5; echo done", owner: null, timeoutMs: 100 });
      assert.equal(spec.timeoutMs, 100);
      const task = shell.start(spec);
      const result = await task.done;
      assert.equal(task.status, "completed");
      assert.equal(result.timedOut, false);
      assert.equal(result.exitCode, 0);
      assert.equal(result.signal, null);
      assert.equal(result.stdout.text, "done\n");
      assert.deepEqual(task.read(), { stdout: "done\n", stderr: "", lossy: false });
    });
  });
});

describe("tasks: maxFinishedTasks", () => {
  it("drops the oldest finished task, never a running one", async () => {
    await withShell({ maxFinishedTasks: 2 }, async (shell) => {
      const long = shell.start(shell.resolve({ command: "sleep 300", owner: null }));
      const quick: ShellTask[] = [];
      for (const word of ["first", "second", "third"]) {
        const task = shell.start(shell.resolve({ command: `echo ${word}`, owner: null }));
        await task.done;
        quick.push(task);
      }
      const [t1, t2, t3] = quick;
      throwsNamed(() => shell.task(t1.id, null), "TaskAccessError", TaskAccessError);
      assert.equal(shell.task(t2.id, null).read().stdout, "second\n");
      assert.equal(shell.task(t3.id, null).read().stdout, "third\n");
      assert.equal(shell.task(long.id, null), long, "the running task was dropped");
      assert.equal(long.status, "running");
      assert.deepEqual(shell.tasks(null).map((t) => t.id), [long.id, t2.id, t3.id]);

      // When the long one finishes, it is the newest finished: t2 goes.
      assert.equal(long.kill(), true);
      await long.done;
      throwsNamed(() => shell.task(t2.id, null), "TaskAccessError", TaskAccessError);
      assert.equal(shell.task(t3.id, null), t3);
      assert.equal(shell.task(long.id, null), long);
      assert.deepEqual(shell.tasks(null).map((t) => t.id), [long.id, t3.id]);
    });
  });

  it("is kept per owner: one owner's finished tasks never push out another's unread result", async () => {
    await withShell({ maxFinishedTasks: 2 }, async (shell) => {
      const theirs = shell.start(shell.resolve({ command: "echo unread", owner: "a" }));
      await theirs.done;
      const others: ShellTask[] = [];
      for (let i = 0; i < 6; i++) {
        const task = shell.start(shell.resolve({ command: `echo ${i}`, owner: "b" }));
        await task.done;
        others.push(task);
      }
      assert.equal(shell.task(theirs.id, "a").read().stdout, "unread\n", "owner b evicted owner a's result");
      // Owner b keeps its own newest two; unowned tasks have a bucket of their own as well.
      assert.deepEqual(shell.tasks("b").map((t) => t.id), others.slice(-2).map((t) => t.id));
      const unowned = shell.start(shell.resolve({ command: "echo shared", owner: null }));
      await unowned.done;
      assert.equal(shell.task(theirs.id, "a"), theirs);
      assert.deepEqual(shell.tasks("b").map((t) => t.id), [...others.slice(-2).map((t) => t.id), unowned.id]);
    });
  });
});

describe("tasks: spawn failure", () => {
  it("a missing workdir gives a killed task with pid -1 and the error on stderr", async () => {
    await withShell({}, async (shell, dir) => {
      const missing = join(dir, "no", "such", "dir");
      const task = shell.start(shell.resolve({ command: "echo never", owner: "a", workdir: missing }));
      assert.equal(task.pid, -1);
      assert.equal(task.status, "killed");
      assert.equal(task.exitCode, null);
      assert.equal(task.signal, null);
      assert.equal(task.kill(), false);
      assert.equal(shell.task(task.id, "a"), task);
      const result = await task.done; // resolves, never rejects
      assert.ok(result.stderr.text.includes(missing), `stderr names the workdir: ${result.stderr.text}`);
      assert.equal(result.stdout.text, "");
      assert.equal(result.exitCode, null);
      const out = task.read();
      assert.ok(out.stderr.includes(missing), `read().stderr names the workdir: ${out.stderr}`);
      assert.equal(out.stdout, "");
      assert.equal(out.lossy, false);
      assert.deepEqual(task.read(), { stdout: "", stderr: "", lossy: false });
      assert.equal(task.status, "killed");
      assert.equal(task.kill(), false);
    });
  });
});

describe("tasks: the result of a task that never started", () => {
  it("has exactly the fields a settled result has, built the same way", async () => {
    await withShell({}, async (shell, dir) => {
      const missing = join(dir, "gone");
      const failed = await shell.start(shell.resolve({ command: "echo never", owner: null, workdir: missing })).done;
      const settled = await shell.start(shell.resolve({ command: "true", owner: null })).done;
      assert.deepEqual(Object.keys(failed).sort(), Object.keys(settled).sort());
      assert.deepEqual(Object.keys(failed.stdout).sort(), Object.keys(settled.stdout).sort());
      assert.deepEqual(
        [failed.exitCode, failed.signal, failed.timedOut, failed.aborted, failed.durationMs],
        [null, null, false, false, 0],
      );
      assert.equal(failed.timeoutMs, shell.resolve({ command: "true", owner: null }).timeoutMs);
    });
  });
});

describe("tasks: a failure the library did not foresee", () => {
  it("keeps its identity, as the cause of a ShellSpawnError: never labelled the sandbox's", async () => {
    const failure = new Error("the adapter lost the child");
    const marker = "dsh-lost-child";
    const shell = createLocalShell({ adapter: breakingAdapter(marker, failure), graceMs: GRACE_MS });
    try {
      const events: ShellEvent[] = [];
      shell.events.subscribe((event) => events.push(event));
      const task = shell.start(shell.resolve({ command: `echo ${marker}`, owner: null }));
      const result = await task.done;
      assert.equal(task.status, "killed");
      const spawnError = task.spawnError;
      assert.ok(spawnError instanceof ShellSpawnError, String(spawnError));
      assert.equal(spawnError.cause, failure);
      assert.match(spawnError.message, /the adapter lost the child/);
      assert.equal(result.stderr.text, `${spawnError.name}: ${spawnError.message}\n`);
      const reported = events.find((event) => event.type === "error");
      assert.ok(reported?.type === "error" && reported.error.code === "ERR_SHELL_SPAWN", JSON.stringify(reported));
      assert.equal(reported.error.cause, failure);
      // run() rejects with the same kind of error, not the bare one.
      const rejected = await rejection(shell.exec(`echo ${marker}`));
      assert.ok(rejected instanceof ShellSpawnError && rejected.cause === failure, String(rejected));
    } finally {
      await shell.close();
    }
  });
});

describe("tasks: close()", () => {
  it("kills running tasks and run() survivors, waits until they are gone, and refuses new work", async () => {
    await withShell({}, async (shell, dir) => {
      const p1 = join(dir, "p1");
      const p2 = join(dir, "p2");
      const p3 = join(dir, "p3");
      const t1 = shell.start(shell.resolve({
        command: `sleep 300 & echo $! > ${shQuote(p1)}; wait`,
        owner: "a",
      }));
      // This one ignores SIGTERM, and so does its grandchild: close() must wait for the SIGKILL.
      const t2 = shell.start(shell.resolve({
        command: `trap '' TERM; sleep 300 & echo $! > ${shQuote(p2)}; wait`,
        owner: null,
      }));
      const survivorRun = await shell.run(shell.resolve({
        command: `sleep 300 & echo $! > ${shQuote(p3)}; echo x`,
        owner: null,
      }));
      assert.equal(survivorRun.stdout.text, "x\n");
      const [g1] = await waitForPids(p1, 1, POLL_MS);
      const [g2] = await waitForPids(p2, 1, POLL_MS);
      const [sleeper] = await waitForPids(p3, 1, POLL_MS);
      const sleeperGroup = procInfo(sleeper)?.pgrp;
      assert.ok(sleeperGroup !== undefined);
      const pids = [t1.pid, t2.pid, g1, g2, sleeper];
      for (const pid of pids) assert.equal(isRunning(pid), true, `${pid} runs before close()`);

      const runSpec = shell.resolve({ command: "echo late", owner: null });
      await shell.close();

      for (const pid of pids) assert.equal(isRunning(pid), false, `${pid} still runs after close()`);
      for (const group of [t1.pid, t2.pid, sleeperGroup]) {
        assert.deepEqual(runningGroupMembers(group), [], `group ${group} still has members`);
      }
      assert.equal(t1.status, "killed");
      assert.equal(t2.status, "killed");
      await assert.rejects(shell.run(runSpec), (error: unknown) => {
        assert.ok(error instanceof ShellClosedError);
        assert.equal(error.name, "ShellClosedError");
        return true;
      });
      throwsNamed(() => shell.start(runSpec), "ShellClosedError", ShellClosedError);
    });
  });
});
