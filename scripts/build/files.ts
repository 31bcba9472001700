/**
 * Reading a file tree in which parts may be missing. A fresh clone has no
 * `npm/` and no build cache, and a project may have no `tests/` or LICENSE:
 * those are normal states, not errors, so "not found" is tolerated here
 * while every other failure still throws.
 *
 * @module
 */

import * as path from "node:path";

/** All files under `dir`, recursively and sorted; none when it does not exist. */
export async function listFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory) files.push(...await listFiles(full));
      else if (entry.isFile) files.push(full);
    }
  } catch (error) {
    ignoreNotFound(error);
  }
  return files.sort();
}

/** A file's text, or null when it does not exist. */
export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    ignoreNotFound(error);
    return null;
  }
}

/** Swallows "not found" (the usual state of a fresh clone); rethrows the rest. */
export function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}
