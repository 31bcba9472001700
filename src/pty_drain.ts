/**
 * What a terminal's master side still holds when its stream ends or is
 * destroyed after the command's exit. Two ways lost a program's last line on
 * a loaded machine (issue 35: an `exec_command` answer said the program
 * exited and did not show what it printed last; a remote terminal's command
 * lost its `echo end`):
 *
 * - node-pty waits for the master to read to its end, but only 200 ms
 *   (`DESTROY_SOCKET_TIMEOUT_MS` in its `unixTerminal.js`), then destroys the
 *   stream, dropping what the kernel still held for it. So the destroy it
 *   asks for waits for one more poll of the stream, flowing.
 * - Node's stream reader (libuv) ends the stream without reading again when
 *   the poll says the other side hung up and its last read was short: right
 *   for a pipe, wrong for a terminal, whose writer's last bytes reach the
 *   master's queue a moment after they were written (the kernel moves them
 *   on a worker thread, late under load). Measured on Node 20, two runs
 *   beside two busy loops: 13 of 4 000 answered prompts lost `hi Ada`; a C
 *   reader that reads until the kernel's `EIO` lost none of 60 000. So once
 *   the stream is over, the master is read with `read`, given by the
 *   adapter, until the kernel says there is nothing more.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

/**
 * One read of a terminal's master fd that never waits: the bytes read into
 * `into` (0 or less: nothing more, or the fd cannot be read without
 * waiting, so it was not read); throws when nothing more can be read
 * (`EIO`: the other side is closed and everything was read; `EAGAIN`: a
 * process still holds the terminal and has written nothing more yet).
 */
export type MasterRead = (fd: number, into: Uint8Array) => number;

/** The most read from the master after the stream is over: a background process writing on gets this much, not a wait. */
export const LEFT_MAX_BYTES: number = 1 << 20;

/** The parts of node-pty's terminal object this module reaches: private or untyped, so each is checked before use. */
interface TerminalInternals {
  readonly _socket?: { destroy?: (...args: unknown[]) => unknown; resume?: () => unknown };
  readonly fd?: unknown;
}

/**
 * Makes `term`'s stream hand over what its master side still holds before
 * it is destroyed: the destroy (node-pty's after 200 ms, or the stream's own
 * at its end or at `EIO`) first lets the event loop poll the stream once
 * more, flowing (`setImmediate` runs right after the poll phase); then,
 * with `read`, reads the master until the kernel has nothing more (at most
 * {@linkcode LEFT_MAX_BYTES}) and gives each chunk to `deliver`, after
 * everything the stream gave. Does nothing when the object is not shaped as
 * node-pty 1.x makes it; without `read`, or without a numeric `fd` on it,
 * only the extra poll is made.
 *
 * @example A stream that ends before the kernel's last bytes: they are read from the fd
 * ```ts
 * import assert from "node:assert/strict";
 * import { PassThrough } from "node:stream";
 * import { drainBeforeDestroy } from "./pty_drain.ts";
 *
 * const socket = new PassThrough();
 * const left = [new TextEncoder().encode("the last line\n")];
 * const read = (_fd: number, into: Uint8Array): number => {
 *   const next = left.shift();
 *   if (next === undefined) throw new Error("EIO");
 *   into.set(next);
 *   return next.length;
 * };
 * const got: string[] = [];
 * drainBeforeDestroy({ _socket: socket, fd: 7 }, (bytes) => got.push(new TextDecoder().decode(bytes)), read);
 * socket.on("data", () => {}).end();
 * await new Promise((resolve) => socket.on("close", resolve));
 * assert.deepEqual(got, ["the last line\n"]);
 * ```
 */
export function drainBeforeDestroy(term: object, deliver: (bytes: Uint8Array) => void, read?: MasterRead): void {
  const { _socket: socket, fd } = term as TerminalInternals;
  const destroy = socket?.destroy;
  const resume = socket?.resume;
  if (socket === undefined || typeof destroy !== "function" || typeof resume !== "function") return;
  let asked = false;
  socket.destroy = function (this: unknown, ...args: unknown[]): unknown {
    if (asked) return destroy.apply(this, args);
    asked = true;
    resume.call(this);
    setImmediate(() => {
      if (read !== undefined && typeof fd === "number") readLeft(fd, read, deliver);
      destroy.apply(this, args);
    });
    return this;
  };
}

/** Reads the master until `read` says there is nothing more, or {@linkcode LEFT_MAX_BYTES}; gives `deliver` each chunk. */
function readLeft(fd: number, read: MasterRead, deliver: (bytes: Uint8Array) => void): void {
  const buffer = new Uint8Array(64 * 1024);
  for (let total = 0; total < LEFT_MAX_BYTES;) {
    let count: number;
    try {
      count = read(fd, buffer);
    } catch {
      // EIO: read to its end; EAGAIN: held open, nothing more now.
      return;
    }
    if (count <= 0) return;
    deliver(buffer.slice(0, count));
    total += count;
  }
}
