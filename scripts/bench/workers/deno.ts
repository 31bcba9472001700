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

import * as library from "../../../mod.ts";
import * as adapters from "../../../src/deno_adapter.ts";
import type { ProcessAdapter, SpawnRequest } from "../../../src/seam/mod.ts";
import type { Shell, ShellExecRequest, ShellRunResult } from "../../../mod.ts";
import { runWorker, type Variant } from "./common.mjs";

const config = JSON.parse(Deno.args[0]);

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

/** What this worker needs of one build of the library. */
interface Library {
  createLocalShell: typeof library.createLocalShell;
  denoAdapter: ProcessAdapter;
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
    },
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

/** A spawn of exactly what the library handed its adapter, as the least a careful caller writes. */
async function rawSpawnRequest(request: SpawnRequest): Promise<Deno.CommandStatus> {
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

const ours = await libraryVariants({ ...library, ...adapters }, "run()");
const against = config.against
  ? await libraryVariants(
    { ...await import(config.against.module), ...await import(config.against.adapter) },
    `run() @ ${config.against.label}`,
  )
  : undefined;

const variants: Variant[] = [
  ...ours.variants,
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
  for (const shell of shells) await shell.close();
}
