/**
 * One hook's run, `runHook`: stdin, the shell form, the environment and
 * the workdir a hook gets, the exit-code protocol and its JSON answer per
 * dialect, and that it never rejects; then what a result decides for an
 * event, `readHookVerdict`.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { createLocalShell, type Shell } from "../mod.ts";
import {
  HOOK_DEFAULTS,
  type HookResult,
  parseHookSettings,
  readHookVerdict,
  runHook,
  type RunHookOptions,
} from "../src/hooks/mod.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { parseEnvDump } from "./helpers/env_dump.ts";
import { writeScript } from "./helpers/files.ts";
import { withPollutedPrototype } from "./helpers/prototype.ts";

/** A GitHub-token-shaped value: scrubbed by its value, whatever its name. */
const GITHUB_TOKEN_VALUE = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;

const PAYLOAD = {
  session_id: "s-1",
  transcript_path: "/tmp/t.jsonl",
  cwd: "/tmp",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "echo héllo € ✓", description: "unicode on purpose" },
};

describe("runHook", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-hooks-");
    shell = createLocalShell({
      graceMs: 500,
      ambientEnv: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENAI_API_KEY: "sk-proj-not-a-real-key-0123456789",
        HARMLESS_LOOKING: GITHUB_TOKEN_VALUE,
        // A harness that itself runs under Claude Code inherits these; a hook must not.
        CLAUDE_PROJECT_DIR: "/ambient/project",
        CLAUDE_PLUGIN_ROOT: "/ambient/plugin",
        PLUGIN_DATA: "/ambient/plugin-data",
        CLAUDECODE: "ambient",
        CLAUDE_CODE_SESSION_ID: "ambient-session",
        CLAUDE_CODE_ENTRYPOINT: "ambient-entrypoint",
        CLAUDE_PID: "1",
      },
    });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const hook = (command: string, extra: Partial<RunHookOptions> = {}): Promise<HookResult> =>
    runHook(shell, {
      command,
      payload: PAYLOAD,
      dialect: "claude-code",
      projectDir: dir,
      owner: null,
      timeoutMs: 20_000,
      ...extra,
    });

  describe("stdin", () => {
    it("claude-code: the payload's JSON plus one newline, byte for byte", async () => {
      const file = join(dir, "stdin-claude");
      const result = await hook(`cat > ${shQuote(file)}`);
      assert.equal(result.outcome, "success");
      assert.deepEqual(readFileSync(file), Buffer.from(`${JSON.stringify(PAYLOAD)}\n`, "utf8"));
    });

    it("codex: the payload's JSON without a newline", async () => {
      const file = join(dir, "stdin-codex");
      const result = await hook(`cat > ${shQuote(file)}`, { dialect: "codex" });
      assert.equal(result.outcome, "success");
      assert.deepEqual(readFileSync(file), Buffer.from(JSON.stringify(PAYLOAD), "utf8"));
    });
  });

  describe("shell form", () => {
    // What the shell is, read from /proc by the command itself: not from $0 or $SHELL, which a shell can be told.
    const probe = "readlink /proc/$$/exe; [[ 1 == 1 ]] 2>/dev/null && echo bash || echo posix; echo -e 'x'";

    it("claude-code: /bin/sh -c, as Claude Code runs it (dash here: no [[ ]], echo -e prints -e)", async () => {
      const result = await hook(probe);
      const sh = realpathSync("/bin/sh");
      const dash = sh.endsWith("/dash");
      const lines = result.stdout.trimEnd().split("\n");
      assert.equal(lines[0], sh);
      if (dash) assert.deepEqual(lines.slice(1), ["posix", "-e x"]);
    });

    it("codex: bash -c, as Codex runs it", async () => {
      const result = await hook(probe, { dialect: "codex" });
      const lines = result.stdout.trimEnd().split("\n");
      assert.match(lines[0], /\/bash$/);
      assert.deepEqual(lines.slice(1), ["bash", "x"]);
    });

    it("the Shell's own shell option does not apply to hooks", async () => {
      const zshless = createLocalShell({ shell: "/nonexistent/zsh", ambientEnv: { PATH: process.env.PATH } });
      try {
        const result = await runHook(zshless, {
          command: "echo ran",
          payload: PAYLOAD,
          dialect: "claude-code",
          projectDir: dir,
          owner: null,
        });
        assert.equal(result.outcome, "success", result.reason);
        assert.equal(result.stdout, "ran\n");
        assert.equal(
          (await runHook(zshless, {
            command: "echo ran",
            payload: PAYLOAD,
            dialect: "codex",
            projectDir: dir,
            owner: null,
          })).stdout,
          "ran\n",
        );
      } finally {
        await zshless.close();
      }
    });
  });

  describe("environment", () => {
    it("nothing planted on Object.prototype (env, pluginRoot, workdir, hooks) reaches a hook", async () => {
      const planted: Record<string, unknown> = {
        env: { PLANTED_ENV: "from-the-prototype" },
        pluginRoot: "/planted/plugin",
        workdir: "/nonexistent-planted",
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "echo planted-hook" }] }] },
      };
      const [result, parsedEvents] = await withPollutedPrototype(planted, async () =>
        [
          await hook("env; pwd"),
          Object.keys(parseHookSettings({}, { dialect: "claude-code" }).events),
        ] as const);
      assert.equal(result.outcome, "success", result.reason);
      const env = parseEnvDump(result.stdout);
      assert.equal(env.get("PLANTED_ENV"), undefined);
      assert.equal(env.get("CLAUDE_PLUGIN_ROOT"), undefined);
      assert.ok(result.stdout.trimEnd().endsWith(`\n${dir}`), "the hook ran in the project dir");
      assert.deepEqual(parsedEvents, [], "a planted hooks entry was read from the prototype");
    });

    it("CLAUDE_PROJECT_DIR is the project dir; no plugin variables without a plugin, even ambient ones", async () => {
      const result = await hook("env");
      const env = parseEnvDump(result.stdout);
      assert.equal(env.get("CLAUDE_PROJECT_DIR"), dir);
      for (const name of ["CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "PLUGIN_DATA"]) {
        assert.equal(env.has(name), false, `${name} should be absent`);
      }
    });

    it("codex 0.169.0: no CLAUDE_PROJECT_DIR, not even the ambient one; the caller's env may give one", async () => {
      const env = parseEnvDump((await hook("env", { dialect: "codex" })).stdout);
      assert.equal(env.has("CLAUDE_PROJECT_DIR"), false);
      const given = parseEnvDump(
        (await hook("env", { dialect: "codex", env: { CLAUDE_PROJECT_DIR: "/mine" } })).stdout,
      );
      assert.equal(given.get("CLAUDE_PROJECT_DIR"), "/mine");
    });

    it("claude-code 2.1.328: CLAUDECODE=1 and the harness's session values, never the ambient ones", async () => {
      const names = ["CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_PID"];
      const bare = parseEnvDump((await hook("env")).stdout);
      assert.deepEqual(names.map((name) => bare.get(name)), ["1", undefined, undefined, undefined]);
      const harness = { sessionId: "s-9", entrypoint: "sdk-ts", pid: process.pid };
      const given = parseEnvDump((await hook("env", { harness, env: { CLAUDE_CODE_SESSION_ID: "from-env" } })).stdout);
      assert.deepEqual(names.map((name) => given.get(name)), ["1", "s-9", "sdk-ts", String(process.pid)]);
      // Codex sets none of them, and the host's stay out there too.
      const codex = parseEnvDump((await hook("env", { dialect: "codex", harness })).stdout);
      assert.deepEqual(names.filter((name) => codex.has(name)), []);
      const bad = await hook("true", { harness: { pid: -1 } });
      assert.equal(bad.outcome, "non-blocking-error");
      assert.match(bad.reason ?? "", /harness\.pid: must be a positive integer/);
    });

    it("with pluginRoot and pluginData, all four plugin variables", async () => {
      const result = await hook("env", { pluginRoot: "/opt/plugins/guard", pluginData: "/var/lib/guard" });
      const env = parseEnvDump(result.stdout);
      assert.equal(env.get("CLAUDE_PROJECT_DIR"), dir);
      assert.equal(env.get("CLAUDE_PLUGIN_ROOT"), "/opt/plugins/guard");
      assert.equal(env.get("PLUGIN_ROOT"), "/opt/plugins/guard");
      assert.equal(env.get("CLAUDE_PLUGIN_DATA"), "/var/lib/guard");
      assert.equal(env.get("PLUGIN_DATA"), "/var/lib/guard");
    });

    it("with pluginRoot only, no data variables", async () => {
      const env = parseEnvDump((await hook("env", { pluginRoot: "/opt/plugins/guard" })).stdout);
      assert.equal(env.get("PLUGIN_ROOT"), "/opt/plugins/guard");
      assert.equal(env.has("CLAUDE_PLUGIN_DATA"), false);
      assert.equal(env.has("PLUGIN_DATA"), false);
    });

    it('"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh" runs the plugin\'s script, which reads the event', async () => {
      const root = join(dir, "plugin");
      writeScript(join(root, "hooks", "check.sh"), `grep -o '"tool_name":"[A-Za-z]*"'; echo "root=$PLUGIN_ROOT"`);
      const result = await hook('"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"', { pluginRoot: root });
      assert.equal(result.outcome, "success");
      assert.equal(result.stdout, `"tool_name":"Bash"\nroot=${root}\n`);
    });

    it("ambient secrets are scrubbed; ENV_OVERRIDES apply", async () => {
      const result = await hook("env");
      assert.equal(result.outcome, "success");
      const env = parseEnvDump(result.stdout);
      assert.equal(env.has("OPENAI_API_KEY"), false);
      assert.equal(env.has("HARMLESS_LOOKING"), false);
      assert.ok(!result.stdout.includes("sk-proj-"), "no OpenAI key value");
      assert.ok(!result.stdout.includes(GITHUB_TOKEN_VALUE), "no GitHub token value");
      assert.equal(env.get("NO_COLOR"), "1");
      assert.equal(env.get("GIT_TERMINAL_PROMPT"), "0");
    });

    it("the caller's env is passed, and cannot displace CLAUDE_PROJECT_DIR", async () => {
      const result = await hook("env", { env: { HOOK_MODE: "strict", CLAUDE_PROJECT_DIR: "/elsewhere" } });
      const env = parseEnvDump(result.stdout);
      assert.equal(env.get("HOOK_MODE"), "strict");
      assert.equal(env.get("CLAUDE_PROJECT_DIR"), dir);
    });
  });

  describe("workdir", () => {
    it("defaults to projectDir", async () => {
      const result = await hook("pwd -P");
      assert.equal(result.stdout, `${realpathSync(dir)}\n`);
    });

    it("can be set apart from projectDir", async () => {
      const sub = join(dir, "work");
      mkdirSync(sub, { recursive: true });
      const result = await hook('pwd -P; echo "$CLAUDE_PROJECT_DIR"', { workdir: sub });
      assert.equal(result.stdout, `${realpathSync(sub)}\n${dir}\n`);
    });

    it("a relative projectDir resolves against the shell's workdir", async () => {
      mkdirSync(join(dir, "proj"), { recursive: true });
      await using local = createLocalShell({ workdir: dir, graceMs: 500 });
      const result = await runHook(local, {
        command: 'echo "$CLAUDE_PROJECT_DIR"; pwd -P',
        payload: PAYLOAD,
        dialect: "claude-code",
        projectDir: "proj",
        owner: null,
      });
      assert.equal(result.stdout, `${join(dir, "proj")}\n${realpathSync(join(dir, "proj"))}\n`);
    });
  });

  describe("protocol", () => {
    it("exit 0 is success, without a reason", async () => {
      const result = await hook("echo all good; echo note >&2");
      assert.equal(result.outcome, "success");
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout, "all good\n");
      assert.equal(result.stderr, "note\n");
      assert.equal(result.reason, undefined);
      assert.equal(result.json, undefined);
      assert.equal(result.timedOut, false);
      assert.ok(result.durationMs >= 0);
    });

    it("exit 2 is blocking, with the trimmed stderr as the reason", async () => {
      const result = await hook("echo '  rm -rf is not allowed  ' >&2; echo >&2; exit 2");
      assert.equal(result.outcome, "blocking");
      assert.equal(result.exitCode, 2);
      assert.equal(result.reason, "rm -rf is not allowed");
    });

    it("exit 1 is a non-blocking error naming the code and the first stderr line", async () => {
      const result = await hook("printf '\\nfirst problem\\nsecond problem\\n' >&2; exit 1");
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.exitCode, 1);
      assert.equal(result.reason, "exit code 1: first problem");
      assert.equal(result.stderr, "\nfirst problem\nsecond problem\n");
    });

    it("exit 3 without stderr is a non-blocking error naming the code", async () => {
      const result = await hook("exit 3");
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.exitCode, 3);
      assert.equal(result.reason, "exit code 3");
    });

    it("a JSON answer on exit 0 is parsed", async () => {
      const answer = {
        continue: false,
        stopReason: "enough",
        suppressOutput: true,
        systemMessage: "hello user",
        decision: "block",
        reason: "policy",
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: "please confirm",
          additionalContext: "ctx",
          updatedInput: { command: "ls" },
        },
      };
      const result = await hook(`printf '  \\n%s\\n' ${shQuote(JSON.stringify(answer))}`);
      assert.equal(result.outcome, "success");
      assert.deepEqual(result.json, answer);
    });

    it("fields of the wrong type are dropped, the rest kept; unknown fields pass through", async () => {
      const answer = {
        continue: "no",
        stopReason: 5,
        systemMessage: "kept",
        decision: "deny",
        extra: { any: ["thing"] },
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "maybe",
          permissionDecisionReason: "kept too",
          additionalContext: ["not", "a", "string"],
          updatedInput: ["not an object"],
          updatedMCPToolOutput: "unknown, kept",
        },
      };
      const result = await hook(`echo ${shQuote(JSON.stringify(answer))}`);
      assert.deepEqual(result.json, {
        systemMessage: "kept",
        extra: { any: ["thing"] },
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecisionReason: "kept too",
          updatedMCPToolOutput: "unknown, kept",
        },
      });
    });

    it("a hookSpecificOutput that is not an object is dropped", async () => {
      const result = await hook(`echo '{"systemMessage":"m","hookSpecificOutput":"oops"}'`);
      assert.deepEqual(result.json, { systemMessage: "m" });
    });

    it("malformed JSON stays plain text, without json", async () => {
      const result = await hook(`echo '{"continue": false,'`);
      assert.equal(result.outcome, "success");
      assert.equal(result.stdout, `{"continue": false,\n`);
      assert.equal(result.json, undefined);
      assert.equal(result.reason, undefined);
    });

    it("stdout that does not start with { is not parsed", async () => {
      for (const command of [`echo 'ok {"continue":false}'`, `echo '[{"continue":false}]'`]) {
        const result = await hook(command);
        assert.equal(result.outcome, "success");
        assert.equal(result.json, undefined, command);
      }
    });

    it("claude-code reads the JSON of an exit-2 hook; codex ignores it", async () => {
      const command = `echo '{"decision":"approve","continue":false}'; echo blocked here >&2; exit 2`;
      const claude = await hook(command);
      assert.equal(claude.outcome, "blocking");
      assert.deepEqual(claude.json, { decision: "approve", continue: false });
      assert.equal(claude.reason, "blocked here", "no reason in the answer: stderr");
      const codex = await hook(command, { dialect: "codex" });
      assert.equal(codex.outcome, "blocking");
      assert.equal(codex.json, undefined);
      assert.equal(codex.reason, "blocked here");
      assert.equal(codex.stdout, `{"decision":"approve","continue":false}\n`);
    });

    it("claude-code: on exit 2 the answer's reason wins over stderr", async () => {
      const answer = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecisionReason: "from JSON" } };
      const specific = await hook(`echo ${shQuote(JSON.stringify(answer))}; echo from stderr >&2; exit 2`);
      assert.equal(specific.reason, "from JSON");
      const top = await hook(`echo '{"decision":"block","reason":"  top-level  "}'; echo from stderr >&2; exit 2`);
      assert.equal(top.reason, "top-level");
      const invalid = await hook(`echo '{"reason": 5}'; echo from stderr >&2; exit 2`);
      assert.equal(invalid.reason, "from stderr", "a wrong-typed reason is dropped: stderr");
    });

    it("claude-code reads the JSON of a hook that exits 1; codex ignores it", async () => {
      const claude = await hook(`echo '{"decision":"block"}'; exit 1`);
      assert.equal(claude.outcome, "non-blocking-error");
      assert.deepEqual(claude.json, { decision: "block" });
      const codex = await hook(`echo '{"decision":"block"}'; exit 1`, { dialect: "codex" });
      assert.equal(codex.outcome, "non-blocking-error");
      assert.equal(codex.json, undefined);
    });

    it("exit 2 without stderr: claude-code blocks, codex counts a failure", async () => {
      const claude = await hook("exit 2");
      assert.equal(claude.outcome, "blocking");
      assert.equal(claude.reason, "exit code 2 (no message on stderr)");
      const codex = await hook("echo '  ' >&2; exit 2", { dialect: "codex" });
      assert.equal(codex.outcome, "non-blocking-error");
      assert.equal(codex.exitCode, 2);
      assert.equal(codex.reason, "exit code 2 without a reason on stderr");
    });

    it("a timeout is a non-blocking error with timedOut", async () => {
      const result = await hook("sleep 5", { timeoutMs: 300 });
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.timedOut, true);
      assert.equal(result.reason, "timed out after 300ms");
    });

    it("the default timeout is capped by the shell's maxTimeoutMs", async () => {
      assert.equal(HOOK_DEFAULTS.timeoutMs, 600_000);
      await using capped = createLocalShell({ maxTimeoutMs: 400, graceMs: 500 });
      const result = await runHook(capped, {
        command: "sleep 5",
        payload: PAYLOAD,
        dialect: "claude-code",
        projectDir: dir,
        owner: null,
      });
      assert.equal(result.timedOut, true);
      assert.equal(result.reason, "timed out after 400ms");
    });

    it("death by a signal is a non-blocking error naming the signal", async () => {
      const result = await hook("echo partial; kill -KILL $$");
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.exitCode, null);
      assert.equal(result.timedOut, false);
      assert.equal(result.reason, "killed by signal SIGKILL");
      assert.equal(result.stdout, "partial\n");
    });

    it("an abort during the run is a non-blocking error", async () => {
      const controller = new AbortController();
      const pending = hook("sleep 5", { signal: controller.signal });
      controller.abort();
      const result = await pending;
      assert.equal(result.outcome, "non-blocking-error");
      assert.match(result.reason ?? "", /^aborted/);
      assert.equal(result.timedOut, false);
    });
  });

  describe("never rejects", () => {
    it("a closed shell", async () => {
      const closed = createLocalShell();
      await closed.close();
      const result = await runHook(closed, {
        command: "true",
        payload: PAYLOAD,
        dialect: "claude-code",
        projectDir: dir,
        owner: null,
      });
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.exitCode, null);
      assert.match(result.reason ?? "", /shell is closed/);
    });

    it("a missing workdir", async () => {
      const missing = join(dir, "does-not-exist");
      const result = await hook("true", { workdir: missing });
      assert.equal(result.outcome, "non-blocking-error");
      assert.ok(result.reason?.includes(missing), result.reason);
    });

    it("a missing projectDir", async () => {
      const result = await hook("true", { projectDir: join(dir, "nowhere") });
      assert.equal(result.outcome, "non-blocking-error");
      assert.match(result.reason ?? "", /nowhere/);
    });

    it("an already-aborted signal: nothing runs", async () => {
      const marker = join(dir, "should-not-exist");
      const controller = new AbortController();
      controller.abort(new Error("user pressed Esc"));
      const result = await hook(`touch ${shQuote(marker)}`, { signal: controller.signal });
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.reason, "aborted before the hook started (user pressed Esc)");
      assert.throws(() => readFileSync(marker));
    });

    it("an empty command", async () => {
      const result = await hook("");
      assert.equal(result.outcome, "non-blocking-error");
      assert.equal(result.reason, "invalid hook run: command: must not be empty");
    });

    it("bad options: dialect, timeout, owner, payload", async () => {
      const cases: [Partial<RunHookOptions>, RegExp][] = [
        [{ dialect: "gemini" as RunHookOptions["dialect"] }, /dialect: must be "claude-code" or "codex"/],
        [{ timeoutMs: 0 }, /timeoutMs/],
        [{ owner: undefined as unknown as null }, /owner/],
        [{ payload: undefined as unknown as object }, /payload/],
        [{ projectDir: "" }, /projectDir: must be a non-empty string/],
      ];
      for (const [extra, expected] of cases) {
        const result = await hook("true", extra);
        assert.equal(result.outcome, "non-blocking-error");
        assert.match(result.reason ?? "", expected);
      }
    });

    it("a payload that cannot be serialised", async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const result = await hook("true", { payload: circular });
      assert.equal(result.outcome, "non-blocking-error");
      assert.match(result.reason ?? "", /payload: is not JSON-serialisable/);
    });
  });
});

describe("readHookVerdict", () => {
  const success = (json: HookResult["json"], stdout = ""): HookResult => ({
    outcome: "success",
    exitCode: 0,
    stdout,
    stderr: "",
    ...(json === undefined ? {} : { json }),
    timedOut: false,
    durationMs: 1,
  });

  it("exit 2 is deny with the reason", () => {
    const verdict = readHookVerdict({
      outcome: "blocking",
      exitCode: 2,
      stdout: "",
      stderr: "no\n",
      reason: "no",
      timedOut: false,
      durationMs: 1,
    }, "PreToolUse");
    assert.deepEqual(verdict, { continue: true, suppressOutput: false, permission: "deny", reason: "no" });
  });

  it("permissionDecision wins over decision; both only for their event", () => {
    const json = {
      decision: "approve" as const,
      reason: "old style",
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" as const },
    };
    assert.equal(readHookVerdict(success(json), "PreToolUse").permission, "deny");
    assert.equal(readHookVerdict(success(json), "PreToolUse").reason, undefined);
    // A custom event reads every decision field, as 1.0 did.
    assert.equal(readHookVerdict(success(json), "MyEvent").permission, "allow");
    assert.equal(readHookVerdict(success(json), "MyEvent").reason, "old style");
    // PostToolUse takes only decision "block" ("The only value is block").
    assert.equal(readHookVerdict(success(json), "PostToolUse").permission, undefined);
  });

  it("plain stdout is context for SessionStart and UserPromptSubmit only", () => {
    assert.equal(
      readHookVerdict(success(undefined, " branch: main \n"), "SessionStart").additionalContext,
      "branch: main",
    );
    assert.equal(readHookVerdict(success(undefined, "hi"), "UserPromptSubmit").additionalContext, "hi");
    assert.equal(readHookVerdict(success(undefined, "hi"), "PreToolUse").additionalContext, undefined);
  });
});
