/**
 * Builds the npm package of `@dsh/shell` into `npm/` and tests it with Node.
 *
 * This does the job of dnt with the TypeScript compiler from npm, because
 * only the npm registry is reachable (no JSR, so no dnt). `deno.json` is the
 * single source of the name, version, license and exports; the dependencies
 * are found from the import graph. This file only reads the arguments and
 * runs the steps, each in a module of its own under `scripts/build/`:
 *
 * 1. `plan.ts`: reads `deno.json` and works out the exports, bins, the
 *    published dependencies and the test-only ones;
 * 2. `compile.ts`: installs the build-only types into a cache, writes the
 *    `Deno` namespace declarations, type-checks and compiles the package to
 *    `npm/esm/` (specifiers rewritten for Node by `rewrite.ts`);
 * 3. `package.ts`: writes `npm/package.json`, the bins, README and LICENSE,
 *    and installs the runtime and test-only dependencies into
 *    `npm/node_modules` (`--no-save`: package.json is not touched);
 * 4. `test.ts`: compiles `tests/` to `npm/test/` with the entry imports
 *    pointed at the package's own exports and `npm:` specifiers made bare,
 *    and runs `node --test` with each Node binary given.
 *
 * Usage: `deno run -A scripts/build_npm.ts [--test | --test-only] [--node <path>]…`
 * - no flag: build the package only (`--no-test`, the 1.0 way to say it,
 *   is accepted and means the same);
 * - `--test`: build the package and the tests, and run the tests under Node;
 * - `--test-only`: run the compiled tests of an earlier build, without
 *   building (for running one build on several Node versions);
 * - `--node <path>` (repeatable; default `node`; with `--test` or
 *   `--test-only`): the Node binaries to run the tests with, one after the
 *   other; every one runs even if an earlier one failed.
 *
 * @module
 */

import { compilePackage, createCompiler } from "./build/compile.ts";
import { ignoreNotFound, listFiles } from "./build/files.ts";
import { log } from "./build/log.ts";
import { installDependencies, writePackage } from "./build/package.ts";
import { isTypeScript, OUT_DIR, TESTS_DIR } from "./build/paths.ts";
import { planBuild, readDenoConfig } from "./build/plan.ts";
import { checkBuildIsCurrent, compileTests, runNodeTestsWithEach } from "./build/test.ts";

/** What to do: build and test, only build, or only test an earlier build. */
type BuildMode = "build-and-test" | "build" | "test-only";

/** The command-line options. */
interface BuildArgs {
  mode: BuildMode;
  /** The Node binaries to test with, in order. */
  nodeBinaries: string[];
}

/**
 * Runs the build and, with `--test`, the Node test runs; with
 * `--test-only`, only the test runs.
 *
 * @returns The process exit code.
 */
async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const config = await readDenoConfig();
  const testSources = args.mode === "build" ? [] : await listFiles(TESTS_DIR);
  const testRoots = testSources.filter(isTypeScript);
  if (args.mode === "test-only") {
    await checkBuildIsCurrent(testRoots);
    return await runNodeTestsWithEach(testRoots, args.nodeBinaries);
  }
  log(`building ${config.name}@${config.version} into npm/`);

  const plan = planBuild(config, testRoots);
  await Deno.remove(OUT_DIR, { recursive: true }).catch(ignoreNotFound);
  const compiler = await createCompiler(plan);
  const packageFiles = compilePackage(compiler, plan);
  if (!packageFiles) return 1;
  await writePackage(plan);

  if (args.mode === "build") return 0;
  if (!await compileTests(compiler, plan, testSources, packageFiles)) return 1;
  await installDependencies(plan);
  return await runNodeTestsWithEach(testRoots, args.nodeBinaries);
}

/** The usage line, for argument errors. */
const USAGE = "usage: build_npm.ts [--test | --test-only] [--node <path>]...";

/**
 * Reads `--test`, `--test-only`, `--no-test` (the default, accepted as it
 * was in 1.0) and `--node <path>` (or `--node=<path>`, repeatable).
 *
 * @throws On an unknown argument, so a typo does not silently change the run.
 */
function parseArgs(argv: string[]): BuildArgs {
  let mode: BuildMode | undefined;
  const nodeBinaries: string[] = [];
  const setMode = (next: BuildMode) => {
    if (mode !== undefined && mode !== next) {
      throw new Error(`--test, --test-only and --no-test exclude each other; ${USAGE}`);
    }
    mode = next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--test") setMode("build-and-test");
    else if (arg === "--no-test") setMode("build");
    else if (arg === "--test-only") setMode("test-only");
    else if (arg === "--node" && i + 1 < argv.length) nodeBinaries.push(argv[++i]);
    else if (arg.startsWith("--node=")) nodeBinaries.push(arg.slice("--node=".length));
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${USAGE}`);
  }
  mode ??= "build";
  if (mode === "build" && nodeBinaries.length > 0) {
    throw new Error(`--node means nothing without --test or --test-only; ${USAGE}`);
  }
  return { mode, nodeBinaries: nodeBinaries.length > 0 ? nodeBinaries : ["node"] };
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
