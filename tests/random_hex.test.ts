import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomHex } from "../src/seam/random_hex.ts";

describe("randomHex: the pool the library's marks and names are drawn from", () => {
  it("gives two lowercase hex digits per byte", () => {
    for (const count of [0, 1, 5, 12, 16, 33]) assert.match(randomHex(count), new RegExp(`^[0-9a-f]{${2 * count}}$`));
  });

  it("hands out no bytes twice, across many refills of the pool", () => {
    // 2 000 marks of 16 bytes: about eight refills of 4 KiB. A pool reused without a refill, or handed out from the
    // same offset twice, repeats a mark.
    const marks = new Set<string>();
    for (let i = 0; i < 2000; i++) marks.add(randomHex(16));
    assert.equal(marks.size, 2000);
  });

  it("straddles a refill with a request that does not fit what is left", () => {
    // 4096 = 5 × 819 + 1: the sixth 819-byte draw needs a refill; every draw keeps its full length.
    const draws = Array.from({ length: 12 }, () => randomHex(819));
    for (const hex of draws) assert.equal(hex.length, 1638);
    assert.equal(new Set(draws).size, draws.length);
  });

  it("serves a request larger than the pool in one piece", () => {
    const hex = randomHex(10_000);
    assert.match(hex, /^[0-9a-f]{20000}$/);
    // Not all one byte: 10 000 random bytes take many values.
    assert.ok(new Set(hex.match(/../g)).size > 200);
  });

  it("refuses a count that is not a whole number ≥ 0, naming it", () => {
    for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => randomHex(bad), /byteCount/);
  });
});
