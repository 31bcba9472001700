/**
 * Outputs of known content: a command that prints `n` bytes of a repeating
 * line, the exact bytes it prints, their SHA-256, and the text a collector
 * with a given budget must return for them. Plus hashing of files and
 * buffers.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** The line `yes` repeats on stdout. */
export const OUT_LINE = "stress-out-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ";
/** The line `yes` repeats on stderr (different, so crossed streams show). */
export const ERR_LINE = "stress-err-zyxwvutsrqponmlkjihgfedcba-9876543210";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A command printing the first `n` bytes of `line\n` repeated, to stdout or stderr. */
export function patternCommand(line: string, n: number, toStderr: boolean): string {
  return `yes '${line}' | head -c ${n}${toStderr ? " >&2" : ""}`;
}

/** Bytes [from, to) of the repeated `line\n` stream. */
export function patternSlice(line: string, from: number, to: number): string {
  const unit = line + "\n";
  const first = Math.floor(from / unit.length);
  const last = Math.ceil(to / unit.length);
  const text = unit.repeat(Math.max(0, last - first));
  return text.slice(from - first * unit.length, to - first * unit.length);
}

const shaCache = new Map<string, string>();

/** SHA-256 (hex) of the first `n` bytes of the repeated `line\n` stream. */
export function patternSha(line: string, n: number): string {
  const key = `${line}:${n}`;
  const cached = shaCache.get(key);
  if (cached !== undefined) return cached;
  const unit = line + "\n";
  const block = encoder.encode(unit.repeat(Math.ceil((1 << 20) / unit.length)));
  const hash = createHash("sha256");
  let left = n;
  while (left > 0) {
    const take = Math.min(left, block.length);
    hash.update(take === block.length ? block : block.subarray(0, take));
    left -= take;
  }
  const hex = hash.digest("hex");
  shaCache.set(key, hex);
  return hex;
}

/**
 * The text a collector with `budget` must return for `n` bytes of the
 * pattern (ASCII, so UTF-8 cuts never move): whole when it fits, else head,
 * marker and tail, as docs/architecture.md specifies.
 */
export function expectedText(line: string, n: number, budget: number, where: string | undefined): string {
  if (n <= budget) return patternSlice(line, 0, n);
  const headLen = Math.floor(budget / 2);
  const tailLen = budget - headLen;
  const head = patternSlice(line, 0, headLen);
  const tail = patternSlice(line, n - tailLen, n);
  const marker = `[... ${n - headLen - tailLen} bytes omitted; ${where}]\n`;
  return head + (head.length === 0 || head.endsWith("\n") ? "" : "\n") + marker + tail;
}

/** SHA-256 (hex) of `bytes`. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Size and SHA-256 of a file, read asynchronously in 1 MiB pieces. */
export async function fileSha(path: string): Promise<{ size: number; sha: string }> {
  const file = await Deno.open(path, { read: true });
  try {
    const hash = createHash("sha256");
    const buffer = new Uint8Array(1 << 20);
    let size = 0;
    while (true) {
      const n = await file.read(buffer);
      if (n === null) break;
      hash.update(buffer.subarray(0, n));
      size += n;
    }
    return { size, sha: hash.digest("hex") };
  } finally {
    file.close();
  }
}

/** UTF-8 text of `bytes`. */
export function utf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** UTF-8 bytes of `text`. */
export function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}
