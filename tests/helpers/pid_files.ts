/**
 * Files that commands write their pids into (`echo $! > file`): read them,
 * and wait until a command has written them.
 *
 * Nothing here imports the library.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { eventually } from "./wait.ts";

/** Reads whole-number pids written one per line to `file`. */
export function readPids(file: string): number[] {
  return readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map(Number);
}

/** Waits until `file` holds `count` pids (failing after `withinMs`), and returns them. */
export async function waitForPids(file: string, count = 1, withinMs = 5_000): Promise<number[]> {
  assert.ok(
    await eventually(() => existsSync(file) && readPids(file).length === count, withinMs),
    `${file} never held ${count} pid(s)`,
  );
  return readPids(file);
}
