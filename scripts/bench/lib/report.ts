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
  terminal?: Record<string, { oneMs: number[]; manyMs: number[]; open: number }>;
  mcp?: Record<string, { roundMeanMs: number[]; callMs: number[] }>;
  engines?: Record<string, { roundMeanMs: number[]; callMs: number[] }>;
  /** Why the engines scenario was not measured (no docker, sshd, or root). */
  enginesSkipped?: string;
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
function runVersus(runTime: number, otherTime: number, name: string, who = RUN): string {
  if (name === who) return "—";
  const difference = runTime / otherTime - 1;
  return `${percent(difference)} ${difference < 0 ? `(${who} faster)` : `(${who} slower)`}`;
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
/** The issue's reference of the sandboxed scenario: `bwrap --ro-bind / / --dev /dev --proc /proc bash -c`. */
export const MINIMAL_BWRAP = "minimal bwrap";
/** The warm session's variant in the latency scenario. */
export const SESSION = "run() session";
/** The terminal scenario's baseline. */
export const RAW_PTY = "raw node-pty";
/** The MCP scenario's variants. */
export const MCP_CALL = "run() MCP tools/call bash";
export const TOOL_CALL = "run() bash tool";
/** The engines scenario's variants: the library's and the raw client's, per engine. */
export const ENGINE_VARIANTS = {
  docker: { ours: 'docker run("true")', raw: "docker exec <c> true" },
  ssh: { ours: 'ssh run("true")', raw: "ssh -S <ctl> host true" },
} as const;

/** Scenario 6. */
export function sandboxedTable(leg: LegResults, config: BenchConfig): string {
  return sequentialTable(
    leg.sandboxed!,
    leg,
    RAW_BWRAP,
    `### 6. Sandboxed: ${config.sandboxed.calls} sequential \`bash -c true\` in bubblewrap — ${legTitle(leg)}`,
  );
}

/** Scenario 7. */
export function terminalTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.terminal!;
  const rows = ordered(Object.keys(data), { ...leg, rawName: RAW_PTY }).map((name) => {
    const one = quantile(data[name].oneMs, 0.5);
    const many = quantile(data[name].manyMs, 0.5);
    return [
      name === RUN ? `**${name}**` : name,
      fixed(one, 3),
      fixed(quantile(data[name].oneMs, 0.9), 3),
      fixed(many, 3),
      fixed(quantile(data[name].manyMs, 0.9), 3),
      percent(many / one - 1),
      name === RAW_PTY ? "—" : percent(one / quantile(data[RAW_PTY].oneMs, 0.5) - 1),
    ];
  });
  const open = data[RUN]?.open ?? config.terminal.open;
  return [
    `### 7. Terminals: \`write("x\\n")\` to a \`cat\` on a terminal until its echo and line are read, ` +
    `${data[RUN]?.oneMs.length ?? 0} round trips with one open, ${data[RUN]?.manyMs.length ?? 0} with ${open} open — ` +
    legTitle(leg),
    "",
    table([
      "variant",
      "p50 ms (1 open)",
      "p90 ms (1 open)",
      `p50 ms (${open} open)`,
      `p90 ms (${open} open)`,
      `${open} open vs 1`,
      "vs raw (1 open)",
    ], rows),
  ].join("\n");
}

/** Scenario 8. */
export function mcpTable(leg: LegResults, config: BenchConfig): string {
  return sequentialTable(
    leg.mcp!,
    leg,
    leg.rawName,
    `### 8. MCP: ${config.mcp.calls} sequential \`true\` as a \`bash\` tool call (a session each) — ${legTitle(leg)}`,
    TOOL_CALL,
  );
}

/** Scenario 9. */
export function enginesTable(leg: LegResults, config: BenchConfig): string {
  const data = leg.engines!;
  const rows: string[][] = [];
  for (const [engine, { ours, raw }] of Object.entries(ENGINE_VARIANTS)) {
    if (!data[ours] || !data[raw]) continue;
    // `--against`'s build of the library, when measured, follows this one.
    const builds = Object.keys(data).filter((name) => name.startsWith(`${ours} @ `));
    for (const name of [ours, ...builds, raw]) {
      rows.push([
        engine,
        name,
        fixed(median(data[name].roundMeanMs), 2),
        fixed(quantile(data[name].callMs, 0.5), 2),
        fixed(quantile(data[name].callMs, 0.95), 2),
        name === raw ? "" : times(median(data[name].roundMeanMs) / median(data[raw].roundMeanMs)),
      ]);
    }
  }
  const rounds = Object.values(data)[0]?.roundMeanMs.length ?? 0;
  return [
    `### 9. Engines: ${config.engines.calls} interleaved \`true\` on a container and over SSH, ` +
    `against the engine's raw client (median of ${rounds} rounds) — ${legTitle(leg)}`,
    "",
    table(["engine", "variant", "ms/call", "p50 call ms", "p95 call ms", "÷ raw"], rows),
  ].join("\n");
}

/** A table of sequential calls (scenarios 1, 6 and 8), against `rawName`. */
function sequentialTable(
  data: Record<string, { roundMeanMs: number[]; callMs: number[] }>,
  leg: LegResults,
  rawName: string,
  title: string,
  main = RUN,
): string {
  const mean = (name: string) => median(data[name].roundMeanMs);
  const raw = mean(rawName);
  const mainMean = data[main] ? mean(main) : NaN;
  const rows = ordered(Object.keys(data), { ...leg, rawName }).map((name) => [
    name === main ? `**${name}**` : name,
    fixed(mean(name), 2),
    fixed(quantile(data[name].callMs, 0.5), 2),
    fixed(quantile(data[name].callMs, 0.9), 2),
    name === rawName ? "—" : percent(mean(name) / raw - 1),
    name === main ? "—" : runVersus(mainMean, mean(name), name, main),
  ]);
  return [
    title,
    "",
    table([
      "variant",
      `ms/call (median of ${Object.values(data)[0].roundMeanMs.length} rounds)`,
      "p50 call ms",
      "p90 call ms",
      "vs raw",
      `${main} vs this`,
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
    if (leg.latency[SESSION]) {
      rows.push({
        target: `${who} warm session command: below a fresh ${raw}`,
        measured: `${times(mean(SESSION) / mean(raw))} (${fixed(mean(SESSION), 2)} vs ${fixed(mean(raw), 2)} ms/call)`,
        met: mean(SESSION) < mean(raw),
      });
    }
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
    if (leg.sandboxed[MINIMAL_BWRAP]) {
      within("sandboxed latency", mean(RUN), mean(MINIMAL_BWRAP), "ms/call", 0.5, MINIMAL_BWRAP);
    }
  }
  const terminal = leg.terminal?.[RUN];
  if (terminal && terminal.oneMs.length > 0) {
    const one = quantile(terminal.oneMs, 0.5);
    rows.push({
      target: `${who} terminal round trip: median ≤ 2 ms`,
      measured: `${fixed(one, 3)} ms`,
      met: one <= 2,
    });
    if (terminal.manyMs.length > 0) {
      const many = quantile(terminal.manyMs, 0.5);
      // The same package's own terminals, typed into the same way: what the kernel and node-pty grow by.
      const raw = leg.terminal?.[RAW_PTY];
      const rawGrowth = raw && raw.manyMs.length > 0
        ? `; ${RAW_PTY}: ${percent(quantile(raw.manyMs, 0.5) / quantile(raw.oneMs, 0.5) - 1)}`
        : "";
      rows.push({
        // "No growth" read with the noise of this machine: a tenth.
        target: `${who} terminal round trip with ${terminal.open} open: no growth (≤ +10%)`,
        measured: `${percent(many / one - 1)} (${fixed(many, 3)} vs ${fixed(one, 3)} ms${rawGrowth})`,
        met: many <= one * 1.1,
      });
    }
  }
  if (leg.mcp?.[MCP_CALL] && leg.mcp[TOOL_CALL]) {
    const mean = (name: string) => median(leg.mcp![name].roundMeanMs);
    const over = mean(MCP_CALL) - mean(TOOL_CALL);
    rows.push({
      target: `${who} MCP tools/call of bash: at most 1 ms over the library's own bash tool call`,
      measured: `${over >= 0 ? "+" : "−"}${fixed(Math.abs(over), 2)} ms (${fixed(mean(MCP_CALL), 2)} vs ${
        fixed(mean(TOOL_CALL), 2)
      } ms/call)`,
      met: over <= 1,
    });
  }
  if (leg.engines) {
    const mean = (name: string) => median(leg.engines![name].roundMeanMs);
    for (const [engine, { ours, raw: client }] of Object.entries(ENGINE_VARIANTS)) {
      if (!leg.engines[ours] || !leg.engines[client]) continue;
      const limit = engine === "docker" ? 1.1 : 1.2;
      rows.push({
        target: `${who} ${engine}: run("true") at most ${times(limit)} \`${client}\``,
        measured: `${times(mean(ours) / mean(client))} (${fixed(mean(ours), 1)} vs ${fixed(mean(client), 1)} ms/call)`,
        met: mean(ours) <= mean(client) * limit,
      });
    }
  }
  return rows;
}

/**
 * The table of issue 26, filled in from this run: each line a ratio measured in this run, with its target.
 * Cells read "ms of the reference" in the raw column and ratios to it elsewhere.
 */
export function issueTable(legs: LegResults[]): string {
  const rows: string[][] = [];
  const blank = ["", "", ""];
  for (const leg of legs) {
    const who = leg.runtime === "node" ? "Node" : "Deno";
    const peerCells = (ratio: (peer: string) => number | undefined) =>
      leg.runtime === "node"
        ? ["tinyexec", "nano-spawn", "execa"].map((peer) => {
          const value = ratio(peer);
          return value === undefined ? "" : times(value);
        })
        : blank;
    if (leg.latency?.[RUN] && leg.latency[leg.rawName]) {
      const mean = (name: string) => median(leg.latency![name].roundMeanMs);
      const raw = mean(leg.rawName);
      rows.push([
        `${who} \`run("true")\``,
        `${fixed(raw, 2)} ms`,
        times(mean(RUN) / raw),
        ...peerCells((peer) => leg.latency![peer] ? mean(peer) / raw : undefined),
        "≤ ×1.05, below tinyexec and nano-spawn",
      ]);
      if (leg.latency[SESSION]) {
        rows.push([
          `${who} warm \`session.exec("true")\` vs a fresh raw spawn`,
          `${fixed(raw, 2)} ms`,
          times(mean(SESSION) / raw),
          ...blank,
          "below ×1.00",
        ]);
      }
    }
    if (leg.concurrent?.[RUN] && leg.concurrent[leg.rawName]) {
      const data = leg.concurrent;
      rows.push([
        `${who} 16 in flight`,
        `${fixed(median(data[leg.rawName].roundWallMs), 0)} ms wall`,
        times(concurrentRatio(data, RUN, leg.rawName)),
        ...peerCells((peer) => data[peer] ? concurrentRatio(data, peer, leg.rawName) : undefined),
        "≤ ×1.05",
      ]);
    }
    if (leg.sandboxed?.[RUN] && leg.sandboxed[MINIMAL_BWRAP]) {
      const mean = (name: string) => median(leg.sandboxed![name].roundMeanMs);
      const own = leg.sandboxed[RAW_BWRAP] ? ` (${times(mean(RUN) / mean(RAW_BWRAP))} its own argv spawned raw)` : "";
      rows.push([
        `${who} sandboxed \`true\` vs a minimal \`bwrap\``,
        `${fixed(mean(MINIMAL_BWRAP), 2)} ms`,
        `${times(mean(RUN) / mean(MINIMAL_BWRAP))}${own}`,
        ...blank,
        "≤ ×1.5",
      ]);
    }
    const terminal = leg.terminal;
    if (terminal?.[RUN]?.oneMs.length && terminal[RAW_PTY]) {
      const p50 = (name: string, key: "oneMs" | "manyMs") => quantile(terminal[name][key], 0.5);
      rows.push([
        `${who} terminal round trip (p50; ${terminal[RUN].open} open vs 1)`,
        `${fixed(p50(RAW_PTY, "oneMs"), 3)} ms (node-pty)`,
        `${fixed(p50(RUN, "oneMs"), 3)} ms; ${times(p50(RUN, "manyMs") / p50(RUN, "oneMs"))}`,
        ...blank,
        "≤ 2 ms; no growth",
      ]);
    }
    if (leg.mcp?.[MCP_CALL] && leg.mcp[TOOL_CALL]) {
      const mean = (name: string) => median(leg.mcp![name].roundMeanMs);
      const over = mean(MCP_CALL) - mean(TOOL_CALL);
      rows.push([
        `${who} MCP \`tools/call\` of \`bash\` vs the library's own call`,
        `${fixed(mean(TOOL_CALL), 2)} ms`,
        `${over >= 0 ? "+" : "−"}${fixed(Math.abs(over), 2)} ms`,
        ...blank,
        "≤ +1 ms",
      ]);
    }
    if (leg.engines) {
      const mean = (name: string) => median(leg.engines![name].roundMeanMs);
      for (const [engine, { ours, raw }] of Object.entries(ENGINE_VARIANTS)) {
        if (!leg.engines[ours] || !leg.engines[raw]) continue;
        rows.push([
          `${who} ${engine === "docker" ? "Docker" : "SSH"} \`true\` vs \`${raw}\``,
          `${fixed(mean(raw), 1)} ms`,
          times(mean(ours) / mean(raw)),
          ...blank,
          engine === "docker" ? "≤ ×1.1" : "≤ ×1.2",
        ]);
      }
    } else if (leg.enginesSkipped) {
      rows.push([`${who} engines`, "not measured", leg.enginesSkipped, ...blank, ""]);
    }
    if (leg.bigOutput?.[RUN] && leg.bigOutput[leg.rawName]) {
      const mibs = (name: string) => median(leg.bigOutput![name].map(speed));
      const growth = Math.max(...leg.bigOutput[RUN].map((sample) => sample.peakGrowth));
      rows.push([
        `${who} 1 GiB output (speed; peak RSS growth)`,
        `${fixed(mibs(leg.rawName), 0)} MiB/s`,
        `${times(mibs(RUN) / mibs(leg.rawName))}; +${mib(growth)} MiB`,
        ...peerCells((peer) => leg.bigOutput![peer] ? mibs(peer) / mibs(leg.rawName) : undefined),
        "no regression",
      ]);
    }
    if (leg.stdin?.[RUN] && leg.stdin[leg.rawName]) {
      const ms = (name: string) => median(leg.stdin![name].roundMs);
      rows.push([
        `${who} stdin (speed)`,
        `${fixed(ms(leg.rawName), 0)} ms`,
        times(ms(leg.rawName) / ms(RUN)),
        ...peerCells((peer) => leg.stdin![peer] ? ms(leg.rawName) / ms(peer) : undefined),
        "no regression",
      ]);
    }
    if (leg.kill?.[RUN] && leg.kill[leg.rawName]) {
      const gone = (name: string) => median(leg.kill![name].goneMs);
      rows.push([
        `${who} kill (abort → tree gone)`,
        `${fixed(gone(leg.rawName), 1)} ms`,
        `${fixed(gone(RUN), 1)} ms`,
        ...peerCells(() => undefined),
        "no regression",
      ]);
    }
  }
  return [
    "### Issue 26's table, from this run",
    "",
    "Ratios are times over the reference in the raw column (speeds: the reference's time over the row's).",
    "",
    table(["", "raw / reference", "@dsh/shell", "tinyexec", "nano-spawn", "execa", "target"], rows),
  ].join("\n");
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
      `sandboxed ${config.sandboxed.calls} calls × ${config.sandboxed.rounds}; terminals ${config.terminal.trips} ` +
      `round trips × ${config.terminal.rounds} (1 open, then ${config.terminal.open}); MCP ${config.mcp.calls} calls × ` +
      `${config.mcp.rounds}; engines ${config.engines.calls} calls × ${config.engines.rounds}`,
  );
  return lines.join("\n");
}

/** The closing line: how long the whole bench took. */
export function footer(elapsedMs: number): string {
  return `Total bench time: ${duration(elapsedMs)}.`;
}
