import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createLocalShell } from "../mod.ts";
import type { ProcessAdapter } from "../src/seam/mod.ts";
import { denoAdapter } from "../src/deno_adapter.ts";
import { sha256 } from "./helpers/capture.ts";
import { IS_DENO } from "./helpers/runtime.ts";

/**
 * The Deno adapter lends each chunk in a buffer it reuses. It starts at 4 KiB
 * (most commands print little, and a 64 KiB buffer per stream per command
 * showed in the latency of short commands) and grows ×4 to 64 KiB when a
 * read fills it. The chunks must still arrive whole and in order.
 */
describe("the deno adapter's read buffers", { skip: !IS_DENO }, () => {
  /** The deno adapter, recording the size of the memory behind each stdout chunk and a copy of its bytes. */
  function recordingAdapter(): { adapter: ProcessAdapter; sizes: number[]; chunks: Uint8Array[] } {
    const sizes: number[] = [];
    const chunks: Uint8Array[] = [];
    const adapter: ProcessAdapter = {
      ...denoAdapter,
      spawn: (request) =>
        denoAdapter.spawn({
          ...request,
          onStdout: (chunk) => {
            sizes.push(chunk.buffer.byteLength);
            chunks.push(chunk.slice());
            request.onStdout(chunk);
          },
        }),
    };
    return { adapter, sizes, chunks };
  }

  it("a short output is read into a 4 KiB buffer", async () => {
    const { adapter, sizes } = recordingAdapter();
    await using shell = createLocalShell({ adapter });
    const result = await shell.run(shell.resolve({ command: "echo hi", owner: null }));
    assert.equal(result.stdout.text, "hi\n");
    assert.deepEqual(sizes, [4 * 1024]);
  });

  it("a big output grows the buffer to 64 KiB and no further, and arrives whole and in order", async () => {
    const { adapter, sizes, chunks } = recordingAdapter();
    await using shell = createLocalShell({ adapter });
    const total = 4 * 1024 * 1024;
    const result = await shell.run(
      shell.resolve({ command: `yes 0123456789abcdef | head -c ${total}`, owner: null, stdoutMaxBytes: total }),
    );
    const expected = "0123456789abcdef\n".repeat(Math.ceil(total / 17)).slice(0, total);
    assert.equal(result.stdout.totalBytes, total);
    assert.equal(result.stdout.text, expected);
    const received = createHash("sha256");
    for (const chunk of chunks) received.update(chunk);
    assert.equal(received.digest("hex"), sha256(expected));
    assert.equal(sizes[0], 4 * 1024);
    assert.equal(Math.max(...sizes), 64 * 1024);
    assert.ok(sizes.every((size) => [4 * 1024, 16 * 1024, 64 * 1024].includes(size)), `sizes: ${sizes}`);
  });
});
