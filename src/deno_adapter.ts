/**
 * The `Deno.Command` adapter: each command leads a new process group
 * (`detached: true`), output is read with BYOB readers that reuse one
 * buffer per stream (4 KiB at first, grown to 64 KiB for a big stream), and
 * groups are signalled with `Deno.kill(-pgid)`.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { denoAdapter } from "@dsh/shell/deno";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ adapter: denoAdapter });
 * const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
 * assert.equal(result.exitCode, 0);
 * assert.equal(result.stdout.text, "hi\n");
 * ```
 *
 * @module
 */

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

/**
 * The read buffer of each stream starts at this size. Most commands print
 * little, and a 64 KiB buffer per stream per command was measurable on the
 * latency of short commands (allocated, zeroed and collected every time).
 */
const FIRST_READ_BUFFER_BYTES = 4 * 1024;
/** The read buffer grows ×4 each time a read fills it, up to this size. */
const MAX_READ_BUFFER_BYTES = 64 * 1024;

function spawnChild(request: SpawnRequest): ChildHandle {
  // Deno.Command cannot give a child a terminal: node-pty, through Deno's Node compatibility, does.
  // No reader of the master after its stream is over (`pty_drain.ts`): Deno's terminal stream reads on to the kernel's
  // EIO rather than end at the hang-up (measured: none of 2 000 loaded prompts lost its last line, where Node lost 13 in
  // 4 000), and Deno's `node:fs` reads no raw fd.
  if (request.terminal !== undefined) return spawnOnTerminal(request, request.terminal);
  // Deno throws NotFound / PermissionDenied / E2BIG at once; its messages do
  // not tell a missing program from a missing #! interpreter: the seam looks
  // at the program itself and words the failure.
  const child = new Deno.Command(request.program, {
    args: [...request.args],
    cwd: request.cwd,
    env: request.env,
    clearEnv: true,
    detached: true,
    stdin: request.stdin === undefined && !request.keepStdin ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = child.stdout.getReader({ mode: "byob" });
  const stderr = child.stderr.getReader({ mode: "byob" });
  const drained = Promise.all([pump(stdout, request.onStdout), pump(stderr, request.onStderr)]).then(() => {});
  let input: ChildInput | undefined;
  if (request.keepStdin) {
    input = openInput(child.stdin);
    if (request.stdin !== undefined) void input.write(request.stdin);
  } else if (request.stdin !== undefined) writeAndClose(child.stdin, request.stdin);
  const exited = child.status.then((status): ChildExit => ({
    // Deno reports a signal death as code 128+n; the seam wants null there.
    code: status.signal === null ? status.code : null,
    signal: status.signal,
  }));
  return {
    pid: child.pid,
    exited,
    drained,
    releaseOutput: () => {
      stdout.cancel().catch(() => {});
      stderr.cancel().catch(() => {});
    },
    input,
  };
}

/** A stdin pipe kept open: writes chained in order, in pipe-sized pieces; a broken pipe ends the chain quietly. */
function openInput(stdin: WritableStream<Uint8Array>): ChildInput {
  const writer = stdin.getWriter();
  let queue: Promise<void> = Promise.resolve();
  let ended = false;
  return {
    write: (bytes) => {
      if (ended) return Promise.resolve();
      // A copy: the caller may reuse its buffer before the chain reaches it.
      const copy = bytes.slice();
      queue = queue.then(async () => {
        for (let offset = 0; offset < copy.length; offset += STDIN_PIECE_BYTES) {
          await writer.write(copy.subarray(offset, offset + STDIN_PIECE_BYTES));
        }
      }).catch(() => {});
      return queue;
    },
    end: () => {
      if (ended) return;
      ended = true;
      queue = queue.then(() => writer.close()).catch(() => {});
    },
  };
}

/**
 * Reads `reader` to its end, handing each chunk over in a reused buffer that
 * starts small and grows ×4 (to {@linkcode MAX_READ_BUFFER_BYTES}) when a
 * read fills it: a big stream reaches full size after two reads. Never
 * rejects. However it ends — end of file, a read error, or a handler that
 * throws — the reader is cancelled, which closes the pipe: a child still
 * writing gets EPIPE instead of blocking on a full pipe.
 */
async function pump(reader: ReadableStreamBYOBReader, onChunk: (chunk: Uint8Array) => void): Promise<void> {
  let buffer = new ArrayBuffer(FIRST_READ_BUFFER_BYTES);
  try {
    while (true) {
      // A read error means cancelled by releaseOutput, or the pipe broke: either way the stream is over.
      const next = await reader.read(new Uint8Array(buffer)).catch(() => null);
      if (next === null || next.done || next.value === undefined) return;
      const value = next.value;
      try {
        onChunk(value);
      } catch {
        // The handler failed: stop reading (the ChildHandle has no error channel).
        return;
      }
      // The read moved the buffer into `value` (the old one is detached); the
      // handler has copied what it keeps, so the memory can be read into again.
      const size = value.buffer.byteLength;
      buffer = value.byteLength === size && size < MAX_READ_BUFFER_BYTES
        ? new ArrayBuffer(Math.min(size * 4, MAX_READ_BUFFER_BYTES))
        : value.buffer as ArrayBuffer;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * Size of one stdin write. One write of the whole payload crawls when the
 * event loop is busy (measured by the stress suite: ~100 KB/s under load);
 * pipe-sized pieces keep it moving.
 */
const STDIN_PIECE_BYTES = 64 * 1024;

function writeAndClose(stdin: WritableStream<Uint8Array>, bytes: Uint8Array): void {
  const writer = stdin.getWriter();
  const writeAll = async (): Promise<void> => {
    for (let offset = 0; offset < bytes.length; offset += STDIN_PIECE_BYTES) {
      await writer.write(bytes.subarray(offset, offset + STDIN_PIECE_BYTES));
    }
    await writer.close();
  };
  // A child that exits without reading breaks the pipe; its exit status decides the result.
  writeAll().catch(() => writer.abort().catch(() => {}));
}

function signalGroup(pgid: number, signal: GroupSignal): boolean {
  try {
    // Signal 0 only probes; Deno.Signal does not list it, but Deno.kill passes it through.
    Deno.kill(-pgid, signal as Deno.Signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    // PermissionDenied: the group exists but is not ours to signal; it is still alive.
    return true;
  }
}

function spawnWatchdog(script: string, env: Record<string, string>): WatchdogHandle {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("/bin/sh", {
      args: ["-c", script],
      env,
      clearEnv: true,
      detached: true,
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch (error) {
    throw new ShellSpawnError("cannot start the watchdog: /bin/sh is missing", "/bin/sh", { cause: error });
  }
  // The watchdog must never keep the host alive.
  child.unref();
  const exited = child.status.then(() => {}, () => {});
  let open = true;
  return {
    pid: child.pid,
    exited,
    close: () => {
      if (!open) return;
      open = false;
      child.stdin.close().catch(() => {});
    },
  };
}

/**
 * A process we keep talking to (a remote engine's supervising connection):
 * its stdin stays open, its output is read, and none of it holds the host's
 * event loop open (`unref()` covers the pipes' reads too, measured on Deno
 * 2.9), so a harness that forgets `close()` still ends.
 */
function spawnChannel(request: ChannelRequest): ChannelHandle {
  const child = new Deno.Command(request.program, {
    args: [...request.args],
    cwd: request.cwd,
    env: request.env,
    clearEnv: true,
    detached: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  child.unref();
  const stdout = child.stdout.getReader({ mode: "byob" });
  const stderr = child.stderr.getReader({ mode: "byob" });
  const drained = Promise.all([pump(stdout, request.onStdout), pump(stderr, request.onStderr)]).then(() => {});
  const exited = child.status.then((status): ChildExit => ({
    code: status.signal === null ? status.code : null,
    signal: status.signal,
  }));
  const writer = child.stdin.getWriter();
  // Writes are chained, so they reach the pipe in order; a broken pipe ends the chain quietly.
  let queue: Promise<void> = Promise.resolve();
  let ended = false;
  return {
    pid: child.pid,
    exited,
    drained,
    write: (bytes) => {
      if (ended) return;
      const copy = bytes.slice();
      queue = queue.then(() => writer.write(copy)).catch(() => {});
    },
    end: () => {
      if (ended) return;
      ended = true;
      queue = queue.then(() => writer.close()).catch(() => {});
    },
  };
}

/**
 * "unload" runs on a normal end of the event loop, on `Deno.exit()` and on
 * `process.exit()` (measured on Deno 2.9); not after an uncaught error.
 */
function onHostExit(listener: () => void): void {
  (globalThis as unknown as EventTarget).addEventListener("unload", listener);
}

/** Runs `request` to its end, synchronously, in a session of its own. */
function probe(request: ProbeRequest): ProbeOutcome {
  try {
    const out = new Deno.Command(request.program, {
      args: [...request.args],
      cwd: request.cwd,
      env: request.env,
      clearEnv: true,
      detached: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    return {
      code: out.signal === null ? out.code : null,
      signal: out.signal,
      stderr: new TextDecoder().decode(out.stderr),
    };
  } catch (error) {
    return { code: null, signal: null, stderr: `${request.program}: ${(error as Error).message}` };
  }
}

/**
 * The adapter for Deno.
 *
 * @example
 * ```ts
 * import { createShell } from "@dsh/shell";
 * import { denoAdapter } from "@dsh/shell/deno";
 * import assert from "node:assert/strict";
 * await using shell = createShell(denoAdapter, { timeoutMs: 5_000 });
 * const result = await shell.run(shell.resolve({ command: "exit 7", owner: null }));
 * assert.equal(denoAdapter.name, "deno");
 * assert.equal(result.exitCode, 7);
 * ```
 */
export const denoAdapter: ProcessAdapter = {
  name: "deno",
  spawn: spawnChild,
  signalGroup,
  onHostExit,
  spawnWatchdog,
  probe,
  spawnChannel,
  // One op for the whole environment; Deno's process.env asks once for the names and once per value.
  readEnvironment: () => Deno.env.toObject(),
};
