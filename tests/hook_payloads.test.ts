/**
 * The hook payload builders of `@dsh/shell/hooks` against what Claude Code
 * sends: the released binary ({@linkcode CLAUDE_CODE_VERSION}, with a mock
 * model on loopback that asks for one Bash call, in a network namespace of
 * its own) runs with a hook on each of SessionStart, UserPromptSubmit,
 * PreToolUse, PostToolUse and Stop that logs the payload it got; each
 * builder, given the same facts, must produce the same keys with the same
 * types, and the same values wherever the value is not the binary's own
 * (its session id, its transcript path, the tool's output).
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookPayload, type HookSession } from "../src/hooks/mod.ts";
import {
  CLAUDE_CODE_VERSION,
  claudeCodeBinary,
  claudeCodeRun,
  isolation,
  REQUIRE_AGENTS,
  runAgent,
} from "./helpers/agents.ts";
import { AGENT_RUNS, loadRecord, type RecordKey, RUNS_BINARIES, saveRecord } from "./helpers/agent_records.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";

const EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] as const;
// A replaying leg runs no binary (tests/helpers/agent_records.ts).
const claude = RUNS_BINARIES ? claudeCodeBinary() : { path: "" };
const jail = RUNS_BINARIES ? isolation() : { bwrap: "" };
const missing = "missing" in claude ? claude.missing : "missing" in jail ? jail.missing : false;
if (missing && !REQUIRE_AGENTS) console.error(`\n*** HOOK PAYLOAD TESTS SKIPPED: ${missing} ***\n`);

/** The shape of a JSON value: its keys, recursively, and the type of each leaf. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]),
    );
  }
  return value === null ? "null" : typeof value;
}

describe(`hook payloads: what Claude Code ${CLAUDE_CODE_VERSION} sends`, { skip: !REQUIRE_AGENTS && missing }, () => {
  let dir: string;
  let payloads: Map<string, Record<string, unknown>>;
  const prompt = "run the command";

  const key: RecordKey = {
    suite: "payloads",
    agent: `Claude Code ${CLAUDE_CODE_VERSION}`,
    name: "one Bash call",
    definition: { EVENTS, prompt },
  };
  before(async () => {
    if (!("path" in claude) || !("bwrap" in jail)) throw new Error(String(missing));
    dir = freshDir("dsh-hook-payloads-");
    mkdirSync(join(dir, "project"));
    if (!RUNS_BINARIES) {
      payloads = new Map(await loadRecord<[string, Record<string, unknown>][]>(key, dir));
      return;
    }
    const hooksDir = join(dir, "hooks");
    mkdirSync(hooksDir);
    mkdirSync(join(dir, "project", ".claude"));
    mkdirSync(join(dir, "home"));
    const hooks: Record<string, unknown> = {};
    for (const event of EVENTS) {
      const script = join(hooksDir, `${event}.sh`);
      writeFileSync(script, `#!/bin/sh\ncat > ${join(hooksDir, `${event}.json`)}\nexit 0\n`);
      chmodSync(script, 0o755);
      const group: Record<string, unknown> = { hooks: [{ type: "command", command: script }] };
      if (event === "PreToolUse" || event === "PostToolUse") group.matcher = "Bash";
      hooks[event] = [group];
    }
    writeFileSync(join(dir, "project", ".claude", "settings.json"), JSON.stringify({ hooks }));
    const run = await runAgent(jail.bwrap, {
      ...claudeCodeRun(claude.path, dir, { prompt }),
      cwd: join(dir, "project"),
      protocol: "anthropic",
      call: { name: "Bash", input: { command: "echo hello", description: "Say hello" } },
      dir,
    });
    assert.equal(run.code, 0, `Claude Code failed: ${run.stderr}`);
    payloads = new Map(
      EVENTS.filter((event) => existsSync(join(hooksDir, `${event}.json`))).map((event) => [
        event,
        JSON.parse(readFileSync(join(hooksDir, `${event}.json`), "utf8")),
      ]),
    );
    if (AGENT_RUNS.mode === "record") saveRecord(key, dir, [...payloads]);
  });
  after(() => {
    if (dir !== undefined) removeDir(dir);
  });

  it("every event's hook ran", () => {
    assert.deepEqual([...payloads.keys()], [...EVENTS]);
  });

  it("each builder gives the binary's payload: its keys in its order, their types, and every value not the binary's own", () => {
    const sent = (event: string) => payloads.get(event) as Record<string, unknown>;
    const pre = sent("PreToolUse");
    // The binary's own values, taken from what it sent; the rest are the facts of the run.
    const session: HookSession = {
      sessionId: String(pre.session_id),
      transcriptPath: String(pre.transcript_path),
      cwd: String(pre.cwd),
      promptId: String(pre.prompt_id),
      permissionMode: "bypassPermissions",
      effort: String((pre.effort as { level: string }).level),
    };
    const toolInput = { command: "echo hello", description: "Say hello" };
    const post = sent("PostToolUse");
    const built: Record<string, Record<string, unknown>> = {
      SessionStart: hookPayload("SessionStart", session, { source: "startup" }),
      UserPromptSubmit: hookPayload("UserPromptSubmit", session, { prompt }),
      PreToolUse: hookPayload("PreToolUse", session, { toolName: "Bash", toolInput, toolUseId: "toolu_mock_1" }),
      PostToolUse: hookPayload("PostToolUse", session, {
        toolName: "Bash",
        toolInput,
        toolUseId: "toolu_mock_1",
        toolResponse: post.tool_response,
        durationMs: Number(post.duration_ms),
      }),
      // The mock model's last message.
      Stop: hookPayload("Stop", session, { lastAssistantMessage: "done" }),
    };
    for (const event of EVENTS) {
      assert.deepEqual(Object.keys(built[event]), Object.keys(sent(event)), `${event}: the keys, in order`);
      assert.deepEqual(shape(built[event]), shape(sent(event)), `${event}: the types`);
      assert.deepEqual(built[event], sent(event), `${event}: the values`);
    }
    assert.equal(session.cwd, realpathSync(join(dir, "project")));
    assert.deepEqual(shape(post.tool_response), {
      interrupted: "boolean",
      isImage: "boolean",
      noOutputExpected: "boolean",
      stderr: "string",
      stdout: "string",
    });
  });
});

describe("hookPayload without the binary: what each event leaves out", () => {
  const session: HookSession = {
    sessionId: "s",
    transcriptPath: "/t.jsonl",
    cwd: "/w",
    promptId: "p",
    permissionMode: "default",
    effort: "high",
  };

  it("SessionStart has no prompt, mode or effort (none exists yet); UserPromptSubmit no effort; the tool events all", () => {
    assert.deepEqual(Object.keys(hookPayload("SessionStart", session, { source: "resume" })), [
      "session_id",
      "transcript_path",
      "cwd",
      "hook_event_name",
      "source",
    ]);
    assert.deepEqual(Object.keys(hookPayload("UserPromptSubmit", session, { prompt: "hi" })), [
      "session_id",
      "transcript_path",
      "cwd",
      "prompt_id",
      "permission_mode",
      "hook_event_name",
      "prompt",
    ]);
    const pre = hookPayload("PreToolUse", session, { toolName: "Bash", toolInput: { command: "ls" }, toolUseId: "t" });
    assert.deepEqual(pre.effort, { level: "high" });
    assert.equal(pre.hook_event_name, "PreToolUse");
    const bare = hookPayload("Stop", { sessionId: "s", transcriptPath: "/t", cwd: "/w" }, {
      lastAssistantMessage: "ok",
    });
    assert.deepEqual(bare, {
      session_id: "s",
      transcript_path: "/t",
      cwd: "/w",
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "ok",
      background_tasks: [],
      session_crons: [],
    });
  });
});
