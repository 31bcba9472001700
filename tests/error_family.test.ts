/**
 * The one error family: every error class of the library is a `ShellError`
 * with its own stable `code` and `name`, `isShellError` recognises them also
 * when they come from another copy of the library (where `instanceof`
 * fails), and nothing else passes for one.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createLocalShell,
  isShellError,
  ShellClosedError,
  ShellEngineError,
  ShellError,
  ShellSandboxError,
  ShellSpawnError,
  ShellSpecError,
  TaskAccessError,
  TaskLimitError,
} from "../mod.ts";
import { ShellArgumentError } from "../src/seam/errors.ts";
import { aiSdkFileTools, aiSdkTools } from "../src/frameworks/ai.ts";
import { openAIAgentsTools } from "../src/frameworks/openai_agents.ts";
import { HookSettingsError } from "../src/hooks/mod.ts";
import { ToolInputError } from "../src/tool/mod.ts";
import { IS_DENO } from "./helpers/runtime.ts";

/** One instance of every class, with the code and name it must carry. */
const MEMBERS: [Error, string, string][] = [
  [new ShellSpecError("timeoutMs", "must be positive"), "ERR_SHELL_SPEC", "ShellSpecError"],
  [new ShellSpawnError("cannot start /bin/nope", "/bin/nope"), "ERR_SHELL_SPAWN", "ShellSpawnError"],
  [new ShellClosedError(), "ERR_SHELL_CLOSED", "ShellClosedError"],
  [new TaskAccessError("t1"), "ERR_TASK_ACCESS", "TaskAccessError"],
  [new TaskLimitError("alice", 2), "ERR_TASK_LIMIT", "TaskLimitError"],
  [new ShellSandboxError("no bubblewrap"), "ERR_SHELL_SANDBOX", "ShellSandboxError"],
  [new ShellEngineError("ssh", "agent@host", "lost"), "ERR_SHELL_ENGINE", "ShellEngineError"],
  [new HookSettingsError("hooks.PreToolUse[0]", "must be an object"), "ERR_HOOK_SETTINGS", "HookSettingsError"],
  [new ToolInputError("timeout", "timeout: must be a number"), "ERR_TOOL_INPUT", "ToolInputError"],
];

describe("one error family", () => {
  it("every class is a ShellError with its own stable code and name", () => {
    const codes = new Set<string>();
    for (const [error, code, name] of MEMBERS) {
      assert.ok(error instanceof ShellError, `${name} is a ShellError`);
      assert.ok(error instanceof Error);
      assert.ok(isShellError(error), `isShellError(${name})`);
      assert.equal((error as ShellError).code, code);
      assert.equal(error.name, name);
      codes.add(code);
    }
    assert.equal(codes.size, MEMBERS.length, "one code per class");
  });

  it("errors the library throws carry their code", async () => {
    const shell = createLocalShell();
    const spec = shell.resolve({ command: "pwd", owner: null, workdir: "/nonexistent-dsh-dir" });
    const spawnFailure = await shell.run(spec).catch((error: unknown) => error);
    assert.ok(isShellError(spawnFailure) && spawnFailure.code === "ERR_SHELL_SPAWN", String(spawnFailure));
    await shell.close();
    const closed = await shell.exec("true").catch((error: unknown) => error);
    assert.ok(isShellError(closed) && closed.code === "ERR_SHELL_CLOSED", String(closed));
  });

  it("isShellError recognises an error from another copy of the library, where instanceof fails", async () => {
    // The same module loaded a second time under another URL: a second copy, with classes of its own.
    const source = IS_DENO ? "../src/seam/errors.ts" : "../esm/src/seam/errors.js";
    const copy = await import(`${new URL(source, import.meta.url).href}?second-copy`);
    assert.notEqual(copy.ShellSpecError, ShellSpecError, "not a second copy");
    const foreign: unknown = new copy.ShellSpecError("env", "must be an object");
    assert.equal(foreign instanceof ShellError, false);
    assert.ok(isShellError(foreign));
    assert.equal(foreign.code, "ERR_SHELL_SPEC");
    assert.ok(copy.isShellError(new ShellClosedError()), "and the other copy recognises ours");
  });

  it("the member that is a TypeError: instanceof TypeError and ShellError, named TypeError, with its own code", () => {
    const error: unknown = new ShellArgumentError("listener", "must be a function");
    assert.ok(error instanceof TypeError);
    assert.ok(error instanceof ShellError, "instanceof ShellError holds for it");
    assert.ok(isShellError(error));
    assert.equal(error.code, "ERR_SHELL_ARGUMENT");
    assert.equal(String(error), "TypeError: listener: must be a function");
    assert.equal((error as ShellArgumentError).field, "listener");
    // instanceof a subclass is exact still: neither it nor another member passes for another class.
    assert.equal(error instanceof ShellSpecError, false);
    assert.equal(new ShellSpawnError("x") instanceof ShellSpecError, false);
    assert.equal(new TypeError("plain") instanceof ShellError, false);
    assert.equal(new Error("plain") instanceof ShellError, false);
    assert.equal(Object.create(null) instanceof ShellError, false);
    assert.equal((42 as unknown) instanceof ShellError, false);
  });

  it("what the library throws for an argument of the wrong type is that member: the TypeError callers knew", async () => {
    const shell = createLocalShell();
    try {
      const thrown: unknown[] = [];
      const attempt = (call: () => unknown): void => {
        try {
          call();
          assert.fail("no throw");
        } catch (error) {
          thrown.push(error);
        }
      };
      attempt(() => shell.events.subscribe("not a function" as never));
      attempt(() => aiSdkTools(shell, {} as { owner: string }));
      attempt(() => aiSdkTools(shell, { owner: "x", stream: "yes" as unknown as boolean }));
      attempt(() => openAIAgentsTools(shell, {} as { owner: string }));
      attempt(() => aiSdkFileTools(shell, {} as { owner: null }));
      for (const error of thrown) {
        assert.ok(error instanceof TypeError && error instanceof ShellError, String(error));
        assert.equal(error.code, "ERR_SHELL_ARGUMENT");
      }
      assert.deepEqual(thrown.map((error) => (error as ShellArgumentError).field), [
        "listener",
        "owner",
        "stream",
        "owner",
        "owner",
      ]);
    } finally {
      await shell.close();
    }
  });

  it("nothing else passes for one", () => {
    const lookalikes: unknown[] = [
      new Error("plain"),
      Object.assign(new Error("coded"), { code: "ERR_SHELL_SPEC", name: "ShellSpecError" }),
      { code: "ERR_SHELL_SPEC", name: "ShellSpecError", message: "x" },
      JSON.parse(JSON.stringify(new ShellSpecError("a", "b"))),
      null,
      undefined,
      "ShellSpecError",
      42,
    ];
    for (const value of lookalikes) assert.equal(isShellError(value), false, `${JSON.stringify(value)}`);
  });
});
