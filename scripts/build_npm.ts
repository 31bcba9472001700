/**
 * Builds the npm package of `@dsh/shell` into `npm/` and tests it with Node.
 *
 * This does the job of dnt with the TypeScript compiler from npm, because
 * only the npm registry is reachable (no JSR, so no dnt). `deno.json` is the
 * single source of the name, version, license and exports; an optional `npm`
 * field in it adds `bin`, `engines`, `description` and any other
 * package.json field.
 *
 * Dependencies are found, not declared: the published `dependencies` are the
 * `npm:` packages (import-mapped or inline) that the package's own files
 * reach from its exports and bins. An `npm:` package that only the tests
 * reach (e.g. `npm:fast-check@^4`) is a test-only dependency: it is installed
 * for the type-check and the test run, never written to package.json.
 *
 * Steps: install the build-only types (`@types/node`, the dependencies, the
 * test-only dependencies) into a cache, write the `Deno` namespace
 * declarations, type-check and compile the package to `npm/esm/`, write
 * `npm/package.json`, then compile `tests/` to `npm/test/` with the entry
 * imports pointed at the package's own exports and `npm:` specifiers made
 * bare, install the runtime and test-only dependencies into
 * `npm/node_modules` (`--no-save`: package.json is not touched) and run
 * `node --test` with each Node binary given.
 *
 * Usage: `deno run -A scripts/build_npm.ts [--no-test | --test-only] [--node <path>]…`
 * - `--no-test`: build the package only;
 * - `--test-only`: run the compiled tests of an earlier build, without
 *   building (for running one build on several Node versions);
 * - `--node <path>` (repeatable; default `node`): the Node binaries to run
 *   the tests with, one after the other; every one runs even if an earlier
 *   one failed.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- the compiler is a build tool, not a dependency of the library
import ts from "npm:typescript@6.0.3";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: this script lives in `<root>/scripts/`. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The package output; wiped on every build and git-ignored. */
const OUT_DIR = path.join(ROOT, "npm");
/** Where the compiled library goes inside the package. */
const ESM_DIR = path.join(OUT_DIR, "esm");
/** Where the compiled tests go: inside the package folder, so that the
 * package can be imported by name (self-reference), but not published. */
const TEST_OUT_DIR = path.join(OUT_DIR, "test");
/** The test sources. */
const TESTS_DIR = path.join(ROOT, "tests");
/** Build-only packages (types for type-checking). It survives `npm/` being
 * wiped, and `node_modules/` is git-ignored and skipped by deno fmt/lint. */
const TOOLS_DIR = path.join(ROOT, "node_modules", ".cache", "dsh-build");
/** A file that need not exist: bare specifiers are resolved as if imported
 * from it, so that they find the packages installed in `TOOLS_DIR`. */
const TOOLS_ANCHOR = path.join(TOOLS_DIR, "anchor.ts");
/** Node's types: the oldest Node line the package supports, so that APIs
 * newer than that fail the type-check instead of failing at run time. */
const NODE_TYPES_PACKAGE = "@types/node@20";
/** The default `engines` field: 20.19 is the first Node 20 with
 * `require(esm)` unflagged, so CommonJS callers can load the package too. */
const DEFAULT_ENGINES = { node: ">=20.19" };
/** The shebang a bin file needs to run under npm. */
const NODE_SHEBANG = "#!/usr/bin/env node";
/** Test file names, as `deno test` finds them: `test.ts`, `x_test.ts`,
 * `x.test.ts` (and the other script extensions). */
const TEST_FILE_PATTERN = /(?:^|[._])test\.(?:ts|tsx|mts)$/;

/** `npm install` without lockfile, audit or funding noise. */
const NPM_QUIET_INSTALL = [
  "install",
  "--no-package-lock",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
];

/** TS2877, "this import uses a '.ts' extension … but will not be rewritten
 * because it is not a relative path": raised for import-mapped local paths
 * (`"@seam/": "./src/seam/"`), which `specifierRewriter` does rewrite. */
const TS_WONT_REWRITE_NON_RELATIVE = 2877;

/** The part of `deno.json` this script reads. */
interface DenoConfig {
  name: string;
  version: string;
  license?: string;
  exports: string | Record<string, string>;
  imports?: Record<string, string>;
  compilerOptions?: Record<string, unknown>;
  npm?: NpmConfig;
}

/** The optional `npm` field of `deno.json`: npm-only package.json fields. */
interface NpmConfig {
  /** Command name to source file, e.g. `{ "dsh-shell": "./src/cli.ts" }`. */
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  description?: string;
  /** Any other field is copied into package.json as it is. */
  [field: string]: unknown;
}

/** An npm package named by an `npm:` specifier. */
interface NpmSpecifier {
  name: string;
  version: string;
  /** The path inside the package, with its leading `/`, or `""`. */
  subpath: string;
}

/** Everything the compile and package steps need to know. */
interface BuildPlan {
  config: DenoConfig;
  /** Export subpath (`"."`, `"./seam"`, …) to absolute source file. */
  entries: Map<string, string>;
  /** Bin command name to absolute source file. */
  bins: Map<string, string>;
  /** npm package name to version range: what the package's own files import. */
  dependencies: Map<string, string>;
}

/** What to do: build and test, only build, or only test an earlier build. */
type BuildMode = "build-and-test" | "build" | "test-only";

/** The command-line options. */
interface BuildArgs {
  mode: BuildMode;
  /** The Node binaries to test with, in order. */
  nodeBinaries: string[];
}

/** The outcome of testing with one Node binary. */
interface NodeRun {
  binary: string;
  /** `v22.12.0`, or null when the binary did not run. */
  version: string | null;
  code: number;
}

/**
 * Runs the build and, unless `--no-test`, the Node test runs; with
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

  const plan = planBuild(config);
  const testDependencies = testOnlyDependencies(testRoots, plan);
  await Deno.remove(OUT_DIR, { recursive: true }).catch(ignoreNotFound);
  await installBuildTypes(new Map([...plan.dependencies, ...testDependencies]));
  const denoTypes = await writeDenoNamespaceTypes();

  const options = compilerOptions(config);
  const host = createHost(options, config.imports ?? {});
  // The Deno declarations are a root of both programs so `Deno.*` checks.
  const packageRoots = [...plan.entries.values(), ...plan.bins.values(), denoTypes];
  const packageFiles = compileProgram("package", packageRoots, options, host, plan, new Set());
  if (!packageFiles) return 1;
  await markBinsExecutable(plan.bins);
  await writePackageJson(plan);
  await copyDocs();
  await verifyPackageFiles();
  log("package written to npm/");

  if (args.mode === "build") return 0;
  const testOptions = { ...options, declaration: false };
  const testFiles = compileProgram("tests", [...testRoots, denoTypes], testOptions, host, plan, packageFiles);
  if (!testFiles) return 1;
  warnAboutTestOnlySources(testFiles);
  await copyTestAssets(testSources);
  await installRuntimeDependencies(plan.dependencies, testDependencies);
  return await runNodeTestsWithEach(testRoots, args.nodeBinaries);
}

/** The usage line, for argument errors. */
const USAGE = "usage: build_npm.ts [--no-test | --test-only] [--node <path>]...";

/**
 * Reads `--no-test`, `--test-only` and `--node <path>` (or `--node=<path>`,
 * repeatable).
 *
 * @throws On an unknown argument, so a typo does not silently change the run.
 */
function parseArgs(argv: string[]): BuildArgs {
  let mode = "build-and-test" as BuildMode;
  const nodeBinaries: string[] = [];
  const setMode = (next: BuildMode) => {
    if (mode !== "build-and-test" && mode !== next) {
      throw new Error(`--no-test and --test-only exclude each other; ${USAGE}`);
    }
    mode = next;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--no-test") setMode("build");
    else if (arg === "--test-only") setMode("test-only");
    else if (arg === "--node" && i + 1 < argv.length) nodeBinaries.push(argv[++i]);
    else if (arg.startsWith("--node=")) nodeBinaries.push(arg.slice("--node=".length));
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; ${USAGE}`);
  }
  if (mode === "build" && nodeBinaries.length > 0) throw new Error(`--node means nothing with --no-test; ${USAGE}`);
  return { mode, nodeBinaries: nodeBinaries.length > 0 ? nodeBinaries : ["node"] };
}

/**
 * Reads and checks `deno.json` (plain JSON: comments are not supported).
 */
async function readDenoConfig(): Promise<DenoConfig> {
  const file = path.join(ROOT, "deno.json");
  const config = JSON.parse(await Deno.readTextFile(file)) as DenoConfig;
  for (const field of ["name", "version", "exports"] as const) {
    if (!config[field]) throw new Error(`deno.json has no "${field}"`);
  }
  return config;
}

/**
 * Derives entry points, bins and the published dependencies from
 * `deno.json` and the sources the exports and bins reach.
 */
function planBuild(config: DenoConfig): BuildPlan {
  const imports = config.imports ?? {};
  checkImportMap(imports);
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  const entries = new Map(
    Object.entries(exports).map(([subpath, file]) => [subpath, path.resolve(ROOT, file)]),
  );
  const bins = new Map(
    Object.entries(config.npm?.bin ?? {}).map(([name, file]) => [name, path.resolve(ROOT, file)]),
  );
  const dependencies = npmPackagesReached([...entries.values(), ...bins.values()], imports);
  for (const [key, target] of Object.entries(imports)) {
    if (target.startsWith("npm:") && !dependencies.has(parseNpmSpecifier(target).name)) {
      log(`note: deno.json imports "${key}" (${target}) is not reached by the package: not a dependency`);
    }
  }
  return { config, entries, bins, dependencies };
}

/**
 * Checks that every import-map target has an npm counterpart.
 *
 * @throws On a `jsr:` or remote mapping: it cannot be built for npm here.
 */
function checkImportMap(imports: Record<string, string>): void {
  for (const [key, target] of Object.entries(imports)) {
    if (!/^(?:npm:|node:|\.)/.test(target)) {
      throw new Error(
        `deno.json imports "${key}": "${target}" cannot be built for npm (only npm:, node: and relative targets can)`,
      );
    }
  }
}

/**
 * The `npm:` packages (name to version range) that `roots` reach: follows
 * local imports (relative, or import-mapped to a local path) from file to
 * file, and collects every import that maps to `npm:`, type-only and
 * dynamic imports included. When a package is imported with two ranges,
 * the first one found wins, with a warning.
 */
function npmPackagesReached(roots: Iterable<string>, imports: Record<string, string>): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = ts.sys.readFile(file);
    if (text === undefined) continue; // the type-check reports it
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      const mapped = applyImportMap(specifier, imports);
      if (mapped.startsWith("npm:")) {
        const { name, version } = parseNpmSpecifier(mapped);
        const known = packages.get(name);
        if (known === undefined) packages.set(name, version);
        else if (known !== version) {
          log(`warning: ${name} is imported as both ${name}@${known} and ${name}@${version}; using ${known}`);
        }
      } else if (isRelative(mapped) || path.isAbsolute(mapped)) {
        // A relative import-map target is relative to deno.json.
        const base = mapped === specifier ? path.dirname(file) : ROOT;
        queue.push(sourceFileOf(path.resolve(base, mapped)));
      }
    }
  }
  return packages;
}

/**
 * The test-only dependencies: the `npm:` packages the tests reach that the
 * package does not depend on.
 */
function testOnlyDependencies(testRoots: string[], plan: BuildPlan): Map<string, string> {
  const reached = npmPackagesReached(testRoots, plan.config.imports ?? {});
  const testOnly = new Map([...reached].filter(([name]) => !plan.dependencies.has(name)));
  if (testOnly.size > 0) {
    log(`test-only dependencies (installed for the tests, not published): ${formatPackages(testOnly)}`);
  }
  return testOnly;
}

/** `a@^1, b@^2`: packages as npm names them, for log lines. */
function formatPackages(packages: Map<string, string>): string {
  return [...packages].map(([name, version]) => `${name}@${version}`).join(", ");
}

/**
 * Splits `npm:@scope/name@^1.2.0/sub/path` into name, version and subpath.
 * A missing version means any version.
 */
function parseNpmSpecifier(specifier: string): NpmSpecifier {
  const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(specifier);
  if (!match) throw new Error(`not an npm: specifier: ${specifier}`);
  return { name: match[1], version: match[2] ?? "*", subpath: match[3] ?? "" };
}

/**
 * Applies the deno.json import map to a specifier: an exact key, or the
 * longest key ending in `/` that prefixes it. Unmapped specifiers are kept.
 */
function applyImportMap(specifier: string, imports: Record<string, string>): string {
  if (imports[specifier] !== undefined) return imports[specifier];
  let best = "";
  for (const key of Object.keys(imports)) {
    if (key.endsWith("/") && specifier.startsWith(key) && key.length > best.length) best = key;
  }
  return best ? imports[best] + specifier.slice(best.length) : specifier;
}

/**
 * The specifier Node (and tsc) should see for what a Deno source imports:
 * import-mapped and `npm:` specifiers become bare package specifiers,
 * e.g. `zod` → `npm:zod@^4.1.0` → `zod`. Relative ones are kept, except
 * that a relative import-map target becomes absolute, since it is relative
 * to deno.json rather than to the importing file.
 */
function toNodeSpecifier(specifier: string, imports: Record<string, string>): string {
  const mapped = applyImportMap(specifier, imports);
  if (mapped.startsWith("npm:")) {
    const { name, subpath } = parseNpmSpecifier(mapped);
    return name + subpath;
  }
  return mapped !== specifier && isRelative(mapped) ? path.resolve(ROOT, mapped) : mapped;
}

/** True for `./x` and `../x`. */
function isRelative(specifier: string): boolean {
  return /^\.{1,2}\//.test(specifier);
}

/**
 * Installs `@types/node` and the dependencies (for their types) into
 * `TOOLS_DIR` with npm. Skipped when the same list is already installed,
 * so repeated builds need no network.
 */
async function installBuildTypes(dependencies: Map<string, string>): Promise<void> {
  const [nodeTypesName, nodeTypesVersion] = NODE_TYPES_PACKAGE.split(/(?<=.)@/);
  const manifest = JSON.stringify(
    {
      private: true,
      dependencies: { [nodeTypesName]: nodeTypesVersion, ...Object.fromEntries(dependencies) },
    },
    null,
    2,
  ) + "\n";
  const stamp = path.join(TOOLS_DIR, ".installed.json");
  if (await readTextOrNull(stamp) === manifest) return;

  log(`installing build-only types into ${path.relative(ROOT, TOOLS_DIR)}/`);
  await Deno.mkdir(TOOLS_DIR, { recursive: true });
  await Deno.writeTextFile(path.join(TOOLS_DIR, "package.json"), manifest);
  await runOrThrow("npm", [...NPM_QUIET_INSTALL, "--prefix", TOOLS_DIR], ROOT);
  // Written last: a failed install is retried next time.
  await Deno.writeTextFile(stamp, manifest);
}

/**
 * Writes the `Deno` namespace declarations for `src/deno_adapter.ts`.
 *
 * `deno types` also declares Deno's web globals, which clash with
 * `@types/node`; only the `declare namespace Deno` blocks are kept. Types
 * they name that Node lacks are tolerated by `skipLibCheck`.
 *
 * @returns The path of the written declaration file.
 */
async function writeDenoNamespaceTypes(): Promise<string> {
  const all = await outputOf(Deno.execPath(), ["types"]);
  const source = ts.createSourceFile("deno.d.ts", all, ts.ScriptTarget.Latest, true);
  const blocks = source.statements.filter((statement) =>
    ts.isModuleDeclaration(statement) && statement.name.text === "Deno"
  );
  if (blocks.length === 0) throw new Error("`deno types` declared no Deno namespace");
  const file = path.join(TOOLS_DIR, "deno_namespace.d.ts");
  const header = `// The Deno namespace from \`deno types\` (Deno ${Deno.version.deno}).\n`;
  await Deno.writeTextFile(
    file,
    header + blocks.map((block) => block.getText(source)).join("\n\n") + "\n",
  );
  return file;
}

/**
 * The compiler options: ESM for Node, ES2022, declarations, Deno's strictness.
 *
 * `moduleResolution` is Bundler because NodeNext would take the sources for
 * CommonJS (there is no package.json with `"type": "module"` above them);
 * Deno already requires explicit extensions, so nothing Node-incompatible
 * slips through. The lib is ES2023 (what Node 20 has) and the globals come
 * from `@types/node`, so a web or ES API that Node 20 lacks fails the check.
 */
function compilerOptions(config: DenoConfig): ts.CompilerOptions {
  // deno.json may tighten the check (e.g. exactOptionalPropertyTypes); its
  // lib/types name Deno's own libs, which tsc does not know.
  const { lib: _lib, types: _types, ...fromDeno } = config.compilerOptions ?? {};
  const converted = ts.convertCompilerOptionsFromJson(fromDeno, ROOT);
  if (converted.errors.length > 0) throw new Error(formatDiagnostics(converted.errors));
  return {
    strict: true,
    noImplicitOverride: true, // a Deno default
    ...converted.options,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts"],
    types: ["node"],
    typeRoots: [path.join(TOOLS_DIR, "node_modules", "@types")],
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    declaration: true,
    sourceMap: false,
    skipLibCheck: true,
    // Emit is gated by compileProgram's own check, which ignores TS2877.
    noEmitOnError: false,
    forceConsistentCasingInFileNames: true,
    rootDir: ROOT,
    outDir: ESM_DIR,
  };
}

/**
 * A compiler host that resolves specifiers the way Deno does: through the
 * import map and `npm:`, with packages found in `TOOLS_DIR`. Parsed source
 * files are cached, so the test program reuses the lib and node types.
 */
function createHost(
  options: ts.CompilerOptions,
  imports: Record<string, string>,
): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!parsed.has(fileName) || shouldCreate) {
      parsed.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    }
    return parsed.get(fileName);
  };
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, containingSource) =>
    literals.map((literal) => {
      const specifier = toNodeSpecifier(literal.text, imports);
      const from = isPackageSpecifier(specifier) ? TOOLS_ANCHOR : containingFile;
      const mode = ts.getModeForUsageLocation(containingSource, literal, opts);
      return ts.resolveModuleName(specifier, from, opts, host, undefined, redirected, mode);
    });
  return host;
}

/** True for a bare package specifier such as `zod` or `@scope/x/sub`. */
function isPackageSpecifier(specifier: string): boolean {
  return !/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

/**
 * Type-checks the program rooted at `rootNames` and emits its files, except
 * those in `alreadyEmitted` (the tests' program reuses the package's output).
 * Library files go to `npm/esm/`; test files go to `npm/test/`.
 *
 * @returns The source files it emitted, or null on a type or emit error.
 */
function compileProgram(
  label: "package" | "tests",
  rootNames: string[],
  options: ts.CompilerOptions,
  host: ts.CompilerHost,
  plan: BuildPlan,
  alreadyEmitted: Set<string>,
): Set<string> | null {
  const program = ts.createProgram({ rootNames, options, host });
  const ownFiles = program.getSourceFiles().filter((file) =>
    !file.isDeclarationFile && !alreadyEmitted.has(file.fileName)
  );
  log(`type-checking the ${label} and compiling ${ownFiles.length} files`);
  const diagnostics = withoutHandled(ts.getPreEmitDiagnostics(program));
  if (diagnostics.length > 0) {
    console.error(formatDiagnostics(diagnostics));
    log(`${label}: type-check failed`);
    return null;
  }
  const transformers: ts.CustomTransformers = {
    after: [specifierRewriter<ts.SourceFile>(plan)],
    afterDeclarations: [specifierRewriter<ts.SourceFile | ts.Bundle>(plan)],
  };
  const emitErrors = withoutHandled(
    ownFiles.flatMap((file) => program.emit(file, writeRedirected(host), undefined, false, transformers).diagnostics),
  );
  if (emitErrors.length > 0) {
    console.error(formatDiagnostics(emitErrors));
    log(`${label}: emit failed`);
    return null;
  }
  return new Set(ownFiles.map((file) => file.fileName));
}

/** Drops the diagnostics this script takes care of itself. */
function withoutHandled(diagnostics: readonly ts.Diagnostic[]): ts.Diagnostic[] {
  return diagnostics.filter((diagnostic) => diagnostic.code !== TS_WONT_REWRITE_NON_RELATIVE);
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
 * A write callback that moves emitted test files from `npm/esm/tests/` to
 * `npm/test/` and drops their declaration files.
 */
function writeRedirected(host: ts.CompilerHost): ts.WriteFileCallback {
  const testsInEsm = path.join(ESM_DIR, "tests") + path.sep;
  return (fileName, text, bom, onError, sourceFiles) => {
    const target = path.resolve(fileName);
    if (!target.startsWith(testsInEsm)) {
      host.writeFile(target, text, bom, onError, sourceFiles);
    } else if (!target.endsWith(".d.ts")) {
      const relocated = path.join(TEST_OUT_DIR, target.slice(testsInEsm.length));
      host.writeFile(relocated, text, bom, onError, sourceFiles);
    }
  };
}

/** True for a TypeScript source (as opposed to a fixture). */
function isTypeScript(file: string): boolean {
  return /\.(?:ts|tsx|mts)$/.test(file);
}

/** True for a file under `tests/`. */
function isTestSource(file: string): boolean {
  return path.resolve(file).startsWith(TESTS_DIR + path.sep);
}

/**
 * A transformer, run after TypeScript's own on both the JS and the
 * declarations, that rewrites every module specifier (import, export,
 * dynamic `import()`, `import("…")` types) with {@linkcode rewriteSpecifier}.
 */
function specifierRewriter<T extends ts.SourceFile | ts.Bundle>(plan: BuildPlan): ts.TransformerFactory<T> {
  const packageSpecifiers = new Map(
    [...plan.entries].map(([subpath, file]) => [file, selfReference(plan.config.name, subpath)]),
  );
  const imports = plan.config.imports ?? {};
  return (context) => (root) => {
    if (!ts.isSourceFile(root)) return root;
    const { factory } = context;
    const rewrite = (literal: ts.StringLiteral) =>
      factory.createStringLiteral(
        rewriteSpecifier(literal.text, root.fileName, imports, packageSpecifiers),
      );
    const visit = (node: ts.Node): ts.Node => {
      const next = ts.visitEachChild(node, visit, context);
      if (ts.isImportDeclaration(next) && ts.isStringLiteral(next.moduleSpecifier)) {
        return factory.updateImportDeclaration(
          next,
          next.modifiers,
          next.importClause,
          rewrite(next.moduleSpecifier),
          next.attributes,
        );
      }
      if (
        ts.isExportDeclaration(next) && next.moduleSpecifier &&
        ts.isStringLiteral(next.moduleSpecifier)
      ) {
        return factory.updateExportDeclaration(
          next,
          next.modifiers,
          next.isTypeOnly,
          next.exportClause,
          rewrite(next.moduleSpecifier),
          next.attributes,
        );
      }
      if (
        ts.isCallExpression(next) && next.expression.kind === ts.SyntaxKind.ImportKeyword &&
        next.arguments.length > 0 && ts.isStringLiteral(next.arguments[0])
      ) {
        const [first, ...rest] = next.arguments;
        return factory.updateCallExpression(next, next.expression, next.typeArguments, [
          rewrite(first as ts.StringLiteral),
          ...rest,
        ]);
      }
      if (
        ts.isImportTypeNode(next) && ts.isLiteralTypeNode(next.argument) &&
        ts.isStringLiteral(next.argument.literal)
      ) {
        return factory.updateImportTypeNode(
          next,
          factory.updateLiteralTypeNode(next.argument, rewrite(next.argument.literal)),
          next.attributes,
          next.qualifier,
          next.typeArguments,
          next.isTypeOf,
        );
      }
      return next;
    };
    return ts.visitEachChild(root, visit, context) as T;
  };
}

/**
 * The package's own name for one of its exports: `"."` → `@dsh/shell`,
 * `"./seam"` → `@dsh/shell/seam`.
 */
function selfReference(name: string, subpath: string): string {
  return subpath === "." ? name : `${name}/${subpath.replace(/^\.\//, "")}`;
}

/**
 * Where a specifier must point in the emitted package, seen from `fromFile`
 * (a source path):
 * - import-mapped and `npm:` specifiers become bare (`zod`);
 * - in a test, an import of an export's entry file becomes the package's
 *   self-reference (`../mod.ts` → `@dsh/shell`), so tests go through the
 *   `exports` map like a user;
 * - other relative (or import-mapped local) specifiers point at the emitted
 *   `.js` file, across from `npm/test/` to `npm/esm/` where a test imports a
 *   library internal.
 */
function rewriteSpecifier(
  specifier: string,
  fromFile: string,
  imports: Record<string, string>,
  packageSpecifiers: Map<string, string>,
): string {
  const mapped = toNodeSpecifier(specifier, imports);
  if (!isRelative(mapped) && !path.isAbsolute(mapped)) return mapped;
  const target = sourceFileOf(path.resolve(path.dirname(fromFile), mapped));
  if (isTestSource(fromFile) && packageSpecifiers.has(target)) {
    return packageSpecifiers.get(target)!;
  }
  const relative = path.relative(
    path.dirname(emittedPath(fromFile)),
    emittedPath(target),
  ).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/**
 * The source file a relative import means. After TypeScript's own rewrite a
 * specifier may already end in `.js`; an extensionless one (declaration
 * emit can produce them) means a `.ts` file or a folder's `index.ts`.
 */
function sourceFileOf(resolved: string): string {
  const candidates = [
    resolved,
    resolved.replace(/\.(m?)js$/, ".$1ts"),
    `${resolved}.ts`,
    path.join(resolved, "index.ts"),
  ];
  return candidates.find((file) => ts.sys.fileExists(file)) ?? resolved;
}

/**
 * Where the emitted JS for a source file lands: `tests/…` under `npm/test/`,
 * everything else mirrored under `npm/esm/`.
 */
function emittedPath(source: string): string {
  const js = source.replace(/\.(m|c)?tsx?$/, (_, kind) => kind ? `.${kind}js` : ".js");
  if (isTestSource(source)) return path.join(TEST_OUT_DIR, path.relative(TESTS_DIR, js));
  return path.join(ESM_DIR, path.relative(ROOT, js));
}

/**
 * Gives each bin file a node shebang (replacing a Deno one, which tsc keeps)
 * and makes it executable.
 */
async function markBinsExecutable(bins: Map<string, string>): Promise<void> {
  for (const source of bins.values()) {
    const file = emittedPath(source);
    const text = await Deno.readTextFile(file);
    const body = text.startsWith("#!") ? text.slice(text.indexOf("\n") + 1) : text;
    await Deno.writeTextFile(file, `${NODE_SHEBANG}\n${body}`);
    await Deno.chmod(file, 0o755);
  }
}

/**
 * Writes `npm/package.json` from the plan.
 */
async function writePackageJson(plan: BuildPlan): Promise<void> {
  const { bin: _bin, engines, description, ...extraFields } = plan.config.npm ?? {};
  const exports = Object.fromEntries(
    [...plan.entries].map(([subpath, source]) => [subpath, exportConditions(source)]),
  );
  const main = plan.entries.get(".");
  const packageJson = {
    name: plan.config.name,
    version: plan.config.version,
    ...(description ? { description } : {}),
    ...(plan.config.license ? { license: plan.config.license } : {}),
    type: "module",
    ...(main ? { main: packagePath(main, ".js"), types: packagePath(main, ".d.ts") } : {}),
    exports,
    ...(plan.bins.size > 0 ? { bin: binField(plan.bins) } : {}),
    engines: engines ?? DEFAULT_ENGINES,
    ...(plan.dependencies.size > 0 ? { dependencies: Object.fromEntries(plan.dependencies) } : {}),
    // Only the compiled library: npm adds package.json, README and LICENSE.
    files: ["esm/"],
    // No module does anything when imported (the CLI runs only as the main
    // module), so bundlers may drop the unused ones.
    sideEffects: false,
    // A scoped package is private on its first publish unless said otherwise.
    publishConfig: { access: "public" },
    ...extraFields,
  };
  await Deno.writeTextFile(
    path.join(OUT_DIR, "package.json"),
    JSON.stringify(packageJson, null, 2) + "\n",
  );
}

/**
 * The conditions of one export: `types` first (TypeScript takes the first
 * match), then `default`, which serves `import` and, since Node 20.19,
 * `require(esm)`.
 */
function exportConditions(source: string): { types: string; default: string } {
  return { types: packagePath(source, ".d.ts"), default: packagePath(source, ".js") };
}

/** The `bin` field: command name to `./esm/….js`. */
function binField(bins: Map<string, string>): Record<string, string> {
  return Object.fromEntries([...bins].map(([name, source]) => [name, packagePath(source, ".js")]));
}

/**
 * A package-relative path (`./esm/src/seam/mod.js`) of a source file's
 * emitted `.js` or `.d.ts`.
 */
function packagePath(source: string, extension: ".js" | ".d.ts"): string {
  const js = path.relative(OUT_DIR, emittedPath(source)).split(path.sep).join("/");
  return `./${extension === ".js" ? js : js.replace(/\.js$/, ".d.ts")}`;
}

/** Copies README.md and LICENSE into the package when they exist. */
async function copyDocs(): Promise<void> {
  for (const name of ["README.md", "LICENSE"]) {
    await Deno.copyFile(path.join(ROOT, name), path.join(OUT_DIR, name)).catch(ignoreNotFound);
  }
}

/**
 * Checks that every file package.json names was emitted, so a broken
 * `exports` or `bin` fails here rather than for a user.
 */
async function verifyPackageFiles(): Promise<void> {
  const packageJson = JSON.parse(await Deno.readTextFile(path.join(OUT_DIR, "package.json")));
  const named = new Set<string>();
  const collect = (value: unknown): void => {
    if (typeof value === "string" && value.startsWith("./")) named.add(value);
    else if (value && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect([packageJson.main, packageJson.types, packageJson.exports, packageJson.bin]);
  const missing = [...named].filter((file) => !ts.sys.fileExists(path.join(OUT_DIR, file)));
  if (missing.length > 0) {
    throw new Error(`package.json names files that were not emitted: ${missing.join(", ")}`);
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
 * Installs the package's dependencies into `npm/node_modules` so the tests
 * load them as a user's install would, and the test-only dependencies
 * beside them with `--no-save`, so that package.json (what `npm pack`
 * publishes) never names them.
 */
async function installRuntimeDependencies(
  dependencies: Map<string, string>,
  testDependencies: Map<string, string>,
): Promise<void> {
  if (dependencies.size === 0 && testDependencies.size === 0) return;
  log("installing runtime and test-only dependencies into npm/node_modules");
  const testOnly = [...testDependencies].map(([name, version]) => `${name}@${version}`);
  await runOrThrow("npm", [...NPM_QUIET_INSTALL, "--omit=dev", "--no-save", ...testOnly], OUT_DIR);
  const written = JSON.parse(await Deno.readTextFile(path.join(OUT_DIR, "package.json")));
  const leaked = Object.keys({ ...written.dependencies, ...written.devDependencies })
    .filter((name) => testDependencies.has(name));
  if (leaked.length > 0) throw new Error(`test-only dependencies got into npm/package.json: ${leaked.join(", ")}`);
}

/**
 * With `--test-only`: checks that `npm/` holds a build with compiled tests
 * that is newer than every source, so an old build is not tested by mistake.
 *
 * @throws When there is no build, a test was not compiled, or a source
 *   changed after the build.
 */
async function checkBuildIsCurrent(testRoots: string[]): Promise<void> {
  const builtAt = (await Deno.stat(path.join(OUT_DIR, "package.json")).catch(() => null))?.mtime;
  if (!builtAt) throw new Error("--test-only: npm/ holds no build; run build_npm.ts without --test-only first");
  const missing = testRoots.filter((file) => !ts.sys.fileExists(emittedPath(file)));
  if (missing.length > 0) {
    throw new Error(
      `--test-only: npm/ has no compiled ${missing.map((file) => path.relative(ROOT, file)).join(", ")}; rebuild`,
    );
  }
  // What a build reads: deno.json, this script, the root modules, src/ and tests/ (fixtures included).
  const rootModules: string[] = [];
  for await (const entry of Deno.readDir(ROOT)) {
    if (entry.isFile && isTypeScript(entry.name)) rootModules.push(path.join(ROOT, entry.name));
  }
  const sources = [
    path.join(ROOT, "deno.json"),
    fileURLToPath(import.meta.url),
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
async function runNodeTestsWithEach(testRoots: string[], nodeBinaries: string[]): Promise<number> {
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
  const testFiles = testRoots
    .filter((file) => TEST_FILE_PATTERN.test(path.basename(file)))
    .map((file) => path.relative(OUT_DIR, emittedPath(file)))
    .sort();
  if (testFiles.length === 0) {
    log("no test files in tests/: nothing to run with node");
    return { binary, version, code: 0 };
  }
  // Node 20's --test takes no globs, so the files are listed.
  log(`node ${version} (${binary}): running ${testFiles.length} test files with --test`);
  const { code } = await new Deno.Command(binary, {
    args: ["--test", ...testFiles],
    cwd: OUT_DIR,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return { binary, version, code };
}

/** All files under `dir`, recursively; none when it does not exist. */
async function listFiles(dir: string): Promise<string[]> {
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

/** Runs a command with output passed through; throws if it fails. */
async function runOrThrow(command: string, args: string[], cwd: string): Promise<void> {
  const { code } = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
}

/** Runs a command and returns its stdout; throws if it fails. */
async function outputOf(command: string, args: string[]): Promise<string> {
  const { code, stdout } = await new Deno.Command(command, {
    args,
    stdin: "null",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  return new TextDecoder().decode(stdout);
}

/** A file's text, or null when it does not exist. */
async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    ignoreNotFound(error);
    return null;
  }
}

/** Swallows "not found" (the usual state of a fresh clone); rethrows the rest. */
function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

/**
 * Diagnostics as tsc prints them, paths relative to the repository; in
 * colour only on a terminal, so CI logs stay plain text.
 */
function formatDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => "\n",
  };
  return Deno.stderr.isTerminal()
    ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
    : ts.formatDiagnostics(diagnostics, host);
}

/** Prints a progress line with the script's name. */
function log(message: string): void {
  console.log(`build_npm: ${message}`);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
