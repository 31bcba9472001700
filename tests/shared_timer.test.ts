import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { SharedTimer } from "../src/seam/terminate/shared_timer.ts";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";

/** Adds an entry of `ms` to `timers` that logs `name`; resolves with performance.now() when it is called back. */
function fired(timers: SharedTimer, ms: number, log: string[], name: string): Promise<number> {
  return new Promise((resolve) =>
    timers.after(ms, () => {
      log.push(name);
      resolve(performance.now());
    })
  );
}

/** Runs the fixture in `mode` under this runtime; its stdout lines, and its exit code (null: killed after 30 s). */
async function runTimerHost(mode: string): Promise<{ lines: string[]; code: number | null }> {
  const file = fileURLToPath(new URL(`./fixtures/shared_timer_host.${IS_DENO ? "ts" : "js"}`, import.meta.url));
  const child = spawn(process.execPath, scriptArgs(file, [mode]), { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => out += chunk);
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  clearTimeout(killer);
  return { lines: out.split("\n").filter((line) => line !== ""), code };
}

describe("SharedTimer", () => {
  it("calls back in due order, never before the time asked", async () => {
    const timers = new SharedTimer();
    const log: string[] = [];
    const start = performance.now();
    const late = fired(timers, 60, log, "late");
    const early = fired(timers, 20, log, "early"); // added later, due sooner: the timer is armed again
    const middle = fired(timers, 40, log, "middle");
    const [lateAt, earlyAt, middleAt] = await Promise.all([late, early, middle]);
    assert.deepEqual(log, ["early", "middle", "late"]);
    assert.ok(earlyAt - start >= 20, `called back after ${earlyAt - start} ms, asked 20`);
    assert.ok(middleAt - start >= 40, `called back after ${middleAt - start} ms, asked 40`);
    assert.ok(lateAt - start >= 60, `called back after ${lateAt - start} ms, asked 60`);
  });

  it("calls back in due order when the loop comes late and several are due at once", async () => {
    const timers = new SharedTimer();
    const log: string[] = [];
    const late = fired(timers, 10, log, "late");
    const early = fired(timers, 1, log, "early"); // added later, due sooner
    // The loop is held past both due times (a loaded machine): the one timer finds both due in one turn.
    const until = performance.now() + 30;
    while (performance.now() < until) { /* busy */ }
    await Promise.all([late, early]);
    assert.deepEqual(log, ["early", "late"]);
  });

  it("never calls back a cancelled entry, and later entries still come when the armed one was cancelled", async () => {
    const timers = new SharedTimer();
    const log: string[] = [];
    const cancelFirst = timers.after(10, () => log.push("cancelled"));
    const second = fired(timers, 30, log, "second"); // does not arm the timer: it is armed sooner
    cancelFirst();
    cancelFirst(); // twice: nothing happens
    await second;
    const third = timers.after(5, () => log.push("third"));
    await fired(timers, 25, log, "fourth");
    third(); // after the call: nothing happens
    assert.deepEqual(log, ["second", "third", "fourth"]);
  });

  it("takes entries added by a callback", async () => {
    const timers = new SharedTimer();
    const log: string[] = [];
    const nested = new Promise<void>((resolve) =>
      timers.after(5, () => {
        log.push("outer");
        timers.after(0, () => {
          log.push("inner");
          resolve();
        });
      })
    );
    await nested;
    assert.deepEqual(log, ["outer", "inner"]);
  });

  it("holds the event loop exactly while an entry is pending", { timeout: 60_000 }, async () => {
    const cancelled = await runTimerHost("cancelled");
    assert.deepEqual(cancelled.lines, ["cancelled"]);
    assert.equal(cancelled.code, 0, "a cancelled entry ten minutes away kept the process alive");
    const pending = await runTimerHost("pending");
    assert.deepEqual(pending.lines, ["fired"], "the process ended before its pending entry was due");
    assert.equal(pending.code, 0);
  });

  it("calls the other callbacks when one throws, and hands the error to the runtime", { timeout: 60_000 }, async () => {
    const { lines } = await runTimerHost("throws");
    assert.deepEqual(lines.toSorted(), ["second", "uncaught boom"]);
  });
});
