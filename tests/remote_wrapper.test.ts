/**
 * The remote wrapper's header read whole (`src/seam/remote/scripts.ts`,
 * `header.ts`), run here with the local `/bin/sh` as the leader of a
 * session of its own, as an engine starts it. A header with no input behind
 * it is read in blocks (`. /proc/self/fd/0`) instead of a byte at a time:
 * these tests attack what that changed — values that try to end the header
 * early or run code, a header cut short, a header that asks for the
 * command's stdin, and a stdin that is not a pipe.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WRAPPER_ARGV } from "../src/seam/remote/scripts.ts";
import { commandHeader, type HeaderInput } from "../src/seam/remote/header.ts";
import { exitOf } from "./helpers/fixture.ts";

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the wrapper as a session leader with `input` as its stdin (bytes through a pipe, or a file's path). */
async function wrapper(input: Uint8Array | { file: string }): Promise<Ran> {
  const [program, ...args] = WRAPPER_ARGV;
  const stdin = input instanceof Uint8Array ? "pipe" : openSync(input.file, "r");
  try {
    const child = spawn(program, args, { detached: true, stdio: [stdin, "pipe", "pipe"] });
    const exit = exitOf(child);
    const { stdout: out, stderr: err } = child;
    assert.ok(out !== null && err !== null);
    let stdout = "";
    let stderr = "";
    out.on("data", (chunk: Buffer) => stdout += chunk.toString("latin1"));
    err.on("data", (chunk: Buffer) => stderr += chunk.toString("latin1"));
    const ended = Promise.all([
      new Promise((resolve) => out.on("close", resolve)),
      new Promise((resolve) => err.on("close", resolve)),
    ]);
    if (input instanceof Uint8Array) child.stdin?.end(input);
    const { code } = await exit;
    await ended;
    return { code, stdout, stderr };
  } finally {
    if (typeof stdin === "number") closeSync(stdin);
  }
}

function withDirs<T>(body: (dirs: { record: string; work: string }) => Promise<T>): Promise<T> {
  const record = mkdtempSync(join(tmpdir(), "dsh-wrapper-rec-"));
  const work = mkdtempSync(join(tmpdir(), "dsh-wrapper-work-"));
  return body({ record, work }).finally(() => {
    rmSync(record, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });
}

function header(dirs: { record: string; work: string }, extra: Partial<HeaderInput> & { command: string }) {
  const { command, ...rest } = extra;
  return commandHeader({
    env: { PATH: "/usr/bin:/bin" },
    workdir: dirs.work,
    recordDir: dirs.record,
    stdin: false,
    graceMs: 500,
    run: { shell: "sh", command },
    ...rest,
  });
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe("the remote wrapper reads a header with nothing behind it whole", () => {
  it("is the whole-read form when no input follows, the line form when it does", () => {
    const dirs = { record: "/r", work: "/w" };
    const whole = header(dirs, { command: "true" });
    assert.ok(text(whole.bytes).startsWith(`${whole.nonce} .\n`));
    assert.ok(text(whole.bytes).endsWith(`\ndsh_end=${whole.nonce}\n`));
    const lines = header(dirs, { command: "true", stdin: true });
    assert.ok(text(lines.bytes).startsWith(`${lines.nonce}\n`));
    assert.ok(text(lines.bytes).endsWith(`\n${lines.nonce}\n`));
  });

  it("values that try to end the header or run code reach the command as they are, and run nothing", async () => {
    await withDirs(async (dirs) => {
      const pwned = join(dirs.work, "pwned");
      const values = {
        QUOTE: `'; touch ${pwned}; '`,
        SUBST: `$(touch ${pwned})\`touch ${pwned}\``,
        END: `x\ndsh_end=dsh-0000\n. /proc/self/fd/0\ntouch ${pwned}\n`,
        DOT: " .\n",
      };
      const h = header(dirs, {
        env: { PATH: "/usr/bin:/bin", ...values },
        command: `printf '%s\\0' "$QUOTE" "$SUBST" "$END" "$DOT"`,
      });
      const ran = await wrapper(h.bytes);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stderr, new RegExp(`^${h.nonce} s \\d+\\n$`));
      assert.deepEqual(ran.stdout.split("\0").slice(0, -1), Object.values(values));
      assert.equal(existsSync(pwned), false, "nothing in a value ran");
    });
  });

  it("a header cut short runs nothing: before its end line, and inside a quoted value", async () => {
    await withDirs(async (dirs) => {
      const ran = join(dirs.work, "ran");
      const h = header(dirs, { env: { PATH: "/usr/bin:/bin", V: "a'b c" }, command: `touch ${ran}` });
      const full = text(h.bytes);
      const endLine = full.lastIndexOf("dsh_end=");
      const insideValue = full.indexOf("a'\\''b c") + 3;
      for (const cut of [endLine, insideValue, full.indexOf("\n") + 1]) {
        const result = await wrapper(h.bytes.subarray(0, new TextEncoder().encode(full.slice(0, cut)).length));
        assert.notEqual(result.code, 0, `cut at ${cut}`);
        assert.doesNotMatch(result.stderr, new RegExp(`${h.nonce} s `), "never said it started");
        assert.equal(existsSync(ran), false, `cut at ${cut}: the command did not run`);
      }
    });
  });

  it("a whole-read header never reaches the command as its stdin, even if the header asks for one", async () => {
    await withDirs(async (dirs) => {
      const h = header(dirs, { command: "cat; echo end" });
      // The whole-read form with `dsh_stdin=1` added: the wrapper must still give the command /dev/null.
      const forged = text(h.bytes).replace("dsh_stdin=0", "dsh_stdin=1");
      assert.notEqual(forged, text(h.bytes));
      const ran = await wrapper(new TextEncoder().encode(forged));
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, "end\n");
    });
  });

  it("reads it a line at a time when its stdin is not a pipe (a transport's socket or file)", async () => {
    await withDirs(async (dirs) => {
      const h = header(dirs, { env: { PATH: "/usr/bin:/bin", V: "v\nw" }, command: `printf '%s' "$V"` });
      const file = join(dirs.work, "header");
      writeFileSync(file, h.bytes);
      const ran = await wrapper({ file });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, "v\nw");
    });
  });

  it("the line form still leaves every byte after the header to the command", async () => {
    await withDirs(async (dirs) => {
      const h = header(dirs, { command: "cat", stdin: true });
      const input = `${h.nonce}\ndsh_end=${h.nonce}\n. /proc/self/fd/0\n`;
      const ran = await wrapper(new Uint8Array([...h.bytes, ...new TextEncoder().encode(input)]));
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, input);
    });
  });
});
