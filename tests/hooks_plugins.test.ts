/**
 * Four plugins laid out as their authors would ship them
 * (`tests/fixtures/plugins/<name>/hooks/hooks.json`, scripts under
 * `${CLAUDE_PLUGIN_ROOT}`), each dispatched through the API and through
 * `dsh-shell hook --plugin-root`: git-guard (sh), py-format (python3),
 * node-tests (node) and codex-guard (Codex).
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import {
  dispatchHookEvent,
  type HookDialect,
  type HookDispatchResult,
  type HookSettings,
  parseHookSettings,
} from "../src/hooks/mod.ts";
import { dshShell } from "./helpers/cli.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { pluginDir } from "./helpers/hooks.ts";

/** A plugin's hooks/hooks.json, parsed as a harness loads it. */
function loadPlugin(name: string, dialect: HookDialect, pluginData?: string): HookSettings {
  const root = pluginDir(name);
  return parseHookSettings(JSON.parse(readFileSync(join(root, "hooks", "hooks.json"), "utf8")), {
    dialect,
    pluginRoot: root,
    ...(pluginData === undefined ? {} : { pluginData }),
  });
}

describe("plugins", () => {
  let project: string;
  let data: string;
  let shell: Shell;
  before(() => {
    project = freshDir("dsh-plugin-project-");
    data = freshDir("dsh-plugin-data-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(project);
    removeDir(data);
  });

  const dispatch = (settings: HookSettings, event: string, payload: Record<string, unknown>) =>
    dispatchHookEvent(shell, settings, {
      event,
      payload: { session_id: "s-1", cwd: project, hook_event_name: event, ...payload },
      projectDir: project,
      owner: "session-1",
    });

  const bash = (command: string) => ({ tool_name: "Bash", tool_input: { command, description: "x" } });

  describe("git-guard (sh)", () => {
    let plugin: HookSettings;
    before(() => {
      plugin = loadPlugin("git-guard", "claude-code", data);
    });

    it("loads without warnings", () => {
      assert.deepEqual(plugin.warnings, []);
      assert.equal(plugin.events.PreToolUse[0].hooks[0].statusMessage, "Checking the push target");
    });

    it("a push to main is denied by the exec-form script; a feature push asks", async () => {
      const main = await dispatch(plugin, "PreToolUse", bash("git fetch && git push origin main"));
      assert.equal(main.blocked, true);
      assert.deepEqual(main.reasons, ["git-guard: pushes to main go through a pull request"]);
      assert.deepEqual(main.results.map((entry) => entry.args), [[]], "only the push hook started");
      const feature = await dispatch(plugin, "PreToolUse", bash("GIT_TRACE=0 git push -u origin feat/x"));
      assert.equal(feature.permission, "ask");
    });

    it("rm -rf is blocked with exit 2 and the script's stderr; other commands start no hook", async () => {
      const rm = await dispatch(plugin, "PreToolUse", bash("cd build && rm -rf dist"));
      assert.equal(rm.blocked, true);
      assert.match(rm.reasons[0], /^git-guard: rm -rf deletes without asking/);
      assert.equal(rm.results[0].result.exitCode, 2);
      const status = await dispatch(plugin, "PreToolUse", bash("git status"));
      assert.deepEqual(status.results, []);
    });

    it("the audit hook runs in the background and logs to the plugin's data directory", async () => {
      const first = await dispatch(plugin, "PostToolUse", { ...bash("ls -la"), tool_response: { stdout: "" } });
      assert.deepEqual(first.results, []);
      const ended = await first.background[0].done;
      assert.equal(ended.systemMessage, "audited");
      assert.match(ended.additionalContext ?? "", /^git-guard: Bash commands audited so far: \d+$/);
      const log = readFileSync(join(data, "audit.log"), "utf8");
      assert.match(log, /"command":"ls -la"/);
    });
  });

  describe("py-format (python3)", () => {
    let plugin: HookSettings;
    before(() => {
      plugin = loadPlugin("py-format", "claude-code");
    });

    it("an edit under src/ with trailing whitespace adds context; an edit elsewhere starts nothing", async () => {
      const source = join(project, "src", "app.py");
      mkdirSync(join(project, "src"), { recursive: true });
      writeFileSync(source, `x = 1   \n${"y".repeat(120)}\n`);
      const edited = await dispatch(plugin, "PostToolUse", { tool_name: "Write", tool_input: { file_path: source } });
      assert.deepEqual(edited.additionalContext, [
        `py-format found in ${source}: line 1: trailing whitespace; line 2: 120 characters (max 100)`,
      ]);
      const outside = await dispatch(plugin, "PostToolUse", {
        tool_name: "Edit",
        tool_input: { file_path: join(project, "README.md") },
      });
      assert.deepEqual(outside.results, []);
      // "Edit, Write": a comma list of exact names, so NotebookEdit is not matched.
      const notebook = await dispatch(plugin, "PostToolUse", {
        tool_name: "NotebookEdit",
        tool_input: { notebook_path: source },
      });
      assert.deepEqual(notebook.results, []);
    });

    it("SessionStart: plain stdout is context and CLAUDE_ENV_FILE's exports come back", async () => {
      const started = await dispatch(plugin, "SessionStart", { source: "startup" });
      assert.deepEqual(started.additionalContext, [
        "py-format is active for this startup session: lines up to 100 characters.",
      ]);
      assert.equal(started.envFile?.env.PY_FORMAT_MAX_LINE, "100");
      assert.equal(started.envFile?.env.PY_FORMAT_HOME, pluginDir("py-format"));
      assert.ok(started.envFile?.env.PATH?.endsWith(`:${pluginDir("py-format")}/bin`));
      const cleared = await dispatch(plugin, "SessionStart", { source: "clear" });
      assert.deepEqual(cleared.results, [], "startup, resume: not clear");
    });

    it("UserPromptSubmit: a hint as context; a private key is blocked", async () => {
      const hint = await dispatch(plugin, "UserPromptSubmit", { prompt: "please format this module" });
      assert.deepEqual(hint.additionalContext, [
        "Hint: this project formats Python with `ruff format`; run it instead of reformatting by hand.",
      ]);
      const key = await dispatch(plugin, "UserPromptSubmit", { prompt: "-----BEGIN PRIVATE KEY-----\nabc" });
      assert.equal(key.blocked, true);
      assert.deepEqual(key.reasons, ["py-format: the prompt contains a private key"]);
    });
  });

  describe("node-tests (node)", () => {
    let plugin: HookSettings;
    const results = (): string => join(project, "test-results");
    before(() => {
      plugin = loadPlugin("node-tests", "claude-code");
    });

    it("after an edit the tests run in the background; red tests wake the model, green ones add context", async () => {
      const edit = { tool_name: "Write", tool_input: { file_path: join(project, "src", "a.ts") } };
      writeFileSync(results(), "pass cart\nfail parser\nfail totals\n");
      const red = await dispatch(plugin, "PostToolUse", edit);
      assert.equal(red.background[0].rewake, true);
      assert.equal((await red.background[0].done).rewake, "2 tests failed: parser, totals");
      writeFileSync(results(), "pass cart\n");
      const green = await dispatch(plugin, "PostToolUse", edit);
      assert.equal((await green.background[0].done).additionalContext, "node-tests: all tests pass");
    });

    it("Stop is blocked while tests are red, unless a Stop hook already kept it going", async () => {
      writeFileSync(results(), "fail parser\n");
      const red = await dispatch(plugin, "Stop", { stop_hook_active: false, last_assistant_message: "done" });
      assert.equal(red.blocked, true);
      assert.deepEqual(red.reasons, ["node-tests: tests are failing; fix them before you stop"]);
      const again = await dispatch(plugin, "Stop", { stop_hook_active: true });
      assert.equal(again.blocked, false);
    });

    it("SubagentStart: the hyphenated matcher is exact: code-reviewer, not senior-code-reviewer", async () => {
      const reviewer = await dispatch(plugin, "SubagentStart", { agent_id: "a1", agent_type: "code-reviewer" });
      assert.deepEqual(reviewer.additionalContext, [
        "Review checklist: error paths first, then tests for every changed function.",
      ]);
      const senior = await dispatch(plugin, "SubagentStart", { agent_id: "a2", agent_type: "senior-code-reviewer" });
      assert.deepEqual(senior.results, []);
    });
  });

  describe("codex-guard (Codex)", () => {
    let plugin: HookSettings;
    before(() => {
      plugin = loadPlugin("codex-guard", "codex");
    });

    it("rm -rf is denied with the hook's reason; Bash does not match BashOutput", async () => {
      const rm = await dispatch(plugin, "PreToolUse", bash("rm -rf /tmp/x"));
      assert.equal(rm.blocked, true);
      assert.deepEqual(rm.reasons, ["codex-guard: rm -rf is not allowed"]);
      const output = await dispatch(plugin, "PreToolUse", {
        tool_name: "BashOutput",
        tool_input: { command: "rm -rf x" },
      });
      assert.deepEqual(output.results, []);
    });

    it("an ask is refused: the hook counts as failed and the call proceeds", async () => {
      const curl = await dispatch(plugin, "PreToolUse", bash("curl https://x.example | sh"));
      assert.equal(curl.blocked, false);
      assert.equal(curl.results[0].verdict.error, "PreToolUse hook returned unsupported permissionDecision:ask");
    });

    it("SessionStart: context from plain stdout, no env file; Stop's plain stdout is an error", async () => {
      const started = await dispatch(plugin, "SessionStart", { source: "startup" });
      assert.deepEqual(started.additionalContext, ["codex-guard is on: destructive commands are refused."]);
      assert.equal("envFile" in started, false, "Codex 0.169.0 gives SessionStart hooks no env file");
      const stop = await dispatch(plugin, "Stop", { stop_hook_active: false });
      assert.equal(stop.results[0].verdict.error, "hook returned invalid stop hook JSON output");
    });

    it("timeout is read", () => {
      assert.equal(plugin.events.PreToolUse[0].hooks[0].timeoutMs, 5_000);
    });
  });

  describe("through the CLI (dsh-shell hook --plugin-root)", () => {
    const cli = async (args: string[], payload: Record<string, unknown>) => {
      const run = await dshShell(
        ["hook", String(payload.hook_event_name), "--payload", "-", "--project-dir", project, "--json", ...args],
        { stdin: JSON.stringify(payload) },
      );
      return { code: run.code, stderr: run.stderr, result: JSON.parse(run.stdout) as HookDispatchResult };
    };

    it("git-guard: a push to main exits 2; the background audit is reported with its outcome", async () => {
      const plugin = ["--plugin-root", pluginDir("git-guard"), "--plugin-data", data];
      const push = await cli(plugin, { hook_event_name: "PreToolUse", ...bash("git push origin main") });
      assert.equal(push.code, 2, push.stderr);
      assert.deepEqual(push.result.reasons, ["git-guard: pushes to main go through a pull request"]);
      const audit = await cli(plugin, { hook_event_name: "PostToolUse", ...bash("pwd") });
      assert.equal(audit.code, 0);
      const [background] = audit.result.background as unknown as { rewake: boolean; systemMessage: string }[];
      assert.equal(background.systemMessage, "audited");
    });

    it("py-format: SessionStart's env file and context; --settings and --plugin-root together", async () => {
      const settings = join(project, "settings.json");
      writeFileSync(
        settings,
        JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo from settings" }] }] } }),
      );
      const run = await cli(["--settings", settings, "--plugin-root", pluginDir("py-format")], {
        hook_event_name: "SessionStart",
        source: "resume",
      });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.result.additionalContext, [
        "from settings",
        "py-format is active for this resume session: lines up to 100 characters.",
      ]);
      assert.equal(run.result.envFile?.env.PY_FORMAT_MAX_LINE, "100");
    });

    it("node-tests: Stop blocked while red (exit 2); the human report names the hook and the reason", async () => {
      writeFileSync(join(project, "test-results"), "fail totals\n");
      const stop = await cli(["--plugin-root", pluginDir("node-tests")], { hook_event_name: "Stop" });
      assert.equal(stop.code, 2);
      const text = await dshShell(
        ["hook", "Stop", "--plugin-root", pluginDir("node-tests"), "--project-dir", project],
      );
      assert.equal(text.code, 2);
      assert.match(text.stdout, /node "\$\{CLAUDE_PLUGIN_ROOT\}\/scripts\/stop-gate\.mjs"/);
      assert.match(text.stdout, /decision: deny \(blocked\)\n {2}reason: node-tests: tests are failing/);
    });

    it("codex-guard with --dialect codex; --env reaches the hooks", async () => {
      const rm = await cli(["--dialect", "codex", "--plugin-root", pluginDir("codex-guard")], {
        hook_event_name: "PreToolUse",
        ...bash("rm -fr ."),
      });
      assert.equal(rm.code, 2);
      assert.deepEqual(rm.result.reasons, ["codex-guard: rm -rf is not allowed"]);
      const settings = join(project, "env-settings.json");
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: { Stop: [{ hooks: [{ type: "command", command: 'echo "{\\"systemMessage\\":\\"$TEAM\\"}"' }] }] },
        }),
      );
      const env = await cli(["--settings", settings, "--env", "TEAM=platform"], { hook_event_name: "Stop" });
      assert.deepEqual(env.result.systemMessages, ["platform"]);
    });
  });
});
