// @ts-check
/**
 * The Node worker: runs one scenario with `run()` of the built npm package,
 * a minimal raw `child_process.spawn`, execa, tinyexec and nano-spawn, and
 * prints the samples as one JSON line.
 *
 * Usage (done by `main.ts`): `node [--expose-gc] node.mjs '<config json>'`.
 * `config.packages` is the bench-only folder where `@dsh/shell` (packed from
 * `npm/`) and the peers are installed; nothing here is a dependency of the
 * library. `config.against`, when given, is another build of the library
 * (`--against=<git ref>`), measured as one more variant beside `run()`.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { closeSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { ByteCounter, runWorker } from "./common.mjs";

const config = JSON.parse(process.argv[2]);

// Every contestant starts bash as `run()` does: marked as a nested shell (`SHLVL` from 1 to 998, no `BASH_ENV` or
// `ENV`; `src/seam/env/shell_level.ts`). Otherwise bash sources `~/.bashrc` for a peer whose stdin is a socket (their
// default `stdin: "pipe"`) when `SHLVL` is absent or 0, and the bench measures the user's startup file. Set once, here,
// before anything spawns: no contestant pays for it per call.
const level = process.env.SHLVL ?? "";
if (!/^[0-9]{1,3}$/.test(level) || Number(level) < 1 || Number(level) > 998) process.env.SHLVL = "1";
delete process.env.BASH_ENV;
delete process.env.ENV;
const fromPackages = createRequire(join(config.packages, "package.json"));
/** @param {string} name @param {NodeRequire} [from] */
const load = (name, from = fromPackages) => import(pathToFileURL(from.resolve(name)).href);

const { execa } = await load("execa");
const { x: tinyexec } = await load("tinyexec");
const { default: nanoSpawn } = await load("nano-spawn");

/** Every shell the variants made, closed at the end. */
/** @type {any[]} */
const shells = [];
/** What to end before the shells close (MCP clients, sessions). */
/** @type {(() => Promise<void>)[]} */
const closers = [];

/** The letter typed into a terminal's `cat`: its echo and `cat`'s line bring it back twice. */
const X = "x".charCodeAt(0);

/** Each terminal has an owner of its own: a shell runs at most `maxTasksPerOwner` (10) tasks per owner. */
let terminalCount = 0;

/**
 * A `cat` on a terminal of the library: `start()` with `tty`, typed into with `write()`, read by the observer.
 *
 * @param {any} shell
 * @param {string} command
 * @returns {import("./common.mjs").Terminal}
 */
function libraryTerminal(shell, command) {
  const counter = new ByteCounter();
  const task = shell.start(shell.resolve({ command, owner: `bench-tty-${terminalCount++}`, tty: true }), {
    onStdout: (/** @type {Uint8Array} */ chunk) => counter.feed(chunk),
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
 * `bash -c <command>` on a terminal of `@lydell/node-pty` itself, the package the library uses (the one the
 * installed `@dsh/shell` resolves).
 *
 * @param {string} command
 * @returns {import("./common.mjs").Terminal}
 */
function rawTerminal(command) {
  const pty = createRequire(fromPackages.resolve("@dsh/shell"))("@lydell/node-pty");
  const counter = new ByteCounter();
  const terminal = pty.spawn("bash", ["-c", command], {
    name: "xterm-256color",
    cols: 80,
    rows: 24,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" },
    encoding: null,
  });
  const exited = new Promise((resolve) => terminal.onExit(resolve));
  terminal.onData((/** @type {Uint8Array} */ data) => counter.feed(data));
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

/**
 * Runs `program` with `args` to its end, its output read; rejects unless it exits 0.
 *
 * @param {string} program
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<void>}
 */
function rawClient(program, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout?.on("data", () => {});
    child.stderr?.on("data", (chunk) => stderr += chunk);
    child.on("error", reject);
    child.on("close", (code) => code === 0 ? resolve() : reject(new Error(`${program}: exit ${code}: ${stderr}`)));
  });
}

/**
 * The engines scenario's variants: `run()` on a shell over each engine, and each engine's raw client doing the same
 * job; with `--against`, `run()` of that build too.
 *
 * @returns {Promise<import("./common.mjs").Variant[]>}
 */
async function engineVariants() {
  const { docker, ssh } = config.engineTargets;
  const theirs = config.against
    ? await engineRuns(createRequire(join(config.against.packages, "package.json")), ` @ ${config.against.label}`)
    : [];
  return [
    ...await engineRuns(fromPackages, ""),
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

/**
 * `run()` over both engines with one build.
 *
 * @param {NodeRequire} from Resolves that build's `@dsh/shell`.
 * @param {string} suffix Names the build in the variants' names ("" for this tree's).
 * @returns {Promise<import("./common.mjs").Variant[]>}
 */
async function engineRuns(from, suffix) {
  const { docker, ssh } = config.engineTargets;
  const { createShell } = await load("@dsh/shell", from);
  const { dockerEngine, sshEngine } = await load("@dsh/shell/engines", from);
  const onDocker = createShell(dockerEngine({ container: docker.container, dockerHost: docker.dockerHost }), {
    workdir: "/",
    shell: "sh",
  });
  const { rawOptions: _, env: __, ...connection } = ssh;
  const onSsh = createShell(sshEngine(connection), { workdir: "/", shell: "sh" });
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

/**
 * The tool-call variants of one build: the MCP server's `tools/call` of `bash` (a client of the official SDK
 * over its in-memory transport, so what is measured is the protocol and the server, not a pipe), and the
 * library's own `bash` tool call, in a session of its own as the server's calls are.
 *
 * @param {NodeRequire} from Where this build is installed.
 * @param {any} shell
 * @param {string} name
 * @returns {Promise<import("./common.mjs").Variant[]>}
 */
async function toolVariants(from, shell, name) {
  const { createMcpServer } = await load("@dsh/shell/mcp", from).catch(() => ({}));
  const { executeBashTool } = await load("@dsh/shell/tool", from).catch(() => ({}));
  if (createMcpServer === undefined || executeBashTool === undefined) return [];
  // The SDK the installed package depends on (its client is not a dependency of the package: the SDK is).
  const fromShell = createRequire(from.resolve("@dsh/shell"));
  const { Client } = await load("@modelcontextprotocol/sdk/client/index.js", fromShell);
  const { InMemoryTransport } = await load("@modelcontextprotocol/sdk/inMemory.js", fromShell);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(shell, { owner: "bench-mcp" }).connect(serverSide);
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

/** @param {any} result @param {string} who */
function checkRunResult(result, who) {
  if (result.exitCode !== 0) throw new Error(`${who}: exit ${result.exitCode} ${result.stderr.text}`);
}

/**
 * `run()` exactly as a harness calls it: resolve the request, then run it.
 *
 * @param {any} on A `Shell` of the built package.
 * @param {Record<string, unknown>} request
 */
const run = (on, request) => on.run(on.resolve({ owner: null, ...request }));

/**
 * The raw baseline: `bash -c` in its own group, output piped and drained.
 *
 * @param {string} command
 * @param {{ stdin?: Uint8Array, onStdout?: (chunk: Buffer) => void, signal?: AbortSignal }} [options]
 * @returns {Promise<{ code: number | null, stdout: string }>}
 */
function rawSpawn(command, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], {
      detached: true,
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout?.on("data", options.onStdout ?? ((chunk) => stdout += chunk));
    child.stderr?.on("data", () => {});
    if (options.stdin && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    options.signal?.addEventListener("abort", () => process.kill(-(child.pid ?? 0), "SIGTERM"), { once: true });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

/** @param {string} file @param {number} bytes @param {string} who */
function checkFileAndRemove(file, bytes, who) {
  const size = statSync(file).size;
  unlinkSync(file);
  if (size !== bytes) throw new Error(`${who}: wrote ${size} bytes, expected ${bytes}`);
}

/**
 * A spawn of exactly what the library handed its adapter (program, argv, environment, workdir), as the least
 * a careful caller writes: its own session, stdin `/dev/null`, stdout and stderr piped and drained.
 *
 * @param {{ program: string, args: readonly string[], env: Record<string, string>, cwd: string }} request
 * @returns {Promise<{ code: number | null }>}
 */
function rawSpawnRequest(request) {
  return new Promise((resolve, reject) => {
    const child = spawn(request.program, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", () => {});
    child.stderr?.on("data", () => {});
    child.on("error", reject);
    child.on("close", (code) => resolve({ code }));
  });
}

/**
 * A sandboxed shell (the default policy, `createLocalShell({ sandbox: {} })`) whose adapter notes the first
 * request it spawns: the raw baseline of the sandboxed scenario runs exactly that argv. The note is one
 * assignment per spawn, on top of the runtime's own adapter.
 *
 * @param {NodeRequire} from Where this build of the library is installed.
 * @param {(options: object) => any} createLocalShell
 */
async function sandboxedShell(from, createLocalShell) {
  const { nodeAdapter } = await load("@dsh/shell/node", from);
  /** @type {any} */
  let captured;
  const adapter = {
    ...nodeAdapter,
    spawn: (/** @type {any} */ request) => {
      captured ??= request;
      return nodeAdapter.spawn(request);
    },
  };
  const shell = createLocalShell({ spillDir: config.spillDir, workdir: config.sandboxWorkdir, sandbox: {}, adapter });
  shells.push(shell);
  checkRunResult(await run(shell, { command: "true" }), "run() sandboxed");
  return { shell, request: () => captured };
}

/**
 * The `run()` variants of one build of the library: `name` is `run()` for the build under test.
 *
 * @param {NodeRequire} from Where this build is installed.
 * @param {string} name
 */
async function libraryVariants(from, name) {
  const { createLocalShell } = await load("@dsh/shell", from);
  /** The shell under test: default options (budget 64 000 bytes per stream, spill on, 64 MiB spill cap). */
  const shell = createLocalShell({ spillDir: config.spillDir });
  /** The same, with a spill cap above the big output, so the whole stream is written to disk like the raw loop does. */
  const spillAllShell = createLocalShell({ spillDir: config.spillDir, maxSpillBytes: 2 ** 31 });
  shells.push(shell, spillAllShell);
  const session = typeof shell.session === "function" ? shell.session({ owner: null }) : undefined;
  const sandboxed = config.scenario === "sandboxed" ? await sandboxedShell(from, createLocalShell) : undefined;
  /** @type {import("./common.mjs").Variant[]} */
  const variants = [
    {
      name,
      exec: async (command) => checkRunResult(await run(shell, { command }), name),
      execStdin: async (command, stdin) => (await run(shell, { command, stdin })).stdout.text,
      execAbortable: (command, signal) => run(shell, { command, signal }),
      bigOutput: async (command, _file, bytes) => {
        const result = await run(shell, { command });
        checkRunResult(result, name);
        if (result.stdout.totalBytes !== bytes) throw new Error(`${name}: ${result.stdout.totalBytes} bytes`);
        if (result.stdout.spillPath) unlinkSync(result.stdout.spillPath);
      },
      execSandboxed: async (command) => checkRunResult(await run(sandboxed?.shell, { command }), name),
      openTerminal: (command) => Promise.resolve(libraryTerminal(shell, command)),
    },
    ...(config.scenario === "mcp" ? await toolVariants(from, shell, name) : []),
    // A warm session: the same command, from the directory and variables the session keeps (docs/sessions.md).
    ...(typeof shell.session === "function"
      ? [{
        name: `${name} session`,
        sequential: true,
        exec: async (/** @type {string} */ command) => checkRunResult(await session.exec(command), `${name} session`),
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

const ours = await libraryVariants(fromPackages, "run()");
const against = config.against
  ? await libraryVariants(
    createRequire(join(config.against.packages, "package.json")),
    `run() @ ${config.against.label}`,
  )
  : undefined;

/** @type {import("./common.mjs").Variant[]} */
const variants = [
  ...ours.variants,
  ...(config.scenario === "engines" ? await engineVariants() : []),
  ...(against?.variants ?? []),
  {
    name: "raw spawn",
    exec: async (command) => {
      const { code } = await rawSpawn(command);
      if (code !== 0) throw new Error(`raw spawn: exit ${code}`);
    },
    execTool: async (command) => {
      const { code } = await rawSpawn(command);
      if (code !== 0) throw new Error(`raw spawn: exit ${code}`);
    },
    execStdin: async (command, stdin) => (await rawSpawn(command, { stdin })).stdout,
    execAbortable: (command, signal) => rawSpawn(command, { signal }),
    bigOutput: async (command, file, bytes) => {
      // The raw drain-to-file loop: every chunk written synchronously, as the spill does.
      const fd = openSync(file, "w", 0o600);
      try {
        await rawSpawn(command, {
          onStdout: (chunk) => {
            for (let at = 0; at < chunk.length;) at += writeSync(fd, chunk, at);
          },
        });
      } finally {
        closeSync(fd);
      }
      checkFileAndRemove(file, bytes, "raw spawn");
    },
  },
  {
    name: "raw node-pty",
    // The terminal a careful caller opens with the same package: `bash -c cat` as the leader of a new session.
    openTerminal: (command) => Promise.resolve(rawTerminal(command)),
  },
  {
    name: "execa",
    exec: async (command) => void await execa("bash", ["-c", command]),
    execStdin: async (command, stdin) => (await execa("bash", ["-c", command], { input: stdin })).stdout,
    execAbortable: (command, signal) => execa("bash", ["-c", command], { cancelSignal: signal }),
    bigOutput: async (command, file, bytes) => {
      // execa's own way to keep a big stream out of memory: stdout to a file, and no buffering
      // (with `buffer` left on, execa still collects the stream and V8 aborts on 1 GiB).
      await execa("bash", ["-c", command], { stdout: { file }, buffer: false });
      checkFileAndRemove(file, bytes, "execa");
    },
  },
  {
    name: "tinyexec",
    exec: async (command) => {
      const result = await tinyexec("bash", ["-c", command]);
      if (result.exitCode !== 0) throw new Error(`tinyexec: exit ${result.exitCode}`);
    },
    execStdin: async (command, stdin) => {
      const proc = tinyexec("bash", ["-c", command]);
      proc.process?.stdin?.end(stdin);
      return (await proc).stdout;
    },
    execAbortable: (command, signal) => tinyexec("bash", ["-c", command], { signal }),
  },
  {
    name: "nano-spawn",
    exec: async (command) => void await nanoSpawn("bash", ["-c", command]),
    execStdin: async (command, stdin) => {
      const subprocess = nanoSpawn("bash", ["-c", command]);
      (await subprocess.nodeChildProcess).stdin?.end(stdin);
      return (await subprocess).stdout;
    },
    execAbortable: (command, signal) => nanoSpawn("bash", ["-c", command], { signal }),
  },
  {
    name: "minimal bwrap",
    // The reference: bubblewrap with the least a sandbox needs (`--ro-bind / / --dev /dev --proc /proc`).
    execSandboxed: async (command) => {
      const request = {
        program: "bwrap",
        args: ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "bash", "-c", command],
        env: /** @type {Record<string, string>} */ (process.env),
        cwd: config.sandboxWorkdir,
      };
      const { code } = await rawSpawnRequest(request);
      if (code !== 0) throw new Error(`minimal bwrap: exit ${code}`);
    },
  },
  {
    name: "raw bwrap",
    // The argv `run()` built for the same command in the same sandboxed shell: sh, bwrap, its flags, bash -c.
    execSandboxed: async (command) => {
      const request = ours.sandboxed?.request();
      if (request?.args.at(-1) !== command) throw new Error(`raw bwrap: no captured argv for ${command}`);
      const { code } = await rawSpawnRequest(request);
      if (code !== 0) throw new Error(`raw bwrap: exit ${code}`);
    },
  },
];

try {
  await runWorker(config, variants, { runtime: "node", version: process.version });
} finally {
  for (const close of closers) await close();
  for (const shell of shells) await shell.close();
}
