/**
 * What output-capture tests compare captured streams with, computed
 * independently of the code under test: stream contents generated here,
 * byte counts and checksums, and a parser that takes a truncated
 * `CollectedOutput` apart into head, marker line and tail and checks each
 * piece against the original stream.
 *
 * Nothing here imports the library: the shape of `CollectedOutput` is
 * restated structurally.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** The chunks one after the other, in one array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The fields of `CollectedOutput` the checks read. */
export interface CapturedStream {
  text: string;
  truncated: boolean;
  totalBytes: number;
  spillPath?: string;
}

/** Hex sha256 of `bytes` (a string counts as its UTF-8 bytes). */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Hex sha256 of the file at `path`. */
export function sha256File(path: string): string {
  return sha256(readFileSync(path));
}

/** UTF-8 byte length of `text`. */
export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * `length` pseudo-random ASCII letters and digits, never a newline, from a
 * fixed seed: the same call always returns the same text, and every
 * position is distinguishable enough that a head or tail taken from the
 * wrong place does not match.
 */
export function asciiPattern(length: number, seed = 1): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let state = seed >>> 0;
  let out = "";
  for (let i = 0; i < length; i++) {
    // A 32-bit LCG (Numerical Recipes constants).
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

/** What `seq from to` prints: each whole number from `from` to `to` on a line of its own. */
export function seqText(from: number, to: number): string {
  let out = "";
  for (let i = from; i <= to; i++) out += `${i}\n`;
  return out;
}

/** A truncated stream taken apart. */
export interface TruncatedParts {
  /** The kept beginning of the stream. */
  head: string;
  /** The one marker line, without its newline. */
  marker: string;
  /** The kept end of the stream. */
  tail: string;
  /** Bytes of the stream in neither head nor tail. */
  omitted: number;
}

/**
 * Splits a truncated `out` into head, marker line and tail, and checks that
 * the head is a prefix of `original`, the tail a suffix, and that the
 * marker line gives the omitted byte count (total − head − tail).
 *
 * `original` must not contain a newline, so that a separator the shell
 * puts between the head and the marker cannot be mistaken for stream
 * content. `needle` locates the marker line: the spill path when there is
 * one, otherwise a word the marker must contain.
 */
export function splitTruncated(
  out: CapturedStream,
  original: string,
  needle: string | RegExp,
  label = "output",
): TruncatedParts {
  assert.ok(!original.includes("\n"), "the original must not hold newlines");
  assert.equal(out.truncated, true, `${label}: truncated`);
  const text = out.text;
  const at = typeof needle === "string" ? text.indexOf(needle) : text.search(needle);
  assert.ok(
    at >= 0,
    `${label}: the marker (${String(needle)}) is missing from ${JSON.stringify(text.slice(0, 300))}`,
  );
  const markerStart = text.lastIndexOf("\n", at) + 1;
  const newline = text.indexOf("\n", at);
  assert.ok(newline >= 0, `${label}: the marker line ends with a newline`);
  const marker = text.slice(markerStart, newline);
  const before = text.slice(0, markerStart);
  const tail = text.slice(newline + 1);
  // The original holds no newline, so any newline before the marker is a
  // separator the shell added, never part of the head.
  const head = before.replace(/\n+$/, "");
  assert.ok(
    !head.includes("\n"),
    `${label}: exactly one marker line, got ${JSON.stringify(before)}`,
  );
  assert.ok(
    !tail.includes("\n"),
    `${label}: nothing but the tail after the marker line`,
  );
  assert.ok(
    original.startsWith(head),
    `${label}: the head ${JSON.stringify(head)} is a prefix of the stream`,
  );
  assert.ok(
    original.endsWith(tail),
    `${label}: the tail ${JSON.stringify(tail)} is a suffix of the stream`,
  );
  const omitted = out.totalBytes - byteLength(head) - byteLength(tail);
  assert.ok(omitted > 0, `${label}: something was omitted`);
  const markerWithoutPath = out.spillPath === undefined ? marker : marker.split(out.spillPath).join(" ");
  const numbers = (markerWithoutPath.match(/\d[\d,_]*/g) ?? []).map((n) => Number(n.replace(/[,_]/g, "")));
  assert.ok(
    numbers.includes(omitted),
    `${label}: the marker ${JSON.stringify(marker)} gives the omitted byte count ${omitted}`,
  );
  return { head, marker, tail, omitted };
}
