/**
 * Helpers for the hostile-input and property tests: what /proc says about
 * the processes a test started (by session, and by a marker variable in
 * their environment, which also finds a process that left its session),
 * private temporary directories, and a test-wide fast-check seed.
 *
 * Nothing here imports the library.
 */

import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { hasFinished, procInfo } from "./proc.ts";

/** Every numeric entry of /proc: the pids that exist right now. */
function allPids(): number[] {
  return readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** The pids of every process of session `sid` that still runs (zombies count as gone). */
export function runningSessionMembers(sid: number): number[] {
  const members: number[] = [];
  for (const pid of allPids()) {
    const info = procInfo(pid);
    if (info !== undefined && info.sid === sid && !hasFinished(info)) members.push(pid);
  }
  return members;
}

/**
 * The pids of every running process whose environment holds `name=value`.
 * Tests give each command a unique marker variable, so this finds the
 * command's descendants wherever they went: another process group, another
 * session (`setsid`), reparented to init. Zombies and processes whose
 * environment cannot be read (not ours) are skipped.
 */
export function runningWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const found: number[] = [];
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    const info = procInfo(pid);
    if (info === undefined || hasFinished(info)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue;
    }
    if (environ.split("\0").includes(needle)) found.push(pid);
  }
  return found;
}

/** A new, empty directory under the OS temp dir, mode 0700 (mkdtemp's). */
export function privateDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * The fast-check seed for this run: `FC_SEED` from the environment when
 * set (to replay a failure), otherwise undefined (fast-check picks one and
 * prints it, with the counterexample's path, when a property fails).
 */
export function fastCheckSeed(): number | undefined {
  const text = process.env.FC_SEED;
  if (text === undefined || text.trim() === "") return undefined;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(text)}`);
  return seed;
}
