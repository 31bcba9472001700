/**
 * Exec form (`command` + `args`): the program runs without a shell, each
 * argument exactly as written, with the hook variables' `${NAME}`
 * placeholders substituted and nothing else; the hook variables are in its
 * environment as in shell form. Also the timeouts: the events' defaults,
 * SessionEnd's shared budget, Codex's `timeoutSec` and one-second minimum.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import {
  dispatchHookEvent,
  type HookDialect,
  HookSettingsError,
  parseHookSettings,
  runHook,
} from "../src/hooks/mod.ts";
import { planHooks } from "../src/hooks/plan/plan.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { settingsWith } from "./helpers/hooks.ts";

/** A python3 program that prints its argv (without the script) and the hook variables as JSON. */
const PRINT_ARGV = [
  "import json, os, sys",
  "names = ['CLAUDE_PROJECT_DIR', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_ROOT']",
  "print(json.dumps({'argv': sys.argv[1:], 'env': {n: os.environ.get(n) for n in names}, 'stdin': sys.stdin.read()}))",
].join("\n");

describe("exec form", () => {
  let dir: string;
  let plugin: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-exec-form-");
    plugin = join(dir, "plugin with spaces");
    mkdirSync(join(plugin, "scripts"), { recursive: true });
    writeFileSync(join(plugin, "scripts", "argv.py"), PRINT_ARGV);
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const dispatch = (dialect: HookDialect, entries: Record<string, unknown>[], event = "PreToolUse") =>
    dispatchHookEvent(
      shell,
      parseHookSettings({ hooks: { [event]: [{ hooks: entries.map((entry) => ({ type: "command", ...entry })) }] } }, {
        dialect,
        pluginRoot: plugin,
        pluginData: join(dir, "data"),
      }),
      { event, payload: { hook_event_name: event, tool_name: "Bash" }, projectDir: dir, owner: null },
    );

  it("each argument reaches the program as written; placeholders of the hook variables are substituted", async () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      const args = [
        "${CLAUDE_PLUGIN_ROOT}/scripts/argv.py",
        "it's a $HOME `date` *",
        "${CLAUDE_PROJECT_DIR}|${CLAUDE_PLUGIN_DATA}|${PLUGIN_ROOT}",
        "${HOME} $CLAUDE_PROJECT_DIR ${NOT_A_HOOK_VARIABLE}",
        "",
      ];
      const result = await dispatch(dialect, [{ command: "python3", args }]);
      const [entry] = result.results;
      assert.equal(entry.result.outcome, "success", entry.result.reason);
      assert.deepEqual(entry.args, args, "reported as written");
      const printed = JSON.parse(entry.result.stdout);
      // Codex 0.169.0 sets no CLAUDE_PROJECT_DIR, so the Codex dialect has no such hook variable to substitute.
      const projectDir = dialect === "codex" ? null : dir;
      assert.deepEqual(printed.argv, [
        "it's a $HOME `date` *",
        `${projectDir ?? "${CLAUDE_PROJECT_DIR}"}|${join(dir, "data")}|${plugin}`,
        "${HOME} $CLAUDE_PROJECT_DIR ${NOT_A_HOOK_VARIABLE}",
        "",
      ], dialect);
      assert.deepEqual(printed.env, {
        CLAUDE_PROJECT_DIR: projectDir,
        CLAUDE_PLUGIN_ROOT: plugin,
        CLAUDE_PLUGIN_DATA: join(dir, "data"),
        PLUGIN_ROOT: plugin,
      });
      assert.equal(JSON.parse(printed.stdin).tool_name, "Bash", "the payload on stdin");
    }
  });

  it("command is the program: a placeholder path with spaces needs no quoting; args: [] is exec form", async () => {
    const script = join(plugin, "scripts", "hello.sh");
    writeFileSync(script, '#!/bin/sh\necho "hello from $0 with $# arguments"\n', { mode: 0o755 });
    const result = await dispatch("claude-code", [{ command: "${CLAUDE_PLUGIN_ROOT}/scripts/hello.sh", args: [] }]);
    assert.equal(result.results[0].result.stdout, `hello from ${script} with 0 arguments\n`);
  });

  it("the caller's env is in the environment but never substituted into argv", async () => {
    const result = await runHook(shell, {
      command: "node",
      args: ["-e", "console.log(process.argv[1], process.env.API_TOKEN)", "${API_TOKEN}"],
      payload: {},
      dialect: "claude-code",
      projectDir: dir,
      owner: null,
      env: { API_TOKEN: "t-123" },
    });
    assert.equal(result.stdout, "${API_TOKEN} t-123\n");
  });

  it("a missing program is a non-blocking error naming it; a command with a space gets a warning", async () => {
    const settings = settingsWith("PreToolUse", [{ command: "node script.js", args: [] }]);
    assert.match(settings.warnings?.[0]?.message ?? "", /there is no executable named "node script\.js"/);
    const result = await dispatch("claude-code", [{ command: "no-such-program-dsh", args: ["x"] }]);
    assert.equal(result.results[0].result.outcome, "non-blocking-error");
    assert.match(result.results[0].result.reason ?? "", /cannot start the program "no-such-program-dsh": not found/);
  });

  it("codex has no exec form: a warning says so, and the bridge runs it in exec form", () => {
    const settings = settingsWith("PreToolUse", [{ command: "python3", args: ["x.py"] }], "codex");
    assert.equal(settings.warnings?.[0]?.field, "hooks.PreToolUse[0].hooks[0].args");
    assert.match(settings.warnings?.[0]?.message ?? "", /^Codex has no exec form/);
  });

  it("args must be an array of strings", () => {
    for (const [args, field] of [["x", "args"], [["ok", 5], "args[1]"]] as const) {
      assert.throws(() => settingsWith("Stop", [{ command: "true", args }]), (error: unknown) => {
        assert.ok(error instanceof HookSettingsError);
        assert.equal(error.field, `hooks.Stop[0].hooks[0].${field}`);
        return true;
      });
    }
  });
});

describe("timeouts", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-timeouts-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const planned = (dialect: HookDialect, event: string, entries: Record<string, unknown>[]) =>
    planHooks([settingsWith(event, entries, dialect)], { event, payload: {}, projectDir: dir }, []).map((plan) =>
      plan.timeoutMs
    );

  it("claude-code: UserPromptSubmit 30 s and MessageDisplay 10 s by default; a hook's own timeout wins", () => {
    assert.deepEqual(planned("claude-code", "UserPromptSubmit", [{ command: "a" }, { command: "b", timeout: 90 }]), [
      30_000,
      90_000,
    ]);
    assert.deepEqual(planned("claude-code", "MessageDisplay", [{ command: "a" }]), [10_000]);
    assert.deepEqual(planned("claude-code", "PreModelSwitch", [{ command: "a" }]), [30_000]);
    assert.deepEqual(planned("claude-code", "PostModelSwitch", [{ command: "a" }]), [30_000]);
    assert.deepEqual(planned("claude-code", "PreToolUse", [{ command: "a" }]), [undefined], "runHook's 600 s");
    assert.deepEqual(planned("codex", "UserPromptSubmit", [{ command: "a" }]), [undefined], "Codex: 600 s");
  });

  it("background: claude-code does not enforce an async hook's timeout, but does an asyncRewake one's; codex does both", () => {
    const entries = [
      { command: "a", async: true, timeout: 5 },
      { command: "b", async: true, asyncRewake: true, timeout: 5 },
    ];
    assert.deepEqual(planned("claude-code", "PostToolUse", entries), [undefined, 5_000], "undefined: runHook's 600 s");
    assert.deepEqual(planned("codex", "PostToolUse", entries), [5_000, 5_000]);
    assert.deepEqual(planned("claude-code", "UserPromptSubmit", [{ command: "a", async: true }]), [undefined]);
  });

  it("claude-code SessionEnd: a 1.5 s budget, raised by the settings' timeouts up to 60 s for their own hooks", async () => {
    assert.deepEqual(planned("claude-code", "SessionEnd", [{ command: "a" }, { command: "b", timeout: 1 }]), [
      1_500,
      1_000,
    ]);
    // Measured (Claude Code 2.1.328, conformance_events): a sibling's timeout does not lengthen a hook without one.
    assert.deepEqual(planned("claude-code", "SessionEnd", [{ command: "a" }, { command: "b", timeout: 5 }]), [
      1_500,
      5_000,
    ]);
    assert.deepEqual(planned("claude-code", "SessionEnd", [{ command: "a", timeout: 600 }]), [60_000]);
    // A plugin's timeout does not raise the budget.
    const plugin = parseHookSettings({
      hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "p", timeout: 9 }] }] },
    }, {
      dialect: "claude-code",
      pluginRoot: dir,
    });
    const plans = planHooks([plugin, settingsWith("SessionEnd", [{ command: "a" }])], {
      event: "SessionEnd",
      payload: {},
      projectDir: dir,
    }, []);
    assert.deepEqual(plans.map((plan) => plan.timeoutMs), [1_500, 1_500]);
    const result = await dispatchHookEvent(shell, settingsWith("SessionEnd", [{ command: "sleep 5" }]), {
      event: "SessionEnd",
      payload: { hook_event_name: "SessionEnd", reason: "other" },
      projectDir: dir,
      owner: null,
    });
    assert.equal(result.results[0].result.reason, "timed out after 1500ms");
  });

  it("codex 0.169.0: timeoutSec is ignored (with a warning), timeout wins over it, below one second means one", async () => {
    assert.deepEqual(planned("codex", "Stop", [{ command: "a", timeoutSec: 7 }, { command: "b", timeout: 0 }]), [
      undefined,
      1_000,
    ]);
    assert.deepEqual(planned("claude-code", "Stop", [{ command: "a", timeoutSec: 7 }]), [undefined], "not Claude's");
    // Both fields: the file loads (it used to be a HookSettingsError losing every hook in it) and timeout is used.
    const both = settingsWith("Stop", [{ command: "a", timeout: 3, timeoutSec: 1 }], "codex");
    assert.equal(both.events.Stop[0].hooks[0].timeoutMs, 3_000);
    assert.deepEqual(both.warnings?.map((warning) => warning.field), ["hooks.Stop[0].hooks[0].timeoutSec"]);
    // A guard with timeoutSec: 1 that answers after 1.5 s still blocks, as in Codex (it used to be killed at 1 s).
    const guard = `sleep 1.5; echo '{"decision":"block","reason":"late guard"}'`;
    const result = await dispatchHookEvent(
      shell,
      settingsWith("Stop", [{ command: guard, timeoutSec: 1 }], "codex"),
      {
        event: "Stop",
        payload: { hook_event_name: "Stop" },
        projectDir: dir,
        owner: null,
      },
    );
    assert.equal(result.results[0].result.timedOut, false);
    assert.equal(result.blocked, true);
    assert.deepEqual(result.reasons, ["late guard"]);
  });
});
