/**
 * The model-facing bash tool (`./tool`): its input schema, the refusal of
 * every key that is not an input (before anything is spawned), type checks
 * naming the field, a request built only from the declared inputs, the text
 * the model sees for each outcome of real bash commands, background starts,
 * and which failures come back as text and which reject.
 *
 * "Nothing spawned" is proved twice: a spy around the shell records every
 * `resolve`/`run`/`start` call, and the command would create a marker file
 * that must still be missing after `close()` (which waits for everything the
 * shell started). Where a test waits for a command to reach a point, it polls
 * for a file the command creates.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ShellClosedError, type ShellExecRequest, type ShellRunResult, TaskAccessError } from "../mod.ts";
import {
  bashTool,
  type BashToolContext,
  type BashToolInput,
  executeBashTool,
  runBashTool,
  ToolInputError,
} from "../src/tool/mod.ts";
import { shQuote } from "./helpers/bash.ts";
import { seqText } from "./helpers/capture.ts";
import { assertArgumentError, rejection, thrown } from "./helpers/errors.ts";
import { withSpiedShell } from "./helpers/spy_shell.ts";
import { appeared } from "./helpers/wait.ts";

const OWNER = "session-1";
/** Bound on polling for a file a command creates; generous, as the Node leg runs test files in parallel. */
const POLL_MS = 15_000;

/** Asserts that `error` is a ToolInputError whose key is `key` and whose message names it. */
function assertRefused(error: unknown, key: string): asserts error is ToolInputError {
  assert.ok(error instanceof ToolInputError, `expected a ToolInputError, got ${String(error)}`);
  assert.equal(error.name, "ToolInputError");
  assert.equal(error.field, key);
  assert.equal(error.key, key, "the deprecated 1.0 name still works");
  assert.ok(error.message.includes(key), `the message ${JSON.stringify(error.message)} names ${key}`);
}

/** A result with nothing in it, to be overridden field by field. */
function quietResult(overrides: Partial<ShellRunResult>): ShellRunResult {
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    timeoutMs: 120_000,
    durationMs: 1,
    stdout: { text: "", truncated: false, totalBytes: 0 },
    stderr: { text: "", truncated: false, totalBytes: 0 },
    ...overrides,
  };
}

describe("the tool definition", () => {
  it("is named bash and describes itself for the model", () => {
    assert.equal(bashTool.name, "bash");
    const text = bashTool.description;
    for (const needle of ["bash -c", "/dev/null", "heredoc", "VAR=value cmd", "workdir", "120000", "600000"]) {
      assert.ok(text.includes(needle), `the description mentions ${needle}`);
    }
    for (
      const needle of ["run_in_background", "started background task <id>", "bash_output", "kill_shell", "task_id"]
    ) {
      assert.ok(text.includes(needle), `the description mentions ${needle}`);
    }
    for (const needle of ["full output", "killed"]) {
      assert.ok(text.includes(needle), `the description mentions ${needle}`);
    }
    assert.ok(text.split("\n").length <= 16, "the description stays short");
  });

  it("has an input schema with exactly the declared properties", () => {
    const schema = bashTool.inputSchema;
    assert.equal(schema.type, "object");
    assert.deepEqual(Object.keys(schema.properties), [
      "command",
      "description",
      "timeout",
      "workdir",
      "run_in_background",
    ]);
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual(schema.required, ["command"]);
    assert.equal(schema.properties.command.type, "string");
    assert.equal(schema.properties.command.minLength, 1);
    assert.equal(schema.properties.description.type, "string");
    assert.equal(schema.properties.timeout.type, "number");
    assert.equal(schema.properties.workdir.type, "string");
    assert.equal(schema.properties.run_in_background.type, "boolean");
    for (const property of Object.values(schema.properties)) {
      assert.equal(typeof property.description, "string", "every property is described for the model");
    }
    // Plain JSON, as a model API receives it.
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
  });

  it("is frozen, schema included", () => {
    assert.ok(Object.isFrozen(bashTool));
    assert.ok(Object.isFrozen(bashTool.inputSchema));
    assert.ok(Object.isFrozen(bashTool.inputSchema.properties.command));
    assert.ok(Object.isFrozen(bashTool.inputSchema.required));
  });
});

describe("parse", () => {
  it("accepts a Claude Code-style input and returns only the declared fields", () => {
    const input = {
      command: "npm test",
      description: "Run the tests",
      timeout: 300_000,
      workdir: "packages/app",
      run_in_background: false,
    };
    assert.deepEqual(bashTool.parse(input), input);
    assert.deepEqual(bashTool.parse({ command: "ls" }), { command: "ls" });
  });

  const forbidden: [string, unknown][] = [
    ["stdin", "data"],
    ["env", { A: "1" }],
    ["dshEnv", { DSH_SESSION: "x" }],
    ["stdoutMaxBytes", 10_000_000],
    ["frobnicate", true],
  ];

  for (const [key, value] of forbidden) {
    it(`refuses ${key}, naming it, and spawns nothing`, async () => {
      await withSpiedShell({}, async (shell, dir, calls) => {
        const marker = join(dir, "ran");
        for (const background of [false, true]) {
          const input = { command: `touch ${shQuote(marker)}`, run_in_background: background, [key]: value };
          assertRefused(thrown(() => bashTool.parse(input)), key);
          assertRefused(await rejection(runBashTool(shell, input, { owner: OWNER })), key);
        }
        assert.deepEqual(calls, [], "the shell was never asked to resolve, run or start anything");
        assert.deepEqual(shell.tasks(OWNER), []);
        await shell.close();
        assert.equal(existsSync(marker), false, "the command never ran");
      });
    });
  }

  it("says what to do instead of stdin and env", () => {
    const stdin = thrown(() => bashTool.parse({ command: "cat", stdin: "x" }));
    assertRefused(stdin, "stdin");
    assert.match(stdin.message, /^stdin is not an input of the bash tool: .*pipe.*heredoc/);
    const env = thrown(() => bashTool.parse({ command: "env", env: { A: "1" } }));
    assertRefused(env, "env");
    assert.match(env.message, /^env is not an input of the bash tool: .*VAR=value cmd/);
    const cwd = thrown(() => bashTool.parse({ command: "ls", cwd: "/tmp" }));
    assertRefused(cwd, "cwd");
    assert.match(cwd.message, /workdir/);
  });

  it("names the first unknown key and lists the others", () => {
    const error = thrown(() => bashTool.parse({ command: "ls", zzz: 1, stdin: "x", env: {} }));
    assertRefused(error, "zzz");
    assert.match(error.message, /also not inputs: stdin, env/);
  });

  it("refuses unknown keys before checking the declared fields", () => {
    assertRefused(thrown(() => bashTool.parse({ command: 42, env: {} })), "env");
  });

  const wrong: [string, unknown, string][] = [
    ["command missing", {}, "command"],
    ["command empty", { command: "" }, "command"],
    ["command a number", { command: 42 }, "command"],
    ["timeout 0", { command: "ls", timeout: 0 }, "timeout"],
    ["timeout -1", { command: "ls", timeout: -1 }, "timeout"],
    ["timeout NaN", { command: "ls", timeout: NaN }, "timeout"],
    ["timeout Infinity", { command: "ls", timeout: Infinity }, "timeout"],
    ['timeout "5"', { command: "ls", timeout: "5" }, "timeout"],
    ['run_in_background "yes"', { command: "ls", run_in_background: "yes" }, "run_in_background"],
    ["description a number", { command: "ls", description: 5 }, "description"],
    ["workdir empty", { command: "ls", workdir: "" }, "workdir"],
    ["workdir a number", { command: "ls", workdir: 5 }, "workdir"],
    ["input null", null, "input"],
    ["input a string", "ls", "input"],
    ["input an array", ["ls"], "input"],
  ];

  for (const [label, input, key] of wrong) {
    it(`refuses ${label}, naming ${key}, and spawns nothing`, async () => {
      const error = thrown(() => bashTool.parse(input));
      assertRefused(error, key);
      assert.ok(error.message.startsWith(`${key}: `), error.message);
      await withSpiedShell({}, async (shell, _dir, calls) => {
        assertRefused(await rejection(runBashTool(shell, input, { owner: OWNER })), key);
        assert.deepEqual(calls, []);
      });
    });
  }

  it("says what it got and what it expected", () => {
    const missing = thrown(() => bashTool.parse({}));
    assertRefused(missing, "command");
    assert.match(missing.message, /^command: is required/);
    const text = thrown(() => bashTool.parse({ command: "ls", timeout: "5" }));
    assertRefused(text, "timeout");
    assert.equal(text.message, 'timeout: must be a positive, finite number of milliseconds (got "5")');
    const nan = thrown(() => bashTool.parse({ command: "ls", timeout: NaN }));
    assertRefused(nan, "timeout");
    assert.match(nan.message, /\(got NaN\)$/);
  });
});

describe("toRequest", () => {
  it("carries the declared inputs, the owner and the signal, and nothing else", () => {
    const signal = new AbortController().signal;
    // Extra properties at run time, on the input and on the context: none may leak.
    const input = {
      command: "echo hi",
      description: "say hi",
      timeout: 5_000,
      workdir: "/tmp",
      run_in_background: false,
      stdin: "data",
      env: { A: "1" },
      dshEnv: { DSH_X: "1" },
      stdoutMaxBytes: 10_000_000,
      owner: "someone-else",
      timeoutMs: 1,
    } as BashToolInput;
    const context = { owner: OWNER, signal, env: { B: "2" }, stdin: "more" } as BashToolContext;
    const request = bashTool.toRequest(input, context);
    assert.deepEqual(Object.keys(request).sort(), ["command", "owner", "signal", "timeoutMs", "workdir"]);
    assert.equal(request.command, "echo hi");
    assert.equal(request.owner, OWNER);
    assert.equal(request.timeoutMs, 5_000);
    assert.equal(request.workdir, "/tmp");
    assert.equal(request.signal, signal);
  });

  it("leaves out what was not given, and keeps a null owner", () => {
    const request: ShellExecRequest = bashTool.toRequest({ command: "ls" }, { owner: null });
    assert.deepEqual(request, { command: "ls", owner: null });
    assert.deepEqual(Object.keys(request), ["command", "owner"]);
  });

  it("gives the shell nothing but the declared inputs: no stdin, no env", async () => {
    await withSpiedShell({ ambientEnv: { PATH: "/usr/bin:/bin" } }, async (shell) => {
      const input = { command: 'cat; echo "A=${A-unset}"', stdin: "leaked", env: { A: "leaked" } } as BashToolInput;
      const result = await shell.run(shell.resolve(bashTool.toRequest(input, { owner: OWNER })));
      assert.equal(bashTool.render(result), "A=unset");
    });
  });

  it("refuses a context without an owner: a harness mistake, not the model's", async () => {
    const noOwner = {} as BashToolContext;
    // A TypeError as before, now of the error family, naming the field.
    assertArgumentError(thrown(() => bashTool.toRequest({ command: "ls" }, noOwner)), "owner", /^owner: is required/);
    await withSpiedShell({}, async (shell, _dir, calls) => {
      assertArgumentError(
        await rejection(runBashTool(shell, { command: "ls" }, noOwner)),
        "owner",
        /^owner: is required/,
      );
      assert.deepEqual(calls, []);
    });
  });
});

describe("the harness sees the output as it arrives", () => {
  it("onStdout gets the first line while the command still runs; the model still gets the rendered result", async () => {
    await withSpiedShell({}, async (shell) => {
      const controller = new AbortController();
      const seen: string[] = [];
      const decoder = new TextDecoder();
      let firstLine!: () => void;
      const first = new Promise<void>((resolve) => firstLine = resolve);
      let settled = false;
      // Both lines were written before the sleep; each arrives on its own pipe, in either order.
      const bothSeen = (): boolean => {
        const text = seen.join("");
        return text.includes("first\n") && text.includes("[err]oops\n");
      };
      const call = executeBashTool(shell, { command: "echo first; echo oops >&2; sleep 30; echo never" }, {
        owner: "alice",
        signal: controller.signal,
        onStdout: (chunk) => {
          seen.push(decoder.decode(chunk));
          if (bothSeen()) firstLine();
        },
        onStderr: (chunk) => {
          seen.push(`[err]${decoder.decode(chunk)}`);
          if (bothSeen()) firstLine();
        },
      }).finally(() => settled = true);
      // Without the listener wired, the call would settle (after the sleep) with no output seen.
      await Promise.race([first, call.then(() => assert.fail(`settled before any output was seen: ${seen}`))]);
      // The command is in its 30 s sleep: the call cannot have settled.
      assert.equal(settled, false);
      controller.abort();
      const outcome = await call;
      assert.equal(outcome.isError, true);
      assert.match(outcome.text, /^first\n/);
      assert.ok(seen.some((part) => part.startsWith("[err]") && part.includes("oops")), JSON.stringify(seen));
      assert.ok(!seen.join("").includes("never"));
    });
  });

  it("refuses a listener that is not a function, naming it: the harness's mistake", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      const context = { owner: null, onStdout: "print" } as unknown as BashToolContext;
      const error = await rejection(executeBashTool(shell, { command: "true" }, context));
      assertArgumentError(error, "onStdout", /^onStdout: must be a function or absent$/);
      assert.deepEqual(calls, []);
    });
  });
});

describe("what the model sees", () => {
  it("stdout only", async () => {
    await withSpiedShell({}, async (shell) => {
      assert.equal(await runBashTool(shell, { command: "echo hello" }, { owner: OWNER }), "hello");
      assert.equal(await runBashTool(shell, { command: "printf 'a\\nb'" }, { owner: OWNER }), "a\nb");
    });
  });

  it("stderr under [stderr], on its own line even when stdout has no final newline", async () => {
    await withSpiedShell({}, async (shell) => {
      const both = await runBashTool(shell, { command: "printf out; printf err >&2" }, { owner: OWNER });
      assert.equal(both, "out\n[stderr]\nerr");
      const errOnly = await runBashTool(shell, { command: "echo oops >&2" }, { owner: OWNER });
      assert.equal(errOnly, "[stderr]\noops");
    });
  });

  it("(no output)", async () => {
    await withSpiedShell({}, async (shell) => {
      assert.equal(await runBashTool(shell, { command: "true" }, { owner: OWNER }), "(no output)");
      assert.equal(await runBashTool(shell, { command: "echo" }, { owner: OWNER }), "(no output)");
    });
  });

  it("a nonzero exit code, and none for 0", async () => {
    await withSpiedShell({}, async (shell) => {
      assert.equal(await runBashTool(shell, { command: "exit 3" }, { owner: OWNER }), "(no output)\n[exit code: 3]");
      const mixed = await runBashTool(shell, { command: "echo out; echo err >&2; exit 3" }, { owner: OWNER });
      assert.equal(mixed, "out\n[stderr]\nerr\n[exit code: 3]");
      assert.equal(await runBashTool(shell, { command: "echo ok; exit 0" }, { owner: OWNER }), "ok");
    });
  });

  it("truncation with the spill path", async () => {
    await withSpiedShell({ maxOutputBytes: 1_000 }, async (shell) => {
      const expected = seqText(1, 3_000);
      const text = await runBashTool(shell, { command: "seq 1 3000; exit 4" }, { owner: OWNER });
      const lines = text.split("\n");
      assert.equal(lines[0], "1", "the head is kept");
      assert.ok(lines.includes("3000"), "the tail is kept");
      assert.equal(lines.at(-1), "[exit code: 4]");
      const note = /^\[stdout truncated: (\d+) bytes in all; full output: (\/.+)\]$/.exec(lines.at(-2) ?? "");
      assert.ok(note, `a truncation note before the exit code: ${lines.at(-2)}`);
      assert.equal(Number(note[1]), expected.length);
      assert.equal(readFileSync(note[2], "utf8"), expected, "the spill file holds the complete stream");

      const onStderr = await runBashTool(shell, { command: "seq 1 3000 >&2" }, { owner: OWNER });
      const errLines = onStderr.split("\n");
      assert.equal(errLines[0], "[stderr]");
      const errNote = /^\[stderr truncated: (\d+) bytes in all; full output: (\/.+)\]$/.exec(errLines.at(-1) ?? "");
      assert.ok(errNote, `a stderr truncation note last: ${errLines.at(-1)}`);
      assert.equal(readFileSync(errNote[2], "utf8"), expected);
    });
  });

  it("truncation without a spill file says the full output is unavailable", async () => {
    await withSpiedShell({ maxOutputBytes: 1_000, maxSpillBytes: 2_000 }, async (shell) => {
      const text = await runBashTool(shell, { command: "seq 1 3000" }, { owner: OWNER });
      const last = text.split("\n").at(-1);
      assert.equal(last, `[stdout truncated: ${seqText(1, 3_000).length} bytes in all; full output unavailable]`);
    });
  });

  it("a timeout, and the signal that ended the command", async () => {
    await withSpiedShell({}, async (shell) => {
      const text = await runBashTool(shell, { command: "echo started; sleep 30", timeout: 200 }, { owner: OWNER });
      const lines = text.split("\n");
      assert.equal(lines.length, 3, text);
      assert.equal(lines[0], "started");
      assert.equal(lines[1], "[timed out after 200ms]");
      assert.match(lines[2], /^\[killed by signal: SIG(TERM|KILL)\]$/);
    });
  });

  it("an abort", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const ready = join(dir, "ready");
      const turn = new AbortController();
      const pending = runBashTool(shell, { command: `touch ${shQuote(ready)}; sleep 30` }, {
        owner: OWNER,
        signal: turn.signal,
      });
      assert.ok(await appeared(ready, POLL_MS), "the command started");
      turn.abort();
      const lines = (await pending).split("\n");
      assert.equal(lines.length, 3, lines.join("\n"));
      assert.equal(lines[0], "(no output)");
      assert.equal(lines[1], "[aborted]");
      assert.match(lines[2], /^\[killed by signal: SIG(TERM|KILL)\]$/);
    });
  });

  it("death by a signal the command sent itself", async () => {
    await withSpiedShell({}, async (shell) => {
      const text = await runBashTool(shell, { command: "echo before; kill -TERM $$" }, { owner: OWNER });
      assert.equal(text, "before\n[killed by signal: SIGTERM]");
    });
  });

  it("every line at once, in order", () => {
    const text = bashTool.render(quietResult({
      exitCode: 7,
      signal: "SIGKILL",
      timedOut: true,
      aborted: true,
      timeoutMs: 250,
      stdout: {
        text: "head\n[... 10 bytes omitted; full output: /s/out]\ntail",
        truncated: true,
        totalBytes: 20,
        spillPath: "/s/out",
      },
      stderr: {
        text: "e1\n[... 5 bytes omitted; full output unavailable (over maxSpillBytes)]\ne2\n",
        truncated: true,
        totalBytes: 12,
      },
    }));
    assert.deepEqual(text.split("\n"), [
      "head",
      "[... 10 bytes omitted; full output: /s/out]",
      "tail",
      "[stderr]",
      "e1",
      "[... 5 bytes omitted; full output unavailable (over maxSpillBytes)]",
      "e2",
      "[stdout truncated: 20 bytes in all; full output: /s/out]",
      "[stderr truncated: 12 bytes in all; full output unavailable]",
      "[timed out after 250ms]",
      "[aborted]",
      "[killed by signal: SIGKILL]",
      "[exit code: 7]",
    ]);
  });

  it("keeps inner blank lines and drops only one final newline", () => {
    const text = bashTool.render(quietResult({
      stdout: { text: "a\n\nb\n\n", truncated: false, totalBytes: 6 },
    }));
    assert.equal(text, "a\n\nb\n");
  });
});

describe("background tasks", () => {
  it("start a task of the shell, visible to its owner, readable after done", async () => {
    await withSpiedShell({}, async (shell) => {
      const text = await runBashTool(shell, {
        command: "echo bg-out; echo bg-err >&2",
        run_in_background: true,
      }, { owner: OWNER });
      const [first, ...rest] = text.split("\n");
      assert.deepEqual(rest, [
        "No timeout applies. Read its output with bash_output and stop it with kill_shell, giving this id as task_id.",
      ]);
      const match = /^started background task (\S+)$/.exec(first);
      assert.ok(match, `first line: ${first}`);
      const id = match[1];
      const task = shell.task(id, OWNER);
      assert.equal(task.id, id);
      assert.equal(task.owner, OWNER);
      assert.deepEqual(shell.tasks(OWNER).map((t) => t.id), [id]);
      assert.ok(thrown(() => shell.task(id, "session-2")) instanceof TaskAccessError, "another owner cannot see it");
      const result = await task.done;
      assert.equal(result.exitCode, 0);
      assert.equal(task.status, "completed");
      const output = shell.task(id, OWNER).read();
      assert.equal(output.stdout, "bg-out\n");
      assert.equal(output.stderr, "bg-err\n");
    });
  });

  it("get no timeout but do get the signal", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const ready = join(dir, "ready");
      const turn = new AbortController();
      const text = await runBashTool(shell, {
        command: `touch ${shQuote(ready)}; sleep 30`,
        timeout: 1,
        run_in_background: true,
      }, { owner: OWNER, signal: turn.signal });
      const id = /^started background task (\S+)$/.exec(text.split("\n")[0])?.[1] ?? assert.fail(text);
      const task = shell.task(id, OWNER);
      assert.ok(await appeared(ready, POLL_MS), "the task started");
      assert.equal(task.status, "running", "a 1 ms timeout did not apply to the task");
      turn.abort();
      const result = await task.done;
      assert.equal(result.aborted, true);
      assert.equal(task.status, "killed");
    });
  });

  it("over maxTasksPerOwner come back as [error] text", async () => {
    await withSpiedShell({ maxTasksPerOwner: 1 }, async (shell) => {
      const first = await runBashTool(shell, { command: "sleep 30", run_in_background: true }, { owner: OWNER });
      assert.match(first, /^started background task /);
      const second = await runBashTool(shell, { command: "sleep 30", run_in_background: true }, { owner: OWNER });
      assert.match(second, /^\[error\] .*maxTasksPerOwner/);
      assert.equal(shell.tasks(OWNER).length, 1);
    });
  });
});

describe("errors", () => {
  it("a missing workdir comes back as text naming the path, foreground and background", async () => {
    await withSpiedShell({}, async (shell, dir) => {
      const missing = join(dir, "no-such-dir");
      for (const run_in_background of [false, true]) {
        const text = await runBashTool(shell, { command: "pwd", workdir: missing, run_in_background }, {
          owner: OWNER,
        });
        assert.ok(text.startsWith("[error] "), text);
        assert.ok(text.includes(missing), `${text} names ${missing}`);
        assert.equal(text.split("\n").length, 1);
      }
    });
  });

  it("a spec the shell refuses comes back as text naming the field, and nothing runs", async () => {
    await withSpiedShell({}, async (shell, _dir, calls) => {
      const text = await runBashTool(shell, { command: "pwd", workdir: "a\0b" }, { owner: OWNER });
      assert.match(text, /^\[error\] workdir: /);
      assert.deepEqual(calls, ["resolve"]);
    });
  });

  it("a closed shell rejects with ShellClosedError", async () => {
    await withSpiedShell({}, async (shell) => {
      await shell.close();
      for (const run_in_background of [false, true]) {
        const error = await rejection(runBashTool(shell, { command: "true", run_in_background }, { owner: OWNER }));
        assert.ok(error instanceof ShellClosedError, String(error));
      }
    });
  });

  it("an already-aborted signal rejects with its reason, and nothing is spawned", async () => {
    await withSpiedShell({}, async (shell, dir, calls) => {
      const marker = join(dir, "ran");
      const reason = new Error("turn cancelled");
      const turn = new AbortController();
      turn.abort(reason);
      for (const run_in_background of [false, true]) {
        const input = { command: `touch ${shQuote(marker)}`, run_in_background };
        assert.equal(await rejection(runBashTool(shell, input, { owner: OWNER, signal: turn.signal })), reason);
      }
      assert.deepEqual(calls, []);
      await shell.close();
      assert.equal(existsSync(marker), false);
    });
  });
});
