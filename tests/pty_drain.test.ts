/**
 * A terminal's last output survives the end of the stream over its master.
 * Two ends lost it on a loaded machine (issue 35): node-pty destroys the
 * stream 200 ms after the command's exit, dropping what was unread; and
 * Node's stream reader ends the stream at the hang-up after a short read,
 * while the program's last bytes are still on their way to the master. Here
 * the stream is paused from the start, so that nothing is read before the
 * end each case makes: the output reaches the handler only through the
 * drain.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import type * as NodePty from "@lydell/node-pty";
import { drainBeforeDestroy, LEFT_MAX_BYTES, type MasterRead } from "../src/pty_drain.ts";
import { readMaster } from "../src/pty_master_read.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { IS_DENO } from "./helpers/runtime.ts";
import { appeared, eventually } from "./helpers/wait.ts";

const pty = createRequire(import.meta.url)("@lydell/node-pty") as typeof NodePty;

/** `script` on a new terminal whose stream is paused before anything is read. */
function pausedTerminal(script: string): { term: NodePty.IPty; chunks: Uint8Array[]; exited: Promise<unknown> } {
  const term = pty.spawn("/bin/sh", ["-c", script], {
    name: "xterm",
    cols: 80,
    rows: 24,
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    encoding: null,
  });
  const chunks: Uint8Array[] = [];
  term.onData((data: string | Uint8Array) => void chunks.push(typeof data === "string" ? Buffer.from(data) : data));
  term.pause();
  return { term, chunks, exited: new Promise((resolve) => term.onExit(resolve)) };
}

/** The text of `chunks`. */
function chunksText(chunks: readonly Uint8Array[]): string {
  return Buffer.concat(chunks).toString("utf8");
}

/** What reached the handler by the exit of `script`, left paused until node-pty gives up on it. */
async function unreadAtExit(script: string, drained: boolean): Promise<string> {
  const { term, chunks, exited } = pausedTerminal(script);
  if (drained) drainBeforeDestroy(term, (bytes) => chunks.push(bytes));
  await exited;
  return chunksText(chunks);
}

/**
 * A paused terminal whose master holds `line`, unread: the program first
 * writes `first`, which Node's reader takes into the stream's buffer before
 * it stops reading (a paused stream reads one chunk); only then is the line
 * written, and the program holds the terminal on (`exec sleep`).
 */
async function masterHolds(dir: string, line: string): Promise<ReturnType<typeof pausedTerminal>> {
  const go = join(dir, "go");
  const written = join(dir, "written");
  const paused = pausedTerminal(
    `printf 'first\\n'; until [ -e '${go}' ]; do sleep 0.01; done; printf '${line}\\n'; : > '${written}'; exec sleep 30`,
  );
  const socket = (paused.term as unknown as { _socket: Readable })._socket;
  assert.ok(await eventually(() => socket.readableLength > 0), "the stream read nothing");
  writeFileSync(go, "");
  assert.ok(await appeared(written), "the program did not write its line");
  return paused;
}

/**
 * What reached the handler by the exit when the stream ends early, as
 * Node's reader ends it at a hang-up after a short read, with a line still
 * on the master; the terminal is closed when the stream is destroyed.
 */
async function endedEarly(read: MasterRead | undefined): Promise<string> {
  const dir = freshDir("dsh-pty-drain-");
  try {
    const { term, chunks, exited } = await masterHolds(dir, "the-last-line");
    drainBeforeDestroy(term, (bytes) => chunks.push(bytes), read);
    const socket = (term as unknown as { _socket: Readable })._socket;
    socket.push(null);
    socket.resume();
    await exited;
    return chunksText(chunks);
  } finally {
    removeDir(dir);
  }
}

describe("a terminal's output node-pty had not read when it gave up", () => {
  it("reaches the handler before the exit is reported", async () => {
    assert.match(await unreadAtExit("printf 'the-last-line\\n'", true), /the-last-line/);
  });

  it("is lost without the drain (what the drain is for)", async () => {
    assert.doesNotMatch(await unreadAtExit("printf 'the-last-line\\n'", false), /the-last-line/);
  });

  it("does not wait for a background process that keeps writing to the terminal", async () => {
    // The shell exits; its background `yes` holds the terminal and writes on: one more poll, then the exit.
    assert.match(await unreadAtExit("yes the-line > /dev/tty & echo started", true), /started/);
  });
});

describe("a terminal's output still on its way when Node's stream ends at the hang-up", () => {
  const why = IS_DENO && "Deno's node:fs reads no raw fd, and Deno's terminal stream reads on to the kernel's EIO";

  it("reaches the handler, read from the master, before the exit is reported", { skip: why }, async () => {
    assert.match(await endedEarly(readMaster), /first\r\nthe-last-line/);
  });

  it("is lost without the master's read (what the read is for)", { skip: why }, async () => {
    assert.match(await endedEarly(undefined), /^first\r\n$/);
  });
});

describe("the drain's read of the master", () => {
  /** A stream that ends at once, drained with `read`: the chunks delivered, in order, when it has closed. */
  async function drainedAfterEnd(streamed: string, read: MasterRead): Promise<string[]> {
    const socket = new PassThrough();
    const got: string[] = [];
    drainBeforeDestroy({ _socket: socket, fd: 7 }, (bytes) => got.push(`read:${bytes.length}`), read);
    socket.on("data", (chunk: Uint8Array) => got.push(`stream:${new TextDecoder().decode(chunk)}`));
    socket.end(streamed);
    await new Promise((resolve) => socket.on("close", resolve));
    return got;
  }

  it("comes after what the stream gave, and stops when the kernel has nothing more", async () => {
    const left = [3, 5];
    const got = await drainedAfterEnd("streamed", (fd, into) => {
      assert.equal(fd, 7);
      const count = left.shift();
      if (count === undefined) throw Object.assign(new Error("read EIO"), { code: "EIO" });
      return into.fill(1, 0, count) && count;
    });
    assert.deepEqual(got, ["stream:streamed", "read:3", "read:5"]);
  });

  it(`takes at most ${LEFT_MAX_BYTES} bytes from a writer that never stops`, async () => {
    const got = await drainedAfterEnd("", (_fd, into) => into.length);
    const total = got.reduce((sum, entry) => sum + Number(entry.split(":")[1]), 0);
    assert.ok(total >= LEFT_MAX_BYTES && total < LEFT_MAX_BYTES + 64 * 1024, `read ${total} bytes`);
  });

  it("never waits: readMaster reads nothing from an fd that would block, a file with bytes to give", () => {
    const dir = freshDir("dsh-pty-blocking-");
    const file = join(dir, "blocking");
    writeFileSync(file, "bytes a blocking read would give");
    const fd = openSync(file, "r");
    try {
      assert.equal(readMaster(fd, new Uint8Array(16)), 0);
    } finally {
      closeSync(fd);
      removeDir(dir);
    }
  });

  it("readMaster reads what the master holds (Node); Deno's node:fs refuses an fd it did not open", async () => {
    const dir = freshDir("dsh-pty-read-");
    const { term } = IS_DENO ? pausedTerminal("exec sleep 30") : await masterHolds(dir, "on-the-master");
    try {
      const master = (term as unknown as { fd: number }).fd;
      const into = new Uint8Array(64);
      if (IS_DENO) {
        assert.throws(() => readMaster(master, into), /EBADF/);
      } else {
        assert.match(new TextDecoder().decode(into.subarray(0, readMaster(master, into))), /on-the-master/);
        // Nothing more, and the program still holds the terminal: EAGAIN at once, never a wait.
        assert.throws(() => readMaster(master, into), /EAGAIN/);
      }
    } finally {
      term.kill("SIGKILL");
      removeDir(dir);
    }
  });
});
