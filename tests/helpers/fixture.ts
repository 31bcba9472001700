/**
 * Runs a fixture of `tests/fixtures/` as a separate host process under the
 * runtime running the tests: Deno runs the `.ts` source, Node the compiled
 * `.js` beside the compiled tests.
 */

import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { IS_DENO, scriptArgs } from "./runtime.ts";

/** Starts fixture `name` (without extension) with `args`, its output discarded; `env` replaces the environment. */
export function spawnFixture(
  name: string,
  args: string[],
  env?: Record<string, string | undefined>,
): ChildProcess & { pid: number } {
  const file = fileURLToPath(new URL(`../fixtures/${name}.${IS_DENO ? "ts" : "js"}`, import.meta.url));
  const child = spawn(process.execPath, scriptArgs(file, args), { stdio: ["ignore", "ignore", "ignore"], env });
  if (child.pid === undefined) throw new Error(`cannot start the fixture ${name}`);
  return child as ChildProcess & { pid: number };
}

/** Resolves when `child` has exited, with how it ended. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}
