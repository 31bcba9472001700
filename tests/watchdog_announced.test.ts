/**
 * The command's mark drawn ahead (issue 41): after each spawn the host
 * writes the next command's mark to the watchdog's record (`?mark`) in the
 * same write as the session's `+` line, so that the next spawn has nothing
 * to draw or write before it. What that must not weaken, attacked here:
 * the record still names the mark of a spawn under way (in the file, as the
 * watchdog's shell reads it, through compactions); a command that reads the
 * record and so knows the next command's mark cannot use it against a
 * session's state (a file named by the mark is never the one a session's
 * command uses: that command draws a fresh mark); and the mark a command
 * carries is still its own, new for each command.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createShell } from "../mod.ts";
import { MARK_VARIABLE, newMark, pendingMark, RECORD_FILE, WatchdogRecord } from "../src/seam/guard/record.ts";
import { tracingAdapter } from "./helpers/adapters.ts";
import { shellPending } from "./helpers/watchdog.ts";
import { freshDir, removeDir, withFreshDir } from "./helpers/dirs.ts";

/** Ids no process can have (Linux's pid_max is at most 2^22). */
const FAKE = 4_194_304;

describe("a mark announced ahead in the record", () => {
  it("is the spawn under way from the write that announces it, for the host's reading and the watchdog's", () => {
    const parent = freshDir("dsh-record-");
    const record = new WatchdogRecord(parent, 200);
    try {
      let next = newMark();
      for (let i = 0; i < 40; i++) {
        // Every write that adds a session announces the next mark: at no moment is the record without one.
        record.add({ id: FAKE - i, start: 100 + i, ...(i % 3 === 0 ? { followedMark: newMark() } : {}) }, next);
        const text = readFileSync(record.path, "utf8");
        assert.equal(pendingMark(text), next, `after add ${i} (compacted at 200 bytes)`);
        assert.equal(shellPending(text), next, `the watchdog's shell, after add ${i}`);
        // The command that carries it writes nothing before its spawn: the file already says it.
        const size = statSync(record.path).size;
        record.starting(next);
        assert.equal(statSync(record.path).size, size, "starting() wrote the announced mark again");
        if (i % 5 === 0) record.remove({ id: FAKE - i, start: 100 + i });
        assert.equal(pendingMark(readFileSync(record.path, "utf8")), next, "a '-' line settled the announced spawn");
        next = newMark();
      }
      // Another mark than the announced one (a session's command draws its own) is written, and is then the one.
      const own = newMark();
      record.starting(own);
      assert.equal(pendingMark(readFileSync(record.path, "utf8")), own);
      assert.equal(shellPending(readFileSync(record.path, "utf8")), own);
      // A session added without a next mark settles the spawn, as before.
      record.add({ id: FAKE - 100, start: 1 });
      assert.equal(pendingMark(readFileSync(record.path, "utf8")), undefined);
      // What would make the watchdog's script ignore the line is refused, the file untouched.
      const before = readFileSync(record.path, "utf8");
      assert.throws(() => record.add({ id: FAKE - 101, start: 1 }, "not-a-mark"), /not a command mark/);
      assert.throws(() => record.add({ id: FAKE - 102, start: 1 }, `${newMark()}\n+2 1`), /not a command mark/);
      assert.equal(readFileSync(record.path, "utf8"), before);
    } finally {
      record.dispose();
      removeDir(parent);
    }
  });

  it("is carried by the next command only, and each command still gets a mark of its own", async () => {
    const { adapter, watchdog } = tracingAdapter();
    const shell = createShell(adapter, { graceMs: 300 });
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const started = watchdog();
        const announced = started === undefined
          ? undefined
          : pendingMark(readFileSync(join(started.dir, RECORD_FILE), "utf8"));
        const result = await shell.run(shell.resolve({ command: `printenv ${MARK_VARIABLE}`, owner: null }));
        const mark = result.stdout.text.trim();
        assert.match(mark, /^[0-9a-f]{32}$/);
        assert.equal(seen.has(mark), false, "a mark was given to two commands");
        seen.add(mark);
        // From the second command on, the mark was in the record before the command was spawned.
        if (i > 0) assert.equal(mark, announced, `command ${i} did not carry the mark announced for it`);
      }
    } finally {
      await shell.close();
    }
  });

  it("cannot be used against a session's state by a command that read it in the record", async () => {
    await withFreshDir("dsh-announced-", async (dir) => {
      const { adapter, watchdog } = tracingAdapter();
      const spillDir = join(dir, "spill");
      const shell = createShell(adapter, { graceMs: 300, workdir: dir, spillDir });
      try {
        const session = shell.session({ owner: null });
        await session.exec("export FIRST=1");
        const started = watchdog() ?? assert.fail("no watchdog was started");
        const decoy = join(dir, "decoy");
        writeFileSync(decoy, "");
        // A command of the host's user reads the record, as any unsandboxed command could, and plants a file and a
        // symbolic link where a state file named by the next command's mark would be made.
        const planted = await shell.run(shell.resolve({
          command: `set -- '${join(started.dir, RECORD_FILE)}' '${spillDir}' '${decoy}'
next=$(sed -n 's/^?//p' "$1" | tail -n 1)
[ -n "$next" ] || exit 3
: > "$2/.state-$next"
ln -s "$3" "$2/.state-$next.tmp"
echo "$next"`,
          owner: null,
        }));
        assert.equal(planted.exitCode, 0, planted.stderr.text);
        const known = planted.stdout.text.trim();
        assert.equal(existsSync(join(spillDir, `.state-${known}`)), true);
        // The session's next command starts, runs and carries its state as if nothing had been planted.
        const next = await session.exec(`printenv ${MARK_VARIABLE}; export SECOND=2; cd /`);
        assert.equal(next.exitCode, 0, next.stderr.text);
        assert.notEqual(next.stdout.text.trim(), known, "a session's command carried a mark read in the record");
        const after = await session.exec('printf "%s %s %s" "$FIRST" "$SECOND" "$PWD"');
        assert.equal(after.stdout.text, "1 2 /");
        assert.equal(readFileSync(decoy, "utf8"), "", "the library wrote through the planted link");
        assert.equal(lstatSync(join(spillDir, `.state-${known}`)).size, 0);
        await session.close();
      } finally {
        await shell.close();
      }
    });
  });
});
