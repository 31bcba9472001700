/**
 * UTF-8 boundary arithmetic for cutting a byte stream without splitting a
 * character, so truncation never introduces U+FFFD.
 *
 * @module
 */

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/** The byte length of a sequence whose first byte is `lead`, or 0 if `lead` cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * How many leading bytes of `bytes` end on a character boundary: a
 * multi-byte sequence that is cut off at the end is left out.
 */
export function completePrefixLength(bytes: Uint8Array): number {
  const end = bytes.length;
  // A sequence is at most 4 bytes, so its lead is at most 3 bytes back.
  for (let back = 1; back <= 4 && back <= end; back++) {
    const byte = bytes[end - back];
    if (isContinuation(byte)) continue;
    const length = sequenceLength(byte);
    return length > back ? end - back : end;
  }
  return end;
}

/**
 * How many leading bytes to skip so `bytes` starts on a character boundary:
 * the continuation bytes of a character whose lead was cut off. A lead is at
 * most 3 bytes back, so at most 3 are skipped; from a fourth continuation
 * byte on, the run is invalid in the whole stream too and decodes the same
 * from there.
 */
export function boundaryStartOffset(bytes: Uint8Array): number {
  let skip = 0;
  while (skip < 3 && skip < bytes.length && isContinuation(bytes[skip])) skip++;
  return skip;
}
