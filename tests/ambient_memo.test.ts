import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { AmbientMemo } from "../src/seam/env/ambient_memo.ts";
import { mergeEnvWith, newScrubMemo } from "../src/seam/env/merge.ts";
import { type EnvInput, mergeEnv } from "../src/seam/env/mod.ts";
import { between, prng } from "./helpers/random.ts";

// Fake secrets are assembled from pieces so that no secret-shaped literal sits in the repository.
const secretUrl = ["postgres://app:", "hunter2", "@db:5432/app"].join("");

/** A memo whose result lists the entries with a value it was built from, sorted, and counts its builds. */
function listing(): { memo: AmbientMemo<string[]>; builds: () => number } {
  let builds = 0;
  const memo = new AmbientMemo((names, values) => {
    builds++;
    return names.flatMap((name, i) => values[i] === undefined ? [] : [`${name}=${values[i]}`]).sort();
  });
  return { memo, builds: () => builds };
}

/** What a memo must answer for `ambient`: its own enumerable entries with a value, sorted. */
const entriesOf = (ambient: Record<string, string | undefined>) =>
  Object.entries(ambient).flatMap(([name, value]) => value === undefined ? [] : [`${name}=${value}`]).sort();

describe("AmbientMemo", () => {
  it("builds once while the environment stays the same", () => {
    const { memo, builds } = listing();
    const ambient = { PATH: "/usr/bin", HOME: "/home/u" };
    const first = memo.get(ambient);
    for (let i = 0; i < 5; i++) assert.equal(memo.get(ambient), first);
    // Equal content in new strings (as every read of the process environment gives) is the same environment.
    memo.get({ ...ambient });
    assert.equal(builds(), 2, "another object is another environment");
    assert.equal(memo.get(ambient), first);
    assert.equal(builds(), 2);
  });

  it("notices every kind of change", () => {
    const { memo, builds } = listing();
    const ambient: Record<string, string | undefined> = { A: "1", B: "2", C: "3" };
    memo.get(ambient);
    const changes: [string, () => void][] = [
      ["a value changed", () => ambient.B = "two"],
      ["a value changed to one of the same length", () => ambient.B = "owt"],
      ["a name added", () => ambient.D = "4"],
      ["a name removed", () => delete ambient.A],
      ["a name replaced by another (same count)", () => {
        delete ambient.C;
        ambient.E = "3";
      }],
      ["a value set to undefined", () => ambient.D = undefined],
      ["an undefined value set again", () => ambient.D = "4"],
      ["a name with a value replaced by one without (same count)", () => {
        delete ambient.D;
        ambient.F = undefined;
      }],
      ["a value emptied", () => ambient.E = ""],
      ["everything removed", () => {
        for (const name of Object.keys(ambient)) delete ambient[name];
      }],
      ["a name back after all", () => ambient.A = "1"],
    ];
    let expectedBuilds = 1;
    for (const [what, change] of changes) {
      change();
      assert.deepEqual(memo.get(ambient), entriesOf(ambient), what);
      assert.equal(builds(), ++expectedBuilds, `${what}: built again`);
      assert.deepEqual(memo.get(ambient), entriesOf(ambient), `${what}, asked again`);
      assert.equal(builds(), expectedBuilds, `${what}: remembered afterwards`);
    }
  });

  it("takes the same entries in another order, or with undefined ones, for the same environment", () => {
    const { memo, builds } = listing();
    const ambient: Record<string, string | undefined> = { A: "1", B: "2" };
    const first = memo.get(ambient);
    delete ambient.A;
    ambient.A = "1"; // now listed after B
    ambient.C = undefined; // absent
    assert.equal(memo.get(ambient), first);
    assert.equal(builds(), 1);
    ambient.C = "3";
    assert.deepEqual(memo.get(ambient), ["A=1", "B=2", "C=3"]);
    assert.equal(builds(), 2);
  });

  it("keeps the environments of different objects apart", () => {
    const { memo, builds } = listing();
    const one = { A: "1" };
    const two = { A: "2" };
    for (let i = 0; i < 4; i++) {
      assert.deepEqual(memo.get(one), ["A=1"]);
      assert.deepEqual(memo.get(two), ["A=2"]);
    }
    assert.equal(builds(), 2, "alternating between two environments builds each once");
    two.A = "3";
    assert.deepEqual(memo.get(one), ["A=1"]);
    assert.deepEqual(memo.get(two), ["A=3"]);
  });

  it("remembers the copies a reader makes under the one source it names", () => {
    const { memo, builds } = listing();
    const source = {};
    const ambient = { PATH: "/usr/bin", HOME: "/home/u" };
    // As Deno's Deno.env.toObject() does: a new object with the same entries at every read.
    const read = () => ({ ...ambient });
    const first = memo.get(read(), source);
    for (let i = 0; i < 4; i++) assert.equal(memo.get(read(), source), first);
    assert.equal(builds(), 1, "a new copy of an unchanged environment was built again");
    ambient.HOME = "/home/v";
    assert.deepEqual(memo.get(read(), source), ["HOME=/home/v", "PATH=/usr/bin"]);
    assert.equal(builds(), 2);
    // Another source with the same entries is another environment.
    memo.get(read(), {});
    assert.equal(builds(), 3);
  });

  it("reads each value once and builds from what it read", () => {
    const { memo } = listing();
    let reads = 0;
    // A value that changes at every read: the result must be made of the read the snapshot holds.
    const ambient = {
      get SHIFTING() {
        return String(++reads);
      },
    };
    assert.deepEqual(memo.get(ambient), ["SHIFTING=1"]);
    assert.equal(reads, 1);
    assert.deepEqual(memo.get(ambient), ["SHIFTING=2"], "a different value is a different environment");
    assert.equal(reads, 2);
  });

  it("sees what changes in the process environment between calls", () => {
    const { memo } = listing();
    const name = "DSHELL_TEST_AMBIENT_MEMO_VARIABLE";
    const seen = () => memo.get(process.env).find((entry) => entry.startsWith(`${name}=`));
    try {
      assert.equal(seen(), undefined);
      process.env[name] = "one";
      assert.equal(seen(), `${name}=one`);
      process.env[name] = "two";
      assert.equal(seen(), `${name}=two`);
      delete process.env[name];
      assert.equal(seen(), undefined);
      assert.deepEqual(memo.get(process.env), entriesOf(process.env));
    } finally {
      delete process.env[name];
    }
  });
});

describe("the scrub a spawn uses (mergeEnvWith)", () => {
  it("gives what mergeEnv gives after every change of a random sequence", () => {
    const random = prng(20261203);
    const memo = newScrubMemo();
    const ambient: Record<string, string | undefined> = { PATH: "/usr/bin", HOME: "/home/u" };
    const names = ["EDITOR", "GITHUB_TOKEN", "DATABASE_URL", "DSH_SESSION", "dsh_x", "LANG", "TERM", "PAGER", "X"];
    const values = ["vim", "", "C.UTF-8", secretUrl, `${secretUrl}?a=1`, "plain", "xterm"];
    const layers: Pick<EnvInput, "env" | "dshEnv">[] = [
      {},
      { env: undefined, dshEnv: undefined },
      { env: { EDITOR: undefined, LANG: "C" } },
      { env: { GITHUB_TOKEN: "on-purpose" }, dshEnv: { DSH_SESSION: "s1" } },
      { dshEnv: { DSH_SESSION: "s2" } },
    ];
    for (let step = 0; step < 2000; step++) {
      const name = names[between(random, 0, names.length - 1)];
      const action = between(random, 0, 3);
      if (action === 0) delete ambient[name];
      else if (action === 1) ambient[name] = undefined;
      else ambient[name] = values[between(random, 0, values.length - 1)];
      const input: EnvInput = { ambient, ...layers[between(random, 0, layers.length - 1)] };
      const expected = mergeEnv(input);
      const got = mergeEnvWith(input, memo);
      assert.deepEqual(got, expected, `step ${step}`);
      assert.deepEqual(Object.keys(got), Object.keys(expected), `step ${step}: the order`);
    }
  });

  it("drops a process variable at the next spawn once its value is credential-shaped", () => {
    const memo = newScrubMemo();
    const name = "DSHELL_TEST_AMBIENT_MEMO_URL";
    const spawnEnv = () => mergeEnvWith({ ambient: process.env }, memo);
    try {
      process.env[name] = "postgres://db:5432/app";
      assert.equal(spawnEnv()[name], "postgres://db:5432/app");
      process.env[name] = secretUrl;
      assert.equal(spawnEnv()[name], undefined, "the remembered plain value was used");
      process.env[name] = "postgres://db:5432/app";
      assert.equal(spawnEnv()[name], "postgres://db:5432/app");
      delete process.env[name];
      assert.equal(name in spawnEnv(), false, "a deleted variable reached the child");
    } finally {
      delete process.env[name];
    }
  });

  it("hands out a new object each time: what a caller changes in it stays there", () => {
    const memo = newScrubMemo();
    const ambient = { PATH: "/usr/bin", SHLVL: "0" };
    const first = mergeEnvWith({ ambient }, memo);
    first.SHLVL = "1";
    first.ADDED = "x";
    delete first.PATH;
    const second = mergeEnvWith({ ambient }, memo);
    assert.notEqual(second, first);
    assert.deepEqual(second, mergeEnv({ ambient }));
    const layered = mergeEnvWith({ ambient, env: { PATH: undefined } }, memo);
    layered.PATH = "changed";
    assert.deepEqual(
      mergeEnvWith({ ambient, env: { EDITOR: "vi" } }, memo),
      mergeEnv({ ambient, env: { EDITOR: "vi" } }),
    );
  });
});
