/**
 * The hook bridge against the released agent binaries, event by event:
 * each scenario is one run of the binary (the mock model asks for one
 * shell call, then answers "done"), with hooks on several events at once
 * (`SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `Stop`,
 * and the others a run fires: `InstructionsLoaded`, `TaskCreated`,
 * `StopFailure` on an API error the mock answers, `SessionEnd`…), command
 * hooks that log every payload they get and `http` hooks the mock answers.
 * Each event's first payload (or, in a `replayAll` scenario, every one) is
 * then replayed through `dispatchHookEvent` in the binary's dialect with
 * the same settings; the run's end is the bridge's `backgroundSignal`.
 *
 * Compared, per event: which hooks ran (how often, which got to their end,
 * which outlived the run); what the http hooks received (the headers); and
 * what reached the model. Every text a hook answers carries
 * a marker (`MARK-…`): the binary's model saw the markers found in the
 * requests it got, the bridge's the markers of what its result says the
 * harness shows the model (context, and the reasons of a block where the
 * event shows them). A scenario whose sides differ fails. Few runs, many
 * checks each: a Codex run lingers about 5 s. `DSH_CONFORMANCE_SCENARIO`
 * (a part of a scenario's name) runs only the scenarios it names. CI runs
 * the binaries' side once and every leg replays it
 * (`tests/helpers/agent_records.ts`).
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { createLocalShell, type Shell } from "../mod.ts";
import { dispatchHookEvent, type HookDispatchResult, parseHookSettings } from "../src/hooks/mod.ts";
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
import { shQuote } from "./helpers/bash.ts";
import { type AgentDialect, AGENTS, COMPACTING_TOKENS, reportCase } from "./helpers/conformance.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { Leftovers, stillRuns } from "./helpers/proc.ts";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";
import { appeared, eventually } from "./helpers/wait.ts";
import { type HookReply, type HookRequest, MockModel, SUBAGENT_TASK } from "./helpers/mock_model.ts";

/** A command hook: a sh script that logs each payload, then runs `body` (the payload is in `$input`). */
interface CommandHook {
  readonly kind: "command";
  readonly body: string;
  readonly matcher?: string;
  /**
   * `async`; `asyncRewake` alone (the binaries run it in the foreground);
   * or both (Claude Code wakes the model on its exit 2).
   */
  readonly background?: "async" | "asyncRewake" | "async+asyncRewake";
  /** The same command as hook `sameAs` of the event, in a group of its own (a duplicate). */
  readonly sameAs?: number;
  /** More fields of the entry (`if`, `args`, `shell`, `once`, `statusMessage`…); `args` go to the script. */
  readonly fields?: Record<string, unknown>;
  /** In this binary's settings only (exec form, which Codex does not have: the bridge runs it, with a warning). */
  readonly only?: AgentDialect;
}

/** An http hook answered by the mock as `reply`. */
interface HttpHook {
  readonly kind: "http";
  readonly reply: HookReply;
  readonly headers?: Record<string, string>;
  readonly allowedEnvVars?: string[];
  readonly timeout?: number;
  readonly matcher?: string;
}

type ScenarioHook = CommandHook | HttpHook;

interface Scenario {
  readonly name: string;
  /** The hooks of each event, one group each, in order. */
  readonly hooks: Readonly<Record<string, readonly ScenarioHook[]>>;
  /** Environment entries for the binary, and for the bridge's `env`. */
  readonly env?: Record<string, string>;
  /**
   * A documented difference: Codex 0.169.0 loads no hook at all from a
   * `hooks.json` with an `http` entry or an unknown top-level key; the
   * bridge skips that entry or key only, with a warning (it runs more
   * hooks: the model sees more, a call is blocked more, never less).
   */
  readonly codexLoadsNothing?: true;
  /** Claude Code runs none of the hooks (`disableAllHooks`). */
  readonly claudeCodeRunsNone?: true;
  /**
   * What the model calls (default one shell call): the shell twice (a turn
   * after the first call's hooks), the `note` tool of a real MCP server
   * (`tests/fixtures/mcp_server`), or a subagent whose prompt is
   * `SUBAGENT-TASK` (the mock answers it "done").
   */
  readonly call?:
    | "shell"
    | "shell-twice"
    | "long-shell"
    | "mcp"
    | "subagent"
    | "write"
    /** The shell, then (CC) `TaskCreate`, then an API error (HTTP 400) in place of the next turn. */
    | "edges"
    /** The shell, then a shell call of 4 s (background hooks of the first call end during it). */
    | "shell-then-sleep"
    /** (CC) The shell, then `WebFetch` of a URL on 127.0.0.1, then a subagent (`Agent`, `general-purpose`). */
    | "if-forms";
  /** Hooks that must have run in the binary (else the run did not reach what the scenario measures). */
  readonly expectRan?: Partial<Record<AgentDialect, readonly string[]>>;
  /** A `CLAUDE.md` in the project (no marker: the model sees it as instructions, not as a hook's text). */
  readonly claudeMd?: true;
  /**
   * The bridge replays every payload the binary's hooks got (each firing of
   * an event), not only each event's first; `runs` counts every hook's runs.
   */
  readonly replayAll?: true;
  /**
   * The id of the async hook still running when the run ends, whose
   * processes (`$pids`) the teardown must end. Claude Code runs outside a pid
   * namespace of its own, so that what it leaves running at its end is seen
   * (the `alive` hooks), and its last turn waits until the hook has recorded
   * them; Codex's run keeps its namespace (its own helper lingers seconds
   * after it).
   */
  readonly watchTeardown?: string;
  /**
   * Background hooks the binary starts and may end with the run: its last
   * turn waits until each has logged its payload, so what is compared does
   * not depend on when the binary's teardown comes (Codex ends an `async`
   * PreToolUse hook as `exec` ends; on a loaded machine it may not have
   * logged yet).
   */
  readonly awaitRan?: readonly string[];
  /**
   * A documented difference that fails safe: the ids of the hooks the
   * bridge runs where this binary does not (an `if` form it reads as the
   * permissions page does: a guard blocks more, never less).
   */
  readonly bridgeRunsMore?: Partial<Record<AgentDialect, readonly string[]>>;
  /**
   * Hooks this binary kills right after it starts them: Claude Code ends
   * the StopFailure hooks it fired as it ends the run (measured: one that
   * sleeps 50 ms never finishes), so on a loaded machine one may be gone
   * before it records that it ran. Where the binary's side lacks one of
   * these and the bridge's has it, the bridge's run is left out; at least
   * one of them must have run in the binary (the event did fire). Hooks the
   * binary must not run are never listed: the bridge running one still fails.
   */
  readonly killedAtOnce?: Partial<Record<AgentDialect, readonly string[]>>;
  /** More http replies of the mock, by name (a redirect's target). */
  readonly extraReplies?: Record<string, HookReply>;
  /** The first turn reports {@linkcode COMPACTING_TOKENS}: the binary compacts its context once, after it. */
  readonly compact?: true;
  /**
   * Claude Code's permission mode (default `bypassPermissions`): `default`
   * asks for the shell call, which in `-p` only a `PermissionRequest` hook
   * can allow. Codex runs without approvals: such a scenario is Claude
   * Code's only.
   */
  readonly permissionMode?: "default";
  /** It takes long (sleeping hooks): it starts before the others and runs beside them. */
  readonly slow?: true;
  /** Top-level keys of the settings file besides `hooks` (`disableAllHooks`). */
  readonly topLevel?: Record<string, unknown>;
}

const json = (value: unknown): string => `printf '%s' ${shQuote(JSON.stringify(value))}`;
const context = (event: string, text: string): string =>
  json({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
/** Blocks the first stop only: the binary then goes on, and stops again with `stop_hook_active`. */
const blockFirstStop = (reason: string): string =>
  `case "$input" in *'"stop_hook_active":true'*) exit 0;; esac\n${json({ decision: "block", reason })}`;

const SCENARIOS: readonly Scenario[] = [
  {
    name: "context and decisions: SessionStart, UserPromptSubmit, PostToolUse, Stop",
    hooks: {
      SessionStart: [
        { kind: "command", body: context("SessionStart", "MARK-session-json") },
        { kind: "command", body: "echo MARK-session-plain" },
      ],
      UserPromptSubmit: [
        { kind: "command", body: context("UserPromptSubmit", "MARK-prompt-json") },
        { kind: "command", body: "echo MARK-prompt-plain" },
      ],
      PreToolUse: [
        { kind: "command", body: "exit 0", matcher: "Bash" },
        // An MCP tool's matcher: the shell call is no MCP tool, so neither side runs it.
        { kind: "command", body: "echo MARK-mcp-guard >&2; exit 2", matcher: "mcp__.*" },
        { kind: "command", body: "echo MARK-mcp-exact >&2; exit 2", matcher: "mcp__memory__create_entities" },
      ],
      PostToolUse: [
        { kind: "command", body: context("PostToolUse", "MARK-post-context"), matcher: "Bash" },
        { kind: "command", body: json({ decision: "block", reason: "MARK-post-block" }), matcher: "Bash" },
        { kind: "command", body: "echo MARK-post-exit2 >&2; exit 2", matcher: "Bash" },
        { kind: "command", body: "echo MARK-post-exit1 >&2; exit 1", matcher: "Bash" },
      ],
      Stop: [{ kind: "command", body: blockFirstStop("MARK-stop-block") }],
    },
  },
  {
    name: "a blocked prompt: UserPromptSubmit exit 2 and a JSON block",
    hooks: {
      SessionStart: [{ kind: "command", body: "echo MARK-session-before-block" }],
      // Claude Code ends the run at the first block without waiting for the other hook (its run's end kills it, a
      // 1 s hook mid-way, measured): each blocks only once the other has logged what it got, so what is compared
      // (both ran, their stdin) does not depend on which answers first or how fast the other is.
      UserPromptSubmit: [
        { kind: "command", body: "after_logged UserPromptSubmit-1; echo MARK-prompt-blocked >&2; exit 2" },
        {
          kind: "command",
          body: `after_logged UserPromptSubmit-0; ${json({ decision: "block", reason: "MARK-prompt-json-block" })}`,
        },
      ],
    },
  },
  {
    name: "an MCP tool call: mcp__ matchers, a deny of the MCP tool",
    call: "mcp",
    hooks: {
      PreToolUse: [
        { kind: "command", body: context("PreToolUse", "MARK-mcp-any"), matcher: "mcp__memo__.*" },
        {
          kind: "command",
          matcher: "mcp__memo__note",
          body: json({
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "MARK-mcp-deny",
            },
          }),
        },
        { kind: "command", body: "echo MARK-mcp-other >&2; exit 2", matcher: "mcp__other__.*" },
        { kind: "command", body: "echo MARK-mcp-bash >&2; exit 2", matcher: "Bash" },
      ],
    },
  },
  {
    name: "http hooks: headers, 2xx JSON, plain text, non-2xx, timeout, connection refused, a redirect, 1 MiB",
    codexLoadsNothing: true,
    extraReplies: { redirected: { status: 200, body: ctxJson("UserPromptSubmit", "MARK-http-redirected") } },
    env: { ALLOWED_ONE: "yes", NOT_ALLOWED: "no" },
    hooks: {
      SessionStart: [
        { kind: "command", body: "exit 0" },
        { kind: "http", reply: { status: 200, body: ctxJson("SessionStart", "MARK-http-session") } },
      ],
      UserPromptSubmit: [
        {
          kind: "http",
          reply: { status: 200, body: "MARK-http-plain" },
          headers: { "X-Allowed": "a-$ALLOWED_ONE-${ALLOWED_ONE}", "X-Denied": "d-$NOT_ALLOWED-${NOT_ALLOWED}" },
          allowedEnvVars: ["ALLOWED_ONE"],
        },
        { kind: "http", reply: { status: 200, body: ctxJson("UserPromptSubmit", "MARK-http-json") } },
        { kind: "http", reply: { status: 500, body: ctxJson("UserPromptSubmit", "MARK-http-500") } },
        {
          kind: "http",
          reply: { status: 200, body: ctxJson("UserPromptSubmit", "MARK-http-slow"), delayMs: 2_500 },
          timeout: 1,
        },
        // A redirect to the mock's own `redirected` (a context), and a body past 1 MiB.
        { kind: "http", reply: { status: 307, body: "", location: "/hooks/redirected" } },
        {
          kind: "http",
          reply: { status: 200, body: ctxJson("UserPromptSubmit", "MARK-http-big"), padBytes: 1_100_000 },
        },
      ],
      PreToolUse: [
        { kind: "command", body: "exit 0", matcher: "Bash" },
        {
          kind: "http",
          matcher: "Bash",
          reply: {
            status: 200,
            body: JSON.stringify({
              hookSpecificOutput: {
                hookEventName: "PreToolUse",
                permissionDecision: "deny",
                permissionDecisionReason: "MARK-http-deny",
              },
            }),
          },
        },
      ],
    },
  },
  {
    name: "background hooks: async context and asyncRewake on PostToolUse, the next turn",
    call: "shell-twice",
    hooks: {
      PostToolUse: [
        { kind: "command", background: "async", body: context("PostToolUse", "MARK-async-context"), matcher: "Bash" },
        { kind: "command", background: "async", body: "echo MARK-async-exit2 >&2; exit 2", matcher: "Bash" },
        {
          kind: "command",
          background: "async+asyncRewake",
          body: "echo MARK-rewake-stderr >&2; exit 2",
          matcher: "Bash",
        },
        { kind: "command", background: "async+asyncRewake", body: "echo MARK-rewake-exit0", matcher: "Bash" },
        // asyncRewake alone is a foreground hook: its exit 2 is PostToolUse's feedback.
        { kind: "command", background: "asyncRewake", body: "echo MARK-rewake-alone >&2; exit 2", matcher: "Bash" },
      ],
    },
  },
  {
    name: "PreToolUse guards marked asyncRewake (runs in the foreground: blocks) and async (does not block)",
    awaitRan: ["PreToolUse-1"],
    hooks: {
      PreToolUse: [
        { kind: "command", background: "asyncRewake", body: "echo MARK-pre-rewake >&2; exit 2", matcher: "Bash" },
        { kind: "command", background: "async", body: "echo MARK-pre-async >&2; exit 2", matcher: "Bash" },
      ],
    },
  },
  {
    name: "a subagent: SubagentStart context, SubagentStop blocking once, matchers on the agent type",
    call: "subagent",
    hooks: {
      SubagentStart: [
        { kind: "command", body: context("SubagentStart", "MARK-subagent-start") },
        { kind: "command", body: "echo MARK-subagent-start-plain" },
        { kind: "command", body: "echo MARK-subagent-other", matcher: "no-such-agent" },
      ],
      SubagentStop: [
        { kind: "command", body: blockFirstStop("MARK-subagent-stop") },
        { kind: "command", body: "exit 0", matcher: "no-such-agent" },
      ],
    },
  },
  {
    name: "compaction: PreCompact and PostCompact, matchers on the trigger, exit 2",
    compact: true,
    hooks: {
      PreCompact: [
        { kind: "command", body: "echo MARK-precompact-plain", matcher: "auto" },
        { kind: "command", body: "exit 0", matcher: "manual" },
        { kind: "command", body: "echo MARK-precompact-exit2 >&2; exit 2" },
      ],
      PostCompact: [{ kind: "command", body: "echo MARK-postcompact-plain" }],
    },
  },
  {
    name: "answers: JSON on exit 1 and 2, JSON that does not parse or validate, suppressOutput, a duplicate",
    hooks: {
      UserPromptSubmit: [
        { kind: "command", body: "printf '%s' '{MARK-broken-json'" },
        {
          kind: "command",
          body: json({
            continue: "yes",
            hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "MARK-wrong-typed" },
          }),
        },
        {
          kind: "command",
          body: json({
            suppressOutput: true,
            hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "MARK-suppressed" },
          }),
        },
        { kind: "command", body: `${context("UserPromptSubmit", "MARK-exit1-json")}; exit 1` },
        { kind: "command", body: "echo MARK-duplicate" },
        { kind: "command", body: "", sameAs: 4 },
        { kind: "command", body: `${json({ hookSpecificOutput: { hookEventName: "PostToolUse" } })}` },
      ],
      PostToolUse: [
        { kind: "command", body: `${json({ decision: "block", reason: "MARK-post-exit1-block" })}; exit 1` },
        {
          kind: "command",
          body: `${context("PostToolUse", "MARK-post-exit2-json")}; echo MARK-post-exit2-stderr >&2; exit 2`,
        },
        { kind: "command", body: `${context("UserPromptSubmit", "MARK-post-other-event")}` },
      ],
    },
  },
  {
    name: "a PreToolUse deny answered with exit 1",
    hooks: {
      PreToolUse: [
        {
          kind: "command",
          matcher: "Bash",
          body: `${
            json({
              hookSpecificOutput: {
                hookEventName: "PreToolUse",
                permissionDecision: "deny",
                permissionDecisionReason: "MARK-exit1-deny",
              },
            })
          }; exit 1`,
        },
      ],
    },
  },
  {
    name: "PermissionRequest: an allow, and an exit 2 (not honoured)",
    permissionMode: "default",
    hooks: {
      PermissionRequest: [
        {
          kind: "command",
          matcher: "Bash",
          body: json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } }),
        },
        { kind: "command", matcher: "Bash", body: "echo MARK-permission-exit2 >&2; exit 2" },
        { kind: "command", matcher: "Write", body: "exit 0" },
      ],
    },
  },
  {
    name: "PermissionRequest: a deny with a message",
    permissionMode: "default",
    hooks: {
      PermissionRequest: [{
        kind: "command",
        matcher: "Bash",
        body: json({
          hookSpecificOutput: {
            hookEventName: "PermissionRequest",
            decision: { behavior: "deny", message: "MARK-permission-deny" },
          },
        }),
      }],
    },
  },
  {
    name: "settings: a matcher where none is read, an invalid regex, if on a prompt, unknown fields, exec form",
    hooks: {
      UserPromptSubmit: [
        { kind: "command", matcher: "Bash", body: "echo MARK-matcher-ignored" },
        { kind: "command", fields: { if: "Bash(*)" }, body: "echo MARK-if-on-prompt" },
        {
          kind: "command",
          fields: { shell: "bash", once: true, statusMessage: "checking", commandWindows: "x" },
          body: "echo MARK-unknown-fields",
        },
        // Exec form: the script gets the argument. Codex has no args (it would run the script alone).
        { kind: "command", only: "claude-code", fields: { args: ["MARK-exec-form"] }, body: 'echo "$1"' },
      ],
      PreToolUse: [
        { kind: "command", matcher: "Bash(", body: "echo MARK-invalid-regex >&2; exit 2" },
        { kind: "command", matcher: "(?i)BASH", body: "echo MARK-inline-flag" },
      ],
    },
  },
  {
    // Claude Code's if cannot check a command this long: it runs the hook (fails open), and so the guard blocks.
    name: "if: a shell command past 10 000 characters runs a Bash(rm *) guard",
    call: "long-shell",
    hooks: {
      PreToolUse: [
        { kind: "command", matcher: "Bash", fields: { if: "Bash(rm *)" }, body: "echo MARK-long-guard >&2; exit 2" },
      ],
    },
  },
  {
    // Claude Code's Write tool: `if` path rules are read from the cwd. Codex has no `if`: Claude Code's only.
    name: "if: Edit(...) path rules on a Write call",
    call: "write",
    hooks: {
      PreToolUse: [
        { kind: "command", matcher: "Write", body: context("PreToolUse", "MARK-write-any") },
        { kind: "command", matcher: "Write", fields: { if: "Edit(lib/**)" }, body: "echo MARK-edit-lib >&2; exit 2" },
        { kind: "command", matcher: "Write", fields: { if: "Edit(*.md)" }, body: "echo MARK-edit-md >&2; exit 2" },
        {
          kind: "command",
          matcher: "Write",
          fields: { if: "Edit(src/**)" },
          body: context("PreToolUse", "MARK-edit-src"),
        },
        { kind: "command", matcher: "Write", fields: { if: "Edit(*.txt)" }, body: "echo MARK-edit-txt >&2; exit 2" },
        { kind: "command", matcher: "Write", fields: { if: "Write(lib/**)" }, body: "echo MARK-write-lib >&2; exit 2" },
        {
          kind: "command",
          matcher: "Write",
          fields: { if: "Write(src/**)" },
          body: context("PreToolUse", "MARK-write-src"),
        },
        { kind: "command", matcher: "Write", fields: { if: "Write(*.txt)" }, body: "echo MARK-write-txt >&2; exit 2" },
      ],
    },
  },
  {
    name: "an empty command beside a guard",
    hooks: {
      UserPromptSubmit: [{ kind: "command", body: context("UserPromptSubmit", "MARK-empty-prompt") }],
      PreToolUse: [
        { kind: "command", matcher: "Bash", fields: { command: "" }, body: "" },
        { kind: "command", matcher: "Bash", body: "echo MARK-empty-guard >&2; exit 2" },
      ],
    },
  },
  {
    name: "a PreToolUse defer",
    hooks: {
      PreToolUse: [{
        kind: "command",
        matcher: "Bash",
        body: json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "defer",
            permissionDecisionReason: "MARK-defer-reason",
          },
        }),
      }],
    },
  },
  {
    name: "disableAllHooks in the settings file",
    topLevel: { disableAllHooks: true },
    claudeCodeRunsNone: true,
    codexLoadsNothing: true,
    hooks: {
      UserPromptSubmit: [{ kind: "command", body: "echo MARK-disabled-context" }],
      PreToolUse: [{ kind: "command", body: "echo MARK-disabled-guard >&2; exit 2", matcher: "Bash" }],
    },
  },
  {
    name: "the session's edges: InstructionsLoaded, TaskCreated, StopFailure on an API error, SessionEnd's budget",
    call: "edges",
    claudeMd: true,
    // Claude Code 2.1.328 offers TaskCreate in -p only with this (measured: its tool list).
    env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: "1" },
    expectRan: {
      "claude-code": ["InstructionsLoaded-0", "TaskCreated-0", "SessionEnd-0"],
      codex: ["SessionEnd-0"],
    },
    killedAtOnce: { "claude-code": ["StopFailure-0", "StopFailure-1", "StopFailure-3", "StopFailure-4"] },
    hooks: {
      InstructionsLoaded: [
        { kind: "command", body: context("InstructionsLoaded", "MARK-instructions-json") },
        { kind: "command", body: "echo MARK-instructions-plain", matcher: "session_start" },
        { kind: "command", body: "exit 0", matcher: "nested_traversal" },
      ],
      TaskCreated: [{ kind: "command", body: context("TaskCreated", "MARK-task-created") }],
      StopFailure: [
        { kind: "command", body: context("StopFailure", "MARK-stop-failure-json") },
        // A 400 is "unknown" to Claude Code 2.1.328 (it names invalid_request only for errors it recognises).
        { kind: "command", body: "echo MARK-stop-failure-exit2 >&2; exit 2", matcher: "unknown" },
        { kind: "command", body: "exit 0", matcher: "invalid_request" },
        { kind: "command", body: "exit 0", matcher: "rate_limit|unknown" },
        // The narrow set: `.` and `*` make a regex; `-` does too (and this one matches nothing).
        { kind: "command", body: "exit 0", matcher: "unk.*" },
        { kind: "command", body: "exit 0", matcher: "un-known" },
      ],
      // No timeout of its own: the 1.5 s budget ends it before it finishes.
      SessionEnd: [{ kind: "command", body: 'sleep 3; held; : > "$done"' }],
    },
  },
  {
    name: "background hooks' lives: an async timeout, two firings, the run's teardown; SessionEnd's raised budget",
    call: "shell-then-sleep",
    // About 15 s of sleeping hooks and calls: beside the others.
    slow: true,
    expectRan: {
      "claude-code": ["PostToolUse-0", "SessionEnd-0", "SessionEnd-1"],
      codex: ["PostToolUse-0", "SessionEnd-0", "SessionEnd-1"],
    },
    replayAll: true,
    watchTeardown: "PostToolUse-0",
    hooks: {
      // The first call's firing ends during the second call (2 s, past its timeout of 1 s); the second call's
      // firing is still running when the run ends.
      PostToolUse: [{
        kind: "command",
        background: "async",
        matcher: "Bash",
        fields: { timeout: 1 },
        body: `case "$input" in
  *'sleep 4'*) sleep 60 &
    for pid in $$ $!; do echo "$pid $(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f20)"; done > "$pids.new"; mv "$pids.new" "$pids"; wait ;;
  *) sleep 2; ${context("PostToolUse", "MARK-async-past-timeout")} ;;
esac`,
      }],
      SessionEnd: [
        // A settings file's timeout raises the budget for its own hook; the one without a timeout keeps 1.5 s.
        { kind: "command", fields: { timeout: 8 }, body: 'sleep 3; held; : > "$done"' },
        { kind: "command", body: 'sleep 3; held; : > "$done"' },
      ],
    },
  },
  {
    name: "if on an MCP tool: mcp__server, mcp__server__*, the tool's name; mcp__ matchers",
    call: "mcp",
    expectRan: { "claude-code": ["PreToolUse-0", "PreToolUse-3"], codex: ["PreToolUse-0", "PreToolUse-1"] },
    // Claude Code 2.1.328 runs neither: its `if` takes an MCP rule as one tool's name.
    bridgeRunsMore: { "claude-code": ["PreToolUse-1", "PreToolUse-2"] },
    hooks: {
      PreToolUse: [
        { kind: "command", matcher: "mcp__.*", body: context("PreToolUse", "MARK-mcp-any") },
        {
          kind: "command",
          matcher: "mcp__.*",
          fields: { if: "mcp__memo" },
          body: context("PreToolUse", "MARK-if-server"),
        },
        {
          kind: "command",
          matcher: "mcp__.*",
          fields: { if: "mcp__memo__*" },
          body: context("PreToolUse", "MARK-if-server-star"),
        },
        {
          kind: "command",
          matcher: "mcp__.*",
          fields: { if: "mcp__memo__note" },
          body: context("PreToolUse", "MARK-if-tool"),
        },
        {
          kind: "command",
          matcher: "mcp__.*",
          fields: { if: "mcp__other" },
          body: context("PreToolUse", "MARK-if-other"),
        },
        { kind: "command", matcher: "mcp__memo", body: context("PreToolUse", "MARK-matcher-server") },
        { kind: "command", matcher: "mcp__memo__*", body: context("PreToolUse", "MARK-matcher-star") },
        { kind: "command", matcher: "mcp__", body: context("PreToolUse", "MARK-matcher-prefix") },
      ],
    },
  },
  {
    // One run, three calls, every `if` evaluated against each (no matcher): the tool part is measured too. The
    // WebFetch call is denied by a guard (its URL a refused port on loopback, in a network namespace).
    name: "if: WebFetch(domain:…), Agent(type), Tool(param:value) on a shell, a WebFetch and an Agent call",
    call: "if-forms",
    replayAll: true,
    // The bare names and the Bash command rule: the tool part matches, and `if` is evaluated at all.
    expectRan: { "claude-code": ["PreToolUse-0", "PreToolUse-1", "PreToolUse-2", "PreToolUse-3", "PreToolUse-4"] },
    // Claude Code 2.1.328 runs none of these: in `if`, a specifier is matched only by the tool's own matcher
    // (Bash's command, a file tool's path), which WebFetch and Agent have none of, and Bash's reads
    // `description:touch` as a command. The bridge reads them as the permissions page does: a guard blocks more.
    bridgeRunsMore: {
      "claude-code": [
        "PreToolUse-5",
        "PreToolUse-7",
        "PreToolUse-8",
        "PreToolUse-9",
        "PreToolUse-11",
        "PreToolUse-12",
        "PreToolUse-14",
      ],
    },
    hooks: {
      PreToolUse: [
        { kind: "command", matcher: "WebFetch", body: "echo MARK-fetch-guard >&2; exit 2" },
        { kind: "command", fields: { if: "WebFetch" }, body: "exit 0" },
        { kind: "command", fields: { if: "Agent" }, body: context("PreToolUse", "MARK-if-agent-bare") },
        { kind: "command", fields: { if: "Bash(touch *)" }, body: context("PreToolUse", "MARK-if-bash-command") },
        { kind: "command", fields: { if: "Task" }, body: context("PreToolUse", "MARK-if-task-bare") },
        { kind: "command", fields: { if: "WebFetch(domain:127.0.0.1)" }, body: "exit 0" },
        { kind: "command", fields: { if: "WebFetch(domain:example.com)" }, body: "exit 0" },
        { kind: "command", fields: { if: "WebFetch(domain:127.0.0.*)" }, body: "exit 0" },
        { kind: "command", fields: { if: "WebFetch(domain:*.0.0.1)" }, body: "exit 0" },
        { kind: "command", fields: { if: "Agent(general-purpose)" }, body: context("PreToolUse", "MARK-if-agent") },
        { kind: "command", fields: { if: "Agent(Explore)" }, body: context("PreToolUse", "MARK-if-explore") },
        { kind: "command", fields: { if: "Task(general-purpose)" }, body: context("PreToolUse", "MARK-if-task") },
        {
          kind: "command",
          fields: { if: "Agent(description:a subagent)" },
          body: context("PreToolUse", "MARK-if-agent-description"),
        },
        { kind: "command", fields: { if: "Agent(model:*)" }, body: context("PreToolUse", "MARK-if-model-unset") },
        { kind: "command", fields: { if: "Bash(description:touch)" }, body: context("PreToolUse", "MARK-if-param") },
        {
          kind: "command",
          fields: { if: "Bash(description:other)" },
          body: context("PreToolUse", "MARK-if-param-other"),
        },
        {
          kind: "command",
          fields: { if: "Bash(run_in_background:true)" },
          body: context("PreToolUse", "MARK-if-param-unset"),
        },
        { kind: "command", fields: { if: "Bash(command:touch *)" }, body: context("PreToolUse", "MARK-if-command") },
      ],
    },
  },
  {
    // The longest run of the suite: Claude Code's 30 s default on UserPromptSubmit against a hook that takes 32 s.
    name: "default timeouts: a UserPromptSubmit hook answering after 32 s",
    slow: true,
    hooks: {
      UserPromptSubmit: [{ kind: "command", body: `sleep 32; echo MARK-after-32-seconds` }],
    },
  },
];

function ctxJson(event: string, text: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
}

/** A refused port on loopback: nothing listens on port 1. */
const REFUSED_URL = "http://127.0.0.1:1/hooks/refused";

/** The id of hook `index` of `event`. */
const idOf = (event: string, index: number): string => `${event}-${index}`;

/** The settings of a scenario, its command hooks' scripts written into `dir`, http hooks at `base`. */
function scenarioSettings(
  scenario: Scenario,
  dir: string,
  base: string,
  dialect: AgentDialect,
  released = true,
): Record<string, unknown> {
  mkdirSync(dir, { recursive: true });
  if (released) writeFileSync(join(dir, RELEASE), "");
  const hooks: Record<string, unknown[]> = {};
  for (const [event, list] of Object.entries(scenario.hooks)) {
    const kept = list.filter((hook) => hook.kind !== "command" || (hook.only ?? dialect) === dialect);
    hooks[event] = kept.map((hook) => {
      const index = list.indexOf(hook);
      const id = idOf(event, index);
      const group = (entry: Record<string, unknown>) => ({
        ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
        hooks: [entry],
      });
      if (hook.kind === "http") {
        return group({
          type: "http",
          url: `${base}/hooks/${id}`,
          ...(hook.headers === undefined ? {} : { headers: hook.headers }),
          ...(hook.allowedEnvVars === undefined ? {} : { allowedEnvVars: hook.allowedEnvVars }),
          ...(hook.timeout === undefined ? {} : { timeout: hook.timeout }),
        });
      }
      const script = join(dir, `${hook.sameAs === undefined ? id : idOf(event, hook.sameAs)}.sh`);
      const raw = shQuote(join(dir, `${id}.stdin`));
      // A duplicate runs the script of the hook it copies.
      if (hook.sameAs === undefined) {
        writeFileSync(
          script,
          [
            "#!/bin/sh",
            // The stdin as given (its last byte too), kept from the first run; the payload logged from every run.
            `cat > ${raw}.$$`,
            `input=$(cat ${raw}.$$)`,
            `if [ -e ${raw} ]; then rm -f ${raw}.$$; else mv ${raw}.$$ ${raw}; fi`,
            `printf '%s\\n' "$input" >> ${shQuote(join(dir, `${id}.jsonl`))}`,
            // For a body that says it finished (`: > "$done"`) or what it left running (`echo … > "$pids"`).
            `done=${shQuote(join(dir, `${id}.done`))} pids=${shQuote(join(dir, `${id}.pids`))}`,
            // For a body that may finish only once its side lets it (`held`: `HELD_UNTIL_RUN_ENDED`).
            `held() { until [ -e ${shQuote(join(dir, RELEASE))} ]; do sleep 0.05; done; }`,
            // For a body that answers only once another hook of its side has logged its payload (`after_logged ID`);
            // bounded (20 s), so that a hook that never runs shows as a difference, not a hang.
            `after_logged() { n=0; until [ -s ${
              shQuote(dir)
            }/"$1".jsonl ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done; }`,
            hook.body,
          ].join("\n"),
        );
        chmodSync(script, 0o755);
      }
      return group({
        ...hook.fields,
        type: "command",
        // `fields.command` stands in for the script (an empty command).
        command: typeof hook.fields?.command === "string" ? hook.fields.command : script,
        ...(hook.background === undefined
          ? {}
          : Object.fromEntries(hook.background.split("+").map((field) => [field, true]))),
      });
    });
  }
  // A hook nobody answers: a connection failure, on an event that surely runs.
  if (hooks.UserPromptSubmit !== undefined && scenario.name.startsWith("http")) {
    hooks.UserPromptSubmit.push({ hooks: [{ type: "http", url: REFUSED_URL }] });
  }
  return { ...scenario.topLevel, hooks };
}

/** The http replies of a scenario, by hook id. */
function repliesOf(scenario: Scenario): Record<string, HookReply> {
  const replies: Record<string, HookReply> = { ...scenario.extraReplies };
  for (const [event, list] of Object.entries(scenario.hooks)) {
    list.forEach((hook, index) => {
      if (hook.kind === "http") replies[idOf(event, index)] = hook.reply;
    });
  }
  return replies;
}

/** What one side did, event by event. */
interface Side {
  /** The ids of the hooks that ran, sorted. */
  readonly ran: string[];
  /** The markers that reached the model, sorted. */
  readonly shown: string[];
  /** Whether the prompt reached the model at all. */
  readonly prompted: boolean;
  /** Whether the shell call ran. */
  readonly commandRan: boolean;
  /** The headers each http hook got that the scenario sets, by id. */
  readonly headers: Record<string, Record<string, string>>;
  /** Whether the stdin each command hook got (its first run) ends with a newline, by id. */
  readonly stdinNewline: Record<string, boolean>;
  /** How many times each hook with a duplicate (`sameAs`) ran; every hook's, in a `replayAll` scenario. */
  readonly runs: Record<string, number>;
  /** The ids of the command hooks that got to the end of their body (`$done`). */
  readonly finished: string[];
  /** The ids of the command hooks whose processes (`$pids`) outlived the run's end. */
  readonly alive: string[];
}

/**
 * The file the scenario's shell call touches (the MCP tool's call appends to
 * it); a Write call writes its file under the project's src/ (where
 * Write(src/**) reaches, and Edit(src/**) does not).
 */
function markerOf(scenario: Scenario, caseDir: string): string {
  return scenario.call === "write" ? join(caseDir, "project", "src", "command-ran.txt") : join(caseDir, "command-ran");
}

/** The binary's side of a scenario, and what the bridge replays of it: all a record holds. */
interface BinaryRecord {
  readonly side: Side;
  readonly code: number | null;
  readonly stderr: string;
  /** The payloads its command hooks got, hook by hook (`hookPayloadLines`). */
  readonly payloadLines: string[][];
  /** The requests its http hooks made. */
  readonly hookRequests: HookRequest[];
  /** The `<id>.pids` files its hooks left, where the teardown is watched. */
  readonly watched: string[];
}

/** What the command hooks of `dir` got on stdin, and how often the duplicated ones ran. */
function stdinOf(scenario: Scenario, dir: string): Pick<Side, "stdinNewline" | "runs" | "finished"> {
  const stdinNewline: Record<string, boolean> = {};
  const runs: Record<string, number> = {};
  const finished: string[] = [];
  if (!existsSync(dir)) return { stdinNewline, runs, finished };
  for (const name of readdirSync(dir).sort()) {
    const match = /^(.+)\.stdin$/.exec(name);
    if (match !== null) stdinNewline[match[1]] = readFileSync(join(dir, name), "utf8").endsWith("\n");
    const done = /^(.+)\.done$/.exec(name);
    if (done !== null) finished.push(done[1]);
  }
  for (const [event, list] of Object.entries(scenario.hooks)) {
    list.forEach((hook, index) => {
      if (hook.kind !== "command" || (hook.sameAs === undefined && scenario.replayAll !== true)) return;
      const id = idOf(event, hook.sameAs ?? index);
      const log = join(dir, `${id}.jsonl`);
      runs[id] = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line !== "").length : 0;
    });
  }
  return { stdinNewline, runs, finished };
}

/**
 * The ids of the hooks of `dir` whose recorded processes (`<id>.pids`, one
 * `pid start-time` line each, the start time field 22 of `/proc/PID/stat`)
 * still live; each such process is then killed (the run is over: nothing of
 * it may outlive the test). A process counts only while it is still the one
 * recorded: its pid may have gone to another since.
 *
 * A hook's run settles once its leader has exited, and the rest of its group,
 * SIGKILLed at the same moment, may still be on its way out: a process counts
 * as alive only when it still runs {@linkcode SURVIVOR_MS} later (the hooks'
 * own children sleep far longer than that).
 */
async function aliveIn(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const recorded: [string, [number, string][]][] = [];
  for (const name of readdirSync(dir).sort()) {
    const match = /^(.+)\.pids$/.exec(name);
    if (match === null) continue;
    const lines = readFileSync(join(dir, name), "utf8").split("\n").map((line) => line.trim().split(" "));
    recorded.push([match[1], lines.filter((words) => words.length === 2).map(([pid, start]) => [Number(pid), start])]);
  }
  const living = (processes: [number, string][]) => processes.filter(([pid, start]) => stillRuns(pid, start));
  // A zombie has ended (the machine's init may be slow to reap what was reparented to it).
  await eventually(() => recorded.every(([, processes]) => living(processes).length === 0), SURVIVOR_MS);
  const alive: string[] = [];
  const leftovers = new Leftovers();
  for (const [id, processes] of recorded) {
    const left = living(processes);
    if (left.length > 0) alive.push(id);
    for (const [pid, start] of left) leftovers.addStarted(pid, start);
  }
  leftovers.kill();
  return alive;
}

/** How long a recorded process may take to be gone before it counts as having outlived its run. */
const SURVIVOR_MS = 5_000;

const MARKER = /MARK-[a-z0-9-]+/g;

/** The MCP server fixture, beside the tests under either runtime. */
const MCP_SERVER = new URL(`./fixtures/mcp_server.${IS_DENO ? "ts" : "js"}`, import.meta.url);

/** The markers in `text`, sorted, once each. */
function markersIn(text: string): string[] {
  return [...new Set(text.match(MARKER) ?? [])].sort();
}

/** The scenario's own headers of each http request, lower-cased as they arrive. */
function headersOf(scenario: Scenario, requests: readonly HookRequest[]): Record<string, Record<string, string>> {
  const wanted = new Set(
    Object.values(scenario.hooks).flatMap((list) =>
      list.flatMap((hook) => hook.kind === "http" ? Object.keys(hook.headers ?? {}) : [])
    ).map((name) => name.toLowerCase()).concat("content-type"),
  );
  const seen: Record<string, Record<string, string>> = {};
  for (const request of requests) {
    const kept: Record<string, string> = {};
    for (const name of wanted) {
      const value = request.headers[name];
      if (typeof value === "string") kept[name] = value;
    }
    seen[request.name] = kept;
  }
  return seen;
}

/**
 * The logs of the command hooks of `dir` that logged a payload, by id,
 * each file read once. A hook killed between its log's opening and its one
 * write (a binary's teardown at the run's end) leaves an empty log: it did
 * not get to log.
 */
function commandHookLogs(dir: string): Map<string, string> {
  const logs = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    const match = /^(.+)\.jsonl$/.exec(name);
    if (match === null) continue;
    const text = readFileSync(join(dir, name), "utf8");
    if (text.trim() !== "") logs.set(match[1], text);
  }
  return logs;
}

/**
 * The ids of the command hooks of `dir` that ran: they logged a payload,
 * or at least began to take their stdin (`<id>.stdin.<pid>`, created by
 * their first command, kept as `<id>.stdin`). Claude Code kills the
 * StopFailure hooks it fired as it ends the run, tens of milliseconds
 * later: on a loaded machine one may not get to its log.
 */
function commandHooksRan(dir: string, logs: Map<string, string> = commandHookLogs(dir)): string[] {
  const ran = new Set(logs.keys());
  for (const name of readdirSync(dir)) {
    const match = /^(.+)\.stdin(\.\d+)?$/.exec(name);
    if (match !== null) ran.add(match[1]);
  }
  return [...ran];
}

/**
 * The payloads each command hook of `dir` got, a line each, hook by hook in the order of their ids: what it logged,
 * or, for a hook ended before it logged (Claude Code's StopFailure hooks, Codex's SessionEnd as `exec` ends), the
 * stdin it had taken: `<id>.stdin` is moved into place only once its `cat` has read the whole of it.
 */
function hookPayloadLines(dir: string): string[][] {
  if (!existsSync(dir)) return [];
  const logs = commandHookLogs(dir);
  return commandHooksRan(dir, logs).sort().flatMap((id) => {
    const log = logs.get(id);
    if (log !== undefined) return [log.split("\n").filter((line) => line)];
    const stdin = join(dir, `${id}.stdin`);
    // Only its pid-named partial copy: it was ended while it took its stdin.
    if (!existsSync(stdin)) return [];
    // As its log would have it: `$(cat …)` drops the trailing newlines, one line of JSON.
    return [[readFileSync(stdin, "utf8").replace(/\n+$/, "")]];
  });
}

/** The first payload each event's hooks got (`hookPayloadLines`), and from the http requests (after `given`). */
function firstPayloads(
  payloadLines: readonly string[][],
  requests: readonly HookRequest[],
  given: Record<string, unknown>[] = [],
): Map<string, Record<string, unknown>> {
  const payloads = new Map<string, Record<string, unknown>>();
  for (const payload of given) payloads.set(String(payload.hook_event_name), payload);
  const offer = (payload: Record<string, unknown>) => {
    const event = String(payload.hook_event_name);
    if (!payloads.has(event)) payloads.set(event, payload);
  };
  for (const lines of payloadLines) offer(JSON.parse(lines[0]));
  for (const request of requests) offer(JSON.parse(request.body));
  return payloads;
}

/**
 * Every payload each event's hooks got (`hookPayloadLines`) and from the
 * http requests, each once, by event: the firings of a `replayAll` scenario.
 */
function allPayloads(
  payloadLines: readonly string[][],
  requests: readonly HookRequest[],
): Map<string, Record<string, unknown>[]> {
  const payloads = new Map<string, Record<string, unknown>[]>();
  const seen = new Set<string>();
  const offer = (line: string) => {
    if (line === "" || seen.has(line)) return;
    seen.add(line);
    const payload = JSON.parse(line) as Record<string, unknown>;
    const event = String(payload.hook_event_name);
    payloads.set(event, [...payloads.get(event) ?? [], payload]);
  };
  for (const lines of payloadLines) lines.forEach(offer);
  for (const request of requests) offer(request.body);
  // A tool event's firings in the order of the calls (the mock numbers its calls turn by turn).
  const callOrder = (payload: Record<string, unknown>) => String(payload.tool_use_id ?? "");
  for (const list of payloads.values()) {
    list.sort((a, b) => callOrder(a).localeCompare(callOrder(b), undefined, { numeric: true }));
  }
  return payloads;
}

/** Payloads shaped as Codex 0.169.0 sends them, for the events of the scenario Codex ran no hook of. */
function codexLikePayloads(caseDir: string): Record<string, unknown>[] {
  const common = { session_id: "codex-ran-none", cwd: join(caseDir, "project"), model: "mock-model" };
  return [
    { ...common, hook_event_name: "SessionStart", source: "startup" },
    { ...common, hook_event_name: "UserPromptSubmit", turn_id: "t-1", prompt: "run the command" },
    {
      ...common,
      hook_event_name: "PreToolUse",
      turn_id: "t-1",
      tool_name: "Bash",
      tool_input: { command: `touch ${join(caseDir, "command-ran")}` },
      tool_use_id: "call_mock_1",
    },
  ];
}

/**
 * What the bridge's result for `event` says the harness shows its model,
 * its background hooks' deliveries included (awaited: the binary's run
 * went on past them).
 */
async function shownByBridge(event: string, result: HookDispatchResult): Promise<string[]> {
  const texts = [...result.additionalContext];
  if (result.blocked && ["PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "SubagentStop"].includes(event)) {
    texts.push(...result.reasons);
  }
  if (event === "PostToolUse") texts.push(...result.feedback, result.toolOutput ?? "");
  for (const run of result.background) {
    const ended = await run.done;
    texts.push(ended.additionalContext ?? "", ended.rewake ?? "");
  }
  return texts;
}

/** The events the bridge replays, in the order a run meets them. */
const EVENTS = [
  "SessionStart",
  "InstructionsLoaded",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "TaskCreated",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Stop",
  "StopFailure",
  "SessionEnd",
] as const;

/**
 * The file a hook's `held` waits for, in its side's directory. Every side has
 * it from the start but Codex's binary: `codex exec` ends without waiting for
 * its `SessionEnd` hooks, and a held hook may finish only after the run, that
 * is never (the run's pid namespace ends it with the run). Without the hold,
 * whether a 3 s hook finished depended on how long Codex took to exit, not on
 * whether it waited: on a loaded machine its record said one finished.
 */
const RELEASE = "hooks.release";

/** The events after which the run ends: their background hooks meet the teardown, not a later turn. */
const LAST_EVENTS: ReadonlySet<string> = new Set(["Stop", "StopFailure", "SessionEnd"]);

const isolated = isolation();

/** `DSH_CONFORMANCE_SCENARIO`: only the scenarios whose name holds it. */
const ONLY = process.env.DSH_CONFORMANCE_SCENARIO || undefined;

for (const agent of AGENTS) {
  describe(`the hook bridge and ${agent.name}, event by event`, () => {
    let shell: Shell;
    let dir: string;
    let hookServer: MockModel;
    let base: string;
    // A replaying leg runs no binary.
    const missing = !RUNS_BINARIES
      ? undefined
      : "missing" in agent.found
      ? agent.found.missing
      : "missing" in isolated
      ? isolated.missing
      : undefined;
    /**
     * The scenarios started before their turn, each `it` awaiting its own:
     * the slow ones, run beside the others; while the live step records,
     * every one, {@linkcode RECORD_CONCURRENCY} at a time (without the
     * bridge's side, two of which would share the hook server's listener).
     */
    const early = new Map<number, Promise<void>>();
    /** Why `scenario` does not run here, if it does not. */
    const skipOf = (scenario: Scenario): string | undefined => {
      const notHere = agent.dialect !== "codex"
        ? undefined
        : scenario.permissionMode !== undefined
        ? "codex exec runs with approvals bypassed here: it asks for no permission"
        : scenario.call === "write"
        ? "Codex has no if rules (nor a Write tool)"
        : scenario.call === "if-forms"
        ? "Codex has no if rules (nor a WebFetch tool)"
        : undefined;
      const unwanted = ONLY !== undefined && !scenario.name.includes(ONLY) ? `not ${ONLY}` : undefined;
      return missing ?? notHere ?? unwanted;
    };
    before(async () => {
      dir = freshDir("dsh-conformance-events-");
      shell = createLocalShell({ graceMs: 500 });
      const replies = Object.assign({}, ...SCENARIOS.map(repliesOf));
      hookServer = new MockModel({ name: "none", input: {} }, "anthropic", replies);
      base = await hookServer.start();
      if (missing !== undefined) return;
      const recording = AGENT_RUNS.mode === "record";
      const next = pool(RECORD_CONCURRENCY);
      // The slow ones first: they take the longest.
      const order = [...SCENARIOS.entries()].sort(([, a], [, b]) => Number(b.slow === true) - Number(a.slow === true));
      for (const [index, scenario] of order) {
        if (skipOf(scenario) !== undefined || (scenario.slow !== true && !recording)) continue;
        const running = recording ? next(() => check(index, scenario)) : check(index, scenario);
        // Awaited by its own `it`; until then a failure must not count as unhandled.
        running.catch(() => {});
        early.set(index, running);
      }
    });
    after(async () => {
      await hookServer?.close();
      await shell?.close();
      removeDir(dir);
    });

    it("the binary is here where it is required", () => {
      if (REQUIRE_AGENTS) assert.equal(missing, undefined, missing);
    });

    for (const [index, scenario] of SCENARIOS.entries()) {
      it(scenario.name, { skip: skipOf(scenario) ?? false }, () => early.get(index) ?? check(index, scenario));
    }

    /**
     * Runs `scenario` through the binary and through the bridge, and
     * compares the two; records the binary's side instead, or compares the
     * bridge with a recorded one (`DSH_AGENT_RUNS`).
     */
    async function check(index: number, scenario: Scenario): Promise<void> {
      const caseDir = join(dir, `scenario-${index}`);
      for (const sub of ["binary", "bridge", "project", "home"]) mkdirSync(join(caseDir, sub), { recursive: true });
      const key: RecordKey = { suite: "events", agent: agent.name, name: scenario.name, definition: scenario };
      if (!RUNS_BINARIES) return await compare(scenario, caseDir, await loadRecord<BinaryRecord>(key, caseDir));
      const record = await runBinary(scenario, caseDir);
      checkBinary(scenario, record);
      if (AGENT_RUNS.mode === "record") return saveRecord(key, caseDir, record);
      await compare(scenario, caseDir, record);
    }

    /** What the binary did with a scenario run in `caseDir`. */
    async function runBinary(scenario: Scenario, caseDir: string): Promise<BinaryRecord> {
      const marker = markerOf(scenario, caseDir);
      const mcpServer = scenario.call === "mcp"
        ? [process.execPath, ...scriptArgs(fileURLToPath(MCP_SERVER), [marker])]
        : undefined;
      const touch = agent.call(`touch ${shQuote(marker)}`);
      const call = scenario.call === "mcp"
        ? agent.mcpCall("hello")
        : scenario.call === "subagent"
        ? agent.subagentCalls(`${SUBAGENT_TASK}: say done`)
        : scenario.call === "shell-twice"
        ? [touch, touch]
        : scenario.call === "write"
        ? { name: "Write", input: { file_path: marker, content: "written\n" } }
        : scenario.call === "long-shell"
        ? agent.call(`touch ${shQuote(marker)} # ${"x".repeat(10_050)}`)
        : scenario.call === "edges"
        ? [
          touch,
          ...(agent.dialect === "claude-code"
            ? [{ name: "TaskCreate", input: { subject: "a task", description: "a task to create" } }]
            : []),
          { name: "", input: {}, apiError: { status: 400, type: "invalid_request_error" } },
        ]
        : scenario.call === "shell-then-sleep"
        ? [touch, agent.call("sleep 4")]
        : scenario.call === "if-forms"
        ? [
          touch,
          { name: "WebFetch", input: { url: "http://127.0.0.1:1/if-forms", prompt: "say done" } },
          ...agent.subagentCalls(`${SUBAGENT_TASK}: say done`),
        ]
        : touch;
      if (scenario.claudeMd === true) {
        writeFileSync(join(caseDir, "project", "CLAUDE.md"), "Project instructions: answer briefly.\n");
      }

      // The binary.
      const binary = (agent.found as { path: string }).path;
      // Codex's SessionEnd hooks are held until the run has ended (`RELEASE`).
      const settings = scenarioSettings(
        scenario,
        join(caseDir, "binary"),
        "http://127.0.0.1:__PORT__",
        agent.dialect,
        agent.dialect !== "codex",
      );
      const { argv, env, prepare } = agent.setUp(binary, settings, caseDir, {
        ...(scenario.env === undefined ? {} : { env: scenario.env }),
        ...(mcpServer === undefined ? {} : { mcpServer }),
        ...(scenario.compact === true ? { compactAbove: COMPACTING_TOKENS / 2 } : {}),
        ...(scenario.permissionMode === undefined ? {} : { permissionMode: scenario.permissionMode }),
      });
      // Outside a pid namespace of its own, the pids its hooks record are this host's: only then are they watched.
      const hostPids = scenario.watchTeardown !== undefined && agent.dialect === "claude-code";
      const run = await runAgent((isolated as { bwrap: string }).bwrap, {
        argv,
        env,
        ...(prepare === undefined ? {} : { prepare }),
        cwd: join(caseDir, "project"),
        protocol: agent.dialect === "codex" ? "responses" : "anthropic",
        call,
        hookReplies: repliesOf(scenario),
        dir: caseDir,
        ...(scenario.compact === true ? { firstTurnTokens: COMPACTING_TOKENS } : {}),
        // The run ends only once the last call's async hook has recorded what it runs (the teardown's subject), and
        // the background hooks it compares have logged.
        holdLastUntil: [
          ...(hostPids ? [join(caseDir, "binary", `${scenario.watchTeardown}.pids`)] : []),
          ...(scenario.awaitRan ?? []).map((id) => join(caseDir, "binary", `${id}.jsonl`)),
        ],
        ...(hostPids ? { pidNamespace: false } : {}),
      });
      const everything = JSON.stringify(run.requests);
      const side: Side = {
        ran: [...commandHooksRan(join(caseDir, "binary")), ...run.hookRequests.map((request) => request.name)]
          .sort(),
        shown: markersIn(everything),
        prompted: everything.includes("run the command"),
        commandRan: existsSync(marker),
        headers: headersOf(scenario, run.hookRequests),
        ...stdinOf(scenario, join(caseDir, "binary")),
        // A namespace's pids name other processes here: not looked up, and never signalled.
        alive: hostPids ? await aliveIn(join(caseDir, "binary")) : [],
      };
      return {
        side,
        code: run.code,
        stderr: run.stderr,
        payloadLines: hookPayloadLines(join(caseDir, "binary")),
        hookRequests: run.hookRequests,
        watched: hostPids ? readdirSync(join(caseDir, "binary")).filter((name) => name.endsWith(".pids")) : [],
      };
    }

    /** What must hold of the binary's side for the comparison to measure what the scenario is for. */
    function checkBinary(scenario: Scenario, { side: binarySide, code, stderr, watched }: BinaryRecord): void {
      const differs = agent.dialect === "codex" && scenario.codexLoadsNothing === true;
      const none = differs || (agent.dialect === "claude-code" && scenario.claudeCodeRunsNone === true);
      if (none) assert.deepEqual(binarySide.ran, [], `${agent.name} ran hooks of this file`);
      else assert.ok(binarySide.ran.length > 0, `no hook ran in ${agent.name} (exit ${code}): ${stderr}`);
      if (scenario.watchTeardown !== undefined && agent.dialect === "claude-code") {
        assert.ok(watched.length > 0, `no hook of ${agent.name} was still running at the end to watch`);
      }
      for (const id of scenario.expectRan?.[agent.dialect] ?? []) {
        assert.ok(binarySide.ran.includes(id), `${id} did not run in ${agent.name} (exit ${code}): ${stderr}`);
      }
      const killed = scenario.killedAtOnce?.[agent.dialect] ?? [];
      if (killed.length > 0) {
        assert.ok(killed.some((id) => binarySide.ran.includes(id)), `none of ${killed} ran in ${agent.name}`);
      }
    }

    /** Runs `scenario` through the bridge in `caseDir`, and compares it with the binary's side. */
    async function compare(scenario: Scenario, caseDir: string, record: BinaryRecord): Promise<void> {
      checkBinary(scenario, record);
      const binarySide = record.side;
      const differs = agent.dialect === "codex" && scenario.codexLoadsNothing === true;
      // The bridge, event by event, in the order the binary meets them.
      const bridgeSettings = parseHookSettings(
        scenarioSettings(scenario, join(caseDir, "bridge"), base, agent.dialect),
        {
          dialect: agent.dialect,
        },
      );
      const bridgeRequests: HookRequest[] = [];
      // Only a scenario with http hooks listens (a slow one runs beside the others).
      if (Object.keys(repliesOf(scenario)).length > 0) {
        hookServer.onHookRequest = (request) => bridgeRequests.push(request);
      }
      const shown: string[] = [];
      let prompted = true;
      // A subagent's call touches nothing; the shell's runs unless a hook the binary ran blocks it.
      let commandRan = scenario.call !== "subagent";
      let compacting = true;
      // Where Codex ran nothing, the bridge is given payloads like Codex's (it runs the command hooks regardless).
      const firsts = differs
        ? firstPayloads([], [], codexLikePayloads(caseDir))
        : firstPayloads(record.payloadLines, record.hookRequests);
      const every = scenario.replayAll === true ? allPayloads(record.payloadLines, record.hookRequests) : undefined;
      // The run's end: what its last events left in the background is cancelled then, as a harness's teardown does.
      const teardown = new AbortController();
      const left: Promise<unknown>[] = [];
      for (const event of EVENTS) {
        for (const payload of every?.get(event) ?? [firsts.get(event)]) {
          if (payload === undefined) continue;
          // A blocked compaction has no PostCompact.
          if (event === "PostCompact" && !compacting) continue;
          const result = await dispatchHookEvent(shell, bridgeSettings, {
            event,
            payload,
            projectDir: join(caseDir, "project"),
            owner: null,
            backgroundSignal: teardown.signal,
            ...(scenario.env === undefined ? {} : { env: scenario.env }),
          });
          // The last call's PostToolUse is followed by the final turn only, which waits for no background hook.
          const list = every?.get(event) ?? [];
          const lastCall = event === "PostToolUse" && list.length > 1 && payload === list.at(-1);
          if (LAST_EVENTS.has(event) || lastCall) {
            left.push(...result.background.map((run) => run.done));
            shown.push(...await shownByBridge(event, { ...result, background: [] }));
          } else {
            shown.push(...await shownByBridge(event, result));
          }
          if (event === "UserPromptSubmit" && result.blocked) prompted = false;
          // A defer ends a -p run before the call (Claude Code "Defer a tool call for later").
          // The marker is the first call's: its PreToolUse decides.
          if (event === "PreToolUse" && payload === (every?.get(event)?.[0] ?? payload)) {
            commandRan = !result.blocked && result.permission !== "defer";
          }
          // In -p nobody answers the question: only a hook's allow lets the call run.
          if (event === "PermissionRequest") commandRan = commandRan && result.permission === "allow";
          if (event === "PreCompact") compacting = !result.blocked;
        }
      }
      // What the teardown ends must have been recorded first, or its check holds for nothing.
      const teardownHook = scenario.watchTeardown;
      if (teardownHook !== undefined && record.watched.includes(`${teardownHook}.pids`)) {
        const recorded = await appeared(join(caseDir, "bridge", `${teardownHook}.pids`), 10_000);
        assert.ok(recorded, `the bridge's ${teardownHook} did not record its processes before the teardown`);
      }
      teardown.abort();
      await Promise.all(left);
      const bridgeSide: Side = {
        ran: [...commandHooksRan(join(caseDir, "bridge")), ...bridgeRequests.map((request) => request.name)].sort(),
        // A blocked prompt never reaches the model, nor anything gathered for it (SessionStart's context).
        shown: prompted ? markersIn(shown.join("\n")) : [],
        prompted,
        commandRan: prompted && commandRan,
        headers: headersOf(scenario, bridgeRequests),
        ...stdinOf(scenario, join(caseDir, "bridge")),
        alive: await aliveIn(join(caseDir, "bridge")),
      };
      // The deliberate difference: the bridge skips the http entries (with a warning) and runs the rest.
      const commands = Object.entries(scenario.hooks).flatMap(([event, list]) =>
        list.flatMap((hook, index) => hook.kind === "command" ? [idOf(event, index)] : [])
      ).sort();
      const warned = bridgeSettings.warnings?.some((warning) => /loads no hook of this file/.test(warning.message));
      // Fails safe: the model sees all the binary's model saw, and no call runs that the binary blocked.
      const safe = binarySide.shown.every((marker) => bridgeSide.shown.includes(marker)) &&
        (binarySide.commandRan || !bridgeSide.commandRan);
      const documented = withoutDocumented(scenario, bridgeSide, binarySide);
      reportCase({
        suite: "events",
        agent: agent.name,
        case: scenario.name,
        binary: binarySide,
        bridge: bridgeSide,
        matches: differs
          ? isDeepStrictEqual(bridgeSide.ran, commands) && safe && warned === true
          : isDeepStrictEqual(documented.bridge, binarySide) && documented.holds,
      });
      if (differs) {
        assert.deepEqual(bridgeSide.ran, commands);
        assert.ok(safe, `the bridge shows less or blocks less than ${agent.name}`);
        assert.ok(warned);
      } else {
        assert.ok(documented.holds, `the documented difference from ${agent.name} did not show: ${documented.why}`);
        assert.deepEqual(documented.bridge, binarySide, `the bridge differs from ${agent.name}`);
      }
    }

    /**
     * The bridge's side with the documented differences taken out, and
     * whether they showed as documented: the hooks of `bridgeRunsMore` ran
     * in the bridge only (their markers, runs and stdin taken out); Codex's
     * `SessionEnd` hooks ran in Codex and finished in the bridge only (`codex
     * exec` ends without waiting for them: they are held until it ended,
     * `RELEASE`, so that what is compared does not race its exit).
     */
    function withoutDocumented(scenario: Scenario, bridge: Side, binary: Side): {
      bridge: Side;
      holds: boolean;
      why: string;
    } {
      // The hooks the binary killed before they recorded their run count as the bridge running more.
      const unrecorded = (scenario.killedAtOnce?.[agent.dialect] ?? []).filter((id) =>
        !binary.ran.includes(id) && bridge.ran.includes(id)
      );
      const documentedMore = scenario.bridgeRunsMore?.[agent.dialect] ?? [];
      const more = [...documentedMore, ...unrecorded];
      const unwaited = agent.dialect === "codex"
        ? (scenario.hooks.SessionEnd ?? []).map((_, index) => idOf("SessionEnd", index))
        : [];
      const markersOf = (id: string): string[] => {
        const [event, index] = [id.slice(0, id.lastIndexOf("-")), Number(id.slice(id.lastIndexOf("-") + 1))];
        const hook = scenario.hooks[event]?.[index];
        return hook?.kind === "command" ? markersIn(hook.body) : [];
      };
      const hidden = new Set(more.flatMap(markersOf));
      const holds = documentedMore.every((id) => bridge.ran.includes(id) && !binary.ran.includes(id)) &&
        unwaited.every((id) => binary.ran.includes(id) && !binary.finished.includes(id));
      const why =
        `bridge ran ${bridge.ran}, ${agent.name} ran ${binary.ran}; ${agent.name} finished ${binary.finished}`;
      const drop = <T>(record: Record<string, T>): Record<string, T> =>
        Object.fromEntries(Object.entries(record).filter(([id]) => !more.includes(id)));
      return {
        holds,
        why,
        bridge: {
          ...bridge,
          ran: bridge.ran.filter((id) => !more.includes(id)),
          shown: bridge.shown.filter((marker) => !hidden.has(marker)),
          runs: {
            ...drop(bridge.runs),
            ...Object.fromEntries(more.filter((id) => id in binary.runs).map((id) => [id, binary.runs[id]])),
          },
          stdinNewline: drop(bridge.stdinNewline),
          finished: bridge.finished.filter((id) => !unwaited.includes(id)),
        },
      };
    }
  });
}
