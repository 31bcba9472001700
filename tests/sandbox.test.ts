/**
 * The sandbox (Linux, bubblewrap): each promise of docs/sandbox.md checked
 * by tests/fixtures/sandbox_checks.ts, run as root and as an ordinary user
 * made for the purpose, on the runtime of the leg; the fail-closed errors;
 * and the host's death. Where bubblewrap is missing these tests skip with
 * a loud reason, except in CI (DSH_REQUIRE_SANDBOX=1), where that fails.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
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
import { createLocalShell, ShellSandboxError, ShellSpawnError, ShellSpecError } from "../mod.ts";
import { executeBashTool } from "../src/tool/mod.ts";
import { dispatchHookEvent } from "../src/hooks/mod.ts";
import { settingsWith } from "./helpers/hooks.ts";
import type { SandboxSeen } from "./fixtures/sandbox_seen.ts";
import { breakingAdapter } from "./helpers/adapters.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { childrenOf, isRunning, Leftovers, procInfo, runningWithEnv } from "./helpers/proc.ts";
import { IS_DENO } from "./helpers/runtime.ts";
import { eventually } from "./helpers/wait.ts";
import { SANDBOX_REQUIRED, sandboxSkip, sandboxUnavailable } from "./helpers/sandbox.ts";

const IS_ROOT = typeof process.getuid === "function" && process.getuid() === 0;
const USER = "dshsandbox";
/** The fds the checks fixture is started with, open on a directory and not close-on-exec: one below 10, one above. */
const INHERITED_FDS = [7, 200];

const missing = sandboxUnavailable();
const skip = sandboxSkip();

describe("the sandbox is available where it is required", () => {
  it(
    "CI has bubblewrap: the sandbox tests ran, they were not skipped",
    { skip: !SANDBOX_REQUIRED && "not in CI" },
    () => {
      assert.equal(missing, false, `the sandbox tests would be skipped: ${missing}`);
    },
  );
});

/** The trees a check run works on, owned by whoever runs the checks. */
function makeSetup(
  owner: { uid: number; gid: number } | undefined,
): { base: string; file: string; marker: string; home: string; outside: string } {
  const base = mkdtempSync("/var/tmp/dsh-sandbox-test-");
  const paths = {
    workdir: join(base, "work"),
    bareGitWorkdir: join(base, "bare-git"),
    writableRoot: join(base, "root"),
    outside: join(base, "outside"),
    secretFile: join(base, "secrets", "id_test"),
    deniedFile: join(base, "denied.txt"),
    marker: `sbx-${process.pid}-${Date.now()}`,
    home: join(base, "home"),
    inheritedFds: INHERITED_FDS,
  };
  for (const dir of [paths.workdir, paths.writableRoot, paths.outside, join(base, "secrets")]) mkdirSync(dir);
  writeFileSync(paths.secretFile, "PRIVATE KEY\n");
  writeFileSync(paths.deniedFile, "denied\n");
  // A home of the test's own, with what the default denyRead must hide and a dotfile a command must not change.
  mkdirSync(join(paths.home, ".ssh"), { recursive: true });
  writeFileSync(join(paths.home, ".ssh", "id_test"), "PRIVATE KEY\n");
  writeFileSync(join(paths.home, ".bashrc"), "# as the user left it\n");
  const git = spawnSync("git", ["init", "-q", paths.workdir]);
  assert.equal(git.status, 0, String(git.stderr));
  mkdirSync(join(paths.workdir, ".git", "hooks"), { recursive: true });
  assert.equal(spawnSync("git", ["init", "-q", paths.bareGitWorkdir]).status, 0);
  for (const name of ["hooks", "config"]) rmSync(join(paths.bareGitWorkdir, ".git", name), { recursive: true });
  const file = join(base, "setup.json");
  writeFileSync(file, JSON.stringify(paths));
  if (owner !== undefined) {
    spawnSync("chown", ["-R", `${owner.uid}:${owner.gid}`, base]);
    chmodSync(base, 0o755);
  }
  return { base, file, marker: paths.marker, home: paths.home, outside: paths.outside };
}

/** The ordinary user the checks run as, made once; undefined when this is not root. */
function ordinaryUser(): { uid: number; gid: number; home: string } | undefined {
  if (!IS_ROOT) return undefined;
  if (spawnSync("id", ["-u", USER]).status !== 0) {
    const made = spawnSync("useradd", ["-m", "-s", "/bin/sh", USER]);
    assert.equal(made.status, 0, `useradd: ${made.stderr}`);
  }
  const uid = Number(String(spawnSync("id", ["-u", USER]).stdout).trim());
  const gid = Number(String(spawnSync("id", ["-g", USER]).stdout).trim());
  return { uid, gid, home: `/home/${USER}` };
}

/**
 * How to run the checks fixture on this leg's runtime, as root and as the
 * ordinary user, from copies in `scratch`: the user may reach neither the
 * clone (a 0700 parent, as `mktemp -d` makes one) nor the runtime (root's
 * Deno and its cache; CI's Node 22 and 24 inside the clone). Node runs the
 * compiled fixture from a copy of the built package (its helpers, the
 * library and zod come along); Deno runs a bundle of it.
 */
function fixtureCommand(name: string, scratch: string): { program: string; args: string[] } {
  const runtime = runtimeIn(scratch);
  if (!IS_DENO) {
    const root = fileURLToPath(new URL("../", import.meta.url));
    const copy = join(scratch, "package");
    for (const part of ["package.json", "esm", "test", "node_modules"]) {
      if (existsSync(join(root, part))) cpSync(join(root, part), join(copy, part), { recursive: true });
    }
    return { program: runtime, args: [join(copy, "test", "fixtures", `${name}.js`)] };
  }
  const bundle = join(scratch, `${name}.js`);
  const source = fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url));
  const bundled = spawnSync(process.execPath, ["bundle", "-q", "-o", bundle, source], { encoding: "utf8" });
  assert.equal(bundled.status, 0, bundled.stderr);
  return { program: runtime, args: ["run", "-A", "--no-config", bundle] };
}

/** A copy of this leg's runtime binary in `scratch`, made once, that anyone may run. */
function runtimeIn(scratch: string): string {
  const copy = join(scratch, IS_DENO ? "deno" : "node");
  if (!existsSync(copy)) {
    copyFileSync(process.execPath, copy);
    chmodSync(copy, 0o755);
  }
  return copy;
}

/**
 * Starts a fixture command with `args`, as `user` when given, with a minimal environment; with `inherit`, through a
 * bash that opens `inherit.fds` on `inherit.dir` without close-on-exec first (as a careless parent would leave them).
 */
function startAs(
  command: { program: string; args: string[] },
  args: string[],
  user: { home: string } | undefined,
  scratch: string,
  home: string = user?.home ?? process.env.HOME ?? "/root",
  inherit?: { dir: string; fds: number[] },
  tmp?: string,
): ChildProcess {
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: home,
    DENO_DIR: join(scratch, user === undefined ? "deno-root" : "deno-user"),
    DENO_NO_UPDATE_CHECK: "1",
    ...(tmp === undefined ? {} : { TMPDIR: tmp }),
  };
  const argv = [...command.args, ...args];
  const pairs = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  // runuser is found on the test's own PATH (it lives in sbin), and clears the environment itself.
  const [program, ...rest] = user === undefined
    ? [command.program, ...argv]
    : ["runuser", "-u", USER, "--", "env", "-i", ...pairs, command.program, ...argv];
  // In the scratch directory, not the test's: a clone in a 0700 directory is no place the ordinary user can be.
  const options = {
    env: user === undefined ? env : process.env,
    cwd: scratch,
    stdio: ["ignore", "pipe", "pipe"] as const,
  };
  if (inherit === undefined) return spawn(program, rest, { ...options, stdio: [...options.stdio] });
  const opens = inherit.fds.map((fd) => `${fd}<"$1"`).join(" ");
  const wrapped = ["-c", `exec ${opens} && shift && exec "$@"`, "inherit", inherit.dir, program, ...rest];
  return spawn("/bin/bash", wrapped, { ...options, stdio: [...options.stdio] });
}

/** Runs the checks fixture (as `user` when given) and parses what it saw. */
function runChecks(
  command: { program: string; args: string[] },
  setupFile: string,
  user: { home: string } | undefined,
  scratch: string,
  home: string,
  outside: string,
): Promise<SandboxSeen> {
  const child = startAs(command, [setupFile], user, scratch, home, { dir: outside, fds: INHERITED_FDS });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => stdout += chunk);
  child.stderr?.on("data", (chunk) => stderr += chunk);
  return new Promise((resolve, reject) =>
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`the checks exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    })
  );
}

/** The seccomp attacks of the checks fixture that must fail with EPERM. */
const SECCOMP_REFUSED = [
  "ptraceAttachInit",
  "ptraceSeizeInit",
  "processVmReadv",
  "processVmWritev",
  "keyctl",
  "addKey",
  "requestKey",
  "ioUringSetup",
  "vsock",
  "chmodSuid",
  "chmodSgid",
  "fchmodSuid",
  "fchmodat2Suid",
  "openCreatSuid",
  "tmpfileSgid",
  "mknodSuid",
];

/** The promises, held against what the fixture saw. */
function assertContained(seen: SandboxSeen, who: string): void {
  const at = (name: keyof SandboxSeen) => `${who}: ${name}: ${JSON.stringify(seen[name])}`;
  assert.deepEqual([seen.writeWorkdir.code, seen.writeWorkdir.out], [0, "ok\n"], at("writeWorkdir"));
  assert.deepEqual([seen.writeRoot.code, seen.writeRoot.out], [0, "ok\n"], at("writeRoot"));
  assert.notEqual(seen.writeOutside.code, 0, at("writeOutside"));
  assert.match(seen.writeOutside.err, /Read-only file system/, at("writeOutside"));
  assert.notEqual(seen.writeEtc.code, 0, at("writeEtc"));
  assert.equal(seen.outsideFileExists, false, at("outsideFileExists"));

  assert.notEqual(seen.gitHook.code, 0, at("gitHook"));
  assert.notEqual(seen.gitConfig.code, 0, at("gitConfig"));
  assert.notEqual(seen.gitMove.code, 0, at("gitMove"));
  assert.equal(seen.hookOnHost, false, at("hookOnHost"));
  assert.notEqual(seen.gitNewHook, 0, at("gitNewHook"));
  assert.notEqual(seen.gitNewConfig, 0, at("gitNewConfig"));
  assert.equal(seen.newHookOnHost, false, at("newHookOnHost"));
  assert.equal(seen.newConfigOnHost, "", at("newConfigOnHost"));
  assert.deepEqual([seen.gitCommit.code, seen.gitCommit.out.trim()], [0, "1"], at("gitCommit"));

  assert.notEqual(seen.readSecret.code, 0, at("readSecret"));
  assert.doesNotMatch(seen.readSecret.out, /PRIVATE KEY/, at("readSecret"));
  assert.notEqual(seen.readDeniedFile.code, 0, at("readDeniedFile"));
  assert.doesNotMatch(seen.readDeniedFile.out, /denied/, at("readDeniedFile"));
  assert.equal(seen.homeIsTheTests, true, at("homeIsTheTests"));
  assert.notEqual(seen.readSshByDefault.code, 0, at("readSshByDefault"));
  assert.doesNotMatch(seen.readSshByDefault.out, /PRIVATE KEY/, at("readSshByDefault"));
  assert.notEqual(seen.writeBashrc.code, 0, at("writeBashrc"));
  assert.equal(seen.bashrcOnHost, "# as the user left it\n", at("bashrcOnHost"));
  assert.deepEqual([seen.chmodHome.code, seen.chmodHome.out], [0, "locked\n"], at("chmodHome"));
  if (who === "root") {
    // Root's harness still sees ~/.ssh below the locked home, and masks it.
    assert.ok("code" in seen.readAfterChmod, at("readAfterChmod"));
    assert.doesNotMatch(seen.readAfterChmod.out, /PRIVATE KEY/, at("readAfterChmod"));
  } else {
    // An ordinary user's cannot look below it, which must not pass for "nothing to mask": nothing runs.
    assert.ok("refused" in seen.readAfterChmod, at("readAfterChmod"));
    assert.match(seen.readAfterChmod.refused, /^ShellSandboxError: cannot tell whether .*\/home\/\.\w+ exists/);
  }

  assert.equal(seen.tmpWrite.code, 0, at("tmpWrite"));
  assert.deepEqual([seen.tmpSameOwner.code, seen.tmpSameOwner.out], [0, "mine\n"], at("tmpSameOwner"));
  assert.match(seen.tmpOtherOwner.err, /No such file or directory/, at("tmpOtherOwner"));
  assert.doesNotMatch(seen.tmpOtherOwner.out, /owner-file|mine/, at("tmpOtherOwner"));
  assert.equal(seen.tmpOnHost, false, at("tmpOnHost"));

  // /tmp: 1 GiB by default; with tmpMaxBytes 1 MiB a write stops there with ENOSPC, the file stays the owner's,
  // another owner has a /tmp of its own, the host's disk holds none of it, and close() ends the holder.
  assert.equal(seen.tmpDefaultSize.out, "1073741824\n", at("tmpDefaultSize"));
  assert.equal(seen.tmpFill.out, "No space left on device\n1048576\n", at("tmpFill"));
  assert.equal(seen.tmpFillKept.out, "1048576\n", at("tmpFillKept"));
  assert.equal(seen.tmpFillOther.out, "524288\n", at("tmpFillOther"));
  assert.ok(seen.tmpHostBytes < 64 * 1024, at("tmpHostBytes"));
  assert.equal(seen.tmpHolderRan, true, at("tmpHolderRan"));
  assert.equal(seen.tmpHolderAfterClose, 0, at("tmpHolderAfterClose"));
  assert.deepEqual(seen.tmpStateAfterClose, [], at("tmpStateAfterClose"));

  // The owner's spill file is at its path inside, read-only; another owner's command does not see it.
  assert.equal(typeof seen.spillPath, "string", at("spillPath"));
  assert.deepEqual([seen.spillFromInside.code, seen.spillFromInside.out], [0, "5000\nxxx"], at("spillFromInside"));
  assert.notEqual(seen.spillWrite.code, 0, at("spillWrite"));
  assert.match(seen.spillWrite.err, /Read-only file system/, at("spillWrite"));
  assert.equal(seen.spillOnHost, "x".repeat(5000), at("spillOnHost"));
  assert.notEqual(seen.spillFromOther.code, 0, at("spillFromOther"));
  assert.match(seen.spillFromOther.err, /No such file or directory/, at("spillFromOther"));

  assert.equal(seen.hostServerFromHost, "connected", at("hostServerFromHost"));
  assert.notEqual(seen.hostServer.code, 0, at("hostServer"));
  assert.doesNotMatch(seen.hostServer.out, /connected/, at("hostServer"));
  // The host's unix socket: refused inside, and its listener saw no connection before the host's own.
  assert.notEqual(seen.unixCurl.code, 0, at("unixCurl"));
  assert.doesNotMatch(seen.unixCurl.out, /hello from the host|HTTP/, at("unixCurl"));
  assert.equal(seen.unixPython.out, "socketpair p\nEPERM\n", at("unixPython"));
  assert.equal(seen.unixBeforeHost, 0, at("unixBeforeHost"));

  assert.doesNotMatch(seen.ps.out, /sleep/, at("ps"));
  assert.equal(seen.procHost.out, "hidden\n", at("procHost"));
  assert.doesNotMatch(seen.killHost.out, /rc=0/, at("killHost"));
  assert.doesNotMatch(seen.killOther.out, /rc=0/, at("killOther"));
  assert.equal(seen.otherStillRunning, true, at("otherStillRunning"));

  assert.doesNotMatch(seen.remount.out, /rc=0/, at("remount"));
  assert.equal(seen.remountFileOnHost, false, at("remountFileOnHost"));
  assert.doesNotMatch(seen.userns.out, /rc=0/, at("userns"));
  assert.match(seen.capabilities.out, /CapEff:\s+0+\n/, at("capabilities"));

  // Inherited fds: the harness had them, the command has none of them and cannot write through them.
  assert.deepEqual(seen.harnessFds, INHERITED_FDS, at("harnessFds"));
  assert.equal(seen.fdsInside.out, "0 1 2 3 ", at("fdsInside"));
  assert.equal(seen.fdEscape.out, "done\n", at("fdEscape"));
  assert.equal(seen.fdEscapeOnHost, false, at("fdEscapeOnHost"));

  // The seccomp filter: every attack refused with EPERM (openat2 with ENOSYS); ordinary modes still work.
  const refused = Object.fromEntries(SECCOMP_REFUSED.map((name) => [name, "EPERM"]));
  assert.deepEqual(
    seen.seccompAttacks,
    {
      ...refused,
      initMem: "EACCES",
      initTaskMem: "EACCES",
      openat2Suid: "ENOSYS",
      chmodPlain: "ok",
      createPlain: "ok",
    },
    at("seccompAttacks"),
  );
  assert.equal(seen.setidShell.out, "u+s=1\ng+s=1\n6755=1\ninstall=1\n755=0\n", at("setidShell"));
  const modes = seen.setidModesOnHost;
  assert.equal(modes["by-shell"], 0o755, at("setidModesOnHost"));
  assert.equal(modes["by-python"], 0o755, at("setidModesOnHost"));
  // install creates its file before the chmod it is refused: it may be left, never with a setuid or setgid bit.
  assert.ok(modes["by-install"] === null || (modes["by-install"] & 0o6000) === 0, at("setidModesOnHost"));
  for (const name of ["by-open", "by-mknod", "by-openat2"]) assert.equal(modes[name], null, at("setidModesOnHost"));

  assert.equal(seen.deniedHint.denied, true, at("deniedHint"));
  assert.equal(seen.writeWorkdir.denied, false, at("writeWorkdir"));

  // Leaders that exit: the result came long before the sleeps would end, and none of them was left.
  for (const name of ["setsid", "nohup", "doubleFork", "sleeps600"]) {
    assert.deepEqual(seen.leaderExits[name], { out: "started\n", beforeSleepEnds: true, left: 0 }, at("leaderExits"));
  }

  assert.equal(seen.timeoutEnded, true, at("timeoutEnded"));
  assert.deepEqual(seen.afterTimeout, [], at("afterTimeout"));
  assert.equal(seen.killed, true, at("killed"));
  assert.deepEqual(seen.afterKill, [], at("afterKill"));
  assert.deepEqual(seen.afterClose, [], at("afterClose"));
}

describe("the sandbox holds", { skip }, () => {
  let scratch: string;
  let command: { program: string; args: string[] };
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "dsh-sandbox-run-"));
    chmodSync(scratch, 0o755);
    command = fixtureCommand("sandbox_checks", scratch);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("as this user (root here)", { timeout: 120_000 }, async () => {
    const { base, file, home, outside } = makeSetup(undefined);
    try {
      assertContained(
        await runChecks(command, file, undefined, scratch, home, outside),
        IS_ROOT ? "root" : "this user",
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it(
    "as an ordinary user",
    { timeout: 120_000, skip: !IS_ROOT && "only root can make and become another user" },
    async () => {
      const user = ordinaryUser();
      assert.ok(user !== undefined);
      mkdirSync(join(scratch, "deno-user"), { recursive: true });
      spawnSync("chown", ["-R", `${user.uid}:${user.gid}`, join(scratch, "deno-user")]);
      const { base, file, home, outside } = makeSetup(user);
      try {
        assertContained(await runChecks(command, file, user, scratch, home, outside), "an ordinary user");
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  );
});

describe("the host's death ends every sandboxed process", { skip }, () => {
  let scratch: string;
  let host: { program: string; args: string[] };
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "dsh-sandbox-host-"));
    chmodSync(scratch, 0o755);
    host = fixtureCommand("idle_host", scratch);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  for (const who of ["this user", "an ordinary user"] as const) {
    it(`a task and its setsid, double-forked and nohup'd children die when the host is SIGKILLed (${who})`, {
      timeout: 60_000,
      skip: who === "an ordinary user" && !IS_ROOT && "only root can make and become another user",
    }, async () => {
      const user = who === "this user" ? undefined : ordinaryUser();
      if (user !== undefined) {
        mkdirSync(join(scratch, "deno-user"), { recursive: true });
        spawnSync("chown", ["-R", `${user.uid}:${user.gid}`, join(scratch, "deno-user")]);
      }
      const dir = mkdtempSync(join(tmpdir(), "dsh-sandbox-host-run-"));
      chmodSync(dir, 0o777);
      const marker = `host-${process.pid}-${Date.now()}`;
      // A task: the survivors of a command that has ended are gone with it already.
      const command = "setsid sleep 300 </dev/null >/dev/null 2>&1 & (sleep 300 </dev/null >/dev/null 2>&1 &) ; " +
        "nohup sleep 300 </dev/null >/dev/null 2>&1 & echo started; sleep 300";
      const extra = JSON.stringify({ sandbox: {}, dshEnv: { DSH_SANDBOX_MARK: marker }, task: true });
      // The host's temp dir is the test's: its sandbox state (every owner's /tmp) must not outlive it.
      const tmp = join(dir, "tmp");
      mkdirSync(tmp, { mode: 0o777 });
      chmodSync(tmp, 0o777);
      const child = startAs(host, [join(dir, "host"), command, extra], user, scratch, undefined, undefined, tmp);
      const survivors = (): number[] => runningWithEnv("DSH_SANDBOX_MARK", marker);
      const states = (): string[] => readdirSync(tmp).filter((name) => name.startsWith("dsh-sandbox-"));
      try {
        assert.ok(await eventually(() => existsSync(join(dir, "host")), 30_000), "the host never ran its command");
        assert.ok(await eventually(() => survivors().length >= 3), `no survivors to kill: ${survivors()}`);
        assert.equal(states().length, 1, "the host's sandbox state is in its temp dir");
        // The holder of the owners' bounded /tmp, found by the FIFO in its environment: it must end too.
        const holder = (): number[] => runningWithEnv("DSH_HOLDER_READY", join(tmp, states()[0] ?? "", "holder.ready"));
        const holders = holder();
        assert.ok(holders.length > 0, "the holder of the owners' /tmp is not running");
        // The host itself: under runuser, killing runuser would leave the host running.
        process.kill(Number(readFileSync(join(dir, "host.host"), "utf8")), "SIGKILL");
        assert.ok(await eventually(() => survivors().length === 0, 10_000), `still running: ${survivors()}`);
        assert.ok(await eventually(() => holders.every((pid) => !isRunning(pid)), 10_000), `holder: ${holders}`);
        assert.ok(await eventually(() => states().length === 0, 10_000), `left behind: ${states()}`);
      } finally {
        child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("the sandbox's init, made to leave the session", { skip }, () => {
  // A command cannot do this any more (seccomp refuses ptrace, /proc/1/mem is masked): the test does it from the
  // host, to show the second line holds: a termination kills the init by its host pid, once shown to be ours.
  it("is killed by pid when the command is terminated, with everything in the sandbox", {
    timeout: 30_000,
    skip: process.arch !== "x64" && "the setsid injector is written for x86_64",
  }, async () => {
    const marker = `init-${process.pid}-${Date.now()}`;
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    const leftovers = new Leftovers();
    try {
      // The command leaves the session itself (setsid), as an escaping one would.
      const command = "exec setsid sleep 300";
      const task = shell.start(shell.resolve({ command, owner: null, dshEnv: { DSH_SANDBOX_MARK: marker } }));
      const sleeper = () => runningWithEnv("DSH_SANDBOX_MARK", marker).find((pid) => procInfo(pid)?.comm === "sleep");
      assert.ok(await eventually(() => sleeper() !== undefined, 10_000), "the command never ran");
      const [init] = childrenOf(task.pid);
      assert.equal(typeof init, "number", "bubblewrap has no child");
      leftovers.add(init, ...runningWithEnv("DSH_SANDBOX_MARK", marker));
      const injector = fileURLToPath(new URL("./fixtures/inject_setsid.py", import.meta.url));
      const injected = spawnSync("python3", [injector, String(init)], { encoding: "utf8" });
      // setsid answers with the new session's id as the init sees it: its own pid inside, 1.
      assert.equal(injected.stdout.trim(), "1", `setsid in the init: ${injected.stdout}${injected.stderr}`);
      assert.equal(procInfo(init)?.sid, init, "the init left the command's session");

      assert.equal(task.kill(), true);
      await task.done;
      const left = () => runningWithEnv("DSH_SANDBOX_MARK", marker);
      assert.ok(await eventually(() => left().length === 0, 10_000), `still running: ${left()}`);
    } finally {
      leftovers.kill();
      await shell.close();
    }
  });
});

describe("the sandbox fails closed", { skip }, () => {
  it("no bubblewrap: a ShellSandboxError at createLocalShell that says how to fix it", () => {
    const error = thrown(() => createLocalShell({ sandbox: { bwrapPath: "/nonexistent/bwrap" } }));
    assert.ok(error instanceof ShellSandboxError, String(error));
    assert.match(error.message, /bubblewrap .* was not found: install bubblewrap/);
  });

  it("a tmpMaxBytes that is not a whole number of bytes, at least 4096: a ShellSpecError naming it", () => {
    for (const tmpMaxBytes of [0, 4095, 1.5, -1, Number.NaN, 2 ** 60, "1G", null]) {
      const error = thrown(() => createLocalShell({ sandbox: { tmpMaxBytes: tmpMaxBytes as number } }));
      assert.ok(error instanceof ShellSpecError, String(error));
      assert.equal(error.field, `sandbox["tmpMaxBytes"]`);
      assert.match(error.message, /must be a whole number of bytes, at least 4096/);
    }
  });

  it("a writableRoots entry that does not exist: a ShellSpecError naming it", () => {
    const error = thrown(() => createLocalShell({ sandbox: { writableRoots: ["/nonexistent/root"] } }));
    assert.ok(error instanceof ShellSpecError, String(error));
    assert.equal(error.field, "sandbox.writableRoots[0]");
  });

  it("a bind that fails at spawn (a writable root removed since): a ShellSandboxError, never an exit code", async () => {
    const base = mkdtempSync("/var/tmp/dsh-sandbox-gone-");
    const root = join(base, "root");
    mkdirSync(root);
    const shell = createLocalShell({ workdir: base, graceMs: 300, sandbox: { writableRoots: [root] } });
    try {
      rmSync(root, { recursive: true });
      const error = await rejection(shell.exec("echo never"));
      assert.ok(error instanceof ShellSandboxError, String(error));
      assert.match(error.message, /writable root .*\/root no longer exists/);
      const task = shell.start(shell.resolve({ command: "echo never", owner: null }));
      await task.done;
      assert.equal(task.status, "killed");
      assert.ok(task.spawnError instanceof ShellSandboxError);
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a failure that is not the sandbox's is not labelled a ShellSandboxError: it keeps its identity as a cause", async () => {
    const failure = new Error("the adapter lost the child");
    const marker = "dsh-lost-sandboxed-child";
    const shell = createLocalShell({ adapter: breakingAdapter(marker, failure), graceMs: 300, sandbox: {} });
    try {
      const task = shell.start(shell.resolve({ command: `echo ${marker}`, owner: null }));
      await task.done;
      assert.equal(task.status, "killed");
      assert.ok(task.spawnError instanceof ShellSpawnError, String(task.spawnError));
      assert.equal(task.spawnError.cause, failure);
      const error = await rejection(shell.exec(`echo ${marker}`));
      assert.ok(error instanceof ShellSpawnError && !(error instanceof ShellSandboxError), String(error));
      assert.equal(error.cause, failure);
      // The sandbox itself still works, and still says so when it fails.
      assert.equal((await shell.exec("echo fine")).stdout.text, "fine\n");
    } finally {
      await shell.close();
    }
  });

  it("a request may leave the sandbox only with sandbox: false, which the model's tool cannot set", async () => {
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    try {
      const inside = await shell.exec("ps -e | wc -l");
      const outside = await shell.exec("ps -e | wc -l", { sandbox: false });
      assert.ok(Number(inside.stdout.text) < 10, inside.stdout.text);
      assert.ok(Number(outside.stdout.text) > Number(inside.stdout.text), outside.stdout.text);
      assert.ok(inside.sandbox !== undefined && outside.sandbox === undefined);
      const loosen = await rejection(shell.exec("true", { sandbox: { network: "host" } as never }));
      assert.ok(loosen instanceof ShellSpecError);
      assert.equal(loosen.field, "sandbox");
    } finally {
      await shell.close();
    }
  });
});

describe("the model sees the sandbox through its tool", { skip }, () => {
  it("a refused write ends with the sandbox line; a plain failure does not", async () => {
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    try {
      const refused = await executeBashTool(shell, { command: "touch /usr/dsh-tool-refused" }, { owner: "m" });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /Read-only file system\n\[exit code: 1\]\n\[sandbox: [^\n]*read-only[^\n]*\]$/);
      assert.equal(existsSync("/usr/dsh-tool-refused"), false);
      const plain = await executeBashTool(shell, { command: "echo no such thing >&2; exit 3" }, { owner: "m" });
      assert.equal(plain.text, "[stderr]\nno such thing\n[exit code: 3]");
    } finally {
      await shell.close();
    }
  });

  it("a workdir the sandbox cannot enter is an [error] for the model, not a rejection", async () => {
    const base = mkdtempSync("/var/tmp/dsh-sandbox-tool-");
    const root = join(base, "root");
    mkdirSync(root);
    const shell = createLocalShell({ workdir: base, graceMs: 300, sandbox: { writableRoots: [root] } });
    try {
      rmSync(root, { recursive: true });
      const outcome = await executeBashTool(shell, { command: "echo never" }, { owner: "m" });
      assert.equal(outcome.isError, true);
      assert.match(outcome.text, /^\[error\] .*writable root .*\/root no longer exists/);
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("the tool has no way to leave the sandbox: a sandbox key is refused and nothing runs", async () => {
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    const dir = mkdtempSync("/var/tmp/dsh-sandbox-key-");
    try {
      const input = { command: `touch '${dir}/escaped'`, sandbox: false };
      const refused = await executeBashTool(shell, input, { owner: "m" });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /sandbox/);
      assert.equal(refused.result, undefined);
      assert.equal(existsSync(join(dir, "escaped")), false);
    } finally {
      await shell.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("hooks in a sandboxed shell", { skip }, () => {
  const sessionStart = (shell: ReturnType<typeof createLocalShell>, projectDir: string, sandbox?: false) =>
    dispatchHookEvent(
      shell,
      settingsWith("SessionStart", [
        { command: `touch '${projectDir}-escape'; ps -e -o comm= | wc -l` },
        { command: "echo 'export FROM_HOOK=1' >> \"$CLAUDE_ENV_FILE\"" },
      ]),
      {
        event: "SessionStart",
        payload: { hook_event_name: "SessionStart", source: "startup" },
        projectDir,
        owner: "s",
        ...(sandbox === false ? { sandbox } : {}),
      },
    );

  it("by default a hook is contained like any command, and cannot reach the env file outside it", async () => {
    const projectDir = mkdtempSync("/var/tmp/dsh-sandbox-hooks-");
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    try {
      const outcome = await sessionStart(shell, projectDir);
      assert.equal(existsSync(`${projectDir}-escape`), false, "the hook wrote outside its workdir");
      assert.ok(Number(outcome.results[0].result.stdout) < 10, outcome.results[0].result.stdout);
      // The write to the env file failed: /bin/sh (dash here) exits 2 on a failed redirection, bash 1.
      assert.notEqual(outcome.results[1].result.outcome, "success");
      assert.match(
        outcome.results[1].result.stderr,
        /CLAUDE_ENV_FILE|dsh-|No such file|Permission denied|cannot create/,
      );
      assert.equal(outcome.envFile, undefined);
    } finally {
      await shell.close();
      rmSync(projectDir, { recursive: true, force: true });
    }
  });

  it("with sandbox: false the hooks run on the host, and the env file comes back", async () => {
    const projectDir = mkdtempSync("/var/tmp/dsh-sandbox-hooks-");
    const shell = createLocalShell({ graceMs: 300, sandbox: {} });
    try {
      const outcome = await sessionStart(shell, projectDir, false);
      assert.equal(existsSync(`${projectDir}-escape`), true, "the hook did not run on the host");
      assert.ok(Number(outcome.results[0].result.stdout) > 10, outcome.results[0].result.stdout);
      assert.equal(outcome.results[1].result.outcome, "success");
      assert.deepEqual(outcome.envFile, { text: "export FROM_HOOK=1\n", env: { FROM_HOOK: "1" } });
    } finally {
      await shell.close();
      rmSync(projectDir, { recursive: true, force: true });
      rmSync(`${projectDir}-escape`, { force: true });
    }
  });
});
