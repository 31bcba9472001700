/**
 * Checks of one job: a list of mismatches, plus the checks every result
 * gets — its shape, its flags, and each stream against its budget, with
 * returned spill files recorded for the final audit.
 *
 * @module
 */

import { statSync } from "node:fs";
import { dirname } from "node:path";
import type { CollectedOutput, ShellRunResult } from "../../mod.ts";
import { ShellRunResultSchema } from "../../src/seam/schemas.ts";
import type { Ledger } from "./ledger.ts";

/** Mismatches found while checking one job. */
export class Check {
  readonly problems: string[] = [];

  /** Records `what` unless `condition` holds. */
  that(condition: boolean, what: string): void {
    if (!condition) this.problems.push(what);
  }

  /** Records a mismatch unless `actual === expected`. */
  eq(what: string, actual: unknown, expected: unknown): void {
    if (actual !== expected) this.problems.push(`${what}: got ${show(actual)}, want ${show(expected)}`);
  }

  /** Records a mismatch unless `actual` is one of `options`. */
  oneOf(what: string, actual: unknown, options: readonly unknown[]): void {
    if (!options.includes(actual)) {
      this.problems.push(`${what}: got ${show(actual)}, want one of ${options.map(show).join(" | ")}`);
    }
  }
}

/** A short printable form of a value. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
  } catch {
    text = String(value);
  }
  return text.length > 160 ? `${text.slice(0, 100)}…(${text.length} chars)…${text.slice(-40)}` : text;
}

/** The limits of the shell that produced a result. */
export interface Limits {
  /** stdout budget of this request. */
  stdoutBudget: number;
  /** stderr budget (the shell's maxOutputBytes). */
  stderrBudget: number;
  /** The shell's maxSpillBytes. */
  maxSpillBytes: number;
  /** The shell's spillDir. */
  spillDir: string;
}

/** What one stream must be. */
export interface StreamWant {
  /** Exact text. */
  text?: string;
  /** Exact total bytes. */
  totalBytes?: number;
  /** SHA-256 of the whole stream, checked against the spill file at the end. */
  sha?: string;
}

/** What one result must be; absent fields are not checked. */
export interface ResultWant {
  exitCode?: number | null;
  signal?: string | null | readonly (string | null)[];
  timedOut?: boolean;
  aborted?: boolean;
  stdout?: StreamWant;
  stderr?: StreamWant;
}

/** Where `text` is, for the marker: the spill file or why there is none. */
export function markerWhere(out: CollectedOutput): string {
  return out.spillPath !== undefined ? `full output: ${out.spillPath}` : "full output unavailable (over maxSpillBytes)";
}

/**
 * Checks a result: schema, flags, both streams. Spill paths are checked for
 * size now and recorded in the ledger for the final audit.
 */
export function checkResult(
  c: Check,
  ledger: Ledger,
  origin: string,
  result: ShellRunResult,
  want: ResultWant,
  limits: Limits,
): void {
  const before = c.problems.length;
  const parsed = ShellRunResultSchema.safeParse(result);
  c.that(parsed.success, `result does not match ShellRunResultSchema: ${parsed.success ? "" : parsed.error.message}`);
  if (want.exitCode !== undefined) c.eq("exitCode", result.exitCode, want.exitCode);
  if (want.signal !== undefined) {
    if (Array.isArray(want.signal)) c.oneOf("signal", result.signal, want.signal);
    else c.eq("signal", result.signal, want.signal);
  }
  // Neither flag unless the job says so (an explicit `undefined` leaves it unchecked).
  const timedOut = "timedOut" in want ? want.timedOut : false;
  const aborted = "aborted" in want ? want.aborted : false;
  if (timedOut !== undefined) c.eq("timedOut", result.timedOut, timedOut);
  if (aborted !== undefined) c.eq("aborted", result.aborted, aborted);
  c.that(!(result.timedOut && result.aborted), "timedOut and aborted both true");
  c.that(result.exitCode === null || result.signal === null, "both exitCode and signal set");
  checkStream(c, ledger, `${origin} stdout`, result.stdout, want.stdout, limits.stdoutBudget, limits);
  checkStream(c, ledger, `${origin} stderr`, result.stderr, want.stderr, limits.stderrBudget, limits);
  if (c.problems.length > before) {
    c.problems.push(
      `(${origin}: exitCode=${result.exitCode} signal=${result.signal} timedOut=${result.timedOut} ` +
        `aborted=${result.aborted} durationMs=${Math.round(result.durationMs)} ` +
        `stdout=${result.stdout.totalBytes}B stderr=${result.stderr.totalBytes}B)`,
    );
  }
}

/** Checks one stream against its budget and what it must hold. */
export function checkStream(
  c: Check,
  ledger: Ledger,
  origin: string,
  out: CollectedOutput,
  want: StreamWant | undefined,
  budget: number,
  limits: Limits,
): void {
  const name = origin.split(" ").at(-1)!;
  if (want?.totalBytes !== undefined) c.eq(`${name}.totalBytes`, out.totalBytes, want.totalBytes);
  if (want?.text !== undefined) c.eq(`${name}.text`, out.text, want.text);
  c.eq(`${name}.truncated`, out.truncated, out.totalBytes > budget);
  if (!out.truncated) {
    c.eq(`${name}.spillPath (not truncated)`, out.spillPath, undefined);
    return;
  }
  if (out.totalBytes > limits.maxSpillBytes) {
    c.eq(`${name}.spillPath (over maxSpillBytes)`, out.spillPath, undefined);
    c.that(out.text.includes("full output unavailable (over maxSpillBytes)"), `${name}: marker lacks the reason`);
    return;
  }
  if (out.spillPath === undefined) {
    c.that(false, `${name}: truncated at ${out.totalBytes} bytes (≤ maxSpillBytes) but no spillPath`);
    return;
  }
  c.eq(`${name}.spillPath directory`, dirname(out.spillPath), limits.spillDir);
  c.that(out.text.includes(`full output: ${out.spillPath}]`), `${name}: marker does not name the spill path`);
  let size = -1;
  try {
    size = statSync(out.spillPath).size;
  } catch {
    // reported below
  }
  c.eq(`${name} spill file size at return`, size, out.totalBytes);
  // The content is known only for a stream that ran to its expected length.
  const sha = want?.totalBytes === undefined || want.totalBytes === out.totalBytes ? want?.sha : undefined;
  ledger.spill(out.spillPath, { size: out.totalBytes, sha, origin });
}
