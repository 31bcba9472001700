/**
 * Checks the npm package as it would be published: builds it
 * (`build_npm.ts --no-test`), packs `npm/` with `npm pack`, and runs on that
 * one tarball:
 * - its contents: only `esm/`, `docs/`, package.json, README and LICENSE; the
 *   `dependencies` are exactly the packages that `esm/` imports (so a
 *   test-only dependency can never be published);
 * - `publint --strict`;
 * - `attw --profile esm-only` (are-the-types-wrong);
 * - a strict consumer: a fresh TypeScript project (`strict`, `"types": []`,
 *   `skipLibCheck: false`, the default lib) that imports every entry
 *   compiles against the installed tarball, with TypeScript 5.9 and 7.0;
 * - the bin: the tarball installed into a fresh project, `npx --no --
 *   dsh-shell --help` exits 0 with the CLI's help and `npx --no -- dsh-shell
 *   run -- 'echo ok'` prints `ok`, and `dsh-shell mcp`, without the MCP SDK (an
 *   optional peer), says in one line to install it and exits 125, with each
 *   Node binary, whose version must satisfy `engines.node`.
 *
 * The checkers come from npm, pinned, installed into
 * `node_modules/.cache/dsh-check/` (git-ignored), never as dependencies.
 *
 * Usage: `deno run -A scripts/check_npm.ts [--no-build] [--node-matrix]`
 * - `--no-build`: check the package already in `npm/`;
 * - `--node-matrix`: check the bin with Node 20, 22 and 24 (see
 *   `test_all.ts`) rather than with the `node` on PATH.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- a build tool, as in scripts/build/typescript.ts, not a dependency of the library
import ts from "npm:typescript@6.0.3";
import { builtinModules } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { matrixNodes } from "./test_all.ts";

/** The repository root: this script lives in `<root>/scripts/`. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The package folder that `build_npm.ts` writes. */
const PACKAGE_DIR = path.join(ROOT, "npm");
/** The checkers' own install, outside the package and git-ignored. */
const TOOLS_DIR = path.join(ROOT, "node_modules", ".cache", "dsh-check");
/** The checkers, pinned so that a new rule shows up as a deliberate bump. */
const TOOLS: Record<string, string> = {
  "publint": "0.3.25",
  "@arethetypeswrong/cli": "0.18.5",
  "semver": "7.7.3",
  // The strict consumer's compilers: the last 5.x and the native 7.x.
  "typescript": "5.9.3",
  "typescript7": "npm:typescript@7.0.2",
};
/** Files a packed package may hold outside its `files` list. */
const ALWAYS_PACKED = new Set(["package.json", "README.md", "LICENSE"]);

/** `npm install` without lockfile, audit or funding noise. */
const NPM_QUIET_INSTALL = ["install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"];

/** The part of package.json the checks read. */
interface PackageJson {
  name: string;
  version: string;
  bin?: Record<string, string>;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** What `npm pack --json` says about one tarball. */
interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** A Node binary to check the bin with. */
interface NodeBinary {
  binary: string;
  version: string;
}

/** The outcome of one check. */
interface CheckResult {
  name: string;
  ok: boolean;
}

/**
 * Runs the build and every check, each one even after a failure.
 *
 * @returns The process exit code.
 */
async function main(argv: string[]): Promise<number> {
  const build = !argv.includes("--no-build");
  const matrix = argv.includes("--node-matrix");
  const unknown = argv.filter((arg) => arg !== "--no-build" && arg !== "--node-matrix");
  if (unknown.length > 0) {
    console.error(`check_npm: unknown argument ${unknown[0]}; usage: check_npm.ts [--no-build] [--node-matrix]`);
    return 2;
  }
  if (build && await runDeno(["run", "-A", "scripts/build_npm.ts", "--no-test"]) !== 0) return 1;
  const packageJson = JSON.parse(await Deno.readTextFile(path.join(PACKAGE_DIR, "package.json"))) as PackageJson;
  const nodes = matrix ? await matrixBinaries() : [await pathNode()];
  await installTools();

  const work = await Deno.makeTempDir({ prefix: "dsh-check-npm-" });
  try {
    const packed = await pack(work);
    const tarball = path.join(work, packed.filename);
    const results: CheckResult[] = [];
    const check = async (name: string, run: () => Promise<boolean>) => {
      header(name);
      results.push({ name, ok: await run() });
    };
    await check("tarball contents and dependencies", () => checkContents(packed, packageJson));
    await check("README links and package metadata for the npm page", () => checkPage(packageJson, packed));
    await check("publint --strict", async () => await runTool("publint", ["--strict", tarball]) === 0);
    await check(
      "attw --profile esm-only",
      async () => await runTool("attw", [tarball, "--profile", "esm-only", "--format", "ascii"]) === 0,
    );
    await check(
      `a strict consumer ("types": [], skipLibCheck: false) compiles, TypeScript ${
        STRICT_COMPILERS.map((compiler) => compiler.version).join(", ")
      }`,
      () => checkStrictConsumer(tarball, packageJson, work),
    );
    for (const node of nodes) {
      await check(`engines.node allows node ${node.version}`, () => checkEngines(packageJson, node));
    }
    await check(
      `bin via npx, node ${nodes.map((node) => node.version).join(", ")}`,
      () => checkBin(tarball, packageJson, nodes, work),
    );

    console.log("");
    for (const { name, ok } of results) console.log(`check_npm: ${name}: ${ok ? "ok" : "FAILED"}`);
    return results.every((result) => result.ok) ? 0 : 1;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** The Node binaries of the matrix; throws when a line is missing. */
async function matrixBinaries(): Promise<NodeBinary[]> {
  const nodes = await matrixNodes();
  const missing = nodes.filter((node) => node.binary === null).map((node) => node.major);
  if (missing.length > 0) throw new Error(`no Node ${missing.join(", ")} binary (see above)`);
  return nodes.map(({ binary, version }) => ({ binary: binary!, version }));
}

/** The `node` on PATH. */
async function pathNode(): Promise<NodeBinary> {
  const [binary, version] = JSON.parse(
    await outputOf("node", ["-p", "JSON.stringify([process.execPath, process.version])"]),
  );
  return { binary, version };
}

/**
 * Installs the checkers into `TOOLS_DIR`, unless the same pins are there.
 */
async function installTools(): Promise<void> {
  const manifest = JSON.stringify({ private: true, dependencies: TOOLS }, null, 2) + "\n";
  const stamp = path.join(TOOLS_DIR, ".installed.json");
  if (await Deno.readTextFile(stamp).catch(() => null) === manifest) return;
  console.log(`check_npm: installing ${Object.keys(TOOLS).join(", ")} into ${path.relative(ROOT, TOOLS_DIR)}/`);
  await Deno.mkdir(TOOLS_DIR, { recursive: true });
  await Deno.writeTextFile(path.join(TOOLS_DIR, "package.json"), manifest);
  if (await run("npm", NPM_QUIET_INSTALL, TOOLS_DIR) !== 0) throw new Error("installing the checkers failed");
  await Deno.writeTextFile(stamp, manifest);
}

/**
 * Packs `npm/` into `dest` and prints the tarball's name, size and file count.
 */
async function pack(dest: string): Promise<PackResult> {
  header("npm pack npm/");
  const json = await outputOf("npm", ["pack", "--json", "--loglevel=error", "--pack-destination", dest], PACKAGE_DIR);
  const [packed] = JSON.parse(json) as PackResult[];
  console.log(
    `${packed.filename}: ${packed.files.length} files, ${kib(packed.size)} packed, ${
      kib(packed.unpackedSize)
    } unpacked`,
  );
  return packed;
}

/**
 * Checks that the tarball holds only the compiled library (no compiled
 * tests, no node_modules) and that `dependencies` and the optional
 * `peerDependencies` name exactly the packages its files import: none
 * missing, none extra (a test-only one). A peer must be optional: only an
 * entry of its own imports it (`@opentelemetry/api`, for `./otel`).
 */
async function checkContents(packed: PackResult, packageJson: PackageJson): Promise<boolean> {
  let ok = true;
  const strays = packed.files.map((file) => file.path).filter((file) =>
    !file.startsWith("esm/") && !file.startsWith("docs/") && !ALWAYS_PACKED.has(file)
  );
  if (strays.length > 0) {
    console.log(`files outside esm/: ${strays.join(", ")}`);
    ok = false;
  }
  const imported = new Set<string>();
  for (const { path: file } of packed.files) {
    if (!/\.(?:m?js|d\.m?ts)$/.test(file)) continue;
    const text = await Deno.readTextFile(path.join(PACKAGE_DIR, file));
    for (const specifier of moduleSpecifiers(text)) {
      const name = packageName(specifier);
      if (name !== null && name !== packageJson.name) imported.add(name);
    }
  }
  const peers = Object.keys(packageJson.peerDependencies ?? {});
  const required = peers.filter((name) => packageJson.peerDependenciesMeta?.[name]?.optional !== true);
  if (required.length > 0) console.log(`peer dependencies not marked optional: ${required.join(", ")}`);
  ok &&= required.length === 0;
  const declared = new Set([...Object.keys(packageJson.dependencies ?? {}), ...peers]);
  const missing = [...imported].filter((name) => !declared.has(name));
  const extra = [...declared].filter((name) => !imported.has(name));
  if (missing.length > 0) console.log(`imported but not in dependencies or peers: ${missing.join(", ")}`);
  if (extra.length > 0) console.log(`in dependencies but imported by no packed file: ${extra.join(", ")}`);
  console.log(
    `dependencies: ${JSON.stringify(packageJson.dependencies ?? {})}; optional peers: ${peers.join(", ") || "none"}; ` +
      `imported: ${[...imported].join(", ")}`,
  );
  return ok && missing.length === 0 && extra.length === 0;
}

/**
 * The npm page shows the README and package.json: its relative links would
 * be dead there (npm resolves them against a repository), and a user looks
 * for a homepage. Inside the tarball, every relative link of the shipped
 * `docs/` must name a file that is packed.
 */
async function checkPage(packageJson: PackageJson, packed: PackResult): Promise<boolean> {
  const files = new Set(packed.files.map((file) => file.path));
  const dead: string[] = [];
  let docLinks = 0;
  for (const file of files) {
    if (!file.startsWith("docs/") || !file.endsWith(".md")) continue;
    const text = await Deno.readTextFile(path.join(PACKAGE_DIR, file));
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target)) continue;
      docLinks++;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target.replace(/#.*$/, "")));
      if (!files.has(resolved)) dead.push(`${file}: ${target}`);
    }
  }
  if (dead.length > 0) console.log(`links in the packed docs to files not packed: ${dead.join(", ")}`);
  console.log(`packed docs: ${docLinks} relative links, all to packed files: ${dead.length === 0}`);
  const readme = await Deno.readTextFile(path.join(PACKAGE_DIR, "README.md"));
  const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1])
    .filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target));
  if (relative.length > 0) console.log(`relative links in the packed README: ${relative.join(", ")}`);
  const homepage = (packageJson as { homepage?: unknown }).homepage;
  if (typeof homepage !== "string" || !homepage.startsWith("https://")) {
    console.log("package.json has no https homepage");
  }
  console.log(`homepage: ${String(homepage)}; README links checked: ${[...readme.matchAll(/\]\(/g)].length}`);
  return dead.length === 0 && relative.length === 0 && typeof homepage === "string" && homepage.startsWith("https://");
}

/** The module specifiers of emitted JS or declarations (static, dynamic, `import()` types; not comments). */
function moduleSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The npm package a bare specifier names; null for relative and builtin ones. */
function packageName(specifier: string): string | null {
  if (/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) return null;
  const name = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
  return builtinModules.includes(name) ? null : name;
}

/** The strict consumer's compilers: the package in `TOOLS` whose `tsc` runs, and its version. */
const STRICT_COMPILERS = ["typescript", "typescript7"].map((name) => ({
  name,
  version: TOOLS[name].replace(/^npm:typescript@/, ""),
}));

/**
 * Installs the tarball (and the optional peer, for `./otel`) into a fresh
 * project whose tsconfig is as strict as a consumer's can be — `strict`,
 * `"types": []` (no `@types/node`), `skipLibCheck: false`, no `lib` (the
 * default one) — and type-checks a file that imports every entry, with
 * each compiler and each module setting (node16, nodenext, bundler). Issue 24: the declarations needed `@types/node` or
 * `lib: esnext` for `Symbol.asyncDispose` (TS2550).
 */
async function checkStrictConsumer(tarball: string, packageJson: PackageJson, work: string): Promise<boolean> {
  const project = path.join(work, "strict-consumer");
  await Deno.mkdir(project);
  await Deno.writeTextFile(path.join(project, "package.json"), '{ "private": true, "type": "module" }\n');
  const peers = Object.entries(packageJson.peerDependencies ?? {}).map(([name, range]) => `${name}@${range}`);
  if (await run("npm", [...NPM_QUIET_INSTALL, tarball, ...peers], project) !== 0) {
    console.log(`npm install ${path.basename(tarball)} ${peers.join(" ")} failed`);
    return false;
  }
  // The module settings a consumer has: Node's two (node16 implies target es2022, nodenext esnext, in TypeScript 5.9)
  // and a bundler's with its target said (TypeScript 5.9's default target is ES5, which no ES module package serves).
  const settings: Record<string, Record<string, string>> = {
    node16: { module: "node16", moduleResolution: "node16" },
    nodenext: { module: "nodenext", moduleResolution: "nodenext" },
    bundler: { module: "esnext", moduleResolution: "bundler", target: "es2022" },
  };
  for (const [name, modules] of Object.entries(settings)) {
    const tsconfig = {
      compilerOptions: { strict: true, types: [], skipLibCheck: false, noEmit: true, ...modules },
      files: ["consumer.ts"],
    };
    await Deno.writeTextFile(path.join(project, `tsconfig.${name}.json`), JSON.stringify(tsconfig, null, 2) + "\n");
  }
  const exports = Object.keys(JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json"))).exports as object);
  const imports = exports.map((subpath, i) =>
    `import * as entry${i} from "${packageJson.name}${subpath === "." ? "" : subpath.slice(1)}";`
  );
  const consumer = [
    ...imports,
    `export const entries: object[] = [${exports.map((_, i) => `entry${i}`).join(", ")}];`,
    // The one member that needed more than the default lib, used as a consumer would.
    `export async function closeIt(shell: entry0.Shell): Promise<void> {`,
    `  await shell[Symbol.asyncDispose]();`,
    `}`,
    "",
  ].join("\n");
  await Deno.writeTextFile(path.join(project, "consumer.ts"), consumer);
  let ok = true;
  for (const { name, version } of STRICT_COMPILERS) {
    const tsc = path.join(TOOLS_DIR, "node_modules", name, "bin", "tsc");
    for (const config of Object.keys(settings)) {
      const result = await capture("node", [tsc, "-p", `tsconfig.${config}.json`], project, {});
      console.log(`TypeScript ${version}, ${config} (strict, "types": [], skipLibCheck: false): exit ${result.code}`);
      if (result.code !== 0) console.log((result.stdout + result.stderr).trimEnd());
      ok &&= result.code === 0;
    }
  }
  return ok;
}

/** Checks that `engines.node` exists and allows the version of `node`. */
async function checkEngines(packageJson: PackageJson, node: NodeBinary): Promise<boolean> {
  const range = packageJson.engines?.node;
  if (!range) {
    console.log("package.json has no engines.node");
    return false;
  }
  const ok = await runTool("semver", ["--range", range, node.version.replace(/^v/, "")], true) === 0;
  console.log(`engines.node ${JSON.stringify(range)} ${ok ? "allows" : "does NOT allow"} ${node.version}`);
  return ok;
}

/**
 * Installs the tarball into a fresh project (its dependencies from the
 * registry, as a user gets them) and runs each bin there with `npx --no`
 * (which never installs a same-named package from the registry), under each
 * Node binary: `--help` must exit 0 with the CLI's help, and
 * `run -- 'echo ok'` must print `ok`.
 */
async function checkBin(
  tarball: string,
  packageJson: PackageJson,
  nodes: NodeBinary[],
  work: string,
): Promise<boolean> {
  const bins = Object.keys(packageJson.bin ?? {});
  if (bins.length === 0) {
    console.log("package.json has no bin");
    return false;
  }
  const project = path.join(work, "project");
  await Deno.mkdir(project);
  await Deno.writeTextFile(path.join(project, "package.json"), '{ "private": true }\n');
  if (await run("npm", [...NPM_QUIET_INSTALL, tarball], project) !== 0) {
    console.log(`npm install ${path.basename(tarball)} failed`);
    return false;
  }
  let ok = true;
  for (const node of nodes) {
    // npx and the bin's `#!/usr/bin/env node` both take the first node on PATH.
    const env = { PATH: `${path.dirname(node.binary)}${path.delimiter}${Deno.env.get("PATH") ?? ""}` };
    for (const bin of bins) {
      // `--` ends npx's own options: without it, npx takes `--help` for itself.
      const help = await capture("npx", ["--no", "--", bin, "--help"], project, env);
      const helpOk = help.code === 0 && help.stdout.includes(bin);
      const echo = await capture("npx", ["--no", "--", bin, "run", "--", "echo ok"], project, env);
      const echoOk = echo.code === 0 && echo.stdout === "ok\n";
      // Installed without its optional peers: the MCP server says in one line which package it needs.
      const mcp = await capture("npx", ["--no", "--", bin, "mcp", "--no-sandbox"], project, env);
      const mcpOk = mcp.code === 125 && mcp.stderr.trim().split("\n").length === 1 &&
        mcp.stderr.includes("npm install @modelcontextprotocol/sdk");
      console.log(`node ${node.version}: npx --no -- ${bin} mcp (no SDK): exit ${mcp.code}, ${mcp.stderr.trim()}`);
      console.log(`node ${node.version}: npx --no -- ${bin} --help: exit ${help.code}, ${help.stdout.split("\n")[0]}`);
      console.log(
        `node ${node.version}: npx --no -- ${bin} run -- 'echo ok': exit ${echo.code}, ${JSON.stringify(echo.stdout)}`,
      );
      for (const failed of [helpOk ? null : help, echoOk ? null : echo]) {
        if (failed?.stderr) console.log(failed.stderr.trimEnd());
      }
      ok &&= helpOk && echoOk && mcpOk;
    }
  }
  return ok;
}

/**
 * Runs a checker from `TOOLS_DIR` with output passed through (or dropped),
 * without colours (they colour under `CI=true` too), so CI logs stay plain.
 */
async function runTool(bin: string, args: string[], quiet = false): Promise<number> {
  return await run(path.join(TOOLS_DIR, "node_modules", ".bin", bin), args, ROOT, quiet, { NO_COLOR: "1" });
}

/** Runs deno (the one running this script) in the repository. */
async function runDeno(args: string[]): Promise<number> {
  return await run(Deno.execPath(), args, ROOT);
}

/** Runs a command with output passed through (or dropped); returns its exit code. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  quiet = false,
  env: Record<string, string> = {},
): Promise<number> {
  const output = quiet ? "null" : "inherit";
  const { code } = await new Deno.Command(command, { args, cwd, env, stdin: "null", stdout: output, stderr: output })
    .output();
  return code;
}

/** Runs a command and returns its exit code, stdout and stderr. */
async function capture(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(command, { args, cwd, env, stdin: "null" }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Runs a command and returns its stdout; throws if it fails. */
async function outputOf(command: string, args: string[], cwd = ROOT): Promise<string> {
  const { code, stdout } = await new Deno.Command(command, { args, cwd, stdin: "null", stderr: "inherit" }).output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  return new TextDecoder().decode(stdout);
}

/** `12.3 KiB`. */
function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Prints a header so each check is easy to find in the log. */
function header(name: string): void {
  console.log(`\n--- check_npm: ${name} ---`);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
