/**
 * Files tests write and read back: an executable script, the lines of a
 * file, a JSON file.
 *
 * Nothing here imports the library.
 */

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Writes an executable bash script at `path` (parents created) and returns the path. */
export function writeScript(path: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The lines of a file, without the empty one after the last newline; none when it does not exist. */
export function fileLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
}

/** Reads and parses a JSON file. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}
