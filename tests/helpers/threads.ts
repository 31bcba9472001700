/**
 * A process whose main thread exits while another thread runs on: `/proc`
 * shows it as a zombie (`Z`), yet it is alive. The red-team command that
 * hung 1.0.
 */

import { procInfo } from "./proc.ts";

/**
 * A command that becomes such a process: python3 ignores SIGTERM (so only
 * a SIGKILL ends it, and only a termination that sees it alive sends one),
 * starts a thread that sleeps for two minutes, and ends its main thread.
 */
export const MAIN_THREAD_EXITS = "python3 -c 'import signal, threading, ctypes, time; " +
  "signal.signal(signal.SIGTERM, signal.SIG_IGN); " +
  "threading.Thread(target=time.sleep, args=(120,)).start(); " +
  "ctypes.CDLL(None).pthread_exit(None)'";

/** Whether `pid` shows the state of a main thread that has exited while other threads run. */
export function mainThreadExited(pid: number): boolean {
  const info = procInfo(pid);
  return info !== undefined && info.state === "Z" && info.threads > 1;
}
