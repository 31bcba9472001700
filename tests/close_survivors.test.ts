/**
 * `close()` and the survivors of finished runs: many of them are ended with
 * a bounded number of passes over `/proc` (not one or more per survivor),
 * and a survivor that left the command's process group but stayed in its
 * session (`set -m`) is ended too.
 *
 * What is gone is checked in /proc by session id, not by trusting the code
 * under test. The pass count comes from a process reader that counts, in a
 * host of the test's own (`host.ts`, internal: not exported by the package).
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell } from "../mod.ts";
import { HostProcess } from "../src/seam/host.ts";
import { linuxProcReader, type ProcReader } from "../src/seam/session/proc_table.ts";
import { createShellIn } from "../src/seam/shell.ts";
import { runtimeAdapter } from "./helpers/adapters.ts";
import { isRunning, Leftovers, procInfo, runningInSessions } from "./helpers/proc.ts";

const GRACE_MS = 200;
const SURVIVORS = 200;
/** Runs started at once while the survivors are made: enough to be quick, few enough for two cores. */
const BATCH = 20;

/** Parses the `"$$ $!"` a command printed: its session id and its background process. */
function sidAndPid(text: string): [number, number] {
  const [sid, pid] = text.trim().split(" ").map(Number);
  assert.ok(sid > 0 && pid > 0, `unexpected output ${JSON.stringify(text)}`);
  return [sid, pid];
}

describe("close() and survivors", () => {
  it(`ends ${SURVIVORS} survivors with a bounded number of /proc passes`, async () => {
    // A pass lists every pid once: counting the listings counts the passes.
    let passCount = 0;
    const counting: ProcReader = {
      pids: () => {
        passCount++;
        return linuxProcReader.pids();
      },
      read: linuxProcReader.read,
    };
    const shell = createShellIn(new HostProcess({ procReader: counting }), runtimeAdapter, { graceMs: GRACE_MS });
    const sids = new Set<number>();
    const sleepers: number[] = [];
    // What a failed test leaves behind is killed at the end, and only if it is still what it was.
    const leftovers = new Leftovers();
    try {
      for (let made = 0; made < SURVIVORS; made += BATCH) {
        const results = await Promise.all(
          Array.from(
            { length: BATCH },
            () => shell.run(shell.resolve({ command: "sleep 300 >/dev/null 2>&1 & echo $$ $!", owner: null })),
          ),
        );
        for (const result of results) {
          const [sid, pid] = sidAndPid(result.stdout.text);
          sids.add(sid);
          sleepers.push(pid);
          leftovers.add(pid);
        }
      }
      assert.equal(sleepers.filter((pid) => isRunning(pid)).length, SURVIVORS, "every sleeper runs before close()");

      const before = passCount;
      await shell.close();
      const passes = passCount - before;

      assert.deepEqual(runningInSessions(sids), [], "processes of the survivors' sessions still run after close()");
      // One pass to find the survivors (SIGTERM shares it), then one per poll while they die;
      // checking them one by one would take at least one pass per survivor.
      assert.ok(passes >= 1, "close() must look at /proc");
      assert.ok(passes <= SURVIVORS / 8, `close() made ${passes} passes over /proc for ${SURVIVORS} survivors`);
    } finally {
      leftovers.kill();
      await shell.close();
    }
  });

  it("ends a survivor that left the command's group but not its session (set -m) after a normal exit", async () => {
    const shell = createLocalShell({ graceMs: GRACE_MS });
    let sleeper = -1;
    const leftovers = new Leftovers();
    try {
      // Job control puts the sleeper in a process group of its own, inside the command's session.
      const result = await shell.run(shell.resolve({
        command: "set -m; sleep 300 >/dev/null 2>&1 & echo $$ $!",
        owner: null,
      }));
      assert.equal(result.exitCode, 0);
      const [sid, pid] = sidAndPid(result.stdout.text);
      sleeper = pid;
      leftovers.add(sleeper);
      const info = procInfo(sleeper);
      assert.ok(info !== undefined && isRunning(sleeper), "the sleeper runs after the command exited");
      assert.equal(info.sid, sid, "the sleeper is in the command's session");
      assert.notEqual(info.pgrp, sid, "the sleeper left the command's process group");

      await shell.close();

      assert.equal(isRunning(sleeper), false, "the sleeper still runs after close()");
      assert.deepEqual(runningInSessions(new Set([sid])), [], "the command's session still has members");
    } finally {
      leftovers.kill();
      await shell.close();
    }
  });
});
