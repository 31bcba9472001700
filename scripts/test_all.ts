/**
 * Runs the whole test suite on both runtimes: the Deno leg
 * (`deno test -A tests/`) and then the Node leg (`scripts/build_npm.ts`,
 * which builds the npm package and runs the same tests against it with
 * `node --test`). Both legs always run, so one failure does not hide the
 * other; the exit code is nonzero if either failed.
 *
 * Usage: `deno run -A scripts/test_all.ts [build_npm args…]`: extra
 * arguments (e.g. `--node <path>`) go to the Node leg.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The repository root: this script lives in `<root>/scripts/`. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** One leg of the run: a name and the deno arguments that run it. */
interface Leg {
  name: string;
  args: string[];
}

/** The outcome of one leg. */
interface LegResult {
  name: string;
  code: number;
}

/**
 * The legs, in order. Both use the deno that runs this script, so
 * `npx -y deno@2.9.6 task test` tests with that exact version even when
 * another deno (or none) is on PATH.
 */
function legs(nodeLegArgs: string[]): Leg[] {
  return [
    { name: "deno", args: ["test", "-A", "tests/"] },
    { name: "node", args: ["run", "-A", "scripts/build_npm.ts", ...nodeLegArgs] },
  ];
}

/**
 * Runs one leg with its output streamed through.
 */
async function runLeg(leg: Leg): Promise<LegResult> {
  console.log(`\n=== test_all: ${leg.name} leg: deno ${leg.args.join(" ")} ===`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: leg.args,
    cwd: ROOT,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return { name: leg.name, code };
}

/**
 * Prints one verdict line per leg. The wording avoids the "N passed,
 * N failed" shape, which log readers take for a test count.
 */
function printVerdicts(results: LegResult[]): void {
  console.log("");
  for (const { name, code } of results) {
    console.log(`test_all: ${name} leg ${code === 0 ? "ok" : `FAILED (exit code ${code})`}`);
  }
}

/**
 * Runs every leg, prints the verdicts and returns the exit code.
 */
async function main(args: string[]): Promise<number> {
  const results: LegResult[] = [];
  for (const leg of legs(args)) results.push(await runLeg(leg));
  printVerdicts(results);
  return results.every((result) => result.code === 0) ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
