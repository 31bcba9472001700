/**
 * The hook bridge against the released agent binaries, event by event:
 * each scenario is one run of the binary (the mock model asks for one
 * shell call, then answers "done"), with hooks on several events at once
 * (`SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`, `Stop`),
 * command hooks that log every payload they get and `http` hooks the mock
 * answers. Each event's first payload is then replayed through
 * `dispatchHookEvent` in the binary's dialect with the same settings.
 *
 * Compared, per event: which hooks ran; what the http hooks received (the
 * headers); and what reached the model. Every text a hook answers carries
 * a marker (`MARK-…`): the binary's model saw the markers found in the
 * requests it got, the bridge's the markers of what its result says the
 * harness shows the model (context, and the reasons of a block where the
 * event shows them). A scenario whose sides differ fails. Few runs, many
 * checks each: a Codex run lingers about 5 s.
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
import { shQuote } from "./helpers/bash.ts";
import { AGENTS, reportCase } from "./helpers/conformance.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";
import { type HookReply, type HookRequest, MockModel } from "./helpers/mock_model.ts";

/** A command hook: a sh script that logs each payload, then runs `body` (the payload is in `$input`). */
interface CommandHook {
  readonly kind: "command";
  readonly body: string;
  readonly matcher?: string;
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
   * `hooks.json` with an `http` entry; the bridge skips that entry only
   * (it runs more hooks, so a guard never blocks less).
   */
  readonly codexLoadsNothing?: true;
  /** The model calls the `note` tool of a real MCP server (`tests/fixtures/mcp_server`) instead of the shell. */
  readonly mcp?: true;
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
      UserPromptSubmit: [
        { kind: "command", body: "echo MARK-prompt-blocked >&2; exit 2" },
        { kind: "command", body: json({ decision: "block", reason: "MARK-prompt-json-block" }) },
      ],
    },
  },
  {
    name: "an MCP tool call: mcp__ matchers, a deny of the MCP tool",
    mcp: true,
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
    name: "http hooks: headers, 2xx JSON, plain text, non-2xx, timeout, connection refused",
    codexLoadsNothing: true,
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
];

function ctxJson(event: string, text: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
}

/** A refused port on loopback: nothing listens on port 1. */
const REFUSED_URL = "http://127.0.0.1:1/hooks/refused";

/** The id of hook `index` of `event`. */
const idOf = (event: string, index: number): string => `${event}-${index}`;

/** The settings of a scenario, its command hooks' scripts written into `dir`, http hooks at `base`. */
function settingsOf(scenario: Scenario, dir: string, base: string): Record<string, unknown> {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, list] of Object.entries(scenario.hooks)) {
    hooks[event] = list.map((hook, index) => {
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
      const script = join(dir, `${id}.sh`);
      writeFileSync(
        script,
        ["#!/bin/sh", "input=$(cat)", `printf '%s\\n' "$input" >> ${shQuote(join(dir, `${id}.jsonl`))}`, hook.body]
          .join("\n"),
      );
      chmodSync(script, 0o755);
      return group({ type: "command", command: script });
    });
  }
  // A hook nobody answers: a connection failure, on an event that surely runs.
  if (hooks.UserPromptSubmit !== undefined && scenario.name.startsWith("http")) {
    hooks.UserPromptSubmit.push({ hooks: [{ type: "http", url: REFUSED_URL }] });
  }
  return { hooks };
}

/** The http replies of a scenario, by hook id. */
function repliesOf(scenario: Scenario): Record<string, HookReply> {
  const replies: Record<string, HookReply> = {};
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
}

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

/** The ids of the command hooks of `dir` that logged a payload. */
function commandHooksRan(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const match = /^(.+)\.jsonl$/.exec(name);
    return match === null ? [] : [match[1]];
  });
}

/** The first payload each event's hooks got in `dir`, and from the http requests (after `given`). */
function firstPayloads(
  dir: string,
  requests: readonly HookRequest[],
  given: Record<string, unknown>[] = [],
): Map<string, Record<string, unknown>> {
  const payloads = new Map<string, Record<string, unknown>>();
  for (const payload of given) payloads.set(String(payload.hook_event_name), payload);
  if (!existsSync(dir)) return payloads;
  const offer = (payload: Record<string, unknown>) => {
    const event = String(payload.hook_event_name);
    if (!payloads.has(event)) payloads.set(event, payload);
  };
  for (const id of commandHooksRan(dir).sort()) {
    offer(JSON.parse(readFileSync(join(dir, `${id}.jsonl`), "utf8").split("\n")[0]));
  }
  for (const request of requests) offer(JSON.parse(request.body));
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

/** What the bridge's result for `event` says the harness shows its model. */
function shownByBridge(event: string, result: HookDispatchResult): string[] {
  const texts = [...result.additionalContext];
  if (result.blocked && ["PreToolUse", "PostToolUse", "Stop", "SubagentStop"].includes(event)) {
    texts.push(...result.reasons);
  }
  if (event === "PostToolUse") texts.push(...result.feedback, result.toolOutput ?? "");
  return texts;
}

const isolated = isolation();

for (const agent of AGENTS) {
  describe(`the hook bridge and ${agent.name}, event by event`, () => {
    let shell: Shell;
    let dir: string;
    let hookServer: MockModel;
    let base: string;
    const missing = "missing" in agent.found
      ? agent.found.missing
      : "missing" in isolated
      ? isolated.missing
      : undefined;
    before(async () => {
      dir = freshDir("dsh-conformance-events-");
      shell = createLocalShell({ graceMs: 500 });
      const replies = Object.assign({}, ...SCENARIOS.map(repliesOf));
      hookServer = new MockModel({ name: "none", input: {} }, "anthropic", replies);
      base = await hookServer.start();
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
      it(scenario.name, { skip: missing ?? false }, async () => {
        const caseDir = join(dir, `scenario-${index}`);
        for (const sub of ["binary", "bridge", "project", "home"]) mkdirSync(join(caseDir, sub), { recursive: true });
        // The shell call touches this file; the MCP tool's call appends to it.
        const marker = join(caseDir, "command-ran");
        const mcpServer = scenario.mcp === true
          ? [process.execPath, ...scriptArgs(fileURLToPath(MCP_SERVER), [marker])]
          : undefined;

        // The binary.
        const binary = (agent.found as { path: string }).path;
        const settings = settingsOf(scenario, join(caseDir, "binary"), "http://127.0.0.1:__PORT__");
        const { argv, env, prepare } = agent.setUp(binary, settings, caseDir, scenario.env, mcpServer);
        const run = await runAgent((isolated as { bwrap: string }).bwrap, {
          argv,
          env,
          ...(prepare === undefined ? {} : { prepare }),
          cwd: join(caseDir, "project"),
          protocol: agent.dialect === "codex" ? "responses" : "anthropic",
          call: scenario.mcp === true ? agent.mcpCall("hello") : agent.call(`touch ${shQuote(marker)}`),
          hookReplies: repliesOf(scenario),
          dir: caseDir,
        });
        const everything = JSON.stringify(run.requests);
        const binarySide: Side = {
          ran: [...commandHooksRan(join(caseDir, "binary")), ...run.hookRequests.map((request) => request.name)]
            .sort(),
          shown: markersIn(everything),
          prompted: everything.includes("run the command"),
          commandRan: existsSync(marker),
          headers: headersOf(scenario, run.hookRequests),
        };
        const differs = agent.dialect === "codex" && scenario.codexLoadsNothing === true;
        if (differs) assert.deepEqual(binarySide.ran, [], `${agent.name} ran hooks of a file with an http entry`);
        else assert.ok(binarySide.ran.length > 0, `no hook ran in ${agent.name} (exit ${run.code}): ${run.stderr}`);

        // The bridge, event by event, in the order the binary meets them.
        const bridgeSettings = parseHookSettings(settingsOf(scenario, join(caseDir, "bridge"), base), {
          dialect: agent.dialect,
        });
        const bridgeRequests: HookRequest[] = [];
        hookServer.onHookRequest = (request) => bridgeRequests.push(request);
        const shown: string[] = [];
        let prompted = true;
        let commandRan = scenario.hooks.PreToolUse === undefined;
        // Where Codex ran nothing, the bridge is given payloads like Codex's (it runs the command hooks regardless).
        const payloads = differs
          ? firstPayloads(join(caseDir, "bridge-witness"), [], codexLikePayloads(caseDir))
          : firstPayloads(join(caseDir, "binary"), run.hookRequests);
        for (const event of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]) {
          const payload = payloads.get(event);
          if (payload === undefined) continue;
          const result = await dispatchHookEvent(shell, bridgeSettings, {
            event,
            payload,
            projectDir: join(caseDir, "project"),
            owner: null,
            ...(scenario.env === undefined ? {} : { env: scenario.env }),
          });
          shown.push(...shownByBridge(event, result));
          if (event === "UserPromptSubmit" && result.blocked) prompted = false;
          if (event === "PreToolUse") commandRan = !result.blocked;
        }
        const bridgeSide: Side = {
          ran: [...commandHooksRan(join(caseDir, "bridge")), ...bridgeRequests.map((request) => request.name)].sort(),
          // A blocked prompt never reaches the model, nor anything gathered for it (SessionStart's context).
          shown: prompted ? markersIn(shown.join("\n")) : [],
          prompted,
          commandRan: prompted && commandRan,
          headers: headersOf(scenario, bridgeRequests),
        };
        // The deliberate difference: the bridge skips the http entries (with a warning) and runs the rest.
        const commands = Object.entries(scenario.hooks).flatMap(([event, list]) =>
          list.flatMap((hook, index) => hook.kind === "command" ? [idOf(event, index)] : [])
        ).sort();
        const warned = bridgeSettings.warnings?.some((warning) => /loads no hook of this file/.test(warning.message));
        reportCase({
          suite: "events",
          agent: agent.name,
          case: scenario.name,
          binary: binarySide,
          bridge: bridgeSide,
          matches: differs
            ? isDeepStrictEqual(bridgeSide.ran, commands) && isDeepStrictEqual(bridgeSide.shown, binarySide.shown) &&
              warned === true
            : isDeepStrictEqual(bridgeSide, binarySide),
        });
        if (differs) {
          assert.deepEqual(bridgeSide.ran, commands);
          assert.deepEqual(bridgeSide.shown, binarySide.shown);
          assert.ok(warned);
        } else {
          assert.deepEqual(bridgeSide, binarySide, `the bridge differs from ${agent.name}`);
        }
      });
    }
  });
}
