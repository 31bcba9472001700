/**
 * `BoundedOutput`, the head and tail that the views of a running call keep
 * (MCP progress, a framework's live output), and the two views on it: what
 * they keep does not depend on how the stream was cut into chunks, the
 * chunks are copied, the tail starts on a character boundary, and the
 * note counts exactly the bytes between head and tail.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BoundedOutput } from "../src/seam/bounded_output.ts";
import { LiveOutput } from "../src/frameworks/live_output.ts";
import { progressListeners, type ProgressNotification } from "../src/mcp/progress.ts";
import { between, prng } from "./helpers/random.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `bytes` cut at `count` random points. */
function chunksOf(bytes: Uint8Array, random: () => number, count: number): Uint8Array[] {
  const cuts = [...new Set(Array.from({ length: count }, () => between(random, 1, Math.max(1, bytes.length - 1))))]
    .sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > at) chunks.push(bytes.subarray(at, cut));
    at = Math.max(at, cut);
  }
  return chunks;
}

/** Pushes each chunk through one reused buffer, overwritten after the call, as an adapter lends it. */
function pushLent(output: BoundedOutput, chunks: Uint8Array[]): Uint8Array[] {
  const scratch = new Uint8Array(Math.max(0, ...chunks.map((chunk) => chunk.length)));
  return chunks.map((chunk) => {
    const lent = scratch.subarray(0, chunk.length);
    lent.set(chunk);
    const head = output.push(lent);
    lent.fill(0xaa);
    return head;
  });
}

function joined(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

describe("BoundedOutput: the head and tail of a stream", () => {
  it("keeps the first half of the budget and the last half, whatever the chunks, and counts what is between", () => {
    const random = prng(41);
    for (let round = 0; round < 200; round++) {
      const budget = between(random, 1, 64);
      const stream = Uint8Array.from({ length: between(random, 0, 200) }, () => between(random, 0x61, 0x7a));
      const output = new BoundedOutput(budget);
      const heads = pushLent(output, chunksOf(stream, random, between(random, 0, 12)));
      const headSize = Math.min(stream.length, Math.floor(budget / 2));
      const tailSize = Math.min(stream.length - headSize, budget - Math.floor(budget / 2));
      const seen = `budget ${budget}, ${stream.length} bytes`;
      assert.deepEqual(joined(heads), stream.subarray(0, headSize), `the parts returned are the head (${seen})`);
      assert.deepEqual(output.head(), stream.subarray(0, headSize), `head (${seen})`);
      assert.deepEqual(output.tail(), stream.subarray(stream.length - tailSize), `tail (${seen})`);
      assert.equal(output.leftOut, stream.length - headSize - tailSize, `left out (${seen})`);
      assert.equal(output.overflowed, stream.length > headSize, `overflowed (${seen})`);
    }
  });

  it("starts the tail on a character boundary and leaves the cut character out of the count's view", () => {
    // "€" is three bytes; a tail of 3 holds its last one and "ab".
    const output = new BoundedOutput(6);
    output.push(encoder.encode("xyz" + "x".repeat(10) + "€ab"));
    assert.equal(decoder.decode(output.head()), "xyz");
    assert.equal(decoder.decode(output.tail()), "ab", "no U+FFFD from the cut character");
    assert.equal(output.leftOut, 10 + 2, "the bytes the ring dropped are left out; the one it holds is not");
  });

  it("keeps no tail and counts nothing left out for a stream that fits", () => {
    const output = new BoundedOutput(1 << 20);
    output.push(encoder.encode("short"));
    assert.equal(output.overflowed, false);
    assert.equal(output.tail().length, 0);
    assert.equal(output.leftOut, 0);
  });
});

describe("the views on it", () => {
  it("LiveOutput shows the head, a note of exactly what was left out, and the tail", () => {
    const live = new LiveOutput(10);
    live.push(encoder.encode("abc"));
    assert.equal(live.text(), "abc");
    // The head (5 bytes) ends inside "€": the character is left out, not shown as U+FFFD.
    live.push(encoder.encode("d€" + "0123456789".repeat(3) + "XYZWV"));
    assert.equal(live.text(), `abcd\n[... ${3 + 4 + 30 + 5 - 5 - 5} bytes left out ...]\nXYZWV`);
  });

  it("MCP progress sends the head live and, at the end, the note and the tail: all of it within the budget", async () => {
    const random = prng(7);
    const characters = ["a", "é", "€", "😀", "\n"];
    const stream = encoder.encode(Array.from({ length: 3000 }, () => characters[between(random, 0, 4)]).join(""));
    const sent: ProgressNotification[] = [];
    const progress = progressListeners("t", 64, true, (note) => {
      sent.push(note);
      return Promise.resolve();
    });
    for (const chunk of chunksOf(stream, random, 40)) progress.listeners.onStdout!(chunk);
    await progress.end();
    const message = sent.map((note) => note.params.message ?? "").join("");
    const left = /\n\[\.\.\. (\d+) bytes of stdout left out \.\.\.\]\n/.exec(message);
    assert.ok(left, "a note of what was left out");
    const shown = encoder.encode(message.replace(left[0], ""));
    assert.ok(shown.length <= 64, "no more than the budget is shown");
    assert.equal(sent.at(-1)!.params.progress, stream.length, "the progress counts every byte");
    assert.ok(decoder.decode(stream).startsWith(message.slice(0, left.index)), "the head is the stream's start");
    assert.ok(decoder.decode(stream).endsWith(message.slice(left.index + left[0].length)), "the tail is its end");
    assert.ok(!message.includes("\ufffd"), "no character is cut");
    assert.ok(shown.length + Number(left[1]) <= stream.length, "the note never counts a shown byte");
    assert.ok(shown.length + Number(left[1]) >= stream.length - 6, "and misses at most the two cut characters");
  });
});
