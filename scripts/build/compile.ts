/**
 * Step 2, compile: type-checks the package and emits it to `npm/esm/` with
 * the TypeScript compiler, as JS and declarations.
 *
 * The check is as strict as Deno's, but against what Node 20 has: its
 * globals from `@types/node` and no newer lib, so an API Node 20 lacks
 * fails here instead of at run time for a user. Specifiers are resolved the
 * way Deno resolves them (import map, `npm:`) and rewritten in the output
 * the way Node resolves them (see `rewrite.ts`).
 *
 * The same compiler (options and host) compiles the tests afterwards (see
 * `test.ts`): its host keeps the parsed files, so the second program reuses
 * the libs and Node's types.
 *
 * @module
 */

import * as path from "node:path";
import { log } from "./log.ts";
import { ESM_DIR, ROOT, TEST_OUT_DIR, TOOLS_ANCHOR, TOOLS_DIR } from "./paths.ts";
import type { BuildPlan, DenoConfig } from "./plan.ts";
import { specifierRewriter } from "./rewrite.ts";
import { isPackageSpecifier, toNodeSpecifier } from "./specifiers.ts";
import { installBuildTypes, writeDenoNamespaceTypes } from "./toolchain.ts";
import ts from "./typescript.ts";

/** TS2877, "this import uses a '.ts' extension … but will not be rewritten
 * because it is not a relative path": raised for import-mapped local paths
 * (`"@seam/": "./src/seam/"`), which `specifierRewriter` does rewrite. */
const TS_WONT_REWRITE_NON_RELATIVE = 2877;

/** What every program of one build is compiled with. */
export interface Compiler {
  options: ts.CompilerOptions;
  /** Shared by the programs, so that parsed files are reused. */
  host: ts.CompilerHost;
  /** The `Deno` namespace declarations: a root of both programs so `Deno.*` checks. */
  denoTypes: string;
}

/**
 * Prepares the compiler: installs the build-only types (`@types/node`, the
 * dependencies, the test-only dependencies) into the cache, writes the
 * `Deno` namespace declarations, and derives the options and host.
 */
export async function createCompiler(plan: BuildPlan): Promise<Compiler> {
  await installBuildTypes(new Map([...plan.dependencies, ...plan.testDependencies]));
  const denoTypes = await writeDenoNamespaceTypes();
  const options = compilerOptions(plan.config);
  const host = createHost(options, plan.config.imports ?? {});
  return { options, host, denoTypes };
}

/**
 * Type-checks and emits the package: its exports and bins, and what they reach.
 *
 * @returns The source files it emitted, or null on a type or emit error.
 */
export function compilePackage(compiler: Compiler, plan: BuildPlan): Set<string> | null {
  const roots = [...plan.entries.values(), ...plan.bins.values(), compiler.denoTypes];
  return compileProgram("package", roots, compiler.options, compiler.host, plan, new Set());
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

/**
 * Type-checks the program rooted at `rootNames` and emits its files, except
 * those in `alreadyEmitted` (the tests' program reuses the package's output).
 * Library files go to `npm/esm/`; test files go to `npm/test/`.
 *
 * @returns The source files it emitted, or null on a type or emit error.
 */
export function compileProgram(
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

/** Drops the diagnostics the build takes care of itself. */
function withoutHandled(diagnostics: readonly ts.Diagnostic[]): ts.Diagnostic[] {
  return diagnostics.filter((diagnostic) => diagnostic.code !== TS_WONT_REWRITE_NON_RELATIVE);
}

/**
 * What a declaration file that names `Symbol.asyncDispose` gets appended:
 * the symbol's own declaration, as `@types/node` has it. Without it, the
 * published types need `@types/node` or `lib: esnext` (TS2550 under a
 * strict consumer's default lib with `"types": []`); with it, they compile
 * under any lib, and beside either of those (identical declarations merge).
 * Only here, not in the sources: JSR refuses a package that augments a
 * global type, and Deno has the symbol anyway.
 */
export const ASYNC_DISPOSE_DECLARATION: string = `
// Added by the npm build: the published types compile without @types/node or lib esnext.
declare global {
  interface SymbolConstructor {
    readonly asyncDispose: unique symbol;
  }
}
`;

/** `text`, a declaration file's, with {@linkcode ASYNC_DISPOSE_DECLARATION} when it names the symbol. */
export function withAsyncDispose(text: string): string {
  // `declare global` is allowed in a module only; every declaration file of the package is one.
  return text.includes("Symbol.asyncDispose") && /^export /m.test(text) ? text + ASYNC_DISPOSE_DECLARATION : text;
}

/**
 * A write callback that moves emitted test files from `npm/esm/tests/` to
 * `npm/test/` and drops their declaration files, and gives the package's
 * declarations what they need of `Symbol.asyncDispose`.
 */
function writeRedirected(host: ts.CompilerHost): ts.WriteFileCallback {
  const testsInEsm = path.join(ESM_DIR, "tests") + path.sep;
  return (fileName, text, bom, onError, sourceFiles) => {
    const target = path.resolve(fileName);
    if (!target.startsWith(testsInEsm)) {
      host.writeFile(target, target.endsWith(".d.ts") ? withAsyncDispose(text) : text, bom, onError, sourceFiles);
    } else if (!target.endsWith(".d.ts")) {
      const relocated = path.join(TEST_OUT_DIR, target.slice(testsInEsm.length));
      host.writeFile(relocated, text, bom, onError, sourceFiles);
    }
  };
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
