/**
 * The Node adapter's read of a terminal's master once the stream over it is
 * over (`pty_drain.ts`): Node's stream reader ends the stream at the other
 * side's hang-up after a short read, while the program's last bytes may
 * still be on their way to the master, so the master is read directly
 * until the kernel has nothing more.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { constants, fstatSync, readFileSync, readSync, statSync } from "node:fs";

/**
 * Reads the terminal master `fd` once into `into`, never waiting, and
 * returns how many bytes came: 0 when it refuses, which it does unless two
 * things hold: the fd is non-blocking (node-pty opens it so;
 * `/proc/self/fdinfo` says, so the read cannot wait for a process that holds
 * the terminal and writes nothing), and `node:fs` sees through `fd` the
 * very file that `/proc/self/fd` names (the adapter also runs under Deno,
 * whose `node:fs` reads only the fds it opened itself, and a runtime that
 * numbered its files its own way could have another file answer). Throws
 * as `readSync` does when the kernel has nothing more (`EIO`: the other
 * side is closed and all was read; `EAGAIN`: held open, nothing more yet).
 *
 * @example Refused: a file read through `node:fs` blocks
 * ```ts
 * import assert from "node:assert/strict";
 * import { closeSync, openSync } from "node:fs";
 * import { readMaster } from "./pty_master_read.ts";
 *
 * const fd = openSync("/proc/self/stat", "r");
 * assert.equal(readMaster(fd, new Uint8Array(16)), 0);
 * closeSync(fd);
 * ```
 */
export function readMaster(fd: number, into: Uint8Array): number {
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
  if (flags === undefined || (parseInt(flags, 8) & constants.O_NONBLOCK) === 0) return 0;
  const seen = fstatSync(fd);
  const named = statSync(`/proc/self/fd/${fd}`);
  if (seen.ino !== named.ino || seen.dev !== named.dev || seen.rdev !== named.rdev) return 0;
  return readSync(fd, into);
}
