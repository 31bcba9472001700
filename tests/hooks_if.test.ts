/**
 * Claude Code's `if` filters: the reference's Bash table row by row, the
 * word boundary of a trailing ` *`, compound commands, wrappers and
 * assignments, fail-open, Edit/Read paths with their anchors, MCP, WebFetch
 * and parameter rules; then through dispatch: a hook whose `if` does not
 * match never starts, `if` on a non-tool event never runs, Codex ignores
 * `if`.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookDialect } from "../src/hooks/mod.ts";
import { type IfContext, type IfOutcome, ifRuleMatches, parseIfRule } from "../src/hooks/settings/if/if_filter.ts";
import { compileBashPattern, splitBashCommand } from "../src/hooks/settings/if/bash_rule.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { fileLines } from "./helpers/files.ts";
import { settingsWith } from "./helpers/hooks.ts";

const CWD = "/home/dev/shop";

/** What `rule` decides for a call of `toolName` with `toolInput`: a match, and why it failed open if it did. */
function outcome(rule: string, toolName: string, toolInput: unknown, cwd = CWD): IfOutcome {
  const parsed = parseIfRule(rule);
  assert.ok(parsed !== undefined, `${rule} parses`);
  const context: IfContext = { toolName, toolInput, cwd, home: homedir(), settingsRoot: "/home/dev/shop" };
  return ifRuleMatches(parsed, context);
}

/** Whether `rule` lets a hook run for a call of `toolName` with `toolInput`. */
function ruleLetsHookRun(rule: string, toolName: string, toolInput: unknown, cwd = CWD): boolean {
  return outcome(rule, toolName, toolInput, cwd).match;
}

const bash = (rule: string, command: string): boolean => ruleLetsHookRun(rule, "Bash", { command });

describe("if: Bash rules", () => {
  it("the reference's table, row by row", () => {
    assert.equal(bash("Bash(git *)", "FOO=bar git push"), true, "leading assignments are stripped");
    assert.equal(bash("Bash(git *)", "npm test && git push"), true, "each subcommand is checked");
    assert.equal(bash("Bash(rm *)", "echo $(rm -rf /)"), true, "commands inside $() are checked");
    assert.equal(bash("Bash(rm *)", "echo $(date)"), false, "no subcommand matches rm *");
    assert.equal(bash("Bash(git push *)", "echo $(date)"), true, "more than the command name: runs on $()");
  });

  it("a trailing ' *' needs a word boundary; '*' alone does not; ':*' is ' *' at the end only", () => {
    assert.equal(bash("Bash(ls *)", "ls -la"), true);
    assert.equal(bash("Bash(ls *)", "ls"), true);
    assert.equal(bash("Bash(ls *)", "lsof"), false);
    assert.equal(bash("Bash(ls*)", "lsof"), true);
    assert.equal(bash("Bash(ls:*)", "ls -la"), true);
    assert.equal(bash("Bash(ls:*)", "lsof"), false);
    assert.equal(bash("Bash(git:* push)", "git push"), false, "a colon elsewhere is literal");
  });

  it("* spans spaces anywhere; an exact command is exact", () => {
    assert.equal(bash("Bash(git * main)", "git push origin main"), true);
    assert.equal(bash("Bash(git * main)", "git push origin dev"), false);
    assert.equal(bash("Bash(* --version)", "node --version"), true);
    assert.equal(bash("Bash(npm run build)", "npm run build"), true);
    assert.equal(bash("Bash(npm run build)", "npm run build:prod"), false);
    assert.equal(bash("Bash", "anything"), true);
    assert.equal(bash("Bash(*)", "anything"), true);
  });

  it("every separator splits: && || ; | |& & and newlines; redirections do not", () => {
    for (const command of ["a; rm -rf x", "a || rm x", "a | rm x", "a |& rm x", "sleep 1 & rm x", "a\nrm x"]) {
      assert.equal(bash("Bash(rm *)", command), true, command);
    }
    assert.equal(bash("Bash(rm *)", "make 2>&1 rm"), false, "2>&1 is not a separator");
    assert.equal(bash("Bash(rm *)", "echo 'a; rm x'"), false, "quoted separators are text");
    assert.equal(bash("Bash(rm *)", "(cd build && rm -rf out)"), true, "subshells");
    assert.equal(bash("Bash(rm *)", "if true; then rm x; fi"), true, "keywords");
    assert.equal(bash("Bash(rm *)", "diff <(rm x) y"), true, "process substitution");
    assert.equal(bash("Bash(rm *)", "echo `rm x`"), true, "backticks");
  });

  it("the fixed wrappers are stripped; command -v and xargs with flags are not", () => {
    assert.equal(bash("Bash(npm test *)", "timeout 30 npm test"), true);
    assert.equal(bash("Bash(npm test *)", "timeout -s KILL 30 npm test --watch"), true);
    assert.equal(bash("Bash(npm test *)", "nice -n 5 nohup npm test"), true);
    assert.equal(bash("Bash(grep *)", "xargs grep pattern"), true);
    assert.equal(bash("Bash(grep *)", "xargs -n1 grep pattern"), false);
    assert.equal(bash("Bash(rm *)", "command -v rm"), false);
    assert.equal(bash("Bash(rm *)", "A=1 B='x y' command rm -f x"), true);
  });

  it("fails open when the command cannot be parsed, or is too long to analyse", () => {
    const parsed = parseIfRule("Bash(git push *)");
    assert.ok(parsed);
    const context = { cwd: CWD, home: homedir(), settingsRoot: CWD, toolName: "Bash" };
    const unterminated = ifRuleMatches(parsed, { ...context, toolInput: { command: `echo "unterminated` } });
    assert.deepEqual(unterminated, { match: true, failOpen: "the command could not be parsed" });
    assert.equal(splitBashCommand(`echo $(ls`), undefined);
    assert.equal(bash("Bash(git push *)", `${"x".repeat(10_001)}`), true);
    assert.equal(bash("Bash(git push *)", "x"), false);
  });

  it("a $VAR or ${VAR} makes the command dynamic; a command-name-only pattern still needs a match", () => {
    assert.equal(bash("Bash(git push *)", "$GIT push"), true);
    assert.equal(bash("Bash(git push *)", "echo ${HOME}"), true);
    assert.equal(bash("Bash(rm *)", "$CMD -rf /"), false);
    assert.equal(bash("Bash(git push *)", "echo '$NOT_EXPANDED'"), false, "single quotes keep $ literal");
    assert.deepEqual(compileBashPattern("rm:*").commandNameOnly, true);
    assert.deepEqual(compileBashPattern("git push *").commandNameOnly, false);
  });
});

describe("if: Edit and Read paths", () => {
  const edit = (rule: string, path: string, tool = "Edit"): boolean => ruleLetsHookRun(rule, tool, { file_path: path });

  it("src/** is only <cwd>/src (2.1.214); **/src/** is any depth", () => {
    assert.equal(edit("Edit(src/**)", `${CWD}/src/app.ts`), true);
    assert.equal(edit("Edit(src/**)", `${CWD}/src/deep/app.ts`), true);
    assert.equal(edit("Edit(src/**)", `${CWD}/vendor/pkg/src/lib.js`), false);
    assert.equal(edit("Edit(**/src/**)", `${CWD}/vendor/pkg/src/lib.js`), true);
    assert.equal(edit("Edit(src/**)", "/elsewhere/src/app.ts"), false, "only under the anchor");
  });

  it("a bare name or glob matches at any depth; * stays within a segment", () => {
    assert.equal(edit("Edit(*.ts)", `${CWD}/src/deep/app.ts`), true);
    assert.equal(edit("Edit(*.ts)", `${CWD}/src/app.tsx`), false);
    assert.equal(edit("Edit(src/*.ts)", `${CWD}/src/deep/app.ts`), false);
    assert.equal(edit("Edit(src/*.ts)", `${CWD}/src/app.ts`), true);
    assert.equal(ruleLetsHookRun("Read(.env)", "Read", { file_path: `${CWD}/a/b/.env` }), true);
    assert.equal(
      ruleLetsHookRun("Read(secrets)", "Read", { file_path: `${CWD}/config/secrets/key.pem` }),
      true,
      "a dir",
    );
    assert.equal(
      ruleLetsHookRun("Read(secrets/)", "Read", { file_path: `${CWD}/secrets` }),
      false,
      "dir-only: not a file",
    );
  });

  it("the four anchors: //absolute, ~/home, /settings root, ./cwd", () => {
    assert.equal(ruleLetsHookRun("Read(//etc/**)", "Read", { file_path: "/etc/passwd" }), true);
    assert.equal(
      ruleLetsHookRun("Read(~/.ssh/**)", "Read", { file_path: join(homedir(), ".ssh", "id_ed25519") }),
      true,
    );
    assert.equal(edit("Edit(/docs/**)", "/home/dev/shop/docs/a.md"), true);
    assert.equal(edit("Edit(/docs/**)", "/docs/a.md"), false, "/path is not absolute");
    assert.equal(edit("Edit(./notes.md)", `${CWD}/notes.md`), true);
    assert.equal(edit("Edit(./notes.md)", `${CWD}/sub/notes.md`), false, "./ anchors");
    // The event's cwd, not the project root, anchors a relative pattern.
    assert.equal(ruleLetsHookRun("Edit(src/**)", "Edit", { file_path: "/other/src/a.ts" }, "/other"), true);
  });

  it("Edit rules cover the tools that edit files but Write (Claude Code 2.1.328); Read rules Read, Grep and Glob", () => {
    assert.equal(
      edit("Edit(*.ts)", `${CWD}/a.ts`, "Write"),
      false,
      "measured: Claude Code runs no Edit(…) hook on Write",
    );
    assert.equal(edit("Write(*.ts)", `${CWD}/a.ts`, "Write"), true);
    assert.equal(edit("Write(lib/**)", `${CWD}/src/a.ts`, "Write"), false, "Write(…) is a path rule");
    assert.equal(edit("Write(*.ts)", `${CWD}/a.ts`), false, "a Write rule is not about Edit");
    assert.equal(ruleLetsHookRun("Edit(*.ts)", "MultiEdit", { file_path: `${CWD}/a.ts`, edits: [] }), true);
    assert.equal(ruleLetsHookRun("Edit(*.ipynb)", "NotebookEdit", { notebook_path: `${CWD}/n.ipynb` }), true);
    assert.equal(ruleLetsHookRun("Read(src/**)", "Grep", { pattern: "x", path: `${CWD}/src` }), true);
    assert.equal(edit("Read(*.ts)", `${CWD}/a.ts`), false, "a Read rule is not about Edit");
  });

  it("a path the model made huge is not matched segment by segment: past 4096 characters the hook runs", () => {
    const edited = (path: string): IfOutcome => outcome("Edit(src/**)", "Edit", { file_path: path });
    // 128 K characters, 64 K segments: the rule once took ~40 s here, the event loop blocked.
    const huge = edited(`${CWD}/lib/${"a/".repeat(65_536)}x.ts`);
    assert.deepEqual(huge, { match: true, failOpen: "tool_input.file_path is longer than 4096 characters" });
    // Just under the cap, with 2 000 segments: matched for real, both ways.
    const deep = "a/".repeat(2_000);
    assert.deepEqual(edited(`${CWD}/src/${deep}x.ts`), { match: true });
    assert.deepEqual(edited(`${CWD}/lib/${deep}x.ts`), { match: false });
    assert.equal(edit("Edit(**/b/**/c/*.ts)", `${CWD}/${deep}x.ts`), false);
  });

  it("a newline in a file name does not take the path out of the rule", () => {
    assert.equal(edit("Edit(src/**)", `${CWD}/src/a\nb.ts`), true);
    assert.equal(edit("Edit(*.ts)", `${CWD}/x\n/y.ts`), true);
    assert.equal(edit("Read(secrets/)", `${CWD}/secrets/\nkey`), false, "a Read rule");
    assert.equal(ruleLetsHookRun("Read(secrets/)", "Read", { file_path: `${CWD}/secrets/\nkey` }), true);
  });
});

describe("if: other rule forms", () => {
  it("MCP: a server prefix, a glob, an exact tool", () => {
    assert.equal(ruleLetsHookRun("mcp__memory", "mcp__memory__create_entities", {}), true);
    assert.equal(ruleLetsHookRun("mcp__memory", "mcp__memory2__x", {}), false);
    assert.equal(ruleLetsHookRun("mcp__github__get_*", "mcp__github__get_issue", {}), true);
    assert.equal(ruleLetsHookRun("mcp__github__get_*", "mcp__github__create_issue", {}), false);
    assert.equal(ruleLetsHookRun("mcp__github__create_issue", "mcp__github__create_issue", {}), true);
  });

  it("WebFetch(domain:…), Agent(type), Tool(param:value)", () => {
    const fetch = (rule: string, url: string): boolean => ruleLetsHookRun(rule, "WebFetch", { url, prompt: "x" });
    assert.equal(fetch("WebFetch(domain:*.example.com)", "https://api.example.com/x"), true);
    assert.equal(fetch("WebFetch(domain:*.example.com)", "https://example.com/x"), false);
    assert.equal(fetch("WebFetch(domain:example.*)", "https://example.evil.com/"), false);
    assert.equal(ruleLetsHookRun("Agent(Explore)", "Agent", { subagent_type: "Explore" }), true);
    assert.equal(ruleLetsHookRun("Agent(model:opus)", "Agent", { model: "opus" }), true);
    assert.equal(ruleLetsHookRun("Agent(model:*)", "Agent", {}), false, "an unset parameter never matches");
    assert.equal(bash("Bash(run_in_background:true)", "sleep 1"), false);
    assert.equal(
      ruleLetsHookRun("Bash(run_in_background:true)", "Bash", { command: "x", run_in_background: true }),
      true,
    );
  });

  it("Task and Agent name one tool; a parameter rule of Bash or a file tool also runs as the tool's own rule", () => {
    // Claude Code 2.1.328 ran an `if: "Task"` hook on an Agent call (tests/conformance_events.test.ts).
    assert.equal(ruleLetsHookRun("Task", "Agent", { subagent_type: "general-purpose" }), true);
    assert.equal(ruleLetsHookRun("Agent", "Task", { subagent_type: "general-purpose" }), true);
    assert.equal(ruleLetsHookRun("Task(Explore)", "Agent", { subagent_type: "general-purpose" }), false);
    // It reads `Bash(description:touch)` as a command pattern: the bridge runs the hook on either reading.
    assert.equal(
      ruleLetsHookRun("Bash(description:touch)", "Bash", { command: "description:touch", description: "x" }),
      true,
    );
    assert.equal(
      ruleLetsHookRun("Bash(description:touch)", "Bash", { command: "touch a", description: "touch" }),
      true,
    );
    assert.equal(ruleLetsHookRun("Bash(description:touch)", "Bash", { command: "touch a", description: "x" }), false);
    assert.equal(ruleLetsHookRun("Edit(content:x)", "Edit", { file_path: `${CWD}/content:x` }), true);
  });

  it("a different tool does not match; what cannot be evaluated runs", () => {
    assert.equal(bash("Edit(src/**)", "rm -rf src"), false);
    assert.equal(ruleLetsHookRun("TodoWrite(anything)", "TodoWrite", { todos: [] }), true);
    assert.equal(ruleLetsHookRun("Bash(rm *)", "Bash", "not an object"), true);
    assert.equal(parseIfRule("Bash(rm *) && Bash(git *)"), undefined, "one rule only");
  });
});

describe("if: dispatched", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-if-");
    shell = createLocalShell({ graceMs: 300, timeoutMs: 20_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const dispatch = (dialect: HookDialect, entries: Record<string, unknown>[], event: string, payload: object) =>
    dispatchHookEvent(shell, settingsWith(event, entries, dialect), {
      event,
      payload: { hook_event_name: event, ...payload },
      projectDir: dir,
      owner: null,
    });

  it("a hook whose if does not match is never started; one that does runs (sh, python3, node)", async () => {
    const spawned = join(dir, "spawned");
    const entries = [
      { if: "Bash(git push *)", command: `echo sh >> ${shQuote(spawned)}` },
      {
        if: "Bash(rm *)",
        command: "python3",
        args: ["-c", `open(${JSON.stringify(spawned)}, "a").write("python\\n")`],
      },
      {
        if: "Bash(npm *)",
        command: "node",
        args: ["-e", `require("node:fs").appendFileSync(${JSON.stringify(spawned)}, "node\\n")`],
      },
    ];
    const push = await dispatch("claude-code", entries, "PreToolUse", {
      tool_name: "Bash",
      tool_input: { command: "npm test && git push origin feature" },
    });
    assert.deepEqual(push.results.map((entry) => entry.result.outcome), ["success", "success"]);
    assert.deepEqual(fileLines(spawned).sort(), ["node", "sh"]);
  });

  it("on an event that is not a tool event, a hook with if never runs (and parse warns)", async () => {
    const settings = settingsWith("Stop", [{ if: "Bash(*)", command: "echo ran" }, { command: "echo plain" }]);
    assert.match(settings.warnings?.[0]?.message ?? "", /never runs/);
    const stop = await dispatchHookEvent(shell, settings, {
      event: "Stop",
      payload: { hook_event_name: "Stop" },
      projectDir: dir,
      owner: null,
    });
    assert.deepEqual(stop.results.map((entry) => entry.command), ["echo plain"]);
  });

  it("fail open through dispatch: the hook runs and a warning says why", async () => {
    const result = await dispatch("claude-code", [{ if: "Bash(git push *)", command: "echo ran" }], "PreToolUse", {
      tool_name: "Bash",
      tool_input: { command: `echo "unclosed` },
    });
    assert.equal(result.results.length, 1);
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0].message, /could not be parsed\); the hook runs \(fail open\)$/);
  });

  it("codex has no if: the hook runs whenever its matcher matches, with a load warning", async () => {
    const settings = settingsWith("PreToolUse", [{ if: "Bash(git push *)", command: "echo ran" }], "codex");
    assert.match(settings.warnings?.[0]?.message ?? "", /Codex has no if filter/);
    const result = await dispatchHookEvent(shell, settings, {
      event: "PreToolUse",
      payload: { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } },
      projectDir: dir,
      owner: null,
    });
    assert.deepEqual(result.results.map((entry) => entry.result.stdout), ["ran\n"]);
  });

  it("the if of identical hooks is part of their identity (claude-code dedup)", async () => {
    const entries = [{ if: "Bash(ls *)", command: "echo same" }, { if: "Bash(*)", command: "echo same" }];
    const result = await dispatch("claude-code", entries, "PreToolUse", {
      tool_name: "Bash",
      tool_input: { command: "ls" },
    });
    assert.equal(result.results.length, 2);
  });
});
