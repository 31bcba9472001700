/**
 * Termination of a command's whole session: SIGTERM to each of its process
 * groups, then SIGKILL `graceMs` later if anything still runs. Grandchildren
 * go too, also those that trap SIGTERM or made a group of their own.
 *
 * @module
 */

import { type CommandSession, waitSessionGone } from "./session.ts";

/** How long to wait for a SIGKILLed session to disappear before giving up on it. */
const AFTER_KILL_MS = 5_000;

/**
 * Terminates `session` and resolves once it is gone (true) or could not be
 * seen to go within a bounded wait after SIGKILL (false).
 */
export async function terminateSession(session: CommandSession, graceMs: number): Promise<boolean> {
  if (!session.signal("SIGTERM")) return true;
  if (await waitSessionGone(session, graceMs)) return true;
  session.signal("SIGKILL");
  return await waitSessionGone(session, AFTER_KILL_MS);
}
