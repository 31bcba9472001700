/**
 * `dsh-shell mcp --http` in real clients nobody here wrote: the released
 * Claude Code (an MCP server of `"type": "http"` with an `Authorization`
 * header) and Codex (a streamable HTTP server with `bearer_token_env_var`)
 * binaries, pinned, each driven by the mock model on loopback, whose first
 * turn asks for the server's `bash` tool. The server runs as users run it:
 * sandboxed (the default), on 127.0.0.1 with port 0, in the agent's network
 * namespace (where only loopback exists), started before the agent and
 * ended by SIGTERM after it. The command's output must come back to the
 * model in the next request, and nothing the server started may be left.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentSetUp,
  CLAUDE_CODE_VERSION,
  claudeCodeBinary,
  claudeCodeRun,
  CODEX_VERSION,
  codexBinary,
  codexRun,
  isolation,
  REQUIRE_AGENTS,
  runAgent,
} from "./helpers/agents.ts";
import { shQuote } from "./helpers/bash.ts";
import { cliCommand } from "./helpers/cli.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { toolNames, toolResultsOf } from "./helpers/mock_model.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { sandboxUnavailable } from "./helpers/sandbox.ts";
import { eventually } from "./helpers/wait.ts";

/** Where the test puts the server's URL in a client's configuration, replaced once the server listens. */
const URL_SLOT = "__DSH_MCP_URL__";

/** A client binary: how to point it at the server, and the name under which its model sees the server's `bash`. */
interface McpClient {
  readonly name: string;
  readonly found: { path: string } | { missing: string };
  readonly protocol: "anthropic" | "responses";
  readonly bashTool: { name: string; namespace?: string };
  /** The run, with `URL_SLOT` in the file `config` for the server's URL; the token is in `DSH_MCP_TOKEN`. */
  setUp(binary: string, dir: string, token: string): AgentSetUp & { config: string };
}

const CLIENTS: readonly McpClient[] = [
  {
    name: `Claude Code ${CLAUDE_CODE_VERSION}`,
    found: claudeCodeBinary(),
    protocol: "anthropic",
    bashTool: { name: "mcp__dsh__bash" },
    setUp: (binary, dir, token) => {
      const config = join(dir, "mcp.json");
      // The header as docs/mcp.md shows it: Claude Code expands `${DSH_MCP_TOKEN}` from its environment.
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            dsh: { type: "http", url: URL_SLOT, headers: { Authorization: "Bearer ${DSH_MCP_TOKEN}" } },
          },
        }),
      );
      const run = claudeCodeRun(binary, dir, {
        mcpConfig: config,
        env: { ENABLE_TOOL_SEARCH: "false", MCP_TIMEOUT: "120000", DSH_MCP_TOKEN: token },
      });
      return { ...run, config };
    },
  },
  {
    name: `Codex ${CODEX_VERSION}`,
    found: codexBinary(),
    protocol: "responses",
    bashTool: { name: "bash", namespace: "mcp__dsh" },
    setUp: (binary, dir, token) => {
      const { home, ...run } = codexRun(binary, dir, [
        "[mcp_servers.dsh]",
        `url = "${URL_SLOT}"`,
        // Codex sends `Authorization: Bearer <the variable's value>`.
        'bearer_token_env_var = "DSH_MCP_TOKEN"',
        // Codex gives an optional server one second before its first request, then leaves its tools out: required,
        // it waits for the server's initialize and tools/list (see tests/mcp_clients.test.ts).
        "required = true",
        "startup_timeout_sec = 120",
      ]);
      return { ...run, env: { ...run.env, DSH_MCP_TOKEN: token }, config: join(home, "config.toml") };
    },
  },
];

/**
 * The shell lines that start the server in the agent's namespace, wait for its `listening on` line, put its URL in
 * `config`, and end it with SIGTERM (waiting for it) when the run's shell exits.
 */
function startServer(server: { command: string; args: string[] }, mark: string, dir: string, config: string): string {
  const log = join(dir, "server.err");
  return [
    `MCP_HTTP_CLIENT_MARK=${mark} ${[server.command, ...server.args].map(shQuote).join(" ")} 2> ${shQuote(log)} &`,
    "server=$!",
    `trap 'kill -TERM "$server"; wait "$server"' EXIT`,
    `until grep -q '^dsh-shell mcp: listening on ' ${shQuote(log)}; do`,
    `  kill -0 "$server" 2>/dev/null || { cat ${shQuote(log)} >&2; exit 1; }`,
    "  sleep 0.1",
    "done",
    `url=$(sed -n 's|^dsh-shell mcp: listening on ||p' ${shQuote(log)})`,
  ].join("\n") + `\nsed -i "s|${URL_SLOT}|$url|" ${shQuote(config)}`;
}

const isolated = isolation();
const noSandbox = sandboxUnavailable();

for (const client of CLIENTS) {
  describe(`dsh-shell mcp --http in ${client.name}`, () => {
    let dir: string;
    const missing = "missing" in client.found
      ? client.found.missing
      : "missing" in isolated
      ? isolated.missing
      : noSandbox || undefined;
    before(() => {
      dir = freshDir("dsh-mcp-http-client-");
    });
    after(() => removeDir(dir));

    it("the binary is here where it is required", () => {
      if (REQUIRE_AGENTS) assert.equal(missing, undefined, missing);
    });

    it("the model's bash call runs in the sandboxed server over HTTP with the token, and its output comes back", {
      skip: missing ?? false,
    }, async () => {
      const binary = (client.found as { path: string }).path;
      const project = join(dir, "project");
      mkdirSync(project);
      const token = randomBytes(32).toString("hex");
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const word = `mcp-http-${randomUUID()}`;
      const mark = randomUUID();
      const server = cliCommand(["mcp", "--http", "127.0.0.1:0", "--token-file", tokenFile, "--workdir", project]);
      const { argv, env, prepare, config } = client.setUp(binary, dir, token);
      const run = await runAgent((isolated as { bwrap: string }).bwrap, {
        argv,
        env,
        // Codex's own set-up (its config from the template) first, then the server, whose URL goes into it.
        prepare: [prepare ?? "", startServer(server, mark, dir, config)].join("\n"),
        cwd: project,
        protocol: client.protocol,
        call: { ...client.bashTool, input: { command: `echo ${word}; pwd; sleep 300 &` } },
        dir,
        // The sandboxed server's bubblewrap mounts a /proc of its own: see AgentRun.pidNamespace.
        pidNamespace: false,
      });
      assert.equal(run.code, 0, `${client.name} failed: ${run.stderr}`);
      const offered = toolNames(run.requests[0]);
      const { name, namespace } = client.bashTool;
      const wanted = namespace === undefined ? name : `${namespace}.${name}`;
      assert.ok(offered.includes(wanted), `${wanted} not offered (${offered}): ${run.stderr}`);
      const results = toolResultsOf(run.requests.at(-1));
      assert.equal(results.length, 1, `one tool result, after ${run.requests.length} requests`);
      // The output and the directory, whatever the shape the client gives the model (text or JSON).
      assert.ok(results[0].content.includes(word), results[0].content);
      assert.ok(results[0].content.includes(project), results[0].content);
      assert.equal(results[0].content.includes(token), false, "the token reached the model");
      // SIGTERM ended the server once the agent was done: the server, and the sleeper its command left, are gone.
      assert.ok(await eventually(() => runningWithEnv("MCP_HTTP_CLIENT_MARK", mark).length === 0), "left running");
    });
  });
}
