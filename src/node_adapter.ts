/**
 * The `node:child_process` adapter: each command leads a new process group
 * (`detached: true`), and groups are signalled with `process.kill(-pgid)`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ adapter: nodeAdapter });
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * assert.equal(result.exitCode, 0);
 * assert.equal(result.stdout.text, "hi\n");
 * ```
 *
 * @module
 */

import { type ChildProcess, spawn, spawnSync, type SpawnSyncOptionsWithStringEncoding } from "node:child_process";
import process from "node:process";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import type {
  ChannelHandle,
  ChannelRequest,
  ChildExit,
  ChildHandle,
  ChildInput,
  GroupSignal,
  ProbeOutcome,
  ProbeRequest,
  ProcessAdapter,
  SpawnRequest,
  WatchdogHandle,
} from "./seam/adapter.ts";
import { ShellSpawnError } from "./seam/errors.ts";
import { spawnOnTerminal } from "./pseudo_terminal.ts";
import { readMaster } from "./pty_master_read.ts";

function spawnChild(request: SpawnRequest): ChildHandle {
  // Node's terminal stream ends at the hang-up after a short read: the master is read on to the kernel's end.
  if (request.terminal !== undefined) return spawnOnTerminal(request, request.terminal, readMaster);
  // Node throws at once for every exec error but EACCES, EAGAIN, EMFILE,
  // ENFILE and ENOENT (E2BIG above all: command and environment too large);
  // the seam words whatever is thrown.
  const child: ChildProcess = spawn(request.program, request.args, {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: [request.stdin === undefined && !request.keepStdin ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    // Node reports the errno only later, in an "error" event: the seam
    // examines the program itself (missing, not executable, refused) and
    // words the ShellSpawnError (`spawn/failure.ts`). What is thrown stands
    // for the runtime's own error, as the contract asks of `spawn`: a
    // ShellSpawnError here would be taken as worded already.
    child.once("error", () => {});
    throw new Error("the process was not created");
  }
  const stdout = child.stdout as Readable;
  const stderr = child.stderr as Readable;
  forward(stdout, request.onStdout);
  forward(stderr, request.onStderr);
  let input: ChildInput | undefined;
  if (child.stdin !== null) {
    // A child that exits without reading gets EPIPE here; its exit status decides the result.
    child.stdin.on("error", () => {});
    if (request.keepStdin) {
      input = openInput(child.stdin);
      if (request.stdin !== undefined) void input.write(request.stdin);
    } else child.stdin.end(request.stdin);
  }
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const drained = Promise.all([closed(stdout), closed(stderr)]).then(() => {});
  return {
    pid: child.pid,
    exited,
    drained,
    releaseOutput: () => {
      stdout.destroy();
      stderr.destroy();
    },
    input,
  };
}

/** A stdin pipe kept open: writes in order, each settled once Node has handed it to the OS (or the pipe broke). */
function openInput(stdin: Writable): ChildInput {
  return {
    write: (bytes) =>
      new Promise((resolve) => {
        if (!stdin.writable) return resolve();
        // A copy: the caller may reuse its buffer while the stream still queues it.
        stdin.write(bytes.slice(), () => resolve());
      }),
    end: () => {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

/**
 * Hands each chunk of `stream` to `handler`. A handler that throws must not
 * crash the host (Node would rethrow from the "data" event): the stream is
 * destroyed instead, which closes the pipe, so the child gets EPIPE rather
 * than blocking on a full pipe, and "close" still settles `drained`.
 */
function forward(stream: Readable, handler: (chunk: Uint8Array) => void): void {
  const onData = (chunk: Uint8Array): void => {
    try {
      handler(chunk);
    } catch {
      stream.off("data", onData);
      stream.destroy();
    }
  };
  stream.on("data", onData);
}

function closed(stream: Readable): Promise<void> {
  return new Promise((resolve) => stream.once("close", () => resolve()));
}

function signalGroup(pgid: number, signal: GroupSignal): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return false;
    // EPERM: the group exists but is not ours to signal; it is still alive.
    return true;
  }
}

function spawnWatchdog(script: string, env: Record<string, string>): WatchdogHandle {
  const child = spawn("/bin/sh", ["-c", script], { env, detached: true, stdio: ["pipe", "ignore", "ignore"] });
  if (child.pid === undefined) {
    child.once("error", () => {});
    throw new ShellSpawnError("cannot start the watchdog: /bin/sh is missing", "/bin/sh");
  }
  // Listened for at once: "exit" is emitted once, after the child is reaped.
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  // The watchdog must never keep the host alive: neither the process nor its pipe.
  child.unref();
  const stdin = child.stdin as Socket;
  stdin.unref();
  stdin.on("error", () => {});
  return {
    pid: child.pid,
    exited,
    close: () => void stdin.destroy(),
  };
}

/**
 * A process we keep talking to (a remote engine's supervising connection):
 * its stdin stays open, its output is read, and none of it holds the host's
 * event loop open, so a harness that forgets `close()` still ends.
 */
function spawnChannel(request: ChannelRequest): ChannelHandle {
  const child: ChildProcess = spawn(request.program, request.args, {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    child.once("error", () => {});
    throw new ShellSpawnError(`cannot start ${request.program}`, request.program);
  }
  const stdin = child.stdin as Socket;
  const stdout = child.stdout as Readable & Socket;
  const stderr = child.stderr as Readable & Socket;
  forward(stdout, request.onStdout);
  forward(stderr, request.onStderr);
  stdin.on("error", () => {});
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const drained = Promise.all([closed(stdout), closed(stderr)]).then(() => {});
  child.unref();
  for (const pipe of [stdin, stdout, stderr]) pipe.unref();
  return {
    pid: child.pid,
    exited,
    drained,
    write: (bytes) => {
      if (stdin.writable) stdin.write(bytes);
    },
    end: () => {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

/** Runs `request` to its end, synchronously, in a session of its own. */
function probe(request: ProbeRequest): ProbeOutcome {
  const options: SpawnSyncOptionsWithStringEncoding & { detached: boolean } = {
    cwd: request.cwd,
    env: request.env,
    // Not in Node's types for spawnSync, but honoured (it goes through the same normalisation as spawn).
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  };
  const out = spawnSync(request.program, [...request.args], options);
  if (out.error !== undefined && out.status === null && out.signal === null) {
    return { code: null, signal: null, stderr: `${request.program}: ${out.error.message}` };
  }
  return { code: out.status, signal: out.signal, stderr: out.stderr ?? "" };
}

/**
 * The adapter for Node.js (also usable under Deno's Node compatibility).
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import { nodeAdapter } from "@dsh/shell/node";
 * import assert from "node:assert/strict";
 * await using shell = createShell(nodeAdapter, { timeoutMs: 5_000 });
 * const result = await shell.run(shell.resolve({ command: "exit 7", owner: null }));
 * assert.equal(nodeAdapter.name, "node");
 * assert.equal(result.exitCode, 7);
 * ```
 */
export const nodeAdapter: ProcessAdapter = {
  name: "node",
  spawn: spawnChild,
  signalGroup,
  // "exit" runs on a normal end, on process.exit() and after an uncaught exception.
  onHostExit: (listener) => process.on("exit", listener),
  spawnWatchdog,
  probe,
  spawnChannel,
};
