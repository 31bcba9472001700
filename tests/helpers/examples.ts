/**
 * The repository's `docs/examples`, found from wherever the tests run: the
 * sources under Deno, `npm/test/` under Node.
 *
 * Nothing here imports the library.
 */

import { join } from "node:path";
import { dirHolding } from "./repository.ts";

/** The repository's `docs/examples`, found by walking up from this file. */
export function examplesDir(): string {
  return join(dirHolding(join("docs", "examples", "settings.json")), "docs", "examples");
}
