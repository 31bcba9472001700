import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  warmUp = 0,
): Promise<{ code: number | null; signal: string | null }> {
  const hostArgs = [how, pidFile, watchdog, String(warmUp)];
  const args = isDeno ? ["run", "-A", fixture, ...hostArgs] : [fixture, ...hostArgs];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "ignore"] });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** What the fixture wrote of its watchdog: pid, record directory, and the record's line count then. */
function readWatchdog(pidFile: string): { pid: number; dir: string; lines: number } {
  const [pid, dir, lines] = readFileSync(`${pidFile}.watchdog`, "utf8").trim().split("\n");
  return { pid: Number(pid), dir, lines: Number(lines) };
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
        // The watchdog acts at the pipe's end whatever the cause, then removes its record and exits.
        const watchdog = readWatchdog(pidFile);
        assert.ok(await eventually(() => !existsSync(watchdog.dir), 5_000), `record left behind: ${watchdog.dir}`);
        assert.ok(await eventually(() => !isRunning(watchdog.pid), 5_000), "the watchdog is still running");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("the watchdog's record after many commands", () => {
  it("a host SIGKILLed after its record was compacted still has its groups killed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-host-"));
    try {
      const pidFile = join(dir, "pids");
      // Two lines per command, of 5 bytes or more: 450 commands pass the 4 KiB compaction threshold.
      const commands = 450;
      const end = await runHost("sigkill", pidFile, "watchdog", commands);
      assert.equal(end.signal, "SIGKILL");
      const watchdog = readWatchdog(pidFile);
      // Uncompacted, the record would hold both lines of every command and the task's and survivor's.
      assert.ok(watchdog.lines < 2 * commands, `the record was not compacted: ${watchdog.lines} lines`);
      const pids = readPids(pidFile);
      assert.ok(await eventually(() => pids.every((pid) => !isRunning(pid)), 5_000), `still running: ${pids}`);
      assert.ok(await eventually(() => !existsSync(watchdog.dir), 5_000), `record left behind: ${watchdog.dir}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
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
