/**
 * kill_shell on real background tasks: the whole process tree ends (read
 * from /proc, not from the library), also a member that ignores SIGTERM; a
 * second kill and a kill of a task that had ended say so; an abort stops
 * the wait, not the kill. And a model's loop over the three tools: start in
 * the background, poll with bash_output until the task ends, kill another.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Shell } from "../mod.ts";
import { executeBashOutputTool, executeBashTool, executeKillShellTool, type ToolOutcome } from "../src/tool/mod.ts";
import { rejection } from "./helpers/errors.ts";
import { isRunning, Leftovers, procInfo, runningGroupMembers } from "./helpers/proc.ts";
import { withShell } from "./helpers/shell.ts";
import { readOutput } from "./helpers/tools.ts";
import { eventually, within } from "./helpers/wait.ts";

const OWNER = "session-1";
/** Bound on waiting for processes to go; generous, as the Node leg runs test files in parallel. */
const POLL_MS = 15_000;
/** The grace period of the shells here (the helper's default). */
const GRACE_MS = 300;

/** One kill_shell call as OWNER. */
function kill(shell: Shell, taskId: string, signal?: AbortSignal): Promise<ToolOutcome> {
  return executeKillShellTool(
    shell,
    { task_id: taskId },
    signal === undefined ? { owner: OWNER } : { owner: OWNER, signal },
  );
}

/**
 * Starts, as OWNER's background task, a leader that starts `members`
 * commands in the background, prints their pids on one line and waits;
 * returns the task and the pids (read with bash_output, as a model would).
 */
async function startTree(shell: Shell, members: string[]): Promise<{ id: string; pids: number[] }> {
  const starts = members.map((member, i) => `${member} & p${i}=$!`).join("; ");
  const echo = `echo ${members.map((_, i) => `$p${i}`).join(" ")}`;
  const started = await executeBashTool(shell, { command: `${starts}; ${echo}; wait`, run_in_background: true }, {
    owner: OWNER,
  });
  const id = started.taskId ?? assert.fail(started.text);
  await shell.task(id, OWNER).waitForOutput();
  const [line, status] = (await readOutput(shell, id, OWNER)).text.split("\n");
  assert.equal(status, "[status: running]");
  const pids = line.split(" ").map(Number);
  assert.equal(pids.length, members.length, line);
  return { id, pids };
}

describe("kill_shell: the whole process tree", () => {
  it("ends the leader and every member of its group", async () => {
    await withShell({}, async (shell) => {
      const leftovers = new Leftovers();
      try {
        const { id, pids } = await startTree(shell, ["sleep 300", "sleep 300", "(sleep 300; echo never)"]);
        const task = shell.task(id, OWNER);
        leftovers.add(task.pid, ...pids);
        for (const pid of pids) {
          assert.ok(isRunning(pid), `${pid} runs`);
          assert.equal(procInfo(pid)?.pgrp, task.pid, "in the task's group");
        }
        const outcome = await kill(shell, id);
        assert.deepEqual(outcome, {
          text: `killed background task ${id}\n[status: killed; signal: SIGTERM]`,
          isError: false,
        });
        assert.equal(task.status, "killed");
        assert.ok(
          await eventually(() => runningGroupMembers(task.pid).length === 0, POLL_MS),
          `the group still runs: ${runningGroupMembers(task.pid).join(" ")}`,
        );
        for (const pid of pids) assert.ok(!isRunning(pid), `${pid} is gone`);
      } finally {
        leftovers.kill();
      }
    });
  });

  it("a member that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    await withShell({}, async (shell) => {
      const leftovers = new Leftovers();
      try {
        const { id, pids } = await startTree(shell, ["(trap '' TERM; sleep 300)"]);
        const task = shell.task(id, OWNER);
        leftovers.add(task.pid, ...pids);
        const outcome = await kill(shell, id);
        assert.equal(outcome.text.split("\n")[0], `killed background task ${id}`);
        assert.ok(
          await eventually(() => runningGroupMembers(task.pid).length === 0, POLL_MS),
          `the group still runs: ${runningGroupMembers(task.pid).join(" ")}`,
        );
      } finally {
        leftovers.kill();
      }
    });
  });

  it("a leader that ignores SIGTERM: the answer waits for the SIGKILL, bounded by the grace period", async () => {
    await withShell({}, async (shell) => {
      const started = await executeBashTool(shell, {
        command: "trap '' TERM; echo ready; sleep 300",
        run_in_background: true,
      }, { owner: OWNER });
      const id = started.taskId ?? assert.fail(started.text);
      const task = shell.task(id, OWNER);
      await task.waitForOutput();
      const begun = performance.now();
      const outcome = await within(kill(shell, id), POLL_MS);
      const tookMs = performance.now() - begun;
      assert.notEqual(outcome, "timed out");
      assert.deepEqual(outcome, {
        text: `killed background task ${id}\n[status: killed; signal: SIGKILL]\n` +
          "Its unread output can still be read with bash_output.",
        isError: false,
      });
      assert.ok(tookMs >= GRACE_MS - 50, `SIGKILL came after the grace period, not before: ${tookMs} ms`);
      assert.ok(
        await eventually(() => runningGroupMembers(task.pid).length === 0, POLL_MS),
        `the group still runs: ${runningGroupMembers(task.pid).join(" ")}`,
      );
      assert.equal((await readOutput(shell, id, OWNER)).text, "ready\n[status: killed; signal: SIGKILL]");
    });
  });
});

describe("kill_shell: a task that is not running", () => {
  it("a second kill says the task had already ended, with the same status", async () => {
    await withShell({}, async (shell) => {
      const id = shell.start(shell.resolve({ command: "sleep 300", owner: OWNER })).id;
      const first = await kill(shell, id);
      assert.equal(first.text, `killed background task ${id}\n[status: killed; signal: SIGTERM]`);
      const second = await kill(shell, id);
      assert.deepEqual(second, {
        text: `background task ${id} had already ended; nothing was killed\n[status: killed; signal: SIGTERM]`,
        isError: false,
      });
    });
  });

  it("a task that completed by itself is left as it is, its output unread", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "echo done; exit 4", owner: OWNER }));
      await task.done;
      assert.deepEqual(await kill(shell, task.id), {
        text: `background task ${task.id} had already ended; nothing was killed\n` +
          "[status: completed; exit code: 4]\nIts unread output can still be read with bash_output.",
        isError: false,
      });
      assert.equal(task.status, "completed");
      assert.equal((await readOutput(shell, task.id, OWNER)).text, "done\n[status: completed; exit code: 4]");
      // Once read, no more hint.
      assert.equal(
        (await kill(shell, task.id)).text,
        `background task ${task.id} had already ended; nothing was killed\n[status: completed; exit code: 4]`,
      );
    });
  });

  it("a task that completed but left a process running: that process is killed, and the answer says so", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "sleep 300 & echo $!", owner: OWNER }));
      const child = Number((await task.done).stdout.text);
      assert.ok(isRunning(child), "nothing was left running");
      assert.deepEqual(await kill(shell, task.id), {
        text: `background task ${task.id} had already ended; what it left running was killed\n` +
          "[status: completed; exit code: 0]\nIts unread output can still be read with bash_output.",
        isError: false,
      });
      assert.ok(await eventually(() => !isRunning(child), 10_000), `the left-over ${child} still runs`);
      assert.equal(task.status, "completed");
      assert.match((await kill(shell, task.id)).text, /had already ended; nothing was killed\n/);
    });
  });

  it("a task whose spawn failed never started", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "true", owner: OWNER, workdir: "/nonexistent/dsh-tools" }));
      const outcome = await kill(shell, task.id);
      assert.equal(outcome.isError, false);
      assert.deepEqual(outcome.text.split("\n").slice(0, 2), [
        `background task ${task.id} had already ended; nothing was killed`,
        "[status: killed; it never started]",
      ]);
    });
  });

  it("tasks the shell's close() killed", async () => {
    await withShell({}, async (shell) => {
      const id = shell.start(shell.resolve({ command: "sleep 300", owner: OWNER })).id;
      await shell.close();
      assert.equal(
        (await kill(shell, id)).text,
        `background task ${id} had already ended; nothing was killed\n[status: killed; signal: SIGTERM]`,
      );
    });
  });
});

describe("kill_shell: the signal", () => {
  it("an abort while waiting rejects with its reason; the kill goes on", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "trap '' TERM; echo ready; sleep 300", owner: OWNER }));
      await task.waitForOutput();
      const turn = new AbortController();
      const reason = new Error("turn cancelled");
      const pending = kill(shell, task.id, turn.signal);
      turn.abort(reason);
      assert.equal(await rejection(pending), reason);
      assert.equal(task.status, "running", "the leader ignores SIGTERM until the SIGKILL");
      const result = await task.done;
      assert.equal(result.signal, "SIGKILL");
      assert.equal(task.status, "killed");
    });
  });
});

describe("a model's loop over the three tools", () => {
  it("starts in the background, polls with bash_output until the end, and kills another task", async () => {
    await withShell({}, async (shell) => {
      const context = { owner: OWNER };
      const build = await executeBashTool(shell, {
        command: "for i in 1 2 3 4 5; do echo step $i; sleep 0.02; done; echo 'warning: slow' >&2; exit 2",
        description: "Build in the background",
        run_in_background: true,
      }, context);
      const server = await executeBashTool(shell, {
        command: "echo listening; sleep 300",
        run_in_background: true,
      }, context);
      for (const started of [build, server]) {
        assert.equal(started.isError, false);
        assert.match(
          started.text,
          /\nNo timeout applies\. Read its output with bash_output and stop it with kill_shell/,
        );
      }
      const buildId = build.taskId ?? assert.fail(build.text);
      const serverId = server.taskId ?? assert.fail(server.text);

      // Poll the build as a model would, the harness waiting for news between turns.
      const seen: string[] = [];
      let status = "";
      for (let turn = 0; turn < 100 && !status.startsWith("[status: completed"); turn++) {
        await shell.task(buildId, OWNER).waitForOutput();
        const read = await executeBashOutputTool(shell, { task_id: buildId }, context);
        assert.equal(read.isError, false);
        const lines = read.text.split("\n");
        status = lines.pop() ?? "";
        seen.push(...lines.filter((line) => line !== "(no new output)"));
      }
      assert.equal(status, "[status: completed; exit code: 2]");
      const stdout = seen.filter((line) => line.startsWith("step "));
      assert.deepEqual(stdout, ["step 1", "step 2", "step 3", "step 4", "step 5"], "every line once, in order");
      assert.deepEqual(seen.filter((line) => !line.startsWith("step ")), ["[stderr]", "warning: slow"]);

      // The server is still up: its output, then stop it.
      await shell.task(serverId, OWNER).waitForOutput();
      assert.equal(
        (await executeBashOutputTool(shell, { task_id: serverId }, context)).text,
        "listening\n[status: running]",
      );
      const killed = await executeKillShellTool(shell, { task_id: serverId }, context);
      assert.deepEqual(killed, {
        text: `killed background task ${serverId}\n[status: killed; signal: SIGTERM]`,
        isError: false,
      });
      assert.equal(
        (await executeBashOutputTool(shell, { task_id: serverId }, context)).text,
        "(no new output)\n[status: killed; signal: SIGTERM]",
      );
      const serverPid = shell.task(serverId, OWNER).pid;
      assert.ok(await eventually(() => runningGroupMembers(serverPid).length === 0, POLL_MS));
      // Another session sees none of it.
      for (const id of [buildId, serverId]) {
        const stranger = await executeBashOutputTool(shell, { task_id: id }, { owner: "session-2" });
        assert.equal(stranger.isError, true);
      }
    });
  });
});
