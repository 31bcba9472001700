import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createShell } from "../mod.ts";
import { tracingAdapter } from "./helpers/adapters.ts";
import { shellPending } from "./helpers/watchdog.ts";
import {
  followedMarks,
  MARK_VARIABLE,
  newMark,
  pendingMark,
  replayRecord,
  WatchdogRecord,
} from "../src/seam/guard/record.ts";
import { FOLLOWED_FUNCTION, KILL_MARKED_FUNCTION, REPLAY_FUNCTION, Watchdog } from "../src/seam/guard/watchdog.ts";
import { HostProcess } from "../src/seam/host.ts";
import { RECHECK_MS, SessionRegistry } from "../src/seam/session/registry.ts";
import { CommandSession, type SessionIdentity } from "../src/seam/session/session.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { childrenOf, isRunning, procInfo } from "./helpers/proc.ts";
import { prng } from "./helpers/random.ts";
import { eventually } from "./helpers/wait.ts";

/** Ids no process can have (Linux's pid_max is at most 2^22): safe to list, never signalled. */
const FAKE = 4_194_304;

/** Sorts recorded sessions by id, then start time. */
function sorted(sessions: SessionIdentity[]): SessionIdentity[] {
  return [...sessions].sort((a, b) => a.id - b.id || a.start - b.start);
}

/** Runs the watchdog's `replay` shell function on `text` with `PATH`; returns the sessions it prints, once each, sorted. */
function shellReplay(text: string, path: string): SessionIdentity[] {
  const out = spawnSync("/bin/sh", ["-c", `${REPLAY_FUNCTION}\nreplay`], { input: text, env: { PATH: path } });
  assert.equal(out.status, 0, String(out.stderr));
  const lines = new Set(String(out.stdout).split("\n").filter((line) => line !== ""));
  return sorted([...lines].map((line) => {
    const [id, start] = line.split(" ").map(Number);
    return { id, start };
  }));
}

/** Runs the watchdog's `followed_marks` shell function on `text`; returns the marks it printed, in order. */
function shellFollowed(text: string): string[] {
  const out = spawnSync("/bin/sh", ["-c", `${FOLLOWED_FUNCTION}\nfollowed_marks`], {
    input: text,
    env: { PATH: "/bin" },
  });
  assert.equal(out.status, 0, String(out.stderr));
  return String(out.stdout).split("\n").filter((line) => line !== "");
}

/** A `sleep` leading its own session, as a command's leader does. */
function sessionLeader(): ChildProcess & { pid: number } {
  const child = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  assert.ok(child.pid !== undefined);
  return child as ChildProcess & { pid: number };
}

/** The session of a running process as the host records it: its id and its start time. */
function recorded(pid: number): SessionIdentity {
  const info = procInfo(pid);
  assert.ok(info !== undefined, `process ${pid} is not there`);
  return { id: pid, start: Number(info.start) };
}

describe("the watchdog's record", () => {
  it("replays +sid start and -sid start as a count per session, ignoring anything malformed", () => {
    assert.deepEqual(replayRecord("+12 5\n+13 6\n-12 5\n+14 7\n"), [{ id: 13, start: 6 }, { id: 14, start: 7 }]);
    // The same id given to two of our sessions in turn: each line names one of them by its start time.
    assert.deepEqual(replayRecord("+20 1\n+20 9\n-20 1\n"), [{ id: 20, start: 9 }]);
    assert.deepEqual(replayRecord("+20 1\n+20 1\n-20 1\n"), [{ id: 20, start: 1 }]);
    assert.deepEqual(replayRecord("+1 3\n+0 3\n+007 3\n+-3 3\n+4x 3\n 5 3\n+8\n+9 x\n+10 3 4\n+6 3"), [{
      id: 6,
      start: 3,
    }]);
    // The host never writes it, and the replay does not hold it against a later start.
    assert.deepEqual(replayRecord("-30 2\n+30 2\n"), [{ id: 30, start: 2 }]);
  });

  it("the watchdog's shell replay agrees with it, with awk and without", () => {
    const next = prng(7);
    const logs = [
      "",
      "+1 3\n+0 3\n+007 3\n+-3 3\n+4x 3\n+5 3\n-5 3\n+5 3\n+6 3\n+8\n+9 x\n+10 3 4",
      "+20 1\n+20 9\n-20 1\n",
    ];
    for (let n = 0; n < 6; n++) {
      let log = "";
      for (let i = 0; i < 60; i++) {
        log += `${next() < 0.6 ? "+" : "-"}${2 + Math.floor(next() * 8)} ${Math.floor(next() * 3)}\n`;
      }
      logs.push(log);
    }
    for (const log of logs) {
      const expected = sorted(replayRecord(log));
      assert.deepEqual(shellReplay(log, "/usr/bin:/bin"), expected, `awk, on ${JSON.stringify(log)}`);
      assert.deepEqual(shellReplay(log, "/nonexistent"), expected, `sh alone, on ${JSON.stringify(log)}`);
    }
  });

  it("is private, and compaction keeps it small and listing exactly the live sessions", () => {
    const parent = freshDir("dsh-record-");
    try {
      const list = new WatchdogRecord(parent, 256);
      assert.equal(statSync(list.dir).mode & 0o777, 0o700);
      assert.equal(statSync(list.path).mode & 0o777, 0o600);
      const next = prng(11);
      const live: SessionIdentity[] = [];
      let largest = 0;
      let mostLive = 0;
      for (let i = 0; i < 3_000; i++) {
        if (live.length > 0 && next() < 0.5) {
          const [session] = live.splice(Math.floor(next() * live.length), 1);
          list.remove(session);
        } else {
          // Few distinct ids and start times, so recycled ids (listed twice) happen too.
          const session = { id: FAKE + Math.floor(next() * 40), start: Math.floor(next() * 3) };
          live.push(session);
          list.add(session);
        }
        const text = readFileSync(list.path, "utf8");
        largest = Math.max(largest, text.length);
        mostLive = Math.max(mostLive, live.length);
        const distinct = new Map(live.map((session) => [`${session.id} ${session.start}`, session]));
        const expected = sorted([...distinct.values()]);
        assert.deepEqual(sorted(replayRecord(text)), expected, `after step ${i}`);
        assert.deepEqual(sorted(list.live()), expected);
      }
      // Lines are "+4194xxx s\n": 11 bytes. Uncompacted, 3000 of them. Compacted: the live set, then at most a
      // threshold's worth of lines (256 bytes, or twice the live set) and the line that passed it.
      const line = 11;
      assert.ok(
        largest <= line * mostLive + Math.max(256, 2 * line * mostLive) + line,
        `the record grew to ${largest} bytes`,
      );
      assert.ok(largest < 3_000, `the record grew to ${largest} bytes`);
      list.dispose();
      assert.equal(existsSync(list.dir), false);
    } finally {
      removeDir(parent);
    }
  });

  it("keeps a spawn under way pending, through compactions, until its session is added; the shell agrees", () => {
    const parent = freshDir("dsh-record-");
    try {
      const list = new WatchdogRecord(parent, 96);
      const next = prng(5);
      let pending: string | undefined;
      const live: SessionIdentity[] = [];
      for (let i = 0; i < 400; i++) {
        const roll = next();
        if (roll < 0.35) {
          pending = newMark();
          list.starting(pending);
        } else if (roll < 0.7 || live.length === 0) {
          const session = { id: FAKE + i, start: 1 };
          live.push(session);
          list.add(session);
          pending = undefined;
        } else {
          // A session seen gone says nothing of the spawn under way.
          list.remove(live.splice(Math.floor(next() * live.length), 1)[0]);
        }
        const text = readFileSync(list.path, "utf8");
        assert.equal(pendingMark(text), pending, `after step ${i}`);
        if (i % 40 === 0) assert.equal(shellPending(text), pending, `the shell, after step ${i}`);
      }
      assert.throws(() => list.starting("not-a-mark"), /not a command mark/);
      list.dispose();
    } finally {
      removeDir(parent);
    }
  });

  it("follows a terminal's mark from its session's + line to its - line, through compactions, as the shell does", () => {
    const parent = freshDir("dsh-record-");
    try {
      // Compacted every few lines: the followed marks must survive each rewrite.
      const list = new WatchdogRecord(parent, 64);
      const [a, b, c] = [newMark(), newMark(), newMark()];
      const first = { id: FAKE, start: 1, followedMark: a };
      const second = { id: FAKE + 1, start: 2, followedMark: b };
      const plain = { id: FAKE + 2, start: 3 };
      list.add(first);
      list.add(plain);
      list.add(second);
      for (let i = 0; i < 20; i++) list.add({ id: FAKE + 10 + i, start: i });
      let text = readFileSync(list.path, "utf8");
      assert.deepEqual(followedMarks(text).sort(), [a, b].sort());
      assert.deepEqual(shellFollowed(text).sort(), [a, b].sort());
      list.remove(first);
      list.remove(plain);
      text = readFileSync(list.path, "utf8");
      assert.deepEqual(followedMarks(text), [b]);
      assert.deepEqual(shellFollowed(text), [b]);
      // Malformed marks are ignored by both readers.
      for (const bad of [`*${c.toUpperCase()}\n`, `*${c}0\n`, `*${c}; rm x\n`]) {
        assert.deepEqual(followedMarks(bad), []);
        assert.deepEqual(shellFollowed(bad), []);
      }
      list.dispose();
    } finally {
      removeDir(parent);
    }
  });

  it("the shell's pending_mark ignores a malformed mark, as pendingMark does", () => {
    const mark = newMark();
    for (const text of ["", `?${mark}\n+5 1\n`, `?${mark.toUpperCase()}\n`, `?${mark}0\n`, `?${mark}; rm x\n`]) {
      assert.equal(shellPending(text), pendingMark(text), JSON.stringify(text));
      assert.equal(pendingMark(text), undefined);
    }
    assert.equal(shellPending(`+5 1\n?${mark}\n-5 1\n`), mark);
  });

  it("never writes through a link planted where a compaction writes", () => {
    const parent = freshDir("dsh-record-");
    try {
      const list = new WatchdogRecord(parent, 64);
      const target = join(parent, "target");
      writeFileSync(target, "untouched");
      symlinkSync(target, join(list.dir, "record.next"));
      for (let i = 0; i < 20; i++) list.add({ id: FAKE + i, start: 1 });
      assert.equal(readFileSync(target, "utf8"), "untouched");
      assert.equal(lstatSync(list.path).isSymbolicLink(), false);
      assert.equal(replayRecord(readFileSync(list.path, "utf8")).length, 20);
      list.dispose();
    } finally {
      removeDir(parent);
    }
  });
});

describe("the watchdog", () => {
  it("at the pipe's end kills the sessions listed live, spares those recorded gone, and removes the record", async () => {
    const parent = freshDir("dsh-record-");
    const { adapter, watchdog: started } = tracingAdapter();
    const watchdog = new Watchdog(adapter, { parent, compactAt: 128 });
    const [a, b, c] = [sessionLeader(), sessionLeader(), sessionLeader()];
    try {
      watchdog.added(recorded(a.pid));
      watchdog.added(recorded(b.pid));
      // Recorded gone while it still runs: stands for a finished command whose id came round to a stranger.
      watchdog.removed(recorded(b.pid));
      for (let i = 0; i < 500; i++) {
        watchdog.added({ id: FAKE + i, start: 1 });
        watchdog.removed({ id: FAKE + i, start: 1 });
      }
      watchdog.added(recorded(c.pid));
      const { dir, handle } = started() ?? assert.fail("the watchdog was not started");
      const record = readFileSync(join(dir, "record"), "utf8");
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
      removeDir(parent);
    }
  });

  it("is gone, with its record, once close() resolves", async () => {
    const { adapter, watchdog } = tracingAdapter();
    const shell = createShell(adapter);
    await shell.run(shell.resolve({ command: "true", owner: null }));
    const started = watchdog() ?? assert.fail("the first command starts the watchdog");
    assert.ok(isRunning(started.handle.pid));
    assert.ok(existsSync(join(started.dir, "record")));
    await shell.close();
    // Not even a zombie: exited and reaped.
    assert.equal(procInfo(started.handle.pid), undefined, "the watchdog outlived close()");
    assert.equal(existsSync(started.dir), false, "close() left the record behind");
  });

  it("a clean close() kills nothing, even a session still listed", async () => {
    const parent = freshDir("dsh-record-");
    const { adapter, watchdog: started } = tracingAdapter();
    const watchdog = new Watchdog(adapter, { parent });
    const a = sessionLeader();
    try {
      watchdog.added(recorded(a.pid));
      await watchdog.stop();
      const { handle } = started() ?? assert.fail("the watchdog was not started");
      assert.equal(procInfo(handle.pid), undefined);
      assert.ok(isRunning(a.pid), "stop() let the watchdog kill a listed session");
    } finally {
      a.kill("SIGKILL");
      removeDir(parent);
    }
  });
});

/**
 * Processes as a command that was being spawned when its host died leaves them, some carrying `mark` (and one
 * another command's): a marked session leader with a marked child and one that dropped its environment
 * (`env -i`), and an unmarked session leader (not ours) with a marked child and an unmarked one.
 */
async function markedScene(mark: string): Promise<{ killed: number[]; spared: number[]; all: ChildProcess[] }> {
  const marked = { PATH: "/usr/bin:/bin", [MARK_VARIABLE]: mark };
  const ours = spawn("/bin/sh", ["-c", "sleep 300 & env -i /bin/sleep 300 & wait"], {
    detached: true,
    stdio: "ignore",
    env: marked,
  });
  const stranger = spawn("/bin/sh", ["-c", `${MARK_VARIABLE}=${mark} sleep 300 & sleep 300 & wait`], {
    detached: true,
    stdio: "ignore",
    env: { PATH: "/usr/bin:/bin" },
  });
  const other = spawn("sleep", ["300"], {
    detached: true,
    stdio: "ignore",
    env: { ...marked, [MARK_VARIABLE]: newMark() },
  });
  const all = [ours, stranger, other];
  assert.ok(all.every((child) => child.pid !== undefined));
  const [oursPid, strangerPid, otherPid] = all.map((child) => child.pid as number);
  // Both children of each shell forked and exec'd `sleep`: before its exec a child's environ is still the shell's.
  const sleeping = (parent: number): boolean => {
    const children = childrenOf(parent);
    return children.length === 2 && children.every((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0")[0].endsWith("sleep");
      } catch {
        return false;
      }
    });
  };
  assert.ok(await eventually(() => sleeping(oursPid) && sleeping(strangerPid)));
  const strangerChildren = childrenOf(strangerPid);
  const strangerMarked = strangerChildren.filter((pid) =>
    readFileSync(`/proc/${pid}/environ`, "latin1").includes(mark)
  );
  assert.equal(strangerMarked.length, 1);
  return {
    killed: [oursPid, ...childrenOf(oursPid), ...strangerMarked],
    spared: [strangerPid, ...strangerChildren.filter((pid) => !strangerMarked.includes(pid)), otherPid],
    all,
  };
}

describe("the watchdog, when the host died while a command was being spawned", () => {
  it("kills what carries the command's mark, and only the groups and sessions a marked process leads", async () => {
    const parent = freshDir("dsh-record-");
    const { adapter, watchdog: started } = tracingAdapter();
    const watchdog = new Watchdog(adapter, { parent });
    const mark = newMark();
    const scene = await markedScene(mark);
    try {
      // The host wrote the mark, spawned, and died before it could record the session.
      watchdog.starting(mark);
      const { dir, handle } = started() ?? assert.fail("starting() did not start the watchdog");
      handle.close();
      await handle.exited;
      assert.equal(existsSync(dir), false, "the watchdog left its record behind");
      assert.deepEqual(scene.killed.filter(isRunning), [], "marked processes, or members of a marked session, live");
      assert.deepEqual(scene.spared.filter((pid) => !isRunning(pid)), [], "the watchdog killed what is not ours");
    } finally {
      await watchdog.stop();
      for (const child of scene.all) process.kill(-(child.pid as number), "SIGKILL");
      removeDir(parent);
    }
  });

  it("does the same with a grep that cannot read NUL-separated input (an old busybox)", async () => {
    const bin = freshDir("dsh-bin-");
    const mark = newMark();
    const scene = await markedScene(mark);
    try {
      writeFileSync(join(bin, "grep"), '#!/bin/sh\ncase "$1" in *z*) exit 2 ;; esac\nexec /bin/grep "$@"\n');
      chmodSync(join(bin, "grep"), 0o755);
      for (const tool of ["tr", "cat", "pkill"]) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
      const out = spawnSync("/bin/sh", ["-c", `${KILL_MARKED_FUNCTION}\nkill_marked "$0"`, mark], {
        env: { PATH: bin },
      });
      assert.equal(out.status, 0, String(out.stderr));
      assert.ok(await eventually(() => scene.killed.every((pid) => !isRunning(pid))), "marked processes live");
      assert.deepEqual(scene.spared.filter((pid) => !isRunning(pid)), [], "it killed what is not ours");
    } finally {
      for (const child of scene.all) process.kill(-(child.pid as number), "SIGKILL");
      removeDir(bin);
    }
  });
});

describe("the record stays true", () => {
  it("a survivor that ends while the harness is idle leaves it, with no new command and no close()", async () => {
    const { adapter, watchdog } = tracingAdapter();
    const shell = createShell(adapter, { graceMs: 300 });
    try {
      // The member outlives the first re-check (RECHECK_MS after the settle), then ends on its own.
      const seconds = (1.5 * RECHECK_MS) / 1000;
      const result = await shell.run(shell.resolve({ command: `sleep ${seconds} & echo $$ $!`, owner: null }));
      const [sid, member] = result.stdout.text.trim().split(" ").map(Number);
      const { dir } = watchdog() ?? assert.fail("the watchdog was not started");
      const listed = (): boolean => replayRecord(readFileSync(join(dir, "record"), "utf8")).some((s) => s.id === sid);
      assert.ok(listed() || !isRunning(member), "a live survivor is not in the record");
      assert.ok(await eventually(() => !isRunning(member), 10_000));
      assert.ok(await eventually(() => !listed(), 5_000), "the ended survivor is still in the record");
    } finally {
      await shell.close();
    }
  });

  it("the exit guard's kill removes it, so the watchdog does not signal the same ids again", async () => {
    const parent = freshDir("dsh-record-");
    const { adapter, watchdog: started } = tracingAdapter();
    const watchdog = new Watchdog(adapter, { parent });
    const registry = new SessionRegistry(watchdog);
    const a = sessionLeader();
    try {
      registry.started(new CommandSession(adapter, a.pid, new HostProcess().procTable));
      const { dir } = started() ?? assert.fail("the watchdog was not started");
      assert.ok(existsSync(join(dir, "record")));
      registry.killAll();
      assert.equal(existsSync(dir), false, "the record outlived the exit guard's kill");
      assert.ok(await eventually(() => !isRunning(a.pid)), "the exit guard did not kill the session");
    } finally {
      await watchdog.stop();
      const handle = started()?.handle;
      assert.ok(handle === undefined || procInfo(handle.pid) === undefined, "the watchdog outlived stop()");
      a.kill("SIGKILL");
      removeDir(parent);
    }
  });
});
