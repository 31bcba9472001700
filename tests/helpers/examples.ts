/**
 * The repository's `docs/examples`, found from wherever the tests run: the
 * sources under Deno, `npm/test/` under Node.
 *
 * Nothing here imports the library.
 */

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
