/**
 * The workload: every kind of command the stress run mixes, each with the
 * checks its result must pass. A job is one kind, one id and one seed; what
 * it runs (sizes, delays, payloads, variants) comes from that seed, so the
 * plan replays with `--seed`.
 *
 * Every command gets `DSH_STRESS_TOKEN` (and its job id) through `dshEnv`:
 * every process it spawns inherits it, so the final /proc audit can tell
 * our processes from strangers that got a recycled id. Commands append
 * `<job> s $$` (the session leader) and `<job> g $!` (grandchildren) to a
 * pid file.
 *
 * @module
 */

import { existsSync } from "node:fs";
import {
  createLocalShell,
  type Shell,
  ShellClosedError,
  type ShellExecRequest,
  type ShellRunResult,
  ShellSpawnError,
  type ShellTask,
  TaskAccessError,
  TaskLimitError,
  type TaskOutput,
} from "../../mod.ts";
import { Check, checkResult, type Limits, markerWhere, show } from "./check.ts";
import { ERR_LINE, expectedText, OUT_LINE, patternCommand, patternSha, patternSlice, sha256, utf8 } from "./content.ts";
import type { Ledger } from "./ledger.ts";
import { allStats, environ, isFinished, readStat } from "./proc.ts";
import { Rng } from "./rng.ts";

/** What every job needs. */
export interface StressContext {
  /** The one long-lived shell. */
  shell: Shell;
  /** Its limits. */
  limits: Limits;
  /** Its graceMs. */
  graceMs: number;
  /** Marks our processes (in their environment). */
  token: string;
  /** Where commands append their pids. */
  pidFile: string;
  /** Scratch directory for marker files. */
  scratch: string;
  ledger: Ledger;
}

/** One unit of the plan. */
export interface Job {
  id: number;
  kind: Kind;
  seed: number;
  /** Commands this job runs (an extra shell runs several). */
  commands: number;
}

/** Weights of the mix (per 2 000 commands); `quick` takes whatever is left. */
export const WEIGHTS = {
  "timeout-sleep": 90,
  "timeout-tree": 90,
  "timeout-trapped": 70,
  "timeout-trapped-child": 40,
  "abort-sleep": 70,
  "abort-tree": 70,
  "abort-trapped": 40,
  "abort-race": 50,
  "pre-aborted": 20,
  "selfkill-term": 50,
  "selfkill-kill": 50,
  "selfkill-grandchild": 40,
  "out-10mb": 16,
  "err-10mb": 12,
  "over-spill-cap": 6,
  "spill-medium": 120,
  "stdin-sha": 130,
  "stdin-epipe": 60,
  "stdin-partial": 40,
  "stdin-cat": 50,
  "survivor-held": 40,
  "survivor-detached": 40,
  "task-finish": 90,
  "task-kill": 80,
  "task-exit": 40,
  "task-lossy": 20,
  "spawn-error": 10,
  "extra-shell": 32, // 4 shells of 8 commands
  "quick": 0,
} as const;

/** The kinds of job. */
export type Kind = keyof typeof WEIGHTS;

const EXTRA_SHELL_COMMANDS = 8;

/** A seeded, shuffled plan of about `total` commands. */
export function makePlan(rng: Rng, total: number): Job[] {
  const kinds: Kind[] = [];
  let commands = 0;
  for (const [kind, weight] of Object.entries(WEIGHTS) as [Kind, number][]) {
    if (kind === "quick") continue;
    const per = kind === "extra-shell" ? EXTRA_SHELL_COMMANDS : 1;
    const jobs = Math.max(1, Math.round((weight * total) / 2000 / per));
    for (let i = 0; i < jobs && commands + per <= total; i++) {
      kinds.push(kind);
      commands += per;
    }
  }
  while (commands < total) {
    kinds.push("quick");
    commands++;
  }
  rng.shuffle(kinds);
  return kinds.map((kind, id) => ({
    id,
    kind,
    seed: rng.seed(),
    commands: kind === "extra-shell" ? EXTRA_SHELL_COMMANDS : 1,
  }));
}

/** Shell snippets that record the session leader and the last background child. */
const REC_S = `echo "$DSH_STRESS_JOB s $$" >> "$DSH_STRESS_PIDS"`;
const REC_G = `echo "$DSH_STRESS_JOB g $!" >> "$DSH_STRESS_PIDS"`;

/** Long-lived process trees: what timeouts, aborts and kills must end. */
const TREES = {
  sleep: { command: `${REC_S}; sleep 60`, signals: ["SIGTERM"] },
  tree: { command: `${REC_S}; sleep 60 & ${REC_G}; sleep 60 & ${REC_G}; wait`, signals: ["SIGTERM"] },
  // SIGTERM may arrive before the trap is set (then the leader dies of it); after, only SIGKILL ends it.
  trapped: { command: `trap '' TERM; ${REC_S}; sleep 60 & ${REC_G}; wait`, signals: ["SIGKILL", "SIGTERM"] },
  // The leader dies of SIGTERM; a grandchild that ignores it must still be SIGKILLed later.
  trappedChild: {
    command: `${REC_S}; (trap '' TERM; exec sleep 60) & ${REC_G}; sleep 60 & ${REC_G}; wait`,
    signals: ["SIGTERM"],
  },
} as const;

const OWNERS = [null, "alice", "bob", "carol", "dave", "erin"] as const;
const BIG_SIZES = [10_000_000, 10_485_760, 10_485_761, 10_750_003];

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function request(
  ctx: StressContext,
  job: Job,
  command: string,
  extra: Partial<ShellExecRequest> = {},
  shell: Shell = ctx.shell,
) {
  return shell.resolve({
    command,
    owner: null,
    dshEnv: { DSH_STRESS_TOKEN: ctx.token, DSH_STRESS_JOB: String(job.id), DSH_STRESS_PIDS: ctx.pidFile },
    ...extra,
  });
}

function limitsFor(ctx: StressContext, stdoutBudget?: number): Limits {
  return stdoutBudget === undefined ? ctx.limits : { ...ctx.limits, stdoutBudget };
}

type Handler = (ctx: StressContext, job: Job, rng: Rng, c: Check) => Promise<void>;

/** Runs one job and records its outcome in the ledger. */
export async function runJob(ctx: StressContext, job: Job): Promise<void> {
  const c = new Check();
  const started = performance.now();
  try {
    await HANDLERS[job.kind](ctx, job, new Rng(job.seed), c);
  } catch (error) {
    c.that(false, `threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  }
  ctx.ledger.ran(job.kind, job.commands);
  ctx.ledger.timed(job.kind, performance.now() - started);
  if (c.problems.length > 0) ctx.ledger.fail(job.kind, job.id, c.problems.join("; "));
}

// ---------------------------------------------------------------- quick

const quick: Handler = async (ctx, job, rng, c) => {
  const variant = rng.int(0, 3);
  const origin = `job ${job.id}`;
  if (variant === 0) {
    const code = rng.int(0, 5);
    const r = await ctx.shell.run(request(ctx, job, `${REC_S}; printf '%s\\n' "hello ${job.id}"; exit ${code}`));
    checkResult(c, ctx.ledger, origin, r, {
      exitCode: code,
      signal: null,
      timedOut: false,
      aborted: false,
      stdout: { text: `hello ${job.id}\n` },
      stderr: { text: "" },
    }, ctx.limits);
  } else if (variant === 1) {
    const r = await ctx.shell.run(
      request(ctx, job, `${REC_S}; echo "err ${job.id}" >&2; printf 'héllo ✓ %s' ${job.id}`),
    );
    checkResult(c, ctx.ledger, origin, r, {
      exitCode: 0,
      signal: null,
      stdout: { text: `héllo ✓ ${job.id}`, totalBytes: new TextEncoder().encode(`héllo ✓ ${job.id}`).length },
      stderr: { text: `err ${job.id}\n` },
    }, ctx.limits);
  } else if (variant === 2) {
    const r = await ctx.shell.run(request(ctx, job, "true", { owner: rng.pick(OWNERS) }));
    checkResult(c, ctx.ledger, origin, r, { exitCode: 0, signal: null, stdout: { text: "" }, stderr: { text: "" } }, {
      ...ctx.limits,
    });
  } else {
    // The leader is a session leader and a group leader: $$ = sid = pgid.
    const r = await ctx.shell.run(
      request(ctx, job, `${REC_S}; read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo "$$ $sid $pgrp"`),
    );
    const [pid, sid, pgid] = r.stdout.text.trim().split(/\s+/).map(Number);
    c.eq("exitCode", r.exitCode, 0);
    c.that(pid > 0 && pid === sid && pid === pgid, `leader is not its own session/group: ${show(r.stdout.text)}`);
  }
};

// ---------------------------------------------------------------- timeouts and aborts

function treeFor(kind: Kind): (typeof TREES)[keyof typeof TREES] {
  if (kind.endsWith("trapped-child")) return TREES.trappedChild;
  if (kind.endsWith("trapped")) return TREES.trapped;
  if (kind.endsWith("tree")) return TREES.tree;
  return TREES.sleep;
}

const timeoutKind: Handler = async (ctx, job, rng, c) => {
  const tree = treeFor(job.kind);
  const timeoutMs = rng.int(20, 300);
  const r = await ctx.shell.run(request(ctx, job, tree.command, { timeoutMs, owner: rng.pick(OWNERS) }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: null,
    signal: tree.signals,
    timedOut: true,
    aborted: false,
    stdout: { text: "" },
    stderr: { text: "" },
  }, ctx.limits);
  c.eq("timeoutMs", r.timeoutMs, timeoutMs);
  c.that(r.durationMs >= timeoutMs - 1, `durationMs ${r.durationMs} < timeoutMs ${timeoutMs}`);
  if (r.signal === "SIGKILL") {
    c.that(r.durationMs >= timeoutMs + ctx.graceMs - 5, `SIGKILL before the grace period: ${r.durationMs} ms`);
  }
  if (tree === TREES.trapped && r.signal === "SIGTERM") ctx.ledger.note("trapped: SIGTERM came before the trap");
  c.that(r.durationMs < timeoutMs + ctx.graceMs + 15_000, `took ${Math.round(r.durationMs)} ms`);
};

const abortKind: Handler = async (ctx, job, rng, c) => {
  const tree = treeFor(job.kind);
  const after = rng.int(0, 300);
  const controller = new AbortController();
  const started = performance.now();
  const pending = ctx.shell.run(request(ctx, job, tree.command, { signal: controller.signal }));
  const timer = setTimeout(() => controller.abort(new Error(`stress abort ${job.id}`)), after);
  const r = await pending;
  clearTimeout(timer);
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: null,
    signal: tree.signals,
    timedOut: false,
    aborted: true,
    stdout: { text: "" },
    stderr: { text: "" },
  }, ctx.limits);
  c.that(performance.now() - started >= after - 1, "settled before the abort");
  if (tree === TREES.trapped && r.signal === "SIGTERM") ctx.ledger.note("trapped: SIGTERM came before the trap");
};

/**
 * An abort racing a command that ends by itself about then: either outcome, never a mix. The
 * kill can land after the last `echo` wrote and before the shell exited (a few µs, seen once under
 * load in CI): then the status is the signal's and the output is whole, never a part of a line.
 */
const abortRace: Handler = async (ctx, job, rng, c) => {
  const after = rng.int(0, 250);
  const controller = new AbortController();
  const pending = ctx.shell.run(request(ctx, job, `${REC_S}; sleep 0.1; echo finished`, { signal: controller.signal }));
  const timer = setTimeout(() => controller.abort(), after);
  const r = await pending;
  clearTimeout(timer);
  checkResult(c, ctx.ledger, `job ${job.id}`, r, { aborted: undefined, stderr: { text: "" } }, ctx.limits);
  if (!r.aborted) {
    c.eq("exitCode (ran to the end)", r.exitCode, 0);
    c.eq("stdout (ran to the end)", r.stdout.text, "finished\n");
    ctx.ledger.note("abort-race: finished first");
  } else if (r.exitCode === 0) {
    // The abort came after the leader's exit, while its pipes drained: the library reports it.
    c.eq("stdout (aborted after exit)", r.stdout.text, "finished\n");
    ctx.ledger.note("abort-race: aborted=true with exitCode 0 (it had exited unseen)");
  } else {
    c.eq("signal (aborted)", r.signal, "SIGTERM");
    if (r.stdout.text === "finished\n") ctx.ledger.note("abort-race: killed after its last line, before its exit");
    else {
      c.eq("stdout (aborted)", r.stdout.text, "");
      ctx.ledger.note("abort-race: aborted first");
    }
  }
};

const preAborted: Handler = async (ctx, job, rng, c) => {
  const reason = new Error(`pre-aborted ${job.id}`);
  const controller = new AbortController();
  controller.abort(reason);
  const marker = `${ctx.scratch}/pre-aborted-${job.id}`;
  const spec = request(ctx, job, `touch '${marker}'`, { signal: controller.signal, owner: "alice" });
  let thrown: unknown = undefined;
  try {
    if (rng.chance(0.5)) ctx.shell.start(spec);
    else await ctx.shell.run(spec);
  } catch (error) {
    thrown = error;
  }
  c.that(thrown === reason, `want the signal's reason thrown, got ${show(String(thrown))}`);
  await delay(100);
  c.that(!existsSync(marker), "a command ran although its signal was already aborted");
};

// ---------------------------------------------------------------- self-kills

const selfKill: Handler = async (ctx, job, rng, c) => {
  let command: string;
  let signal: string;
  if (job.kind === "selfkill-term") {
    command = `${REC_S}; echo before; kill -TERM $$; echo after`;
    signal = "SIGTERM";
  } else if (job.kind === "selfkill-kill") {
    command = `${REC_S}; echo before; kill -KILL $$; echo after`;
    signal = "SIGKILL";
  } else if (rng.chance(0.5)) {
    // The grandchild holds stdout: the result waits at most graceMs for it.
    command = `${REC_S}; sleep 30 & ${REC_G}; echo before; kill -KILL $$`;
    signal = "SIGKILL";
  } else {
    command = `${REC_S}; sleep 30 >/dev/null 2>&1 & ${REC_G}; echo before; kill -TERM $$`;
    signal = "SIGTERM";
  }
  const r = await ctx.shell.run(request(ctx, job, command, { owner: rng.pick(OWNERS) }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: null,
    signal,
    timedOut: false,
    aborted: false,
    stdout: { text: "before\n" },
    stderr: { text: "" },
  }, ctx.limits);
};

// ---------------------------------------------------------------- big outputs and spill files

const bigOutput: Handler = async (ctx, job, rng, c) => {
  const toStderr = job.kind === "err-10mb" || (job.kind === "over-spill-cap" && rng.chance(0.5));
  const n = job.kind === "over-spill-cap" ? ctx.limits.maxSpillBytes + rng.int(1, 1_500_000) : rng.pick(BIG_SIZES);
  const line = toStderr ? ERR_LINE : OUT_LINE;
  const r = await ctx.shell.run(request(ctx, job, `${REC_S}; ${patternCommand(line, n, toStderr)}`));
  const big = toStderr ? r.stderr : r.stdout;
  const budget = toStderr ? ctx.limits.stderrBudget : ctx.limits.stdoutBudget;
  const bigWant = {
    totalBytes: n,
    text: expectedText(line, n, budget, markerWhere(big)),
    sha: n <= ctx.limits.maxSpillBytes ? patternSha(line, n) : undefined,
  };
  const empty = { text: "", totalBytes: 0 };
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: toStderr ? empty : bigWant,
    stderr: toStderr ? bigWant : empty,
  }, ctx.limits);
  if (n > ctx.limits.maxSpillBytes) c.eq("spillPath over the cap", big.spillPath, undefined);
  else c.that(big.spillPath !== undefined, "no spill file for a 10 MB stream");
};

const spillMedium: Handler = async (ctx, job, rng, c) => {
  const pickSize = (budget: number): number =>
    rng.pick([0, 1, budget - 1, budget, budget + 1, rng.int(budget + 2, 1_000_000), rng.int(1, 1_000_000)]);
  const stdoutBudget = rng.chance(0.3) ? rng.int(1, 200_000) : undefined;
  const outBudget = stdoutBudget ?? ctx.limits.stdoutBudget;
  const nOut = pickSize(outBudget);
  const nErr = pickSize(ctx.limits.stderrBudget);
  const together = rng.chance(0.5);
  const out = patternCommand(OUT_LINE, nOut, false);
  const err = patternCommand(ERR_LINE, nErr, true);
  const command = together ? `${REC_S}; ${out} & ${err} & wait` : `${REC_S}; ${out}; ${err}`;
  const r = await ctx.shell.run(request(ctx, job, command, stdoutBudget ? { stdoutMaxBytes: stdoutBudget } : {}));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    stdout: {
      totalBytes: nOut,
      sha: patternSha(OUT_LINE, nOut),
      text: expectedText(OUT_LINE, nOut, outBudget, markerWhere(r.stdout)),
    },
    stderr: {
      totalBytes: nErr,
      sha: patternSha(ERR_LINE, nErr),
      text: expectedText(ERR_LINE, nErr, ctx.limits.stderrBudget, markerWhere(r.stderr)),
    },
  }, limitsFor(ctx, stdoutBudget));
};

// ---------------------------------------------------------------- stdin

/**
 * The largest stdin payload a command must read whole. It was 1 MiB while
 * the Deno adapter handed the whole buffer to one `WritableStream.write()`,
 * which crawled while the event loop was busy (~70 KB/s here); since commit
 * 378fed1 it writes 64 KiB pieces, which keep moving under load, so
 * multi-megabyte payloads are back in the mix. Payloads a command does not
 * read (EPIPE) may be larger.
 */
const MAX_STDIN_BYTES = 8 << 20;

/**
 * 16 MiB of seeded random bytes that payloads are cut from (a view at a
 * random offset: no copy, odd offsets); twice the largest payload, so that
 * one starts at a random offset too.
 */
let pool: Uint8Array | undefined;
const POOL_BYTES = 16 << 20;

function payload(rng: Rng, sizes: number[]): Uint8Array {
  pool ??= new Rng(0x5eed5eed).bytes(POOL_BYTES);
  const size = Math.min(rng.pick(sizes), POOL_BYTES);
  const offset = rng.int(0, POOL_BYTES - size);
  return pool.subarray(offset, offset + size);
}

const stdinSha: Handler = async (ctx, job, rng, c) => {
  let stdin: string | Uint8Array;
  let bytes: Uint8Array;
  if (rng.chance(0.2)) {
    stdin = Array.from({ length: rng.int(0, 5000) }, () => rng.pick(["a", "é", "✓", "😀", "\n", " ", "z"])).join("");
    bytes = new TextEncoder().encode(stdin);
  } else {
    const sizes = [0, 1, 4095, 65_536, 65_537, rng.int(2, 300_000), rng.int(2, 300_000), rng.int(2, MAX_STDIN_BYTES)];
    bytes = payload(rng, rng.chance(0.05) ? [MAX_STDIN_BYTES] : sizes);
    stdin = bytes;
  }
  const r = await ctx.shell.run(request(ctx, job, `${REC_S}; sha256sum`, { stdin }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    stdout: { text: `${sha256(bytes)}  -\n` },
    stderr: { text: "" },
  }, ctx.limits);
};

const stdinEpipe: Handler = async (ctx, job, rng, c) => {
  const bytes = payload(rng, [rng.int(256 << 10, 2 << 20), 1 << 20, 4 << 20]);
  const code = rng.pick([0, 0, 3]);
  const command = code === 0 ? "true" : `exit ${code}`;
  const r = await ctx.shell.run(request(ctx, job, command, { stdin: bytes }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: code,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: { text: "" },
    stderr: { text: "" },
  }, ctx.limits);
};

const stdinPartial: Handler = async (ctx, job, rng, c) => {
  const bytes = payload(rng, [rng.int(200_000, MAX_STDIN_BYTES)]);
  const k = rng.int(0, 100_000);
  const r = await ctx.shell.run(request(ctx, job, `${REC_S}; head -c ${k} | sha256sum`, { stdin: bytes }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    stdout: { text: `${sha256(bytes.subarray(0, k))}  -\n` },
    stderr: { text: "" },
  }, ctx.limits);
};

/** Random bytes (invalid UTF-8 included) through `cat`: the spill file must hold them exactly. */
const stdinCat: Handler = async (ctx, job, rng, c) => {
  const bytes = payload(rng, [0, 1, ctx.limits.stdoutBudget, ctx.limits.stdoutBudget + 1, rng.int(2, MAX_STDIN_BYTES)]);
  const r = await ctx.shell.run(request(ctx, job, `${REC_S}; cat`, { stdin: bytes }));
  const truncated = bytes.length > ctx.limits.stdoutBudget;
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    stdout: { totalBytes: bytes.length, sha: sha256(bytes), text: truncated ? undefined : utf8(bytes) },
    stderr: { text: "" },
  }, ctx.limits);
};

// ---------------------------------------------------------------- survivors

const survivor: Handler = async (ctx, job, _rng, c) => {
  const held = job.kind === "survivor-held";
  const command = held
    ? `${REC_S}; sleep 30 & ${REC_G}; echo x`
    : `${REC_S}; sleep 30 >/dev/null 2>&1 & ${REC_G}; echo x`;
  const r = await ctx.shell.run(request(ctx, job, command, { owner: "bob" }));
  checkResult(c, ctx.ledger, `job ${job.id}`, r, {
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: { text: "x\n" },
    stderr: { text: "" },
  }, ctx.limits);
  if (held) c.that(r.durationMs < ctx.graceMs + 15_000, `a held pipe kept run() for ${Math.round(r.durationMs)} ms`);
};

// ---------------------------------------------------------------- background tasks

/** Checks what a task says about itself right after start: pid, /proc, owner visibility. */
function checkStarted(ctx: StressContext, task: ShellTask, owner: string | null, c: Check): void {
  c.that(task.pid > 0, `task pid ${task.pid}`);
  ctx.ledger.sessions.set(task.pid, `task ${task.id}`);
  const stat = readStat(task.pid);
  if (stat !== undefined && !isFinished(stat)) {
    c.eq("task leader sid", stat.sid, task.pid);
    c.eq("task leader pgrp", stat.pgrp, task.pid);
  }
  c.eq("task.owner", task.owner, owner);
  c.that(ctx.shell.task(task.id, owner) === task, "task(id, owner) is not the task");
  if (owner === null) {
    c.that(ctx.shell.task(task.id, "anyone") === task, "an unowned task is not visible to everyone");
  } else {
    let denied: unknown;
    try {
      ctx.shell.task(task.id, `${owner}-intruder`);
    } catch (error) {
      denied = error;
    }
    c.that(denied instanceof TaskAccessError, "another owner could see the task");
  }
  if (task.status === "running") c.that(ctx.shell.tasks(owner).includes(task), "tasks(owner) lacks a running task");
}

/** Reads a task until it settles, every few ms. */
async function readUntilDone(
  task: ShellTask,
  rng: Rng,
  maxGapMs: number,
): Promise<{ reads: TaskOutput[]; result: ShellRunResult }> {
  const reads: TaskOutput[] = [];
  let result: ShellRunResult | undefined;
  task.done.then((r) => result = r);
  while (result === undefined) {
    reads.push(task.read());
    await delay(rng.int(0, maxGapMs));
  }
  reads.push(task.read());
  return { reads, result };
}

const join = (reads: TaskOutput[], stream: "stdout" | "stderr"): string => reads.map((r) => r[stream]).join("");

const taskFinish: Handler = async (ctx, job, rng, c) => {
  const k = rng.int(3, 15);
  const pause = rng.pick(["0.005", "0.02", "0.05"]);
  const owner = rng.pick(OWNERS);
  const command =
    `${REC_S}; for i in $(seq 1 ${k}); do echo "line $i"; sleep ${pause}; done; echo "done ${job.id}" >&2`;
  const task = ctx.shell.start(request(ctx, job, command, { owner }));
  checkStarted(ctx, task, owner, c);
  const { reads, result } = await readUntilDone(task, rng, 60);
  const expected = Array.from({ length: k }, (_, i) => `line ${i + 1}\n`).join("");
  c.eq("reads joined (stdout)", join(reads, "stdout"), expected);
  c.eq("reads joined (stderr)", join(reads, "stderr"), `done ${job.id}\n`);
  c.that(reads.every((r) => !r.lossy), "a read was lossy");
  const again = task.read();
  c.that(again.stdout === "" && again.stderr === "", "a read after the end returned bytes again");
  c.eq("status", task.status, "completed");
  c.eq("task.exitCode", task.exitCode, 0);
  c.eq("task.signal", task.signal, null);
  c.eq("kill() after the end", task.kill(), false);
  checkResult(c, ctx.ledger, `task ${task.id}`, result, {
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: { text: expected },
    stderr: { text: `done ${job.id}\n` },
  }, ctx.limits);
};

const taskKill: Handler = async (ctx, job, rng, c) => {
  const tree = rng.pick([TREES.sleep, TREES.tree, TREES.trapped, TREES.trappedChild]);
  const owner = rng.pick(OWNERS);
  const task = ctx.shell.start(request(ctx, job, `echo start; ${tree.command}`, { owner }));
  checkStarted(ctx, task, owner, c);
  let seen = "";
  const waitForStart = rng.chance(0.7);
  if (waitForStart) {
    const until = performance.now() + 10_000;
    while (!seen.includes("start\n") && performance.now() < until) {
      seen += task.read().stdout;
      await delay(5);
    }
    c.eq("output before kill", seen, "start\n");
  } else {
    await delay(rng.int(0, 100));
  }
  c.eq("status before kill", task.status, "running");
  c.eq("kill()", task.kill(), true);
  c.eq("second kill()", task.kill(), false);
  const result = await task.done;
  seen += task.read().stdout;
  c.eq("status", task.status, "killed");
  c.eq("task.signal", task.signal, result.signal);
  checkResult(c, ctx.ledger, `task ${task.id}`, result, {
    exitCode: null,
    signal: tree.signals,
    timedOut: false,
    aborted: true,
    stderr: { text: "" },
  }, ctx.limits);
  c.oneOf("all stdout read", seen, waitForStart ? ["start\n"] : ["", "start\n"]);
  c.eq("result stdout", result.stdout.text, seen);
};

const taskExit: Handler = async (ctx, job, rng, c) => {
  const selfSignal = rng.chance(0.3);
  const code = rng.int(0, 9);
  const command = selfSignal
    ? `${REC_S}; echo out ${job.id}; kill -TERM $$`
    : `${REC_S}; echo out ${job.id}; exit ${code}`;
  const owner = rng.pick(OWNERS);
  const task = ctx.shell.start(request(ctx, job, command, { owner }));
  checkStarted(ctx, task, owner, c);
  const result = await task.done;
  // A signal the command sent itself is not ours: completed, not killed.
  c.eq("status", task.status, "completed");
  c.eq("kill() after the end", task.kill(), false);
  c.eq("read()", task.read().stdout, `out ${job.id}\n`);
  checkResult(c, ctx.ledger, `task ${task.id}`, result, {
    exitCode: selfSignal ? null : code,
    signal: selfSignal ? "SIGTERM" : null,
    timedOut: false,
    aborted: false,
    stdout: { text: `out ${job.id}\n` },
  }, ctx.limits);
};

/** A task printing megabytes while read at random moments: lossy reads must point at the spill file. */
const taskLossy: Handler = async (ctx, job, rng, c) => {
  const n = rng.int(256 << 10, 2 << 20);
  const task = ctx.shell.start(
    request(ctx, job, `${REC_S}; ${patternCommand(OUT_LINE, n, false)}`, { owner: "carol" }),
  );
  checkStarted(ctx, task, "carol", c);
  const { reads, result } = await readUntilDone(task, rng, 30);
  const unit = OUT_LINE + "\n";
  const haystack = unit.repeat(Math.ceil(ctx.limits.stdoutBudget / unit.length) + 2);
  let lossy = 0;
  for (const read of reads) {
    if (read.lossy) {
      lossy++;
      c.that(read.stdoutSpillPath !== undefined, "a lossy read without stdoutSpillPath");
      if (read.stdoutSpillPath !== undefined) c.eq("read spill path", read.stdoutSpillPath, result.stdout.spillPath);
    }
    c.that(read.stdout.length <= ctx.limits.stdoutBudget, `a read returned ${read.stdout.length} bytes`);
    if (read.stdout.length > 0 && !haystack.includes(read.stdout)) c.that(false, "a read is not a slice of the stream");
  }
  const all = join(reads, "stdout");
  if (lossy === 0) c.eq("reads joined", all.length === n && all === patternSlice(OUT_LINE, 0, n), true);
  else ctx.ledger.note("task-lossy: reads were lossy");
  c.that(all.endsWith(patternSlice(OUT_LINE, n - 100, n)), "the reads do not end with the stream's end");
  checkResult(c, ctx.ledger, `task ${task.id}`, result, {
    exitCode: 0,
    signal: null,
    stdout: {
      totalBytes: n,
      sha: patternSha(OUT_LINE, n),
      text: expectedText(OUT_LINE, n, ctx.limits.stdoutBudget, markerWhere(result.stdout)),
    },
    stderr: { text: "" },
  }, ctx.limits);
};

// ---------------------------------------------------------------- spawn errors

const spawnError: Handler = async (ctx, job, rng, c) => {
  const workdir = `${ctx.scratch}/missing-${job.id}/sub`;
  const spec = request(ctx, job, "echo never", { workdir, owner: "dave" });
  if (rng.chance(0.5)) {
    let thrown: unknown;
    try {
      await ctx.shell.run(spec);
    } catch (error) {
      thrown = error;
    }
    c.that(thrown instanceof ShellSpawnError, `run() with a missing workdir: ${show(String(thrown))}`);
    c.that(thrown instanceof Error && thrown.message.includes(workdir), "the error does not name the workdir");
  } else {
    const task = ctx.shell.start(spec);
    c.eq("failed task pid", task.pid, -1);
    c.eq("failed task status", task.status, "killed");
    const result = await task.done;
    c.eq("failed task exitCode", result.exitCode, null);
    c.that(
      result.stderr.text.includes("ShellSpawnError") && result.stderr.text.includes(workdir),
      "stderr lacks the error",
    );
    c.eq("failed task read()", task.read().stderr, result.stderr.text);
  }
};

// ---------------------------------------------------------------- extra shells, closed mid-flight

/** Processes of job `id` still running (zombies excluded). */
function runningOfJob(token: string, id: number): string[] {
  const found: string[] = [];
  const marks = [`DSH_STRESS_TOKEN=${token}`, `DSH_STRESS_JOB=${id}`];
  for (const stat of allStats()) {
    if (isFinished(stat)) continue;
    const env = environ(stat.pid);
    if (marks.every((m) => env.includes(m))) found.push(`${stat.pid}(${stat.comm},${stat.state})`);
  }
  return found;
}

const extraShell: Handler = async (ctx, job, rng, c) => {
  const graceMs = 100;
  const limits: Limits = {
    stdoutBudget: 4096,
    stderrBudget: 4096,
    maxSpillBytes: 100_000,
    spillDir: ctx.limits.spillDir,
  };
  const extra = createLocalShell({
    spillDir: ctx.limits.spillDir,
    graceMs,
    maxOutputBytes: 4096,
    maxSpillBytes: 100_000,
    maxTasksPerOwner: 2,
    timeoutMs: 60_000,
  });
  const mk = (command: string, more: Partial<ShellExecRequest> = {}) =>
    request(ctx, job, command, { owner: "extra", ...more }, extra);
  try {
    // Finished before close: a kept spill, one over the cap (deleted), a survivor.
    const n1 = rng.int(4097, 100_000);
    const r1 = await extra.run(mk(`${REC_S}; ${patternCommand(OUT_LINE, n1, false)}`));
    checkResult(c, ctx.ledger, `job ${job.id} spill`, r1, {
      exitCode: 0,
      stdout: {
        totalBytes: n1,
        sha: patternSha(OUT_LINE, n1),
        text: expectedText(OUT_LINE, n1, 4096, markerWhere(r1.stdout)),
      },
    }, limits);
    const n2 = rng.int(100_001, 400_000);
    const r2 = await extra.run(mk(`${REC_S}; ${patternCommand(ERR_LINE, n2, true)}`));
    checkResult(c, ctx.ledger, `job ${job.id} over-cap`, r2, {
      exitCode: 0,
      stderr: {
        totalBytes: n2,
        text: expectedText(ERR_LINE, n2, 4096, "full output unavailable (over maxSpillBytes)"),
      },
    }, limits);
    const r3 = await extra.run(mk(`${REC_S}; sleep 30 & ${REC_G}; echo x`));
    checkResult(c, ctx.ledger, `job ${job.id} survivor`, r3, { exitCode: 0, stdout: { text: "x\n" } }, limits);

    // In flight when close() comes.
    const a1 = extra.run(mk(`${REC_S}; sleep 60`));
    const a2 = extra.run(mk(TREES.trapped.command));
    const t1 = extra.start(mk(TREES.tree.command));
    const t2 = extra.start(mk(`${REC_S}; echo t2; sleep 60`));
    let limited: unknown;
    try {
      extra.start(mk("true"));
    } catch (error) {
      limited = error;
    }
    c.that(limited instanceof TaskLimitError, `a 3rd running task for one owner: ${show(String(limited))}`);
    const t3 = extra.start(mk(`${REC_S}; echo other`, { owner: "other" }));
    const r3done = await t3.done;
    c.eq("other owner's task", r3done.stdout.text, "other\n");
    c.eq("other owner's task status", t3.status, "completed");
    await delay(rng.int(30, 300));
    const closing = extra.close();
    const [x1, x2, d1, d2] = await Promise.all([a1, a2, t1.done, t2.done]);
    checkResult(c, ctx.ledger, `job ${job.id} in-flight run`, x1, {
      exitCode: null,
      signal: "SIGTERM",
      timedOut: false,
      aborted: true,
    }, limits);
    checkResult(c, ctx.ledger, `job ${job.id} in-flight trapped run`, x2, {
      exitCode: null,
      signal: TREES.trapped.signals,
      timedOut: false,
      aborted: true,
    }, limits);
    for (const [task, result] of [[t1, d1], [t2, d2]] as const) {
      c.eq(`task ${task.id} status after close`, task.status, "killed");
      checkResult(c, ctx.ledger, `task ${task.id}`, result, { exitCode: null, aborted: true, timedOut: false }, limits);
    }
    await closing;
    await extra.close(); // idempotent
    // close() resolved: every process of this shell must be gone now, not later.
    const left = runningOfJob(ctx.token, job.id);
    c.that(left.length === 0, `still running right after close(): ${left.join(" ")}`);
    let closed: unknown;
    try {
      await extra.run(mk("true"));
    } catch (error) {
      closed = error;
    }
    c.that(closed instanceof ShellClosedError, `run() after close(): ${show(String(closed))}`);
    closed = undefined;
    try {
      extra.start(mk("true"));
    } catch (error) {
      closed = error;
    }
    c.that(closed instanceof ShellClosedError, `start() after close(): ${show(String(closed))}`);
  } finally {
    await extra.close();
  }
};

const HANDLERS: Record<Kind, Handler> = {
  "quick": quick,
  "timeout-sleep": timeoutKind,
  "timeout-tree": timeoutKind,
  "timeout-trapped": timeoutKind,
  "timeout-trapped-child": timeoutKind,
  "abort-sleep": abortKind,
  "abort-tree": abortKind,
  "abort-trapped": abortKind,
  "abort-race": abortRace,
  "pre-aborted": preAborted,
  "selfkill-term": selfKill,
  "selfkill-kill": selfKill,
  "selfkill-grandchild": selfKill,
  "out-10mb": bigOutput,
  "err-10mb": bigOutput,
  "over-spill-cap": bigOutput,
  "spill-medium": spillMedium,
  "stdin-sha": stdinSha,
  "stdin-epipe": stdinEpipe,
  "stdin-partial": stdinPartial,
  "stdin-cat": stdinCat,
  "survivor-held": survivor,
  "survivor-detached": survivor,
  "task-finish": taskFinish,
  "task-kill": taskKill,
  "task-exit": taskExit,
  "task-lossy": taskLossy,
  "spawn-error": spawnError,
  "extra-shell": extraShell,
};
