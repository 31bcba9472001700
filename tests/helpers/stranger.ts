/**
 * A stranger holding a given pid: a process the library never started,
 * given the number of one it did, to check that nothing signals an id that
 * has come round. Steering the kernel's pid allocation needs root.
 *
 * Nothing here imports the library.
 */

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { isReaped } from "./proc.ts";
import { eventually } from "./wait.ts";

const LAST_PID = "/proc/sys/kernel/ns_last_pid";

/** Whether this process may set the kernel's last-pid counter (tried by writing back its current value). */
export function canSetLastPid(): boolean {
  try {
    writeFileSync(LAST_PID, readFileSync(LAST_PID, "utf8").trim());
    return true;
  } catch {
    return false;
  }
}

/**
 * Sets the kernel's last-pid counter just below the target and forks at
 * once, in one small python3 process, until the child gets the target: the
 * window in which another process can take the number is then a few
 * microseconds, not a runtime's whole spawn. The child that got it becomes
 * a session leader running `sleep 300`; the others exit at once.
 */
const HAND_OUT_PID = `
import os, sys
target = int(sys.argv[1])
for attempt in range(5000):
    with open("${LAST_PID}", "w") as counter:
        counter.write(str(target - 1))
    pid = os.fork()
    if pid == 0:
        if os.getpid() != target:
            os._exit(0)
        os.setsid()
        # Let go of the caller's pipes, or the caller would wait for the sleep.
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execvp("sleep", ["sleep", "300"])
    if pid == target:
        print(pid)
        sys.exit(0)
    os.waitpid(pid, 0)
sys.exit(1)
`;

/**
 * Starts `sleep 300` in a new session with exactly pid `target` (see
 * {@linkcode canSetLastPid}); undefined when it could not. On a busy machine
 * another process may hold the number for a while: the hand-out waits until
 * it is free again. The caller kills the stranger.
 */
export async function strangerWithPid(target: number): Promise<number | undefined> {
  for (let round = 0; round < 20; round++) {
    await eventually(() => isReaped(target), 10_000);
    const out = spawnSync("python3", ["-c", HAND_OUT_PID, String(target)], { encoding: "utf8" });
    if (out.status === 0 && Number(out.stdout.trim()) === target) return target;
  }
  return undefined;
}
