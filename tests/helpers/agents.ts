/**
 * The released agent binaries the hook bridge is compared with, at pinned
 * versions, installed from npm into the clone's own cache
 * (`node_modules/.cache/dsh-agents/`, git-ignored) on first use: the native
 * binary of the platform's package, run directly. With
 * `DSH_REQUIRE_AGENTS=1` (CI) a binary that cannot be had fails the tests
 * that need it; elsewhere they are skipped.
 *
 * Nothing here imports the library.
 */

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { shQuote } from "./bash.ts";
import { repositoryRoot } from "./repository.ts";
import type { HookReply, HookRequest, MockProtocol, ScriptedCalls } from "./mock_model.ts";
import { IS_DENO, scriptArgs } from "./runtime.ts";

/** The Claude Code release the bridge is pinned to (docs/hooks.md names it). */
export const PINNED_CLAUDE_CODE_VERSION = "2.1.328";

/**
 * The Claude Code release the tests measure: the pinned one, unless
 * `DSH_CLAUDE_CODE_VERSION` names another (`scripts/conformance.ts`).
 */
export const CLAUDE_CODE_VERSION: string = versionFrom("DSH_CLAUDE_CODE_VERSION", PINNED_CLAUDE_CODE_VERSION);

/** `process.env[name]` when it is a version (digits and dots, a pre-release suffix), else `pinned`. */
function versionFrom(name: string, pinned: string): string {
  const given = process.env[name];
  if (given === undefined || given === "") return pinned;
  if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(given)) throw new Error(`${name}: not a version: ${JSON.stringify(given)}`);
  return given;
}

/** Whether a missing binary fails (CI) rather than skips. */
export const REQUIRE_AGENTS: boolean = process.env.DSH_REQUIRE_AGENTS === "1";

/** npm's name for this platform's native package, or undefined where Claude Code ships none we run. */
function claudePlatformPackage(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const arch = process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : undefined;
  if (arch === undefined) return undefined;
  // glibc unless the loader says musl.
  const musl = existsSync(`/lib/ld-musl-${arch === "x64" ? "x86_64" : "aarch64"}.so.1`);
  return `@anthropic-ai/claude-code-linux-${arch}${musl ? "-musl" : ""}`;
}

/**
 * The path of the Claude Code binary at {@linkcode CLAUDE_CODE_VERSION},
 * installing it first if needed; the reason it cannot be had otherwise.
 */
export function claudeCodeBinary(): { path: string } | { missing: string } {
  const platformPackage = claudePlatformPackage();
  if (platformPackage === undefined) {
    return { missing: `no Claude Code binary for ${process.platform}-${process.arch}` };
  }
  return npmBinary({
    cache: `claude-code-${CLAUDE_CODE_VERSION}`,
    spec: `${platformPackage}@${CLAUDE_CODE_VERSION}`,
    binary: ["node_modules", ...platformPackage.split("/"), "claude"],
    says: (version) => version.startsWith(`${CLAUDE_CODE_VERSION} `),
    name: `Claude Code ${CLAUDE_CODE_VERSION}`,
  });
}

/** The Codex release the bridge is pinned to (docs/hooks.md names it). */
export const PINNED_CODEX_VERSION = "0.169.0";

/** The Codex release the tests measure: the pinned one, unless `DSH_CODEX_VERSION` names another. */
export const CODEX_VERSION: string = versionFrom("DSH_CODEX_VERSION", PINNED_CODEX_VERSION);

/**
 * The path of the Codex binary at {@linkcode CODEX_VERSION}, installing
 * its platform package (`@openai/codex@<version>-linux-<arch>`, whose
 * binary is under `vendor/`) first if needed; the reason it cannot be had
 * otherwise.
 */
export function codexBinary(): { path: string } | { missing: string } {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) {
    return { missing: `no Codex binary for ${process.platform}-${process.arch}` };
  }
  const triple = process.arch === "x64" ? "x86_64-unknown-linux-musl" : "aarch64-unknown-linux-musl";
  return npmBinary({
    cache: `codex-${CODEX_VERSION}`,
    spec: `@openai/codex@${CODEX_VERSION}-linux-${process.arch}`,
    binary: ["node_modules", "@openai", "codex", "vendor", triple, "bin", "codex"],
    says: (version) => version.trim() === `codex-cli ${CODEX_VERSION}`,
    name: `Codex ${CODEX_VERSION}`,
  });
}

/**
 * The binary of npm package `spec`, installed into its own folder of the
 * clone's cache on first use, once its `--version` output `says` it is the
 * release wanted; the reason it cannot be had otherwise.
 */
function npmBinary(wanted: {
  cache: string;
  spec: string;
  binary: string[];
  says: (version: string) => boolean;
  name: string;
}): { path: string } | { missing: string } {
  const cache = join(repositoryRoot(), "node_modules", ".cache", "dsh-agents", wanted.cache);
  const binary = join(cache, ...wanted.binary);
  if (!existsSync(binary)) {
    mkdirSync(cache, { recursive: true });
    const install = spawnSync("npm", [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      cache,
      wanted.spec,
    ], {
      encoding: "utf8",
    });
    if (install.status !== 0 || !existsSync(binary)) {
      return { missing: `npm could not install ${wanted.spec}: ${install.stderr ?? install.error}` };
    }
  }
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" });
  if (!wanted.says(String(version.stdout))) {
    return { missing: `${binary} is not ${wanted.name}: ${version.stdout}${version.stderr}` };
  }
  return { path: binary };
}

/** bubblewrap, which gives an agent a network of its own (only loopback); the reason when it cannot. */
export function isolation(): { bwrap: string } | { missing: string } {
  const probe = spawnSync("bwrap", ["--dev-bind", "/", "/", "--unshare-net", "--", "/bin/true"], { encoding: "utf8" });
  if (probe.status !== 0) {
    return { missing: `bubblewrap cannot make a network namespace: ${probe.stderr ?? probe.error}` };
  }
  return { bwrap: "bwrap" };
}

/** How an agent binary is started beside the mock: its argv, its whole environment, a set-up once the mock listens. */
export interface AgentSetUp {
  argv: string[];
  env: Record<string, string>;
  prepare?: string;
}

const PATH = process.env.PATH ?? "/usr/bin:/bin";

/**
 * Claude Code in print mode against the mock (`$port`), its home in
 * `dir/home`, every permission granted (or `permissionMode`); with `mcpConfig`,
 * the MCP servers of that file too (`--mcp-config`, and no others); `env` adds
 * to its environment; `prompt` is the user's message (default "run the command").
 */
export function claudeCodeRun(
  binary: string,
  dir: string,
  options: { mcpConfig?: string; env?: Record<string, string>; prompt?: string; permissionMode?: string } = {},
): AgentSetUp {
  mkdirSync(join(dir, "home"), { recursive: true });
  const mcp = options.mcpConfig === undefined ? [] : ["--mcp-config", options.mcpConfig, "--strict-mcp-config"];
  return {
    argv: [
      binary,
      "-p",
      options.prompt ?? "run the command",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      options.permissionMode ?? "bypassPermissions",
      ...mcp,
    ],
    env: {
      PATH,
      HOME: join(dir, "home"),
      // Claude Code refuses bypassPermissions as root outside a sandbox; the run is in one of its own.
      IS_SANDBOX: "1",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:$port",
      ANTHROPIC_API_KEY: "sk-ant-mock-key-for-a-loopback-server",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      ...options.env,
    },
  };
}

/**
 * Codex `exec` against the mock, its home in `dir/codex-home` (returned,
 * for a test's own files there), with no approval and no sandbox of its own;
 * `config` lines (tables: they follow the mock provider's table) end its
 * `config.toml`, `topLevel` lines (keys of the top table) begin it.
 */
export function codexRun(
  binary: string,
  dir: string,
  config: string[] = [],
  topLevel: string[] = [],
): AgentSetUp & { home: string } {
  const home = join(dir, "codex-home");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
  const lines = [
    ...topLevel,
    'model = "mock-model"',
    'model_provider = "mock"',
    "[model_providers.mock]",
    'name = "mock"',
    'base_url = "http://127.0.0.1:__PORT__/v1"',
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    ...config,
  ];
  writeFileSync(join(home, "config.template"), `${lines.join("\n")}\n`);
  return {
    home,
    argv: [
      binary,
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-hook-trust",
      "--dangerously-bypass-approvals-and-sandbox",
      "--json",
      "run the command",
    ],
    env: { PATH, HOME: join(dir, "home"), CODEX_HOME: home, MOCK_API_KEY: "mock-key-for-a-loopback-server" },
    // The port is known once the mock listens.
    prepare: `sed "s/__PORT__/$port/" ${shQuote(join(home, "config.template"))} > ${
      shQuote(join(home, "config.toml"))
    }`,
  };
}

/** One run of an agent binary beside the mock model. */
export interface AgentRun {
  /** The agent's argv. */
  readonly argv: readonly string[];
  /** Its working directory. */
  readonly cwd: string;
  /**
   * Its whole environment; `$port` in a value is the mock's port (expanded
   * by the shell once the mock listens).
   */
  readonly env: Readonly<Record<string, string>>;
  /** A shell snippet run once the mock listens, with `$port` set (Codex's config takes the URL). */
  readonly prepare?: string;
  /** The API the mock speaks, and the tool call of its first turn (or of each turn in order). */
  readonly protocol: MockProtocol;
  readonly call: ScriptedCalls;
  /** How the mock answers HTTP hooks at `http://127.0.0.1:$port/hooks/<name>`. */
  readonly hookReplies?: Readonly<Record<string, HookReply>>;
  /** The input tokens the mock's first answer reports (a large count makes the agent compact once). */
  readonly firstTurnTokens?: number;
  /** A private directory for the run's files. */
  readonly dir: string;
  /**
   * Files the mock's turns after the last scripted call wait for, all of
   * them (at most `HOLD_MS`): an async hook a call started records itself
   * there before the answer that ends the run, whatever the machine's load.
   */
  readonly holdLastUntil?: readonly string[];
  /**
   * Whether the run gets a pid namespace of its own (default true). Without
   * one, a bubblewrap the agent starts (a sandboxed MCP server's) can mount
   * its own /proc, which the kernel refuses inside a pid namespace whose
   * /proc bubblewrap mounted; what the agent leaves running then outlives
   * the run, and the test must look for it.
   */
  readonly pidNamespace?: boolean;
}

/**
 * Runs an agent in a network namespace of its own, where only loopback
 * exists, together with the mock model (`tests/fixtures/mock_model_server`):
 * whatever the binary tries, no byte leaves this machine (Codex 0.169
 * resolves `github.com` at start-up; there it fails at once). Resolves with
 * the agent's exit code, its stderr, the request bodies the mock got, and
 * the requests of the HTTP hooks it answered.
 */
export async function runAgent(
  bwrap: string,
  run: AgentRun,
): Promise<
  { code: number | null; stderr: string; requests: Record<string, unknown>[]; hookRequests: HookRequest[] }
> {
  const fixture = fileURLToPath(new URL(`../fixtures/mock_model_server.${IS_DENO ? "ts" : "js"}`, import.meta.url));
  const log = join(run.dir, "requests.jsonl");
  const fifo = join(run.dir, "port.fifo");
  const mock = [
    process.execPath,
    ...scriptArgs(fixture, [
      run.protocol,
      JSON.stringify(run.call),
      log,
      fifo,
      JSON.stringify(run.hookReplies ?? {}),
      String(run.firstTurnTokens ?? 1),
      JSON.stringify(run.holdLastUntil ?? []),
    ]),
  ];
  const agent = ["env", "-i", ...Object.entries(run.env).map(([name, value]) => `${name}=${value}`), ...run.argv];
  const script = [
    `mkfifo ${shQuote(fifo)}`,
    `${mock.map(shQuote).join(" ")} &`,
    "mock=$!",
    // Blocks until the mock listens and writes its port.
    `read -r port < ${shQuote(fifo)}`,
    run.prepare ?? "",
    `cd ${shQuote(run.cwd)}`,
    // The values keep `$port` for the shell to expand; everything else is quoted as given.
    `${
      agent.map((word) =>
        `"${word.replaceAll(/["\\`]/g, (c) => `\\${c}`).replaceAll("$", "\\$").replaceAll("\\$port", "$port")}"`
      ).join(" ")
    } < /dev/null > /dev/null`,
    "status=$?",
    'kill "$mock"; wait "$mock"',
    'exit "$status"',
  ].join("\n");
  // A pid namespace too: what the agent leaves running (Codex keeps a helper a few seconds) ends with the run.
  const pids = run.pidNamespace === false ? [] : ["--unshare-pid", "--proc", "/proc"];
  const child = spawn(bwrap, [
    "--dev-bind",
    "/",
    "/",
    "--unshare-net",
    ...pids,
    "--die-with-parent",
    "--",
    "/bin/sh",
    "-c",
    script,
  ], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => stderr += chunk);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const lines = (file: string) =>
    existsSync(file)
      ? readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      : [];
  return { code, stderr, requests: lines(log), hookRequests: lines(`${log}.hooks`) };
}
