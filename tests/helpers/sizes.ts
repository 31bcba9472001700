/**
 * How big the tests that repeat an attack many times are: CI's size proves
 * the property, the release's size (`DSH_RELEASE_SIZES=1`, named in
 * docs/testing.md) hunts the rarer outcomes.
 *
 * Nothing here imports the library.
 */

import process from "node:process";

/** Whether the suite runs at the release's sizes. */
export const RELEASE_SIZES: boolean = process.env.DSH_RELEASE_SIZES === "1";

/** `ci` in CI and a developer's run, `release` with `DSH_RELEASE_SIZES=1`. */
export function sized(ci: number, release: number): number {
  return RELEASE_SIZES ? release : ci;
}
