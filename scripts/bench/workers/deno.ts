/**
 * The Deno worker: runs one scenario with `run()` of the library (from
 * source, as a JSR user gets it) and a minimal raw `Deno.Command`, and
 * prints the samples as one JSON line.
 *
 * Usage (done by `main.ts`): `deno run -A [--v8-flags=--expose-gc] deno.ts '<config json>'`.
 * `config.against`, when given, is another tree of the library (`--against=<git ref>`), measured as one more
 * variant beside `run()`.
 *
 * @module
 */

import { createRequire } from "node:module";
import type * as NodePty from "@lydell/node-pty";
import { Client } from "@modelcontextprotocol/sdk/client";
// Deno does not find the types of the SDK's wildcard exports; the same file, named for it.
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import * as library from "../../../mod.ts";
import * as adapters from "../../../src/deno_adapter.ts";
import * as mcp from "../../../src/mcp/mod.ts";
import { dockerEngine, sshEngine } from "../../../src/engines/mod.ts";
import * as tool from "../../../src/tool/mod.ts";
import type { ProcessAdapter, SpawnRequest } from "../../../src/seam/mod.ts";
import type { Shell, ShellExecRequest, ShellRunResult } from "../../../mod.ts";
import { ByteCounter, runWorker, type Terminal, type Variant } from "./common.mjs";

const config = JSON.parse(Deno.args[0]);

// Every contestant starts bash as `run()` does: marked as a nested shell (`SHLVL` from 1 to 998, no `BASH_ENV` or
// `ENV`; `src/seam/env/shell_level.ts`), as the Node worker does for its peers. The raw `Deno.Command` gets a pipe, not
// a socket, as stdin, but `SSH_CLIENT` in the environment would make bash source `~/.bashrc` too. Set once, here.
const level = Deno.env.get("SHLVL") ?? "";
if (!/^[0-9]{1,3}$/.test(level) || Number(level) < 1 || Number(level) > 998) Deno.env.set("SHLVL", "1");
Deno.env.delete("BASH_ENV");
Deno.env.delete("ENV");

/** Every shell the variants made, closed at the end. */
const shells: Shell[] = [];

/** `run()` exactly as a harness calls it: resolve the request, then run it. */
function run(on: Shell, request: Omit<ShellExecRequest, "owner">): Promise<ShellRunResult> {
  return on.run(on.resolve({ owner: null, ...request }));
}

function checkRunResult(result: ShellRunResult, who: string): void {
  if (result.exitCode !== 0) throw new Error(`${who}: exit ${result.exitCode} ${result.stderr.text}`);
}

/** Size of the one buffer the raw BYOB loop reads into (the adapter's size). */
const READ_BUFFER_BYTES = 64 * 1024;

/** Reads `stream` to its end into one reused buffer, handing each chunk to `onChunk`. */
async function drainByob(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
  while (true) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done || value === undefined) return;
    onChunk(value);
    buffer = value.buffer as ArrayBuffer;
  }
}

/** Reads `stream` to its end and returns it as text. */
async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

/** The raw baseline: `bash -c` in its own group, output piped and drained. */
function spawnRaw(command: string, stdin: "null" | "piped" = "null"): Deno.ChildProcess {
  return new Deno.Command("bash", {
    args: ["-c", command],
    detached: true,
    stdin,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

function checkFileAndRemove(file: string, bytes: number, who: string): void {
  const size = Deno.statSync(file).size;
  Deno.removeSync(file);
  if (size !== bytes) throw new Error(`${who}: wrote ${size} bytes, expected ${bytes}`);
}

/** What this worker needs of one build of the library (an older build may lack the MCP server and the tools). */
interface Library {
  createLocalShell: typeof library.createLocalShell;
  denoAdapter: ProcessAdapter;
  createMcpServer?: typeof mcp.createMcpServer;
  executeBashTool?: typeof tool.executeBashTool;
}

/** The letter typed into a terminal's `cat`: its echo and `cat`'s line bring it back twice. */
const X = "x".charCodeAt(0);

/** Each terminal has an owner of its own: a shell runs at most `maxTasksPerOwner` (10) tasks per owner. */
let terminalCount = 0;

/** A `cat` on a terminal of the library: `start()` with `tty`, typed into with `write()`, read by the observer. */
function libraryTerminal(shell: Shell, command: string): Terminal {
  const counter = new ByteCounter();
  const task = shell.start(shell.resolve({ command, owner: `bench-tty-${terminalCount++}`, tty: true }), {
    onStdout: (chunk) => counter.feed(chunk),
  });
  return {
    roundTrip: async () => {
      const back = counter.expect(X, 2);
      await task.write("x\n");
      await back;
    },
    close: async () => {
      task.kill();
      await task.done;
    },
  };
}

/**
 * The tool-call variants of one build: the MCP server's `tools/call` of `bash` (a client of the official SDK
 * over its in-memory transport, so what is measured is the protocol and the server, not a pipe), and the
 * library's own `bash` tool call, in a session of its own as the server's calls are.
 */
async function toolVariants(lib: Library, shell: Shell, name: string): Promise<Variant[]> {
  if (lib.createMcpServer === undefined || lib.executeBashTool === undefined) return [];
  const executeBashTool = lib.executeBashTool;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await lib.createMcpServer(shell, { owner: "bench-mcp" }).connect(serverSide);
  const client = new Client({ name: "dsh-bench", version: "1.0.0" });
  await client.connect(clientSide);
  closers.push(() => client.close());
  const session = shell.session({ owner: "bench-tool" });
  closers.push(() => session.close());
  return [
    {
      name: `${name} MCP tools/call bash`,
      execTool: async (command) => {
        const result = await client.callTool({ name: "bash", arguments: { command } });
        // The server's default result: the text and isError (a command that failed is an error for the model).
        if (result.isError !== false) throw new Error(`MCP tools/call: ${JSON.stringify(result)}`);
      },
    },
    {
      name: `${name} bash tool`,
      execTool: async (command) => {
        const outcome = await executeBashTool(shell, { command }, { owner: "bench-tool", session });
        if (outcome.result?.exitCode !== 0) throw new Error(`bash tool: ${outcome.text}`);
      },
    },
  ];
}

/** What to end before the shells close (MCP clients, sessions). */
const closers: (() => Promise<void>)[] = [];

/** Runs `program` with `args` to its end, its stdout read; throws unless it exits 0. */
async function rawClient(program: string, args: string[], env: Record<string, string>): Promise<void> {
  const { code, stderr } = await new Deno.Command(program, { args, env, clearEnv: true, stdin: "null" }).output();
  if (code !== 0) throw new Error(`${program} ${args.join(" ")}: exit ${code}: ${new TextDecoder().decode(stderr)}`);
}

/**
 * The engines scenario's variants: `run()` on a shell over each engine (the orchestrator started them, see
 * `lib/engines.ts`), and each engine's raw client doing the same job; with `--against`, `run()` of that tree too.
 */
async function engineVariants(): Promise<Variant[]> {
  const { docker, ssh } = config.engineTargets;
  const ours = engineRuns(library.createShell, { dockerEngine, sshEngine }, "");
  const theirs = config.against
    ? engineRuns(
      (await import(config.against.module)).createShell,
      await import(config.against.module.replace(/mod\.ts$/, "src/engines/mod.ts")),
      ` @ ${config.against.label}`,
    )
    : [];
  return [
    ...ours,
    ...theirs,
    {
      name: "docker exec <c> true",
      execEngine: (command) => rawClient("docker", ["exec", docker.container, command], docker.env),
    },
    {
      name: "ssh -S <ctl> host true",
      execEngine: (command) => rawClient("ssh", [...ssh.rawOptions, ssh.host, command], ssh.env),
    },
  ];
}

/** `run()` over both engines with one build's `createShell` and engines; `suffix` names the build. */
function engineRuns(
  createShell: typeof library.createShell,
  engines: { dockerEngine: typeof dockerEngine; sshEngine: typeof sshEngine },
  suffix: string,
): Variant[] {
  const { docker, ssh } = config.engineTargets;
  const onDocker = createShell(engines.dockerEngine({ container: docker.container, dockerHost: docker.dockerHost }), {
    workdir: "/",
    shell: "sh",
  });
  const { rawOptions: _, env: __, ...connection } = ssh;
  const onSsh = createShell(engines.sshEngine(connection), { workdir: "/", shell: "sh" });
  shells.push(onDocker, onSsh);
  return [
    {
      name: `docker run("true")${suffix}`,
      execEngine: async (command) => checkRunResult(await run(onDocker, { command }), `docker run()${suffix}`),
    },
    {
      name: `ssh run("true")${suffix}`,
      execEngine: async (command) => checkRunResult(await run(onSsh, { command }), `ssh run()${suffix}`),
    },
  ];
}

/** A sandboxed shell, and the first request it handed its adapter: what the raw baseline spawns. */
interface Sandboxed {
  shell: Shell;
  request(): SpawnRequest | undefined;
}

/**
 * A sandboxed shell (the default policy, `createLocalShell({ sandbox: {} })`) whose adapter notes the first
 * request it spawns: the raw baseline of the sandboxed scenario runs exactly that argv. The note is one
 * assignment per spawn, on top of the runtime's own adapter.
 */
async function sandboxedShell(lib: Library): Promise<Sandboxed> {
  let captured: SpawnRequest | undefined;
  const adapter: ProcessAdapter = {
    ...lib.denoAdapter,
    spawn: (request) => {
      captured ??= request;
      return lib.denoAdapter.spawn(request);
    },
  };
  const shell = lib.createLocalShell({
    spillDir: config.spillDir,
    workdir: config.sandboxWorkdir,
    sandbox: {},
    adapter,
  });
  shells.push(shell);
  checkRunResult(await run(shell, { command: "true" }), "run() sandboxed");
  return { shell, request: () => captured };
}

/** The `run()` variants of one build of the library: `name` is `run()` for the build under test. */
async function libraryVariants(lib: Library, name: string): Promise<{ variants: Variant[]; sandboxed?: Sandboxed }> {
  /** The shell under test: default options (budget 64 000 bytes per stream, spill on, 64 MiB spill cap). */
  const shell = lib.createLocalShell({ spillDir: config.spillDir });
  /** The same, with a spill cap above the big output, so the whole stream is written to disk like the raw loop does. */
  const spillAllShell = lib.createLocalShell({ spillDir: config.spillDir, maxSpillBytes: 2 ** 31 });
  shells.push(shell, spillAllShell);
  const session = typeof shell.session === "function" ? shell.session({ owner: null }) : undefined;
  const sandboxed = config.scenario === "sandboxed" ? await sandboxedShell(lib) : undefined;
  const variants: Variant[] = [
    {
      name,
      exec: async (command) => checkRunResult(await run(shell, { command }), name),
      execStdin: async (command, stdin) => (await run(shell, { command, stdin })).stdout.text,
      execAbortable: (command, signal) => run(shell, { command, signal }),
      bigOutput: async (command, _file, bytes) => {
        const result = await run(shell, { command });
        checkRunResult(result, name);
        if (result.stdout.totalBytes !== bytes) throw new Error(`${name}: ${result.stdout.totalBytes} bytes`);
        if (result.stdout.spillPath) Deno.removeSync(result.stdout.spillPath);
      },
      execSandboxed: async (command) => checkRunResult(await run(sandboxed!.shell, { command }), name),
      openTerminal: (command) => Promise.resolve(libraryTerminal(shell, command)),
    },
    ...(config.scenario === "mcp" ? await toolVariants(lib, shell, name) : []),
    // A warm session: the same command, from the directory and variables the session keeps (docs/sessions.md).
    ...(typeof shell.session === "function"
      ? [{
        name: `${name} session`,
        sequential: true,
        exec: async (command: string) => checkRunResult(await session!.exec(command), `${name} session`),
      }]
      : []),
    {
      name: `${name} spill all`,
      bigOutput: async (command, _file, bytes) => {
        const result = await run(spillAllShell, { command });
        checkRunResult(result, `${name} spill all`);
        if (!result.stdout.spillPath) throw new Error(`${name} spill all: no spill file`);
        checkFileAndRemove(result.stdout.spillPath, bytes, `${name} spill all`);
      },
    },
  ];
  return { variants, sandboxed };
}

/** `bash -c <command>` on a terminal of `@lydell/node-pty` itself, the package the library uses. */
function rawTerminal(command: string): Terminal {
  const pty = createRequire(import.meta.url)("@lydell/node-pty") as typeof NodePty;
  const counter = new ByteCounter();
  const terminal = pty.spawn("bash", ["-c", command], {
    name: "xterm-256color",
    cols: 80,
    rows: 24,
    cwd: Deno.cwd(),
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", TERM: "xterm-256color" },
    encoding: null,
  });
  const exited = new Promise<void>((resolve) => terminal.onExit(() => resolve()));
  terminal.onData((data: string | Uint8Array) => counter.feed(data));
  return {
    roundTrip: async () => {
      const back = counter.expect(X, 2);
      terminal.write("x\n");
      await back;
    },
    close: async () => {
      terminal.kill("SIGKILL");
      await exited;
    },
  };
}

/** A spawn of exactly what the library handed its adapter, as the least a careful caller writes. */
async function rawSpawnRequest(
  request: Pick<SpawnRequest, "program" | "args" | "cwd" | "env">,
): Promise<Deno.CommandStatus> {
  const child = new Deno.Command(request.program, {
    args: [...request.args],
    cwd: request.cwd,
    env: request.env,
    clearEnv: true,
    detached: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const [status] = await Promise.all([child.status, text(child.stdout), text(child.stderr)]);
  return status;
}

const ours = await libraryVariants({ ...library, ...adapters, ...mcp, ...tool }, "run()");
const against = config.against
  ? await libraryVariants(
    {
      ...await import(config.against.module),
      ...await import(config.against.adapter),
      ...await import(config.against.mcp).catch(() => ({})),
      ...await import(config.against.tool).catch(() => ({})),
    },
    `run() @ ${config.against.label}`,
  )
  : undefined;

const variants: Variant[] = [
  ...ours.variants,
  ...(config.scenario === "engines" ? await engineVariants() : []),
  ...(against?.variants ?? []),
  {
    name: "raw Deno.Command",
    exec: async (command) => {
      const child = spawnRaw(command);
      const [status] = await Promise.all([child.status, text(child.stdout), text(child.stderr)]);
      if (!status.success) throw new Error(`raw Deno.Command: exit ${status.code}`);
    },
    execStdin: async (command, stdin) => {
      const child = spawnRaw(command, "piped");
      const writer = child.stdin.getWriter();
      const written = writer.write(stdin).then(() => writer.close()).catch(() => {});
      const [out] = await Promise.all([text(child.stdout), text(child.stderr), child.status, written]);
      return out;
    },
    execTool: async (command) => {
      const child = spawnRaw(command);
      const [status] = await Promise.all([child.status, text(child.stdout), text(child.stderr)]);
      if (!status.success) throw new Error(`raw Deno.Command: exit ${status.code}`);
    },
    execAbortable: async (command, signal) => {
      const child = spawnRaw(command);
      signal.addEventListener("abort", () => Deno.kill(-child.pid, "SIGTERM"), { once: true });
      await Promise.all([child.status, text(child.stdout), text(child.stderr)]);
    },
    bigOutput: async (command, file, bytes) => {
      // The raw drain-to-file loop: one reused BYOB buffer, each chunk written synchronously, as the spill does.
      const child = spawnRaw(command);
      const out = Deno.openSync(file, { write: true, create: true, truncate: true, mode: 0o600 });
      try {
        await Promise.all([
          drainByob(child.stdout, (chunk) => {
            for (let at = 0; at < chunk.length;) at += out.writeSync(chunk.subarray(at));
          }),
          text(child.stderr),
          child.status,
        ]);
      } finally {
        out.close();
      }
      checkFileAndRemove(file, bytes, "raw Deno.Command");
    },
  },
  {
    name: "raw node-pty",
    // The terminal a careful caller opens with the same package: `bash -c cat` as the leader of a new session.
    openTerminal: (command) => Promise.resolve(rawTerminal(command)),
  },
  {
    name: "raw for-await",
    bigOutput: async (command, file, bytes) => {
      // What a user writes first: the default reader (a new chunk per read) and a synchronous write.
      const child = spawnRaw(command);
      const out = Deno.openSync(file, { write: true, create: true, truncate: true, mode: 0o600 });
      try {
        const drain = async () => {
          for await (const chunk of child.stdout) {
            for (let at = 0; at < chunk.length;) at += out.writeSync(chunk.subarray(at));
          }
        };
        await Promise.all([drain(), text(child.stderr), child.status]);
      } finally {
        out.close();
      }
      checkFileAndRemove(file, bytes, "raw for-await");
    },
  },
  {
    name: "minimal bwrap",
    // The reference: bubblewrap with the least a sandbox needs (`--ro-bind / / --dev /dev --proc /proc`).
    execSandboxed: async (command) => {
      const request = {
        program: "bwrap",
        args: ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "bash", "-c", command],
        env: Deno.env.toObject(),
        cwd: config.sandboxWorkdir,
      };
      const status = await rawSpawnRequest(request);
      if (!status.success) throw new Error(`minimal bwrap: exit ${status.code}`);
    },
  },
  {
    name: "raw bwrap",
    // The argv `run()` built for the same command in the same sandboxed shell: sh, bwrap, its flags, bash -c.
    execSandboxed: async (command) => {
      const request = ours.sandboxed?.request();
      if (request?.args.at(-1) !== command) throw new Error(`raw bwrap: no captured argv for ${command}`);
      const status = await rawSpawnRequest(request);
      if (!status.success) throw new Error(`raw bwrap: exit ${status.code}`);
    },
  },
];

try {
  await runWorker(config, variants, { runtime: "deno", version: Deno.version.deno });
} finally {
  for (const close of closers) await close();
  for (const shell of shells) await shell.close();
}
