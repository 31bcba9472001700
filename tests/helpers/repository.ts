/**
 * Finding the repository (or, under Node, the built package) from wherever
 * the tests run: the sources under Deno, `npm/test/` under Node.
 *
 * Nothing here imports the library.
 */

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The first directory above this file that holds `entry` (a path relative to it). */
export function dirHolding(entry: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, entry))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${entry} not found above the tests`);
    dir = parent;
  }
  return dir;
}

/** The repository: the first directory above the tests that holds `deno.json` (above `npm/` on the Node leg). */
export function repositoryRoot(): string {
  return dirHolding("deno.json");
}
