// @ts-check
/**
 * The scenario drivers of the benchmark, shared by the Node worker
 * (`node.mjs`) and the Deno worker (`deno.ts`). Plain JavaScript with JSDoc
 * types so that Node 20 runs it as it is; it only uses what both runtimes
 * provide (`node:fs`, `node:process`, `performance`, timers).
 *
 * A worker hands each driver a list of {@link Variant}s — `run()`, the raw
 * spawn, the peers — and the driver measures them side by side,
 * interleaved, so that a noisy neighbour on the machine slows every
 * variant alike instead of whichever happened to run at that moment.
 * Drivers return raw samples; the orchestrator (`main.ts`) computes the
 * medians and ratios.
 *
 * @module
 */

import { closeSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import process from "node:process";

/**
 * One way of running a command, as a benchmark contestant.
 *
 * @typedef {object} Variant
 * @property {string} name Shown in the tables (`run()`, `raw spawn`, `execa`, …).
 * @property {(command: string) => Promise<void>} [exec]
 *   Runs `command` to completion with stdout and stderr piped and consumed;
 *   rejects when it did not exit 0.
 * @property {(command: string, stdin: Uint8Array) => Promise<string>} [execStdin]
 *   Runs `command` with `stdin` written to its standard input; resolves with its stdout.
 * @property {(command: string, signal: AbortSignal) => Promise<unknown>} [execAbortable]
 *   Runs `command` until `signal` aborts it; settles (either way) once the variant considers the run over.
 * @property {(command: string, file: string, bytes: number) => Promise<void>} [bigOutput]
 *   Runs `command`, which prints `bytes` bytes, and consumes its stdout the variant's way (`file` is a
 *   scratch path it may write to and must remove); rejects when the byte count does not match.
 * @property {boolean} [sequential]
 *   Runs one command at a time (a session's commands queue): left out of the concurrent scenario.
 * @property {(command: string) => Promise<void>} [execSandboxed]
 *   Like `exec`, inside the sandbox (`run()` of a sandboxed shell, or the raw spawn of the argv it built).
 * @property {(command: string) => Promise<void>} [execTool]
 *   Runs `command` as a model's tool call would (scenario 8): the MCP server's `tools/call` of `bash`, or the
 *   library's own `bash` tool call, each in a session as the server runs them.
 * @property {(command: string) => Promise<void>} [execEngine]
 *   Runs `command` on a remote engine (scenario 9): `run()` on a shell over the engine, or its raw client.
 * @property {(command: string) => Promise<Terminal>} [openTerminal]
 *   Starts `command` (a `cat`) on a pseudo-terminal and hands back the means to type into it (scenario 7).
 */

/**
 * A program running on a pseudo-terminal, as a terminal variant hands it to the driver.
 *
 * @typedef {object} Terminal
 * @property {() => Promise<void>} roundTrip
 *   Writes `x\n` and resolves once the terminal's echo and `cat`'s own line (`x\r\n` twice) have been read.
 * @property {() => Promise<void>} close Ends the program and waits until it has gone.
 */

/** Resolves after `ms` milliseconds. */
export const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `items` rotated left by `by`: successive iterations start with a different variant.
 *
 * @template T
 * @param {T[]} items
 * @param {number} by
 * @returns {T[]}
 */
function rotate(items, by) {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Whether another round fits: the longest round so far, added to the time
 * spent, must stay within the budget. At least one round always runs.
 *
 * @param {number} started `performance.now()` when the scenario began (warm-up included).
 * @param {number[]} roundMs Durations of the rounds so far.
 * @param {number} budgetMs The scenario's time budget.
 */
function roomForAnotherRound(started, roundMs, budgetMs) {
  if (roundMs.length === 0) return true;
  return performance.now() - started + Math.max(...roundMs) <= budgetMs;
}

/**
 * @param {Variant} variant
 * @param {"exec" | "execSandboxed" | "execTool" | "execEngine"} [method]
 */
function needExec(variant, method = "exec") {
  const exec = variant[method];
  if (!exec) throw new Error(`${variant.name} has no ${method}`);
  return exec;
}

/**
 * Scenario 1, latency: `calls` sequential runs of `true` per variant and
 * round. Calls are interleaved one by one across the variants, so all of
 * them see the same machine. Up to `rounds` rounds, fewer when the next
 * one would overrun `budgetMs` (a loaded machine).
 *
 * @param {Variant[]} variants
 * @param {{ calls: number, rounds: number, warmupCalls: number, budgetMs: number }} config
 * @param {"exec" | "execSandboxed" | "execTool" | "execEngine"} [method] `execSandboxed` for the sandboxed
 *   scenario (6), `execTool` for the MCP one (8), `execEngine` for the engines (9).
 * @returns {Promise<Record<string, { roundMeanMs: number[], callMs: number[] }>>}
 */
export async function latencyScenario(variants, { calls, rounds, warmupCalls, budgetMs }, method = "exec") {
  const started = performance.now();
  /** @type {number[]} */
  const roundMs = [];
  /** @type {Record<string, { roundMeanMs: number[], callMs: number[] }>} */
  const out = Object.fromEntries(variants.map((v) => [v.name, { roundMeanMs: [], callMs: [] }]));
  for (let i = 0; i < warmupCalls; i++) {
    for (const variant of variants) await needExec(variant, method)("true");
  }
  for (let round = 0; round < rounds && roomForAnotherRound(started, roundMs, budgetMs); round++) {
    const roundStarted = performance.now();
    /** @type {Record<string, number>} */
    const sums = Object.fromEntries(variants.map((v) => [v.name, 0]));
    for (let i = 0; i < calls; i++) {
      for (const variant of rotate(variants, i + round)) {
        const started = performance.now();
        await needExec(variant, method)("true");
        const ms = performance.now() - started;
        sums[variant.name] += ms;
        out[variant.name].callMs.push(ms);
      }
    }
    for (const variant of variants) out[variant.name].roundMeanMs.push(sums[variant.name] / calls);
    roundMs.push(performance.now() - roundStarted);
  }
  return out;
}

/**
 * Runs `commands` commands through `exec` with at most `inFlight` at once.
 *
 * @param {(command: string) => Promise<void>} exec
 * @param {string} command
 * @param {number} commands
 * @param {number} inFlight
 * @returns {Promise<number>} The wall time in milliseconds.
 */
async function pool(exec, command, commands, inFlight) {
  let issued = 0;
  const started = performance.now();
  const lane = async () => {
    while (issued < commands) {
      issued++;
      await exec(command);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return performance.now() - started;
}

/**
 * Scenario 2, concurrent throughput: `commands` runs of `echo` per variant
 * and round, `inFlight` at a time. A round runs each variant's commands in
 * `batches` slices, interleaved across the variants in rotating order, and
 * a variant's wall time is the sum of its slices: a burst of load from
 * elsewhere then hits every variant, not just the one running at that
 * moment. Each slice's wall time is kept too (`sliceWallMs`, in the same
 * order for every variant), so that the report can compare variants slice
 * by slice, each against the slices run right beside it. Up to `rounds`
 * rounds, fewer when the next one would overrun `budgetMs`.
 *
 * @param {Variant[]} variants
 * @param {{ commands: number, inFlight: number, batches: number, rounds: number, warmupCommands: number,
 *   budgetMs: number }} config
 * @returns {Promise<Record<string, { roundWallMs: number[], sliceWallMs: number[] }>>}
 */
export async function concurrentScenario(
  variants,
  { commands, inFlight, batches, rounds, warmupCommands, budgetMs },
) {
  const started = performance.now();
  /** @type {number[]} */
  const roundMs = [];
  /** @type {Record<string, { roundWallMs: number[], sliceWallMs: number[] }>} */
  const out = Object.fromEntries(variants.map((v) => [v.name, { roundWallMs: [], sliceWallMs: [] }]));
  const command = "echo concurrent-benchmark-line";
  for (const variant of variants) await pool(needExec(variant), command, warmupCommands, inFlight);
  for (let round = 0; round < rounds && roomForAnotherRound(started, roundMs, budgetMs); round++) {
    const roundStarted = performance.now();
    /** @type {Record<string, number>} */
    const wall = Object.fromEntries(variants.map((v) => [v.name, 0]));
    for (let batch = 0; batch < batches; batch++) {
      // The first slices take the remainder, so the slices add up to `commands` exactly.
      const size = Math.floor(commands / batches) + (batch < commands % batches ? 1 : 0);
      for (const variant of rotate(variants, round + batch)) {
        const ms = await pool(needExec(variant), command, size, inFlight);
        wall[variant.name] += ms;
        out[variant.name].sliceWallMs.push(ms);
      }
    }
    for (const variant of variants) out[variant.name].roundWallMs.push(wall[variant.name]);
    roundMs.push(performance.now() - roundStarted);
  }
  return out;
}

/** This process's resident set size in bytes, from `/proc/self/statm` (both runtimes, no allocation to speak of). */
export function rssBytes() {
  const pages = Number(readFileSync("/proc/self/statm", "latin1").split(" ")[1]);
  return pages * 4096;
}

/** `VmHWM` (peak RSS) of this process in bytes, or undefined where `/proc` does not tell. */
function peakRssBytes() {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "latin1"));
  return match ? Number(match[1]) * 1024 : undefined;
}

/** Resets `VmHWM` to the current RSS (Linux ≥ 4.0); false when the kernel refuses. */
function resetPeakRss() {
  try {
    const fd = openSync("/proc/self/clear_refs", "w");
    writeSync(fd, "5");
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

/**
 * Scenario 3, one big output: a single run of `head -c <bytes> /dev/zero`
 * through one variant, in a fresh process (the orchestrator starts one per
 * variant and round, so no run inherits another's heap). A small warm-up
 * run loads and compiles the code path first. Peak RSS growth is measured
 * twice: by sampling the RSS every `sampleMs` (as a user would), and by
 * the kernel's high-water mark (`VmHWM`, reset just before the run), which
 * misses no spike between samples; the report uses the larger.
 *
 * @param {Variant} variant
 * @param {{ bytes: number, warmupBytes: number, sampleMs: number, scratchFile: string }} config
 * @returns {Promise<{ ms: number, bytes: number, baselineRss: number, sampledGrowth: number,
 *   hwmGrowth: number | null, peakGrowth: number }>}
 */
export async function bigOutputScenario(variant, { bytes, warmupBytes, sampleMs, scratchFile }) {
  const run = variant.bigOutput;
  if (!run) throw new Error(`${variant.name} has no bigOutput`);
  await run(`head -c ${warmupBytes} /dev/zero`, scratchFile, warmupBytes);
  collectGarbage();
  await sleep(50);
  const hwmReset = resetPeakRss();
  const baselineRss = rssBytes();
  let sampled = baselineRss;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, rssBytes());
  }, sampleMs);
  const started = performance.now();
  try {
    await run(`head -c ${bytes} /dev/zero`, scratchFile, bytes);
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  sampled = Math.max(sampled, rssBytes());
  const hwm = hwmReset ? peakRssBytes() : undefined;
  const sampledGrowth = sampled - baselineRss;
  const hwmGrowth = hwm === undefined ? null : hwm - baselineRss;
  return { ms, bytes, baselineRss, sampledGrowth, hwmGrowth, peakGrowth: Math.max(sampledGrowth, hwmGrowth ?? 0) };
}

/** Runs a full GC when the runtime was started with `--expose-gc`. */
function collectGarbage() {
  const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc;
  if (gc) gc();
}

/**
 * A buffer of `bytes` bytes of text (lines of 63 letters and a newline),
 * filled so that every page is really there before the clock starts.
 *
 * @param {number} bytes
 */
export function textBuffer(bytes) {
  const buffer = new Uint8Array(bytes);
  for (let i = 0; i < 64; i++) buffer[i] = i === 63 ? 10 : 97 + (i % 26);
  for (let filled = 64; filled < bytes; filled *= 2) buffer.copyWithin(filled, 0, Math.min(filled, bytes - filled));
  return buffer;
}

/**
 * Scenario 4, stdin: `bytes` bytes through stdin into `wc -c`, per variant
 * and round; the count `wc` prints is checked, so a variant that loses
 * bytes fails instead of looking fast. Up to `rounds` rounds within `budgetMs`.
 *
 * @param {Variant[]} variants
 * @param {{ bytes: number, rounds: number, warmupRounds: number, budgetMs: number }} config
 * @returns {Promise<Record<string, { roundMs: number[] }>>}
 */
export async function stdinScenario(variants, { bytes, rounds, warmupRounds, budgetMs }) {
  const started = performance.now();
  /** @type {number[]} */
  const roundMs = [];
  const input = textBuffer(bytes);
  /** @type {Record<string, { roundMs: number[] }>} */
  const out = Object.fromEntries(variants.map((v) => [v.name, { roundMs: [] }]));
  /** @param {Variant} variant */
  const once = async (variant) => {
    if (!variant.execStdin) throw new Error(`${variant.name} has no execStdin`);
    const started = performance.now();
    const text = await variant.execStdin("wc -c", input);
    const ms = performance.now() - started;
    if (Number(text.trim()) !== bytes) throw new Error(`${variant.name}: wc -c said ${JSON.stringify(text)}`);
    return ms;
  };
  for (let i = 0; i < warmupRounds; i++) for (const variant of variants) await once(variant);
  for (let round = 0; round < rounds && roomForAnotherRound(started, roundMs, budgetMs); round++) {
    const roundStarted = performance.now();
    for (const variant of rotate(variants, round)) out[variant.name].roundMs.push(await once(variant));
    roundMs.push(performance.now() - roundStarted);
  }
  return out;
}

/**
 * What `/proc/<pid>/stat` says, or undefined once the process is reaped.
 *
 * @param {number} pid
 * @returns {{ state: string, ppid: number, session: number, threads: number } | undefined}
 */
function readStat(pid) {
  let line;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]), session: Number(fields[3]), threads: Number(fields[17]) };
}

/**
 * Zombies (and dead entries) count as gone: they run nothing and wait only to be reaped. A `Z` whose
 * main thread exited while other threads run is not gone: its thread count says so.
 */
const isGone = (/** @type {number} */ pid) => {
  const stat = readStat(pid);
  if (stat === undefined) return true;
  if (stat.state === "Z") return stat.threads <= 1;
  return stat.state === "X" || stat.state === "x";
};

/** @param {number} pid */
function readComm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "latin1").trim();
  } catch {
    return "";
  }
}

/** @param {number} pid */
function readCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return "";
  }
}

/**
 * The tree of the command carrying `marker`: its leader (a child of this
 * process whose command line holds the marker) and every descendant, by
 * walking parent ids. Works whether or not the variant made a new session.
 *
 * @param {string} marker
 * @returns {number[]} The leader first, then its descendants; empty when not found.
 */
function findTree(marker) {
  /** @type {Map<number, number>} pid → ppid */
  const parents = new Map();
  let leader = -1;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat === undefined) continue;
    parents.set(pid, stat.ppid);
    if (stat.ppid === process.pid && readCmdline(pid).includes(marker)) leader = pid;
  }
  if (leader === -1) return [];
  const tree = [leader];
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.includes(ppid) && !tree.includes(pid)) {
        tree.push(pid);
        grew = true;
      }
    }
  }
  return tree;
}

/**
 * Scenario 5, kill latency: start `sleep 30 & sleep 30 & wait` (a tree
 * that honours SIGTERM), wait until both sleeps run, abort, and poll
 * `/proc` until every process of the tree is gone (zombies count as gone).
 * Measures abort → tree gone, and abort → the variant's call settled. A
 * variant whose tree is not gone within `capMs` is counted as leaving
 * survivors, which are then SIGKILLed so nothing outlives the benchmark.
 *
 * @param {Variant[]} variants
 * @param {{ runs: number, warmupRuns: number, pollMs: number, capMs: number, budgetMs: number,
 *   runsFor?: Record<string, number> }} config `runsFor` lowers the count for slow variants (peers);
 *   cycles stop early when the next one would overrun `budgetMs`.
 * @returns {Promise<Record<string, { goneMs: number[], settledMs: number[], survived: number, runs: number }>>}
 */
export async function killScenario(variants, { runs, warmupRuns, pollMs, capMs, budgetMs, runsFor = {} }) {
  const started = performance.now();
  /** @type {Record<string, { goneMs: number[], settledMs: number[], survived: number, runs: number }>} */
  const out = Object.fromEntries(variants.map((v) => [v.name, { goneMs: [], settledMs: [], survived: 0, runs: 0 }]));
  let serial = 0;
  /** @param {Variant} variant @param {boolean} measured */
  const once = async (variant, measured) => {
    if (!variant.execAbortable) throw new Error(`${variant.name} has no execAbortable`);
    const marker = `dsh-bench-kill-${process.pid}-${serial++}`;
    const controller = new AbortController();
    let settledAt = NaN;
    const call = variant.execAbortable(`: ${marker}; sleep 30 & sleep 30 & wait`, controller.signal).then(
      () => settledAt = performance.now(),
      () => settledAt = performance.now(),
    );
    /** @type {number[]} */
    let tree = [];
    const upBy = performance.now() + 5_000;
    while (tree.filter((pid) => readComm(pid) === "sleep").length < 2) {
      if (performance.now() > upBy) throw new Error(`${variant.name}: the tree did not start`);
      await sleep(2);
      tree = findTree(marker);
    }
    const abortedAt = performance.now();
    controller.abort();
    let goneAt = NaN;
    while (performance.now() - abortedAt < capMs) {
      if (tree.every(isGone)) {
        goneAt = performance.now();
        break;
      }
      await sleep(pollMs);
    }
    if (Number.isNaN(goneAt)) {
      for (const pid of tree) {
        try {
          process.kill(pid, "SIGKILL");
        } catch { /* already gone */ }
      }
    }
    await call;
    if (!measured) return;
    const result = out[variant.name];
    result.runs++;
    result.settledMs.push(settledAt - abortedAt);
    if (Number.isNaN(goneAt)) result.survived++;
    else result.goneMs.push(goneAt - abortedAt);
  };
  for (const variant of variants) for (let i = 0; i < warmupRuns; i++) await once(variant, false);
  // The variants that kill the tree first, interleaved; then the ones given fewer cycles (each of which
  // waits `capMs` for a tree that does not go), so their slow cycles never crowd the others out of the budget.
  for (const group of [variants.filter((v) => !(v.name in runsFor)), variants.filter((v) => v.name in runsFor)]) {
    /** @type {number[]} */
    const cycleMs = [];
    const most = Math.max(0, ...group.map((v) => runsFor[v.name] ?? runs));
    for (let i = 0; i < most && roomForAnotherRound(started, cycleMs, budgetMs); i++) {
      const cycleStarted = performance.now();
      for (const variant of rotate(group, i)) {
        if (i < (runsFor[variant.name] ?? runs)) await once(variant, true);
      }
      cycleMs.push(performance.now() - cycleStarted);
    }
  }
  return out;
}

/**
 * Resolves once `count` bytes equal to `byte` have arrived through `feed`, counted from the call: the
 * terminal variants' way to wait for a round trip's bytes whatever chunks they come in.
 */
export class ByteCounter {
  #byte = 0;
  #left = 0;
  /** @type {(() => void) | undefined} */
  #resolve;

  /**
   * @param {number} byte
   * @param {number} count
   * @returns {Promise<void>}
   */
  expect(byte, count) {
    this.#byte = byte;
    this.#left = count;
    return new Promise((resolve) => this.#resolve = resolve);
  }

  /** @param {Uint8Array | string} chunk */
  feed(chunk) {
    if (this.#resolve === undefined) return;
    for (let i = 0; i < chunk.length; i++) {
      const code = typeof chunk === "string" ? chunk.charCodeAt(i) : chunk[i];
      if (code === this.#byte && --this.#left === 0) {
        const resolve = this.#resolve;
        this.#resolve = undefined;
        resolve();
        return;
      }
    }
  }
}

/**
 * Scenario 7, terminals: the round trip of `x\n` typed into a `cat` on a pseudo-terminal until its echo and
 * `cat`'s line are back, first with one terminal open per variant, then with `open` of them open at once
 * (typed into in turn). Round trips interleave across the variants one by one. Per variant: every round
 * trip's time with one terminal (`oneMs`) and with `open` terminals (`manyMs`).
 *
 * @param {Variant[]} variants
 * @param {{ trips: number, open: number, rounds: number, warmupTrips: number, budgetMs: number }} config
 * @returns {Promise<Record<string, { oneMs: number[], manyMs: number[], open: number }>>}
 */
export async function terminalScenario(variants, { trips, open, rounds, warmupTrips, budgetMs }) {
  const started = performance.now();
  /** @type {Record<string, { oneMs: number[], manyMs: number[], open: number }>} */
  const out = Object.fromEntries(variants.map((v) => [v.name, { oneMs: [], manyMs: [], open }]));
  /** @type {Map<string, Terminal[]>} */
  const terminals = new Map();
  /** @param {Variant} variant */
  const openOne = async (variant) => {
    if (!variant.openTerminal) throw new Error(`${variant.name} has no openTerminal`);
    const terminal = await variant.openTerminal("cat");
    // The first trip waits for cat to have started and the terminal to be set up.
    await terminal.roundTrip();
    terminals.get(variant.name)?.push(terminal);
  };
  /**
   * @param {number} count How many of each variant's terminals to type into, in turn.
   * @param {"oneMs" | "manyMs" | undefined} into
   * @param {number} tripCount
   */
  const measure = async (count, into, tripCount) => {
    for (let i = 0; i < tripCount; i++) {
      for (const variant of rotate(variants, i)) {
        const list = /** @type {Terminal[]} */ (terminals.get(variant.name));
        const terminal = list[i % Math.min(count, list.length)];
        const tripStarted = performance.now();
        await terminal.roundTrip();
        if (into) out[variant.name][into].push(performance.now() - tripStarted);
      }
    }
  };
  try {
    for (const variant of variants) {
      terminals.set(variant.name, []);
      await openOne(variant);
    }
    await measure(1, undefined, warmupTrips);
    /** @type {number[]} */
    const roundMs = [];
    for (let round = 0; round < rounds && roomForAnotherRound(started, roundMs, budgetMs); round++) {
      const roundStarted = performance.now();
      await measure(1, "oneMs", trips);
      roundMs.push(performance.now() - roundStarted);
    }
    for (let k = 1; k < open; k++) for (const variant of variants) await openOne(variant);
    await measure(open, undefined, warmupTrips);
    roundMs.length = 0;
    const manyStarted = performance.now();
    for (let round = 0; round < rounds && roomForAnotherRound(manyStarted, roundMs, budgetMs); round++) {
      const roundStarted = performance.now();
      await measure(open, "manyMs", trips);
      roundMs.push(performance.now() - roundStarted);
    }
  } finally {
    await Promise.all([...terminals.values()].flat().map((terminal) => terminal.close()));
  }
  return out;
}

/**
 * Runs one scenario with the worker's variants and prints the result as
 * one JSON line on stdout: the protocol between a worker and `main.ts`.
 *
 * @param {{ scenario: string, variant?: string } & Record<string, any>} config
 * @param {Variant[]} variants
 * @param {{ runtime: string, version: string }} who
 */
export async function runWorker(config, variants, who) {
  /** @type {Record<string, keyof Variant>} */
  const method = {
    latency: "exec",
    concurrent: "exec",
    "big-output": "bigOutput",
    stdin: "execStdin",
    kill: "execAbortable",
    sandboxed: "execSandboxed",
    terminal: "openTerminal",
    mcp: "execTool",
    engines: "execEngine",
  };
  // The variants that take part in this scenario, or the ones the orchestrator names.
  const pick = variants.filter((v) =>
    config.variants
      ? /** @type {string[]} */ (config.variants).includes(v.name)
      : v[method[config.scenario]] && !(config.scenario === "concurrent" && v.sequential)
  );
  /** @type {unknown} */
  let results;
  switch (config.scenario) {
    case "latency":
      results = await latencyScenario(pick, config.latency);
      break;
    case "concurrent":
      results = await concurrentScenario(pick, config.concurrent);
      break;
    case "big-output": {
      const variant = variants.find((v) => v.name === config.variant);
      if (!variant) throw new Error(`unknown variant ${config.variant}`);
      results = { [variant.name]: await bigOutputScenario(variant, config.bigOutput) };
      break;
    }
    case "stdin":
      results = await stdinScenario(pick, config.stdin);
      break;
    case "kill":
      results = await killScenario(pick, config.kill);
      break;
    case "sandboxed":
      results = await latencyScenario(pick, config.sandboxed, "execSandboxed");
      break;
    case "terminal":
      results = await terminalScenario(pick, config.terminal);
      break;
    case "mcp":
      results = await latencyScenario(pick, config.mcp, "execTool");
      break;
    case "engines":
      results = await latencyScenario(pick, config.engines, "execEngine");
      break;
    default:
      throw new Error(`unknown scenario ${config.scenario}`);
  }
  process.stdout.write(JSON.stringify({ ...who, scenario: config.scenario, results }) + "\n");
}
