import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import process from "node:process";
import { createLocalShell, type Shell } from "../mod.ts";
import { AbortFanout } from "../src/seam/terminate/abort_fanout.ts";

/** How many commands run at once: more than Node's default of 10 listeners per event. */
const IN_FLIGHT = 20;

/**
 * Runs `body` and returns the MaxListenersExceededWarnings the process
 * emitted meanwhile (Node emits warnings on a later tick, so wait one).
 */
async function listenerWarnings(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (warning: Error): void => {
    if (warning.name === "MaxListenersExceededWarning") seen.push(warning.message);
  };
  process.on("warning", onWarning);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off("warning", onWarning);
  }
  return seen;
}

describe("many commands in flight on one shell", () => {
  let shell: Shell;
  before(() => {
    shell = createLocalShell({ graceMs: 500 });
  });
  after(() => shell.close());

  const runMany = (signal?: AbortSignal, command = "sleep 0.2") =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, () =>
        shell.run(shell.resolve({ command, owner: null, ...(signal && { signal }) }))),
    );

  it(`${IN_FLIGHT} at once print no MaxListenersExceededWarning`, async () => {
    const warnings = await listenerWarnings(async () => {
      const results = await runMany();
      assert.ok(results.every((result) => result.exitCode === 0));
    });
    assert.deepEqual(warnings, []);
  });

  it(`${IN_FLIGHT} at once sharing the caller's signal print no MaxListenersExceededWarning`, async () => {
    const controller = new AbortController();
    const warnings = await listenerWarnings(async () => {
      const results = await runMany(controller.signal);
      assert.ok(results.every((result) => result.exitCode === 0 && !result.aborted));
    });
    assert.deepEqual(warnings, []);
    assert.equal(getEventListeners(controller.signal, "abort").length, 0, "no listener is left on the caller's signal");
  });

  it(`aborting a signal shared by ${IN_FLIGHT} commands ends every one of them`, async () => {
    const controller = new AbortController();
    const running = runMany(controller.signal, "sleep 30");
    controller.abort();
    const results = await running;
    assert.ok(
      results.every((result) => result.aborted && !result.timedOut),
      JSON.stringify(results.map((r) => r.aborted)),
    );
  });

  it(`close() ends every one of ${IN_FLIGHT} commands in flight`, async () => {
    const own = createLocalShell({ graceMs: 500 });
    const running = Promise.all(
      Array.from({ length: IN_FLIGHT }, () => own.run(own.resolve({ command: "sleep 30", owner: null }))),
    );
    await own.close();
    const results = await running;
    assert.ok(results.every((result) => result.aborted && !result.timedOut));
  });
});

describe("AbortFanout.onAbort", () => {
  it("calls each callback once, through one listener removed with the last callback", () => {
    const fanout = new AbortFanout();
    const onAbort = fanout.onAbort.bind(fanout);
    const controller = new AbortController();
    const calls: string[] = [];
    const stopA = onAbort(controller.signal, () => calls.push("a"));
    const stopB = onAbort(controller.signal, () => calls.push("b"));
    const stopC = onAbort(controller.signal, () => calls.push("c"));
    assert.equal(getEventListeners(controller.signal, "abort").length, 1);
    stopB();
    stopB();
    controller.abort();
    controller.abort();
    assert.deepEqual(calls, ["a", "c"]);
    stopA();
    stopC();
    const other = new AbortController();
    const stop = onAbort(other.signal, () => {});
    stop();
    assert.equal(getEventListeners(other.signal, "abort").length, 0);
  });

  it("a callback removed by another while the signal aborts is not called", () => {
    const fanout = new AbortFanout();
    const onAbort = fanout.onAbort.bind(fanout);
    const controller = new AbortController();
    const calls: string[] = [];
    let stopSecond = (): void => {};
    onAbort(controller.signal, () => {
      calls.push("first");
      stopSecond();
    });
    stopSecond = onAbort(controller.signal, () => calls.push("second"));
    controller.abort();
    assert.deepEqual(calls, ["first"]);
  });
});
