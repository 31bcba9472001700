/**
 * The build's places: the repository folders it reads, the package folder
 * it writes, the cache of build-only packages, and where the emitted file of
 * each source lands. The compile step writes files where the package and
 * test steps later look for them, so all of them take the places from here.
 *
 * @module
 */

import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this module lives in `<root>/scripts/build/`. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url));
/** The package output; wiped on every build and git-ignored. */
export const OUT_DIR: string = path.join(ROOT, "npm");
/** Where the compiled library goes inside the package. */
export const ESM_DIR: string = path.join(OUT_DIR, "esm");
/** Where the compiled tests go: inside the package folder, so that the
 * package can be imported by name (self-reference), but not published. */
export const TEST_OUT_DIR: string = path.join(OUT_DIR, "test");
/** The test sources. */
export const TESTS_DIR: string = path.join(ROOT, "tests");
/** Build-only packages (types for type-checking). It survives `npm/` being
 * wiped, and `node_modules/` is git-ignored and skipped by deno fmt/lint. */
export const TOOLS_DIR: string = path.join(ROOT, "node_modules", ".cache", "dsh-build");
/** A file that need not exist: bare specifiers are resolved as if imported
 * from it, so that they find the packages installed in `TOOLS_DIR`. */
export const TOOLS_ANCHOR: string = path.join(TOOLS_DIR, "anchor.ts");

/** True for a TypeScript source (as opposed to a fixture). */
export function isTypeScript(file: string): boolean {
  return /\.(?:ts|tsx|mts)$/.test(file);
}

/** True for a file under `tests/`. */
export function isTestSource(file: string): boolean {
  return path.resolve(file).startsWith(TESTS_DIR + path.sep);
}

/**
 * Where the emitted JS for a source file lands: `tests/…` under `npm/test/`,
 * everything else mirrored under `npm/esm/`.
 */
export function emittedPath(source: string): string {
  const js = source.replace(/\.(m|c)?tsx?$/, (_, kind) => kind ? `.${kind}js` : ".js");
  if (isTestSource(source)) return path.join(TEST_OUT_DIR, path.relative(TESTS_DIR, js));
  return path.join(ESM_DIR, path.relative(ROOT, js));
}
