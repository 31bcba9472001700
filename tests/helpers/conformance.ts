/**
 * The agent binaries of the differential suites (`tests/conformance*.test.ts`):
 * how to run each with a settings file, and the bridge's dialect for it.
 * `__PORT__` in the settings is the mock's port (HTTP hooks' URLs), filled
 * in once the mock listens.
 *
 * Nothing here imports the library.
 */

import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  CLAUDE_CODE_VERSION,
  claudeCodeBinary,
  claudeCodeRun,
  CODEX_VERSION,
  codexBinary,
  codexRun,
} from "./agents.ts";
import { shQuote } from "./bash.ts";
import { LAST_AGENT_ID, type ScriptedToolCall } from "./mock_model.ts";

/** The bridge's dialects, as the library names them (the helpers do not import it). */
export type AgentDialect = "claude-code" | "codex";

/** An agent binary: how to run a case in it, and the bridge's dialect for it. */
export interface Agent {
  readonly name: string;
  readonly dialect: AgentDialect;
  readonly found: { path: string } | { missing: string };
  /** The binary's own shell tool, as the mock's first turn calls it. */
  call(command: string): ScriptedToolCall;
  /** The `note` tool of the MCP server `memo` (`tests/fixtures/mcp_server`), as the binary offers it to its model. */
  mcpCall(text: string): ScriptedToolCall;
  /**
   * The binary's own tool calls that start a subagent with `prompt` and see
   * it end (Claude Code's `Agent`, whose end the binary waits for; Codex's
   * `spawn_agent`, then `wait_agent`: `codex exec` otherwise ends with its
   * main turn, the subagent's with it).
   */
  subagentCalls(prompt: string): ScriptedToolCall[];
  /**
   * Writes the case's settings where the binary reads them; the argv, env
   * and set-up of its run.
   */
  setUp(
    binary: string,
    settings: Record<string, unknown>,
    dir: string,
    options?: SetUpOptions,
  ): {
    argv: string[];
    env: Record<string, string>;
    prepare?: string;
  };
}

/** What a run adds to the binary's defaults. */
export interface SetUpOptions {
  /** Added to its environment. */
  readonly env?: Record<string, string>;
  /** The argv of the MCP server `memo` it starts. */
  readonly mcpServer?: string[];
  /**
   * It compacts its context once a turn reports more input tokens than
   * this (Codex's `model_auto_compact_token_limit`; Claude Code's own
   * threshold is below {@linkcode COMPACTING_TOKENS}).
   */
  readonly compactAbove?: number;
  /** Claude Code's `--permission-mode` (default `bypassPermissions`); `default` asks, and `-p` cannot. */
  readonly permissionMode?: string;
}

/**
 * Input tokens a turn reports to make the binary compact after it: past
 * Claude Code's automatic threshold (measured, 2.1.328) and Codex's limit
 * as {@linkcode Agent.setUp} sets it.
 */
export const COMPACTING_TOKENS = 990_000;

/** The binaries, looked up (and installed) at first use: a replaying leg runs none. */
let claudeCode: { path: string } | { missing: string } | undefined;
let codex: { path: string } | { missing: string } | undefined;

/** Claude Code and Codex, at the pinned versions. */
export const AGENTS: readonly Agent[] = [
  {
    name: `Claude Code ${CLAUDE_CODE_VERSION}`,
    dialect: "claude-code",
    get found() {
      return claudeCode ??= claudeCodeBinary();
    },
    call: (command) => ({ name: "Bash", input: { command, description: "touch" } }),
    mcpCall: (text) => ({ name: "mcp__memo__note", input: { text } }),
    subagentCalls: (prompt) => [{
      name: "Agent",
      input: { description: "a subagent", prompt, subagent_type: "general-purpose" },
    }],
    setUp: (binary, settings, dir, { env: extra = {}, mcpServer, permissionMode } = {}) => {
      mkdirSync(join(dir, "project", ".claude"), { recursive: true });
      const template = join(dir, "settings.template");
      writeFileSync(template, JSON.stringify(settings));
      let mcpConfig: string | undefined;
      if (mcpServer !== undefined) {
        const [command, ...args] = mcpServer;
        mcpConfig = join(dir, "mcp.json");
        writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { memo: { type: "stdio", command, args } } }));
      }
      // The MCP tool in the model's tool list itself, not behind a tool search. MCP_TIMEOUT: the server's start
      // may take longer than Claude Code's default on a loaded machine (see Codex's startup_timeout_sec below).
      const run = claudeCodeRun(binary, dir, {
        mcpConfig,
        env: { ENABLE_TOOL_SEARCH: "false", ...(mcpConfig === undefined ? {} : { MCP_TIMEOUT: "120000" }), ...extra },
        ...(permissionMode === undefined ? {} : { permissionMode }),
      });
      return { ...run, prepare: portInto(template, join(dir, "project", ".claude", "settings.json")) };
    },
  },
  {
    name: `Codex ${CODEX_VERSION}`,
    dialect: "codex",
    get found() {
      return codex ??= codexBinary();
    },
    call: (command) => ({ name: "exec_command", input: { cmd: command } }),
    // Codex 0.169 offers an MCP server's tools as a namespace `mcp__<server>`; its hooks see `mcp__memo__note`.
    mcpCall: (text) => ({ name: "note", namespace: "mcp__memo", input: { text } }),
    subagentCalls: (prompt) => [
      { name: "spawn_agent", namespace: "multi_agent_v1", input: { message: prompt } },
      {
        name: "wait_agent",
        namespace: "multi_agent_v1",
        input: { targets: [LAST_AGENT_ID], timeout_ms: 60_000 },
      },
    ],
    setUp: (binary, settings, dir, { env: extra = {}, mcpServer, compactAbove } = {}) => {
      const mcp = mcpServer === undefined ? [] : [
        "[mcp_servers.memo]",
        `command = ${JSON.stringify(mcpServer[0])}`,
        `args = ${JSON.stringify(mcpServer.slice(1))}`,
        // Required: Codex 0.169 waits for an optional server only a 1 s grace before a turn's first request, then
        // leaves its tools out of that turn; a required one is waited for (see tests/mcp_clients.test.ts).
        "required = true",
        // The server's start itself may take long on a loaded machine.
        "startup_timeout_sec = 120",
      ];
      const limit = compactAbove === undefined ? [] : [`model_auto_compact_token_limit = ${compactAbove}`];
      const { home, ...run } = codexRun(binary, dir, mcp, limit);
      writeFileSync(join(home, "hooks.template"), JSON.stringify(settings));
      return {
        ...run,
        env: { ...run.env, ...extra },
        prepare: [run.prepare, portInto(join(home, "hooks.template"), join(home, "hooks.json"))].join("\n"),
      };
    },
  },
];

/** A shell line writing `template` to `file` with `__PORT__` replaced by the mock's port (`$port`). */
function portInto(template: string, file: string): string {
  return `sed "s/__PORT__/$port/g" ${shQuote(template)} > ${shQuote(file)}`;
}

/** One case's measure, as `scripts/conformance.ts` reads it back. */
export interface CaseReport {
  readonly suite: string;
  readonly agent: string;
  readonly case: string;
  /** What the binary did. */
  readonly binary: unknown;
  /** What the bridge did with the binary's payloads. */
  readonly bridge: unknown;
  /** Whether the case passes: the two agree (or differ only as documented). */
  readonly matches: boolean;
}

/**
 * Appends `entry` as one JSON line to the file `DSH_CONFORMANCE_REPORT`
 * names, when it names one (before the case's assertions, so a mismatch
 * is reported too).
 */
export function reportCase(entry: CaseReport): void {
  const file = process.env.DSH_CONFORMANCE_REPORT;
  if (file !== undefined && file !== "") appendFileSync(file, `${JSON.stringify(entry)}\n`);
}
