/**
 * Bounded capture of one output stream: the head and the tail stay in
 * memory, and once the stream passes its budget the complete stream goes to
 * a spill file. Memory stays at the budget whatever the command prints.
 *
 * @module
 */

import type { CollectedOutput } from "./types.ts";
import { concatBytes } from "./bytes.ts";
import { SpillFile } from "./spill.ts";
import { TailRing } from "./tail_ring.ts";
import { boundaryStartOffset, completePrefixLength } from "./utf8.ts";

/**
 * Settings of one {@linkcode OutputCollector}.
 *
 * @example
 * ```ts
 * import { mkdtempSync, readFileSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 * import { type CollectorOptions, OutputCollector } from "./collector.ts";
 * const dir = mkdtempSync(join(tmpdir(), "spill-"));
 * const options: CollectorOptions = { budget: 16, maxSpillBytes: 1 << 20, spillDirectory: () => dir, label: "stdout" };
 * const out = new OutputCollector(options);
 * const stream = "line 1\nline 2\nline 3\nline 4\n";
 * out.write(new TextEncoder().encode(stream));
 * const result = out.finish();
 * assert.equal(result.truncated, true);
 * assert.equal(result.totalBytes, 28);
 * const spillPath = result.spillPath ?? "";
 * assert.ok(spillPath.startsWith(`${dir}/stdout-`));
 * assert.equal(readFileSync(spillPath, "utf8"), stream); // the whole stream
 * rmSync(dir, { recursive: true });
 * ```
 */
export interface CollectorOptions {
  /** In-memory budget in bytes: a stream of at most this many bytes is kept whole. */
  budget: number;
  /** Cap on the spill file: past it the file is deleted. */
  maxSpillBytes: number;
  /** Returns the spill directory; called at the first overflow. May throw. */
  spillDirectory: () => string;
  /** Names the stream in the spill file name, e.g. `"stdout"`. */
  label: string;
}

/**
 * What {@linkcode OutputCollector.readFrom} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputCollector, type StreamDelta } from "./collector.ts";
 * const out = new OutputCollector({ budget: 1024, maxSpillBytes: 1 << 20, spillDirectory: () => "/tmp", label: "stdout" });
 * const bytes = new TextEncoder().encode("café");
 * out.write(bytes.subarray(0, 4)); // "caf" and the first byte of "é"
 * let delta: StreamDelta = out.readFrom(0, false);
 * assert.deepEqual([delta.text, delta.next], ["caf", 3]); // the split character is held back
 * out.write(bytes.subarray(4));
 * delta = out.readFrom(delta.next, false);
 * assert.deepEqual(delta, { text: "é", next: 5, lossy: false });
 * ```
 */
export interface StreamDelta {
  /** The bytes read, decoded; never split inside a character. */
  text: string;
  /** The offset to read from next time. */
  next: number;
  /** True when bytes between the cursor and `text` are no longer in memory. */
  lossy: boolean;
}

type SpillState =
  | { kind: "none" }
  | { kind: "open"; file: SpillFile }
  | { kind: "closed"; path: string }
  | { kind: "unavailable"; why: string };

const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);
/** The head's first allocation; it then doubles up to the head limit. */
const INITIAL_HEAD_BYTES = 1024;

/**
 * Collects one stream within a byte budget.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OutputCollector } from "./collector.ts";
 * const out = new OutputCollector({
 *   budget: 1024,
 *   maxSpillBytes: 1 << 20,
 *   spillDirectory: () => "/tmp",
 *   label: "stdout",
 * });
 * out.write(new TextEncoder().encode("hello\n"));
 * assert.equal(out.finish().text, "hello\n");
 * ```
 */
export class OutputCollector {
  readonly #options: CollectorOptions;
  /** Bytes of the head: the first `#headLimit` bytes of the stream. */
  readonly #headLimit: number;
  /**
   * The head, in one buffer that grows by doubling up to `#headLimit`: a
   * stream of tiny chunks costs its bytes, not an array per chunk.
   */
  #head: Uint8Array = EMPTY;
  /** How much of `#head` is filled. */
  #headBytes = 0;
  /** The last bytes of the stream past the head; created at the first such byte. */
  #tail: TailRing | undefined;
  #total = 0;
  #spill: SpillState = { kind: "none" };
  #finished: CollectedOutput | undefined;

  /**
   * Creates an empty collector.
   *
   * @param options Budget, spill cap and spill location.
   */
  constructor(options: CollectorOptions) {
    this.#options = options;
    // The tail gets at least half the budget: it holds the end, where errors usually are.
    this.#headLimit = Math.floor(options.budget / 2);
  }

  /** Bytes seen so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /** The spill file's path while one is kept (open or complete), else undefined. */
  get spillPath(): string | undefined {
    if (this.#spill.kind === "open") return this.#spill.file.path;
    return this.#spill.kind === "closed" ? this.#spill.path : undefined;
  }

  /**
   * The bytes from stream offset `cursor` on that are still in memory. When
   * some of them have fallen out (the middle of a long stream is only in
   * the spill file), the newest bytes held are returned and `lossy` is set.
   * Unless `ended`, an incomplete character at the end is held back for the
   * next read.
   */
  readFrom(cursor: number, ended: boolean): StreamDelta {
    const total = this.#total;
    if (cursor >= total) return { text: "", next: total, lossy: false };
    const held = this.#tail?.size ?? 0;
    const tailStart = total - held;
    let bytes: Uint8Array;
    let lossy = false;
    if (cursor >= tailStart) {
      bytes = this.#tail!.lastBytes(total - cursor);
    } else if (tailStart === this.#headBytes) {
      // Head and tail still meet: everything from the cursor on is held.
      const head = this.#heldHead().subarray(cursor);
      bytes = this.#tail === undefined ? head : concatBytes([head, this.#tail.toBytes()]);
    } else {
      lossy = true;
      const newest = this.#tail!.toBytes();
      bytes = newest.subarray(boundaryStartOffset(newest));
    }
    const usable = ended ? bytes.length : completePrefixLength(bytes);
    return { text: decoder.decode(bytes.subarray(0, usable)), next: total - (bytes.length - usable), lossy };
  }

  /** Takes one chunk. The chunk is copied: its memory may be reused after the call. */
  write(chunk: Uint8Array): void {
    if (chunk.length === 0 || this.#finished) return;
    const before = this.#total;
    this.#total += chunk.length;
    let rest = chunk;
    const room = this.#headLimit - this.#headBytes;
    if (room > 0) {
      const take = Math.min(room, chunk.length);
      this.#growHead(this.#headBytes + take);
      this.#head.set(take === chunk.length ? chunk : chunk.subarray(0, take), this.#headBytes);
      this.#headBytes += take;
      rest = take === chunk.length ? EMPTY : chunk.subarray(take);
    }
    if (before <= this.#options.budget && this.#total > this.#options.budget) {
      // First overflow: everything so far is still in memory, so the spill
      // file can start with the complete stream.
      this.#openSpill();
      this.#spillWrite(this.#heldBytes());
      this.#spillWrite(rest);
    } else if (this.#spill.kind === "open") {
      this.#spillWrite(chunk);
    }
    if (rest.length > 0) {
      this.#tail ??= new TailRing(this.#options.budget - this.#headLimit);
      this.#tail.write(rest);
    }
  }

  /** Ends the stream: closes the spill file and builds the result. Idempotent. */
  finish(): CollectedOutput {
    if (this.#finished) return this.#finished;
    if (this.#spill.kind === "open") {
      this.#spill.file.close();
      this.#spill = { kind: "closed", path: this.#spill.file.path };
    }
    // Head and tail stay: a background task's output is still read after it ended.
    this.#finished = this.#buildResult();
    return this.#finished;
  }

  #buildResult(): CollectedOutput {
    const head = this.#heldHead();
    const tail = this.#tail?.toBytes() ?? EMPTY;
    const spillPath = this.#spill.kind === "closed" ? this.#spill.path : undefined;
    if (this.#total <= this.#options.budget) {
      return { text: decoder.decode(concatBytes([head, tail])), truncated: false, totalBytes: this.#total };
    }
    const headCut = head.subarray(0, completePrefixLength(head));
    const tailCut = tail.subarray(boundaryStartOffset(tail));
    const omitted = this.#total - headCut.length - tailCut.length;
    const headText = decoder.decode(headCut);
    const where = spillPath !== undefined
      ? `full output: ${spillPath}`
      : `full output unavailable (${this.#spill.kind === "unavailable" ? this.#spill.why : "not kept"})`;
    const marker = `[... ${omitted} bytes omitted; ${where}]\n`;
    const separator = headText.length === 0 || headText.endsWith("\n") ? "" : "\n";
    const text = headText + separator + marker + decoder.decode(tailCut);
    return spillPath === undefined
      ? { text, truncated: true, totalBytes: this.#total }
      : { text, truncated: true, totalBytes: this.#total, spillPath };
  }

  /** Everything held in memory, in stream order; only complete before the first overflow. */
  #heldBytes(): Uint8Array {
    return this.#tail === undefined ? this.#heldHead() : concatBytes([this.#heldHead(), this.#tail.toBytes()]);
  }

  /** The filled part of the head buffer (a view, not a copy). */
  #heldHead(): Uint8Array {
    return this.#head.subarray(0, this.#headBytes);
  }

  /** Grows the head buffer to hold `needed` bytes: doubling, never past the head limit. */
  #growHead(needed: number): void {
    if (needed <= this.#head.length) return;
    let size = Math.max(this.#head.length, INITIAL_HEAD_BYTES);
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.#headLimit));
    grown.set(this.#heldHead());
    this.#head = grown;
  }

  #openSpill(): void {
    // No spill wanted: nothing is created, and the marker says so.
    if (this.#options.maxSpillBytes === 0) {
      this.#spill = { kind: "unavailable", why: "not kept: maxSpillBytes is 0" };
      return;
    }
    try {
      this.#spill = { kind: "open", file: new SpillFile(this.#options.spillDirectory(), this.#options.label) };
    } catch (error) {
      this.#spill = { kind: "unavailable", why: `spill failed: ${describe(error)}` };
    }
  }

  #spillWrite(bytes: Uint8Array): void {
    if (this.#spill.kind !== "open" || bytes.length === 0) return;
    if (this.#total > this.#options.maxSpillBytes) {
      this.#spill.file.discard();
      this.#spill = { kind: "unavailable", why: "over maxSpillBytes" };
      return;
    }
    try {
      this.#spill.file.write(bytes);
    } catch (error) {
      // A full disk must not cost the run its result: drop the partial file.
      this.#spill.file.discard();
      this.#spill = { kind: "unavailable", why: `spill failed: ${describe(error)}` };
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
