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
 * Usage: `deno run -A scripts/build_npm.ts [--test | --test-only | --compile-tests] [--node <path>]… [--files a,b] [--skip a,b]`
 * - no flag: build the package only (`--no-test`, the 1.0 way to say it,
 *   is accepted and means the same);
 * - `--test`: build the package and the tests, and run the tests under Node;
 * - `--compile-tests`: build the package and the tests, run nothing (CI
 *   builds once, then checks the package and runs the legs on that build);
 * - `--test-only`: run the compiled tests of an earlier build, without
 *   building (for running one build on several Node versions);
 * - `--node <path>` (repeatable; default `node`; with `--test` or
 *   `--test-only`): the Node binaries to run the tests with, one after the
 *   other; every one runs even if an earlier one failed;
 * - `--files a.test.ts,b.test.ts` / `--skip …` (with `--test` or
 *   `--test-only`): run only these test files of `tests/`, in this order,
 *   or all but these.
 *
 * @module
 */

import { relative } from "node:path";
import { compilePackage, createCompiler } from "./build/compile.ts";
import { ignoreNotFound, listFiles } from "./build/files.ts";
import { log } from "./build/log.ts";
import { installDependencies, writePackage } from "./build/package.ts";
import { isTypeScript, OUT_DIR, TESTS_DIR } from "./build/paths.ts";
import { planBuild, readDenoConfig } from "./build/plan.ts";
import { checkBuildIsCurrent, compileTests, runNodeTestsWithEach } from "./build/test.ts";

/** What to do: build and test, only build, build with the tests compiled, or only test an earlier build. */
type BuildMode = "build-and-test" | "build" | "build-with-tests" | "test-only";

/** The command-line options. */
interface BuildArgs {
  mode: BuildMode;
  /** The Node binaries to test with, in order. */
  nodeBinaries: string[];
  /** The test files to run (names in `tests/`); all when undefined. */
  files?: string[];
  /** The test files not to run (names in `tests/`). */
  skip: string[];
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
  const toRun = selectTests(testRoots, args);
  if (args.mode === "test-only") {
    await checkBuildIsCurrent(testRoots);
    return await runNodeTestsWithEach(toRun, args.nodeBinaries);
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
  if (args.mode === "build-with-tests") return 0;
  return await runNodeTestsWithEach(toRun, args.nodeBinaries);
}

/**
 * The test sources `--files` and `--skip` leave; a name that is no test
 * file of `tests/` is an error, so a typo cannot quietly drop a file.
 */
function selectTests(testRoots: string[], args: BuildArgs): string[] {
  const byName = new Map(testRoots.map((file) => [relative(TESTS_DIR, file), file]));
  for (const name of [...args.files ?? [], ...args.skip]) {
    if (!byName.has(name)) throw new Error(`--files/--skip: no test file tests/${name}`);
  }
  // In the order `--files` gives (CI puts the files that wait for the live step last), else by name.
  const wanted = args.files ?? [...byName.keys()];
  return wanted.filter((name) => !args.skip.includes(name)).map((name) => byName.get(name) as string);
}

/** The usage line, for argument errors. */
const USAGE =
  "usage: build_npm.ts [--test | --test-only | --compile-tests] [--node <path>]... [--files a,b] [--skip a,b]";

/**
 * Reads `--test`, `--test-only`, `--no-test` (the default, accepted as it
 * was in 1.0) and `--node <path>` (or `--node=<path>`, repeatable).
 *
 * @throws On an unknown argument, so a typo does not silently change the run.
 */
function parseArgs(argv: string[]): BuildArgs {
  let mode: BuildMode | undefined;
  const nodeBinaries: string[] = [];
  let files: string[] | undefined;
  const skip: string[] = [];
  const list = (value: string) => value.split(",").filter((name) => name !== "");
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
    else if (arg === "--compile-tests") setMode("build-with-tests");
    else if (arg === "--files" && i + 1 < argv.length) files = [...files ?? [], ...list(argv[++i])];
    else if (arg === "--skip" && i + 1 < argv.length) skip.push(...list(argv[++i]));
    else if (arg === "--node" && i + 1 < argv.length) nodeBinaries.push(argv[++i]);
    else if (arg.startsWith("--node=")) nodeBinaries.push(arg.slice("--node=".length));
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${USAGE}`);
  }
  mode ??= "build";
  const runs = mode === "build-and-test" || mode === "test-only";
  if (!runs && (nodeBinaries.length > 0 || files !== undefined || skip.length > 0)) {
    throw new Error(`--node, --files and --skip mean nothing without --test or --test-only; ${USAGE}`);
  }
  return {
    mode,
    nodeBinaries: nodeBinaries.length > 0 ? nodeBinaries : ["node"],
    ...(files === undefined ? {} : { files }),
    skip,
  };
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
