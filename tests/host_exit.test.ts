import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { eventually, isRunning, readPids } from "./helpers/proc.ts";

const isDeno = "Deno" in globalThis;
// Compiled for the Node leg, the fixture is a .js file beside this one.
const fixture = fileURLToPath(new URL(`./fixtures/host.${isDeno ? "ts" : "js"}`, import.meta.url));

/** Runs the fixture harness to its end; resolves with how it ended. */
function runHost(
  how: string,
  pidFile: string,
  watchdog = "watchdog",
): Promise<{ code: number | null; signal: string | null }> {
  const args = isDeno ? ["run", "-A", fixture, how, pidFile, watchdog] : [fixture, how, pidFile, watchdog];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "ignore"] });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

describe("a host that ends without close() leaves no process behind", () => {
  const cases: [string, (end: { code: number | null; signal: string | null }) => boolean][] = [
    ["exit", (end) => end.code === 0],
    ["natural", (end) => end.code === 0],
    ["throw", (end) => end.code !== 0],
    ["sigkill", (end) => end.signal === "SIGKILL"],
  ];
  for (const [how, endedAsPlanned] of cases) {
    it(`when it ends by ${how}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "dsh-host-"));
      try {
        const pidFile = join(dir, "pids");
        const end = await runHost(how, pidFile);
        assert.ok(endedAsPlanned(end), `the host ended with ${JSON.stringify(end)}`);
        const pids = readPids(pidFile);
        assert.equal(pids.length, 3, "task leader, its grandchild, the run's survivor");
        // Killed by the exit guard at once, or by the watchdog once the host's pipe closed.
        assert.ok(await eventually(() => pids.every((pid) => !isRunning(pid)), 5_000), `still running: ${pids}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("each guard on its own", () => {
  for (const how of ["exit", "natural"]) {
    it(`the exit guard alone cleans up a host that ends by ${how}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "dsh-host-"));
      try {
        const pidFile = join(dir, "pids");
        const end = await runHost(how, pidFile, "no-watchdog");
        assert.equal(end.code, 0);
        const pids = readPids(pidFile);
        // The guard runs synchronously before the host is gone: no waiting needed beyond zombie reaping.
        assert.ok(await eventually(() => pids.every((pid) => !isRunning(pid)), 2_000), `still running: ${pids}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("without the watchdog, a SIGKILLed host would leave its groups running (so the watchdog is what saves them)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-host-"));
    const pidFile = join(dir, "pids");
    let pids: number[] = [];
    try {
      const end = await runHost("sigkill", pidFile, "no-watchdog");
      assert.equal(end.signal, "SIGKILL");
      pids = readPids(pidFile);
      assert.ok(pids.every((pid) => isRunning(pid)), "with no exit handler and no watchdog, the groups survive");
    } finally {
      for (const target of pids.flatMap((pid) => [-pid, pid])) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // Already gone, or not a group leader.
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
