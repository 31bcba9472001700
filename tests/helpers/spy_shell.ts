/**
 * A shell behind a spy: every `resolve`, `run`, `start` and `exec` call is
 * recorded before it is passed on to a real shell, so a test can prove that
 * nothing was resolved or spawned.
 */

import type { LocalShellOptions, Shell } from "../../mod.ts";
import { withShell } from "./shell.ts";

/** A shell that records which of its methods were called, delegating to a real one. */
export interface SpyShell {
  shell: Shell;
  calls: string[];
}

/** Wraps `real` in a spy. */
export function spyOn(real: Shell): SpyShell {
  const calls: string[] = [];
  const shell: Shell = {
    resolve(request) {
      calls.push("resolve");
      return real.resolve(request);
    },
    run(spec, observer) {
      calls.push("run");
      return real.run(spec, observer);
    },
    start(spec, observer) {
      calls.push("start");
      return real.start(spec, observer);
    },
    exec(command, options) {
      calls.push("exec");
      return real.exec(command, options);
    },
    session(options) {
      calls.push("session");
      return real.session(options);
    },
    files(options) {
      calls.push("files");
      return real.files(options);
    },
    task: (id, owner) => real.task(id, owner),
    tasks: (owner) => real.tasks(owner),
    close: () => real.close(),
    [Symbol.asyncDispose]: () => real.close(),
    events: real.events,
  };
  return { shell, calls };
}

/** Runs `body` with a fresh shell (see {@linkcode withShell}) behind a spy, and the spy's record of calls. */
export function withSpiedShell(
  options: LocalShellOptions,
  body: (shell: Shell, dir: string, calls: string[]) => Promise<void>,
): Promise<void> {
  return withShell(options, (real, dir) => {
    const { shell, calls } = spyOn(real);
    return body(shell, dir, calls);
  });
}
