/**
 * Termination of a whole process group: SIGTERM, then SIGKILL `graceMs`
 * later if any member still runs. Grandchildren are in the group, so they
 * go too, also those that trap SIGTERM.
 *
 * @module
 */

import type { ProcessAdapter } from "../adapter.ts";
import { waitGroupGone } from "./group_liveness.ts";

/** How long to wait for a SIGKILLed group to disappear before giving up on it. */
const AFTER_KILL_MS = 5_000;

/**
 * Terminates group `pgid` and resolves once it is gone (true) or could not
 * be seen to go within a bounded wait after SIGKILL (false).
 */
export async function terminateGroup(adapter: ProcessAdapter, pgid: number, graceMs: number): Promise<boolean> {
  if (!adapter.signalGroup(pgid, "SIGTERM")) return true;
  if (await waitGroupGone(adapter, pgid, graceMs)) return true;
  adapter.signalGroup(pgid, "SIGKILL");
  return await waitGroupGone(adapter, pgid, AFTER_KILL_MS);
}
