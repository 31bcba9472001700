/**
 * The task tools' definitions (`bash_output`, `kill_shell`, `bashTools`),
 * the refusal of inputs that are not `{ task_id }`, and the owner check:
 * an unknown id and another owner's task get byte-identical answers, and
 * an unowned task is everyone's.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell, type Shell, type ShellTask } from "../mod.ts";
import {
  bashOutputTool,
  bashTool,
  type BashToolContext,
  bashTools,
  executeBashOutputTool,
  executeKillShellTool,
  killShellTool,
  type TaskIdInput,
  ToolInputError,
} from "../src/tool/mod.ts";
import { assertArgumentError, rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";
import { assertToolInputRefused } from "./helpers/tools.ts";

const OWNER = "session-1";
const OTHER = "session-2";

/** The two task tools, each with the function that runs its calls. */
const TASK_TOOLS = [
  { tool: bashOutputTool, execute: executeBashOutputTool },
  { tool: killShellTool, execute: executeKillShellTool },
] as const;

/** Starts `sleep 300` as `owner`'s task; close() of the shell ends it. */
function sleeper(shell: Shell, owner: string | null): ShellTask {
  return shell.start(shell.resolve({ command: "sleep 300", owner }));
}

describe("the task tools' definitions", () => {
  it("are named bash_output and kill_shell, with { task_id } as their only input", () => {
    assert.equal(bashOutputTool.name, "bash_output");
    assert.equal(killShellTool.name, "kill_shell");
    for (const { tool } of TASK_TOOLS) {
      const schema = tool.inputSchema;
      assert.equal(schema.type, "object");
      assert.deepEqual(Object.keys(schema.properties), ["task_id"]);
      assert.deepEqual(schema.required, ["task_id"]);
      assert.equal(schema.additionalProperties, false);
      assert.equal(schema.properties.task_id.type, "string");
      assert.equal(schema.properties.task_id.minLength, 1);
      assert.equal(typeof schema.properties.task_id.description, "string");
      assert.equal(schema.$schema, undefined, "the bare object schema, as model APIs take it");
      assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema, "plain JSON");
    }
  });

  it("are frozen, schemas included", () => {
    for (const { tool } of TASK_TOOLS) {
      assert.ok(Object.isFrozen(tool));
      assert.ok(Object.isFrozen(tool.inputSchema));
      assert.ok(Object.isFrozen(tool.inputSchema.properties.task_id));
      assert.ok(Object.isFrozen(tool.inputSchema.required));
    }
  });

  it("describe themselves for the model", () => {
    for (const { tool } of TASK_TOOLS) {
      for (const needle of ["run_in_background: true", "task_id", "started background task <id>", "[status: "]) {
        assert.ok(tool.description.includes(needle), `${tool.name}'s description mentions ${needle}`);
      }
      assert.ok(tool.description.split("\n").length <= 10, "the description stays short");
    }
    for (const needle of ["since the previous", "[stderr]", "(no new output)", "full output: PATH", "kill_shell"]) {
      assert.ok(bashOutputTool.description.includes(needle), `bash_output's description mentions ${needle}`);
    }
    for (const needle of ["process tree", "SIGTERM", "SIGKILL", "already ended", "bash_output"]) {
      assert.ok(killShellTool.description.includes(needle), `kill_shell's description mentions ${needle}`);
    }
  });

  it("bashTools lists bash, bash_output and kill_shell, in that order, frozen", () => {
    assert.equal(bashTools.length, 3);
    assert.equal(bashTools[0], bashTool);
    assert.equal(bashTools[1], bashOutputTool);
    assert.equal(bashTools[2], killShellTool);
    assert.ok(Object.isFrozen(bashTools));
    assert.throws(() => (bashTools as unknown as unknown[]).push(bashTool), TypeError);
    const names = bashTools.map((tool) => tool.name);
    assert.deepEqual(names, ["bash", "bash_output", "kill_shell"]);
  });
});

describe("the task tools' parse", () => {
  it("accepts { task_id } and returns only it", () => {
    for (const { tool } of TASK_TOOLS) {
      const input: TaskIdInput = tool.parse({ task_id: "t0123456789" });
      assert.deepEqual(input, { task_id: "t0123456789" });
    }
  });

  const unknownKeys: [string, RegExp][] = [
    ["bash_id", /task_id/],
    ["shell_id", /task_id/],
    ["id", /task_id/],
    ["frobnicate", /its inputs are task_id/],
  ];
  for (const [key, hint] of unknownKeys) {
    it(`refuses ${key}, naming it and saying what to do`, () => {
      for (const { tool } of TASK_TOOLS) {
        const error = thrown(() => tool.parse({ task_id: "t1", [key]: "x" }));
        assertToolInputRefused(error, key);
        assert.ok(error.message.startsWith(`${key} is not an input of the ${tool.name} tool: `), error.message);
        assert.match(error.message, hint);
      }
    });
  }

  it("says bash_output has no filter and returns at once", () => {
    const filter = thrown(() => bashOutputTool.parse({ task_id: "t1", filter: "error" }));
    assertToolInputRefused(filter, "filter");
    assert.match(filter.message, /all new output/);
    const block = thrown(() => bashOutputTool.parse({ task_id: "t1", block: true }));
    assertToolInputRefused(block, "block");
    assert.match(block.message, /returns at once/);
  });

  const wrong: [string, unknown, string][] = [
    ["a missing task_id", {}, "task_id"],
    ["an empty task_id", { task_id: "" }, "task_id"],
    ["a number", { task_id: 42 }, "task_id"],
    ["null", { task_id: null }, "task_id"],
    ["an input that is not an object", "t1", "input"],
    ["an array", ["t1"], "input"],
  ];
  for (const [label, input, field] of wrong) {
    it(`refuses ${label}, naming ${field}`, () => {
      for (const { tool } of TASK_TOOLS) {
        const error = thrown(() => tool.parse(input));
        assertToolInputRefused(error, field);
        assert.ok(error.message.startsWith(`${field}: `), error.message);
      }
    });
  }

  it("says what a missing task_id is", () => {
    const error = thrown(() => killShellTool.parse({}));
    assertToolInputRefused(error, "task_id");
    assert.equal(error.message, "task_id: is required: the id from `started background task <id>`");
    const number = thrown(() => killShellTool.parse({ task_id: 42 }));
    assertToolInputRefused(number, "task_id");
    assert.match(number.message, /\(got 42\)$/);
  });

  it("execute: a refused input is an error outcome with the message, and the task is left alone", async () => {
    await withShell({}, async (shell) => {
      const task = sleeper(shell, OWNER);
      for (const { tool, execute } of TASK_TOOLS) {
        for (const input of [{ task_id: task.id, signal: "SIGKILL" }, { shell_id: task.id }, { task_id: "" }]) {
          const error = thrown(() => tool.parse(input));
          assert.ok(error instanceof ToolInputError);
          assert.deepEqual(await execute(shell, input, { owner: OWNER }), { text: error.message, isError: true });
        }
      }
      assert.equal(task.status, "running", "no refused kill_shell call killed it");
      assert.equal(task.kill(), true);
    });
  });
});

describe("the task tools' owner check", () => {
  it("another owner's task and an unknown id get byte-identical answers, and the task is untouched", async () => {
    await withShell({}, async (shell) => {
      const theirs = shell.start(shell.resolve({ command: "echo secret; sleep 300", owner: OTHER }));
      await theirs.waitForOutput();
      const elsewhere = createLocalShell();
      try {
        for (const { execute } of TASK_TOOLS) {
          const foreign = await execute(shell, { task_id: theirs.id }, { owner: OWNER });
          // The very same id, where no task has it: a shell that never started one.
          const unknown = await execute(elsewhere, { task_id: theirs.id }, { owner: OWNER });
          assert.deepEqual(foreign, unknown);
          assert.equal(foreign.isError, true);
          assert.equal(foreign.text, unknown.text, "byte for byte");
          assert.match(foreign.text, /^\[error\] no background task "t[0-9a-f]+" is available to you/);
          assert.ok(!foreign.text.includes("secret"));
          // The unowned view (owner null) does not reach an owned task either.
          assert.deepEqual(await execute(shell, { task_id: theirs.id }, { owner: null }), unknown);
        }
        // Both tools answer alike, too.
        const read = await executeBashOutputTool(elsewhere, { task_id: theirs.id }, { owner: OWNER });
        const kill = await executeKillShellTool(elsewhere, { task_id: theirs.id }, { owner: OWNER });
        assert.equal(read.text, kill.text);
      } finally {
        await elsewhere.close();
      }
      assert.equal(theirs.status, "running", "the foreign kill_shell did nothing");
      assert.equal(theirs.read().stdout, "secret\n", "the foreign bash_output read nothing");
    });
  });

  it("an unknown id in the same shell gets the same answer as a foreign one, but for the id", async () => {
    await withShell({}, async (shell) => {
      const theirs = sleeper(shell, OTHER);
      const unknownId = "t0000000000";
      assert.notEqual(theirs.id, unknownId);
      for (const { execute } of TASK_TOOLS) {
        const foreign = await execute(shell, { task_id: theirs.id }, { owner: OWNER });
        const unknown = await execute(shell, { task_id: unknownId }, { owner: OWNER });
        assert.equal(unknown.isError, true);
        assert.equal(unknown.text.split(unknownId).join("<id>"), foreign.text.split(theirs.id).join("<id>"));
      }
    });
  });

  it("an unowned task is readable and killable by every owner, and by the unowned view", async () => {
    await withShell({}, async (shell) => {
      const shared = shell.start(shell.resolve({ command: "echo shared; sleep 300", owner: null }));
      await shared.waitForOutput();
      const first = await executeBashOutputTool(shell, { task_id: shared.id }, { owner: OWNER });
      assert.deepEqual(first, { text: "shared\n[status: running]", isError: false });
      // Reads consume: the next reader, whoever it is, gets only what is new.
      const second = await executeBashOutputTool(shell, { task_id: shared.id }, { owner: OTHER });
      assert.deepEqual(second, { text: "(no new output)\n[status: running]", isError: false });
      const third = await executeBashOutputTool(shell, { task_id: shared.id }, { owner: null });
      assert.equal(third.text, "(no new output)\n[status: running]");
      const killed = await executeKillShellTool(shell, { task_id: shared.id }, { owner: OTHER });
      assert.equal(killed.isError, false);
      assert.equal(killed.text.split("\n")[0], `killed background task ${shared.id}`);
      assert.equal(shared.status, "killed");
    });
  });

  it("an owner's own task is found by its owner only", async () => {
    await withShell({}, async (shell) => {
      const mine = shell.start(shell.resolve({ command: "echo mine", owner: OWNER }));
      await mine.done;
      const read = await executeBashOutputTool(shell, { task_id: mine.id }, { owner: OWNER });
      assert.deepEqual(read, { text: "mine\n[status: completed; exit code: 0]", isError: false });
    });
  });
});

describe("the task tools: harness mistakes reject", () => {
  it("a context without an owner: a TypeError of the error family naming owner", async () => {
    await withShell({}, async (shell) => {
      const task = sleeper(shell, OWNER);
      for (const { tool, execute } of TASK_TOOLS) {
        const error = await rejection(execute(shell, { task_id: task.id }, {} as BashToolContext));
        assertArgumentError(error, "owner");
        assert.equal(
          error.message,
          `owner: is required in the ${tool.name} tool's context (a string, or null for unowned work)`,
        );
        const badSignal = { owner: OWNER, signal: "stop" } as unknown as BashToolContext;
        assertArgumentError(await rejection(execute(shell, { task_id: task.id }, badSignal)), "signal");
      }
      assert.equal(task.status, "running");
    });
  });

  it("an already-aborted signal: its reason, and nothing is read or killed", async () => {
    await withShell({}, async (shell) => {
      const task = shell.start(shell.resolve({ command: "echo kept; sleep 300", owner: OWNER }));
      await task.waitForOutput();
      const turn = new AbortController();
      const reason = new Error("turn cancelled");
      turn.abort(reason);
      for (const { execute } of TASK_TOOLS) {
        assert.equal(
          await rejection(execute(shell, { task_id: task.id }, { owner: OWNER, signal: turn.signal })),
          reason,
        );
      }
      assert.equal(task.status, "running");
      assert.equal(task.read().stdout, "kept\n");
    });
  });
});
