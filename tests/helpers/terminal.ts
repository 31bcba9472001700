/**
 * Waiting on interactive tasks: for output that shows up, and for a
 * program that runs in a task's session (so that a typed Ctrl-C reaches
 * that program, not the shell before it has started it).
 */

import assert from "node:assert/strict";
import type { ShellTask } from "../../mod.ts";
import { procInfo, runningSessionMembers } from "./proc.ts";
import { eventually } from "./wait.ts";

/** Reads a task's stdout until `pattern` shows up, and returns what was read; fails after `withinMs`. */
export async function outputUntil(task: ShellTask, pattern: RegExp, withinMs = 10_000): Promise<string> {
  let seen = "";
  const deadline = Date.now() + withinMs;
  while (!pattern.test(seen)) {
    const left = deadline - Date.now();
    assert.ok(left > 0, `no ${pattern} in the output within ${withinMs} ms: ${JSON.stringify(seen)}`);
    await task.waitForOutput({ timeoutMs: left });
    seen += task.read().stdout;
  }
  return seen;
}

/** Waits until some running process of session `sid` is named `name`; returns its pid. */
export async function runsInSession(sid: number, name: string): Promise<number> {
  let pid: number | undefined;
  const found = await eventually(() => {
    pid = runningSessionMembers(sid).find((member) => procInfo(member)?.comm === name);
    return pid !== undefined;
  });
  assert.ok(found && pid !== undefined, `no ${name} ever ran in session ${sid}`);
  return pid;
}
