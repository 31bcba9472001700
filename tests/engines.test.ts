/**
 * The engines (docs/engines.md) against real ones this file starts itself:
 * a Docker daemon with its own socket, data root and exec root, running a
 * container of an image imported from busybox-static, and an OpenSSH server
 * on a loopback port with key authentication. The same checks run on both
 * engines, on the runtime of the leg (Deno on the sources, Node on the
 * built package).
 *
 * What runs on the engine's side is looked at from outside the code under
 * test: in the container through the raw `docker exec`, on the SSH "host"
 * (this machine) through /proc; both through /proc by a marker variable
 * that follows a command's descendants wherever they go.
 *
 * Where docker or sshd is missing these tests skip with a loud reason,
 * except with DSH_REQUIRE_ENGINES=1 (CI), where that fails.
 */

import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  createShell,
  type Shell,
  ShellEngineError,
  ShellSpawnError,
  ShellSpecError,
  type ShellTask,
  TaskAccessError,
} from "../mod.ts";
import type { EngineLink, RemoteEngine } from "../src/engines/mod.ts";
import { dockerEngine, localEngine, sshEngine } from "../src/engines/mod.ts";
import type { ProcessAdapter } from "../src/seam/mod.ts";
import { sha256 } from "./helpers/capture.ts";
import { DockerDaemon, dockerUnavailable } from "./helpers/docker_daemon.ts";
import { SlowResizeProxy } from "./helpers/docker_proxy.ts";
import { freePort, LOGIN_ENV, SSH_USER, SshDaemon, sshUnavailable } from "./helpers/ssh_daemon.ts";
import { assertSpecError, rejection, thrown } from "./helpers/errors.ts";
import { exitOf } from "./helpers/fixture.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";
import { appeared, eventually } from "./helpers/wait.ts";
import { sized } from "./helpers/sizes.ts";

const REQUIRED = process.env.DSH_REQUIRE_ENGINES === "1";
const dockerMissing = dockerUnavailable();
const sshMissing = sshUnavailable();
for (const missing of [dockerMissing, sshMissing]) {
  if (missing && !REQUIRED) console.error(`\n*** ENGINE TESTS SKIPPED: ${missing} ***\n`);
}

/** The grace every shell here uses: the no-orphans budget is this + 5 s. */
const GRACE_MS = 500;
/**
 * How many 150 MB floods the SSH flood test runs in a row: two here, twenty at the release's sizes
 * (`DSH_RELEASE_SIZES=1`) and in `deno task stress --engine-floods 20` (DSH_ENGINE_FLOODS=20).
 */
const FLOODS = Number(process.env.DSH_ENGINE_FLOODS ?? sized(2, 20));
/** The marker variable the tests give commands, to find their processes anywhere on this kernel. */
const MARK = "DSH_TEST_MARK";

describe("the engines are available where they are required", () => {
  it("CI has docker and sshd: the engine tests ran, they were not skipped", { skip: !REQUIRED && "not in CI" }, () => {
    assert.equal(dockerMissing, false, `the Docker engine tests would be skipped: ${dockerMissing}`);
    assert.equal(sshMissing, false, `the SSH engine tests would be skipped: ${sshMissing}`);
  });
});

/** One engine under test, with the ways to look at its side from outside. */
interface Target {
  readonly name: "docker" | "ssh";
  /** A fresh engine value for it; `extra` for the timing options. */
  engine(extra?: { heartbeatMs?: number }): RemoteEngine;
  /** What the fixture harness needs to make the same engine. */
  readonly config: Record<string, unknown>;
  /** The ambient variable of that side a command keeps, and a credential-shaped one the scrub drops. */
  readonly kept: readonly [string, string];
  readonly secret: string;
  /** What runs on that side that the code under test started and left (its supervisors included). */
  ours(): { pid: number; comm: string }[];
  /** The local clients (`docker exec`, `ssh`) of this target still running, and which is a supervisor's. */
  clients(): { pid: number; supervisor: boolean }[];
  /** SIGKILLs what `ours()` and `clients()` list. */
  sweep(): void;
}

/**
 * Run after each test of an engine: what a test left running there (or a
 * local client) gets graceMs + 5 s to end by itself and is then killed, so
 * that the tests after it start clean and their own "nothing left" checks
 * are about themselves (in CI14 one failed test's tasks failed four later
 * ones). The error names what was left: Node's runner fails the test that
 * left it; Deno's reports nothing for an after-each hook, so there the
 * sweep only keeps the later tests clean.
 */
async function nothingLeftBy(target: Target): Promise<void> {
  const clean = () => target.ours().length === 0 && target.clients().length === 0;
  if (await eventually(clean, GRACE_MS + 5_000)) return;
  const left = JSON.stringify({ engine: target.ours(), clients: target.clients() });
  target.sweep();
  const swept = await eventually(clean, 5_000);
  throw new Error(`left running after the test, ${swept ? "now killed" : "and could not be killed"}: ${left}`);
}

/** SIGKILLs local `pids`, those already gone aside. */
function killLocal(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      if ((error as { code?: string }).code !== "ESRCH") throw error;
    }
  }
}

/**
 * Gives the tests of the calling `describe` a temporary directory of their
 * own (`TMPDIR`, which the SSH engine and the fixture harnesses read), so
 * that "no control directory is left" counts this run's directories only,
 * not those of another clone running the suite beside it. Restored after:
 * Deno runs every test file in one process.
 */
function ownTmpdir(): void {
  let saved: string | undefined;
  let dir: string | undefined;
  before(() => {
    saved = process.env.TMPDIR;
    dir = mkdtempSync(join(tmpdir(), "dsh-engines-tmp-"));
    // Passable, not listable: the SSH tests' user writes into directories made here (0777, names unguessable).
    chmodSync(dir, 0o711);
    process.env.TMPDIR = dir;
  });
  after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
}

/** The SSH engine's control directories now in this run's temporary directory. */
function controlDirectories(): Set<string> {
  return new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("dsh-ssh-") && !name.includes("home")));
}

/** Those of `now` that were not in `before`. */
function added(before: Set<string>, now: Set<string>): string[] {
  return [...now].filter((name) => !before.has(name));
}

/** A fresh unique marker value. */
function newMark(): string {
  return `m${process.pid}-${randomBytes(6).toString("hex")}`;
}

/** The local processes (not zombies) whose argv satisfies `matches`. */
function localProcesses(matches: (argv: string[]) => boolean): { pid: number; argv: string[] }[] {
  const found: { pid: number; argv: string[] }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (/^[ZXx]/.test(stat.slice(stat.lastIndexOf(")") + 2))) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").slice(0, -1);
      if (matches(argv)) found.push({ pid: Number(entry), argv });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/** Everything `task` prints on stdout until `pattern` has shown; throws if it ends first. */
async function readUntil(task: ShellTask, pattern: RegExp): Promise<string> {
  let seen = "";
  while (!pattern.test(seen)) {
    const why = await task.waitForOutput({ timeoutMs: 20_000 });
    const output = task.read();
    seen += output.stdout;
    if (why !== "output" && !pattern.test(seen)) {
      throw new Error(`the task ${why} before printing ${pattern}: ${JSON.stringify(output)}`);
    }
  }
  return seen;
}

/** `env` output as a map (values without newlines). */
function envOf(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split("\n")) {
    const equals = line.indexOf("=");
    if (equals > 0) map.set(line.slice(0, equals), line.slice(equals + 1));
  }
  return map;
}

/** A shell on `target` with the options every test here uses. */
function shellOn(target: Target, extra?: { heartbeatMs?: number }): Shell {
  return createShell(target.engine(extra), { workdir: "/tmp", shell: "sh", graceMs: GRACE_MS, timeoutMs: 30_000 });
}

/** The fixture harness on `target` (see tests/fixtures/engine_host.ts), as it runs. */
interface Harness {
  /** Resolves once it has written that its work is up (false: it did not within 30 s). */
  readonly up: Promise<boolean>;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** What it wrote on stderr so far. */
  stderr(): string;
  kill(): void;
}

/** Starts the fixture harness on `target`, ending the way `how` says. */
function runHarness(target: Target, mark: string, how: "sigkill" | "sigkill-tty" | "close" | "forget"): Harness {
  const dir = mkdtempSync(join(tmpdir(), "dsh-engine-host-"));
  const ready = join(dir, "ready");
  const file = fileURLToPath(new URL(`./fixtures/engine_host.${IS_DENO ? "ts" : "js"}`, import.meta.url));
  const args = [target.name, JSON.stringify(target.config), ready, mark, how];
  const child = spawn(process.execPath, scriptArgs(file, args), { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => stderr += chunk);
  const exited = exitOf(child);
  // The harness says it is up by writing a file: there is no event to wait on across processes.
  const up = Promise.race([appeared(ready, 30_000), exited.then(() => appeared(ready, 0))]);
  exited.then(() => rmSync(dir, { recursive: true, force: true }));
  return { up, exited, stderr: () => stderr, kill: () => child.kill("SIGKILL") };
}

/**
 * Shell code that sets `n` to its wrapper's nonce, read out of the
 * wrapper's memory the way a hostile command of the same user can (no Yama
 * here): every writable mapping of `/proc/$PPID/mem`, searched for
 * `dsh-` and 24 hex digits. Busybox's sh, dd and grep do it.
 */
const NONCE_FROM_WRAPPER = `n=
while read -r r m x; do
  case $m in rw*) ;; *) continue ;; esac
  s=$((0x\${r%-*})) e=$((0x\${r#*-}))
  n=$(dd if=/proc/$PPID/mem bs=4096 skip=$((s / 4096)) count=$(((e - s) / 4096)) 2>/dev/null |
    grep -ao 'dsh-[0-9a-f]\\{24\\}' | head -n 1)
  [ -n "$n" ] && break
done < /proc/$PPID/maps`;

/** The checks every engine must pass. */
function engineSuite(target: () => Target): void {
  it("a session carries the directory and the exported variables; a killed command changes nothing", async () => {
    await using shell = shellOn(target());
    const session = shell.session({ owner: "agent-1", env: { SEED: "s" } });
    const dir = `/tmp/dsh-session-${newMark()}`;
    await session.exec(`mkdir -p ${dir}/sub && cd ${dir}/sub && export MODE=remote; unset HOME; exit 4`);
    assert.equal(session.cwd, `${dir}/sub`);
    assert.deepEqual(session.env, { SEED: "s", MODE: "remote", HOME: undefined });
    const next = await session.exec('pwd; echo "$MODE $SEED ${HOME-unset}"');
    assert.equal(next.stdout.text, `${dir}/sub\nremote s unset\n`);
    const killed = await session.exec("cd /; export MODE=killed; sleep 30", { timeoutMs: 500 });
    assert.equal(killed.timedOut, true);
    assert.equal(session.cwd, `${dir}/sub`);
    assert.equal(session.env.MODE, "remote");
    // On a terminal there too.
    const onTty = await session.exec(`cd ${dir} && export ON_TTY=1; [ -t 0 ] && echo tty`, { tty: true });
    assert.equal(onTty.stdout.text, "tty\r\n");
    assert.equal(session.cwd, dir);
    assert.deepEqual(session.env, { SEED: "s", MODE: "remote", HOME: undefined, ON_TTY: "1" });
    await session.exec(`cd /tmp && rm -rf ${dir}`);
    assert.equal(session.cwd, "/tmp");
  });

  it("a session's state is hex on one line: a writer appending to fd 9 never forges a supervisor line", async () => {
    await using shell = shellOn(target());
    // Owner B's task lives across A's state: it answers once the test writes to it.
    const other = shell.start(shell.resolve({ command: 'read -r x; echo "b $x"', owner: "b", keepStdin: true }));
    const session = shell.session({ owner: "a" });
    // On 7888e55 the supervisor's wc -c, then cat, passed what the writer appended in between as its own lines:
    // the forged `dsh-sup fail` ended the link for every owner, with the attacker's text as the error.
    const forged = "\\ndsh-sup fail forged by the command\\n";
    // The writers write until the test is done: while the supervisor reads the state, whenever that is.
    const stop = `/tmp/dsh-stop-${newMark()}`;
    try {
      for (let round = 0; round < 3; round++) {
        const result = await session.exec(
          `(while [ ! -e ${stop} ]; do printf '${forged}' >&9 || exit; done) >/dev/null 2>&1 & export ROUND=${round}`,
        );
        assert.equal(result.exitCode, 0, result.stderr.text);
      }
      assert.equal((await shell.exec("echo alive", { owner: "c" })).stdout.text, "alive\n");
    } finally {
      await shell.exec(`touch ${stop}`).catch(() => {});
    }
    await other.write("go\n");
    const done = await other.done;
    assert.equal(done.exitCode, 0);
    assert.equal(other.read().stdout, "b go\n");
    await session.close();
    await shell.exec(`rm -f ${stop}`);
  });

  it("a session's state over maxSessionStateBytes is refused by name; the link and other owners' work go on", async () => {
    await using shell = createShell(target().engine(), {
      workdir: "/tmp",
      shell: "sh",
      graceMs: GRACE_MS,
      timeoutMs: 30_000,
      maxSessionStateBytes: 64 * 1024,
    });
    const other = shell.start(shell.resolve({ command: 'read -r x; echo "b $x"', owner: "b", keepStdin: true }));
    const session = shell.session({ owner: "a" });
    await session.exec("export KEEP=1");
    // On 7888e55 no size was checked, and a 48 MiB state stalled the host and ended owner B's task.
    const big = await session.exec(
      "for i in 1 2 3 4 5; do export BIG$i=$(head -c 20000 /dev/zero | tr '\\0' x); done; cd /",
    );
    assert.equal(big.exitCode, 0, big.stderr.text);
    assert.match(
      big.sessionNote ?? "",
      /^session state refused: it is larger than maxSessionStateBytes \(65536 bytes\)$/,
    );
    assert.deepEqual(session.env, { KEEP: "1" });
    assert.equal(session.cwd, "/tmp");
    // A FIFO put in the state file's place (its path is fd 9's) is refused, never waited on.
    const fifo = await session.exec(
      'f=$(readlink /proc/$$/fd/9); trap "" EXIT; rm -f "$f"; mkfifo "$f"; export EVIL=1',
    );
    assert.match(fifo.sessionNote ?? "", /no regular file/);
    const fits = await session.exec("export FITS=$(head -c 30000 /dev/zero | tr '\\0' y)");
    assert.equal(fits.sessionNote, undefined);
    const env: Readonly<Record<string, string | undefined>> = session.env;
    assert.equal(env.FITS?.length, 30000);
    await other.write("go\n");
    assert.equal((await other.done).exitCode, 0);
    assert.equal(other.read().stdout, "b go\n");
    await session.close();
  });

  it("runs a command line with its stdin, and reports its exit code, 255 included", async () => {
    await using shell = shellOn(target());
    const input = randomBytes(256 * 1024);
    const piped = await shell.exec("cat; echo err >&2; exit 3", { stdin: input });
    assert.equal(piped.exitCode, 3);
    assert.equal(piped.signal, null);
    assert.equal(piped.stderr.text, "err\n");
    assert.equal(piped.stdout.totalBytes, input.length);
    const counted = await shell.exec("cat | wc -c", { stdin: input });
    assert.equal(counted.stdout.text.trim(), String(input.length));
    const hashed = await shell.exec("sha256sum", { stdin: input });
    assert.equal(hashed.stdout.text.split(" ")[0], sha256(input));
    // No stdin: end of file at once, as locally.
    assert.equal((await shell.exec("cat; echo done")).stdout.text, "done\n");
    // ssh exits 255 for its own failures and docker 125–127: a command's own code is its code, never an error.
    for (const code of [0, 1, 125, 126, 127, 255]) {
      const result = await shell.exec(`exit ${code}`);
      assert.deepEqual([result.exitCode, result.signal, result.timedOut], [code, null, false], `exit ${code}`);
    }
    const missing = await shell.exec("no-such-command-here");
    assert.equal(missing.exitCode, 127);
    assert.match(missing.stderr.text, /no-such-command-here/);
  });

  it("runs a command on a terminal there: [ -t 0 ], its size, a prompt answered, Ctrl-C, resize, closeStdin()", async () => {
    await using shell = shellOn(target());
    const sized = await shell.exec(
      '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo tty; stty size; echo "$TERM"; echo err >&2',
      {
        tty: { columns: 101, rows: 33 },
      },
    );
    assert.equal(sized.exitCode, 0, sized.stdout.text);
    assert.equal(sized.stdout.text, "tty\r\n33 101\r\nxterm-256color\r\nerr\r\n");
    assert.equal(sized.stderr.text, "");
    // run(): stdin typed once the terminal is the command's, then the end-of-file character.
    const typed = await shell.exec('read -r line; echo "got $line"; cat; echo end', {
      tty: true,
      stdin: "first\n",
      timeoutMs: 10_000,
    });
    assert.equal(typed.timedOut, false);
    // How it ended says where a missing last line went (a race seen once in a pair run, issue 35).
    assert.match(
      typed.stdout.text,
      /got first\r\nend\r\n$/,
      `${JSON.stringify(typed.stdout.text)}: exit ${typed.exitCode}, signal ${typed.signal}`,
    );
    const prompt = shell.start(shell.resolve({
      command: 'printf "name? "; read -r name; echo "hi $name"',
      owner: "agent",
      tty: true,
    }));
    await readUntil(prompt, /name\? $/);
    await prompt.write("ada\r");
    assert.equal((await prompt.done).exitCode, 0);
    assert.match(prompt.read().stdout, /hi ada\r\n$/);
    // Ctrl-C ends the foreground sleep, and the shell's trap goes on.
    const looping = shell.start(shell.resolve({
      command: "trap 'echo interrupted; exit 0' INT; trap 'echo winch $(stty size)' WINCH; echo ready; " +
        "while :; do sleep 1; done",
      owner: "agent",
      tty: { columns: 90, rows: 30 },
    }));
    await readUntil(looping, /ready/);
    looping.resize(132, 43);
    await readUntil(looping, /winch 43 132/);
    await looping.write("\x03");
    const interrupted = await looping.done;
    assert.equal(interrupted.exitCode, 0);
    assert.equal(looping.status, "completed");
    const cat = shell.start(shell.resolve({ command: "cat; echo cat-done", owner: "agent", tty: true }));
    await cat.write("line\r");
    await readUntil(cat, /line\r\nline\r\n/);
    cat.closeStdin();
    assert.equal((await cat.done).exitCode, 0);
    assert.match(cat.read().stdout, /cat-done\r\n$/);
  });

  it("a terminal's command there: kill(), a timeout and close() end its whole tree, setsid inside included", async () => {
    await using shell = shellOn(target());
    const [markK, markT, markC, markL] = [newMark(), newMark(), newMark(), newMark()];
    // A child that has left the session: it has exec'd sleep, so it has called setsid.
    const escaped = 'setsid sleep 302 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do :; done';
    const tree = `${escaped}; sleep 300 & sleep 301 & echo up; wait`;
    const killed = shell.start(shell.resolve({ command: tree, owner: "a", tty: true, env: { [MARK]: markK } }));
    const closed = shell.start(shell.resolve({ command: tree, owner: "a", tty: true, env: { [MARK]: markC } }));
    // Its leader exits by itself and leaves the setsid child: close() ends it too.
    const left = shell.start(
      shell.resolve({ command: `${escaped}; echo up`, owner: "a", tty: true, env: { [MARK]: markL } }),
    );
    await readUntil(killed, /up/);
    await readUntil(closed, /up/);
    const leftResult = await left.done;
    // Its status, its spawnError and what the shell said on its stderr (an engine error goes there), should it not be 0.
    assert.equal(
      leftResult.exitCode,
      0,
      JSON.stringify({ status: left.status, error: String(left.spawnError), result: leftResult }),
    );
    assert.equal(runningWithEnv(MARK, markL).length, 1, "the setsid child outlives its leader");
    assert.ok(
      await eventually(() => runningWithEnv(MARK, markK).length >= 3 && runningWithEnv(MARK, markC).length >= 3, 5_000),
      "both trees run",
    );
    assert.equal(killed.kill(), true);
    await killed.done;
    assert.equal(killed.status, "killed");
    assert.ok(await eventually(() => runningWithEnv(MARK, markK).length === 0, GRACE_MS + 5_000), "kill() left some");
    const timed = await shell.exec(tree, { tty: true, env: { [MARK]: markT }, timeoutMs: 1_000 });
    assert.equal(timed.timedOut, true);
    assert.match(timed.stdout.text, /up\r\n/);
    assert.ok(
      await eventually(() => runningWithEnv(MARK, markT).length === 0, GRACE_MS + 5_000),
      "the timeout left some",
    );
    await shell.close();
    assert.deepEqual(runningWithEnv(MARK, markC), []);
    assert.deepEqual(runningWithEnv(MARK, markL), []);
    assert.equal(closed.status, "killed");
  });

  it("keeps a task's stdin open (keepStdin): cat echoes each write, closeStdin() ends it", async () => {
    await using shell = shellOn(target());
    const task = shell.start(shell.resolve({ command: "cat", owner: "agent", keepStdin: true, stdin: "first\n" }));
    // Written before the command has started on the engine: queued, and handed over in order once it has.
    await task.write("second\n");
    assert.equal(await readUntil(task, /second\n/), "first\nsecond\n");
    await task.write(new TextEncoder().encode("third\n"));
    assert.equal(await readUntil(task, /third\n/), "third\n");
    assert.equal(task.status, "running", "cat waits for more");
    task.closeStdin();
    const result = await task.done;
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, "first\nsecond\nthird\n");
    await assert.rejects(task.write("late"), TaskAccessError);
  });

  it("runs the argv form with each argument exactly as given", async () => {
    await using shell = shellOn(target());
    const args = ["%s|", "a b", "$HOME", "'q'", "", "x\ny", "*", "--"];
    const result = await shell.exec("printf", { args });
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, args.slice(1).map((arg) => `${arg}|`).join(""));
    const missing = await rejection(shell.exec("no-such-program", { args: [] }));
    assert.ok(missing instanceof ShellSpawnError, String(missing));
    assert.match(missing.message, /no-such-program/);
  });

  it("gives a command the engine's environment, scrubbed; nothing of the harness's crosses", async () => {
    const harnessOnly = `harness-${newMark()}`;
    process.env.DSH_ENGINE_TEST_HARNESS = harnessOnly;
    try {
      await using shell = shellOn(target());
      const value = "two\nlines 'quoted' \"dq\" $HOME `x` \\ é";
      const result = await shell.exec("env; printf '\\n--\\n%s' \"$EXPLICIT\"", {
        env: { EXPLICIT: value, PAGER: "less" },
        dshEnv: { DSH_TASK_ID: "t-1" },
      });
      assert.equal(result.exitCode, 0, result.stderr.text);
      const env = envOf(result.stdout.text);
      const [keptName, keptValue] = target().kept;
      assert.equal(env.get(keptName), keptValue, "the engine's own variable reaches the command");
      assert.equal(env.has(target().secret), false, "the engine's credential-shaped variable is scrubbed");
      assert.equal(env.has("DSH_ENGINE_TEST_HARNESS"), false, "nothing of the harness's environment crosses");
      assert.ok(!result.stdout.text.includes(harnessOnly));
      assert.equal(env.get("PAGER"), "less", "env beats the overrides");
      assert.equal(env.get("GIT_PAGER"), "cat", "the overrides apply");
      assert.equal(env.get("DSH_TASK_ID"), "t-1", "dshEnv applies");
      assert.equal(result.stdout.text.slice(result.stdout.text.lastIndexOf("\n--\n") + 4), value, "byte for byte");
      assert.equal(env.get("PWD"), "/tmp");
    } finally {
      delete process.env.DSH_ENGINE_TEST_HARNESS;
    }
  });

  it("refuses an explicit variable no shell can pass, naming it", async () => {
    await using shell = shellOn(target());
    const error = await rejection(shell.exec("true", { env: { "A-B": "1" } }));
    assertSpecError(error, 'env["A-B"]');
  });

  it("a timeout ends the whole tree on the engine's side, SIGTERM-trapping children included", async () => {
    await using shell = shellOn(target());
    const mark = newMark();
    let upAt: number[] | undefined;
    const tree = "sh -c 'trap \"\" TERM; sleep 300' & (trap '' TERM; while :; do sleep 1; done) & " +
      "sleep 301 & echo up; wait";
    let seen = "";
    const started = performance.now();
    const result = await shell.exec(tree, {
      timeoutMs: 2_000,
      env: { [MARK]: mark },
      onStdout: (chunk) => {
        seen += new TextDecoder().decode(chunk);
        if (upAt === undefined && seen.includes("up")) upAt = runningWithEnv(MARK, mark);
      },
    });
    assert.ok(upAt !== undefined && upAt.length >= 4, `the tree was up before the timeout: ${upAt}`);
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.ok(result.signal === "SIGTERM" || result.signal === "SIGKILL", String(result.signal));
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0, GRACE_MS + 5_000),
      `left running: ${runningWithEnv(MARK, mark)}`,
    );
    assert.ok(performance.now() - started < 2_000 + GRACE_MS + 5_000);
  });

  it("tasks: output, kill(), owners, a survivor, and close() ends everything it started there", async () => {
    // Closed at the end also when an assertion fails: what it left would fail the later tests' "nothing left" checks.
    await using shell = shellOn(target());
    const [markA, markB, markS] = [newMark(), newMark(), newMark()];
    const tree = "trap '' TERM; sleep 300 & (trap '' TERM; sleep 301) & echo up; wait";
    const a = shell.start(shell.resolve({ command: tree, owner: "a", env: { [MARK]: markA } }));
    const b = shell.start(shell.resolve({ command: tree, owner: "b", env: { [MARK]: markB } }));
    await readUntil(a, /up\n/);
    await readUntil(b, /up\n/);
    // The pid comes on the wrapper's stderr frames and the output on stdout: two pipes, so "up" can be read before
    // the pid is known (it is 0 until then, as documented).
    assert.ok(await eventually(() => a.pid > 0 && b.pid > 0, 5_000), `remote pids ${a.pid} ${b.pid}`);
    assert.notEqual(a.pid, b.pid);
    assert.deepEqual(shell.tasks("a"), [a]);
    // Read from this machine's /proc while the engine's side may still be starting them: waited for, not assumed.
    assert.ok(await eventually(() => runningWithEnv(MARK, markA).length >= 3, 5_000), "the task's tree runs");
    const survivor = await shell.exec("sleep 303 & echo left", { env: { [MARK]: markS } });
    assert.equal(survivor.exitCode, 0);
    assert.equal(runningWithEnv(MARK, markS).length, 1, "the survivor runs on");

    assert.equal(a.kill(), true);
    const ended = await a.done;
    assert.equal(a.status, "killed");
    assert.equal(ended.aborted, true);
    assert.ok(
      await eventually(() => runningWithEnv(MARK, markA).length === 0, GRACE_MS + 5_000),
      "kill() ends the task's whole tree",
    );
    assert.equal(b.status, "running");
    assert.ok(runningWithEnv(MARK, markB).length >= 3);

    const dirs = controlDirectories();
    await shell.close();
    // close() resolves once what it ended is gone: no waiting here.
    assert.deepEqual(runningWithEnv(MARK, markB), []);
    assert.deepEqual(runningWithEnv(MARK, markS), []);
    assert.equal(b.status, "killed");
    assert.ok(controlDirectories().size <= dirs.size - (target().name === "ssh" ? 1 : 0), "its control directory went");
    assert.ok(
      await eventually(() => target().ours().length === 0, 5_000),
      `left on the engine's side: ${JSON.stringify(target().ours())}`,
    );
    assert.ok(
      await eventually(() => target().clients().length === 0, 5_000),
      `local clients left: ${JSON.stringify(target().clients())}`,
    );
  });

  for (const how of ["sigkill", "sigkill-tty"] as const) {
    const what = how === "sigkill" ? "tasks" : "terminal tasks (setsid inside)";
    it(`the harness SIGKILLed with ${what} running: everything it started there ends within graceMs + 5 s`, async () => {
      await harnessKilled(how);
    });
  }

  async function harnessKilled(how: "sigkill" | "sigkill-tty"): Promise<void> {
    const mark = newMark();
    const harness = runHarness(target(), mark, how);
    try {
      assert.equal(await harness.up, true, `the harness did not come up: ${harness.stderr()}`);
      assert.ok(runningWithEnv(MARK, mark).length >= (how === "sigkill" ? 7 : 9), "two trees and a survivor run");
    } finally {
      harness.kill();
    }
    assert.deepEqual(await harness.exited, { code: null, signal: "SIGKILL" });
    const killedAt = performance.now();
    // The fixture's grace is 1 000 ms.
    const budget = 1_000 + 5_000;
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0 && target().ours().length === 0, budget),
      `left on the engine's side: ${JSON.stringify(target().ours())}`,
    );
    const took = performance.now() - killedAt;
    assert.ok(took < budget, `took ${took} ms`);
    assert.ok(
      await eventually(() => target().clients().length === 0, 5_000),
      `local clients left: ${JSON.stringify(target().clients())}`,
    );
  }

  it("a harness whose last act is close() ends by itself, exit code 0, with nothing left there", async () => {
    const mark = newMark();
    const dirs = controlDirectories();
    const harness = runHarness(target(), mark, "close");
    assert.deepEqual(await harness.exited, { code: 0, signal: null }, harness.stderr());
    assert.equal(await harness.up, true);
    // close() had ended everything before the harness exited: no waiting here.
    assert.deepEqual(runningWithEnv(MARK, mark), []);
    assert.deepEqual(target().ours(), []);
    assert.deepEqual(added(dirs, controlDirectories()), [], "no control directory is left here");
  });

  it("a harness that forgets close() still ends, and the engine's side ends what it left", async () => {
    const mark = newMark();
    const dirs = controlDirectories();
    const harness = runHarness(target(), mark, "forget");
    assert.deepEqual(await harness.exited, { code: 0, signal: null }, harness.stderr());
    assert.equal(await harness.up, true);
    assert.deepEqual(added(dirs, controlDirectories()), [], "no control directory is left here");
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0 && target().ours().length === 0, 1_000 + 5_000),
      `left on the engine's side: ${JSON.stringify(target().ours())}`,
    );
  });

  it("a dropped connection: the engine's side ends the shell's commands; the command fails with ShellEngineError", async () => {
    await using shell = shellOn(target());
    const mark = newMark();
    const task = shell.start(
      shell.resolve({ command: "trap '' TERM; sleep 300 & echo up; wait", owner: null, env: { [MARK]: mark } }),
    );
    await readUntil(task, /up\n/);
    const supervisors = target().clients().filter((client) => client.supervisor);
    assert.equal(supervisors.length, 1, "one connection per shell");
    // SIGKILL of the supervisor's client: for ssh that is the connection itself (the control master).
    process.kill(supervisors[0].pid, "SIGKILL");
    const lostAt = performance.now();
    await task.done;
    assert.equal(task.status, "killed");
    assert.ok(task.spawnError instanceof ShellEngineError, String(task.spawnError));
    assert.equal(task.spawnError.name, "ShellEngineError");
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0, GRACE_MS + 5_000),
      "the engine's side noticed and ended the command",
    );
    assert.ok(performance.now() - lostAt < GRACE_MS + 5_000);
    // The shell connects again for the next command.
    assert.equal((await shell.exec("echo again")).stdout.text, "again\n");
  });

  it("a link gone silent: the heartbeat stops, and the engine's side ends the shell's commands", async () => {
    await using shell = shellOn(target(), { heartbeatMs: 2_000 });
    const mark = newMark();
    const task = shell.start(
      shell.resolve({ command: "trap '' TERM; sleep 300 & echo up; wait", owner: null, env: { [MARK]: mark } }),
    );
    await readUntil(task, /up\n/);
    const [supervisor] = target().clients().filter((client) => client.supervisor);
    // A frozen client: its connection stays open, nothing flows.
    process.kill(supervisor.pid, "SIGSTOP");
    const frozenAt = performance.now();
    try {
      // Silence is noticed after 2 to 3 s (heartbeatMs, checked every half of it), then the grace.
      assert.ok(
        await eventually(() => runningWithEnv(MARK, mark).length === 0, 3_000 + GRACE_MS + 5_000),
        "the engine's side ended the command",
      );
      assert.ok(performance.now() - frozenAt < 3_000 + GRACE_MS + 5_000);
      // This side notices the silence too: the task fails instead of hanging on a connection that says nothing.
      await task.done;
      assert.ok(task.spawnError instanceof ShellEngineError, String(task.spawnError));
      assert.match(task.spawnError.message, /silent|lost/);
    } finally {
      // The shell kills a silent connection's client itself; this is for when it did not.
      try {
        process.kill(supervisor.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });

  it("a command the engine's side ended by itself is never reported with the status its TERM trap chose", async () => {
    await using shell = shellOn(target());
    // Once running, the command sends its own shell's supervisor (the engine user's processes with the argument
    // dsh-sup) SIGTERM: it ends every session as when its stdin ends or the heartbeat stops, while the link is up.
    // The command's TERM trap then exits 0.
    const endSupervisor = 'for f in /proc/[0-9]*/cmdline; do [ -O "$f" ] || continue; ' +
      "if tr '\\0' '\\n' < \"$f\" 2>/dev/null | grep -qx dsh-sup; then p=${f#/proc/}; kill -TERM \"${p%/cmdline}\"; fi; done";
    const task = shell.start(
      shell.resolve({
        command: `trap 'exit 0' TERM; echo up; ${endSupervisor}; while :; do sleep 1; done`,
        owner: null,
      }),
    );
    await readUntil(task, /up\n/);
    await task.done;
    // It exited 0 from its trap, but the supervisor ended it: that is never the command's own status.
    assert.equal(task.exitCode, null);
    assert.ok(task.spawnError instanceof ShellEngineError, String(task.spawnError));
    assert.equal((await shell.exec("echo again")).stdout.text, "again\n");
  });

  it("the stderr of a command that imitates the wrapper's frames is the command's, byte for byte", async () => {
    await using shell = shellOn(target());
    const fake = "\ndsh-000000000000000000000000 x 0 kept\ndsh-0 s 1\nno newline at the end";
    const result = await shell.exec(`printf '%s' "$FAKE" >&2; exit 4`, { env: { FAKE: fake } });
    assert.equal(result.exitCode, 4);
    assert.equal(result.stderr.text, fake);
  });

  it("a command that reads its wrapper's nonce from /proc/$PPID/mem forges nothing: status, timeout, loss", async () => {
    await using shell = shellOn(target());
    const mark = newMark();
    const forging = (frame: string, rest: string): string =>
      `${NONCE_FROM_WRAPPER}\n[ -n "$n" ] || exit 99\nprintf '\\n%s ${frame}\\n' "$n" >&2; ${rest}`;
    // The attack works: the wrapper's nonce is in what the command printed, so it was read from its memory.
    const forged = /^\ndsh-[0-9a-f]{24} x 0 (kept|lost)\n/;
    const started = performance.now();
    const timed = await shell.exec(forging("x 0 kept", "sleep 30; exit 7"), {
      timeoutMs: 1_500,
      env: { [MARK]: mark },
    });
    assert.match(timed.stderr.text, forged);
    assert.deepEqual([timed.timedOut, timed.exitCode], [true, null], "the real timeout, not the forged end");
    assert.ok(timed.signal === "SIGTERM" || timed.signal === "SIGKILL", String(timed.signal));
    assert.ok(performance.now() - started >= 1_500, `ended after ${performance.now() - started} ms`);
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0, GRACE_MS + 5_000),
      `left running: ${runningWithEnv(MARK, mark)}`,
    );
    const code = await shell.exec(forging("x 0 kept", "exit 5"));
    assert.match(code.stderr.text, forged);
    assert.deepEqual([code.exitCode, code.signal, code.timedOut], [5, null, false], "the real exit code");
    // A forged "lost" is the command's stderr, never a ShellEngineError.
    const lost = await shell.exec(forging("x 0 lost", "exit 6"));
    assert.match(lost.stderr.text, forged);
    assert.deepEqual([lost.exitCode, lost.signal], [6, null]);
    // Nor is a forged start or refusal anything but bytes.
    const refusal = await shell.exec(forging("e cwd-missing", "exit 8"));
    assert.deepEqual([refusal.exitCode, refusal.stderr.text.slice(0, 5)], [8, "\ndsh-"]);
    // The connection is fine after all of it.
    assert.equal((await shell.exec("echo still")).stdout.text, "still\n");
  });

  it("a background process holding stdout and stderr: the status comes within graceMs, and it runs on", async () => {
    await using shell = shellOn(target());
    const mark = newMark();
    const result = await shell.exec("sleep 304 & echo out; echo err >&2; exit 3", { env: { [MARK]: mark } });
    assert.deepEqual([result.exitCode, result.stdout.text, result.stderr.text], [3, "out\n", "err\n"]);
    // The status came while the holder still runs: it did not wait for the pipes to close. (How soon is the bench's
    // business; a bound here failed at load 30, 2.9 s against 2.5.)
    assert.equal(runningWithEnv(MARK, mark).length, 1, "the background process runs on");
  });

  it("a missing workdir is the ShellSpawnError it is locally", async () => {
    await using shell = shellOn(target());
    const error = await rejection(shell.exec("true", { workdir: "/no/such/dir" }));
    assert.ok(error instanceof ShellSpawnError, String(error));
    assert.match(error.message, /\/no\/such\/dir/);
  });
}

describe("the Docker engine", { skip: !REQUIRED && dockerMissing }, () => {
  ownTmpdir();
  let docker: DockerDaemon;
  let container: string;
  let target: Target;
  before(async () => {
    docker = await DockerDaemon.start();
    container = docker.run(`dsh-engine-${process.pid}`, { FOO: "from-the-image", SECRET_TOKEN: "container-secret" });
    const config = { container, dockerHost: docker.host };
    target = {
      name: "docker",
      engine: (extra) => dockerEngine({ ...config, ...extra }),
      config,
      kept: ["FOO", "from-the-image"],
      secret: "SECRET_TOKEN",
      ours: () => docker.ours(container),
      clients: () =>
        localProcesses((argv) => argv.includes("exec") && argv.includes(container)).map(({ pid, argv }) => ({
          pid,
          supervisor: argv.includes("dsh-sup"),
        })),
      sweep: () => {
        const pids = docker.ours(container).map((proc) => String(proc.pid));
        if (pids.length > 0) docker.cli(["exec", container, "kill", "-9", ...pids]);
        killLocal(target.clients().map((client) => client.pid));
      },
    };
  });
  afterEach(() => nothingLeftBy(target));
  after(async () => {
    await docker?.stop();
  });

  engineSuite(() => target);

  it("a stopped container is a ShellEngineError, never an exit code; so is a missing one", async () => {
    const stopped = docker.run(`dsh-engine-stopped-${process.pid}`);
    assert.equal(docker.cli(["stop", "-t", "0", stopped]).status, 0);
    await using shell = createShell(dockerEngine({ container: stopped, dockerHost: docker.host }), {
      workdir: "/tmp",
      shell: "sh",
    });
    const error = await rejection(shell.exec("true"));
    assert.ok(error instanceof ShellEngineError, String(error));
    assert.equal(error.name, "ShellEngineError");
    assert.equal(error.engine, "docker");
    assert.match(error.message, /^docker container dsh-engine-stopped-\d+: the container is not running/);
    const task = shell.start(shell.resolve({ command: "true", owner: null }));
    await task.done;
    assert.equal(task.status, "killed");
    assert.ok(task.spawnError instanceof ShellEngineError);

    await using nowhere = createShell(dockerEngine({ container: "no-such-container", dockerHost: docker.host }), {
      workdir: "/tmp",
    });
    const missing = await rejection(nowhere.exec("true"));
    assert.ok(missing instanceof ShellEngineError, String(missing));
    assert.match(missing.message, /no such container/);
  });

  it("a container stopped while a command runs: the command fails with ShellEngineError", async () => {
    const doomed = docker.run(`dsh-engine-doomed-${process.pid}`);
    await using shell = createShell(dockerEngine({ container: doomed, dockerHost: docker.host }), {
      workdir: "/tmp",
      shell: "sh",
    });
    const task = shell.start(shell.resolve({ command: "echo up; sleep 300", owner: null }));
    await readUntil(task, /up\n/);
    assert.equal(docker.cli(["kill", doomed]).status, 0);
    await task.done;
    assert.equal(task.status, "killed");
    assert.ok(task.spawnError instanceof ShellEngineError, String(task.spawnError));
    assert.equal(task.exitCode, null);
    const next = await rejection(shell.exec("true"));
    assert.ok(next instanceof ShellEngineError, String(next));
    assert.match(next.message, /not running/);
  });

  it("env values never appear in any argv, here or in the container", async () => {
    await using shell = shellOn(target);
    const secret = `value-${newMark()}`;
    const task = shell.start(shell.resolve({ command: "echo up; sleep 300", owner: null, env: { GIVEN: secret } }));
    await readUntil(task, /up\n/);
    // The container's processes are this kernel's too: one /proc shows both sides.
    assert.deepEqual(localProcesses((argv) => argv.some((arg) => arg.includes(secret))), []);
    task.kill();
    await task.done;
  });
});

describe(
  "the Docker engine, with a daemon slow to answer docker's own resize",
  { skip: !REQUIRED && dockerMissing },
  () => {
    ownTmpdir();
    let docker: DockerDaemon;
    let container: string;
    let proxy: SlowResizeProxy;
    before(async () => {
      docker = await DockerDaemon.start();
      container = docker.run(`dsh-engine-slow-${process.pid}`);
      proxy = await SlowResizeProxy.start(docker.host.slice("unix://".length), join(docker.dir, "slow.sock"));
    });
    after(async () => {
      proxy?.close();
      await docker?.stop();
    });

    it("a resize is the size the program ends with: nothing the client sent before it can land after it", async () => {
      // CI once saw no SIGWINCH for the new size: docker's CLI sends the size it starts with, and listens for SIGWINCH
      // only once the daemon has answered that; a loaded daemon answered late and undid the resize made meanwhile.
      await using shell = createShell(dockerEngine({ container, dockerHost: proxy.host }), {
        workdir: "/tmp",
        shell: "sh",
        graceMs: GRACE_MS,
      });
      const task = shell.start(shell.resolve({
        command: "trap 'echo winch $(stty size)' WINCH; echo ready; while :; do sleep 0.1; done",
        owner: "agent",
        tty: { columns: 90, rows: 30 },
      }));
      await readUntil(task, /ready/);
      task.resize(132, 43);
      await readUntil(task, /winch 43 132\r\n/);
      // Whatever the client asked of the daemon until now lands now, late (the daemon has applied it once answered).
      await proxy.releaseAll();
      // The size of the command's terminal, read from outside the code under test.
      const terminal = docker.cli(["exec", container, "readlink", `/proc/${task.pid}/fd/0`]).stdout.trim();
      assert.match(terminal, /^\/dev\/pts\/\d+$/);
      assert.equal(docker.cli(["exec", container, "stty", "-F", terminal, "size"]).stdout.trim(), "43 132");
      task.kill();
      await task.done;
      // Resized the moment start() returned, long before the command runs: it starts at that size, and keeps it.
      const early = shell.start(shell.resolve({ command: "stty size; sleep 300", owner: "agent", tty: true }));
      early.resize(100, 40);
      assert.equal(await readUntil(early, /\r\n/), "40 100\r\n");
      await proxy.releaseAll();
      const earlyTerminal = docker.cli(["exec", container, "readlink", `/proc/${early.pid}/fd/0`]).stdout.trim();
      assert.equal(docker.cli(["exec", container, "stty", "-F", earlyTerminal, "size"]).stdout.trim(), "40 100");
      early.kill();
      await early.done;
    });
  },
);

describe("the SSH engine", { skip: !REQUIRED && sshMissing }, () => {
  ownTmpdir();
  let sshd: SshDaemon;
  let target: Target;
  before(async () => {
    sshd = await SshDaemon.start();
    const config = {
      host: "127.0.0.1",
      port: sshd.port,
      user: SSH_USER,
      identityFile: sshd.identityFile,
      knownHostsFile: sshd.knownHostsFile,
    };
    const port = String(sshd.port);
    target = {
      name: "ssh",
      engine: (extra) => sshEngine({ ...config, ...extra }),
      config,
      kept: ["ENGINE_LOGIN_MARKER", LOGIN_ENV.ENGINE_LOGIN_MARKER],
      secret: "ENGINE_LOGIN_TOKEN",
      ours: () => sshd.ours(),
      clients: () =>
        localProcesses((argv) => /(^|\/)ssh$/.test(argv[0] ?? "") && argv.includes(port)).map(({ pid, argv }) => ({
          pid,
          supervisor: argv.includes("ControlMaster=yes"),
        })),
      sweep: () => killLocal([...sshd.ours(), ...target.clients()].map((proc) => proc.pid)),
    };
  });
  afterEach(() => nothingLeftBy(target));
  after(async () => {
    await sshd?.stop();
  });

  engineSuite(() => target);

  it("answers a python3 prompt on the remote terminal through write() (the Docker image has no python3)", async () => {
    await using shell = shellOn(target);
    const task = shell.start(shell.resolve({
      command: `python3 -c 'x = input("name? "); print("hi", x)'`,
      owner: "agent",
      tty: true,
    }));
    await readUntil(task, /name\? $/);
    await task.write("bob\r");
    assert.equal((await task.done).exitCode, 0);
    assert.equal(task.read().stdout, "bob\r\nhi bob\r\n", "the terminal echoes what is typed, then the answer");
  });

  it("one connection per shell: every command is a session of it, with no handshake of its own", async () => {
    const before = sshd.logins();
    await using shell = shellOn(target);
    for (let i = 0; i < 5; i++) assert.equal((await shell.exec(`echo ${i}`)).stdout.text, `${i}\n`);
    await Promise.all([1, 2, 3].map((i) => shell.exec(`echo ${i}`)));
    assert.equal(sshd.logins() - before, 1);
  });

  it("a refused connection is a ShellEngineError, never ssh's exit code 255", async () => {
    const port = await freePort();
    await using shell = createShell(
      sshEngine({ host: "127.0.0.1", port, user: SSH_USER, identityFile: sshd.identityFile }),
      { workdir: "/tmp" },
    );
    const error = await rejection(shell.exec("true"));
    assert.ok(error instanceof ShellEngineError, String(error));
    assert.equal(error.name, "ShellEngineError");
    assert.equal(error.engine, "ssh");
    assert.equal(error.target, `${SSH_USER}@127.0.0.1:${port}`);
    assert.match(error.message, /connection refused/);
    const task = shell.start(shell.resolve({ command: "true", owner: null }));
    await task.done;
    assert.equal(task.status, "killed");
    assert.equal(task.exitCode, null);
    assert.ok(task.spawnError instanceof ShellEngineError);
  });

  it("a host key that does not match is a ShellEngineError, and nothing runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-known-"));
    try {
      const other = join(dir, "known_hosts");
      // Another server's key for this address: the client must refuse, never ask or learn.
      const key = readFileSync(sshd.identityFile + ".pub", "utf8").split(" ").slice(0, 2).join(" ");
      writeFileSync(other, `[127.0.0.1]:${sshd.port} ${key}\n`);
      const mark = newMark();
      await using shell = createShell(
        sshEngine({
          host: "127.0.0.1",
          port: sshd.port,
          user: SSH_USER,
          identityFile: sshd.identityFile,
          knownHostsFile: other,
        }),
        { workdir: "/tmp" },
      );
      const error = await rejection(shell.exec(`touch /tmp/${mark}`));
      assert.ok(error instanceof ShellEngineError, String(error));
      assert.match(error.message, /host key verification failed/);
      assert.deepEqual(readdirSync("/tmp").filter((name) => name === mark), []);
      assert.equal(readFileSync(other, "utf8").split("\n").length, 2, "the known hosts file is not changed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("no ssh configuration of the harness's user or system applies, and no variable of the harness is sent", async () => {
    const home = mkdtempSync(join(tmpdir(), "dsh-ssh-home-"));
    const touched = join(home, "touched");
    const saved = { HOME: process.env.HOME, LC_DSH_ENGINE_TEST: process.env.LC_DSH_ENGINE_TEST };
    try {
      // A user configuration that would run a local command, send a variable, and log in elsewhere.
      mkdirSync(join(home, ".ssh"), { mode: 0o700 });
      writeFileSync(
        join(home, ".ssh", "config"),
        `Host *\n  PermitLocalCommand yes\n  LocalCommand touch ${touched}\n  SendEnv LC_DSH_ENGINE_TEST\n` +
          "  User root\n",
      );
      process.env.HOME = home;
      // Debian's /etc/ssh/ssh_config sends LC_* and the test server accepts it: only -F none keeps it here.
      process.env.LC_DSH_ENGINE_TEST = "from-the-harness";
      await using shell = shellOn(target);
      const result = await shell.exec('echo "${LC_DSH_ENGINE_TEST:-not sent} $(id -un)"');
      assert.equal(result.stdout.text, `not sent ${SSH_USER}\n`);
      assert.equal(existsSync(touched), false, "no LocalCommand ran");
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("a command's client never makes a connection of its own: without the shell's connection it fails", async () => {
    const before = sshd.logins();
    const link = target.engine().connect();
    try {
      let stderr = "";
      const client = link.run(["true"], new Uint8Array(0), {
        onStdout: () => {},
        onStderr: (chunk) => stderr += new TextDecoder().decode(chunk),
      });
      const exit = await client.exited;
      assert.equal(exit.code, 255, stderr);
      assert.equal(sshd.logins(), before, "no unsupervised login");
    } finally {
      link.dispose();
    }
  });

  it("a command's own process groups are ended with it", async () => {
    await using shell = shellOn(target);
    const mark = newMark();
    // perl's setpgrp: a group of its own in the command's session (busybox in the container has no way to do it).
    const result = await shell.exec(
      'perl -e \'setpgrp(0, 0); $SIG{TERM} = "IGNORE"; $| = 1; print "up\\n"; sleep 300\' & wait',
      { env: { [MARK]: mark }, timeoutMs: 2_000 },
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.stdout.text, "up\n");
    assert.ok(
      await eventually(() => runningWithEnv(MARK, mark).length === 0, GRACE_MS + 5_000),
      `left running: ${runningWithEnv(MARK, mark)}`,
    );
  });

  it("floods of 150 MB on stderr, one after another: the link holds and another owner's task runs on", async () => {
    // A small spill file: twenty floods must not take a gigabyte of this machine's disk.
    const options = { workdir: "/tmp", shell: "sh", graceMs: GRACE_MS, timeoutMs: 60_000, maxSpillBytes: 1 << 20 };
    await using shell = createShell(target.engine(), options);
    const mark = newMark();
    const other = shell.start(shell.resolve({ command: "echo up; sleep 300", owner: "other", env: { [MARK]: mark } }));
    await readUntil(other, /up\n/);
    const flood = "head -c 150M /dev/zero | tr '\\0' '\\n' >&2; echo done";
    for (let i = 0; i < FLOODS; i++) {
      const result = await shell.exec(flood, { owner: "flood" });
      assert.deepEqual(
        [result.exitCode, result.stdout.text, result.stderr.totalBytes, result.stderr.truncated],
        [0, "done\n", 150 * 1024 * 1024, true],
        `flood ${i}`,
      );
      assert.ok(result.stderr.text.length <= 64_000 + 512, "what is kept is bounded: the default maxOutputBytes");
      assert.equal(other.status, "running", `the other owner's task after flood ${i}`);
      assert.ok(runningWithEnv(MARK, mark).length >= 1, `its process on the host after flood ${i}`);
    }
    other.kill();
    await other.done;
  });

  it("a terminal's client starts on a raw terminal: the wrapper's first line is read however late the client goes raw", async () => {
    // The client makes its terminal raw only once its session is open; under load the wrapper's first line came
    // before that, through a cooked terminal, as "<nonce> s <sid>\r\r\n", and a command that exited 0 was an engine
    // error ("unexpected answer"). The terminal must already be raw when the client starts: a client that records it.
    const dir = mkdtempSync(join(tmpdir(), "dsh-engine-raw-"));
    try {
      const seen = join(dir, "stty");
      const client = join(dir, "ssh");
      writeFileSync(
        client,
        `#!/bin/sh\ncase " $* " in *" -tt "*) stty -a > '${seen}' ;; esac\nexec ssh "$@"\n`,
        { mode: 0o755 },
      );
      await using shell = createShell(
        sshEngine({
          host: "127.0.0.1",
          port: sshd.port,
          user: SSH_USER,
          identityFile: sshd.identityFile,
          knownHostsFile: sshd.knownHostsFile,
          ssh: client,
        }),
        {
          workdir: "/tmp",
          shell: "sh",
          graceMs: GRACE_MS,
          timeoutMs: 30_000,
        },
      );
      const result = await shell.exec("echo up", { tty: true });
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "up\r\n");
      const settings = readFileSync(seen, "utf8").split(/[\s;]+/);
      for (const flag of ["-icanon", "-echo", "-isig", "-icrnl", "-opost"]) {
        assert.ok(settings.includes(flag), `the client's terminal has ${flag} from its start: ${settings.join(" ")}`);
      }
      assert.ok(settings.includes("rows") && settings[settings.indexOf("rows") + 1] === "0", "and is 0 × 0");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** An SSH engine on `daemon`, counting the refusals for want of a session that the seam asks it about. */
  function countingRefusals(daemon: SshDaemon): { engine: RemoteEngine; refusals: () => number } {
    let refusals = 0;
    const engine = sshEngine({
      host: "127.0.0.1",
      port: daemon.port,
      user: SSH_USER,
      identityFile: daemon.identityFile,
      knownHostsFile: daemon.knownHostsFile,
    });
    const connect = (): EngineLink => {
      const link = engine.connect();
      return {
        ...link,
        busy: (failure) => {
          const busy = link.busy?.(failure) ?? false;
          if (busy) refusals++;
          return busy;
        },
      };
    };
    return { engine: { ...engine, connect }, refusals: () => refusals };
  }

  it("a server's MaxSessions reached: a command waits for one of the shell's own to end, within its timeout", async () => {
    // Two sessions per connection: the supervisor's and one command's.
    const small = await SshDaemon.start(2);
    const dir = mkdtempSync(join(tmpdir(), "dsh-engine-queue-"));
    chmodSync(dir, 0o777);
    const [queuedMark, lateMark] = [join(dir, "queued"), join(dir, "late")];
    try {
      const { engine, refusals } = countingRefusals(small);
      await using shell = createShell(engine, { workdir: "/tmp", shell: "sh", graceMs: GRACE_MS });
      const task = shell.start(shell.resolve({ command: "echo up; sleep 300", owner: null }));
      await readUntil(task, /up\n/);
      const queued = shell.exec(`touch ${queuedMark}; echo queued`);
      assert.ok(await eventually(() => refusals() > 0, 10_000), "the server never refused the second session");
      // One that times out while it waits never runs, and says so as a timeout, not as an engine error.
      const late = await shell.exec(`touch ${lateMark}; echo late`, { timeoutMs: 1_500 });
      assert.deepEqual([late.timedOut, late.exitCode, late.stdout.text], [true, null, ""]);
      assert.equal(existsSync(queuedMark), false, "a command ran while the task held the only session");
      task.kill();
      await task.done;
      const result = await queued;
      assert.deepEqual([result.exitCode, result.stdout.text], [0, "queued\n"]);
      assert.equal(existsSync(queuedMark), true);
      assert.equal(existsSync(lateMark), false, "the command that timed out while it waited ran after all");
      // Each was refused once while the task held the session, and the first at most 7 times more while the server
      // let go of the freed one: waiters that woke each other at every refusal were refused some 70 times here.
      assert.ok(refusals() <= 9, `refused ${refusals()} times`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await small.stop();
    }
  });

  it("a server's MaxSessions reached with nothing of the shell's running: a ShellEngineError that says so", async () => {
    // One session per connection: the supervisor's. No command of the shell can ever free one.
    const tiny = await SshDaemon.start(1);
    try {
      const { engine, refusals } = countingRefusals(tiny);
      await using shell = createShell(engine, { workdir: "/tmp", shell: "sh", graceMs: GRACE_MS });
      const error = await rejection(shell.exec("true"));
      assert.ok(error instanceof ShellEngineError, String(error));
      assert.match(error.message, /MaxSessions/);
      assert.equal(refusals(), 1, "asked once, and not tried again");
    } finally {
      await tiny.stop();
    }
  });

  it("env values never appear in any argv, on either side", async () => {
    await using shell = shellOn(target);
    const secret = `value-${newMark()}`;
    const task = shell.start(shell.resolve({ command: "echo up; sleep 300", owner: null, env: { GIVEN: secret } }));
    await readUntil(task, /up\n/);
    assert.deepEqual(localProcesses((argv) => argv.some((arg) => arg.includes(secret))), []);
    task.kill();
    await task.done;
  });
});

describe("engines: options and errors that need no engine running", () => {
  ownTmpdir();
  it("createShell(localEngine()) is createLocalShell", async () => {
    await using shell = createShell(localEngine(), { timeoutMs: 5_000 });
    assert.equal((await shell.exec("echo $((6 * 7))")).stdout.text, "42\n");
  });

  it("a local shell's adapter option must be its engine's adapter: another one is refused, not left unused", async () => {
    const engine = localEngine();
    const other: ProcessAdapter = { ...engine.adapter };
    assertSpecError(thrown(() => createShell(engine, { adapter: other })), "adapter");
    assertSpecError(thrown(() => createShell(engine.adapter, { adapter: other })), "adapter");
    // What is no adapter at all is refused as that, before the comparison.
    const notOne = thrown(() => createShell(engine, { adapter: "node" as unknown as ProcessAdapter }));
    assertSpecError(notOne, "adapter");
    assert.match(String(notOne), /ProcessAdapter/);
    // The engine's own adapter, as createLocalShell passes it, is fine.
    await using shell = createShell(engine, { adapter: engine.adapter, timeoutMs: 5_000 });
    assert.equal((await shell.exec("echo same")).stdout.text, "same\n");
  });

  it("a remote engine needs an absolute workdir and refuses sandbox, adapter and ambientEnv", () => {
    const engine = dockerEngine({ container: "c" });
    assertSpecError(thrown(() => createShell(engine)), "workdir");
    assertSpecError(thrown(() => createShell(engine, { workdir: "relative" })), "workdir");
    assertSpecError(thrown(() => createShell(engine, { workdir: "/w", sandbox: {} })), "sandbox");
    assertSpecError(thrown(() => createShell(engine, { workdir: "/w", ambientEnv: {} })), "ambientEnv");
    assertSpecError(
      thrown(() => createShell(engine, { workdir: "/w", adapter: localEngine().adapter })),
      "adapter",
    );
    assertSpecError(thrown(() => createShell({} as RemoteEngine)), "engine");
  });

  it("engine options that could be read as client options are refused", () => {
    for (const container of ["-H", "--privileged", "", "a b", "a\nb"]) {
      assertSpecError(thrown(() => dockerEngine({ container })), "container");
    }
    for (const host of ["-oProxyCommand=touch /tmp/x", "a b", "u@h", ""]) {
      assertSpecError(thrown(() => sshEngine({ host })), "host");
    }
    assertSpecError(thrown(() => sshEngine({ host: "h", user: "-oX" })), "user");
    assertSpecError(thrown(() => sshEngine({ host: "h", port: 0 })), "port");
    assertSpecError(thrown(() => sshEngine({ host: "h", heartbeatMs: 500 })), "heartbeatMs");
    assertSpecError(thrown(() => sshEngine({ host: "h", identityFile: 'a"b' })), "identityFile");
  });

  it("a missing engine CLI is a ShellEngineError at the first command", async () => {
    const dirs = controlDirectories();
    const engines = [
      dockerEngine({ container: "c", docker: "/nonexistent/docker" }),
      sshEngine({ host: "h", ssh: "/nonexistent/ssh" }),
    ];
    for (const engine of engines) {
      await using shell = createShell(engine, { workdir: "/tmp" });
      const error = await rejection(shell.exec("true"));
      assert.ok(error instanceof ShellEngineError, String(error));
      assert.match(error.message, /cannot start its client/);
    }
    assert.deepEqual(added(dirs, controlDirectories()), [], "no control directory is left here");
  });

  it("ShellSpecError stays the error of a bad request on a remote engine", async () => {
    await using shell = createShell(dockerEngine({ container: "c", docker: "/nonexistent/docker" }), {
      workdir: "/tmp",
    });
    assert.ok(thrown(() => shell.resolve({ command: "", owner: null })) instanceof ShellSpecError);
  });
});
