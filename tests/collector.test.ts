/**
 * `OutputCollector` on its own, fed chunk by chunk as an adapter feeds it:
 * tiny chunks are kept exactly and cheaply, and nothing the collector
 * reports — the finished result, the spill file, the sequence of
 * `readFrom` deltas — depends on how the stream was cut into chunks.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import process from "node:process";
import type { CollectedOutput } from "../mod.ts";
import { OutputCollector, type StreamDelta } from "../src/seam/capture/collector.ts";
import { asciiPattern } from "./helpers/capture.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { between, prng } from "./helpers/random.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MiB = 1024 * 1024;

function newCollector(budget: number, spillDir: string): OutputCollector {
  return new OutputCollector({ budget, maxSpillBytes: 1 << 30, spillDirectory: () => spillDir, label: "stdout" });
}

/**
 * Writes `bytes` as the adapters do: through one reused buffer that is
 * overwritten after each call, so a collector that kept the lent memory
 * instead of copying it would be caught.
 */
function writeLent(collector: OutputCollector, bytes: Uint8Array, scratch: Uint8Array): void {
  const lent = scratch.subarray(0, bytes.length);
  lent.set(bytes);
  collector.write(lent);
  lent.fill(0xaa);
}

/**
 * Random bytes that are mostly UTF-8 text of 1- to 4-byte characters with
 * newlines, and now and then an invalid byte (a stray continuation byte or
 * 0xff), so that cuts meet every kind of boundary.
 */
function randomStream(random: () => number, length: number): Uint8Array {
  const pieces = ["a", "Z", "7", " ", "\n", "é", "ß", "€", "中", "😀", "𝄞"].map((text) => encoder.encode(text));
  const out = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const roll = random();
    if (roll < 0.05) out[at++] = random() < 0.5 ? 0x80 : 0xff;
    else {
      const piece = pieces[Math.floor(random() * pieces.length)];
      const take = Math.min(piece.length, length - at); // the last character may be cut: the stream ends mid-character
      out.set(piece.subarray(0, take), at);
      at += take;
    }
  }
  return out;
}

/** Cut points (sorted, without 0 and `length`) for `count` random cuts of `length` bytes. */
function randomCuts(random: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  for (let i = 0; i < count && length > 1; i++) cuts.add(between(random, 1, length - 1));
  return [...cuts].sort((a, b) => a - b);
}

/** What one run of a collector over a stream showed, the spill file's random name left out. */
interface Observed {
  deltas: StreamDelta[];
  result: Omit<CollectedOutput, "spillPath">;
  spilled: Uint8Array | undefined;
}

/**
 * Feeds `stream` in the chunks given by `cuts`, calls `readFrom` (not
 * ended) at every offset in `reads` (each also a cut) and once more after
 * `finish()` (ended), and returns what was seen.
 */
function observe(stream: Uint8Array, budget: number, spillDir: string, cuts: number[], reads: Set<number>): Observed {
  const collector = newCollector(budget, spillDir);
  const scratch = new Uint8Array(Math.max(1, stream.length));
  const deltas: StreamDelta[] = [];
  let cursor = 0;
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    if (to > from) writeLent(collector, stream.subarray(from, to), scratch);
    from = to;
    if (reads.has(to)) {
      const delta = collector.readFrom(cursor, false);
      deltas.push(delta);
      cursor = delta.next;
    }
  }
  const { spillPath, ...result } = collector.finish();
  // The marker line names the spill file, whose name is random by design.
  if (spillPath !== undefined) result.text = result.text.replace(spillPath, "<spill file>");
  deltas.push(collector.readFrom(cursor, true));
  let spilled: Uint8Array | undefined;
  if (spillPath !== undefined) {
    spilled = new Uint8Array(readFileSync(spillPath));
    rmSync(spillPath);
  }
  return { deltas, result, spilled };
}

describe("OutputCollector: chunk by chunk", () => {
  let spillDir: string;

  before(() => {
    spillDir = freshDir("dsh-collector-");
  });

  after(() => removeDir(spillDir));

  it("40 000 one-byte chunks within a 64 000-byte budget come back exactly", () => {
    const text = asciiPattern(40_000, 7) + "\n";
    const bytes = encoder.encode(text);
    const collector = newCollector(64_000, spillDir);
    const scratch = new Uint8Array(1);
    for (let i = 0; i < bytes.length; i++) writeLent(collector, bytes.subarray(i, i + 1), scratch);
    assert.equal(collector.totalBytes, bytes.length);
    assert.deepEqual(collector.readFrom(0, false), { text, next: bytes.length, lossy: false });
    assert.deepEqual(collector.finish(), { text, truncated: false, totalBytes: bytes.length });
    assert.deepEqual(collector.readFrom(12_345, true), { text: text.slice(12_345), next: bytes.length, lossy: false });
  });

  it("one-byte chunks cost about the bytes they carry, not an object each", () => {
    // 16 collectors, each with a full 32 000-byte head written in one-byte
    // chunks, all alive at once: a head kept as one array per chunk holds
    // 512 000 small arrays (tens of MiB of heap); one buffer per head holds
    // 16 × 32 000 bytes.
    const collectors: OutputCollector[] = [];
    const byte = new Uint8Array([0x61]);
    const heapBefore = process.memoryUsage().heapUsed;
    for (let c = 0; c < 16; c++) {
      const collector = newCollector(64_000, spillDir);
      for (let i = 0; i < 32_000; i++) collector.write(byte);
      collectors.push(collector);
    }
    const growth = process.memoryUsage().heapUsed - heapBefore;
    for (const collector of collectors) assert.equal(collector.finish().text, "a".repeat(32_000));
    assert.ok(growth < 12 * MiB, `the heap grew by ${(growth / MiB).toFixed(1)} MiB for 512 000 bytes of output`);
  });

  it("results, spill files and readFrom deltas do not depend on the chunking (seeded random streams)", () => {
    const trials = 150;
    for (let seed = 1; seed <= trials; seed++) {
      const random = prng(seed);
      const budget = random() < 0.3 ? between(random, 1, 8) : between(random, 9, 300);
      const length = random() < 0.15 ? between(random, 0, budget) : between(random, 0, budget * 4 + 20);
      const stream = randomStream(random, length);
      const reads = new Set([...randomCuts(random, length, between(random, 0, 6)), length]);
      const readCuts = [...reads].filter((at) => at > 0 && at < length);
      const union = (cuts: number[]) => [...new Set([...cuts, ...readCuts])].sort((a, b) => a - b);
      const chunkings: [string, number[]][] = [
        ["only at the reads", union([])],
        ["one byte at a time", union(Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1))],
        ["random, few", union(randomCuts(random, length, 3))],
        ["random, many", union(randomCuts(random, length, between(random, 1, length)))],
      ];
      const label = `seed ${seed} (budget ${budget}, ${length} bytes)`;
      const [reference, ...others] = chunkings.map(([, cuts]) => observe(stream, budget, spillDir, cuts, reads));
      for (const [index, other] of others.entries()) {
        assert.deepEqual(other, reference, `${label}: "${chunkings[index + 1][0]}" differs from "${chunkings[0][0]}"`);
      }
      // The reference itself against the stream.
      assert.equal(reference.result.totalBytes, length, `${label}: totalBytes`);
      assert.equal(reference.result.truncated, length > budget, `${label}: truncated`);
      if (length <= budget) {
        assert.equal(reference.result.text, decoder.decode(stream), `${label}: a stream within budget is whole`);
        assert.equal(reference.spilled, undefined, `${label}: no spill within budget`);
        assert.ok(reference.deltas.every((delta) => !delta.lossy), `${label}: nothing lost within budget`);
        assert.equal(
          reference.deltas.map((delta) => delta.text).join(""),
          decoder.decode(stream),
          `${label}: the deltas add up to the stream`,
        );
      } else {
        assert.deepEqual(reference.spilled, stream, `${label}: the spill file holds the stream byte for byte`);
      }
      assert.equal(reference.deltas.at(-1)?.next, length, `${label}: the last read reaches the end`);
    }
  });
});
