/**
 * One live run of the agent binaries per CI, checked by every runtime leg.
 *
 * A conformance case has two sides: the released binary (Claude Code,
 * Codex) run against the mock model, and the library's bridge given what
 * the binary's hooks got. The binary's side does not depend on the runtime
 * the tests run on, and it is the slow one (a Codex run lingers about 5 s),
 * so CI runs it once and each leg replays it:
 *
 * - `DSH_AGENT_RUNS=record:<dir>`: the binary's side only; each case's
 *   outcome is checked as far as the binary goes and written to `<dir>`.
 * - `DSH_AGENT_RUNS=replay:<dir>`: no binary runs; each case's outcome is
 *   read from `<dir>` (a missing or stale record fails the case, never
 *   skips it) and the bridge's side is run and compared with it. A record
 *   not there yet is waited for until the live step says it has ended
 *   (`<dir>/done`, {@linkcode LIVE_DONE}): CI runs the legs beside it.
 * - unset: both sides, one after the other (a developer's run).
 *
 * A record names the binary's release and holds a fingerprint of the case's
 * definition, so a record of another case or release is refused. The case's
 * own directory is written as {@linkcode CASE_DIR} and put back as the
 * replaying case's directory (its real path, as the binaries name it):
 * payloads name files of the case (its project, the file its command
 * touches).
 *
 * Nothing here imports the library.
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

/** How this process runs the binaries' side of the conformance suites. */
export type AgentRuns =
  | { readonly mode: "live" }
  | { readonly mode: "record"; readonly dir: string }
  | { readonly mode: "replay"; readonly dir: string };

/** Reads `DSH_AGENT_RUNS` (`record:<dir>`, `replay:<dir>`, or unset for live runs). */
export function agentRunsFrom(value: string | undefined): AgentRuns {
  if (value === undefined || value === "") return { mode: "live" };
  const match = /^(record|replay):(\/.+)$/.exec(value);
  if (match === null) {
    throw new Error(`DSH_AGENT_RUNS: expected record:<absolute dir> or replay:<absolute dir>, got ${value}`);
  }
  return { mode: match[1] as "record" | "replay", dir: match[2] };
}

/** This process's mode, from its environment. */
export const AGENT_RUNS: AgentRuns = agentRunsFrom(process.env.DSH_AGENT_RUNS);

/** Whether the binaries run in this process (live or record). */
export const RUNS_BINARIES: boolean = AGENT_RUNS.mode !== "replay";

/** Whether the bridge's side runs in this process (live or replay). */
export const RUNS_BRIDGE: boolean = AGENT_RUNS.mode !== "record";

/** What a record writes in place of its case's directory. */
export const CASE_DIR = "@@CASE_DIR@@";

/** The file of one case's record. */
function recordFile(dir: string, suite: string, agent: string, name: string): string {
  const key = createHash("sha256").update(`${suite}\0${agent}\0${name}`).digest("hex").slice(0, 24);
  return join(dir, `${suite}-${key}.json`);
}

/** A fingerprint of a case's definition: its record is refused once the definition changed. */
function fingerprintOf(definition: unknown): string {
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex");
}

/** One case's record on disk. */
interface StoredRecord {
  readonly suite: string;
  readonly agent: string;
  readonly name: string;
  readonly fingerprint: string;
  /** The binary's side, its case directory written as {@linkcode CASE_DIR}. */
  readonly value: unknown;
}

/** Which case a record is of: the suite, the binary (name and release), the case's name and definition. */
export interface RecordKey {
  readonly suite: string;
  /** The binary, with its release (`Claude Code 2.1.328`). */
  readonly agent: string;
  readonly name: string;
  /** The case's definition, as the suite declares it. */
  readonly definition: unknown;
}

/** Writes `value`, the binary's side of a case run in `caseDir`, into the record directory. */
export function saveRecord(key: RecordKey, caseDir: string, value: unknown): void {
  if (AGENT_RUNS.mode !== "record") throw new Error("saveRecord outside DSH_AGENT_RUNS=record:<dir>");
  mkdirSync(AGENT_RUNS.dir, { recursive: true });
  const stored: StoredRecord = {
    suite: key.suite,
    agent: key.agent,
    name: key.name,
    fingerprint: fingerprintOf(key.definition),
    // The binaries name the directory by its real path (their cwd), the tests by the path they made.
    value: JSON.parse(
      JSON.stringify(value).replaceAll(jsonText(realpathSync(caseDir)), CASE_DIR).replaceAll(
        jsonText(caseDir),
        CASE_DIR,
      ),
    ),
  };
  // Whole or not at all: a leg beside the live step reads it as soon as it is there.
  const file = recordFile(AGENT_RUNS.dir, key.suite, key.agent, key.name);
  writeFileSync(`${file}.part`, `${JSON.stringify(stored, null, 1)}\n`);
  renameSync(`${file}.part`, file);
}

/** The file the live step's runner writes once the live step has ended, whatever its outcome. */
export const LIVE_DONE = "done";

/** How long a replaying case waits for its record at most, should the live step never say it ended. */
const RECORD_WAIT_MS = 30 * 60_000;

/**
 * The binary's side of a case, as recorded, with {@linkcode CASE_DIR} put
 * back as `caseDir`, once the live step has written it; throws when the
 * live step ended without a record of this case, binary and release, or
 * when the case's definition changed since.
 */
export async function loadRecord<T>(key: RecordKey, caseDir: string): Promise<T> {
  if (AGENT_RUNS.mode !== "replay") throw new Error("loadRecord outside DSH_AGENT_RUNS=replay:<dir>");
  const dir = AGENT_RUNS.dir;
  const file = recordFile(dir, key.suite, key.agent, key.name);
  // The record is written before the live step ends: once `done` is there, a missing record stays missing.
  const ended = () => existsSync(file) || existsSync(join(dir, LIVE_DONE));
  const deadline = Date.now() + RECORD_WAIT_MS;
  while (!ended() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  if (!existsSync(file)) {
    throw new Error(
      `no record of ${key.agent} for "${key.name}" (${key.suite}) in ${AGENT_RUNS.dir}: run the live step`,
    );
  }
  const stored = JSON.parse(readFileSync(file, "utf8")) as StoredRecord;
  if (stored.agent !== key.agent || stored.name !== key.name || stored.suite !== key.suite) {
    throw new Error(`${file} is the record of ${stored.agent}, "${stored.name}", not of ${key.agent}, "${key.name}"`);
  }
  if (stored.fingerprint !== fingerprintOf(key.definition)) {
    throw new Error(
      `the record of ${key.agent} for "${key.name}" is of another definition of the case: record it again`,
    );
  }
  return JSON.parse(JSON.stringify(stored.value).replaceAll(CASE_DIR, jsonText(realpathSync(caseDir)))) as T;
}

/** `text` as it appears inside a JSON string. */
function jsonText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * How many cases the live step runs at once while it records: a binary's
 * run mostly waits (on the mock, on its hooks, on its own shutdown), and
 * each runs in a namespace and directory of its own.
 */
export const RECORD_CONCURRENCY = 3;

/** Runs the functions given to it at most `limit` at a time, in the order given. */
export function pool(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    // A freed slot is handed to the first waiter, never counted free in between.
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next === undefined) active--;
      else next();
    }
  };
}
