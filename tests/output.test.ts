/**
 * Output capture through `shell.run()` of real bash commands: budgets,
 * head+tail truncation, the marker line, spill files (content, modes,
 * `maxSpillBytes`), UTF-8 boundaries, per-stream budgets, and bounded
 * memory under a gigabyte of output.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { createLocalShell, type Shell } from "../mod.ts";
import { shQuote } from "./helpers/bash.ts";
import { asciiPattern, byteLength, sha256, sha256File, splitTruncated } from "./helpers/capture.ts";
import { freshDir, listDir, removeDir } from "./helpers/dirs.ts";

const GRACE_MS = 300;
const MiB = 1024 * 1024;

/** Writes `content` to a new file in `dir` and returns a command that prints it. */
function catCommand(dir: string, name: string, content: string | Uint8Array) {
  const file = join(dir, name);
  writeFileSync(file, content);
  return `cat ${shQuote(file)}`;
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("output capture: budgets and truncation", () => {
  const BUDGET = 1000;
  let spillDir: string;
  let work: string;
  let shell: Shell;

  before(() => {
    spillDir = freshDir("dsh-out-spill-");
    work = freshDir("dsh-out-work-");
    shell = createLocalShell({
      maxOutputBytes: BUDGET,
      spillDir,
      graceMs: GRACE_MS,
    });
  });

  after(async () => {
    await shell.close();
    removeDir(spillDir);
    removeDir(work);
  });

  it("returns a stream of exactly the budget whole, with no spill", async () => {
    const content = asciiPattern(BUDGET, 7);
    const command = catCommand(work, "exact.txt", content);
    const result = await shell.run(shell.resolve({
      command: `${command}; ${command} >&2`,
      owner: null,
    }));
    assert.equal(result.exitCode, 0);
    for (const [label, out] of [["stdout", result.stdout], ["stderr", result.stderr]] as const) {
      assert.equal(out.text, content, label);
      assert.equal(out.truncated, false, label);
      assert.equal(out.totalBytes, BUDGET, label);
      assert.equal(out.spillPath, undefined, label);
      assert.ok(!("spillPath" in out), `${label}: spillPath is absent, not undefined`);
    }
    assert.deepEqual(listDir(spillDir), [], "no spill file was created");
  });

  it("returns a stream exactly at a raised stdoutMaxBytes whole", async () => {
    const content = asciiPattern(3 * BUDGET, 8);
    const result = await shell.run(shell.resolve({
      command: catCommand(work, "exact-raised.txt", content),
      owner: null,
      stdoutMaxBytes: 3 * BUDGET,
    }));
    assert.equal(result.stdout.text, content);
    assert.equal(result.stdout.truncated, false);
    assert.equal(result.stdout.totalBytes, 3 * BUDGET);
    assert.equal(result.stdout.spillPath, undefined);
    assert.deepEqual(listDir(spillDir), []);
  });

  it("keeps head and tail of a stream one byte over the budget", async () => {
    const content = asciiPattern(BUDGET + 1, 9);
    const result = await shell.run(shell.resolve({
      command: catCommand(work, "over-by-one.txt", content),
      owner: null,
    }));
    const out = result.stdout;
    assert.equal(out.truncated, true);
    assert.equal(out.totalBytes, BUDGET + 1);
    assert.equal(typeof out.spillPath, "string");
    const spillPath = out.spillPath as string;
    const parts = splitTruncated(out, content, spillPath, "stdout");
    assert.ok(parts.head.length > 0, "the head is kept");
    assert.ok(out.text.startsWith(content.slice(0, 10)), "starts with the first bytes");
    assert.ok(out.text.endsWith(content.slice(-10)), "ends with the last bytes");
    assert.ok(
      byteLength(parts.tail) >= BUDGET / 2,
      `the tail (${byteLength(parts.tail)} bytes) gets at least half the budget`,
    );
    assert.ok(
      byteLength(parts.head) + byteLength(parts.tail) <= BUDGET,
      "head and tail together stay within the budget",
    );
    assert.ok(parts.marker.includes(spillPath), "the marker names the spill path");
    // The spill file is in spillDir and holds the whole stream.
    assert.equal(dirname(spillPath), spillDir);
    assert.deepEqual(listDir(spillDir), [spillPath.slice(spillDir.length + 1)]);
    assert.equal(readFileSync(spillPath, "utf8"), content);
    assert.equal(mode(spillPath), 0o600, "the spill file is 0600");
  });

  it("gives the omitted byte count of a much longer stream", async () => {
    const content = asciiPattern(7 * BUDGET + 123, 10);
    const result = await shell.run(shell.resolve({
      command: catCommand(work, "over-by-far.txt", content),
      owner: null,
    }));
    const out = result.stdout;
    assert.equal(out.totalBytes, content.length);
    const parts = splitTruncated(out, content, out.spillPath as string, "stdout");
    assert.ok(parts.omitted >= content.length - BUDGET, "at most the budget is kept");
    assert.ok(byteLength(parts.tail) >= BUDGET / 2);
    assert.ok(parts.head.length > 0);
    assert.equal(readFileSync(out.spillPath as string, "utf8"), content);
  });

  it("spills the complete stream, byte for byte, for megabytes of binary output", async () => {
    const bytes = 3_000_000;
    const original = join(work, "orig.bin");
    const result = await shell.run(shell.resolve({
      command: `head -c ${bytes} /dev/urandom | tee ${shQuote(original)}`,
      owner: null,
    }));
    assert.equal(result.exitCode, 0);
    const out = result.stdout;
    assert.equal(out.truncated, true);
    assert.equal(out.totalBytes, bytes);
    assert.equal(typeof out.spillPath, "string");
    assert.equal(statSync(original).size, bytes, "tee wrote the whole stream");
    assert.equal(statSync(out.spillPath as string).size, bytes);
    assert.equal(sha256File(out.spillPath as string), sha256File(original));
    assert.equal(mode(out.spillPath as string), 0o600);
    // The marker says how much was left out: at least all but the budget.
    const marker = out.text.split("\n").find((line) => line.includes(out.spillPath as string)) ?? "";
    const omitted = Number(/(\d+) bytes omitted/.exec(marker)?.[1]);
    assert.ok(omitted >= bytes - BUDGET && omitted < bytes, `the marker ${JSON.stringify(marker)}`);
    // At most the budget's bytes are kept, and a kept byte decodes to at most three (an invalid one becomes U+FFFD):
    // a bound that holds for any random bytes, where "near the budget" held only for most.
    assert.ok(byteLength(out.text) - byteLength(marker) <= 3 * BUDGET + 2, "the text stays within the budget");
  });

  it("spills stdout and stderr to different files, each complete", async () => {
    const a = asciiPattern(5 * BUDGET, 11);
    const b = asciiPattern(6 * BUDGET, 12);
    const result = await shell.run(shell.resolve({
      command: `${catCommand(work, "a.txt", a)}; ${catCommand(work, "b.txt", b)} >&2`,
      owner: null,
    }));
    const { stdout, stderr } = result;
    assert.equal(typeof stdout.spillPath, "string");
    assert.equal(typeof stderr.spillPath, "string");
    assert.notEqual(stdout.spillPath, stderr.spillPath);
    assert.equal(readFileSync(stdout.spillPath as string, "utf8"), a);
    assert.equal(readFileSync(stderr.spillPath as string, "utf8"), b);
    splitTruncated(stdout, a, stdout.spillPath as string, "stdout");
    splitTruncated(stderr, b, stderr.spillPath as string, "stderr");
  });
});

describe("output capture: per-stream budgets", () => {
  let spillDir: string;
  let work: string;
  let shell: Shell;

  before(() => {
    spillDir = freshDir("dsh-out-spill-");
    work = freshDir("dsh-out-work-");
    shell = createLocalShell({ maxOutputBytes: 100, spillDir, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(spillDir);
    removeDir(work);
  });

  it("defaults the stdout budget to maxOutputBytes", async () => {
    const content = asciiPattern(101, 20);
    const spec = shell.resolve({ command: catCommand(work, "d.txt", content), owner: null });
    assert.equal(spec.stdoutMaxBytes, 100);
    const result = await shell.run(spec);
    assert.equal(result.stdout.truncated, true);
    splitTruncated(result.stdout, content, result.stdout.spillPath as string, "stdout");
  });

  it("uses stdoutMaxBytes for stdout and maxOutputBytes for stderr", async () => {
    const content = asciiPattern(500, 21);
    const print = catCommand(work, "both.txt", content);
    const result = await shell.run(shell.resolve({
      command: `${print}; ${print} >&2`,
      owner: null,
      stdoutMaxBytes: 1000,
    }));
    assert.equal(result.stdout.text, content, "stdout fits its raised budget");
    assert.equal(result.stdout.truncated, false);
    assert.equal(result.stdout.spillPath, undefined);
    const err = result.stderr;
    assert.equal(err.totalBytes, 500);
    const parts = splitTruncated(err, content, err.spillPath as string, "stderr");
    assert.ok(byteLength(parts.head) + byteLength(parts.tail) <= 100, "stderr kept within maxOutputBytes");
    assert.ok(byteLength(parts.tail) >= 50);
  });

  it("keeps a lowered stdoutMaxBytes for stdout while stderr keeps maxOutputBytes", async () => {
    const content = asciiPattern(100, 22);
    const print = catCommand(work, "low.txt", content);
    const result = await shell.run(shell.resolve({
      command: `${print}; ${print} >&2`,
      owner: null,
      stdoutMaxBytes: 40,
    }));
    assert.equal(result.stderr.text, content, "stderr of exactly maxOutputBytes is whole");
    assert.equal(result.stderr.truncated, false);
    const out = result.stdout;
    const parts = splitTruncated(out, content, out.spillPath as string, "stdout");
    assert.ok(byteLength(parts.head) + byteLength(parts.tail) <= 40, "stdout kept within stdoutMaxBytes");
    assert.ok(byteLength(parts.tail) >= 20);
  });
});

describe("output capture: spill files", () => {
  let work: string;

  before(() => {
    work = freshDir("dsh-out-work-");
  });

  after(() => {
    removeDir(work);
  });

  it("creates the default spill directory 0700 under the OS temp dir, files 0600", async () => {
    const shell = createLocalShell({ maxOutputBytes: 100, graceMs: GRACE_MS });
    let spillPath: string | undefined;
    try {
      const content = asciiPattern(1000, 30);
      const result = await shell.run(shell.resolve({
        command: catCommand(work, "default.txt", content),
        owner: null,
      }));
      spillPath = result.stdout.spillPath;
      assert.equal(typeof spillPath, "string");
      const dir = dirname(spillPath as string);
      assert.ok(dir.startsWith(tmpdir()), `${dir} is under ${tmpdir()}`);
      assert.equal(mode(dir), 0o700, "the default spill directory is 0700");
      assert.equal(mode(spillPath as string), 0o600, "the spill file is 0600");
      assert.equal(readFileSync(spillPath as string, "utf8"), content);
    } finally {
      await shell.close();
      if (spillPath !== undefined) removeDir(dirname(spillPath));
    }
  });

  it("creates a missing spillDir lazily, mode 0700, at the first spill", async () => {
    const parent = freshDir("dsh-out-lazy-");
    const spillDir = join(parent, "nested", "spill");
    const shell = createLocalShell({ maxOutputBytes: 100, spillDir, graceMs: GRACE_MS });
    try {
      const small = await shell.run(shell.resolve({ command: "echo small", owner: null }));
      assert.equal(small.stdout.text, "small\n");
      assert.equal(existsSync(spillDir), false, "no directory before the first spill");
      const content = asciiPattern(500, 31);
      const big = await shell.run(shell.resolve({
        command: catCommand(work, "lazy.txt", content),
        owner: null,
      }));
      assert.equal(dirname(big.stdout.spillPath as string), spillDir);
      assert.equal(mode(spillDir), 0o700);
      assert.equal(readFileSync(big.stdout.spillPath as string, "utf8"), content);
    } finally {
      await shell.close();
      removeDir(parent);
    }
  });

  it("drops the spill file past maxSpillBytes and says the full output is unavailable", async () => {
    const spillDir = freshDir("dsh-out-spill-");
    const shell = createLocalShell({
      maxOutputBytes: 1000,
      maxSpillBytes: 100_000,
      spillDir,
      graceMs: GRACE_MS,
    });
    try {
      const content = asciiPattern(300_000, 32);
      const result = await shell.run(shell.resolve({
        command: catCommand(work, "too-big.txt", content),
        owner: null,
      }));
      const out = result.stdout;
      assert.equal(out.truncated, true);
      assert.equal(out.totalBytes, 300_000);
      assert.equal(out.spillPath, undefined);
      assert.ok(!("spillPath" in out), "spillPath is absent");
      const parts = splitTruncated(out, content, /unavailable/i, "stdout");
      assert.ok(!parts.marker.includes(spillDir), "the marker names no spill file");
      assert.ok(byteLength(parts.tail) >= 500);
      assert.deepEqual(listDir(spillDir), [], "no file remains in spillDir");
    } finally {
      await shell.close();
      removeDir(spillDir);
    }
  });

  it("keeps a spill of exactly maxSpillBytes", async () => {
    const spillDir = freshDir("dsh-out-spill-");
    const shell = createLocalShell({
      maxOutputBytes: 1000,
      maxSpillBytes: 100_000,
      spillDir,
      graceMs: GRACE_MS,
    });
    try {
      const content = asciiPattern(100_000, 33);
      const result = await shell.run(shell.resolve({
        command: catCommand(work, "at-cap.txt", content),
        owner: null,
      }));
      const out = result.stdout;
      assert.equal(typeof out.spillPath, "string");
      assert.equal(readFileSync(out.spillPath as string, "utf8"), content);
      splitTruncated(out, content, out.spillPath as string, "stdout");
    } finally {
      await shell.close();
      removeDir(spillDir);
    }
  });
});

describe("output capture: UTF-8 boundaries", () => {
  let spillDir: string;
  let work: string;
  let shell: Shell;

  before(() => {
    spillDir = freshDir("dsh-out-spill-");
    work = freshDir("dsh-out-work-");
    shell = createLocalShell({ spillDir, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(spillDir);
    removeDir(work);
  });

  it("never cuts a character: no U+FFFD, head a prefix, tail a suffix", async () => {
    // 2-, 3- and 4-byte characters: 9 bytes a round, so budgets 7..40 put
    // the head cut and the tail start at every offset inside a character.
    const content = "é€😀".repeat(20);
    const bytes = new TextEncoder().encode(content);
    assert.equal(bytes.length, 180);
    const command = catCommand(work, "utf8.txt", bytes);
    for (let budget = 7; budget <= 40; budget++) {
      const label = `budget ${budget}`;
      const result = await shell.run(shell.resolve({ command, owner: null, stdoutMaxBytes: budget }));
      const out = result.stdout;
      assert.equal(out.totalBytes, 180, label);
      assert.ok(!out.text.includes("\uFFFD"), `${label}: no U+FFFD in ${JSON.stringify(out.text)}`);
      const parts = splitTruncated(out, content, out.spillPath as string, label);
      const headBytes = byteLength(parts.head);
      const tailBytes = byteLength(parts.tail);
      assert.ok(headBytes + tailBytes <= budget, `${label}: within the budget`);
      // A cut drops at most 3 bytes of a split character on each side.
      assert.ok(tailBytes >= Math.ceil(budget / 2) - 3, `${label}: tail ${tailBytes} bytes`);
      assert.ok(headBytes >= Math.floor(budget / 2) - 3, `${label}: head ${headBytes} bytes`);
      assert.ok(parts.tail.length > 0, `${label}: the tail is kept`);
      assert.equal(sha256(readFileSync(out.spillPath as string)), sha256(bytes), `${label}: spill`);
    }
  });
});

describe("output capture: memory", () => {
  let spillDir: string;
  let shell: Shell;

  before(() => {
    spillDir = freshDir("dsh-out-spill-");
    shell = createLocalShell({ spillDir, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(spillDir);
  });

  it("keeps RSS bounded for 1 GB of output and drops the oversized spill", async () => {
    const total = 1_000_000_000;
    const rssBefore = process.memoryUsage().rss;
    let rssMax = rssBefore;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
    }, 25);
    let result;
    try {
      result = await shell.run(shell.resolve({
        command: `head -c ${total} /dev/zero`,
        owner: null,
        timeoutMs: 300_000,
      }));
    } finally {
      clearInterval(sampler);
    }
    const rssAfter = process.memoryUsage().rss;
    rssMax = Math.max(rssMax, rssAfter);
    assert.equal(result.exitCode, 0);
    assert.equal(result.timedOut, false);
    const out = result.stdout;
    assert.equal(out.totalBytes, total);
    assert.equal(out.truncated, true);
    assert.ok(byteLength(out.text) < 64_000 + 1000, "the text stays near the default budget");
    assert.equal(out.spillPath, undefined, "past the default 64 MiB cap the spill is dropped");
    assert.match(out.text, /unavailable/i);
    assert.deepEqual(listDir(spillDir), [], "no spill file remains");
    const growth = rssMax - rssBefore;
    assert.ok(
      growth < 256 * MiB,
      `RSS grew by ${(growth / MiB).toFixed(1)} MiB (before ${(rssBefore / MiB).toFixed(1)}, max ${
        (rssMax / MiB).toFixed(1)
      })`,
    );
  });
});
