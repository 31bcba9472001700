/**
 * Prepares the Node leg: builds the npm package from this tree
 * (`scripts/build_npm.ts --no-test`), packs it, and installs the packed
 * tarball together with the peers (execa, tinyexec, nano-spawn) into a
 * bench-only folder under the git-ignored `.bench/`. Nothing is added to
 * the library's dependencies; the packed package is installed as a user
 * would install it, so it resolves its own runtime dependency (zod) and
 * the bench keeps working if `npm/` is rebuilt meanwhile.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Git-ignored scratch of the bench: installs and results. */
export const BENCH_DIR = join(ROOT, ".bench");
/** Where the packed package and the peers are installed for the Node worker. */
export const PACKAGES_DIR = join(BENCH_DIR, "node");

/**
 * The peers, pinned so that two runs compare the same code. Bump them
 * deliberately (and say so in docs/benchmarks.md).
 */
export const PEERS: Readonly<Record<string, string>> = {
  execa: "9.6.1",
  tinyexec: "1.4.0",
  "nano-spawn": "2.1.0",
};

/**
 * The library's optional peers that scenarios use (a terminal's pseudo-terminal, the MCP server's SDK): installed
 * beside the package at the ranges its `package.json` names, as a user who uses those features installs them.
 */
export const OPTIONAL_PEERS_USED: readonly string[] = ["@lydell/node-pty", "@modelcontextprotocol/sdk"];

/** What the Node worker needs, and what the report names. */
export interface NodeLeg {
  /** The folder whose `node_modules` holds `@dsh/shell` and the peers. */
  packagesDir: string;
  /** Installed peer versions, by name. */
  peers: Record<string, string>;
}

/**
 * Builds (unless `build` is false), packs and installs.
 *
 * @param build False to reuse the `npm/` already there (`--skip-build`).
 * @param log Progress output.
 */
export async function prepareNodeLeg(build: boolean, log: (line: string) => void): Promise<NodeLeg> {
  if (build) {
    log("building the npm package (scripts/build_npm.ts --no-test)");
    await run(Deno.execPath(), ["run", "-A", "scripts/build_npm.ts", "--no-test"], ROOT);
  }
  const npmDir = join(ROOT, "npm");
  try {
    Deno.statSync(join(npmDir, "package.json"));
  } catch {
    throw new Error("npm/package.json is missing: run without --skip-build");
  }
  await Deno.mkdir(PACKAGES_DIR, { recursive: true });
  const packed = await capture("npm", [
    "pack",
    npmDir,
    "--pack-destination",
    PACKAGES_DIR,
    "--json",
    "--loglevel=error",
  ]);
  const tarball: string = JSON.parse(packed)[0].filename;
  const { peerDependencies = {} } = JSON.parse(await Deno.readTextFile(join(npmDir, "package.json"))) as {
    peerDependencies?: Record<string, string>;
  };
  const optional = Object.fromEntries(
    OPTIONAL_PEERS_USED.filter((name) => Object.hasOwn(peerDependencies, name)).map((
      name,
    ) => [name, peerDependencies[name]]),
  );
  const manifest = JSON.stringify(
    {
      private: true,
      type: "module",
      description: "bench-only installs of @dsh/shell (packed from npm/) and its peers; see scripts/bench/",
      dependencies: { "@dsh/shell": `file:./${tarball}`, ...optional, ...PEERS },
    },
    null,
    2,
  ) + "\n";
  const stamp = join(PACKAGES_DIR, ".installed");
  const fingerprint = manifest + await sha256(join(PACKAGES_DIR, tarball));
  const installed = join(PACKAGES_DIR, "node_modules", "@dsh", "shell");
  if (readOrNull(stamp) !== fingerprint) {
    log(`installing @dsh/shell and ${Object.keys(PEERS).join(", ")} into ${PACKAGES_DIR}`);
    await Deno.writeTextFile(join(PACKAGES_DIR, "package.json"), manifest);
    // npm keeps an installed tarball dependency of the same version ("up to date") even when the
    // tarball changed: remove it so the package under test is always the one just built.
    await Deno.remove(installed, { recursive: true }).catch(() => {});
    await run("npm", ["install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"], PACKAGES_DIR);
    await Deno.writeTextFile(stamp, fingerprint);
  }
  await checkInstalledMatchesBuild(npmDir, installed);
  const peers: Record<string, string> = {};
  for (const name of Object.keys(PEERS)) {
    const json = JSON.parse(await Deno.readTextFile(join(PACKAGES_DIR, "node_modules", name, "package.json")));
    peers[name] = json.version;
  }
  return { packagesDir: PACKAGES_DIR, peers };
}

/**
 * Refuses to bench a stale install: every compiled file of the installed
 * package must be the one in `npm/`.
 */
async function checkInstalledMatchesBuild(npmDir: string, installed: string): Promise<void> {
  const esm = join(npmDir, "esm");
  for (const file of await listFiles(esm)) {
    const relative = file.slice(npmDir.length + 1);
    const [built, there] = await Promise.all([
      sha256(file),
      sha256(join(installed, relative)).catch(() => "missing"),
    ]);
    if (built !== there) {
      throw new Error(`${installed} does not match npm/ (${relative} differs): delete ${PACKAGES_DIR} and rerun`);
    }
  }
}

/** Every file under `dir`, recursively. */
async function listFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await listFiles(path));
    else if (entry.isFile) files.push(path);
  }
  return files;
}

async function sha256(file: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(file));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function readOrNull(file: string): string | null {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return null;
  }
}

/** Runs a command with its output on our stderr (stdout is for the tables); throws if it fails. */
async function run(command: string, args: string[], cwd: string): Promise<void> {
  const child = new Deno.Command(command, { args, cwd, stdin: "null", stdout: "piped", stderr: "inherit" }).spawn();
  const relay = child.stdout.pipeTo(Deno.stderr.writable, { preventClose: true });
  const [status] = await Promise.all([child.status, relay]);
  if (!status.success) throw new Error(`${command} ${args.join(" ")} exited with ${status.code}`);
}

/** Runs a command and returns its stdout; throws if it fails. */
async function capture(command: string, args: string[]): Promise<string> {
  const { success, code, stdout, stderr } = await new Deno.Command(command, { args, stdin: "null" }).output();
  const decoder = new TextDecoder();
  if (!success) throw new Error(`${command} ${args.join(" ")} exited with ${code}: ${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}
