/**
 * Re-runs the hook bridge's differential suites (`tests/conformance.test.ts`,
 * `tests/conformance_events.test.ts`) against other releases of Claude Code
 * and Codex than the pinned ones, and prints the differences: every case
 * where the bridge no longer agrees with the binary, and (with `--compare`)
 * every case where the binary itself behaves otherwise than the pinned
 * release (a run of the pinned releases too).
 *
 * The binaries are installed from npm into `node_modules/.cache/dsh-agents/`
 * as the tests do it, one folder per release; a release that cannot be had
 * fails the run. Exit code 0 when every case matches, 1 otherwise.
 *
 * Usage: `deno task conformance [--claude-code VERSION] [--codex VERSION] [--compare]`
 * (either version may be left out: that binary stays at its pinned release).
 *
 * @module
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { PINNED_CLAUDE_CODE_VERSION, PINNED_CODEX_VERSION } from "../tests/helpers/agents.ts";
import type { CaseReport } from "../tests/helpers/conformance.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITES = ["tests/conformance.test.ts", "tests/conformance_events.test.ts"];
const USAGE = "usage: deno task conformance [--claude-code VERSION] [--codex VERSION] [--compare]";

/** The releases of one run. */
interface Versions {
  readonly claudeCode: string;
  readonly codex: string;
}

/** The command line, or the reason it is wrong. */
export function parseArgs(argv: readonly string[]): { versions: Versions; compare: boolean } | { error: string } {
  let claudeCode = PINNED_CLAUDE_CODE_VERSION;
  let codex = PINNED_CODEX_VERSION;
  let compare = false;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === "--compare") compare = true;
    else if (arg === "--claude-code" || arg === "--codex") {
      const value = argv[++index];
      if (value === undefined || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(value)) {
        return { error: `${arg} needs a version such as 1.2.3, got ${JSON.stringify(value)}` };
      }
      if (arg === "--claude-code") claudeCode = value;
      else codex = value;
    } else return { error: `unknown argument ${JSON.stringify(arg)}` };
  }
  return { versions: { claudeCode, codex }, compare };
}

/** Runs both suites at `versions`; the cases they reported, keyed by agent kind and case. */
function runSuites(versions: Versions): Map<string, CaseReport> {
  const dir = mkdtempSync(join(tmpdir(), "dsh-conformance-report-"));
  const report = join(dir, "report.jsonl");
  try {
    console.error(`running the suites against Claude Code ${versions.claudeCode} and Codex ${versions.codex}…`);
    const run = spawnSync(process.execPath, ["test", "-A", "--no-check=remote", ...SUITES], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        DSH_REQUIRE_AGENTS: "1",
        DSH_CLAUDE_CODE_VERSION: versions.claudeCode,
        DSH_CODEX_VERSION: versions.codex,
        DSH_CONFORMANCE_REPORT: report,
      },
    });
    const lines = (() => {
      try {
        return readFileSync(report, "utf8").split("\n").filter((line) => line !== "");
      } catch {
        return [];
      }
    })();
    if (lines.length === 0) throw new Error(`the suites reported no case (exit ${run.status})`);
    return new Map(lines.map((line) => {
      const entry = JSON.parse(line) as CaseReport;
      return [keyOf(entry), entry];
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A case's key across releases: the agent's kind (not its version), the suite and the case. */
function keyOf(entry: CaseReport): string {
  return `${entry.agent.replace(/ [\d.]+(-[\w.]+)?$/, "")} · ${entry.suite} · ${entry.case}`;
}

/** What a binary did, without what differs from run to run: temporary paths, Codex's chunk ids and wall times. */
export function normalised(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replace(/\/[\w/.-]*dsh-conformance[\w-]*\/[\w/.-]*/g, "<path>")
    .replace(/Chunk ID: [0-9a-f]+/g, "Chunk ID: <id>")
    .replace(/Wall time: [\d.]+ seconds/g, "Wall time: <time>");
  return JSON.parse(text);
}

/** Prints the differences; resolves with the exit code. */
function main(argv: readonly string[]): number {
  const parsed = parseArgs(argv);
  if ("error" in parsed) {
    console.error(`${parsed.error}\n${USAGE}`);
    return 2;
  }
  const { versions, compare } = parsed;
  const measured = runSuites(versions);
  const pinned = compare
    ? runSuites({ claudeCode: PINNED_CLAUDE_CODE_VERSION, codex: PINNED_CODEX_VERSION })
    : undefined;
  let mismatches = 0;
  let changes = 0;
  for (const [key, entry] of measured) {
    if (!entry.matches) {
      mismatches++;
      console.log(`≠ ${key}\n  ${entry.agent}: ${JSON.stringify(normalised(entry.binary))}`);
      console.log(`  the bridge: ${JSON.stringify(normalised(entry.bridge))}`);
    }
    const before = pinned?.get(key);
    if (before !== undefined && !isDeepStrictEqual(normalised(before.binary), normalised(entry.binary))) {
      changes++;
      console.log(`Δ ${key}\n  ${before.agent}: ${JSON.stringify(normalised(before.binary))}`);
      console.log(`  ${entry.agent}: ${JSON.stringify(normalised(entry.binary))}`);
    }
  }
  console.log(
    `${measured.size} cases against Claude Code ${versions.claudeCode} and Codex ${versions.codex}: ` +
      `${measured.size - mismatches} match the bridge, ${mismatches} differ` +
      (pinned === undefined ? "" : `; ${changes} behave otherwise than the pinned releases`),
  );
  return mismatches === 0 ? 0 : 1;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
