/**
 * Byte arrays joined end to end, for the places that hold a stream in
 * parts: a collector's head and tail, a frame reader's held bytes, a
 * header and the input sent after it.
 *
 * @module
 */

/**
 * The parts' bytes in order, in one array. A single part is returned as it
 * is, not copied: the caller must not change it afterwards.
 *
 * @example A head and a tail
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "./bytes.ts";
 *
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * assert.deepEqual([...joined], [1, 2, 3]);
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
