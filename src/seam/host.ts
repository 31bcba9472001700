/**
 * What the library keeps per host process, in one object: the process
 * table (one `/proc` pass per turn of the event loop), the poller of every
 * termination under way, the exit guards, the shared abort listeners and
 * the environment scrub's memo. Every shell of the process shares them:
 * that sharing is what keeps a `close()` with hundreds of survivors at one
 * `/proc` pass per poll, and one abort listener per signal however many
 * commands listen to it.
 *
 * Internal: not exported from the package. Tests build a host of their own
 * (with a counting process reader, say) and a shell over it.
 *
 * @module
 */

import { newScrubMemo, type ScrubMemo } from "./env/merge.ts";
import { ExitGuard } from "./guard/exit_guard.ts";
import { type ProcReader, ProcTable } from "./session/proc_table.ts";
import { AbortFanout } from "./terminate/abort_fanout.ts";
import { TerminationPoller } from "./terminate/poller.ts";

/** How a host is built; the defaults are for production. */
export interface HostProcessOptions {
  /** Where processes are read from (default: `/proc`). */
  procReader?: ProcReader;
}

/** The state shared by every shell of one host process. */
export class HostProcess {
  /** The process table, read at most once per turn of the event loop. */
  readonly procTable: ProcTable;
  /** Every termination under way, polled by one timer. */
  readonly terminations: TerminationPoller = new TerminationPoller();
  /** One exit listener per adapter, over every open shell. */
  readonly exitGuard: ExitGuard = new ExitGuard();
  /** One abort listener per signal, fanned out to the commands that listen. */
  readonly abortListeners: AbortFanout = new AbortFanout();
  /**
   * The scrub of each ambient environment as last read, shared by every
   * spawn of the process: the ambient environment is read in full at each
   * spawn and is nearly always what it was, so the credential rules and
   * the merge run again only when something in it changed. One copy per
   * environment object (the process's, and each shell's own `ambientEnv`).
   */
  readonly scrubDecisions: ScrubMemo = newScrubMemo();

  /** @param options Where processes are read from. */
  constructor(options: HostProcessOptions = {}) {
    this.procTable = new ProcTable(options.procReader);
  }
}

let shared: HostProcess | undefined;

/** The host process's own {@linkcode HostProcess}, made at the first use. */
export function hostProcess(): HostProcess {
  shared ??= new HostProcess();
  return shared;
}
