/**
 * `deno task bench`: the benchmark suite of `@dsh/shell`, against a raw
 * spawn in each runtime and, on Node, against execa, tinyexec and
 * nano-spawn — all measured side by side in the same run.
 *
 * What it does:
 *
 * 1. Node leg setup (`lib/node_setup.ts`): builds the npm package with
 *    `scripts/build_npm.ts --no-test`, packs it and installs it, with the
 *    pinned peers, into the git-ignored `.bench/node/` (never a dependency
 *    of the library).
 * 2. For each scenario (`lib/config.ts` has the sizes) and each runtime,
 *    starts a fresh worker process (`workers/node.mjs`, `workers/deno.ts`)
 *    that runs the variants interleaved and prints raw samples; the 1 GiB
 *    scenario starts one worker per variant and round so that no run
 *    inherits another's heap.
 * 3. Prints one markdown table per scenario and runtime as it completes
 *    (`lib/report.ts`), then the targets table, and writes the whole report
 *    to `.bench/results.md` (raw samples in `.bench/results.json`);
 *    `--quick` and partial runs write `results-quick.*` / `results-partial.*`
 *    instead, so they never replace the numbers of a full run.
 *
 * Progress goes to stderr, the report to stdout.
 *
 * Usage: `deno task bench [--quick] [--skip-build]
 * [--only=latency,concurrent,big-output,stdin,kill,sandboxed,terminal,mcp]
 * [--runtime=node|deno] [--node=<path>] [--against=<git ref>]`
 *
 * @module
 */

import { join } from "node:path";
import { type Against, prepareAgainst } from "./lib/against.ts";
import { type BenchConfig, FULL, QUICK, type Scenario, SCENARIOS } from "./lib/config.ts";
import { type Engines, enginesUnavailable, startEngines } from "./lib/engines.ts";
import { describeMachine, loadAverageNow } from "./lib/machine.ts";
import { BENCH_DIR, type NodeLeg, prepareNodeLeg } from "./lib/node_setup.ts";
import {
  type BigOutputSample,
  bigOutputTable,
  concurrentTable,
  enginesTable,
  footer,
  header,
  issueTable,
  killTable,
  latencyTable,
  type LegResults,
  mcpTable,
  sandboxedTable,
  stdinTable,
  targets,
  targetsTable,
  terminalTable,
} from "./lib/report.ts";
import { duration } from "./lib/stats.ts";
import { type Runtime, runWorker } from "./lib/workers.ts";

/** The command-line options. */
interface Args {
  quick: boolean;
  build: boolean;
  only: ReadonlySet<Scenario>;
  runtimes: Runtime[];
  node: string;
  /** A git ref whose build runs beside `run()` as `run() @ <sha>`. */
  against?: string;
}

/** The raw baseline of each runtime, and the peers (Node only). */
const LEG_SHAPE: Record<Runtime, { rawName: string; peers: string[] }> = {
  node: { rawName: "raw spawn", peers: ["execa", "tinyexec", "nano-spawn"] },
  deno: { rawName: "raw Deno.Command", peers: [] },
};

/**
 * The contestants of the 1 GiB scenario. tinyexec and nano-spawn are left
 * out: both collect the whole output into one string, which cannot hold
 * 1 GiB (V8 strings stop at 2^29 − 24 characters).
 */
const BIG_OUTPUT_VARIANTS: Record<Runtime, string[]> = {
  node: ["run()", "run() spill all", "raw spawn", "execa"],
  deno: ["run()", "run() spill all", "raw Deno.Command", "raw for-await"],
};

/** Progress, on stderr. */
function log(line: string): void {
  console.error(`bench: ${line}`);
}

const USAGE = `usage: deno task bench [--quick] [--skip-build] [--only=${
  SCENARIOS.join(",")
}] [--runtime=node|deno] [--node=<path>] [--against=<git ref>]`;

/** A mistake on the command line: one line on stderr and exit code 2, never a stack trace. */
class UsageError extends Error {
  /** @param message What is wrong, with the usage line. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The arguments, or undefined for `--help` / `-h` (the usage is printed). */
function parseArgs(argv: string[]): Args | undefined {
  const args: Args = { quick: false, build: true, only: new Set(SCENARIOS), runtimes: ["node", "deno"], node: "node" };
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      return undefined;
    }
    const [flag, value] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg];
    if (flag === "--quick") args.quick = true;
    else if (flag === "--skip-build") args.build = false;
    else if (flag === "--node" && value) args.node = value;
    else if (flag === "--against" && value) args.against = value;
    else if (flag === "--runtime" && (value === "node" || value === "deno")) args.runtimes = [value];
    else if (flag === "--only" && value) {
      const names = value.split(",");
      const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
      if (unknown.length > 0) {
        throw new UsageError(`unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.join(", ")}`);
      }
      args.only = new Set(names as Scenario[]);
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}; ${USAGE}`);
    }
  }
  return args;
}

/** Where the workers may write: the spill directory, the raw loops' scratch file, the sandboxed workdir. */
interface Scratch {
  spillDir: string;
  scratchFile: (runtime: Runtime) => string;
  /** A project with a `.git` (hooks and config), as a harness's workdir is: the sandbox protects both. */
  sandboxWorkdir: string;
}

/** The engines, started at the first leg that needs them and stopped after the last (see `lib/engines.ts`). */
let engines: Promise<Engines> | undefined;

/**
 * Measures one scenario on one runtime and stores the samples in `leg`.
 */
async function measure(
  scenario: Scenario,
  leg: LegResults,
  config: BenchConfig,
  scratch: Scratch,
  args: Args,
  nodeLeg: NodeLeg | undefined,
  against: Against | undefined,
): Promise<void> {
  const base = {
    packages: nodeLeg?.packagesDir,
    spillDir: scratch.spillDir,
    sandboxWorkdir: scratch.sandboxWorkdir,
    against,
  };
  const ask = async (payload: object) => {
    const answer = await runWorker(leg.runtime, { ...base, ...payload }, args.node);
    leg.version = answer.version;
    return answer.results;
  };
  // Each worker gets its scenario's settings with this runtime's budget.
  const budgeted = <T extends { budgetMs: Record<Runtime, number> }>(settings: T) => ({
    ...settings,
    budgetMs: settings.budgetMs[leg.runtime],
  });
  switch (scenario) {
    case "latency":
      leg.latency = await ask({ scenario, latency: budgeted(config.latency) });
      return;
    case "concurrent":
      leg.concurrent = await ask({ scenario, concurrent: budgeted(config.concurrent) });
      return;
    case "stdin":
      leg.stdin = await ask({ scenario, stdin: budgeted(config.stdin) });
      return;
    case "kill":
      leg.kill = await ask({ scenario, kill: budgeted(config.kill) });
      return;
    case "sandboxed":
      try {
        leg.sandboxed = await ask({ scenario, sandboxed: budgeted(config.sandboxed) });
      } catch (error) {
        // No bubblewrap, or user namespaces off: the other scenarios still count.
        leg.sandboxedSkipped = error instanceof Error ? error.message.split("\n")[0] : String(error);
      }
      return;
    case "terminal":
      leg.terminal = await ask({ scenario, terminal: budgeted(config.terminal) });
      return;
    case "mcp":
      leg.mcp = await ask({ scenario, mcp: budgeted(config.mcp) });
      return;
    case "engines": {
      const missing = enginesUnavailable();
      if (missing) {
        leg.enginesSkipped = missing;
        return;
      }
      engines ??= startEngines();
      const { targets } = await engines;
      leg.engines = await ask({ scenario, engines: budgeted(config.engines), engineTargets: targets });
      return;
    }
    case "big-output": {
      const variants = [
        ...BIG_OUTPUT_VARIANTS[leg.runtime],
        ...(against === undefined ? [] : [`run() @ ${against.label}`]),
      ];
      const samples: Record<string, BigOutputSample[]> = Object.fromEntries(variants.map((v) => [v, []]));
      const bigOutput = { ...config.bigOutput, scratchFile: scratch.scratchFile(leg.runtime) };
      const started = performance.now();
      const roundMs: number[] = [];
      for (let round = 0; round < config.bigOutput.rounds; round++) {
        // Another round only if it fits the budget (judged by the slowest round so far).
        const budget = config.bigOutput.budgetMs[leg.runtime];
        if (round > 0 && performance.now() - started + Math.max(...roundMs) > budget) break;
        const roundStarted = performance.now();
        // Rotate the order so that no variant always runs right after the same one (page cache, writeback).
        const order = [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)];
        for (const variant of order) {
          const results = await ask({ scenario, variant, bigOutput });
          samples[variant].push(results[variant] as BigOutputSample);
        }
        roundMs.push(performance.now() - roundStarted);
      }
      leg.bigOutput = samples;
      return;
    }
  }
}

/** The table of one scenario for one leg. */
function render(scenario: Scenario, leg: LegResults, config: BenchConfig): string {
  switch (scenario) {
    case "latency":
      return latencyTable(leg, config);
    case "concurrent":
      return concurrentTable(leg, config);
    case "big-output":
      return bigOutputTable(leg, config);
    case "stdin":
      return stdinTable(leg, config);
    case "kill":
      return killTable(leg, config);
    case "sandboxed":
      return leg.sandboxed === undefined
        ? `### 6. Sandboxed — not measured: ${leg.sandboxedSkipped}`
        : sandboxedTable(leg, config);
    case "terminal":
      return terminalTable(leg, config);
    case "mcp":
      return mcpTable(leg, config);
    case "engines":
      return leg.engines === undefined
        ? `### 9. Engines — not measured: ${leg.enginesSkipped}`
        : enginesTable(leg, config);
  }
}

/** Runs the bench; returns the exit code. */
async function main(argv: string[]): Promise<number> {
  const started = performance.now();
  let args: Args | undefined;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`bench: ${error.message}`);
    return 2;
  }
  if (args === undefined) return 0;
  const config = args.quick ? QUICK : FULL;
  const nodeLeg = args.runtimes.includes("node") ? await prepareNodeLeg(args.build, log) : undefined;
  const against = args.against === undefined
    ? undefined
    : await prepareAgainst(args.against, args.runtimes.includes("node"), log);
  const machine = await describeMachine(nodeLeg ? args.node : undefined);
  const scratchDir = await Deno.makeTempDir({ prefix: "dsh-bench-" });
  const scratch: Scratch = {
    spillDir: join(scratchDir, "spill"),
    scratchFile: (runtime) => join(scratchDir, `raw-${runtime}.bin`),
    // Not under the temp dir: inside the sandbox /tmp is the owner's private one.
    sandboxWorkdir: join(BENCH_DIR, "sandbox-work"),
  };
  await Deno.mkdir(join(scratch.sandboxWorkdir, ".git", "hooks"), { recursive: true });
  await Deno.writeTextFile(join(scratch.sandboxWorkdir, ".git", "config"), "");
  const againstLine = against === undefined
    ? ""
    : `\n- Against: \`run() @ ${against.label}\` is the library at ${args.against}, interleaved with \`run()\``;
  const report: string[] = [header(machine, nodeLeg?.peers, config, args.quick) + againstLine];
  console.log(report[0] + "\n");
  const legs: LegResults[] = args.runtimes.map((runtime) => ({ runtime, version: "?", ...LEG_SHAPE[runtime] }));
  try {
    for (const scenario of SCENARIOS) {
      if (!args.only.has(scenario)) continue;
      for (const leg of legs) {
        const scenarioStarted = performance.now();
        log(`${scenario} on ${leg.runtime} (load average ${loadAverageNow()})`);
        await measure(scenario, leg, config, scratch, args, nodeLeg, against);
        log(`${scenario} on ${leg.runtime} took ${duration(performance.now() - scenarioStarted)}`);
        const section = render(scenario, leg, config);
        console.log(section + "\n");
        report.push(section);
      }
    }
  } finally {
    if (engines !== undefined) await (await engines.catch(() => undefined))?.stop();
    await Deno.remove(scratchDir, { recursive: true }).catch(() => {});
  }
  const targetRows = legs.flatMap((leg) => targets(leg, config));
  const closing = [targetsTable(targetRows), issueTable(legs), footer(performance.now() - started)];
  console.log(closing.join("\n\n"));
  report.push(...closing);
  // Only a complete full run replaces results.md: a smoke or partial run never overwrites the real numbers.
  const complete = !args.quick && args.only.size === SCENARIOS.length && args.runtimes.length === 2 &&
    against === undefined;
  const name = complete ? "results" : args.quick ? "results-quick" : "results-partial";
  await Deno.mkdir(BENCH_DIR, { recursive: true });
  await Deno.writeTextFile(join(BENCH_DIR, `${name}.md`), report.join("\n\n") + "\n");
  await Deno.writeTextFile(
    join(BENCH_DIR, `${name}.json`),
    JSON.stringify({ machine, peers: nodeLeg?.peers, config, legs, targets: targetRows }, null, 1) + "\n",
  );
  log(`report written to ${join(BENCH_DIR, `${name}.md`)} (raw samples in ${name}.json)`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
