/**
 * A sandboxed command on a terminal runs as the terminal's foreground job.
 * The terminal's foreground process group is the session leader's, and in
 * a sandbox the leader is bubblewrap: Ctrl-C (`"\x03"`) would SIGINT
 * bubblewrap itself, whose death ends the whole sandbox (`--die-with-parent`).
 * A `bash -p` step with job control (`set -m`) inside puts the command in
 * a process group of its own and gives it the terminal (`tcsetpgrp`), as
 * an interactive shell does, so the keys that signal (Ctrl-C, Ctrl-\,
 * Ctrl-Z) reach the command only. The step stays the command's parent (the
 * `exit` after it keeps bash from exec'ing it, which would skip the job)
 * and exits with its status. The new group stays in the session, which is
 * what termination signals.
 *
 * Internal: not exported from the package.
 *
 * @module
 */

/** The step's script: the command as a foreground job, then its status. */
const SCRIPT = 'set -m; "$@"; exit $?';

/**
 * The argv of the step that runs the command after it as the terminal's
 * foreground job. `bash` is an absolute path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { foregroundArgs } from "./foreground.ts";
 * assert.deepEqual(foregroundArgs("/usr/bin/bash"), ["/usr/bin/bash", "--norc", "-p", "-c", 'set -m; "$@"; exit $?', "dsh-terminal"]);
 * ```
 */
export function foregroundArgs(bash: string): string[] {
  return [bash, "--norc", "-p", "-c", SCRIPT, "dsh-terminal"];
}
