/**
 * The hook bridge against the released agent binaries, Claude Code and
 * Codex: each case runs the real binary (a mock model on loopback that asks
 * for one shell call, both in a network namespace of their own) with
 * PreToolUse hooks written in sh, Python and Node, each logging the payload
 * it got; then the binary's own payload is replayed through
 * `dispatchHookEvent` in the binary's dialect with the same settings.
 * Compared: which hooks ran, whether the command ran (a file it touches),
 * and that what the model was shown (the tool result the mock received)
 * carries every reason the bridge reports. The binary is the reference: a
 * case that differs fails. CI runs the binaries' side once and every leg
 * replays it (`tests/helpers/agent_records.ts`).
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { isDeepStrictEqual } from "node:util";
import { createLocalShell, type Shell } from "../mod.ts";
import {
  dispatchHookEvent,
  type HookDialect,
  type HookDispatchResult,
  type HookWarning,
  parseHookSettings,
} from "../src/hooks/mod.ts";
import { isolation, REQUIRE_AGENTS, runAgent } from "./helpers/agents.ts";
import {
  AGENT_RUNS,
  loadRecord,
  pool,
  RECORD_CONCURRENCY,
  type RecordKey,
  RUNS_BINARIES,
  saveRecord,
} from "./helpers/agent_records.ts";
import { type Agent, AGENTS, reportCase } from "./helpers/conformance.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { toolResultsOf } from "./helpers/mock_model.ts";

/** A hook of a case: its language, and what it does once it has logged its input. */
interface CaseHook {
  /**
   * `inline`: shell form, the command line itself in the settings, which
   * also notes what its shell made of a bashism (`[[ ]]`) and `echo -e`.
   */
  readonly language: "sh" | "python" | "node" | "inline";
  /** What it prints on stdout. */
  readonly stdout?: string;
  /** What it prints on stderr. */
  readonly stderr?: string;
  readonly exit: number;
  /** The group's matcher (default `Bash`). */
  readonly matcher?: string;
  /** Claude Code's `if` rule. */
  readonly if?: string;
  /** Seconds it takes before it answers: which of several hooks finishes last is part of some cases. */
  readonly seconds?: number;
  /** The entry's `timeout`, in seconds. */
  readonly timeout?: number;
}

/** One case: its hooks, in configuration order, and what both sides must agree on. */
interface Case {
  readonly name: string;
  readonly hooks: readonly CaseHook[];
  /**
   * A documented difference: Codex 0.169.0 loads no hook of the file (the
   * bridge runs them, with a warning: it blocks more, never less).
   */
  readonly codexLoadsNothing?: true;
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
    name: "shell form: the harness's shell runs the command line ([[ ]], echo -e)",
    hooks: [{ language: "inline", stderr: "inline says no", exit: 2 }],
  },
  {
    // Claude Code kills the hook at 0.5 s (the call runs); Codex loads no hook of a file with a fractional timeout.
    name: "timeout 0.5 s, a deny after 0.8 s: killed at the timeout (Codex: not loaded)",
    hooks: [{ language: "sh", stdout: denyJson("late deny"), exit: 0, seconds: 0.8, timeout: 0.5 }],
    codexLoadsNothing: true,
  },
  {
    name: "two denies, the exit-2 one finishing last: the model is shown its reason",
    hooks: [
      { language: "sh", stderr: "exit-2 reason", exit: 2, seconds: 0.6 },
      { language: "sh", stdout: denyJson("json reason"), exit: 0 },
    ],
  },
  {
    name: "two denies, the JSON one finishing last: the model is shown its reason",
    hooks: [
      { language: "sh", stderr: "exit-2 reason", exit: 2 },
      { language: "python", stdout: denyJson("json reason"), exit: 0, seconds: 0.6 },
    ],
  },
];

/** The script of hook `index` of a case, logging its stdin to `<dir>/input-<index>.json`. */
function hookScript(hook: CaseHook, dir: string, index: number): string {
  const log = join(dir, `input-${index}.json`);
  const stdout = hook.stdout ?? "";
  const stderr = hook.stderr ?? "";
  if (hook.language === "inline") {
    const noted = join(dir, `shell-${index}.txt`);
    return [
      `cat > ${shQuote(log)}`,
      `{ [[ 1 == 1 ]] && echo bash || echo posix; echo -e 'x\\ty'; } > ${shQuote(noted)} 2>/dev/null`,
      stdout === "" ? "" : `printf '%s' ${shQuote(stdout)}`,
      stderr === "" ? "" : `printf '%s\\n' ${shQuote(stderr)} >&2`,
      `exit ${hook.exit}`,
    ].filter((line) => line !== "").join("; ");
  }
  if (hook.language === "sh") {
    return [
      "#!/bin/sh",
      `cat > ${shQuote(log)}`,
      hook.seconds === undefined ? "" : `sleep ${hook.seconds}`,
      stdout === "" ? "" : `printf '%s' ${shQuote(stdout)}`,
      stderr === "" ? "" : `printf '%s\\n' ${shQuote(stderr)} >&2`,
      `exit ${hook.exit}`,
    ].join("\n");
  }
  if (hook.language === "python") {
    return [
      "#!/usr/bin/env python3",
      "import sys, time",
      `open(${JSON.stringify(log)}, "w").write(sys.stdin.read())`,
      `time.sleep(${hook.seconds ?? 0})`,
      `sys.stdout.write(${JSON.stringify(stdout)})`,
      stderr === "" ? "" : `sys.stderr.write(${JSON.stringify(`${stderr}\n`)})`,
      `sys.exit(${hook.exit})`,
    ].join("\n");
  }
  return [
    `#!${process.execPath.endsWith("deno") ? "/usr/bin/env node" : process.execPath}`,
    'const fs = require("fs");',
    `fs.writeFileSync(${JSON.stringify(log)}, fs.readFileSync(0));`,
    hook.seconds === undefined
      ? ""
      : `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${hook.seconds * 1000});`,
    `process.stdout.write(${JSON.stringify(stdout)});`,
    stderr === "" ? "" : `process.stderr.write(${JSON.stringify(`${stderr}\n`)});`,
    `process.exitCode = ${hook.exit};`,
  ].join("\n");
}

/** The settings' command of hook `index`: the inline command line, or the path of the script written for it. */
function hookCommand(hook: CaseHook, dir: string, index: number): string {
  if (hook.language === "inline") return hookScript(hook, dir, index);
  const script = join(
    dir,
    `hook-${index}${hook.language === "python" ? ".py" : hook.language === "node" ? ".cjs" : ".sh"}`,
  );
  writeFileSync(script, hookScript(hook, dir, index));
  chmodSync(script, 0o755);
  return script;
}

/** The settings file of a case: one group per hook, in order. */
function caseSettings(testCase: Case, dir: string): Record<string, unknown> {
  return {
    hooks: {
      PreToolUse: testCase.hooks.map((hook, index) => {
        const entry: Record<string, unknown> = { type: "command", command: hookCommand(hook, dir, index) };
        if (hook.if !== undefined) entry.if = hook.if;
        if (hook.timeout !== undefined) entry.timeout = hook.timeout;
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
  /** What each inline hook's shell made of `[[ ]]` and `echo -e`, by hook index. */
  readonly shells: Record<number, string>;
}

/** What the inline hooks of `dir` noted of their shell (`shell-<index>.txt`), by hook index. */
function shellsNoted(dir: string): Record<number, string> {
  const noted: Record<number, string> = {};
  for (const name of readdirSync(dir)) {
    const match = /^shell-(\d+)\.txt$/.exec(name);
    if (match !== null) noted[Number(match[1])] = readFileSync(join(dir, name), "utf8");
  }
  return noted;
}

/** What the binary did with a case, what its model was shown, and the payloads its hooks got, by hook index. */
interface BinaryRun {
  readonly outcome: Outcome;
  readonly shown: string;
  /** `[hook index, payload]`, in index order (a record holds JSON). */
  readonly payloads: [number, Record<string, unknown>][];
}

/** The payloads the hooks of `dir` logged (`input-<index>.json`), by hook index, in index order: the hooks that ran. */
function loggedPayloads(dir: string): Map<number, Record<string, unknown>> {
  const logged = readdirSync(dir).flatMap((name) => {
    const match = /^input-(\d+)\.json$/.exec(name);
    return match === null ? [] : [[Number(match[1]), name] as const];
  }).sort(([a], [b]) => a - b);
  return new Map(logged.map(([index, name]) => [index, JSON.parse(readFileSync(join(dir, name), "utf8"))]));
}

/** Runs `agent`'s binary on the case in `dir`. */
async function runBinary(bwrap: string, agent: Agent, binary: string, testCase: Case, dir: string): Promise<BinaryRun> {
  const hooksDir = join(dir, "binary");
  mkdirSync(hooksDir, { recursive: true });
  mkdirSync(join(dir, "project"), { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
  const marker = join(dir, "command-ran");
  const { argv, env, prepare } = agent.setUp(binary, caseSettings(testCase, hooksDir), dir);
  const run = await runAgent(bwrap, {
    argv,
    env,
    ...(prepare === undefined ? {} : { prepare }),
    cwd: join(dir, "project"),
    protocol: agent.dialect === "codex" ? "responses" : "anthropic",
    call: agent.call(`touch ${shQuote(marker)}`),
    dir,
  });
  assert.equal(run.code, 0, `${agent.name} failed: ${run.stderr}`);
  const results = toolResultsOf(run.requests.at(-1));
  assert.equal(results.length, 1, `one tool result shown to the model, after ${run.requests.length} requests`);
  const payloads = loggedPayloads(hooksDir);
  const ran = [...payloads.keys()];
  return {
    outcome: { ran, blocked: !existsSync(marker), shells: shellsNoted(hooksDir) },
    shown: results[0].content,
    payloads: [...payloads],
  };
}

/** Replays `payload` through the bridge with the case's settings, in `dir`. */
async function runBridge(
  shell: Shell,
  dialect: HookDialect,
  testCase: Case,
  dir: string,
  payload: Record<string, unknown>,
): Promise<{ outcome: Outcome; result: HookDispatchResult; warnings: readonly HookWarning[] }> {
  const hooksDir = join(dir, "bridge");
  mkdirSync(hooksDir);
  const settings = parseHookSettings(caseSettings(testCase, hooksDir), { dialect });
  const warnings = settings.warnings ?? [];
  const result = await dispatchHookEvent(shell, settings, {
    event: "PreToolUse",
    payload,
    projectDir: join(dir, "project"),
    owner: null,
  });
  const ran = [...loggedPayloads(hooksDir).keys()];
  return {
    outcome: { ran, blocked: result.blocked || result.permission === "deny", shells: shellsNoted(hooksDir) },
    result,
    warnings,
  };
}

const isolated = isolation();

for (const agent of AGENTS) {
  describe(`the hook bridge and ${agent.name}, PreToolUse, case by case`, () => {
    let shell: Shell;
    let dir: string;
    // A replaying leg runs no binary.
    const missing = !RUNS_BINARIES
      ? undefined
      : "missing" in agent.found
      ? agent.found.missing
      : "missing" in isolated
      ? isolated.missing
      : undefined;
    /** While the live step records: every case, started before its turn, {@linkcode RECORD_CONCURRENCY} at a time. */
    const early = new Map<number, Promise<void>>();
    before(() => {
      dir = freshDir("dsh-conformance-");
      shell = createLocalShell({ graceMs: 500 });
      if (missing !== undefined || AGENT_RUNS.mode !== "record") return;
      const next = pool(RECORD_CONCURRENCY);
      for (const [index, testCase] of CASES.entries()) {
        const running = next(() => runCase(index, testCase));
        // Awaited by its own `it`; until then a failure must not count as unhandled.
        running.catch(() => {});
        early.set(index, running);
      }
    });
    after(async () => {
      await shell?.close();
      removeDir(dir);
    });

    it("the binary is here where it is required", () => {
      if (REQUIRE_AGENTS) assert.equal(missing, undefined, missing);
    });

    for (const [index, testCase] of CASES.entries()) {
      it(testCase.name, { skip: missing ?? false }, () => early.get(index) ?? runCase(index, testCase));
    }

    /** Runs a case through the binary and the bridge (or records, or replays, the binary's side) and compares. */
    async function runCase(index: number, testCase: Case): Promise<void> {
      const caseDir = join(dir, `case-${index}`);
      mkdirSync(caseDir);
      const key: RecordKey = { suite: "PreToolUse", agent: agent.name, name: testCase.name, definition: testCase };
      let ran: BinaryRun;
      if (RUNS_BINARIES) {
        const binary = (agent.found as { path: string }).path;
        ran = await runBinary((isolated as { bwrap: string }).bwrap, agent, binary, testCase, caseDir);
        if (AGENT_RUNS.mode === "record") return saveRecord(key, caseDir, ran);
      } else {
        ran = await loadRecord<BinaryRun>(key, caseDir);
        mkdirSync(join(caseDir, "project"));
      }
      // The payload the binary gave its first hook that ran, or one like it when none ran (the bridge must run
      // none then either).
      const payload = ran.payloads[0]?.[1] ?? {
        session_id: "none-ran",
        cwd: join(caseDir, "project"),
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: `touch ${shQuote(join(caseDir, "command-ran"))}` },
        tool_use_id: "toolu_mock_1",
      };
      const bridge = await runBridge(shell, agent.dialect, testCase, caseDir, payload);
      // The documented difference: Codex ran nothing and let the call run; the bridge runs the hooks (and warns).
      const differs = agent.dialect === "codex" && testCase.codexLoadsNothing === true;
      const warned = bridge.warnings.some((warning) => /loads no hook of this file/.test(warning.message));
      reportCase({
        suite: "PreToolUse",
        agent: agent.name,
        case: testCase.name,
        binary: { ...ran.outcome, shown: ran.shown },
        bridge: { ...bridge.outcome, reasons: bridge.result.reasons },
        matches: differs
          ? ran.outcome.ran.length === 0 && !ran.outcome.blocked && warned
          : isDeepStrictEqual(bridge.outcome, ran.outcome) &&
            bridge.result.reasons.every((reason) => ran.shown.includes(reason.trim())),
      });
      if (differs) {
        assert.deepEqual(ran.outcome.ran, [], `${agent.name} ran a hook of the file`);
        assert.equal(ran.outcome.blocked, false);
        assert.ok(warned, "the bridge did not warn of the difference");
        return;
      }
      assert.deepEqual(bridge.outcome, ran.outcome, `the bridge decided otherwise; the model saw ${ran.shown}`);
      // An inline hook that ran noted its shell: the comparison above is not of two missing notes.
      for (const index of ran.outcome.ran) {
        if (testCase.hooks[index].language === "inline") {
          assert.match(ran.outcome.shells[index] ?? "", /^(bash|posix)\n/);
        }
      }
      // What the model is shown carries every reason the bridge reports, and none the binary dropped.
      for (const reason of bridge.result.reasons) {
        assert.ok(ran.shown.includes(reason.trim()), `${JSON.stringify(reason)} not in ${JSON.stringify(ran.shown)}`);
      }
    }
  });
}
