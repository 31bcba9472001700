/**
 * Temporary directories for tests: a fresh private one, its removal, a
 * listing that treats a missing directory as empty, and a fresh one that
 * lives exactly as long as a body runs.
 *
 * Nothing here imports the library.
 */

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A new, empty directory under the OS temp dir, mode 0700 (mkdtemp's). */
export function freshDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes `dir` and everything in it; a missing one is fine. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The names in `dir`, or `[]` when it does not exist. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Runs `body` with a fresh directory (see {@linkcode freshDir}), removed afterwards whatever happens. */
export async function withFreshDir<T>(prefix: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = freshDir(prefix);
  try {
    return await body(dir);
  } finally {
    removeDir(dir);
  }
}
