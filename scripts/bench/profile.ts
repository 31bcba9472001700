/**
 * `deno run -A scripts/bench/profile.ts`: where a command's time goes. Runs
 * one bench worker under the runtime's CPU profiler (`node --cpu-prof`,
 * `deno run --cpu-prof`), sampling every 100 µs, with one variant only
 * (`run()` by default, or the raw spawn), then sums the samples by the
 * phase of the seam they were taken in and prints microseconds per command.
 *
 * A sample is charged to the innermost frame of this library on its stack
 * (so the runtime's own `spawn` called by the adapter counts as the
 * adapter's), and to what the runtime was doing when none is there
 * (garbage collection, the event loop, promise jobs, the bench driver).
 * Idle samples are left out: what remains is the host's CPU per command.
 *
 * Usage: `deno run -A scripts/bench/profile.ts [--runtime=node|deno] [--variant=<name>]
 * [--scenario=latency|concurrent|sandboxed] [--calls=N] [--keep] [--against=<git ref>]`. The Node leg needs the
 * package the bench installed (`deno task bench` once, or `--skip-build` after a build). `--against` profiles
 * another build of the library instead (`run() @ <sha>`, built as the bench's `--against` builds it), so that
 * the profiles of a change and of its parent can be taken one right after the other.
 *
 * @module
 */

import { join } from "node:path";
import { prepareAgainst } from "./lib/against.ts";
import { BENCH_DIR, PACKAGES_DIR, ROOT } from "./lib/node_setup.ts";

/** One node of a `.cpuprofile` (the Chrome DevTools format both runtimes write). */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A `.cpuprofile`. */
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a sample is charged: a phase folder of the seam, an adapter, or what the runtime did. */
function phaseOf(url: string): string | undefined {
  const seam = /\/src\/seam\/([a-z_]+)\//.exec(url);
  if (seam) return seam[1];
  if (/\/src\/seam\/[a-z_]+\.[jt]s$/.test(url)) return "shell";
  if (/\/src\/(node|deno)_adapter\.[jt]s$/.test(url)) return "adapter (and the runtime's spawn, pipes, signals)";
  if (/node_modules\/zod\/|npm\/registry.*zod/.test(url)) return "resolve";
  return undefined;
}

/** What the runtime was doing, for a sample with no frame of the library on its stack. */
function runtimeCategory(leaf: ProfileNode, stack: ProfileNode[]): string {
  const name = leaf.callFrame.functionName;
  if (name === "(idle)") return "(idle)";
  if (name === "(garbage collector)") return "runtime: garbage collector";
  if (name === "(program)") return "runtime: (program) native, outside JS";
  if (stack.some((node) => /scripts\/bench\/workers\//.test(node.callFrame.url))) return "bench driver";
  return "runtime: event loop, promise jobs, streams";
}

/** Microseconds per category, summed over the samples. */
function summarise(
  profile: CpuProfile,
): { byCategory: Map<string, number>; bySelf: Map<string, number>; byTotal: Map<string, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const category = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const known = category.get(id);
    if (known !== undefined) return known;
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    let found: string | undefined;
    for (const node of stack) {
      found = phaseOf(node.callFrame.url);
      if (found !== undefined) break;
    }
    const result = found ?? runtimeCategory(stack[0], stack);
    category.set(id, result);
    return result;
  };
  const byCategory = new Map<string, number>();
  const bySelf = new Map<string, number>();
  const byTotal = new Map<string, number>();
  const label = (frame: ProfileNode["callFrame"]) =>
    `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(src|scripts|node_modules)\//, "$1/")}:${
      frame.lineNumber + 1
    }`;
  for (let i = 0; i < profile.samples.length; i++) {
    // The delta that follows a sample is the time it stands for.
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i];
    const name = categoryOf(id);
    byCategory.set(name, (byCategory.get(name) ?? 0) + micros);
    if (name === "(idle)") continue;
    const where = label(byId.get(id)!.callFrame);
    bySelf.set(where, (bySelf.get(where) ?? 0) + micros);
    // Inclusive time of the library's own functions: each counted once per sample, however deep the recursion.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (phaseOf(frame.url) === undefined) continue;
      seen.add(label(frame));
    }
    for (const frame of seen) byTotal.set(frame, (byTotal.get(frame) ?? 0) + micros);
  }
  return { byCategory, bySelf, byTotal };
}

interface Args {
  runtime: "node" | "deno";
  variant: string;
  scenario: "latency" | "concurrent" | "sandboxed";
  calls: number;
  keep: boolean;
  against?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { runtime: "node", variant: "run()", scenario: "latency", calls: 2000, keep: false };
  for (const arg of argv) {
    const [flag, value = ""] = arg.split(/=(.*)/s);
    if (flag === "--runtime" && (value === "node" || value === "deno")) args.runtime = value;
    else if (flag === "--variant") args.variant = value;
    else if (flag === "--scenario" && ["latency", "concurrent", "sandboxed"].includes(value)) {
      args.scenario = value as Args["scenario"];
    } else if (flag === "--calls" && Number(value) > 0) args.calls = Number(value);
    else if (flag === "--keep") args.keep = true;
    else if (flag === "--against" && value !== "") args.against = value;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
  }
  return args;
}

async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const against = args.against === undefined
    ? undefined
    : await prepareAgainst(args.against, args.runtime === "node", (line) => console.error(`profile: ${line}`));
  if (against !== undefined) args.variant = `run() @ ${against.label}`;
  const dir = await Deno.makeTempDir({ prefix: "dsh-profile-" });
  const outDir = join(BENCH_DIR, "profiles");
  await Deno.mkdir(outDir, { recursive: true });
  await Deno.mkdir(join(BENCH_DIR, "sandbox-work", ".git", "hooks"), { recursive: true });
  await Deno.writeTextFile(join(BENCH_DIR, "sandbox-work", ".git", "config"), "");
  const long = { rounds: 1, budgetMs: 3_600_000 };
  const settings = args.scenario === "concurrent"
    ? { concurrent: { commands: args.calls, inFlight: 16, batches: 1, warmupCommands: 64, ...long } }
    : { [args.scenario]: { calls: args.calls, warmupCalls: 50, ...long } };
  const payload = JSON.stringify({
    scenario: args.scenario,
    variants: [args.variant],
    packages: PACKAGES_DIR,
    spillDir: join(dir, "spill"),
    sandboxWorkdir: join(BENCH_DIR, "sandbox-work"),
    against,
    ...settings,
  });
  const profiler = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  const [command, commandArgs] = args.runtime === "node"
    ? ["node", [...profiler, "--cpu-prof-interval", "100", join(ROOT, "scripts/bench/workers/node.mjs"), payload]]
    // Deno's default interval; it has no flag of its own for it.
    : [Deno.execPath(), ["run", "-A", ...profiler, join(ROOT, "scripts/bench/workers/deno.ts"), payload]];
  const started = performance.now();
  const { success, stderr } = await new Deno.Command(command, { args: commandArgs, cwd: ROOT, stdout: "null" })
    .output();
  if (!success) throw new Error(`the worker failed:\n${new TextDecoder().decode(stderr)}`);
  const wallMs = performance.now() - started;
  const file = [...Deno.readDirSync(dir)].find((entry) => entry.name.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error("no profile was written");
  const profile: CpuProfile = JSON.parse(Deno.readTextFileSync(join(dir, file.name)));
  const { byCategory, bySelf, byTotal } = summarise(profile);
  const commands = args.calls + (args.scenario === "concurrent" ? 64 : 50);
  const busy = [...byCategory].filter(([name]) => name !== "(idle)").reduce((sum, [, us]) => sum + us, 0);
  const per = (us: number) => (us / commands).toFixed(1).padStart(8);
  console.log(
    `${args.runtime} ${args.scenario} ${args.variant}: ${commands} commands, wall ${(wallMs / 1000).toFixed(1)} s, ` +
      `load ${Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")}`,
  );
  console.log(`${per(busy)} µs/command of host CPU (main thread, idle left out), by phase:`);
  for (const [name, us] of [...byCategory].sort((a, b) => b[1] - a[1])) {
    if (name !== "(idle)") console.log(`${per(us)}  ${name}`);
  }
  console.log("top self time (µs/command):");
  for (const [name, us] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${per(us)}  ${name}`);
  console.log("the library's functions, total time including callees (µs/command):");
  for (const [name, us] of [...byTotal].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${per(us)}  ${name}`);
  if (args.keep) {
    const kept = join(outDir, `${args.runtime}-${args.scenario}-${args.variant.replace(/\W+/g, "_")}.cpuprofile`);
    await Deno.copyFile(join(dir, file.name), kept);
    console.log(`profile kept: ${kept}`);
  }
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await main(Deno.args);
