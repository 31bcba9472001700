/**
 * The sizes and round counts of every scenario. The full configuration is
 * budgeted to finish `deno task bench` in about 12 minutes at most on a
 * 2-core machine (build and install included); `--quick` is a smoke run
 * of two minutes or so that exercises every code path with small sizes.
 *
 * @module
 */

const MiB = 1024 * 1024;

/**
 * A time budget per runtime, in milliseconds. A scenario runs up to its
 * round count, and stops earlier when the next round would overrun its
 * budget: on a machine that other work slows down, the bench reports fewer
 * rounds (the tables say how many) instead of running past 10 minutes.
 */
export type Budget = Record<"node" | "deno", number>;

/** Scenario 1: sequential latency of `true`. */
export interface LatencyConfig {
  /** Sequential calls per variant and round. */
  calls: number;
  /** Measured rounds; calls are interleaved across variants within a round. */
  rounds: number;
  /** Unmeasured calls per variant before the first round. */
  warmupCalls: number;
  budgetMs: Budget;
}

/** Scenario 2: concurrent throughput of `echo`. */
export interface ConcurrentConfig {
  /** Commands per variant and round. */
  commands: number;
  /** Commands in flight at once. */
  inFlight: number;
  /** Slices each variant's commands are run in, interleaved with the other variants' slices. */
  batches: number;
  /** Measured rounds; each round runs every variant once, in rotating order. */
  rounds: number;
  /** Unmeasured commands per variant before the first round. */
  warmupCommands: number;
  budgetMs: Budget;
}

/** Scenario 3: one big stdout. */
export interface BigOutputConfig {
  /** Bytes printed by `head -c`. */
  bytes: number;
  /** Bytes of the warm-up run each worker process makes before measuring. */
  warmupBytes: number;
  /** RSS sampling interval. */
  sampleMs: number;
  /** Measured rounds; each (variant, round) runs in a fresh worker process. */
  rounds: number;
  budgetMs: Budget;
}

/** Scenario 4: a big stdin. */
export interface StdinConfig {
  /** Bytes written to `wc -c`. */
  bytes: number;
  /** Measured rounds. */
  rounds: number;
  /** Unmeasured rounds before. */
  warmupRounds: number;
  budgetMs: Budget;
}

/** Scenario 5: kill latency. */
export interface KillConfig {
  /** Measured start/abort cycles per variant. */
  runs: number;
  /** Unmeasured cycles per variant before. */
  warmupRuns: number;
  /** `/proc` polling interval while waiting for the tree to go. */
  pollMs: number;
  /** How long to wait for the tree before counting survivors (and SIGKILLing them). */
  capMs: number;
  /** Fewer cycles for variants that never kill the tree (each costs `capMs`). */
  runsFor: Record<string, number>;
  budgetMs: Budget;
}

/**
 * Scenario 6: sequential latency of `true` in the sandbox (`createLocalShell({ sandbox: {} })`) against a raw
 * spawn of the very argv the library built (the `sh` status-fd wrapper, bubblewrap and its flags).
 */
export type SandboxedConfig = LatencyConfig;

/** Scenario 7: round trips through a `cat` on a pseudo-terminal, with one and with `open` terminals open. */
export interface TerminalConfig {
  /** Round trips per variant and round. */
  trips: number;
  /** Terminals open at once per variant in the second half. */
  open: number;
  /** Measured rounds, in each half. */
  rounds: number;
  /** Unmeasured round trips per variant before each half. */
  warmupTrips: number;
  budgetMs: Budget;
}

/** Scenario 8: sequential `true` as a model's `bash` tool call: through the MCP server and the library's own. */
export type McpConfig = LatencyConfig;

/** Scenario 9: sequential `true` on a container and over SSH, against each engine's raw client. */
export type EnginesConfig = LatencyConfig;

/** Everything the workers and the orchestrator need to know about sizes. */
export interface BenchConfig {
  latency: LatencyConfig;
  concurrent: ConcurrentConfig;
  bigOutput: BigOutputConfig;
  stdin: StdinConfig;
  kill: KillConfig;
  sandboxed: SandboxedConfig;
  terminal: TerminalConfig;
  mcp: McpConfig;
  engines: EnginesConfig;
}

/** Peers that leave the rest of a SIGTERMed tree running: a few cycles are enough to show it. */
const PEER_KILL_RUNS = { execa: 3, tinyexec: 3, "nano-spawn": 3 };

/**
 * The configuration of `deno task bench`. On an idle 2-core machine the
 * whole run took about 5 minutes before the terminal, MCP and engine
 * scenarios (issue 26), which add about 2; the budgets (about 11 minutes in
 * all, plus build, install and the engines' start) bound it on a busy one.
 */
export const FULL: BenchConfig = {
  latency: { calls: 300, rounds: 3, warmupCalls: 10, budgetMs: { node: 80_000, deno: 35_000 } },
  concurrent: {
    commands: 480,
    inFlight: 16,
    batches: 12,
    rounds: 3,
    warmupCommands: 32,
    budgetMs: { node: 80_000, deno: 35_000 },
  },
  bigOutput: {
    bytes: 1024 * MiB,
    warmupBytes: 16 * MiB,
    sampleMs: 5,
    rounds: 3,
    // One 1 GiB sample per variant is too noisy to read on a busy machine: room for 2–3 rounds.
    budgetMs: { node: 90_000, deno: 60_000 },
  },
  // execa alone takes 3–6 s per 256 MiB (it re-chunks the buffer through a Readable): Node needs the room.
  stdin: { bytes: 256 * MiB, rounds: 5, warmupRounds: 1, budgetMs: { node: 45_000, deno: 12_000 } },
  kill: {
    runs: 20,
    warmupRuns: 2,
    pollMs: 1,
    capMs: 1_000,
    runsFor: PEER_KILL_RUNS,
    budgetMs: { node: 35_000, deno: 8_000 },
  },
  // A sandboxed `true` takes 8–15 ms here: 200 calls × 2 variants is some 5 s a round.
  sandboxed: { calls: 200, rounds: 3, warmupCalls: 10, budgetMs: { node: 25_000, deno: 25_000 } },
  // A round trip is well under a millisecond: the time goes into opening 50 terminals per variant (~5 s).
  terminal: { trips: 500, open: 50, rounds: 3, warmupTrips: 50, budgetMs: { node: 15_000, deno: 15_000 } },
  mcp: { calls: 200, rounds: 3, warmupCalls: 10, budgetMs: { node: 30_000, deno: 30_000 } },
  // A Docker command takes 50–150 ms here, an SSH one 10–40: 40 calls × 4 variants is some 10 s a round.
  engines: { calls: 40, rounds: 3, warmupCalls: 5, budgetMs: { node: 30_000, deno: 30_000 } },
};

/** `--quick`: every path, small sizes; the numbers are not meant to be read. */
export const QUICK: BenchConfig = {
  latency: { calls: 20, rounds: 2, warmupCalls: 2, budgetMs: { node: 15_000, deno: 8_000 } },
  concurrent: {
    commands: 48,
    inFlight: 16,
    batches: 2,
    rounds: 2,
    warmupCommands: 16,
    budgetMs: { node: 15_000, deno: 8_000 },
  },
  bigOutput: {
    bytes: 128 * MiB,
    warmupBytes: 4 * MiB,
    sampleMs: 5,
    rounds: 1,
    budgetMs: { node: 15_000, deno: 10_000 },
  },
  stdin: { bytes: 16 * MiB, rounds: 2, warmupRounds: 1, budgetMs: { node: 10_000, deno: 5_000 } },
  kill: {
    runs: 3,
    warmupRuns: 1,
    pollMs: 1,
    capMs: 300,
    runsFor: { execa: 1, tinyexec: 1, "nano-spawn": 1 },
    budgetMs: { node: 10_000, deno: 5_000 },
  },
  sandboxed: { calls: 20, rounds: 2, warmupCalls: 2, budgetMs: { node: 8_000, deno: 8_000 } },
  terminal: { trips: 50, open: 10, rounds: 2, warmupTrips: 5, budgetMs: { node: 5_000, deno: 5_000 } },
  mcp: { calls: 20, rounds: 2, warmupCalls: 2, budgetMs: { node: 8_000, deno: 8_000 } },
  engines: { calls: 5, rounds: 2, warmupCalls: 2, budgetMs: { node: 10_000, deno: 10_000 } },
};

/** The scenarios, in the order they run and are reported. */
export const SCENARIOS = [
  "latency",
  "concurrent",
  "big-output",
  "stdin",
  "kill",
  "sandboxed",
  "terminal",
  "mcp",
  "engines",
] as const;

/** One scenario's id. */
export type Scenario = typeof SCENARIOS[number];
