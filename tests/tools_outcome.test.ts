/**
 * executeBashTool: the same text as runBashTool for every kind of call,
 * and beside it whether the call is an error, the started task's id and the
 * foreground run's result. Harness mistakes still reject, for every tool
 * as a `TypeError` of the error family (`ERR_SHELL_ARGUMENT`) naming the field of the context.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell, ShellClosedError } from "../mod.ts";
import {
  bashTool,
  type BashToolContext,
  type BashToolOutcome,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeKillShellTool,
  executeWriteStdinTool,
  runBashTool,
  ToolInputError,
} from "../src/tool/mod.ts";
import { shQuote } from "./helpers/bash.ts";
import { assertArgumentError, rejection, thrown } from "./helpers/errors.ts";
import { withSpiedShell } from "./helpers/spy_shell.ts";
import { appeared } from "./helpers/wait.ts";

const OWNER = "session-1";
/** Bound on polling for a file a command creates; generous, as the Node leg runs test files in parallel. */
const POLL_MS = 15_000;

/** The keys an outcome has, sorted: it never carries `taskId` or `result` where they do not apply. */
function keysOf(outcome: BashToolOutcome): string[] {
  return Object.keys(outcome).sort();
}

describe("executeBashTool: the text is runBashTool's", () => {
  const inputs: [string, Record<string, unknown>][] = [
    ["stdout", { command: "echo hello" }],
    ["stdout and stderr", { command: "printf out; printf err >&2" }],
    ["no output", { command: "true" }],
    ["a nonzero exit", { command: "echo out; echo err >&2; exit 3" }],
    ["a signal the command sent itself", { command: "echo before; kill -TERM $$" }],
    ["a spec the shell refuses", { command: "pwd", workdir: "a\0b" }],
    ["a missing workdir", { command: "pwd", workdir: "/nonexistent/dsh-tools" }],
    ["a missing workdir, in the background", { command: "pwd", workdir: "/nonexistent/dsh", run_in_background: true }],
  ];
  for (const [label, input] of inputs) {
    it(label, async () => {
      await withSpiedShell({}, async (shell) => {
        const text = await runBashTool(shell, input, { owner: OWNER });
        const outcome = await executeBashTool(shell, input, { owner: OWNER });
        assert.equal(outcome.text, text);
      });
    });
  }

  it("a background start: the same first line, the same note, a task of its own", async () => {
    await withSpiedShell({}, async (shell) => {
      const input = { command: "echo bg", run_in_background: true };
      const [first, ...note] = (await runBashTool(shell, input, { owner: OWNER })).split("\n");
      const outcome = await executeBashTool(shell, input, { owner: OWNER });
      const [outcomeFirst, ...outcomeNote] = outcome.text.split("\n");
      assert.match(first, /^started background task t[0-9a-f]+$/);
      assert.equal(outcomeFirst, `started background task ${outcome.taskId}`);
      assert.notEqual(outcomeFirst, first, "two starts, two tasks");
      assert.deepEqual(outcomeNote, note);
    });
  });
});

describe("executeBashTool: isError, taskId and result", () => {
  it("a command that succeeds is no error, with its result; stderr alone does not make it one", async () => {
    await withSpiedShell({}, async (shell) => {
      const outcome = await executeBashTool(shell, { command: "echo out; echo warning >&2" }, { owner: OWNER });
      assert.equal(outcome.isError, false);
      assert.equal(outcome.text, "out\n[stderr]\nwarning");
      assert.equal(outcome.result?.exitCode, 0);
      assert.equal(outcome.result?.stdout.text, "out\n");
      assert.equal(outcome.taskId, undefined);
      assert.deepEqual(keysOf(outcome), ["isError", "result", "text"]);
    });
  });

  it("a nonzero exit is an error, with its result", async () => {
    await withSpiedShell({}, async (shell) => {
      const outcome = await executeBashTool(shell, { command: "exit 3" }, { owner: OWNER });
      assert.equal(outcome.isError, true);
      assert.equal(outcome.result?.exitCode, 3);
      assert.deepEqual(keysOf(outcome), ["isError", "result", "text"]);
    });
  });

  it("a timeout is an error, with its result", async () => {
    await withSpiedShell({}, async (shell) => {
      const outcome = await executeBashTool(shell, { command: "sleep 30", timeout: 200 }, { owner: OWNER });
      assert.equal(outcome.isError, true);
      assert.equal(outcome.result?.timedOut, true);
      assert.match(outcome.text, /^\(no output\)\n\[timed out after 200ms\]\n/);
    });
  });

  it("an abort during the run is an error, with its result", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const ready = join(dir, "ready");
      const turn = new AbortController();
      const pending = executeBashTool(shell, { command: `touch ${shQuote(ready)}; sleep 30` }, {
        owner: OWNER,
        signal: turn.signal,
      });
      assert.ok(await appeared(ready, POLL_MS), "the command started");
      turn.abort();
      const outcome = await pending;
      assert.equal(outcome.isError, true);
      assert.equal(outcome.result?.aborted, true);
      assert.match(outcome.text, /\n\[aborted\]\n/);
    });
  });

  it("death by a signal is an error, also one the command sent itself", async () => {
    await withSpiedShell({}, async (shell) => {
      const outcome = await executeBashTool(shell, { command: "kill -TERM $$" }, { owner: OWNER });
      assert.equal(outcome.isError, true);
      assert.equal(outcome.result?.signal, "SIGTERM");
      assert.equal(outcome.result?.exitCode, null);
      assert.equal(outcome.result?.timedOut, false);
      assert.equal(outcome.result?.aborted, false);
    });
  });

  it("a spawn failure is an error without a result, in the foreground", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const missing = join(dir, "no-such-dir");
      const outcome = await executeBashTool(shell, { command: "pwd", workdir: missing }, { owner: OWNER });
      assert.deepEqual(outcome, { text: `[error] workdir does not exist: ${missing}`, isError: true });
    });
  });

  it("a spawn failure in the background is an error without a task id", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const missing = join(dir, "no-such-dir");
      const input = { command: "pwd", workdir: missing, run_in_background: true };
      const outcome = await executeBashTool(shell, input, { owner: OWNER });
      assert.deepEqual(outcome, { text: `[error] workdir does not exist: ${missing}`, isError: true });
    });
  });

  it("a spec the shell refuses is an error, and nothing runs", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      const outcome = await executeBashTool(shell, { command: "pwd", workdir: "a\0b" }, { owner: OWNER });
      assert.equal(outcome.isError, true);
      assert.match(outcome.text, /^\[error\] workdir: /);
      assert.deepEqual(keysOf(outcome), ["isError", "text"]);
      assert.deepEqual(calls, ["resolve"]);
    });
  });

  it("too many running tasks is an error without a task id", async () => {
    await withSpiedShell({ maxTasksPerOwner: 1 }, async (shell) => {
      const input = { command: "sleep 30", run_in_background: true };
      const first = await executeBashTool(shell, input, { owner: OWNER });
      assert.equal(first.isError, false);
      const second = await executeBashTool(shell, input, { owner: OWNER });
      assert.equal(second.isError, true);
      assert.match(second.text, /^\[error\] .*maxTasksPerOwner/);
      assert.deepEqual(keysOf(second), ["isError", "text"]);
      assert.deepEqual(shell.tasks(OWNER).map((task) => task.id), [first.taskId]);
    });
  });

  it("a background start is no error: the task id, owned by the caller, and no result", async () => {
    await withSpiedShell({}, async (shell) => {
      const outcome = await executeBashTool(shell, { command: "echo bg; exit 5", run_in_background: true }, {
        owner: OWNER,
      });
      assert.equal(outcome.isError, false, "the start worked, whatever the command does later");
      assert.deepEqual(keysOf(outcome), ["isError", "taskId", "text"]);
      const id = outcome.taskId ?? assert.fail("no task id");
      assert.equal(outcome.text.split("\n")[0], `started background task ${id}`);
      const task = shell.task(id, OWNER);
      assert.equal(task.owner, OWNER);
      assert.equal((await task.done).exitCode, 5);
      assert.equal(task.read().stdout, "bg\n");
    });
  });

  it("an input the tool refuses is an error whose text is the ToolInputError's message; nothing spawns", async () => {
    await withSpiedShell({}, async (shell, dir, calls) => {
      const marker = join(dir, "ran");
      const inputs: unknown[] = [
        { command: `touch ${shQuote(marker)}`, stdin: "x" },
        { command: `touch ${shQuote(marker)}`, run_in_background: true, env: { A: "1" } },
        { command: "" },
        { command: `touch ${shQuote(marker)}`, timeout: "5" },
        "ls",
        null,
      ];
      for (const input of inputs) {
        const error = thrown(() => bashTool.parse(input));
        assert.ok(error instanceof ToolInputError);
        assert.deepEqual(await executeBashTool(shell, input, { owner: OWNER }), {
          text: error.message,
          isError: true,
        });
      }
      assert.deepEqual(calls, []);
      await shell.close();
      assert.equal(existsSync(marker), false, "the command never ran");
    });
  });
});

describe("executeBashTool: harness mistakes reject, as runBashTool's do", () => {
  it("a closed shell: ShellClosedError, foreground and background", async () => {
    await withSpiedShell({}, async (shell) => {
      await shell.close();
      for (const run_in_background of [false, true]) {
        const error = await rejection(executeBashTool(shell, { command: "true", run_in_background }, { owner: OWNER }));
        assert.ok(error instanceof ShellClosedError, String(error));
      }
    });
  });

  it("a context without an owner: a TypeError of the error family naming owner, nothing resolved", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      const error = await rejection(executeBashTool(shell, { command: "ls" }, {} as { owner: string }));
      assertArgumentError(error, "owner", /^owner: /);
      assert.deepEqual(calls, []);
    });
  });

  it("an already-aborted signal: its reason, nothing spawned", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      const reason = new Error("turn cancelled");
      const turn = new AbortController();
      turn.abort(reason);
      for (const run_in_background of [false, true]) {
        const input = { command: "true", run_in_background };
        assert.equal(await rejection(executeBashTool(shell, input, { owner: OWNER, signal: turn.signal })), reason);
      }
      assert.deepEqual(calls, []);
    });
  });
});

describe("every tool: a harness mistake in the context", () => {
  /** Each tool that takes a context, with an input it accepts. */
  const CALLS: [string, (shell: Shell, context: BashToolContext) => Promise<unknown>][] = [
    ["bash", (shell, context) => executeBashTool(shell, { command: "true" }, context)],
    ["bash_output", (shell, context) => executeBashOutputTool(shell, { task_id: "t0" }, context)],
    ["kill_shell", (shell, context) => executeKillShellTool(shell, { task_id: "t0" }, context)],
    ["exec_command", (shell, context) => executeExecCommandTool(shell, { cmd: "true" }, context)],
    ["write_stdin", (shell, context) => executeWriteStdinTool(shell, { session_id: 100_000 }, context)],
  ];

  it("is a TypeError of the error family (ERR_SHELL_ARGUMENT) naming the field, for every tool, and nothing is resolved", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      await using other = createLocalShell();
      const session = other.session({ owner: "someone-else" });
      const mistakes: [string, unknown][] = [
        ["context", null],
        ["owner", {}],
        ["signal", { owner: "a", signal: "stop" }],
        ["session", { owner: "a", session: {} }],
        ["session", { owner: "a", session }],
        ["keepControlSequences", { owner: "a", keepControlSequences: "yes" }],
        ["onStdout", { owner: "a", onStdout: 1 }],
        ["onStderr", { owner: "a", onStderr: 1 }],
      ];
      for (const [tool, call] of CALLS) {
        for (const [field, context] of mistakes) {
          const error = await rejection(call(shell, context as BashToolContext), `${tool} took a bad ${field}`);
          assertArgumentError(error, field);
        }
      }
      assert.deepEqual(calls, []);
    });
  });
});
