/**
 * Observers on run() and start(): every chunk in order, as a copy, next to
 * a capture that does not change; an observer that throws is reported once
 * on the result and not called again.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import process from "node:process";
import { ShellSpecError } from "../mod.ts";
import { concatBytes } from "./helpers/capture.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";

const decoder = new TextDecoder();

/** Collects one stream's chunks as text, keeping every chunk it is given (they must be copies). */
function keeper(): { chunks: Uint8Array[]; text: () => string; observe: (chunk: Uint8Array) => void } {
  const chunks: Uint8Array[] = [];
  return {
    chunks,
    observe: (chunk) => chunks.push(chunk),
    text: () => decoder.decode(concatBytes(chunks)),
  };
}

describe("observers", () => {
  it("see both streams in order, as copies they may keep, and the capture is unchanged", async () => {
    await withShell({}, async (shell) => {
      const out = keeper();
      const err = keeper();
      // Many small writes on both streams: a reused read buffer would show up as repeated or mixed chunks.
      const command = "for i in $(seq 1 2000); do echo out-$i; echo err-$i >&2; done";
      const result = await shell.run(shell.resolve({ command, owner: null }), {
        onStdout: out.observe,
        onStderr: err.observe,
      });
      const expectOut = Array.from({ length: 2000 }, (_, i) => `out-${i + 1}\n`).join("");
      const expectErr = Array.from({ length: 2000 }, (_, i) => `err-${i + 1}\n`).join("");
      assert.equal(out.text(), expectOut);
      assert.equal(err.text(), expectErr);
      assert.equal(result.stdout.totalBytes, expectOut.length);
      assert.equal(result.stderr.totalBytes, expectErr.length);
      assert.equal(result.observerError, undefined);
      assert.ok(!("observerError" in result), "absent, not undefined, when the observer never threw");
    });
  });

  it("see every byte of a 1 GiB stream in order, while memory stays bounded", async () => {
    await withShell({}, async (shell) => {
      // Distinct, ordered content: the numbers 1 to 120 000 000, one per line, about 1.07 GB.
      const command = "seq 1 120000000";
      const oracle = await shell.exec(`${command} | sha256sum`);
      const [expected] = oracle.stdout.text.split(" ");
      const hash = createHash("sha256");
      let bytes = 0;
      let chunks = 0;
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const result = await shell.exec(command, {
        timeoutMs: 300_000,
        onStdout: (chunk) => {
          hash.update(chunk);
          bytes += chunk.length;
          if (++chunks % 512 === 0) peak = Math.max(peak, process.memoryUsage().rss);
        },
      });
      assert.equal(result.exitCode, 0);
      assert.ok(bytes > 1024 ** 3, `only ${bytes} bytes`);
      assert.equal(bytes, result.stdout.totalBytes);
      assert.equal(hash.digest("hex"), expected, "the observer's bytes are the stream, in order");
      // Each chunk is copied for the observer and dropped by it: garbage, collected as it goes.
      const grown = peak - baseline;
      assert.ok(grown < 384 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1024 / 1024)} MiB over a 1 GiB stream`);
    });
  });

  it("one that throws: the run goes on, the capture is whole, the error is reported once and it is not called again", async () => {
    await withShell({}, async (shell) => {
      const failure = new Error("observer broke");
      let stdoutCalls = 0;
      let stderrCalls = 0;
      const result = await shell.run(
        shell.resolve({ command: "for i in 1 2 3 4 5; do echo $i; echo e$i >&2; sleep 0.01; done", owner: null }),
        {
          onStdout: () => {
            stdoutCalls++;
            throw failure;
          },
          onStderr: () => void stderrCalls++,
        },
      );
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, "1\n2\n3\n4\n5\n");
      assert.equal(result.stderr.text, "e1\ne2\ne3\ne4\ne5\n");
      assert.equal(result.observerError, failure);
      assert.equal(stdoutCalls, 1, "not called again after it threw");
      assert.ok(stderrCalls <= 1, "the whole observer is dropped, its other stream too");
    });
  });

  it("an async one that rejects counts as throwing, and the rejection is not left unhandled", async () => {
    await withShell({}, async (shell) => {
      const failure = new Error("async observer broke");
      let calls = 0;
      const result = await shell.run(shell.resolve({ command: "echo a; sleep 0.2; echo b", owner: null }), {
        onStdout: async () => {
          calls++;
          await Promise.resolve();
          throw failure;
        },
      });
      assert.equal(result.stdout.text, "a\nb\n");
      assert.equal(result.observerError, failure);
      assert.equal(calls, 1);
    });
  });

  it("may be a class instance: its methods are called with the instance as this", async () => {
    class LineCounter {
      lines = 0;
      onStdout(chunk: Uint8Array): void {
        for (const byte of chunk) if (byte === 0x0a) this.lines++;
      }
    }
    await withShell({}, async (shell) => {
      const counter = new LineCounter();
      await shell.run(shell.resolve({ command: "seq 1 100", owner: null }), counter);
      assert.equal(counter.lines, 100);
    });
  });

  it("on a background task: sees what read() returns, and the task's result reports its error", async () => {
    await withShell({}, async (shell) => {
      const seen = keeper();
      const task = shell.start(shell.resolve({ command: "echo one; echo two", owner: null }), {
        onStdout: seen.observe,
        onStderr: () => {
          throw new Error("never: nothing on stderr");
        },
      });
      const result = await task.done;
      assert.equal(seen.text(), "one\ntwo\n");
      assert.equal(task.read().stdout, "one\ntwo\n");
      assert.equal(result.observerError, undefined);
    });
  });

  it("is checked before anything runs: not an object, or a callback that is not a function", async () => {
    await withShell({}, async (shell, dir) => {
      const spec = shell.resolve({ command: `touch '${dir}/ran'`, owner: null });
      const notObject = await rejection(shell.run(spec, "observer" as never));
      assert.ok(notObject instanceof ShellSpecError);
      assert.equal(notObject.field, "observer");
      const badCallback = thrown(() => shell.start(spec, { onStdout: "print" as never }));
      assert.ok(badCallback instanceof ShellSpecError);
      assert.equal(badCallback.field, "observer.onStdout");
      assert.equal(existsSync(`${dir}/ran`), false, "nothing ran");
    });
  });

  it("a callback planted on Object.prototype is not the caller's: it is never called", async () => {
    let planted = 0;
    Object.defineProperty(Object.prototype, "onStdout", {
      value: () => planted++,
      configurable: true,
      writable: true,
    });
    try {
      await withShell({}, async (shell) => {
        const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }), {});
        assert.equal(result.stdout.text, "hi\n");
      });
    } finally {
      delete (Object.prototype as Record<string, unknown>).onStdout;
    }
    assert.equal(planted, 0);
  });
});
