/**
 * The stress run's bookkeeping: commands and failures per kind, every
 * session/group/pid we learnt of, every spill path the library returned
 * with what the file must hold, and observations worth printing.
 *
 * @module
 */

/** What a returned spill file must hold. */
export interface SpillExpectation {
  /** The stream's totalBytes. */
  size: number;
  /** SHA-256 of the stream, when its content is known. */
  sha?: string;
  /** Which job returned it. */
  origin: string;
}

/** One failed check. */
export interface Failure {
  kind: string;
  job: number;
  message: string;
}

/** Counters and records of one stress run. */
export class Ledger {
  /** Commands run per kind. */
  readonly runs = new Map<string, number>();
  /** Wall time of the jobs of each kind: sum and max, in ms. */
  readonly time = new Map<string, { sum: number; max: number; jobs: number }>();
  /** Failed commands per kind. */
  readonly failed = new Map<string, number>();
  readonly failures: Failure[] = [];
  /** Session ids (= leader pids = first pgids) the library or the commands told us. */
  readonly sessions = new Map<number, string>();
  /** Grandchild pids the commands told us. */
  readonly grandchildren = new Map<number, string>();
  /** Direct children of the host seen by the sampler: pid → start time + what it was. */
  readonly hostChildren = new Map<number, { start: string; what: string }>();
  /** Returned spill paths. */
  readonly spills = new Map<string, SpillExpectation>();
  /** Spill paths returned with two different expectations. */
  readonly spillConflicts: string[] = [];
  /** Things seen that are allowed but worth a line in the report. */
  readonly notes = new Map<string, number>();
  #printed = 0;

  /** Counts `n` commands of `kind`. */
  ran(kind: string, n = 1): void {
    this.runs.set(kind, (this.runs.get(kind) ?? 0) + n);
  }

  /** Adds one job's wall time to its kind. */
  timed(kind: string, ms: number): void {
    const t = this.time.get(kind) ?? { sum: 0, max: 0, jobs: 0 };
    t.sum += ms;
    t.max = Math.max(t.max, ms);
    t.jobs++;
    this.time.set(kind, t);
  }

  /** Records a failed command; prints the first ones as they happen. */
  fail(kind: string, job: number, message: string): void {
    this.failed.set(kind, (this.failed.get(kind) ?? 0) + 1);
    this.failures.push({ kind, job, message });
    if (this.#printed++ < 25) console.error(`  FAIL job ${job} [${kind}]: ${message}`);
  }

  /** Counts an observation. */
  note(what: string): void {
    this.notes.set(what, (this.notes.get(what) ?? 0) + 1);
  }

  /** Records a returned spill path and what it must hold. */
  spill(path: string, expectation: SpillExpectation): void {
    const before = this.spills.get(path);
    if (before !== undefined) {
      if (before.size !== expectation.size || (before.sha && expectation.sha && before.sha !== expectation.sha)) {
        this.spillConflicts.push(`${path}: ${before.origin} vs ${expectation.origin}`);
      }
      if (before.sha === undefined && expectation.sha !== undefined) before.sha = expectation.sha;
      return;
    }
    this.spills.set(path, { ...expectation });
  }

  /** Commands run in all. */
  get totalRuns(): number {
    let n = 0;
    for (const v of this.runs.values()) n += v;
    return n;
  }
}
