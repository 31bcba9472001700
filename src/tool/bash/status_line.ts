/**
 * The last line of what `bash_output` and `kill_shell` say about a task:
 * whether it runs, and once it has ended, how.
 *
 * @module
 */

import type { ShellTask } from "../../seam/types.ts";

/**
 * `[status: running]`; once ended, the status with the exit code or the
 * signal: `[status: completed; exit code: 0]`,
 * `[status: killed; signal: SIGTERM]`, `[status: completed; signal: SIGSEGV]`
 * (a signal the command got from elsewhere than us); a task whose spawn
 * failed `[status: killed; it never started]`.
 */
export function statusLine(task: ShellTask): string {
  if (task.status === "running") return "[status: running]";
  if (task.spawnError !== undefined) return `[status: ${task.status}; it never started]`;
  if (task.signal !== null) return `[status: ${task.status}; signal: ${task.signal}]`;
  if (task.exitCode !== null) return `[status: ${task.status}; exit code: ${task.exitCode}]`;
  return `[status: ${task.status}]`;
}
