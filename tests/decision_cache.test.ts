import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DecisionCache } from "../src/seam/env/decision_cache.ts";
import { explainEnv } from "../src/seam/mod.ts";
import { mergeEnvWith, type ScrubMemo } from "../src/seam/env/merge.ts";

/** A decision function that counts its calls. */
function counted(): { decide: (name: string, value: string) => string; calls: () => number } {
  let calls = 0;
  return {
    decide: (name, value) => {
      calls++;
      return `${name}=${value}`;
    },
    calls: () => calls,
  };
}

describe("DecisionCache", () => {
  it("reuses a decision only for the same name and the same value", () => {
    const cache = new DecisionCache<string>({ maxNames: 8, maxValueChars: 1024 });
    const { decide, calls } = counted();
    assert.equal(cache.get("A", "1", decide), "A=1");
    assert.equal(cache.get("A", "1", decide), "A=1");
    assert.equal(calls(), 1);
    assert.equal(cache.get("A", "2", decide), "A=2", "a new value is decided again");
    assert.equal(cache.get("B", "2", decide), "B=2", "another name with the same value is decided again");
    assert.equal(cache.get("A", "1", decide), "A=1", "an old value is decided again");
    assert.equal(calls(), 4);
    // One entry per name: the latest value is remembered, and it replaced the older one.
    cache.get("A", "1", decide);
    cache.get("B", "2", decide);
    assert.equal(calls(), 4, "the latest value of each name is remembered");
    cache.get("A", "2", decide);
    assert.equal(calls(), 5, "a value replaced by a newer one is decided again");
  });

  it("keeps at most maxNames names, forgetting the oldest first", () => {
    const cache = new DecisionCache<string>({ maxNames: 4, maxValueChars: 1024 });
    const { decide, calls } = counted();
    for (let i = 0; i < 100; i++) cache.get(`N${i}`, "v", decide);
    const before = calls();
    for (let i = 96; i < 100; i++) cache.get(`N${i}`, "v", decide);
    assert.equal(calls(), before, "the newest names are still known");
    cache.get("N0", "v", decide);
    assert.equal(calls(), before + 1, "the oldest was forgotten");
    // Remembering N0 pushed out the oldest of the four, N96; the other three stay.
    for (let i = 97; i < 100; i++) cache.get(`N${i}`, "v", decide);
    assert.equal(calls(), before + 1);
    cache.get("N96", "v", decide);
    assert.equal(calls(), before + 2, "a fifth name pushes the oldest out");
  });

  it("keeps at most maxValueChars characters of values, and never a longer value", () => {
    const cache = new DecisionCache<string>({ maxNames: 100, maxValueChars: 10 });
    const { decide, calls } = counted();
    for (let i = 0; i < 50; i++) cache.get(`N${i}`, "abc", decide);
    // Three values of 3 characters fit in 10: the newest three are remembered, the fourth newest is not.
    for (let i = 47; i < 50; i++) cache.get(`N${i}`, "abc", decide);
    assert.equal(calls(), 50, "the newest three are remembered");
    cache.get("N46", "abc", decide);
    assert.equal(calls(), 51, "a fourth would pass the budget: it was forgotten");
    const long = "x".repeat(11);
    cache.get("LONG", long, decide);
    cache.get("LONG", long, decide);
    assert.equal(calls(), 53, "a value over the budget is decided every time");
  });
});

describe("the scrub with remembered decisions", () => {
  // What every spawn does: the host's memo, here a small one of the test's own.
  const memo: ScrubMemo = new DecisionCache({ maxNames: 16, maxValueChars: 4096 });
  const mergeEnv = (input: Parameters<typeof mergeEnvWith>[0]) => mergeEnvWith(input, memo);

  // Fake secrets are assembled from pieces so that no secret-shaped literal sits in the repository.
  const secretUrl = ["postgres://app:", "hunter2", "@db:5432/app"].join("");

  it("a variable whose value changes is judged on its new value, each time", () => {
    const name = "TEST_CACHE_DATABASE_URL";
    for (let round = 0; round < 3; round++) {
      assert.equal(mergeEnv({ ambient: { [name]: "postgres://db:5432/app" } })[name], "postgres://db:5432/app");
      assert.equal(mergeEnv({ ambient: { [name]: secretUrl } })[name], undefined);
      assert.deepEqual(explainEnv({ ambient: { [name]: secretUrl } }).dropped, [{ name, reason: "credential-value" }]);
    }
  });

  it("an environment that changes at every call still gives the same answers as the rules", () => {
    for (let i = 0; i < 3000; i++) {
      const value = i % 3 === 0 ? `${secretUrl}?n=${i}` : `plain-${i}`;
      const env = mergeEnv({ ambient: { [`VAR_${i % 7}`]: value, [`NEW_${i}`]: value } });
      assert.equal(env[`VAR_${i % 7}`], i % 3 === 0 ? undefined : value);
      assert.equal(env[`NEW_${i}`], i % 3 === 0 ? undefined : value);
    }
  });
});
