/**
 * The watchdog's own shell readers of its record, run on a text: what the
 * host's reader says of a record must be what the watchdog's shell says.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { PENDING_FUNCTION } from "../../src/seam/guard/watchdog.ts";

/** Runs the watchdog's `pending_mark` shell function on `text`; returns what it printed, or undefined. */
export function shellPending(text: string): string | undefined {
  const out = spawnSync("/bin/sh", ["-c", `${PENDING_FUNCTION}\npending_mark`], { input: text, env: { PATH: "/bin" } });
  assert.equal(out.status, 0, String(out.stderr));
  const printed = String(out.stdout).trim();
  return printed === "" ? undefined : printed;
}
