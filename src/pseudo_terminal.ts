/**
 * A command on a pseudo-terminal, for both adapters: `@lydell/node-pty`
 * (node-pty with its binaries prebuilt per platform, so nothing is compiled
 * at install time and nothing is downloaded at run time) forks the command
 * with `forkpty`, which makes it the leader of a new session whose
 * controlling terminal is the new terminal. The package is loaded at the
 * first terminal asked for, not when the adapter is imported: a caller that
 * never asks for one pays nothing for it, and a platform without a prebuilt
 * binary can still run everything else. See `docs/interactive.md` for why
 * this package and what was measured.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import { createRequire } from "node:module";
import { constants } from "node:os";
import type * as NodePty from "@lydell/node-pty";
import type { ChildExit, ChildHandle, ChildInput, SpawnRequest, TerminalSize } from "./seam/adapter.ts";
import { ShellSpawnError } from "./seam/errors.ts";
import { drainBeforeDestroy, type MasterRead } from "./pty_drain.ts";

/** The package's name, as `require` resolves it (Node: `node_modules`; Deno: `deno.json` imports). */
const PACKAGE = "@lydell/node-pty";

/** The terminal's end-of-file character (`VEOF`), Ctrl-D unless the program changed it with `stty eof`. */
const END_OF_FILE = new Uint8Array([0x04]);

let loaded: typeof NodePty | undefined;

/** Loads the package once; throws a `ShellSpawnError` that says what is missing. */
function nodePty(): typeof NodePty {
  if (loaded !== undefined) return loaded;
  try {
    // A `require("…")` with the name written out, not PACKAGE: the npm package check finds the package's imports,
    // require() calls included, by reading the emitted code.
    const require = createRequire(import.meta.url);
    loaded = require("@lydell/node-pty") as typeof NodePty;
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ShellSpawnError(
      `tty: the pseudo-terminal package ${PACKAGE} cannot be loaded (${why}); ` +
        `it is an optional peer of @dsh/shell (npm install ${PACKAGE}), with prebuilt binaries for Linux and macOS ` +
        "on x64 and arm64, and on Deno it needs --allow-ffi",
      undefined,
      { cause: error },
    );
  }
  return loaded;
}

/** A signal's name from its number, as `ChildExit` wants it. */
function signalName(signal: number): string {
  for (const [name, number] of Object.entries(constants.signals)) if (number === signal) return name;
  return `SIG${signal}`;
}

/**
 * Starts `request` on a new pseudo-terminal of `request.terminal`'s size.
 * Everything the command prints arrives through `onStdout`; `stdin`, if
 * any, is typed first. `readMaster` is the adapter's way to read the
 * terminal's master once its stream is over (`pty_drain.ts`), where the
 * runtime's stream can end before the kernel's last bytes. Throws
 * `ShellSpawnError` when the package cannot be loaded, and the package's
 * own error when the terminal cannot be opened.
 */
export function spawnOnTerminal(request: SpawnRequest, size: TerminalSize, readMaster?: MasterRead): ChildHandle {
  const pty = nodePty();
  const term = pty.spawn(request.program, [...request.args], {
    // node-pty sets TERM to `name`: the launch has already decided it.
    name: request.env.TERM ?? "xterm-256color",
    cols: size.columns,
    rows: size.rows,
    cwd: request.cwd,
    env: request.env,
    // Bytes, not text: the collectors decode, and a UTF-8 sequence split across reads must survive.
    encoding: null,
  });
  let forwarding = true;
  const forward = (data: string | Uint8Array): void => {
    if (!forwarding || typeof data === "string") return;
    try {
      request.onStdout(data);
    } catch {
      // A handler that throws must not crash the host: its output is no longer wanted.
      forwarding = false;
    }
  };
  term.onData(forward);
  // node-pty reports the exit once the terminal's stream is over, or 200 ms after the exit, when it destroys the stream
  // (a background process may hold the terminal open): what the master still held then is read first
  // (`pty_drain.ts`), so the exit also says that the output has drained.
  drainBeforeDestroy(term, forward, readMaster);
  const exited = new Promise<ChildExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      resolve(signal ? { code: null, signal: signalName(signal) } : { code: exitCode, signal: null });
    });
  });
  let ended = false;
  const input: ChildInput = {
    write: (bytes) => {
      // A copy: the caller may reuse its buffer, and the terminal's stream queues what it cannot write at once.
      if (!ended) term.write(Buffer.from(bytes) as unknown as string);
      return Promise.resolve();
    },
    end: () => {
      if (ended) return;
      input.write(END_OF_FILE);
      ended = true;
    },
  };
  if (request.stdin !== undefined && request.stdin.length > 0) void input.write(request.stdin);
  return {
    pid: term.pid,
    exited,
    drained: exited.then(() => {}),
    // Nothing to release: by the time the exit is known node-pty has closed the terminal's master side.
    releaseOutput: () => {
      forwarding = false;
    },
    input,
    resize: ({ columns, rows }) => {
      try {
        term.resize(columns, rows);
      } catch {
        // The terminal is already closed: the command has ended, which its exit reports.
      }
    },
  };
}
