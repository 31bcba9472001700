/**
 * Step 1, plan: reads `deno.json` and works out what to build, before
 * anything is written.
 *
 * `deno.json` is the single source of the name, version, license and
 * exports; an optional `npm` field in it adds `bin`, `engines`,
 * `description` and any other package.json field.
 *
 * Dependencies are found, not declared: the published `dependencies` are the
 * `npm:` packages (import-mapped or inline) that the package's own files
 * reach from its exports and bins. An `npm:` package that only the tests
 * reach (e.g. `npm:fast-check@^4`) is a test-only dependency: it is installed
 * for the type-check and the test run, never written to package.json.
 * Finding them from the import graph means package.json cannot list a
 * package the code no longer uses, nor miss one it started to use.
 *
 * @module
 */

import * as path from "node:path";
import { log } from "./log.ts";
import { ROOT } from "./paths.ts";
import { applyImportMap, isRelative, parseNpmSpecifier, sourceFileOf } from "./specifiers.ts";
import ts from "./typescript.ts";

/** The part of `deno.json` the build reads. */
export interface DenoConfig {
  name: string;
  version: string;
  license?: string;
  exports: string | Record<string, string>;
  imports?: Record<string, string>;
  compilerOptions?: Record<string, unknown>;
  npm?: NpmConfig;
}

/** The optional `npm` field of `deno.json`: npm-only package.json fields. */
export interface NpmConfig {
  /** Command name to source file, e.g. `{ "dsh-shell": "./src/cli.ts" }`. */
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  description?: string;
  /** Any other field is copied into package.json as it is. */
  [field: string]: unknown;
}

/** Everything the compile, package and test steps need to know. */
export interface BuildPlan {
  config: DenoConfig;
  /** Export subpath (`"."`, `"./seam"`, …) to absolute source file. */
  entries: Map<string, string>;
  /** Bin command name to absolute source file. */
  bins: Map<string, string>;
  /** npm package name to version range: what the package's own files import. */
  dependencies: Map<string, string>;
  /** npm package name to version range: what only the tests import. */
  testDependencies: Map<string, string>;
}

/**
 * Reads and checks `deno.json` (plain JSON: comments are not supported).
 */
export async function readDenoConfig(): Promise<DenoConfig> {
  const file = path.join(ROOT, "deno.json");
  const config = JSON.parse(await Deno.readTextFile(file)) as DenoConfig;
  for (const field of ["name", "version", "exports"] as const) {
    if (!config[field]) throw new Error(`deno.json has no "${field}"`);
  }
  return config;
}

/**
 * Derives entry points, bins and the published dependencies from
 * `deno.json` and the sources the exports and bins reach, and the test-only
 * dependencies from the sources `testRoots` reach.
 */
export function planBuild(config: DenoConfig, testRoots: string[]): BuildPlan {
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
  // An optional peer (deno.json's npm.peerDependencies, e.g. @opentelemetry/api for `./otel`) is the user's to
  // install: never a dependency, but installed for the type-check and the tests like a test-only one.
  const peers = peerDependencies(config, dependencies);
  for (const name of peers.keys()) dependencies.delete(name);
  const testDependencies = new Map([...testOnlyDependencies(testRoots, imports, dependencies), ...peers]);
  return { config, entries, bins, dependencies, testDependencies };
}

/**
 * The peer dependencies `deno.json` declares (`npm.peerDependencies`, copied
 * into package.json as they are), each of which the package must reach with
 * the same range.
 *
 * @throws On a peer the package does not import, or imports with another range.
 */
function peerDependencies(config: DenoConfig, reached: Map<string, string>): Map<string, string> {
  const declared = config.npm?.peerDependencies;
  if (declared === undefined) return new Map();
  const peers = new Map(Object.entries(declared as Record<string, string>));
  for (const [name, range] of peers) {
    const imported = reached.get(name);
    if (imported !== range) {
      throw new Error(
        `deno.json npm.peerDependencies["${name}"] is ${range}, but the package imports ${
          imported === undefined ? "no such package" : `it as ${name}@${imported}`
        }`,
      );
    }
  }
  return peers;
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
function testOnlyDependencies(
  testRoots: string[],
  imports: Record<string, string>,
  dependencies: Map<string, string>,
): Map<string, string> {
  const reached = npmPackagesReached(testRoots, imports);
  const testOnly = new Map([...reached].filter(([name]) => !dependencies.has(name)));
  if (testOnly.size > 0) {
    log(`test-only dependencies (installed for the tests, not published): ${formatPackages(testOnly)}`);
  }
  return testOnly;
}

/** `a@^1, b@^2`: packages as npm names them, for log lines. */
function formatPackages(packages: Map<string, string>): string {
  return [...packages].map(([name, version]) => `${name}@${version}`).join(", ");
}
