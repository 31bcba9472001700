/**
 * A terminal's last output survives node-pty's give-up: after the command's
 * exit node-pty waits 200 ms for the master side to be read to its end,
 * then destroys its stream and drops what was unread. A host whose event
 * loop stalled that long lost a program's last line (an `exec_command`
 * answer said it exited and did not show it). Here the stream is paused
 * from the start, so that nothing is read before node-pty gives up: the
 * output reaches the handler only through the drain.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import type * as NodePty from "@lydell/node-pty";
import { drainBeforeDestroy } from "../src/pty_drain.ts";

const pty = createRequire(import.meta.url)("@lydell/node-pty") as typeof NodePty;

/** `script` on a new terminal whose stream is paused before anything is read; what reached the handler at its exit. */
async function unreadAtExit(script: string, drained: boolean): Promise<string> {
  const term = pty.spawn("/bin/sh", ["-c", script], {
    name: "xterm",
    cols: 80,
    rows: 24,
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    encoding: null,
  });
  const chunks: Uint8Array[] = [];
  const keep = (data: string | Uint8Array) => void chunks.push(typeof data === "string" ? Buffer.from(data) : data);
  term.onData(keep);
  term.pause();
  if (drained) drainBeforeDestroy(term);
  await new Promise((resolve) => term.onExit(resolve));
  return Buffer.concat(chunks).toString("utf8");
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
