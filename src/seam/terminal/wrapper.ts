/**
 * The pseudo-terminal as a wrapper of the local spawn (`../wrapper.ts`): a
 * spec with `tty` is spawned on a new terminal of its size (the adapter
 * opens it: `SpawnRequest.terminal`), with `TERM` set unless the request's
 * `env` names one; and a termination of its session is followed by a sweep
 * for what the command started in sessions of its own (`setsid`), found by
 * its mark, because a program one talks to through a terminal is a whole
 * that ends together. It runs before the sandbox's wrapper, which carries
 * the terminal into bubblewrap.
 *
 * The remote transport applies it too (`remote/command.ts`), and sends what
 * it made: `TERM`, the size and the followed mark go in the engine's
 * header, and the engine's supervisor sweeps for that mark. A transport
 * that marks no command of its own (an engine's: only a terminal's command
 * carries a mark there) has the wrapper give each command a fresh one.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

import type { SpawnRequest } from "../adapter.ts";
import { MARK_VARIABLE, newMark } from "../guard/record.ts";
import { ownValue } from "../own_fields.ts";
import type { ShellExecSpec } from "../types.ts";
import type { SpawnWrapper, WrappedCommand } from "../wrapper.ts";
import { terminalSize } from "./size.ts";

/** What `TERM` says on a terminal unless the request's `env` names another: what xterm, VS Code and tmux set. */
export const DEFAULT_TERM = "xterm-256color";

/** How a transport has the terminal mark its commands. */
export interface TerminalWrapperOptions {
  /**
   * Each command on a terminal gets a fresh mark of the wrapper's, set in
   * its environment over whatever was there; otherwise the wrapper follows
   * the mark the transport set last in the request's environment (the
   * local one marks every command).
   */
  readonly marks?: boolean;
}

/**
 * The wrapper that puts every spec with `tty` on a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalWrapper } from "./wrapper.ts";
 * const wrapper = terminalWrapper();
 * const request = { program: "/bin/bash", args: ["-c", "true"], cwd: "/", env: {}, onStdout() {}, onStderr() {} };
 * const spec = { command: "true", owner: null, workdir: "/", timeoutMs: 1, stdoutMaxBytes: 1 };
 * assert.equal(wrapper.wrap(request, spec), undefined); // no tty: pipes, as ever
 * const wrapped = wrapper.wrap(request, { ...spec, tty: { columns: 100 } });
 * assert.deepEqual(wrapped?.request.terminal, { columns: 100, rows: 24 });
 * assert.equal(wrapped?.request.env.TERM, "xterm-256color");
 * const marked = terminalWrapper({ marks: true }).wrap(request, { ...spec, tty: true });
 * assert.equal(marked?.request.env.DSH_COMMAND_MARK, marked?.followedMark);
 * ```
 */
export function terminalWrapper(options: TerminalWrapperOptions = {}): SpawnWrapper {
  const marks = options.marks === true;
  return {
    // A terminal changes how the command's stdio is wired, not where it may write.
    confines: () => false,
    wrap(request: SpawnRequest, spec: ShellExecSpec): WrappedCommand | undefined {
      const terminal = terminalSize(ownValue(spec, "tty"));
      if (terminal === undefined) return undefined;
      const env = { ...request.env };
      if (typeof ownValue(spec, "env")?.TERM !== "string") env.TERM = DEFAULT_TERM;
      // Its own, set last: a mark the caller put in the environment is never the one followed.
      if (marks) env[MARK_VARIABLE] = newMark();
      const mark = env[MARK_VARIABLE];
      return {
        request: { ...request, env, terminal },
        ...(mark === undefined ? {} : { followedMark: mark }),
        terminating: (session) => (ended) =>
          ended.then((outcome) => {
            session.killFollowed();
            return outcome;
          }),
        ended: () => {},
      };
    },
  };
}
