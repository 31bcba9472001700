/**
 * Runs the whole test suite on both runtimes: the Deno leg
 * (`deno test -A tests/`) and then the Node leg (`scripts/build_npm.ts`,
 * which builds the npm package and runs the same tests against it with
 * `node --test`). Every leg always runs, so one failure does not hide
 * another; the exit code is nonzero if any failed.
 *
 * With `--node-matrix` (what CI runs), the Node leg is one leg per Node
 * line we support, 20, 22 and 24: the package is built once, by the first,
 * and the others run the same compiled tests (`build_npm.ts --test-only`).
 * The `node` on PATH serves its own line; the other lines come from the npm
 * packages `node@22`, `node@24` (…), installed once into
 * `node_modules/.cache/dsh-node/` (git-ignored).
 *
 * With `--ci` (what `.ci/run` runs) each kind of evidence runs once, legs
 * beside each other where nothing orders them:
 * - the live step: the agent binaries, once, on Deno
 *   (`DSH_AGENT_RUNS=record:<dir>`, `tests/helpers/agent_records.ts`): the
 *   conformance suites' binary side is recorded, the MCP clients run;
 * - beside it, the package and the compiled tests, built once
 *   (`build_npm.ts --compile-tests`; `--prebuilt` when built already);
 * - beside both, the Deno leg, and once the package is built the Node 20
 *   leg: every test file but the live-only ones, the conformance suites last,
 *   replaying what the live step recorded (`DSH_AGENT_RUNS=replay:<dir>`,
 *   each case waiting for its record): every leg checks the bridge against
 *   the binaries of this same run;
 * - then Node 22 and 24, beside each other, the files whose behaviour can
 *   differ between Node lines ({@linkcode NODE_LINE_TESTS}).
 * Each leg's output is printed whole when it ends, with its ten slowest
 * test files.
 *
 * Usage: `deno run -A scripts/test_all.ts [--node-matrix | --ci [--prebuilt] | --install-nodes | build_npm args…]`
 * (`--install-nodes` only installs the Node lines of the matrix):
 * without `--node-matrix` or `--ci`, extra arguments (e.g. `--node <path>`)
 * go to the Node leg.
 *
 * @module
 */

import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { LIVE_DONE } from "../tests/helpers/agent_records.ts";

/**
 * Test files that only drive the agent binaries (the library is the
 * server they talk to): run once, in the live step, never by a leg.
 */
export function isLiveOnly(name: string): boolean {
  return name === "mcp_clients.test.ts" || /^agents_.*\.test\.ts$/.test(name);
}

/** Test files whose binary side the live step records and every leg replays. */
export const RECORDED_TESTS: readonly string[] = [
  "conformance.test.ts",
  "conformance_events.test.ts",
  "hook_payloads.test.ts",
];

/**
 * What can differ between Node lines, run on 22 and 24 besides 20: the
 * adapter on child_process and its streams, stdin and output, the kill and
 * exit paths, the terminal's native binding, the package's load and types
 * (the README's samples), the CLI, the MCP server on stdio, fetch for http
 * hooks.
 */
export const NODE_LINE_TESTS: readonly string[] = [
  "abort_listeners.test.ts",
  "adapter_handlers.test.ts",
  "adapters.test.ts",
  "cli.test.ts",
  "exec.test.ts",
  "hooks_http.test.ts",
  "host_exit.test.ts",
  "mcp.test.ts",
  "output.test.ts",
  "read_buffers.test.ts",
  "readme.test.ts",
  "spawn_failure.test.ts",
  "stdin.test.ts",
  "terminate.test.ts",
  "tty.test.ts",
  "watchdog.test.ts",
];

/** The repository root: this script lives in `<root>/scripts/`. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The Node lines the package is tested on; the first is the oldest. */
export const NODE_MATRIX: readonly number[] = [20, 22, 24];

/** Where the Node binaries from npm are installed, one folder per line. */
const NODE_CACHE_DIR = path.join(ROOT, "node_modules", ".cache", "dsh-node");

/** One leg of the run: a name and the deno arguments that run it. */
interface Leg {
  name: string;
  args: string[];
  /** Added to the leg's environment. */
  env?: Record<string, string>;
  /** Where the leg's per-file times are written (Deno's JUnit file, or the Node reporter's JSON). */
  timings?: { kind: "junit" | "json"; file: string };
}

/** The outcome of one leg. */
interface LegResult {
  name: string;
  code: number;
  /** The lines that name a failing test, for the digest at the end. */
  failures: string[];
}

/** How many failure lines one leg keeps for the digest. */
const DIGEST_LINES = 60;

/** How many lines after a failing test's name may hold its error. */
const DETAIL_WINDOW = 12;

/** How much of one line the digest keeps. */
const DIGEST_WIDTH = 400;

/**
 * Picks the lines of a leg's output that name a failing test, with the
 * first line of its error: Deno's `name => file:line` entries under its
 * ERRORS heading, each with its `error:` line, and again under FAILURES; node:test's `✖`
 * (spec) and `not ok` (TAP) lines, each with the error line that follows
 * (TAP's `error: |-` block gives its next line). CI shows only the tail of
 * a long log, and a leg's own summary scrolls away under the next legs; the
 * digest repeats it last, so a red run says which assertion failed.
 */
export class FailureDigest {
  #section: "none" | "errors" | "failures" = "none";
  #pending = "";
  /** Lines left in which the last failing test's error may appear; 0 when none is awaited. */
  #window = 0;
  /** Whether the next line is the message of a TAP `error: |-` block. */
  #takeNext = false;
  readonly lines: string[] = [];

  /** Feeds a chunk of output; lines may span chunks. */
  push(text: string): void {
    const parts = (this.#pending + text).split("\n");
    this.#pending = parts.pop() ?? "";
    for (const line of parts) this.#line(line);
  }

  /** Feeds what is left after the last newline. */
  end(): void {
    if (this.#pending) this.#line(this.#pending);
    this.#pending = "";
  }

  #line(raw: string): void {
    // deno-lint-ignore no-control-regex
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "").trimEnd();
    if (this.#takeNext) {
      this.#takeNext = false;
      this.#window = 0;
      this.#keep(`  ${line.trim()}`);
      return;
    }
    if (/^\s*ERRORS\s*$/.test(line)) this.#section = "errors";
    else if (/^\s*FAILURES\s*$/.test(line)) this.#section = "failures";
    else if (/^(ok|FAILED) \|/.test(line)) this.#section = "none";
    if (this.#section === "errors" && /^error: /.test(line)) {
      this.#keep(`  ${line}`);
      return;
    }
    const named = (this.#section !== "none" && line.includes(" => ")) ||
      (/^\s*(✖ |not ok \d+ - )/.test(line) && !/^\s*✖ failing tests:$/.test(line));
    if (named) {
      this.#keep(line.trim());
      this.#window = DETAIL_WINDOW;
      return;
    }
    if (this.#window === 0) return;
    this.#window--;
    if (/^\s*error:\s*[|>]-?\s*$/.test(line)) this.#takeNext = true;
    else if (/^\s*(error:\s*\S|[\w.]*Error\b[^:]*:)/.test(line)) {
      this.#window = 0;
      this.#keep(`  ${line.trim()}`);
    }
  }

  /** Keeps a line once, cut to {@linkcode DIGEST_WIDTH}, while there is room. */
  #keep(line: string): void {
    const cut = line.length > DIGEST_WIDTH ? `${line.slice(0, DIGEST_WIDTH)}…` : line;
    if (this.lines.length < DIGEST_LINES && !this.lines.includes(cut)) this.lines.push(cut);
  }
}

/** A Node binary of one line of the matrix, or why there is none. */
export interface MatrixNode {
  major: number;
  /** The absolute path of the binary; null when it could not be had. */
  binary: string | null;
  /** `v22.12.0`, or the reason there is no binary. */
  version: string;
}

/**
 * The legs, in order. All use the deno that runs this script, so
 * `npx -y deno@2.9.6 task test` tests with that exact version even when
 * another deno (or none) is on PATH.
 */
function legs(nodeLegArgs: string[]): Leg[] {
  return [
    { name: "deno", args: ["test", "-A", "tests/"] },
    { name: "node", args: ["run", "-A", "scripts/build_npm.ts", "--test", ...nodeLegArgs] },
  ];
}

/**
 * The legs with `--node-matrix`: the Deno leg, then one Node leg per line;
 * the first available line builds the package, the others reuse that build.
 * A line without a binary gets a leg that fails at once.
 */
function matrixLegs(nodes: MatrixNode[]): Leg[] {
  const result: Leg[] = [{ name: "deno", args: ["test", "-A", "tests/"] }];
  let built = false;
  for (const { major, binary, version } of nodes) {
    const name = `node ${major} (${version})`;
    if (binary === null) {
      result.push({ name, args: [] });
      continue;
    }
    const mode = built ? ["--test-only"] : ["--test"];
    result.push({ name, args: ["run", "-A", "scripts/build_npm.ts", ...mode, "--node", binary] });
    built = true;
  }
  return result;
}

/** Where a leg's output goes: through at once, or kept and printed whole when the leg ends (legs side by side). */
type Output = "through" | "whole";

/**
 * Runs one leg with its output streamed through, or kept until it ends. A
 * leg without arguments stands for a Node line that could not be had, and
 * fails.
 */
async function runLeg(leg: Leg, output: Output = "through"): Promise<LegResult> {
  const title = `\n=== test_all: ${leg.name} leg: deno ${leg.args.join(" ")} ===`;
  if (leg.args.length === 0) {
    console.log(`\n=== test_all: ${leg.name} leg: no node binary ===`);
    return { name: leg.name, code: 1, failures: [] };
  }
  const started = performance.now();
  if (output === "through") console.log(title);
  else console.log(`\n=== test_all: ${leg.name} leg started (its output follows when it ends) ===`);
  const child = new Deno.Command(Deno.execPath(), {
    args: leg.args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(leg.env === undefined ? {} : { env: leg.env }),
  }).spawn();
  // One digest per stream: lines of the two interleave in chunks.
  const digests = [new FailureDigest(), new FailureDigest()];
  const kept: Uint8Array[] = [];
  const keep = { write: (chunk: Uint8Array) => (kept.push(chunk.slice()), Promise.resolve(chunk.length)) };
  const [out, err] = output === "through" ? [Deno.stdout, Deno.stderr] : [keep, keep];
  const copies = [tee(child.stdout, out, digests[0]), tee(child.stderr, err, digests[1])];
  const { code } = await child.status;
  // A process the leg leaked may still hold its pipes: the leg is over once its own process is, and what is
  // already written gets a bounded drain.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drained = Promise.all(copies.map((copy) => copy.done));
  await Promise.race([drained, new Promise((resolve) => timer = setTimeout(resolve, DRAIN_MS))]);
  clearTimeout(timer);
  for (const copy of copies) copy.stop();
  for (const digest of digests) digest.end();
  if (output === "whole") {
    console.log(title);
    for (const chunk of kept) await writeAll(Deno.stdout, chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`\n=== test_all: ${leg.name} leg ended in ${seconds.toFixed(0)} s (exit code ${code}) ===`);
  if (leg.timings !== undefined) printSlowest(leg.name, await fileTimes(leg.timings));
  return { name: leg.name, code, failures: digests.flatMap((digest) => digest.lines) };
}

/** Writes all of `chunk`. */
async function writeAll(to: { write(chunk: Uint8Array): Promise<number> }, chunk: Uint8Array): Promise<void> {
  for (let written = 0; written < chunk.length;) written += await to.write(chunk.subarray(written));
}

/** How many of a leg's slowest test files are printed. */
const SLOWEST = 10;

/**
 * Each test file's time in seconds, from Deno's JUnit report (the sum of a
 * file's top-level tests) or the Node reporter's JSON; empty when the file
 * is missing or unreadable (a leg that died early), which is said.
 */
export function parseFileTimes(kind: "junit" | "json", text: string): Map<string, number> {
  const times = new Map<string, number>();
  if (kind === "json") {
    for (const [file, ms] of Object.entries(JSON.parse(text) as Record<string, number>)) {
      times.set(path.basename(file), ms / 1000);
    }
    return times;
  }
  for (const suite of text.matchAll(/<testsuite name="([^"]+)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    const name = suite[1];
    if (!/\.test\.[cm]?[jt]s$/.test(name)) continue;
    let total = 0;
    for (const test of suite[2].matchAll(/<testcase [^>]*time="([\d.]+)"/g)) total += Number(test[1]);
    times.set(path.basename(name), (times.get(path.basename(name)) ?? 0) + total);
  }
  return times;
}

/** Reads a leg's per-file times (see {@linkcode parseFileTimes}). */
async function fileTimes(timings: NonNullable<Leg["timings"]>): Promise<Map<string, number>> {
  try {
    return parseFileTimes(timings.kind, await Deno.readTextFile(timings.file));
  } catch (error) {
    console.log(`test_all: no per-file times in ${timings.file}: ${error instanceof Error ? error.message : error}`);
    return new Map();
  }
}

/** Prints a leg's {@linkcode SLOWEST} slowest test files. */
function printSlowest(leg: string, times: Map<string, number>): void {
  if (times.size === 0) return;
  const slowest = [...times].sort(([, a], [, b]) => b - a).slice(0, SLOWEST);
  console.log(`test_all: ${leg} leg, the ${slowest.length} slowest test files:`);
  for (const [file, seconds] of slowest) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${file}`);
}

/** How long a finished leg's output may take to drain before its pipes are left. */
const DRAIN_MS = 5_000;

/** A copy of a child's stream: done at its end, or stopped. */
interface Copy {
  readonly done: Promise<void>;
  /** Stops reading (a leaked process may hold the stream open forever). */
  stop(): void;
}

/** Copies a child's stream through to ours, feeding the digest on the way. */
function tee(
  from: ReadableStream<Uint8Array>,
  to: { write(chunk: Uint8Array): Promise<number> },
  digest: FailureDigest,
): Copy {
  const reader = from.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      await writeAll(to, value);
      digest.push(decoder.decode(value, { stream: true }));
    }
  })();
  // A read cancelled by stop() ends the loop with an error nobody needs.
  done.catch(() => {});
  return { done, stop: () => void reader.cancel().catch(() => {}) };
}

/**
 * Prints one verdict line per leg. The wording avoids the "N passed,
 * N failed" shape, which log readers take for a test count.
 */
function printVerdicts(results: LegResult[]): void {
  console.log("");
  for (const { name, code, failures } of results) {
    if (code === 0 || failures.length === 0) continue;
    console.log(`test_all: ${name} leg, failing:`);
    for (const line of failures) console.log(`  ${line}`);
  }
  for (const { name, code } of results) {
    console.log(`test_all: ${name} leg ${code === 0 ? "ok" : `FAILED (exit code ${code})`}`);
  }
}

/**
 * The Node binary of each line of {@linkcode NODE_MATRIX}: the `node` on
 * PATH when it is of that line, else the binary of the npm package
 * `node@<line>`, installed into the cache on first use. A line that cannot
 * be had is reported, not thrown, so the other lines still run.
 */
export async function matrixNodes(): Promise<MatrixNode[]> {
  const onPath = await nodeVersion("node").catch(() => null);
  return await Promise.all(NODE_MATRIX.map(async (major): Promise<MatrixNode> => {
    try {
      if (onPath && majorOf(onPath.version) === major) return { major, ...onPath };
      const binary = await nodeFromNpm(major);
      const found = await nodeVersion(binary);
      if (majorOf(found.version) !== major) throw new Error(`${binary} is ${found.version}, not Node ${major}`);
      return { major, ...found };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      console.error(`test_all: no Node ${major}: ${reason}`);
      return { major, binary: null, version: "unavailable" };
    }
  }));
}

/** The absolute path and version of a Node binary (a path or a name on PATH). */
async function nodeVersion(binary: string): Promise<{ binary: string; version: string }> {
  const { code, stdout } = await new Deno.Command(binary, {
    args: ["-p", "JSON.stringify([process.execPath, process.version])"],
    stdin: "null",
    stderr: "null",
  }).output();
  if (code !== 0) throw new Error(`${binary} exited with ${code}`);
  const [execPath, version] = JSON.parse(new TextDecoder().decode(stdout));
  return { binary: execPath, version };
}

/** 22 for `v22.12.0`. */
function majorOf(version: string): number {
  return Number(/^v(\d+)\./.exec(version)?.[1]);
}

/**
 * The binary of the npm package `node@<major>` (latest of that line),
 * installed into `NODE_CACHE_DIR/<major>/` unless it is there already. The
 * package's install script fetches the platform's binary package from npm.
 */
async function nodeFromNpm(major: number): Promise<string> {
  const dir = path.join(NODE_CACHE_DIR, String(major));
  const binary = path.join(dir, "node_modules", "node", "bin", "node");
  if (await isFile(binary)) return binary;
  console.log(`test_all: installing node@${major} from npm into ${path.relative(ROOT, dir)}/`);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path.join(dir, "package.json"), '{ "private": true }\n');
  const { code, stderr } = await new Deno.Command("npm", {
    args: ["install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", `node@${major}`],
    cwd: dir,
    stdin: "null",
    stdout: "null",
  }).output();
  if (code !== 0) throw new Error(`npm install node@${major} failed:\n${new TextDecoder().decode(stderr)}`);
  if (!await isFile(binary)) throw new Error(`npm install node@${major} left no ${binary}`);
  return binary;
}

/** True when `file` exists and is a file (symlinks followed). */
async function isFile(file: string): Promise<boolean> {
  return (await Deno.stat(file).catch(() => null))?.isFile ?? false;
}

/** The test files of `tests/`, by name. */
async function testFiles(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path.join(ROOT, "tests"))) {
    if (entry.isFile && /\.test\.ts$/.test(entry.name)) names.push(entry.name);
  }
  return names.sort();
}

/** The legs of the CI plan (`--ci`), and the live step's record directory. */
interface CiPlan {
  readonly live: Leg;
  readonly build: Leg | undefined;
  readonly deno: Leg;
  readonly node: Leg;
  readonly nodeLines: Leg[];
}

/**
 * The CI plan's legs: the live step; the build (unless `prebuilt`); the
 * Deno and the oldest Node line's legs, every file but the live-only ones,
 * those that replay the live step last (they wait for its records); the
 * newer Node lines' legs, what can differ between lines.
 */
async function ciPlan(records: string, work: string, prebuilt: boolean): Promise<CiPlan> {
  const files = await testFiles();
  for (const name of [...RECORDED_TESTS, ...NODE_LINE_TESTS]) {
    if (!files.includes(name)) throw new Error(`test_all: no test file tests/${name}`);
  }
  // What the legs wait for first.
  const live = [...RECORDED_TESTS, ...files.filter(isLiveOnly)];
  const everyLeg = [
    ...files.filter((name) => !isLiveOnly(name) && !RECORDED_TESTS.includes(name)),
    ...RECORDED_TESTS,
  ];
  const nodes = await matrixNodes();
  const nodeLeg = (node: MatrixNode, selection: string[]): Leg => {
    const name = `node ${node.major} (${node.version})`;
    if (node.binary === null) return { name, args: [] };
    const timings = path.join(work, `node-${node.major}.json`);
    return {
      name,
      args: ["run", "-A", "scripts/build_npm.ts", "--test-only", "--node", node.binary, "--files", selection.join(",")],
      env: { DSH_AGENT_RUNS: `replay:${records}`, DSH_TEST_TIMINGS: timings },
      timings: { kind: "json", file: timings },
    };
  };
  // `deno task check` type-checks the tests; a leg does not again (CI runs both).
  const denoTest = (name: string, names: string[], env: Record<string, string>): Leg => ({
    name,
    args: [
      "test",
      "-A",
      "--no-check",
      `--junit-path=${path.join(work, `${name}.xml`)}`,
      ...names.map((f) => `tests/${f}`),
    ],
    env,
    timings: { kind: "junit", file: path.join(work, `${name}.xml`) },
  });
  const [oldest, ...newer] = nodes;
  return {
    live: denoTest("live", live, { DSH_AGENT_RUNS: `record:${records}` }),
    build: prebuilt ? undefined : { name: "build", args: ["run", "-A", "scripts/build_npm.ts", "--compile-tests"] },
    deno: denoTest("deno", everyLeg, { DSH_AGENT_RUNS: `replay:${records}` }),
    node: nodeLeg(oldest, everyLeg),
    nodeLines: newer.map((node) => nodeLeg(node, [...NODE_LINE_TESTS])),
  };
}

/**
 * Runs the CI plan: the live step, the build and the Deno leg at once; the
 * oldest Node line's leg once the build is there; the newer lines once the
 * Deno and Node legs have ended. A leg's output is printed whole when it
 * ends. The live step's end is written to `<records>/done` (whatever its
 * outcome), which the replaying cases wait for when their record is not
 * there.
 */
async function runCi(plan: CiPlan, records: string): Promise<LegResult[]> {
  const live = runLeg(plan.live, "whole").finally(async () => {
    await Deno.mkdir(records, { recursive: true });
    await Deno.writeTextFile(path.join(records, LIVE_DONE), "");
  });
  const build = plan.build === undefined ? undefined : runLeg(plan.build, "whole");
  const built = (async () => {
    const result = await build;
    await announceBuild(result);
    return result === undefined || result.code === 0;
  })();
  const deno = runLeg(plan.deno, "whole");
  // Without the package, the Node legs would only fail for that.
  const node = built.then((ok) => ok ? runLeg(plan.node, "whole") : undefined);
  const first = await Promise.all([live, build, deno, node]);
  const lines = await built ? await Promise.all(plan.nodeLines.map((leg) => runLeg(leg, "whole"))) : [];
  return [...first, ...lines].filter((result) => result !== undefined);
}

/**
 * Tells whoever waits for the package (`.ci/run`'s package checks, beside
 * the tests) that it was built, or not: `ok` or `failed` into the file
 * `DSH_CI_BUILD_DONE` names, when it names one.
 */
async function announceBuild(build: LegResult | undefined): Promise<void> {
  const file = Deno.env.get("DSH_CI_BUILD_DONE");
  if (file === undefined || file === "") return;
  await Deno.writeTextFile(file, build === undefined || build.code === 0 ? "ok\n" : "failed\n");
}

/** The signals that end a run early: a `finally` does not run for them, so the work folder is removed by hand. */
const ENDING_SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Removes `work` and exits (128 + the signal's number, as a shell reports
 * it) when the run is ended by a signal, until the returned function is
 * called: a CI run stopped by hand left its records in `/tmp` otherwise.
 */
function removedOnSignal(work: string): () => void {
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  const listeners = ENDING_SIGNALS.map((signal) => {
    const listener = () => {
      Deno.removeSync(work, { recursive: true });
      Deno.exit(128 + numbers[signal]);
    };
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  };
}

/**
 * Runs every leg, prints the verdicts and returns the exit code.
 */
async function main(args: string[]): Promise<number> {
  if (args.length === 1 && args[0] === "--install-nodes") {
    // Before anything runs beside anything else: two installs into one folder would trip on each other.
    const nodes = await matrixNodes();
    for (const node of nodes) console.log(`node ${node.major}: ${node.binary ?? "none"} (${node.version})`);
    return nodes.every((node) => node.binary !== null) ? 0 : 1;
  }
  const matrix = args.includes("--node-matrix");
  const ci = args.includes("--ci");
  if (matrix && args.length > 1) {
    console.error("test_all: --node-matrix takes no other argument");
    return 2;
  }
  if (ci && args.some((arg) => arg !== "--ci" && arg !== "--prebuilt")) {
    console.error("test_all: --ci takes no argument but --prebuilt");
    return 2;
  }
  const results: LegResult[] = [];
  if (ci) {
    const work = await Deno.makeTempDir({ prefix: "dsh-test-all-" });
    const removeOnSignal = removedOnSignal(work);
    try {
      const records = path.join(work, "records");
      results.push(...await runCi(await ciPlan(records, work, args.includes("--prebuilt")), records));
    } finally {
      removeOnSignal();
      await Deno.remove(work, { recursive: true });
    }
  } else {
    const plan = matrix ? matrixLegs(await matrixNodes()) : legs(args);
    for (const leg of plan) results.push(await runLeg(leg));
  }
  printVerdicts(results);
  return results.every((result) => result.code === 0) ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
