/**
 * Every claim `docs/side-by-side.md` makes about a peer, measured: execa
 * 9.6.1, tinyexec 1.4.0 and nano-spawn 2.1.0 run each scenario in a host
 * process of their own (`fixtures/peers.ts`), and the OS says what was left
 * running, whose child it was, what the command's stdin was and what its
 * environment held. Beside each, the same with @dsh/shell. The doc shows
 * the commands; this file is where its numbers come from.
 */

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createLocalShell } from "../mod.ts";
import { exitOf } from "./helpers/fixture.ts";
import { Leftovers, procInfo, runningWithEnv } from "./helpers/proc.ts";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";
import { eventually } from "./helpers/wait.ts";

const MARK = "SBS_MARK";
const leftovers = new Leftovers();
afterEach(() => leftovers.kill());

/** A peer's host process: its JSON lines as they come, and its pid. */
interface PeerRun {
  child: ChildProcess;
  mark: string;
  /** The next line it prints. */
  next(): Promise<Record<string, unknown>>;
}

/** Starts `fixtures/peers.ts <scenario> <library>` with a fresh marker (and `env`) in its environment. */
function peer(scenario: string, library = "execa", env: Record<string, string> = {}): PeerRun {
  const mark = randomBytes(8).toString("hex");
  const file = fileURLToPath(new URL(`./fixtures/peers.${IS_DENO ? "ts" : "js"}`, import.meta.url));
  const child = spawn(process.execPath, scriptArgs(file, [scenario, library]), {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env, [MARK]: mark },
  });
  const lines: Record<string, unknown>[] = [];
  const waiting: ((line: Record<string, unknown>) => void)[] = [];
  let buffered = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      buffered = buffered.slice(end + 1);
      const taker = waiting.shift();
      if (taker) taker(line);
      else lines.push(line);
    }
  });
  return {
    child,
    mark,
    next: () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** The running processes of `run` (by its marker) but its host; remembered to be killed after the test. */
function leftBy(run: PeerRun): { pid: number; ppid: number; comm: string }[] {
  const host = run.child.pid;
  const found = runningWithEnv(MARK, run.mark).filter((pid) => pid !== host);
  leftovers.add(...found);
  return found.flatMap((pid) => {
    const info = procInfo(pid);
    return info === undefined ? [] : [{ pid, ppid: info.ppid, comm: info.comm }];
  });
}

describe("docs/side-by-side.md: what the peers do, measured", () => {
  it("timeout, a grandchild holding stdout (sh -c 'sleep 3 & sleep 3', timeout 300): both sleeps run, reparented, until they end; only then the rejection", async () => {
    await Promise.all(["execa", "tinyexec", "nano-spawn"].map(async (library) => {
      const run = peer("timeout-held", library);
      const { pid: host } = await run.next();
      const settled = run.next();
      // Well past the timeout, and before the sleeps end.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const left = leftBy(run);
      assert.deepEqual(left.map((p) => p.comm), ["sleep", "sleep"], library);
      for (const p of left) assert.notEqual(p.ppid, host, `${library}: the sleeps are no longer the host's`);
      const outcome = await settled;
      assert.equal(outcome.rejected, true, library);
      assert.ok((outcome.ms as number) >= 2_500, `${library} settled only when the sleeps ended: ${outcome.ms} ms`);
      if (library === "execa") assert.deepEqual([outcome.timedOut, outcome.signal], [true, "SIGTERM"]);
      await exitOf(run.child);
    }));
  });

  it("timeout, the grandchild not holding stdout (sh -c 'sleep 30 >/dev/null 2>&1 & wait'): a quick rejection, the sleep left running", async () => {
    await Promise.all(["execa", "tinyexec", "nano-spawn"].map(async (library) => {
      const run = peer("timeout-detached", library);
      await run.next();
      const outcome = await run.next();
      assert.equal(outcome.rejected, true, library);
      assert.ok((outcome.ms as number) < 2_000, `${library}: ${outcome.ms} ms`);
      if (library === "execa") assert.deepEqual([outcome.timedOut, outcome.signal], [true, "SIGTERM"]);
      await exitOf(run.child);
      assert.deepEqual(leftBy(run).map((p) => p.comm), ["sleep"], `${library} left the sleep running`);
    }));
  });

  it("execa's subprocess.kill(): the shell dies, its child lives on", async () => {
    const run = peer("kill");
    await run.next();
    const outcome = await run.next();
    assert.deepEqual([outcome.rejected, outcome.signal], [true, "SIGTERM"]);
    await exitOf(run.child);
    assert.deepEqual(leftBy(run).map((p) => p.comm), ["sleep"]);
  });

  it("execa when its host exits (cleanup: the shell is killed, its child lives) or is SIGKILLed (both live)", async () => {
    const exits = peer("exit");
    await exits.next();
    await exits.next();
    await exitOf(exits.child);
    const killed = peer("sigkilled");
    await killed.next();
    await killed.next();
    killed.child.kill("SIGKILL");
    await exitOf(killed.child);
    assert.deepEqual(leftBy(exits).map((p) => p.comm), ["sleep"]);
    assert.deepEqual(leftBy(killed).map((p) => p.comm).sort(), ["sh", "sleep"]);
  });

  it("execa past maxBuffer (1 000 here): the command rejects (isMaxBuffer)", async () => {
    const run = peer("max-buffer");
    await run.next();
    const outcome = await run.next();
    assert.deepEqual([outcome.rejected, outcome.isMaxBuffer], [true, true]);
    await exitOf(run.child);
  });

  it("execa with no input: the child's stdin is a pipe of execa's that stays open, so `cat` waits for the timeout", async () => {
    const run = peer("stdin");
    await run.next();
    const { child, timedOut, parent } = await run.next();
    assert.match(String(child), /^(pipe|socket):\[\d+\]$/, "a pipe (Node: a socketpair)");
    assert.notEqual(child, parent, "not the host's own stdin");
    assert.equal(timedOut, true, "cat never saw the end of its input");
    run.child.stdin?.end();
    await exitOf(run.child);
    await using shell = createLocalShell();
    // An upper bound only: a cat whose input is at its end ends at once.
    const result = await shell.exec("readlink /proc/self/fd/0; cat; echo eof", { timeoutMs: 30_000 });
    assert.deepEqual([result.stdout.text, result.timedOut], ["/dev/null\neof\n", false]);
  });

  it("execa: a non-zero exit rejects with an ExecaError; the host's credential-named variable reaches the child", async () => {
    const nonzero = peer("nonzero");
    await nonzero.next();
    assert.deepEqual(await nonzero.next(), {
      rejected: true,
      name: "ExecaError",
      exitCode: 1,
      isMaxBuffer: false,
      timedOut: false,
    });
    const env = peer("env", "execa", { SBS_API_KEY: "sk-side-by-side" });
    await env.next();
    assert.deepEqual(await env.next(), { child: "sk-side-by-side" });
    await Promise.all([exitOf(nonzero.child), exitOf(env.child)]);
    await using shell = createLocalShell({ ambientEnv: { ...process.env, SBS_API_KEY: "sk-side-by-side" } });
    assert.equal((await shell.exec('printf %s "${SBS_API_KEY-unset}"')).stdout.text, "unset");
  });

  it("@dsh/shell beside them: the same timeout ends both sleeps at once, and the result comes within graceMs", async () => {
    const mark = randomBytes(8).toString("hex");
    await using shell = createLocalShell({ graceMs: 500 });
    const result = await shell.exec("sleep 3 & sleep 3", { timeoutMs: 300, env: { [MARK]: mark } });
    assert.equal(result.timedOut, true);
    assert.ok(result.durationMs < 1_500, `${result.durationMs} ms`);
    // The result comes once the leader has ended; the background sleep, signalled in the same step, may still be on
    // its way out for a moment: both are gone well before the sleeps' own 3 s.
    assert.ok(await eventually(() => runningWithEnv(MARK, mark).length === 0, 2_000), `${runningWithEnv(MARK, mark)}`);
  });
});
