import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createLocalShell, type Shell, ShellSpecError } from "../mod.ts";
import {
  dispatchHookEvent,
  type HookCommand,
  type HookDialect,
  type HookDispatchResult,
  type HookSettings,
  HookSettingsError,
  parseHookSettings,
} from "../src/hooks/mod.ts";
import { shQuote, untilFileExists } from "./helpers/bash.ts";
import { answer } from "./helpers/hooks.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { examplesDir } from "./helpers/examples.ts";
import { fileLines, readJson } from "./helpers/files.ts";

/** A command that answers `{"systemMessage": label}`: which hooks ran, and in what order. */
const says = (label: string): string => answer({ systemMessage: label });

/** Settings with one group per `[matcher, command]` pair, for `event`. */
function groups(
  event: string,
  pairs: [string | undefined, string][],
  dialect: HookDialect = "claude-code",
): HookSettings {
  return parseHookSettings({
    hooks: {
      [event]: pairs.map(([matcher, command]) => ({
        ...(matcher === undefined ? {} : { matcher }),
        hooks: [{ type: "command", command }],
      })),
    },
  }, { dialect });
}

/** Settings with one match-all group holding `commands`, for `event`. */
function oneGroup(event: string, commands: string[], dialect: HookDialect = "claude-code"): HookSettings {
  return parseHookSettings({
    hooks: { [event]: [{ hooks: commands.map((command) => ({ type: "command", command })) }] },
  }, { dialect });
}

/**
 * `shell`, except that once its run of a command containing `label` has resolved, `file` is
 * created: the event a hook can wait for to end after that one in the bridge's eyes.
 */
function touchingAfterRun(shell: Shell, label: string, file: string): Shell {
  return {
    resolve: (request) => shell.resolve(request),
    run: async (spec, observer) => {
      const result = await shell.run(spec, observer);
      if (JSON.stringify(spec).includes(label)) writeFileSync(file, "");
      return result;
    },
    start: (spec, observer) => shell.start(spec, observer),
    exec: (command, options) => shell.exec(command, options),
    task: (id, owner) => shell.task(id, owner),
    tasks: (owner) => shell.tasks(owner),
    session: (options) => shell.session(options),
    files: (options) => shell.files(options),
    close: () => shell.close(),
    [Symbol.asyncDispose]: () => shell[Symbol.asyncDispose](),
    events: shell.events,
  };
}

const TOOL_EVENT = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } };

describe("dispatchHookEvent", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-dispatch-");
    shell = createLocalShell({ graceMs: 500, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const dispatch = (
    settings: HookSettings | HookSettings[],
    event = "PreToolUse",
    extra: { matchTarget?: string; payload?: object } = {},
  ): Promise<HookDispatchResult> =>
    dispatchHookEvent(shell, settings, {
      event,
      payload: extra.payload ?? TOOL_EVENT,
      projectDir: dir,
      owner: null,
      ...(extra.matchTarget === undefined ? {} : { matchTarget: extra.matchTarget }),
    });

  describe("matchers", () => {
    const PATTERNS: [string | undefined, string][] = [
      ["Bash", says("Bash")],
      ["Bash.*", says("Bash.*")],
      ["Edit|Write", says("Edit|Write")],
      ["^Bash$", says("^Bash$")],
      ["*", says("*")],
      ["", says('""')],
      [undefined, says("absent")],
    ];

    const ran = async (dialect: HookDialect, matchTarget: string): Promise<string[]> =>
      (await dispatch(groups("PreToolUse", PATTERNS, dialect), "PreToolUse", { matchTarget })).systemMessages;

    it("claude-code: a plain name is exact, so Bash does not match BashOutput; Bash.* does", async () => {
      assert.deepEqual(await ran("claude-code", "BashOutput"), ["Bash.*", "*", '""', "absent"]);
      assert.deepEqual(await ran("claude-code", "Bash"), ["Bash", "Bash.*", "^Bash$", "*", '""', "absent"]);
    });

    it("claude-code: A|B is an exact alternation", async () => {
      assert.deepEqual(await ran("claude-code", "Write"), ["Edit|Write", "*", '""', "absent"]);
      assert.deepEqual(await ran("claude-code", "NotebookEdit"), ["*", '""', "absent"]);
    });

    it("codex: a literal pattern is exact (Bash does not match BashOutput); others are unanchored regexes", async () => {
      assert.deepEqual(await ran("codex", "BashOutput"), ["Bash.*", "*", '""', "absent"]);
      assert.deepEqual(await ran("codex", "Bash"), ["Bash", "Bash.*", "^Bash$", "*", '""', "absent"]);
      assert.deepEqual(await ran("codex", "NotebookEdit"), ["*", '""', "absent"]);
    });

    it("without matchTarget, tool events test the payload's tool_name", async () => {
      const settings = groups("PreToolUse", [["Bash", says("bash")], ["Edit", says("edit")]]);
      const bash = await dispatch(settings);
      assert.deepEqual(bash.systemMessages, ["bash"]);
      const edit = await dispatch(settings, "PreToolUse", { payload: { ...TOOL_EVENT, tool_name: "Edit" } });
      assert.deepEqual(edit.systemMessages, ["edit"]);
    });

    it("matchTarget wins over the payload", async () => {
      const settings = groups("PreToolUse", [["Bash", says("bash")], ["Edit", says("edit")]]);
      assert.deepEqual((await dispatch(settings, "PreToolUse", { matchTarget: "Edit" })).systemMessages, ["edit"]);
    });

    it("a tool event without tool_name runs only the match-all groups", async () => {
      const settings = groups("PreToolUse", [["Bash", says("bash")], ["*", says("all")]]);
      const result = await dispatch(settings, "PreToolUse", { payload: { hook_event_name: "PreToolUse" } });
      assert.deepEqual(result.systemMessages, ["all"]);
    });

    it("an event without a matcher concept runs every group, whatever its matcher", async () => {
      const settings = groups("Stop", [["Bash", says("bash")], [undefined, says("plain")]]);
      const result = await dispatch(settings, "Stop", { payload: { hook_event_name: "Stop" } });
      assert.deepEqual(result.systemMessages, ["bash", "plain"]);
    });

    it("SessionStart matchers test the payload's source", async () => {
      const settings = groups("SessionStart", [["startup", says("startup")], ["resume|compact", says("resume")]]);
      const result = await dispatch(settings, "SessionStart", {
        payload: { hook_event_name: "SessionStart", source: "compact" },
      });
      assert.deepEqual(result.systemMessages, ["resume"]);
    });

    it("an event nobody configured runs nothing", async () => {
      const result = await dispatch(groups("PostToolUse", [[undefined, says("x")]]));
      assert.deepEqual(result, {
        results: [],
        reasons: [],
        blocked: false,
        additionalContext: [],
        systemMessages: [],
        feedback: [],
        background: [],
        warnings: [],
      });
    });
  });

  describe("running", () => {
    it("runs the hooks in parallel: each waits until all three have started", async () => {
      const markers = [1, 2, 3].map((n) => join(dir, `parallel-${n}`));
      const commands = markers.map((marker, index) =>
        `touch ${shQuote(marker)}; ${markers.map(untilFileExists).join("; ")}; ${says(`hook ${index + 1}`)}`
      );
      // A serial run would never see all three markers: each hook times out after 20 s instead of hanging (a bound
      // far above three starts on a loaded machine, never reached when they run in parallel).
      const settings = parseHookSettings({
        hooks: { PreToolUse: [{ hooks: commands.map((command) => ({ type: "command", command, timeout: 20 })) }] },
      }, { dialect: "claude-code" });
      const result = await dispatch(settings);
      assert.deepEqual(result.results.map((entry) => entry.result.outcome), ["success", "success", "success"]);
      assert.deepEqual(result.systemMessages, ["hook 1", "hook 2", "hook 3"]);
    });

    it("reports in configuration order, not in finish order", async () => {
      const secondDone = join(dir, "second-done");
      const first = `${untilFileExists(secondDone)}; ${says("first")}`;
      const second = `${says("second")}; touch ${shQuote(secondDone)}`;
      const result = await dispatch(oneGroup("PreToolUse", [first, second]));
      assert.deepEqual(result.results.map((entry) => entry.command), [first, second]);
      assert.deepEqual(result.systemMessages, ["first", "second"]);
    });

    it("claude-code: an identical command runs once, across groups and settings", async () => {
      const counter = join(dir, "dedup-counter");
      const command = `echo ran >> ${shQuote(counter)}`;
      const project = parseHookSettings({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command }, { type: "command", command }] },
            { hooks: [{ type: "command", command }] },
          ],
        },
      }, { dialect: "claude-code" });
      const user = oneGroup("PreToolUse", [command]);
      const result = await dispatch([user, project]);
      assert.equal(fileLines(counter).length, 1);
      assert.equal(result.results.length, 1);
      assert.equal(result.results[0].command, command);
    });

    it("claude-code: the same command text of two plugins runs for each plugin", async () => {
      const counter = join(dir, "plugin-counter");
      const raw = {
        hooks: {
          PreToolUse: [{ hooks: [{ type: "command", command: `echo "$PLUGIN_ROOT" >> ${shQuote(counter)}` }] }],
        },
      };
      const a = parseHookSettings(raw, { dialect: "claude-code", pluginRoot: "/plugins/a" });
      const b = parseHookSettings(raw, { dialect: "claude-code", pluginRoot: "/plugins/b" });
      const result = await dispatch([a, b, a]);
      assert.equal(result.results.length, 2);
      assert.deepEqual(fileLines(counter).sort(), ["/plugins/a", "/plugins/b"]);
    });

    it("codex: identical commands are not deduplicated", async () => {
      const counter = join(dir, "codex-counter");
      const command = `echo ran >> ${shQuote(counter)}`;
      const result = await dispatch(oneGroup("PreToolUse", [command, command], "codex"));
      assert.equal(result.results.length, 2);
      assert.equal(fileLines(counter).length, 2);
    });

    it("settings in an array dispatch together, in array order; plugin settings get the plugin variables", async () => {
      const user = oneGroup("PreToolUse", [says("user")]);
      const project = oneGroup("PreToolUse", [says("project")], "codex");
      const plugin = parseHookSettings({
        hooks: {
          PreToolUse: [{
            hooks: [{
              type: "command",
              command: `echo "{\\"systemMessage\\":\\"$PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA\\"}"`,
            }],
          }],
        },
      }, { dialect: "claude-code", pluginRoot: "/plugins/guard", pluginData: "/data/guard" });
      const result = await dispatch([user, project, plugin]);
      assert.deepEqual(result.systemMessages, ["user", "project", "/plugins/guard|/data/guard"]);
    });

    it("dispatch passes harness to every hook (claude-code 2.1.328 variables)", async () => {
      const result = await dispatchHookEvent(
        shell,
        oneGroup("PreToolUse", ['echo "$CLAUDECODE:$CLAUDE_CODE_SESSION_ID"']),
        {
          event: "PreToolUse",
          payload: TOOL_EVENT,
          projectDir: dir,
          owner: null,
          harness: { sessionId: "s-dispatch" },
        },
      );
      assert.equal(result.results[0].result.stdout, "1:s-dispatch\n");
    });

    it("each hook gets the payload and CLAUDE_PROJECT_DIR", async () => {
      const command = `grep -q '"tool_name":"Bash"' && echo "{\\"systemMessage\\":\\"$CLAUDE_PROJECT_DIR\\"}"`;
      const result = await dispatch(oneGroup("PreToolUse", [command]));
      assert.deepEqual(result.systemMessages, [dir]);
    });

    it('"timeout" is in seconds: 1 stops a `sleep 5` after 1000 ms', async () => {
      const settings = parseHookSettings({
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "sleep 5", timeout: 1 }] }] },
      }, { dialect: "claude-code" });
      const result = await dispatch(settings);
      const [entry] = result.results;
      assert.equal(entry.result.outcome, "non-blocking-error");
      assert.equal(entry.result.timedOut, true);
      assert.equal(entry.result.reason, "timed out after 1000ms");
      assert.equal(result.blocked, false);
    });

    it("an aborted signal ends every hook as a non-blocking error", async () => {
      const controller = new AbortController();
      controller.abort();
      const result = await dispatchHookEvent(shell, oneGroup("PreToolUse", ["sleep 5", "sleep 6"]), {
        event: "PreToolUse",
        payload: TOOL_EVENT,
        projectDir: dir,
        owner: null,
        signal: controller.signal,
      });
      assert.deepEqual(result.results.map((entry) => entry.result.outcome), [
        "non-blocking-error",
        "non-blocking-error",
      ]);
      assert.equal(result.blocked, false);
    });
  });

  describe("merge", () => {
    const decide = (permission: string, reason: string): string =>
      answer({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: permission,
          permissionDecisionReason: reason,
        },
      });

    it("deny > ask > allow, keeping only a reason of the winning permission", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [
        decide("allow", "a1"),
        decide("deny", "d1"),
        decide("ask", "q1"),
        decide("deny", "d2"),
        decide("allow", "a2"),
      ]));
      assert.equal(result.permission, "deny");
      assert.equal(result.blocked, true);
      // Claude Code shows the deny that finished last: which of the two that is, their race decides.
      assert.equal(result.reasons.length, 1);
      assert.ok(["d1", "d2"].includes(result.reasons[0]), String(result.reasons));
    });

    it("ask beats allow", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [decide("allow", "a1"), decide("ask", "q1")]));
      assert.equal(result.permission, "ask");
      assert.equal(result.blocked, false);
      assert.deepEqual(result.reasons, ["q1"]);
    });

    it("allow alone is allow, with its reasons", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [decide("allow", "a1"), says("no decision")]));
      assert.equal(result.permission, "allow");
      assert.deepEqual(result.reasons, ["a1"]);
    });

    it("no decision: no permission, not blocked", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [says("x"), "exit 1", "true"]));
      assert.equal("permission" in result, false);
      assert.equal(result.blocked, false);
      assert.deepEqual(result.reasons, []);
    });

    it('decision "block" counts as deny, "approve" as allow', async () => {
      const blocked = await dispatch(oneGroup("PreToolUse", [
        answer({ decision: "approve", reason: "fine" }),
        answer({ decision: "block", reason: "not on main" }),
      ]));
      assert.equal(blocked.permission, "deny");
      assert.deepEqual(blocked.reasons, ["not on main"]);
      const approved = await dispatch(oneGroup("PreToolUse", [answer({ decision: "approve", reason: "fine" })]));
      assert.equal(approved.permission, "allow");
      assert.deepEqual(approved.reasons, ["fine"]);
    });

    it("exit 2 counts as deny with its stderr as the reason", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [
        decide("allow", "a1"),
        "echo 'no deploys on Friday' >&2; exit 2",
        decide("ask", "q1"),
      ]));
      assert.equal(result.permission, "deny");
      assert.equal(result.blocked, true);
      assert.deepEqual(result.reasons, ["no deploys on Friday"]);
      assert.equal(result.results[1].result.outcome, "blocking");
    });

    it("claude-code 2.1.328: contexts are joined in the order the hooks finish; codex keeps configuration order", async () => {
      for (const dialect of ["claude-code", "codex"] as const) {
        const secondDone = join(dir, `context-second-done-${dialect}`);
        const context = (text: string) =>
          answer({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: text } });
        // The bridge's "finished" is when its run of a hook resolves, after the process is gone and its
        // pipes are drained: a marker the second hook wrote itself came too early, and under load the
        // first hook could still end first. The marker is written once the shell's run of the second
        // hook has resolved; the first hook then still needs a process exit, an I/O event, which the
        // bridge handles only after the second's end was recorded.
        const result = await dispatchHookEvent(
          touchingAfterRun(shell, "configured second", secondDone),
          oneGroup("PreToolUse", [
            `${untilFileExists(secondDone)}; ${context("configured first, finished last")}`,
            context("configured second, finished first"),
          ], dialect),
          { event: "PreToolUse", payload: TOOL_EVENT, projectDir: dir, owner: null },
        );
        const inOrder = ["configured first, finished last", "configured second, finished first"];
        assert.deepEqual(result.additionalContext, dialect === "codex" ? inOrder : [...inOrder].reverse(), dialect);
        assert.deepEqual(
          result.results.map((entry) => entry.verdict.additionalContext),
          inOrder,
          "results stay in order",
        );
      }
    });

    it("codex 0.169.0: with several denies the reason is the first in configuration order; each verdict keeps its own", async () => {
      const firstDone = join(dir, "codex-deny-second-done");
      const result = await dispatch(
        oneGroup("PreToolUse", [
          `${untilFileExists(firstDone)}; echo 'first in order' >&2; exit 2`,
          `${answer({ decision: "block", reason: "finished first" })}; touch ${shQuote(firstDone)}`,
        ], "codex"),
      );
      assert.equal(result.blocked, true);
      assert.deepEqual(result.reasons, ["first in order"]);
      assert.deepEqual(result.results.map((entry) => entry.verdict.reason), ["first in order", "finished first"]);
    });

    it("the first continue: false in configuration order stops, with its stopReason", async () => {
      const secondDone = join(dir, "stop-second-done");
      const result = await dispatch(oneGroup("PreToolUse", [
        says("fine"),
        // Finishes last, yet is first in configuration order.
        `${untilFileExists(secondDone)}; ${answer({ continue: false, stopReason: "first stop" })}`,
        `${answer({ continue: false, stopReason: "second stop" })}; touch ${shQuote(secondDone)}`,
      ]));
      assert.deepEqual(result.stop, { reason: "first stop" });
    });

    it("codex 0.169.0: PostToolUse continue: false replaces the tool output with stopReason and does not stop", async () => {
      const payload = { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "cat .env" } };
      const result = await dispatch(
        oneGroup("PostToolUse", [
          answer({ continue: false, stopReason: "[output withheld: it held a secret]" }),
          answer({ continue: false, stopReason: "second" }),
        ], "codex"),
        "PostToolUse",
        { payload },
      );
      assert.equal("stop" in result, false, "the turn goes on");
      assert.equal(result.toolOutput, "[output withheld: it held a secret]");
      assert.equal(result.results[0].verdict.continue, true);
      // Without a stopReason the output is still withheld; other Codex events and Claude Code still stop.
      const bare = await dispatch(oneGroup("PostToolUse", [answer({ continue: false })], "codex"), "PostToolUse", {
        payload,
      });
      assert.equal(bare.toolOutput, "");
      const stopped = await dispatch(
        oneGroup("UserPromptSubmit", [answer({ continue: false, stopReason: "no" })], "codex"),
        "UserPromptSubmit",
        { payload: { hook_event_name: "UserPromptSubmit", prompt: "hi" } },
      );
      assert.deepEqual(stopped.stop, { reason: "no" });
      assert.equal("toolOutput" in stopped, false);
      const claude = await dispatch(
        oneGroup("PostToolUse", [answer({ continue: false, stopReason: "halt" })]),
        "PostToolUse",
        { payload },
      );
      assert.deepEqual(claude.stop, { reason: "halt" });
      assert.equal("toolOutput" in claude, false);
    });

    it("continue: false without a stopReason stops without a reason; no stop otherwise", async () => {
      assert.deepEqual((await dispatch(oneGroup("PreToolUse", [answer({ continue: false })]))).stop, {});
      assert.equal("stop" in await dispatch(oneGroup("PreToolUse", [answer({ continue: true })])), false);
    });

    it("systemMessages are collected in configuration order; Codex's additionalContext too", async () => {
      // Claude Code's contexts come in the order the hooks finish: see "claude-code 2.1.328: contexts ...".
      const context = (text: string) =>
        answer({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: text } });
      for (const dialect of ["claude-code", "codex"] as const) {
        const result = await dispatch(oneGroup("PreToolUse", [
          context("c1"),
          says("m1"),
          answer({ systemMessage: "m2", hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "c2" } }),
          "exit 1",
          context("c3"),
        ], dialect));
        if (dialect === "codex") assert.deepEqual(result.additionalContext, ["c1", "c2", "c3"]);
        else assert.deepEqual([...result.additionalContext].sort(), ["c1", "c2", "c3"]);
        assert.deepEqual(result.systemMessages, ["m1", "m2"], dialect);
      }
    });

    it("event-scoped fields for another event, or for no named event, are ignored", async () => {
      const result = await dispatch(oneGroup("PreToolUse", [
        answer({
          systemMessage: "top-level fields still count",
          hookSpecificOutput: {
            hookEventName: "PostToolUse",
            permissionDecision: "deny",
            additionalContext: "wrong event",
          },
        }),
        answer({ hookSpecificOutput: { permissionDecision: "deny", additionalContext: "no event named" } }),
      ]));
      assert.equal("permission" in result, false);
      assert.equal(result.blocked, false);
      assert.deepEqual(result.additionalContext, []);
      assert.deepEqual(result.systemMessages, ["top-level fields still count"]);
    });

    it("plain stdout of a SessionStart hook is context", async () => {
      const result = await dispatch(oneGroup("SessionStart", ["echo 'branch: main'"]), "SessionStart", {
        payload: { hook_event_name: "SessionStart", source: "startup" },
      });
      assert.deepEqual(result.additionalContext, ["branch: main"]);
    });
  });

  it("settings built by hand with a type no runner has: the entry runs as a command, whatever the type's name", async () => {
    // Object's own names too: the runner table is looked up by own keys only.
    for (const type of ["mcp_tool", "toString", "constructor", "__proto__"]) {
      const hook = { type, command: "echo ran" } as unknown as HookCommand;
      const result = await dispatch(
        { dialect: "claude-code", events: { Stop: [{ hooks: [hook] }] }, skipped: [] },
        "Stop",
        {
          payload: { hook_event_name: "Stop" },
        },
      );
      assert.equal(result.results.length, 1, type);
      assert.equal(result.results[0].type, type);
      assert.equal(result.results[0].result.outcome, "success", type);
      assert.equal(result.results[0].result.stdout, "ran\n", type);
      assert.deepEqual(result.warnings, [], type);
    }
  });

  it("rejects settings that parseHookSettings did not make", async () => {
    await assert.rejects(
      dispatch({ hooks: {} } as unknown as HookSettings),
      (error: unknown) =>
        error instanceof HookSettingsError && /must be the result of parseHookSettings/.test(error.message),
    );
  });
});

describe("parseHookSettings", () => {
  const parse = (settings: unknown, dialect: HookDialect = "claude-code") => parseHookSettings(settings, { dialect });

  const failsWith = (settings: unknown, message: string, dialect: HookDialect = "claude-code"): void => {
    assert.throws(() => parse(settings, dialect), (error: unknown) => {
      assert.ok(error instanceof HookSettingsError, String(error));
      assert.equal(error.name, "HookSettingsError");
      assert.equal(error.message, message);
      return true;
    });
  };

  const entry = (over: Record<string, unknown>) => ({
    hooks: {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [{ type: "command", command: "true" }, { type: "command", command: "true", ...over }],
      }],
    },
  });

  it("reads events, matchers and hooks; timeout seconds become ms", () => {
    const settings = parse({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "a.sh", timeout: 30 }] }],
        Stop: [{ hooks: [{ type: "command", command: "b.sh", timeout: 0.5 }, { type: "command", command: "c.sh" }] }],
      },
    });
    assert.equal(settings.dialect, "claude-code");
    assert.deepEqual(settings.events, {
      PreToolUse: [{ matcher: "Bash", hooks: [{ command: "a.sh", timeoutMs: 30_000 }] }],
      Stop: [{ hooks: [{ command: "b.sh", timeoutMs: 500 }, { command: "c.sh" }] }],
    });
    assert.deepEqual(settings.skipped, []);
    assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.events));
  });

  it("ignores every other top-level key of a real settings.json", () => {
    const settings = parse({
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      permissions: { allow: ["Bash(npm run lint)"], deny: ["Read(./.env)"] },
      env: { FOO: "bar" },
      model: "opus",
      statusLine: { type: "command", command: "x" },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
    });
    assert.deepEqual(Object.keys(settings.events), ["Stop"]);
  });

  it("a file without hooks has no hooks", () => {
    assert.deepEqual(parse({ permissions: {} }).events, {});
  });

  it('reads "http", "prompt" and "agent" entries with their type; skips (and lists) "mcp_tool" and, in codex, all four', () => {
    const raw = {
      hooks: {
        Stop: [{
          hooks: [
            { type: "prompt", prompt: "Is the task done?" },
            { type: "command", command: "true" },
            { type: "http", url: "https://example.com" },
            { type: "mcp_tool", server: "s", tool: "t" },
          ],
        }],
      },
    };
    const settings = parse(raw);
    assert.deepEqual(settings.events.Stop[0].hooks, [
      { type: "prompt", command: "Is the task done?" },
      { command: "true" },
      { type: "http", command: "https://example.com" },
    ]);
    assert.deepEqual(settings.skipped, [{ path: "hooks.Stop[0].hooks[3]", type: "mcp_tool" }]);
    const codex = parse(raw, "codex");
    assert.deepEqual(codex.events.Stop[0].hooks, [{ command: "true" }]);
    assert.deepEqual(codex.skipped.map((entry) => entry.type), ["prompt", "http", "mcp_tool"]);
  });

  it("codex: a timeout that is not a whole number of seconds warns that Codex loads no hook of the file", () => {
    const raw = { hooks: { Stop: [{ hooks: [{ type: "command", command: "true", timeout: 0.5 }] }] } };
    const codex = parse(raw, "codex");
    assert.deepEqual(codex.events.Stop[0].hooks, [{ command: "true", timeoutMs: 1_000 }]);
    assert.deepEqual(codex.warnings?.map((warning) => warning.field), ["hooks.Stop[0].hooks[0].timeout"]);
    assert.match(codex.warnings?.[0].message ?? "", /loads no hook of this file/);
    assert.deepEqual(parse(raw).warnings, []);
    assert.deepEqual(
      parse({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true", timeout: 2 }] }] } }, "codex").warnings,
      [],
    );
  });

  it('claude-code "disableAllHooks": true means no hooks', () => {
    const raw = { disableAllHooks: true, hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } };
    assert.deepEqual(parse(raw).events, {});
    assert.deepEqual(Object.keys(parse(raw, "codex").events), ["Stop"]);
  });

  it("codex: a top-level key other than hooks and description gets a warning (Codex 0.169.0 loads none of the file)", () => {
    const hooks = { Stop: [{ hooks: [{ type: "command", command: "true" }] }] };
    const codex = parse({ disableAllHooks: true, foo: 1, description: "a plugin", hooks }, "codex");
    assert.deepEqual(Object.keys(codex.events), ["Stop"], "the bridge still runs them: more hooks, never fewer");
    assert.deepEqual(codex.warnings?.map((warning) => warning.field), ["disableAllHooks", "foo"]);
    assert.match(codex.warnings?.[0].message ?? "", /loads no hook of this file/);
    assert.deepEqual(parse({ description: "a plugin", hooks }, "codex").warnings, []);
    assert.deepEqual(parse({ foo: 1, hooks }).warnings, [], "Claude Code ignores other keys");
  });

  it("plugin settings carry pluginRoot and pluginData", () => {
    const settings = parseHookSettings({ hooks: {} }, {
      dialect: "codex",
      pluginRoot: "/plugins/p",
      pluginData: "/data/p",
    });
    assert.equal(settings.pluginRoot, "/plugins/p");
    assert.equal(settings.pluginData, "/data/p");
  });

  it("an empty command is skipped with a warning in both dialects (Claude Code 2.1.328 runs the file's other hooks)", () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      const settings = parseHookSettings({
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: " " }, { type: "command", command: "true" }] }] },
      }, { dialect });
      assert.deepEqual(settings.events.PreToolUse?.[0].hooks.map((hook) => hook.command), ["true"], dialect);
      assert.deepEqual(settings.warnings?.map((warning) => warning.field), ["hooks.PreToolUse[0].hooks[0].command"]);
    }
  });

  it("errors name the event and the entry", () => {
    failsWith(entry({ command: undefined }), "hooks.PreToolUse[0].hooks[1].command: must be a non-empty string");
    failsWith(entry({ timeout: "30" }), "hooks.PreToolUse[0].hooks[1].timeout: must be a positive number of seconds");
    failsWith(entry({ timeout: 0 }), "hooks.PreToolUse[0].hooks[1].timeout: must be a positive number of seconds");
    failsWith(
      entry({ type: "comand" }),
      'hooks.PreToolUse[0].hooks[1].type: unknown hook type "comand" (expected "command", "http", "prompt", "agent" or "mcp_tool")',
    );
    failsWith(
      entry({ type: undefined }),
      'hooks.PreToolUse[0].hooks[1].type: must be a string naming the hook type, e.g. "command"',
    );
    failsWith(
      { hooks: { PostToolUse: [{ matcher: "Bash", hooks: [] }, { matcher: "Edit", hooks: "x.sh" }] } },
      "hooks.PostToolUse[1].hooks: must be an array of hook entries",
    );
    failsWith({ hooks: { Stop: { hooks: [] } } }, "hooks.Stop: must be an array of matcher groups");
    failsWith({ hooks: { Stop: ["x.sh"] } }, 'hooks.Stop[0]: must be an object with "matcher" and "hooks"');
    failsWith(
      { hooks: { Stop: [{ hooks: ["x.sh"] }] } },
      'hooks.Stop[0].hooks[0]: must be an object with "type" and "command"',
    );
    failsWith({ hooks: { "my event": [{ matcher: 5, hooks: [] }] } }, 'hooks["my event"][0].matcher: must be a string');
    failsWith({ hooks: [] }, "hooks: must be an object mapping event names to arrays of matcher groups");
    failsWith("{}", "settings: must be an object (the parsed JSON of the settings file)");
  });

  it("a bad matcher regex disables its own group with a warning, in both dialects; the rest loads", () => {
    for (const dialect of ["claude-code", "codex"] as const) {
      const settings = parse({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [] }, { matcher: "Bash(", hooks: [] }],
          Stop: [{ hooks: [{ type: "command", command: "true" }] }],
        },
      }, dialect);
      assert.deepEqual(Object.keys(settings.events), ["PreToolUse", "Stop"]);
      assert.equal(settings.warnings?.length, 1, dialect);
      assert.equal(settings.warnings?.[0].field, "hooks.PreToolUse[1].matcher");
      assert.match(
        settings.warnings?.[0].message ?? "",
        /^invalid regular expression "Bash\(": .*; this group is disabled$/,
      );
    }
  });

  it("an unknown dialect is a ShellSpecError, like every invalid option", () => {
    assert.throws(() => parse({}, "cursor" as HookDialect), (error: unknown) => {
      assert.ok(error instanceof ShellSpecError, String(error));
      assert.equal(error.field, "dialect");
      assert.equal(error.message, 'dialect: must be "claude-code" or "codex"');
      return true;
    });
  });
});

describe("docs/examples", () => {
  const examples = examplesDir();
  const event = (name: string): object => readJson(join(examples, "events", `${name}.json`)) as object;
  let shell: Shell;
  let settings: HookSettings;
  before(() => {
    // The example's SessionStart hook reports whether it can see ANTHROPIC_API_KEY.
    shell = createLocalShell({
      graceMs: 500,
      ambientEnv: { PATH: process.env.PATH, HOME: process.env.HOME, ANTHROPIC_API_KEY: "sk-ant-not-a-real-key" },
    });
    settings = parseHookSettings(readJson(join(examples, "settings.json")), { dialect: "claude-code" });
  });
  after(() => shell.close());

  const run = (name: string, eventName: string): Promise<HookDispatchResult> =>
    dispatchHookEvent(shell, settings, { event: eventName, payload: event(name), projectDir: examples, owner: null });

  it("rm -rf is blocked with the script's reason", async () => {
    const result = await run("pre_tool_use_rm", "PreToolUse");
    assert.equal(result.blocked, true);
    assert.equal(result.permission, "deny");
    assert.equal(result.reasons.length, 1);
    assert.match(result.reasons[0], /^Blocked by block-rm\.sh: 'rm -rf' deletes without asking/);
  });

  it("git push asks the user, with the script's reason", async () => {
    const result = await run("pre_tool_use_push", "PreToolUse");
    assert.equal(result.permission, "ask");
    assert.equal(result.blocked, false);
    assert.deepEqual(result.reasons, ["git push publishes commits to the shared remote: please confirm."]);
  });

  it("an edit of a source file adds a reminder to the context", async () => {
    const result = await run("post_tool_use", "PostToolUse");
    assert.equal(result.blocked, false);
    assert.deepEqual(result.additionalContext, [
      "/home/dev/shop/src/cart.ts changed: run the tests (deno test -A) before you report the task as done.",
    ]);
  });

  it("SessionStart: the hook cannot see the API key", async () => {
    const result = await run("session_start", "SessionStart");
    assert.deepEqual(result.additionalContext, [
      "ANTHROPIC_API_KEY is not visible to hooks (scrubbed).\nCredential-shaped variables visible to hooks: 0",
    ]);
  });
});
