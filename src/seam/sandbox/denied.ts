/**
 * A best-effort hint that a command failed because the sandbox refused it
 * something: a read-only file system, a protected path, no network. Read
 * from what the command printed, so it can be wrong either way; it is a
 * hint for a model, never a decision.
 *
 * @module
 */

import type { ShellRunResult } from "../settle/types.ts";

/** The messages the usual tools print when the kernel says no. */
const REFUSALS: readonly RegExp[] = [
  /Read-only file system/i,
  /Permission denied/i,
  /Operation not permitted/i,
  /Device or resource busy/i,
  /Network is unreachable/i,
  /Could not resolve host|Temporary failure in name resolution|Name or service not known/i,
  /Connection refused/i,
  /\bEROFS\b|\bEACCES\b|\bEPERM\b|\bENETUNREACH\b|\bEAI_AGAIN\b/,
];

/** Whether a failed sandboxed command printed what a refusal of the sandbox prints. */
export function deniedBySandbox(result: Pick<ShellRunResult, "exitCode" | "stdout" | "stderr">): boolean {
  if (result.exitCode === 0) return false;
  const printed = `${result.stderr.text}\n${result.stdout.text}`;
  return REFUSALS.some((pattern) => pattern.test(printed));
}
