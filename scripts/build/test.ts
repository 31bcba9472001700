/**
 * Step 4, test: compiles `tests/` to `npm/test/` and runs them with
 * `node --test`, with each Node binary given, against the built package.
 *
 * The tests are the same files the Deno leg runs on the sources. Compiled
 * here, their imports of the entry files become the package's own name
 * (`../mod.ts` → `@dsh/shell`), so on Node they load the package through
 * its `exports` map as a user would, with the dependencies installed in
 * `npm/node_modules`, never the sources.
 *
 * With `--test-only` the compile is skipped and an earlier build is tested,
 * once it is shown to be newer than every source it was built from.
 *
 * @module
 */

import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { outputOf } from "./commands.ts";
import { compileProgram, type Compiler } from "./compile.ts";
import { listFiles } from "./files.ts";
import { log } from "./log.ts";
import { emittedPath, isTestSource, isTypeScript, OUT_DIR, ROOT, TEST_OUT_DIR, TESTS_DIR } from "./paths.ts";
import type { BuildPlan } from "./plan.ts";
import ts from "./typescript.ts";

/** Test file names, as `deno test` finds them: `test.ts`, `x_test.ts`,
 * `x.test.ts` (and the other script extensions). */
const TEST_FILE_PATTERN = /(?:^|[._])test\.(?:ts|tsx|mts)$/;

/** The build's entry script and the folder of its steps (this one). */
const BUILD_SCRIPT = path.join(ROOT, "scripts", "build_npm.ts");
const BUILD_STEPS_DIR = fileURLToPath(new URL(".", import.meta.url));

/** The outcome of testing with one Node binary. */
interface NodeRun {
  binary: string;
  /** `v22.12.0`, or null when the binary did not run. */
  version: string | null;
  code: number;
}

/**
 * Type-checks and compiles the tests into `npm/test/`, reusing the
 * package's output (`packageFiles`), and copies their fixtures beside them.
 *
 * @returns False on a type or emit error.
 */
export async function compileTests(
  compiler: Compiler,
  plan: BuildPlan,
  testSources: string[],
  packageFiles: Set<string>,
): Promise<boolean> {
  const testRoots = testSources.filter(isTypeScript);
  const testOptions = { ...compiler.options, declaration: false };
  const testFiles = compileProgram(
    "tests",
    [...testRoots, compiler.denoTypes],
    testOptions,
    compiler.host,
    plan,
    packageFiles,
  );
  if (!testFiles) return false;
  warnAboutTestOnlySources(testFiles);
  await copyTestAssets(testSources);
  return true;
}

/**
 * Names library files that only the tests reach: they were compiled into
 * `npm/esm/` for the tests and will be published, though no export uses them.
 */
function warnAboutTestOnlySources(emitted: Set<string>): void {
  const strays = [...emitted].filter((file) => !isTestSource(file)).map((file) => path.relative(ROOT, file));
  if (strays.length > 0) {
    log(`warning: reached only from tests, yet compiled into npm/esm/: ${strays.join(", ")}`);
  }
}

/**
 * Copies the non-TypeScript files of `tests/` (fixtures) next to the
 * compiled tests, keeping their relative places.
 */
async function copyTestAssets(testSources: string[]): Promise<void> {
  for (const source of testSources) {
    if (isTypeScript(source)) continue;
    const target = path.join(TEST_OUT_DIR, path.relative(TESTS_DIR, source));
    await Deno.mkdir(path.dirname(target), { recursive: true });
    await Deno.copyFile(source, target);
  }
}

/**
 * With `--test-only`: checks that `npm/` holds a build with compiled tests
 * that is newer than every source, so an old build is not tested by mistake.
 *
 * @throws When there is no build, a test was not compiled, or a source
 *   changed after the build.
 */
export async function checkBuildIsCurrent(testRoots: string[]): Promise<void> {
  const builtAt = (await Deno.stat(path.join(OUT_DIR, "package.json")).catch(() => null))?.mtime;
  if (!builtAt) throw new Error("--test-only: npm/ holds no build; run build_npm.ts without --test-only first");
  const missing = testRoots.filter((file) => !ts.sys.fileExists(emittedPath(file)));
  if (missing.length > 0) {
    throw new Error(
      `--test-only: npm/ has no compiled ${missing.map((file) => path.relative(ROOT, file)).join(", ")}; rebuild`,
    );
  }
  // What a build reads: deno.json, the build script and its steps, the root
  // modules, src/ and tests/ (fixtures included).
  const rootModules: string[] = [];
  for await (const entry of Deno.readDir(ROOT)) {
    if (entry.isFile && isTypeScript(entry.name)) rootModules.push(path.join(ROOT, entry.name));
  }
  const sources = [
    path.join(ROOT, "deno.json"),
    BUILD_SCRIPT,
    ...await listFiles(BUILD_STEPS_DIR),
    ...rootModules,
    ...await listFiles(path.join(ROOT, "src")),
    ...await listFiles(TESTS_DIR),
  ];
  for (const source of sources) {
    const changedAt = (await Deno.stat(source)).mtime;
    if (changedAt && changedAt > builtAt) {
      throw new Error(`--test-only: ${path.relative(ROOT, source)} changed after npm/ was built; rebuild`);
    }
  }
}

/**
 * Runs the compiled tests with each Node binary in turn (all of them, even
 * after a failure) and prints one verdict line per binary.
 *
 * @returns 0 when every run passed, else 1.
 */
export async function runNodeTestsWithEach(testRoots: string[], nodeBinaries: string[]): Promise<number> {
  const runs: NodeRun[] = [];
  for (const binary of nodeBinaries) runs.push(await runNodeTests(testRoots, binary));
  for (const { binary, version, code } of runs) {
    const name = `node ${version ?? "(did not run)"} (${binary})`;
    log(`${name}: ${code === 0 ? "tests ok" : `tests FAILED (exit code ${code})`}`);
  }
  return runs.every((run) => run.code === 0) ? 0 : 1;
}

/**
 * Runs the compiled test files with `node --test` from inside `npm/`, with
 * node's own output (its summary lines included) passed through, after
 * printing the Node version.
 *
 * @returns The binary's absolute path, its version and node's exit code (0
 *   when there is no test file).
 */
async function runNodeTests(testRoots: string[], given: string): Promise<NodeRun> {
  // The absolute path (node runs in npm/, where a relative one means nothing) and the version.
  let binary: string, version: string;
  try {
    const probe = "JSON.stringify([process.execPath, process.version])";
    [binary, version] = JSON.parse(await outputOf(given, ["-p", probe]));
  } catch (error) {
    log(`node binary did not run: ${given}: ${error instanceof Error ? error.message : error}`);
    return { binary: given, version: null, code: 1 };
  }
  // In the order given (by name, unless the caller chose one).
  const testFiles = testRoots
    .filter((file) => TEST_FILE_PATTERN.test(path.basename(file)))
    .map((file) => path.relative(OUT_DIR, emittedPath(file)));
  if (testFiles.length === 0) {
    log("no test files in tests/: nothing to run with node");
    return { binary, version, code: 0 };
  }
  // Node 20's --test takes no globs, so the files are listed.
  log(`node ${version} (${binary}): running ${testFiles.length} test files with --test`);
  // DSH_TEST_TIMINGS: a file for each test file's time (scripts/test_timings.mjs), beside the usual output.
  const timings = Deno.env.get("DSH_TEST_TIMINGS");
  const reporters = timings === undefined || timings === "" ? [] : [
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${path.join(ROOT, "scripts", "test_timings.mjs")}`,
    `--test-reporter-destination=${timings}`,
  ];
  const { code } = await new Deno.Command(binary, {
    args: ["--test", ...reporters, ...testFiles],
    cwd: OUT_DIR,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return { binary, version, code };
}
