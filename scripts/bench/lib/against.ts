/**
 * `--against=<git ref>`: another build of the library, measured in the same
 * run as one more variant (`run() @ <sha>`) beside `run()`, interleaved with
 * it call by call. This is how a change is weighed against its parent: two
 * runs minutes apart on a shared machine differ by more than most changes.
 *
 * The ref is exported with `git archive` into the git-ignored
 * `.bench/against/<sha>/tree/` (no worktree is made). The Deno worker
 * imports that tree's sources; for Node, the tree's npm package is built
 * there (`scripts/build_npm.ts --no-test`) and made importable beside the
 * bench's own install, sharing its `zod`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { BENCH_DIR, OPTIONAL_PEERS_USED, PACKAGES_DIR, ROOT } from "./node_setup.ts";

/** Where the workers find the other build. */
export interface Against {
  /** The variant's suffix: the abbreviated commit. */
  label: string;
  /** Deno: the tree's `mod.ts`. */
  module: string;
  /** Deno: the tree's Deno adapter (the sandboxed scenario wraps it). */
  adapter: string;
  /** Deno: the tree's MCP server and tools (the MCP scenario; missing in trees from before them). */
  mcp: string;
  tool: string;
  /** Node: a folder whose `node_modules` holds the tree's `@dsh/shell`; undefined when Node is not run. */
  packages?: string;
}

/** Exports `ref` (and builds its npm package when `node` is true); returns where the workers find it. */
export async function prepareAgainst(ref: string, node: boolean, log: (line: string) => void): Promise<Against> {
  const sha = (await output("git", ["rev-parse", "--short=10", `${ref}^{commit}`], ROOT)).trim();
  const dir = join(BENCH_DIR, "against", sha);
  const tree = join(dir, "tree");
  if (!exists(join(tree, "mod.ts"))) {
    log(`exporting ${ref} (${sha}) into ${tree}`);
    await Deno.remove(tree, { recursive: true }).catch(() => {});
    await Deno.mkdir(tree, { recursive: true });
    const archive = join(dir, "tree.tar");
    await output("git", ["archive", "--format=tar", `--output=${archive}`, sha], ROOT);
    await output("tar", ["-xf", archive, "-C", tree], ROOT);
    await Deno.remove(archive);
  }
  const against: Against = {
    label: sha,
    module: join(tree, "mod.ts"),
    adapter: join(tree, "src", "deno_adapter.ts"),
    mcp: join(tree, "src", "mcp", "mod.ts"),
    tool: join(tree, "src", "tool", "mod.ts"),
  };
  if (!node) return against;
  if (!exists(join(tree, "npm", "esm", "mod.js"))) {
    log(`building the npm package of ${sha}`);
    // The build-only types are the same packages: copied from this tree's cache rather than downloaded again.
    const cache = join(ROOT, "node_modules", ".cache");
    if (exists(cache)) {
      await Deno.mkdir(join(tree, "node_modules"), { recursive: true });
      await output("cp", ["-r", cache, join(tree, "node_modules")], ROOT);
    }
    await output(Deno.execPath(), ["run", "-A", "scripts/build_npm.ts", "--no-test"], tree);
  }
  // <dir>/node_modules/@dsh/shell is the tree's package; its `zod` and the optional peers the scenarios use are the
  // bench install's.
  const modules = join(dir, "node_modules");
  await Deno.mkdir(join(modules, "@dsh"), { recursive: true });
  await relink(join(tree, "npm"), join(modules, "@dsh", "shell"));
  for (const name of ["zod", ...OPTIONAL_PEERS_USED]) {
    const installed = join(PACKAGES_DIR, "node_modules", name);
    if (!exists(installed)) continue;
    await Deno.mkdir(dirname(join(modules, name)), { recursive: true });
    await relink(installed, join(modules, name));
  }
  await Deno.writeTextFile(join(dir, "package.json"), '{ "private": true, "type": "module" }\n');
  return { ...against, packages: dir };
}

async function relink(target: string, link: string): Promise<void> {
  await Deno.remove(link).catch(() => {});
  await Deno.symlink(target, link);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs a command and returns its stdout; throws with its stderr if it fails. */
async function output(command: string, args: string[], cwd: string): Promise<string> {
  const { success, code, stdout, stderr } = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  const decoder = new TextDecoder();
  if (!success) throw new Error(`${command} ${args.join(" ")} exited with ${code}: ${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}
