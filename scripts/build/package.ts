/**
 * Step 3, package: turns the compiled `npm/esm/` into an npm package. Writes
 * `npm/package.json` from the plan, gives the bins a node shebang, copies
 * README.md and LICENSE, checks that every file package.json names exists,
 * and (before the tests) installs the dependencies into `npm/node_modules`.
 *
 * The package.json is derived, never edited by hand, so it cannot drift
 * from `deno.json` or from what the code imports; the check after writing
 * it makes a broken `exports` or `bin` fail the build rather than a user's
 * install.
 *
 * @module
 */

import { cpSync, existsSync } from "node:fs";
import * as path from "node:path";
import { npmInstall } from "./commands.ts";
import { ignoreNotFound } from "./files.ts";
import { log } from "./log.ts";
import { emittedPath, OUT_DIR, ROOT } from "./paths.ts";
import type { BuildPlan } from "./plan.ts";
import ts from "./typescript.ts";

/** The default `engines` field: 20.19 is the first Node 20 with
 * `require(esm)` unflagged, so CommonJS callers can load the package too. */
const DEFAULT_ENGINES = { node: ">=20.19" };
/** The shebang a bin file needs to run under npm. */
const NODE_SHEBANG = "#!/usr/bin/env node";

/**
 * Completes the compiled package in `npm/`: bins, package.json, README and
 * LICENSE, then checks it.
 *
 * @throws When package.json names a file that was not emitted.
 */
export async function writePackage(plan: BuildPlan): Promise<void> {
  await markBinsExecutable(plan.bins);
  await writePackageJson(plan);
  await copyDocs(plan);
  await verifyPackageFiles();
  log("package written to npm/");
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
    // The compiled library and its docs (which the README, the declarations' comments and each other name): npm adds
    // package.json, README and LICENSE.
    files: ["esm/", "docs/"],
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

/**
 * Copies README.md, LICENSE and `docs/` into the package when they exist.
 * The README's links into the repository (`docs/…`, `LICENSE`) would be
 * dead on the npm page, which resolves relative links against a repository
 * the package may not name: they are pointed at the same files in the JSR
 * package of the same version, which publishes `docs/`. The docs are
 * shipped too, so that a reader of `node_modules/@dsh/shell/` (or of a
 * declaration's "see docs/hooks.md") finds them, and their links to each
 * other work there (`check_npm.ts` checks every one).
 */
async function copyDocs(plan: BuildPlan): Promise<void> {
  const readme = await Deno.readTextFile(path.join(ROOT, "README.md")).catch(() => undefined);
  if (readme !== undefined) {
    const base = `https://jsr.io/${plan.config.name}/${plan.config.version}/`;
    await Deno.writeTextFile(path.join(OUT_DIR, "README.md"), absoluteLinks(readme, base));
  }
  await Deno.copyFile(path.join(ROOT, "LICENSE"), path.join(OUT_DIR, "LICENSE")).catch(ignoreNotFound);
  if (existsSync(path.join(ROOT, "docs"))) {
    cpSync(path.join(ROOT, "docs"), path.join(OUT_DIR, "docs"), { recursive: true });
  }
}

/** `](docs/x.md)` and `](LICENSE)` become `](<base>docs/x.md)`; absolute links and anchors stay. */
export function absoluteLinks(markdown: string, base: string): string {
  return markdown.replace(
    /\]\((?![a-z][a-z0-9+.-]*:|#|\/)([^)\s]+)\)/gi,
    (_whole, target: string) => `](${base}${target})`,
  );
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
 * Installs the package's dependencies into `npm/node_modules` so the tests
 * load them as a user's install would, and the test-only dependencies
 * beside them with `--no-save`, so that package.json (what `npm pack`
 * publishes) never names them.
 *
 * @throws When npm fails, or a test-only dependency got into package.json.
 */
export async function installDependencies(plan: BuildPlan): Promise<void> {
  const { dependencies, testDependencies } = plan;
  if (dependencies.size === 0 && testDependencies.size === 0) return;
  log("installing runtime and test-only dependencies into npm/node_modules");
  const testOnly = [...testDependencies].map(([name, version]) => `${name}@${version}`);
  await npmInstall(["--omit=dev", "--no-save", ...testOnly], OUT_DIR);
  const written = JSON.parse(await Deno.readTextFile(path.join(OUT_DIR, "package.json")));
  // An optional peer is installed here too (--no-save) and is named, as a peer only, by package.json.
  const leaked = Object.keys({ ...written.dependencies, ...written.devDependencies })
    .filter((name) => testDependencies.has(name));
  if (leaked.length > 0) throw new Error(`test-only dependencies got into npm/package.json: ${leaked.join(", ")}`);
}
