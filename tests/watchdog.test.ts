import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createShell, type ProcessAdapter, type WatchdogHandle } from "../src/seam/mod.ts";
import { denoAdapter } from "../src/deno_adapter.ts";
import { nodeAdapter } from "../src/node_adapter.ts";
import { LiveList, replayLiveList } from "../src/seam/run/live_list.ts";
import { REPLAY_FUNCTION, Watchdog } from "../src/seam/run/watchdog.ts";
import { eventually, isRunning, procInfo } from "./helpers/proc.ts";

const runtimeAdapter = "Deno" in globalThis ? denoAdapter : nodeAdapter;

/** Ids no process can have (Linux's pid_max is at most 2^22): safe to list, never signalled. */
const FAKE = 4_194_304;

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** Runs the watchdog's `replay` shell function on `text` with `PATH`; returns the ids it prints, once each, sorted. */
function shellReplay(text: string, path: string): number[] {
  const out = spawnSync("/bin/sh", ["-c", `${REPLAY_FUNCTION}\nreplay`], { input: text, env: { PATH: path } });
  assert.equal(out.status, 0, String(out.stderr));
  const ids = new Set(String(out.stdout).split("\n").filter((line) => line !== "").map(Number));
  return [...ids].sort((a, b) => a - b);
}

/** A `sleep` leading its own session, as a command's leader does. */
function sessionLeader(): ChildProcess & { pid: number } {
  const child = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  assert.ok(child.pid !== undefined);
  return child as ChildProcess & { pid: number };
}

describe("the watchdog's record", () => {
  it("replays +sid and -sid as a count per id, ignoring anything that is not a whole number above 1", () => {
    assert.deepEqual(replayLiveList("+12\n+13\n-12\n+14\n"), [13, 14]);
    // A pid that came round while its old session was still listed: the old one's end leaves the new one.
    assert.deepEqual(replayLiveList("+20\n+20\n-20\n"), [20]);
    assert.deepEqual(replayLiveList("+1\n+0\n+007\n+-3\n+4x\n 5\n+6"), [6]);
    // The host never writes it, and the replay does not hold it against a later start.
    assert.deepEqual(replayLiveList("-30\n+30\n"), [30]);
  });

  it("the watchdog's shell replay agrees with it, with awk and without", () => {
    const next = random(7);
    const logs = ["", "+1\n+0\n+007\n+-3\n+4x\n+5\n-5\n+5\n+6", "+20\n+20\n-20\n"];
    for (let n = 0; n < 6; n++) {
      let log = "";
      for (let i = 0; i < 60; i++) log += `${next() < 0.6 ? "+" : "-"}${2 + Math.floor(next() * 8)}\n`;
      logs.push(log);
    }
    for (const log of logs) {
      const expected = replayLiveList(log).sort((a, b) => a - b);
      assert.deepEqual(shellReplay(log, "/usr/bin:/bin"), expected, `awk, on ${JSON.stringify(log)}`);
      assert.deepEqual(shellReplay(log, "/nonexistent"), expected, `sh alone, on ${JSON.stringify(log)}`);
    }
  });

  it("is private, and compaction keeps it small and listing exactly the live sessions", () => {
    const parent = mkdtempSync(join(tmpdir(), "dsh-record-"));
    try {
      const list = new LiveList(parent, 256);
      assert.equal(statSync(list.dir).mode & 0o777, 0o700);
      assert.equal(statSync(list.path).mode & 0o777, 0o600);
      const next = random(11);
      const live: number[] = [];
      let largest = 0;
      let mostLive = 0;
      for (let i = 0; i < 3_000; i++) {
        if (live.length > 0 && next() < 0.5) {
          const [sid] = live.splice(Math.floor(next() * live.length), 1);
          list.remove(sid);
        } else {
          // Few distinct ids, so recycled ones (listed twice) happen too.
          const sid = FAKE + Math.floor(next() * 40);
          live.push(sid);
          list.add(sid);
        }
        const text = readFileSync(list.path, "utf8");
        largest = Math.max(largest, text.length);
        mostLive = Math.max(mostLive, live.length);
        const expected = [...new Set(live)].sort((a, b) => a - b);
        assert.deepEqual(replayLiveList(text).sort((a, b) => a - b), expected, `after step ${i}`);
        assert.deepEqual(list.live().sort((a, b) => a - b), expected);
      }
      // Uncompacted, 3000 lines of 9 bytes. Compacted: the live set, then at most a threshold's worth of
      // lines (256 bytes, or twice the live set) and the line that passed it.
      assert.ok(largest <= 9 * mostLive + Math.max(256, 2 * 9 * mostLive) + 9, `the record grew to ${largest} bytes`);
      assert.ok(largest < 3_000, `the record grew to ${largest} bytes`);
      list.dispose();
      assert.equal(existsSync(list.dir), false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("never writes through a link planted where a compaction writes", () => {
    const parent = mkdtempSync(join(tmpdir(), "dsh-record-"));
    try {
      const list = new LiveList(parent, 64);
      const target = join(parent, "target");
      writeFileSync(target, "untouched");
      symlinkSync(target, join(list.dir, "live.next"));
      for (let i = 0; i < 20; i++) list.add(FAKE + i);
      assert.equal(readFileSync(target, "utf8"), "untouched");
      assert.equal(lstatSync(list.path).isSymbolicLink(), false);
      assert.equal(replayLiveList(readFileSync(list.path, "utf8")).length, 20);
      list.dispose();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("the watchdog", () => {
  it("at the pipe's end kills the sessions listed live, spares those recorded gone, and removes the record", async () => {
    const parent = mkdtempSync(join(tmpdir(), "dsh-record-"));
    let handle: WatchdogHandle | undefined;
    const adapter: ProcessAdapter = {
      ...runtimeAdapter,
      spawnWatchdog: (script, env) => (handle = runtimeAdapter.spawnWatchdog(script, env)),
    };
    const watchdog = new Watchdog(adapter, { parent, compactAt: 128 });
    const [a, b, c] = [sessionLeader(), sessionLeader(), sessionLeader()];
    try {
      watchdog.added(a.pid);
      watchdog.added(b.pid);
      // Recorded gone while it still runs: stands for a finished command whose id came round to a stranger.
      watchdog.removed(b.pid);
      for (let i = 0; i < 500; i++) {
        watchdog.added(FAKE + i);
        watchdog.removed(FAKE + i);
      }
      watchdog.added(c.pid);
      const dir = watchdog.dir;
      assert.ok(dir !== undefined && handle !== undefined);
      const record = readFileSync(join(dir, "live"), "utf8");
      assert.ok(record.length < 1_000, `compacted: ${record.length} bytes`);

      // What the host's death looks like to the watchdog: its pipe ends, the record still in place.
      handle.close();
      assert.ok(await eventually(() => !isRunning(a.pid) && !isRunning(c.pid)), "listed sessions left running");
      assert.ok(await eventually(() => !existsSync(dir)), "the watchdog left its record behind");
      await handle.exited;
      assert.ok(isRunning(b.pid), "a session recorded gone was killed");
    } finally {
      await watchdog.stop();
      for (const child of [a, b, c]) child.kill("SIGKILL");
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("is gone, with its record, once close() resolves", async () => {
    let started: { pid: number; dir: string } | undefined;
    const adapter: ProcessAdapter = {
      ...runtimeAdapter,
      spawnWatchdog: (script, env) => {
        const handle = runtimeAdapter.spawnWatchdog(script, env);
        started = { pid: handle.pid, dir: env.DSH_WATCHDOG_DIR };
        return handle;
      },
    };
    const shell = createShell(adapter);
    await shell.run(shell.resolve({ command: "true", owner: null }));
    assert.ok(started !== undefined, "the first command starts the watchdog");
    assert.ok(isRunning(started.pid));
    assert.ok(existsSync(join(started.dir, "live")));
    await shell.close();
    // Not even a zombie: exited and reaped.
    assert.equal(procInfo(started.pid), undefined, "the watchdog outlived close()");
    assert.equal(existsSync(started.dir), false, "close() left the record behind");
  });

  it("a clean close() kills nothing, even a session still listed", async () => {
    const parent = mkdtempSync(join(tmpdir(), "dsh-record-"));
    let handle: WatchdogHandle | undefined;
    const adapter: ProcessAdapter = {
      ...runtimeAdapter,
      spawnWatchdog: (script, env) => (handle = runtimeAdapter.spawnWatchdog(script, env)),
    };
    const watchdog = new Watchdog(adapter, { parent });
    const a = sessionLeader();
    try {
      watchdog.added(a.pid);
      await watchdog.stop();
      assert.ok(handle !== undefined);
      assert.equal(procInfo(handle.pid), undefined);
      assert.ok(isRunning(a.pid), "stop() let the watchdog kill a listed session");
    } finally {
      a.kill("SIGKILL");
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
