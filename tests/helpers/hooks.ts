/**
 * Helpers for the hook-bridge tests: executable scripts in a temporary
 * directory, `env` dumps read back as a map, and the repository's
 * `docs/examples` found from wherever the tests run (the sources under
 * Deno, `npm/test/` under Node).
 */

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Writes an executable bash script at `path` (parents created) and returns the path. */
export function writeScript(path: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The output of `env` as name → value (one variable per line; values without newlines). */
export function parseEnvDump(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) entries.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return entries;
}

/** The lines of a file, without the empty one after the last newline; none when it does not exist. */
export function fileLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
}

/** The repository's `docs/examples`, found by walking up from this file. */
export function examplesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "docs", "examples");
    if (existsSync(join(candidate, "settings.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("docs/examples/settings.json not found above the tests");
    dir = parent;
  }
}

/** Reads and parses a JSON file. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}
