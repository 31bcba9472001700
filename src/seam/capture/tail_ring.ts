/**
 * A ring buffer that keeps the last `capacity` bytes written to it. It
 * grows by doubling up to its capacity, so a short stream never pays for a
 * large budget.
 *
 * @module
 */

const INITIAL_SIZE = 16 * 1024;

/** Keeps the most recent `capacity` bytes of everything written. */
export class TailRing {
  readonly #capacity: number;
  #buffer: Uint8Array;
  /** Next write position. */
  #end = 0;
  /** True once the buffer is at capacity and has wrapped: `#end` is then also the oldest byte. */
  #wrapped = false;

  /** @param capacity The number of most recent bytes to keep (at least 1). */
  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#buffer = new Uint8Array(Math.min(capacity, INITIAL_SIZE));
  }

  /** How many bytes are held. */
  get size(): number {
    return this.#wrapped ? this.#capacity : this.#end;
  }

  /** Appends `bytes`, dropping the oldest bytes past capacity. */
  write(bytes: Uint8Array): void {
    if (bytes.length >= this.#capacity) {
      this.#ensureFull();
      this.#buffer.set(bytes.subarray(bytes.length - this.#capacity));
      this.#end = 0;
      this.#wrapped = true;
      return;
    }
    if (!this.#wrapped) this.#grow(this.#end + bytes.length);
    const room = this.#buffer.length - this.#end;
    if (bytes.length <= room) {
      this.#buffer.set(bytes, this.#end);
      this.#end += bytes.length;
    } else {
      this.#buffer.set(bytes.subarray(0, room), this.#end);
      this.#buffer.set(bytes.subarray(room), 0);
      this.#end = bytes.length - room;
      this.#wrapped = true;
    }
    if (this.#end === this.#buffer.length && this.#buffer.length === this.#capacity) {
      this.#end = 0;
      this.#wrapped = true;
    }
  }

  /** The last `count` held bytes (at most `size`), oldest first, as a new array. */
  lastBytes(count: number): Uint8Array {
    const all = this.toBytes();
    return count >= all.length ? all : all.subarray(all.length - count);
  }

  /** The held bytes, oldest first, as a new array. */
  toBytes(): Uint8Array {
    if (!this.#wrapped) return this.#buffer.slice(0, this.#end);
    const out = new Uint8Array(this.#capacity);
    out.set(this.#buffer.subarray(this.#end));
    out.set(this.#buffer.subarray(0, this.#end), this.#capacity - this.#end);
    return out;
  }

  /** Grows the linear (not yet wrapped) buffer to hold `needed` bytes, up to capacity. */
  #grow(needed: number): void {
    if (needed <= this.#buffer.length || this.#buffer.length === this.#capacity) return;
    let size = this.#buffer.length;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.#capacity));
    grown.set(this.#buffer.subarray(0, this.#end));
    this.#buffer = grown;
  }

  #ensureFull(): void {
    if (this.#buffer.length < this.#capacity) this.#buffer = new Uint8Array(this.#capacity);
  }
}
