/**
 * The remote supervisor's program (`src/seam/remote/scripts.ts`), run here
 * with the local `/bin/sh`: its answers on stdout are one stream that the
 * main loop and its background subshells (`t`, `w`) write to, and a
 * session's state (`s`) is one long line of hex. An answer written in the
 * middle of it corrupted the state and was itself lost, so a termination
 * awaiting it never settled (`close()` hung).
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { supervisorArgv } from "../src/seam/remote/scripts.ts";
import { exitOf } from "./helpers/fixture.ts";
import { eventually, within } from "./helpers/wait.ts";

describe("the remote supervisor's answers", () => {
  it("a session's gone answer never lands inside the bytes of a state it is sending", async () => {
    const [program, ...args] = supervisorArgv(500, 0);
    const supervisor = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
    const supervisorExit = exitOf(supervisor);
    let out = Buffer.alloc(0);
    let grew: () => void = () => {};
    supervisor.stdout.on("data", (chunk: Buffer) => {
      out = Buffer.concat([out, chunk]);
      grew();
    });
    const until = async (test: () => boolean): Promise<void> => {
      while (!test()) await new Promise<void>((resolve) => grew = resolve);
    };
    const session = spawn("sleep", ["100"], { detached: true, stdio: "ignore" });
    const sessionExit = exitOf(session);
    try {
      await within(until(() => /dsh-sup ready \d+ \S+\n/.test(out.toString("latin1"))), 20_000);
      const dir = /dsh-sup ready \d+ (\S+)\n/.exec(out.toString("latin1"))?.[1];
      assert.ok(dir, out.toString("latin1"));
      // Stop reading: the state below fills the pipe, and its cat stays in the middle of it until we read again.
      supervisor.stdout.pause();
      out = Buffer.alloc(0);
      const record = `${dir}/${session.pid}`;
      writeFileSync(record, "");
      const state = Buffer.alloc(1024 * 1024, "x");
      const stateSid = 1_000_000_000 + Number(session.pid);
      writeFileSync(`${dir}/${stateSid}.s`, state);
      supervisor.stdin.write(`w ${session.pid}\ns ${stateSid} ${state.length}\n`);
      // The state holds the lock while its bytes wait on the paused pipe. Ending the session only then makes
      // sure its watch finds it gone during the state, not before the main loop has read `s`.
      assert.ok(await eventually(() => existsSync(`${dir}/lock`), 20_000), "the state took the lock");
      // The session ends while the state is being sent: the watch removes its record, then answers.
      session.kill("SIGKILL");
      await sessionExit;
      assert.ok(await eventually(() => !existsSync(record), 20_000), "the watch saw the session gone");
      supervisor.stdout.resume();
      const gone = `dsh-sup gone ${session.pid}\n`;
      const line = `dsh-sup state ${stateSid} + ${state.toString("hex")}\n`;
      const done = until(() => out.length >= line.length && out.includes(gone, 0, "latin1"));
      assert.notEqual(await within(done, 20_000), "timed out", "both answers came");
      assert.ok(out.subarray(0, line.length).toString("latin1") === line, "the state's line, whole");
      assert.equal(out.subarray(line.length).toString("latin1"), gone);
    } finally {
      session.kill("SIGKILL");
      supervisor.stdin.end();
      await supervisorExit;
    }
  });
});
