/**
 * `deno run -A scripts/bench/mcp_http.ts [--runtime=deno|node] [--calls=N] [--sandbox]`: what the
 * HTTP transport of `dsh-shell mcp` costs against stdio, for `docs/benchmarks.md`.
 *
 * One server process per transport (`dsh-shell mcp` on stdio; `dsh-shell mcp --http 127.0.0.1:0`), each driven by the
 * official SDK's client (`StdioClientTransport`, `StreamableHTTPClientTransport` with the token header):
 *
 * 1. sequential `bash` calls of `echo hi` on one session: calls per second (after a warm-up);
 * 2. HTTP only: 16 sessions at once, each making its calls in turn: calls per second over all;
 * 3. HTTP only: the server's resident memory (`VmRSS`) listening with no session, then with 16 sessions open (each
 *    having run a call).
 *
 * The server runs `--no-sandbox` unless `--sandbox`: the point is the transport, not bubblewrap's start. On Node the
 * CLI is the built package's (`npm/esm/src/cli/main.js`: run `deno run -A scripts/build_npm.ts` first).
 * Prints a markdown table to stdout.
 *
 * @module
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value] = arg.replace(/^--/, "").split("=");
    return [name, value ?? "true"] as const;
  }),
);
const runtime = args.get("runtime") ?? "deno";
const calls = Number(args.get("calls") ?? 300);
const sessions = 16;
const sandbox = args.has("sandbox") ? [] : ["--no-sandbox"];

const root = fileURLToPath(new URL("../../", import.meta.url));
const cli: string[] = runtime === "node"
  ? ["node", join(root, "npm/esm/src/cli/main.js")]
  : [process.execPath, "run", "-A", join(root, "src/cli/main.ts")];

const dir = mkdtempSync(join(tmpdir(), "dsh-bench-mcp-http-"));
const token = randomBytes(32).toString("hex");
const tokenFile = join(dir, "token");
writeFileSync(tokenFile, token, { mode: 0o600 });

/** The server's resident memory in MiB, from /proc. */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024;
}

/** `count` sequential `echo hi` calls on `client`; calls per second. */
async function sequential(client: Client, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const result = await client.callTool({ name: "bash", arguments: { command: "echo hi" } });
    if (result.isError) throw new Error(`a call failed: ${JSON.stringify(result.content)}`);
  }
  return count / ((performance.now() - started) / 1000);
}

async function overStdio(): Promise<number> {
  const transport = new StdioClientTransport({
    command: cli[0],
    args: [...cli.slice(1), "mcp", ...sandbox, "--workdir", dir],
    stderr: "inherit",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  await sequential(client, 20);
  const rate = await sequential(client, calls);
  await client.close();
  return rate;
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

async function overHttp(): Promise<{ one: number; many: number; idle: number; open: number }> {
  const child: ChildProcess = spawn(cli[0], [
    ...cli.slice(1),
    "mcp",
    ...sandbox,
    "--workdir",
    dir,
    "--http",
    "127.0.0.1:0",
    "--token-file",
    tokenFile,
  ], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => child.once("close", resolve));
  let stderr = "";
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(new URL(match[1]));
    });
    child.once("close", () => reject(new Error(`the server ended: ${stderr}`)));
  });
  const idle = rssMiB(child.pid!);
  const first = await httpClient(url);
  await sequential(first, 20);
  const one = await sequential(first, calls);
  const clients = [first, ...await Promise.all(Array.from({ length: sessions - 1 }, () => httpClient(url)))];
  const started = performance.now();
  const each = Math.max(1, Math.floor(calls / sessions) * 2);
  await Promise.all(clients.map((client) => sequential(client, each)));
  const many = (each * sessions) / ((performance.now() - started) / 1000);
  const open = rssMiB(child.pid!);
  await Promise.all(clients.map((client) => client.close()));
  child.kill("SIGTERM");
  await exited;
  return { one, many, idle, open };
}

try {
  const stdio = await overStdio();
  const http = await overHttp();
  const version = runtime === "node"
    ? `Node ${spawnSync("node", ["-v"], { encoding: "utf8" }).stdout.trim()}`
    : `Deno ${process.versions.deno}`;
  const fixed = (n: number) => n.toFixed(0);
  console.log(`MCP over HTTP against stdio, ${version}, ${sandbox.length === 0 ? "sandboxed" : "--no-sandbox"}:\n`);
  console.log("| what | calls/s | server RSS |");
  console.log("| --- | --: | --: |");
  console.log(`| stdio: ${calls} sequential \`echo hi\` | ${fixed(stdio)} | |`);
  console.log(`| HTTP: ${calls} sequential \`echo hi\` | ${fixed(http.one)} | |`);
  console.log(`| HTTP: ${sessions} sessions at once | ${fixed(http.many)} | ${http.open.toFixed(0)} MiB |`);
  console.log(`| HTTP: listening, no session | | ${http.idle.toFixed(0)} MiB |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
