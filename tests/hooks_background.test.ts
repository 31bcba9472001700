/**
 * Background hooks (`async`, `asyncRewake`): they never hold up the event
 * or decide it; each reports through its `done` promise when it ends, read
 * as Claude Code and as Codex deliver it. The hooks here wait for a file
 * the test creates only after the dispatch has returned: had the dispatch
 * waited for them, it would never have returned.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookDialect } from "../src/hooks/mod.ts";
import { shQuote, untilFileExists } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { answer, settingsWith } from "./helpers/hooks.ts";

const PAYLOAD = { hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "/x/a.ts" } };
const CONTEXT = { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "tests passed" } };

describe("background hooks", () => {
  let dir: string;
  let shell: Shell;
  let counter = 0;
  before(() => {
    dir = freshDir("dsh-background-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  /** A file the test creates to let a background hook go on. */
  const gate = (): string => join(dir, `gate-${++counter}`);

  const dispatch = (
    dialect: HookDialect,
    entries: Record<string, unknown>[],
    extra: { signal?: AbortSignal; backgroundSignal?: AbortSignal } = {},
  ) =>
    dispatchHookEvent(shell, settingsWith("PostToolUse", entries, dialect), {
      event: "PostToolUse",
      payload: PAYLOAD,
      projectDir: dir,
      owner: null,
      ...extra,
    });

  it("the event does not wait for them; done resolves with the answer's context and message", async () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      const open = gate();
      const message = { ...CONTEXT, ...(dialect === "claude-code" ? { systemMessage: "for the user" } : {}) };
      const result = await dispatch(dialect, [
        { command: `${untilFileExists(open)}; ${answer(message)}`, async: true },
        { command: "echo foreground" },
      ]);
      assert.deepEqual(result.results.map((entry) => entry.command), ["echo foreground"]);
      assert.equal(result.background.length, 1);
      assert.equal(result.background[0].rewake, false);
      writeFileSync(open, "");
      const ended = await result.background[0].done;
      assert.equal(ended.result.outcome, "success", dialect);
      assert.equal(ended.additionalContext, "tests passed", dialect);
      if (dialect === "claude-code") assert.equal(ended.systemMessage, "for the user");
    }
  });

  it("they never decide: a deny, a continue: false or an exit 2 has no effect on the event", async () => {
    const deny = { decision: "block", reason: "too late", continue: false };
    const result = await dispatch("claude-code", [
      { command: answer(deny), async: true },
      { command: "echo nope >&2; exit 2", async: true },
    ]);
    assert.equal(result.blocked, false);
    assert.equal("stop" in result, false);
    assert.deepEqual(result.reasons, []);
    const ended = await Promise.all(result.background.map((run) => run.done));
    assert.deepEqual(ended.map((end) => end.result.exitCode), [0, 2]);
  });

  it("asyncRewake: exit 2 wakes the model with stderr, or stdout when stderr is empty (node, python3)", async () => {
    const result = await dispatch("claude-code", [
      {
        command: "node",
        args: ["-e", `process.stderr.write("2 tests failed\\n"); process.exit(2)`],
        async: true,
        asyncRewake: true,
      },
      {
        command: "python3",
        args: ["-c", "import sys; print('build broke'); sys.exit(2)"],
        async: true,
        asyncRewake: true,
      },
      { command: answer(CONTEXT), async: true, asyncRewake: true },
    ]);
    assert.deepEqual(result.background.map((run) => run.rewake), [true, true, true]);
    const ended = await Promise.all(result.background.map((run) => run.done));
    assert.deepEqual(ended.map((end) => end.rewake), ["2 tests failed", "build broke", undefined]);
    assert.equal(ended[2].additionalContext, "tests passed");
  });

  it("asyncRewake without async runs in the foreground, where exit 2 decides; codex never rewakes", async () => {
    // Measured: Claude Code 2.1.328 and Codex 0.169.0 both block a PreToolUse call on such a hook's exit 2.
    for (const dialect of ["claude-code", "codex"] as const) {
      const settings = settingsWith(
        "PreToolUse",
        [{ command: "echo guard says no >&2; exit 2", asyncRewake: true }],
        dialect,
      );
      assert.ok(settings.warnings?.some((warning) => warning.field.endsWith("asyncRewake")), dialect);
      const result = await dispatchHookEvent(shell, settings, {
        event: "PreToolUse",
        payload: { ...PAYLOAD, hook_event_name: "PreToolUse" },
        projectDir: dir,
        owner: null,
      });
      assert.equal(result.blocked, true, dialect);
      assert.deepEqual(result.background, [], dialect);
    }
    const codex = await dispatch("codex", [{ command: "echo late >&2; exit 2", async: true, asyncRewake: true }]);
    assert.deepEqual(codex.background.map((run) => run.rewake), [false]);
    const ended = await codex.background[0].done;
    assert.equal(ended.rewake, undefined);
  });

  it("claude-code drops a wrong-typed field and keeps the rest (2.1.202)", async () => {
    const answerWithBadField = { systemMessage: 5, hookSpecificOutput: CONTEXT.hookSpecificOutput };
    const result = await dispatch("claude-code", [{ command: answer(answerWithBadField), async: true }]);
    const ended = await result.background[0].done;
    assert.equal(ended.additionalContext, "tests passed");
    assert.equal(ended.systemMessage, undefined);
  });

  it("codex: a failure, a nonzero exit or an answer that is not valid JSON becomes the text for the model", async () => {
    const result = await dispatch("codex", [
      { command: "exit 3", async: true },
      { command: "echo plain text", async: true },
      { command: answer({ ...CONTEXT, unknown: 1 }), async: true },
      { command: "sleep 5", async: true, timeout: 1 },
    ]);
    const ended = await Promise.all(result.background.map((run) => run.done));
    assert.deepEqual(ended.map((end) => end.error), [
      "Async hook exited with code 3",
      "Async PostToolUse hook returned invalid JSON output",
      "Async PostToolUse hook returned invalid JSON output",
      "Async hook failed to run: timed out after 1000ms",
    ]);
  });

  it("the event's signal does not stop them; backgroundSignal does", async () => {
    const event = new AbortController();
    const session = new AbortController();
    const open = gate();
    const result = await dispatch("claude-code", [
      { command: `${untilFileExists(open)}; echo survived`, async: true },
      { command: "sleep 30", async: true },
    ], { signal: event.signal, backgroundSignal: session.signal });
    event.abort();
    writeFileSync(open, "");
    const first = await result.background[0].done;
    assert.equal(first.result.stdout, "survived\n");
    session.abort();
    const second = await result.background[1].done;
    assert.equal(second.result.outcome, "non-blocking-error");
    assert.equal(second.result.reason, "aborted by the caller's signal");
  });

  it("each firing starts its own process; identical background hooks of one event run once (claude-code)", async () => {
    const log = join(dir, "fired");
    const entry = { command: `echo fired >> ${shQuote(log)}`, async: true };
    const first = await dispatch("claude-code", [entry, entry]);
    const second = await dispatch("claude-code", [entry]);
    assert.equal(first.background.length, 1);
    await Promise.all([...first.background, ...second.background].map((run) => run.done));
    assert.equal(readFileSync(log, "utf8"), "fired\nfired\n");
  });
});
