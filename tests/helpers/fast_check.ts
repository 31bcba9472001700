/**
 * The fast-check seed of a property-test run.
 *
 * Nothing here imports the library.
 */

import process from "node:process";

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

/**
 * fast-check's parameters for one property: a bounded number of runs, and
 * the replay seed of {@linkcode fastCheckSeed} when one is given.
 */
export function fastCheckRuns(numRuns: number): { numRuns: number; seed?: number } {
  const seed = fastCheckSeed();
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
