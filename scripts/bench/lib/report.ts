/**
 * Turns the workers' raw samples into the markdown report: one table per
 * scenario and runtime (medians, ratios against the raw spawn and, on
 * Node, `run()` against each peer) and the final targets table.
 *
 * Conventions: a time ratio is shown as the relative difference (`+3.1%`
 * means 3.1% slower than the reference, `−19.0%` faster); a speed ratio as
 * a factor (`×0.93` is 93% of the reference's MiB/s).
 *
 * @module
 */

import type { BenchConfig } from "./config.ts";
import type { MachineInfo } from "./machine.ts";
import { duration, fixed, median, mib, percent, quantile, times } from "./stats.ts";
import type { Runtime } from "./workers.ts";

/** One measured 1 GiB run (one worker process). */
export interface BigOutputSample {
  ms: number;
  bytes: number;
  baselineRss: number;
  sampledGrowth: number;
  hwmGrowth: number | null;
  peakGrowth: number;
}

/** Everything one runtime measured, by scenario and variant. */
export interface LegResults {
  runtime: Runtime;
  /** The runtime's version, as the worker reported it. */
  version: string;
  /** The name of the raw baseline variant. */
  rawName: string;
  /** The peers' variant names (Node only). */
  peers: string[];
  latency?: Record<string, { roundMeanMs: number[]; callMs: number[] }>;
  /** `sliceWallMs`: each slice's wall time, in the same order for every variant (absent in older results). */
  concurrent?: Record<string, { roundWallMs: number[]; sliceWallMs?: number[] }>;
  bigOutput?: Record<string, BigOutputSample[]>;
  stdin?: Record<string, { roundMs: number[] }>;
  kill?: Record<string, { goneMs: number[]; settledMs: number[]; survived: number; runs: number }>;
  sandboxed?: Record<string, { roundMeanMs: number[]; callMs: number[] }>;
  /** Why the sandboxed scenario was not measured (no bubblewrap, say). */
  sandboxedSkipped?: string;
}

/** One line of the targets table. */
export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const RUN = "run()";
const MiB = 1024 * 1024;

/** What each big-output variant does with the stream, for the table. */
const BIG_OUTPUT_DISK: Record<string, string> = {
  "run()": "64 MiB spilled, then dropped (default `maxSpillBytes`)",
  "run() spill all": "all of it (`maxSpillBytes` 2 GiB)",
  "raw spawn": "all of it (`writeSync` per chunk)",
  "raw Deno.Command": "all of it (BYOB buffer, `writeSync` per chunk)",
  "raw for-await": "all of it (default reader, `writeSync` per chunk)",
  "execa": "all of it (`stdout: { file }, buffer: false`: an fs.WriteStream)",
};

/** A markdown table; the first column is left-aligned, the others right-aligned. */
export function table(headers: string[], rows: string[][]): string {
  const align = headers.map((_, i) => i === 0 ? ":--" : "--:");
  return [headers, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** Rows in report order: run() first, the raw baseline, the peers, then the rest. */
function ordered(names: string[], leg: LegResults): string[] {
  const rank = (name: string): number => {
    if (name === RUN) return 0;
    if (name.startsWith(RUN)) return 1;
    if (name === leg.rawName) return 2;
    const peer = leg.peers.indexOf(name);
    return peer >= 0 ? 3 + peer : 10;
  };
  return [...names].sort((a, b) => rank(a) - rank(b));
}

/** `run()` against another variant, in time: negative means run() is faster. */
function runVersus(runTime: number, otherTime: number, name: string): string {
  if (name === RUN) return "—";
  const difference = runTime / otherTime - 1;
  return `${percent(difference)} ${difference < 0 ? "(run() faster)" : "(run() slower)"}`;
}

function legTitle(leg: LegResults): string {
  return leg.runtime === "node" ? `Node ${leg.version}` : `Deno ${leg.version}`;
}

/** Scenario 1. */
export function latencyTable(leg: LegResults, config: BenchConfig): string {
  return sequentialTable(
    leg.latency!,
    leg,
    leg.rawName,
    `### 1. Latency: ${config.latency.calls} sequential \`bash -c true\` — ${legTitle(leg)}`,
  );
}

/** The raw baseline of the sandboxed scenario: the library's own argv, spawned directly. */
export const RAW_BWRAP = "raw bwrap";

/** Scenario 6. */
export function sandboxedTable(leg: LegResults, config: BenchConfig): string {
  return sequentialTable(
    leg.sandboxed!,
    leg,
    RAW_BWRAP,
    `### 6. Sandboxed: ${config.sandboxed.calls} sequential \`bash -c true\` in bubblewrap — ${legTitle(leg)}`,
  );
}

/** A table of sequential calls (scenarios 1 and 6), against `rawName`. */
function sequentialTable(
  data: Record<string, { roundMeanMs: number[]; callMs: number[] }>,
  leg: LegResults,
  rawName: string,
  title: string,
): string {
  const mean = (name: string) => median(data[name].roundMeanMs);
  const raw = mean(rawName);
  const rows = ordered(Object.keys(data), { ...leg, rawName }).map((name) => [
    name === RUN ? `**${name}**` : name,
    fixed(mean(name), 2),
    fixed(quantile(data[name].callMs, 0.5), 2),
    fixed(quantile(data[name].callMs, 0.9), 2),
    name === rawName ? "—" : percent(mean(name) / raw - 1),
    runVersus(mean(RUN), mean(name), name),
  ]);
  return [
    title,
    "",
    table([
      "variant",
      `ms/call (median of ${data[RUN].roundMeanMs.length} rounds)`,
      "p50 call ms",
      "p90 call ms",
      "vs raw",
      "run() vs this",
    ], rows),
  ].join("\n");
}

/**
 * How much longer `name` took than `base` in the concurrent scenario: the
 * median, over the slices, of the ratio of each of its slices to `base`'s
 * slice of the same round and batch (run right beside it). A burst of load
 * from elsewhere that lasts a few slices moves a few ratios, not the
 * median. Results without slices fall back on the ratio of the round medians.
 */
export function concurrentRatio(data: NonNullable<LegResults["concurrent"]>, name: string, base: string): number {
  const mine = data[name].sliceWallMs;
  const theirs = data[base].sliceWallMs;
  if (mine === undefined || theirs === undefined || mine.length !== theirs.length || mine.length === 0) {
    return median(data[name].roundWallMs) / median(data[base].roundWallMs);
  }
  return median(mine.map((ms, i) => ms / theirs[i]));
}

/** Scenario 2. */
export function concurrentTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.concurrent!;
  const { commands, inFlight, batches } = config.concurrent;
  const wall = (name: string) => median(data[name].roundWallMs);
  const slices = data[RUN].sliceWallMs?.length ?? 0;
  const rows = ordered(Object.keys(data), leg).map((name) => [
    name === RUN ? `**${name}**` : name,
    fixed(wall(name), 0),
    fixed(commands / (wall(name) / 1000), 1),
    name === leg.rawName ? "—" : percent(concurrentRatio(data, name, leg.rawName) - 1),
    name === RUN ? "—" : runVersus(concurrentRatio(data, RUN, name), 1, name),
  ]);
  return [
    `### 2. Concurrent throughput: ${commands} \`echo\`, ${inFlight} in flight ` +
    `(${batches} interleaved slices) — ${legTitle(leg)}`,
    "",
    table([
      "variant",
      `wall ms (median of ${data[RUN].roundWallMs.length} rounds)`,
      "commands/s",
      slices > 0 ? `vs raw (time, median of ${slices} paired slices)` : "vs raw (time)",
      "run() vs this",
    ], rows),
  ].join("\n");
}

/** MiB/s of one big-output sample. */
const speed = (sample: BigOutputSample): number => sample.bytes / MiB / (sample.ms / 1000);

/** Scenario 3. */
export function bigOutputTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.bigOutput!;
  const mibs = (name: string) => median(data[name].map(speed));
  const raw = mibs(leg.rawName);
  const rows = ordered(Object.keys(data), leg).map((name) => {
    const growth = data[name].map((sample) => sample.peakGrowth);
    return [
      name === RUN ? `**${name}**` : name,
      fixed(mibs(name), 0),
      fixed(median(data[name].map((sample) => sample.ms)) / 1000, 2),
      `${mib(median(growth))} / ${mib(Math.max(...growth))}`,
      BIG_OUTPUT_DISK[name] ?? "",
      name === leg.rawName ? "—" : times(mibs(name) / raw),
    ];
  });
  const gib = config.bigOutput.bytes / (1024 * MiB);
  return [
    `### 3. Big output: ${gib === 1 ? "1 GiB" : `${mib(config.bigOutput.bytes)} MiB`} on stdout — ${legTitle(leg)}`,
    "",
    table([
      "variant",
      `MiB/s (median of ${data[RUN].length})`,
      "seconds",
      "peak RSS growth MiB (median / max)",
      "written to disk",
      "speed vs raw",
    ], rows),
  ].join("\n");
}

/** Scenario 4. */
export function stdinTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.stdin!;
  const ms = (name: string) => median(data[name].roundMs);
  const mibs = (name: string) => config.stdin.bytes / MiB / (ms(name) / 1000);
  const raw = mibs(leg.rawName);
  const rows = ordered(Object.keys(data), leg).map((name) => [
    name === RUN ? `**${name}**` : name,
    fixed(mibs(name), 0),
    fixed(ms(name), 0),
    name === leg.rawName ? "—" : times(mibs(name) / raw),
    runVersus(ms(RUN), ms(name), name),
  ]);
  return [
    `### 4. Stdin: ${mib(config.stdin.bytes)} MiB into \`wc -c\` — ${legTitle(leg)}`,
    "",
    table([
      "variant",
      `MiB/s (median of ${data[RUN].roundMs.length})`,
      "ms per run",
      "speed vs raw",
      "run() vs this",
    ], rows),
  ].join("\n");
}

/** Scenario 5. */
export function killTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.kill!;
  const rows = ordered(Object.keys(data), leg).map((name) => {
    const { goneMs, settledMs, survived, runs } = data[name];
    return [
      name === RUN ? `**${name}**` : name,
      fixed(median(goneMs), 1),
      fixed(quantile(goneMs, 0.9), 1),
      goneMs.length > 0 ? fixed(Math.max(...goneMs), 1) : "—",
      fixed(median(settledMs), 1),
      survived === 0 ? `${runs}/${runs}` : `${runs - survived}/${runs} (rest alive after ${config.kill.capMs} ms)`,
    ];
  });
  return [
    `### 5. Kill latency: abort \`sleep 30 & sleep 30 & wait\` — ${legTitle(leg)}`,
    "",
    table([
      "variant",
      "abort → tree gone, median ms",
      "p90 ms",
      "max ms",
      "abort → call settled, median ms",
      "tree gone",
    ], rows),
  ].join("\n");
}

/** `1 GiB`, `256 MiB`: a byte count as the targets name it. */
function size(bytes: number): string {
  return bytes % (1024 * MiB) === 0 ? `${bytes / (1024 * MiB)} GiB` : `${mib(bytes).replace(/\.0$/, "")} MiB`;
}

/**
 * The targets of issues 5 and 14, measured on one leg: latency and 16-way throughput within 5% of the raw
 * spawn (issue 14; 10% before), the sandboxed run within 10% of the raw bubblewrap spawn.
 */
export function targets(leg: LegResults, config: BenchConfig): TargetRow[] {
  const rows: TargetRow[] = [];
  const who = legTitle(leg).split(" ")[0];
  const raw = leg.rawName;
  const within = (label: string, run: number, base: number, unit: string, margin = 0.05, against = raw) =>
    rows.push({
      target: `${who} ${label}: run() within ${Math.round(margin * 100)}% of ${against}`,
      measured: `${percent(run / base - 1)} (${fixed(run, 2)} vs ${fixed(base, 2)} ${unit})`,
      met: run <= base * (1 + margin),
    });
  const faster = (label: string, run: number, peers: [string, number][], unit: string) => {
    for (const [peer, time] of peers) {
      rows.push({
        target: `${who} ${label}: run() faster than ${peer}`,
        measured: `${percent(run / time - 1)} (${fixed(run, 2)} vs ${fixed(time, 2)} ${unit})`,
        met: run < time,
      });
    }
  };
  if (leg.latency) {
    const mean = (name: string) => median(leg.latency![name].roundMeanMs);
    within("latency", mean(RUN), mean(raw), "ms/call");
    faster("latency", mean(RUN), leg.peers.filter((p) => leg.latency![p]).map((p) => [p, mean(p)]), "ms/call");
  }
  if (leg.concurrent) {
    const data = leg.concurrent;
    const wall = (name: string) => median(data[name].roundWallMs);
    // The ratio is the paired slices' (see concurrentRatio); the times shown beside it are the round medians.
    const paired = (name: string) => ({ ratio: concurrentRatio(data, RUN, name), times: [wall(RUN), wall(name)] });
    const vsRaw = paired(raw);
    rows.push({
      target: `${who} concurrent throughput: run() within 5% of ${raw}`,
      measured: `${percent(vsRaw.ratio - 1)} (paired slices; ${fixed(vsRaw.times[0], 0)} vs ${
        fixed(vsRaw.times[1], 0)
      } ms wall)`,
      met: vsRaw.ratio <= 1.05,
    });
    for (const peer of leg.peers.filter((p) => data[p])) {
      const vsPeer = paired(peer);
      rows.push({
        target: `${who} concurrent throughput: run() faster than ${peer}`,
        measured: `${percent(vsPeer.ratio - 1)} (paired slices; ${fixed(vsPeer.times[0], 0)} vs ${
          fixed(vsPeer.times[1], 0)
        } ms wall)`,
        met: vsPeer.ratio < 1,
      });
    }
  }
  if (leg.bigOutput?.[RUN] && leg.bigOutput[raw]) {
    const mibs = (name: string) => median(leg.bigOutput![name].map(speed));
    rows.push({
      target: `${who} ${size(config.bigOutput.bytes)} output: run() ≥ 0.8× the raw drain-to-file loop`,
      measured: `${times(mibs(RUN) / mibs(raw))} (${fixed(mibs(RUN), 0)} vs ${fixed(mibs(raw), 0)} MiB/s)`,
      met: mibs(RUN) >= 0.8 * mibs(raw),
    });
    const growth = leg.bigOutput[RUN].map((sample) => sample.peakGrowth);
    rows.push({
      target: `${who} ${size(config.bigOutput.bytes)} output: run() peak RSS growth < 64 MiB`,
      measured: `${mib(Math.max(...growth))} MiB (worst of ${growth.length})`,
      met: Math.max(...growth) < 64 * MiB,
    });
  }
  if (leg.stdin) {
    const ms = (name: string) => median(leg.stdin![name].roundMs);
    rows.push({
      target: `${who} ${size(config.stdin.bytes)} stdin: run() ≥ 0.9× raw`,
      measured: `${times(ms(raw) / ms(RUN))} (${fixed(ms(RUN), 0)} vs ${fixed(ms(raw), 0)} ms)`,
      met: ms(RUN) * 0.9 <= ms(raw),
    });
  }
  if (leg.kill?.[RUN]) {
    const { goneMs, survived } = leg.kill[RUN];
    rows.push({
      target: `${who} kill latency: median abort → group gone < 50 ms`,
      measured: `${fixed(median(goneMs), 1)} ms${survived > 0 ? ` (${survived} runs not gone in time)` : ""}`,
      met: survived === 0 && median(goneMs) < 50,
    });
  }
  if (leg.sandboxed?.[RUN] && leg.sandboxed[RAW_BWRAP]) {
    const mean = (name: string) => median(leg.sandboxed![name].roundMeanMs);
    within("sandboxed latency", mean(RUN), mean(RAW_BWRAP), "ms/call", 0.1, RAW_BWRAP);
  }
  return rows;
}

/** The targets table. */
export function targetsTable(rows: TargetRow[]): string {
  const status = (met: boolean | undefined) => met === undefined ? "n/a" : met ? "met" : "**not met**";
  return [
    "### Targets",
    "",
    table(["target", "measured", "status"], rows.map((row) => [row.target, row.measured, status(row.met)])),
  ].join("\n");
}

/** The header: where and with what the numbers were measured. */
export function header(
  machine: MachineInfo,
  peers: Record<string, string> | undefined,
  config: BenchConfig,
  quick: boolean,
): string {
  const lines = [
    `## Benchmark results${quick ? " (--quick: smoke sizes, not for reading)" : ""}`,
    "",
    `- Date: ${machine.date}`,
    `- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${
      fixed(machine.memoryGiB, 1)
    } GiB RAM, ${machine.kernel}; ` +
    `load average at start ${machine.loadAverage}`,
    `- Runtimes: Node ${machine.node ?? "(not run)"} (the npm package built from this tree), ` +
    `Deno ${machine.deno} (the sources)`,
  ];
  if (peers) {
    lines.push(`- Peers: ${Object.entries(peers).map(([name, version]) => `${name} ${version}`).join(", ")}`);
  }
  lines.push(
    `- Sizes (rounds are maxima; a scenario stops early when the next round would overrun its time budget): ` +
      `latency ${config.latency.calls} calls × ${config.latency.rounds} rounds; ` +
      `concurrent ${config.concurrent.commands} commands (${config.concurrent.inFlight} in flight) × ` +
      `${config.concurrent.rounds}; big output ${mib(config.bigOutput.bytes)} MiB × ${config.bigOutput.rounds}; ` +
      `stdin ${mib(config.stdin.bytes)} MiB × ${config.stdin.rounds}; kill ${config.kill.runs} cycles; ` +
      `sandboxed ${config.sandboxed.calls} calls × ${config.sandboxed.rounds}`,
  );
  return lines.join("\n");
}

/** The closing line: how long the whole bench took. */
export function footer(elapsedMs: number): string {
  return `Total bench time: ${duration(elapsedMs)}.`;
}
