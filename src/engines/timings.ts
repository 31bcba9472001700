/**
 * The timing options every remote engine takes, checked once.
 *
 * @module
 */

import { ShellSpecError } from "../seam/errors.ts";

/** The heartbeat goes every second: a shorter silence than two beats would end commands on a mere hiccup. */
const MIN_HEARTBEAT_MS = 2_000;
/** Timers fire at once beyond this. */
const MAX_TIMER_MS = 2_147_483_647;

/** The checked timings, present only when given. */
export interface EngineTimings {
  heartbeatMs?: number;
  connectTimeoutMs?: number;
}

/** Checks `heartbeatMs` (0, or 2 000 and more) and `connectTimeoutMs` (positive); throws `ShellSpecError`. */
export function checkTimings(options: EngineTimings): EngineTimings {
  const timings: EngineTimings = {};
  const { heartbeatMs, connectTimeoutMs } = options;
  if (heartbeatMs !== undefined) {
    if (
      !Number.isInteger(heartbeatMs) || heartbeatMs > MAX_TIMER_MS ||
      (heartbeatMs !== 0 && heartbeatMs < MIN_HEARTBEAT_MS)
    ) {
      throw new ShellSpecError(
        "heartbeatMs",
        `must be 0 (off) or a whole number of ms from ${MIN_HEARTBEAT_MS} to ${MAX_TIMER_MS}`,
      );
    }
    timings.heartbeatMs = heartbeatMs;
  }
  if (connectTimeoutMs !== undefined) {
    if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs <= 0 || connectTimeoutMs > MAX_TIMER_MS) {
      throw new ShellSpecError("connectTimeoutMs", `must be a whole number of ms from 1 to ${MAX_TIMER_MS}`);
    }
    timings.connectTimeoutMs = connectTimeoutMs;
  }
  return timings;
}
