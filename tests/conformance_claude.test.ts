/**
 * The hook bridge against the released Claude Code binary: each case runs
 * the real binary (`-p`, a mock model on 127.0.0.1 that asks for one Bash
 * call) with a project settings file of PreToolUse hooks written in sh,
 * Python and Node, each logging the payload it got; then the binary's own
 * payload is replayed through `dispatchHookEvent` with the same settings.
 * Compared: which hooks ran, whether the command ran (a file it touches),
 * and that what the model was shown (the tool result the mock received)
 * carries the reason the bridge reports. The binary is the reference: a
 * case that differs fails.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookDispatchResult, parseHookSettings } from "../src/hooks/mod.ts";
import { CLAUDE_CODE_VERSION, claudeCodeBinary, REQUIRE_AGENTS } from "./helpers/agents.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { MockModel } from "./helpers/mock_model.ts";

/** A hook of a case: its language, and what it does once it has logged its input. */
interface CaseHook {
  readonly language: "sh" | "python" | "node";
  /** What it prints on stdout. */
  readonly stdout?: string;
  /** What it prints on stderr. */
  readonly stderr?: string;
  readonly exit: number;
  /** The group's matcher (default `Bash`). */
  readonly matcher?: string;
  /** Claude Code's `if` rule. */
  readonly if?: string;
}

/** One case: its hooks, in configuration order, and what both sides must agree on. */
interface Case {
  readonly name: string;
  readonly hooks: readonly CaseHook[];
}

const denyJson = (reason: string): string =>
  JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
  });

const CASES: readonly Case[] = [
  { name: "exit 2 blocks, stderr is the reason (sh)", hooks: [{ language: "sh", stderr: "no rm here", exit: 2 }] },
  { name: "exit 2 blocks (Python)", hooks: [{ language: "python", stderr: "python says no", exit: 2 }] },
  { name: "exit 2 blocks (Node)", hooks: [{ language: "node", stderr: "node says no", exit: 2 }] },
  {
    name: "a JSON deny blocks with its reason",
    hooks: [{ language: "sh", stdout: denyJson("denied by JSON"), exit: 0 }],
  },
  {
    name: "a JSON deny from Python",
    hooks: [{ language: "python", stdout: denyJson("python JSON deny"), exit: 0 }],
  },
  { name: "exit 0 with no output allows", hooks: [{ language: "sh", exit: 0 }] },
  { name: "exit 1 is a non-blocking error", hooks: [{ language: "sh", stderr: "hook broke", exit: 1 }] },
  {
    name: "a JSON allow allows",
    hooks: [{
      language: "node",
      stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } }),
      exit: 0,
    }],
  },
  { name: "a matcher for another tool: the hook does not run", hooks: [{ language: "sh", exit: 2, matcher: "Write" }] },
  {
    name: "an if rule that does not match: the hook does not run",
    hooks: [{ language: "sh", stderr: "should not run", exit: 2, if: "Bash(rm *)" }],
  },
  {
    name: "an if rule that matches: the hook runs and blocks",
    hooks: [{ language: "sh", stderr: "touch refused", exit: 2, if: "Bash(touch *)" }],
  },
  {
    name: "two denies: the model is shown the JSON deny's reason",
    hooks: [
      { language: "sh", stderr: "exit-2 reason", exit: 2 },
      { language: "sh", stdout: denyJson("json reason"), exit: 0 },
    ],
  },
];

/** The script of hook `index` of a case, logging its stdin to `<dir>/input-<index>.json`. */
function hookScript(hook: CaseHook, dir: string, index: number): string {
  const log = join(dir, `input-${index}.json`);
  const stdout = hook.stdout ?? "";
  const stderr = hook.stderr ?? "";
  if (hook.language === "sh") {
    return [
      "#!/bin/sh",
      `cat > ${shQuote(log)}`,
      stdout === "" ? "" : `printf '%s' ${shQuote(stdout)}`,
      stderr === "" ? "" : `printf '%s\\n' ${shQuote(stderr)} >&2`,
      `exit ${hook.exit}`,
    ].join("\n");
  }
  if (hook.language === "python") {
    return [
      "#!/usr/bin/env python3",
      "import sys",
      `open(${JSON.stringify(log)}, "w").write(sys.stdin.read())`,
      `sys.stdout.write(${JSON.stringify(stdout)})`,
      stderr === "" ? "" : `sys.stderr.write(${JSON.stringify(`${stderr}\n`)})`,
      `sys.exit(${hook.exit})`,
    ].join("\n");
  }
  return [
    `#!${process.execPath.endsWith("deno") ? "/usr/bin/env node" : process.execPath}`,
    'const fs = require("fs");',
    `fs.writeFileSync(${JSON.stringify(log)}, fs.readFileSync(0));`,
    `process.stdout.write(${JSON.stringify(stdout)});`,
    stderr === "" ? "" : `process.stderr.write(${JSON.stringify(`${stderr}\n`)});`,
    `process.exitCode = ${hook.exit};`,
  ].join("\n");
}

/** The settings file of a case: one group per hook, in order. */
function settingsOf(testCase: Case, dir: string): Record<string, unknown> {
  return {
    hooks: {
      PreToolUse: testCase.hooks.map((hook, index) => {
        const script = join(
          dir,
          `hook-${index}${hook.language === "python" ? ".py" : hook.language === "node" ? ".cjs" : ".sh"}`,
        );
        writeFileSync(script, hookScript(hook, dir, index));
        chmodSync(script, 0o755);
        const entry: Record<string, unknown> = { type: "command", command: script };
        if (hook.if !== undefined) entry.if = hook.if;
        return { matcher: hook.matcher ?? "Bash", hooks: [entry] };
      }),
    },
  };
}

/** What one side did with a case. */
interface Outcome {
  /** The indexes of the hooks that ran. */
  readonly ran: number[];
  /** Whether the tool call was blocked (the command never ran). */
  readonly blocked: boolean;
}

/** Runs `binary` on the case in `dir`; the outcome, what the model was shown, and the payloads the hooks got. */
async function runBinary(
  binary: string,
  testCase: Case,
  dir: string,
): Promise<{ outcome: Outcome; shown: string; payloads: Map<number, Record<string, unknown>> }> {
  const project = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(join(project, ".claude"), { recursive: true });
  mkdirSync(home);
  const hooksDir = join(dir, "binary");
  mkdirSync(hooksDir);
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify(settingsOf(testCase, hooksDir)));
  const marker = join(dir, "command-ran");
  const model = new MockModel({ name: "Bash", input: { command: `touch ${shQuote(marker)}`, description: "touch" } });
  const url = await model.start();
  try {
    const child = spawn(binary, [
      "-p",
      "run the command",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "bypassPermissions",
    ], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        // Claude Code refuses bypassPermissions as root outside a sandbox; the test's temp dirs are its sandbox.
        IS_SANDBOX: "1",
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "sk-ant-mock-key-for-a-loopback-server",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
      },
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => stderr += chunk);
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    assert.equal(code, 0, `Claude Code failed: ${stderr}`);
  } finally {
    await model.close();
  }
  const results = model.toolResults();
  assert.equal(results.length, 1, `one tool result shown to the model: ${JSON.stringify(model.requests.length)}`);
  const payloads = new Map<number, Record<string, unknown>>();
  for (const name of readdirSync(hooksDir)) {
    const match = /^input-(\d+)\.json$/.exec(name);
    if (match !== null) payloads.set(Number(match[1]), JSON.parse(readFileSync(join(hooksDir, name), "utf8")));
  }
  const ran = [...payloads.keys()].sort((a, b) => a - b);
  return { outcome: { ran, blocked: !existsSync(marker) }, shown: results[0].content, payloads };
}

/** Replays `payload` through the bridge with the case's settings, in `dir`. */
async function runBridge(
  shell: Shell,
  testCase: Case,
  dir: string,
  payload: Record<string, unknown>,
): Promise<{ outcome: Outcome; result: HookDispatchResult }> {
  const hooksDir = join(dir, "bridge");
  mkdirSync(hooksDir);
  const settings = parseHookSettings(settingsOf(testCase, hooksDir), { dialect: "claude-code" });
  const result = await dispatchHookEvent(shell, settings, {
    event: "PreToolUse",
    payload,
    projectDir: join(dir, "project"),
    owner: null,
  });
  const ran = readdirSync(hooksDir).flatMap((name) => {
    const match = /^input-(\d+)\.json$/.exec(name);
    return match === null ? [] : [Number(match[1])];
  }).sort((a, b) => a - b);
  return { outcome: { ran, blocked: result.blocked || result.permission === "deny" }, result };
}

const found = claudeCodeBinary();

describe(`the hook bridge and Claude Code ${CLAUDE_CODE_VERSION}, PreToolUse, case by case`, () => {
  let shell: Shell;
  let dir: string;
  before(() => {
    dir = freshDir("dsh-conformance-");
    shell = createLocalShell({ graceMs: 500 });
  });
  after(async () => {
    await shell?.close();
    removeDir(dir);
  });

  it("the binary is here where it is required", () => {
    if (REQUIRE_AGENTS) assert.ok("path" in found, "missing" in found ? found.missing : "");
  });

  for (const [index, testCase] of CASES.entries()) {
    it(testCase.name, { skip: "missing" in found ? found.missing : false }, async () => {
      const binary = (found as { path: string }).path;
      const caseDir = join(dir, `case-${index}`);
      mkdirSync(caseDir);
      const claude = await runBinary(binary, testCase, caseDir);
      // The payload the binary gave its first hook that ran, or a faithful one when none ran (the bridge must not
      // run any then).
      const payload = claude.payloads.values().next().value ?? {
        session_id: "none-ran",
        cwd: join(caseDir, "project"),
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: `touch ${shQuote(join(caseDir, "command-ran"))}`, description: "touch" },
        tool_use_id: "toolu_mock_1",
      };
      const bridge = await runBridge(shell, testCase, caseDir, payload);
      assert.deepEqual(bridge.outcome, claude.outcome, `the bridge decided otherwise; the model saw ${claude.shown}`);
      // What the model is shown carries every reason the bridge reports, and only those.
      for (const reason of bridge.result.reasons) {
        assert.ok(
          claude.shown.includes(reason.trim()),
          `${JSON.stringify(reason)} not in ${JSON.stringify(claude.shown)}`,
        );
      }
      for (const hook of testCase.hooks) {
        const own = hook.stderr ?? "";
        if (claude.outcome.blocked && own !== "" && !claude.shown.includes(own)) {
          assert.ok(!bridge.result.reasons.some((reason) => reason.includes(own)), `${own} is not shown by the binary`);
        }
      }
    });
  }
});
