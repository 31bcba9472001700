/**
 * The sandbox's init (bubblewrap's pid 1 inside, a child of the session
 * leader on the host): what ends every process of the sandbox when it dies.
 * It is killed with the rest of the command's session. But it runs as the
 * command's user, and if a command ever made it leave the session (by
 * `ptrace` or a write to its memory, which the seccomp filter and a mask on
 * `/proc/1/mem` refuse) the session's termination would miss it and the
 * whole sandbox would live on. So, as a second line, a termination that
 * starts while the leader runs also notes the init, and once the session
 * is gone SIGKILLs it by its host pid if it is still there outside the
 * session.
 *
 * A pid comes round, and a killed harness is the threat here, so the init
 * is taken for ours only when that can be shown: the status file names its
 * pid, and the process holding that pid is a child of the leader, which has
 * not exited (a child of a living process is that process's, and the
 * leader's pid is ours until it is reaped). Its start time is noted then,
 * and the kill happens only while the pid is held by a process with that
 * start time.
 *
 * @module
 */

import type { ProcessAdapter } from "../adapter.ts";
import type { ProcTable } from "../session/proc_table.ts";
import { readStatus } from "./launcher.ts";

/** The sandbox's init on the host: its pid and start time (clock ticks since boot). */
export interface SandboxInit {
  readonly pid: number;
  readonly start: number;
}

/**
 * The init of the sandbox whose bubblewrap writes `statusPath` and runs as
 * the session leader `leader`, when that can be shown (see the module's
 * comment); undefined otherwise (no clone yet, the leader gone).
 */
export function findSandboxInit(statusPath: string, leader: number, table: ProcTable): SandboxInit | undefined {
  const pid = readStatus(statusPath).initPid;
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 1) return undefined;
  const entry = table.read(pid);
  if (entry === undefined || entry.finished || entry.ppid !== leader) return undefined;
  return { pid, start: entry.start };
}

/**
 * SIGKILLs `init` (with its process group) when the process holding its
 * pid is still it and has left the session `leader`; returns whether it
 * did. Within the session, it went with the session.
 */
export function killEscapedInit(
  init: SandboxInit,
  leader: number,
  table: ProcTable,
  adapter: ProcessAdapter,
): boolean {
  const entry = table.read(init.pid);
  if (entry === undefined || entry.finished || entry.start !== init.start || entry.session === leader) return false;
  // Out of the session means setsid: it leads a group of its own, which holds the rest it took along.
  if (entry.pgrp !== init.pid) return false;
  return adapter.signalGroup(init.pid, "SIGKILL");
}
