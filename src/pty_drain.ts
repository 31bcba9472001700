/**
 * What a terminal's master side still holds when node-pty gives up on it.
 * After the command's exit node-pty waits for the master to read to its end,
 * but only 200 ms (`DESTROY_SOCKET_TIMEOUT_MS` in its `unixTerminal.js`);
 * then it destroys the stream, and what the kernel still held for it is
 * dropped. A host whose event loop stalls that long between the exit and
 * the last read (a loaded machine) lost the command's last lines: its
 * `exec_command` answer said the program exited and did not show what it
 * printed last. So the stream's `destroy` first reads the master to its end,
 * after one more poll of the stream.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

/** The parts of node-pty's terminal object this module reaches: private, so each is checked before use. */
interface TerminalInternals {
  readonly _socket?: { destroy?: (...args: unknown[]) => unknown; resume?: () => unknown };
}

/**
 * Makes `term`'s stream read what its master side still holds before it is
 * destroyed: the destroy node-pty asks for waits until the event loop has
 * polled the stream once more (`setImmediate` runs right after the poll
 * phase), with the stream flowing. A background process still writing to
 * the terminal gets one poll's worth, not a wait. Does nothing when the
 * object is not shaped as node-pty 1.x makes it.
 *
 * @example
 * ```ts
 * import { drainBeforeDestroy } from "./pty_drain.ts";
 * drainBeforeDestroy({}); // not node-pty's shape: left as it is
 * ```
 */
export function drainBeforeDestroy(term: object): void {
  const socket = (term as TerminalInternals)._socket;
  const destroy = socket?.destroy;
  const resume = socket?.resume;
  if (socket === undefined || typeof destroy !== "function" || typeof resume !== "function") return;
  let asked = false;
  socket.destroy = function (this: unknown, ...args: unknown[]): unknown {
    if (asked) return destroy.apply(this, args);
    asked = true;
    resume.call(this);
    setImmediate(() => destroy.apply(this, args));
    return this;
  };
}
