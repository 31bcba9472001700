/**
 * Sessions (`shell.session()`): the directory and exported variables a
 * command line leaves carry over to the next; a killed command changes
 * nothing; `DSH_*`, `BASH_FUNC_*`, unexported variables and functions never
 * carry; one command at a time; `start()` from the state, never changing
 * it; `close()` ends what the session runs, and the shell stays open; the
 * bash tool following a session; and all of it inside the sandbox.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, ShellClosedError, type ShellSession, ShellSpawnError } from "../mod.ts";
import { executeBashTool } from "../src/tool/mod.ts";
import process from "node:process";
import { shQuote, untilFileExists } from "./helpers/bash.ts";
import { listDir } from "./helpers/dirs.ts";
import { assertSpecError, rejection, thrown } from "./helpers/errors.ts";
import { runningWithEnv } from "./helpers/proc.ts";
import { childEnvironment } from "./helpers/env_dump.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { withShell } from "./helpers/shell.ts";
import { appeared, eventually } from "./helpers/wait.ts";

const POLL_MS = 15_000;

describe("a session carries the directory and the exported variables", () => {
  it("cd and export carry to the next command; an exit code other than 0 carries too", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "src"));
      const session = shell.session({ owner: "agent-1" });
      assert.equal(session.cwd, dir);
      const first = await session.exec("cd src && export MODE=dev; exit 3");
      assert.equal(first.exitCode, 3);
      const second = await session.exec('pwd; echo "$MODE"');
      assert.equal(second.stdout.text, `${join(dir, "src")}\ndev\n`);
      assert.equal(session.cwd, join(dir, "src"));
      assert.deepEqual(session.env, { MODE: "dev" });
      // A plain shell of the same host remembers nothing.
      assert.equal((await shell.exec('pwd; echo "${MODE-none}"', { workdir: dir })).stdout.text, `${dir}\nnone\n`);
    });
  });

  it("an unset or unexported variable is gone from the next command, and shows as undefined", async () => {
    await withShell({ ambientEnv: { PATH: "/usr/bin:/bin", KEEP: "1", DROP: "1", HIDE: "1" } }, async (shell) => {
      const session = shell.session({ owner: null });
      await session.exec("unset DROP; export -n HIDE; NOT_EXPORTED=1");
      const next = await session.exec('echo "${KEEP-} ${DROP-gone} ${HIDE-gone} ${NOT_EXPORTED-gone}"');
      assert.equal(next.stdout.text, "1 gone gone gone\n");
      assert.deepEqual(session.env, { DROP: undefined, HIDE: undefined });
      assert.ok(Object.hasOwn(session.env, "DROP"));
    });
  });

  it("exit, set -e and a syntax error later in the line still hand the state on, and keep their status", async () => {
    await withShell({}, async (shell, dir) => {
      for (const name of ["a", "b", "c"]) mkdirSync(join(dir, name));
      const session = shell.session({ owner: null });
      assert.equal((await session.exec("cd a; exit 7")).exitCode, 7);
      assert.equal(session.cwd, join(dir, "a"));
      assert.equal((await session.exec("set -e; cd ../b; false; cd ../c")).exitCode, 1);
      assert.equal(session.cwd, join(dir, "b"));
      const broken = await session.exec("cd ../c\nif then fi");
      assert.equal(broken.exitCode, 2);
      assert.equal(session.cwd, join(dir, "c"));
    });
  });

  it("the output is the command's own: nothing of the state reaches stdout or stderr", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      const result = await session.exec("printf out; printf err >&2; export X=1");
      assert.equal(result.stdout.text, "out");
      assert.equal(result.stderr.text, "err");
    });
  });

  it("values with newlines, '=' and non-ASCII text carry over as they were", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      await session.exec(`export ODD=$'line 1\\nline=2 \\u00e9\\u20ac'`);
      assert.equal(session.env.ODD, "line 1\nline=2 é€");
      assert.equal((await session.exec('printf %s "$ODD"')).stdout.text, "line 1\nline=2 é€");
    });
  });

  it("a command that changed PATH still hands its state on, PATH included", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      await session.exec(`export PATH=${shQuote(dir)}; cd /`);
      assert.equal(session.cwd, "/");
      assert.equal(session.env.PATH, dir);
    });
  });
});

describe("bash writes the state with its own builtins", () => {
  // What the shell hands a child is the truth: after each line, the next command must start from exactly that.
  const posixLines = [
    "export PLAIN=1 SPACED='a b'",
    "unset GONE; export DECLARED_ONLY",
    "set -a; ALLEXPORT=2; set -u",
    "readonly RO=1; export RO; export NL='a\nb'; IFS=",
    "set -x; export TRACED=1",
    "unset PLAIN; export _under=1 __double=2",
  ];
  const bashLines = [
    "export -a ARR=(1 2); export PLAIN=1",
    "declare -n REF=HOME; export REF; export AFTER=ref",
    "export DECLARED_ONLY; export -n GONE",
    "declare -ix NUMBER=5; declare -lx LOWER=ABC",
    "export BYTES=$'\\001\\377x' NL=$'a\\nb'",
    ...posixLines,
  ];
  for (const [shellName, lines] of [["bash", bashLines], ["sh", posixLines]] as const) {
    it(`after each line the next command starts from the environment its shell hands a child (${shellName})`, async () => {
      const ambientEnv = { PATH: "/usr/bin:/bin", HOME: "/", GONE: "1" };
      await withShell({ shell: shellName, ambientEnv }, async (shell) => {
        const session = shell.session({ owner: null });
        for (const line of lines) {
          const ended = await session.exec(`${line}\ncommand -p cat /proc/self/environ`);
          assert.equal(ended.exitCode, 0, `${line}: ${ended.stderr.text}`);
          const next = await session.exec("command -p cat /proc/self/environ");
          assert.equal(next.exitCode, 0, next.stderr.text);
          assert.deepEqual(childEnvironment(next.stdout.text), childEnvironment(ended.stdout.text), line);
        }
        assert.equal(session.env.TRACED, "1");
        assert.equal(session.env.GONE, undefined);
        assert.ok(Object.hasOwn(session.env, "GONE"), "GONE shows as unset");
      });
    });
  }

  it("an environment name no shell variable can have is kept as it came", async () => {
    await withShell({ ambientEnv: { PATH: "/usr/bin:/bin", "ODD-NAME": "1" } }, async (shell) => {
      const session = shell.session({ owner: null });
      await session.exec("export MODE=dev");
      assert.deepEqual(session.env, { MODE: "dev" });
      const next = await session.exec("command -p cat /proc/self/environ");
      assert.equal(childEnvironment(next.stdout.text)["ODD-NAME"], "1");
    });
  });

  it("the dump has no variable of its own: a read-only __dsh_name or LC_ALL still hands the state on", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      // Until issue 41 the dump looped with __dsh_name, and a line that made it read-only handed nothing on.
      const result = await session.exec("readonly __dsh_name=1; export MODE=dev; cd /");
      assert.equal(result.exitCode, 0);
      assert.equal(result.stderr.text, "", "the dump's errors never reach the command's stderr");
      assert.deepEqual(session.env, { MODE: "dev" });
      assert.equal(session.cwd, "/");
      // A read-only LC_ALL would keep its locale for `export -p`: that environment is read through a `cat`.
      const pinned = await session.exec("declare -rx LC_ALL=C.UTF-8; export LOCALE_SET=é; cd /usr");
      assert.equal(pinned.stderr.text, "");
      assert.deepEqual(session.env, { MODE: "dev", LC_ALL: "C.UTF-8", LOCALE_SET: "é" });
      assert.equal(session.cwd, "/usr");
    });
  });
});

describe("what never carries over", () => {
  it("DSH_* names, exported functions, SHLVL, PWD and OLDPWD are not taken", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      await session.exec("export DSH_FORGED=1 SHLVL=9; f() { echo hi; }; export -f f; cd /; cd /usr");
      assert.deepEqual(session.env, {});
      const next = await session.exec('echo "${DSH_FORGED-none} $SHLVL"; type f >/dev/null 2>&1 || echo no-f');
      const plain = await shell.exec('echo "$SHLVL"');
      assert.equal(next.stdout.text, `none ${plain.stdout.text.trim()}\nno-f\n`);
    });
  });

  it("a timed-out, aborted or signalled command leaves the session as it was", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "moved"));
      const session = shell.session({ owner: null, env: { SEED: "1" } });
      const flag = join(dir, "started");
      const timedOut = await session.exec(`cd moved; export X=1; touch ${shQuote(flag)}; sleep 30`, {
        timeoutMs: 500,
      });
      assert.equal(timedOut.timedOut, true);
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, { SEED: "1" });
      const abort = new AbortController();
      const up = join(dir, "up");
      const aborted = session.exec(
        `cd moved; export X=2; touch ${shQuote(up)}; ${untilFileExists(join(dir, "never"))}`,
        {
          signal: abort.signal,
        },
      );
      assert.ok(await appeared(up, POLL_MS));
      abort.abort();
      assert.equal((await aborted).aborted, true);
      // The EXIT trap does run on SIGTERM: the state it wrote is still not taken.
      const signalled = await session.exec("cd moved; export X=3; kill -TERM $$");
      assert.equal(signalled.signal, "SIGTERM");
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, { SEED: "1" });
      assert.ok(existsSync(flag));
    });
  });

  it("a command on a terminal hands its state on too, and its output is only its own", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      const result = await session.exec("[ -t 0 ] && echo tty; cd /usr; export ON_TTY=1", { tty: true });
      assert.equal(result.stdout.text.replaceAll("\r", ""), "tty\n");
      assert.equal(session.cwd, "/usr");
      assert.deepEqual(session.env, { ON_TTY: "1" });
    });
  });

  it("the argv form runs from the session's state and changes nothing", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "sub"));
      const session = shell.session({ owner: null });
      await session.exec("cd sub; export A=1");
      const argv = await session.exec("/bin/sh", { args: ["-c", 'pwd; echo "$A"; cd /; export B=2'] });
      assert.equal(argv.stdout.text, `${join(dir, "sub")}\n1\n`);
      assert.equal(session.cwd, join(dir, "sub"));
      assert.deepEqual(session.env, { A: "1" });
    });
  });

  it("a command that replaces the EXIT trap, or execs another program, hands nothing on (documented)", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      await session.exec("trap - EXIT; cd /; export T=1");
      await session.exec("cd /; exec /bin/true");
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, {});
    });
  });

  it("the state files go: none is left in the spill directory", async () => {
    const spillDir = mkdtempSync(join("/tmp", "dsh-session-spill-"));
    try {
      await withShell({ spillDir }, async (shell) => {
        const session = shell.session({ owner: null });
        for (let i = 0; i < 5; i++) await session.exec(`export N=${i}`);
        await session.exec("sleep 30", { timeoutMs: 200 });
        assert.deepEqual(listDir(spillDir), []);
      });
    } finally {
      rmSync(spillDir, { recursive: true, force: true });
    }
  });
});

describe("commands of a session", () => {
  it("run one at a time, in call order", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      const log = join(dir, "log");
      const runs = [1, 2, 3].map((n) =>
        session.exec(`echo start ${n} >> ${shQuote(log)}; sleep 0.1; cd /; echo end ${n} >> ${shQuote(log)}`)
      );
      await Promise.all(runs);
      assert.deepEqual(readFileSync(log, "utf8").trim().split("\n"), [
        "start 1",
        "end 1",
        "start 2",
        "end 2",
        "start 3",
        "end 3",
      ]);
    });
  });

  it("a failed command does not stop the ones queued after it", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      const missing = join(dir, "gone");
      mkdirSync(missing);
      await session.exec("cd gone");
      rmSync(missing, { recursive: true });
      const first = session.exec("true");
      const second = session.exec("true", { workdir: dir });
      const error = await rejection(first);
      assert.ok(error instanceof ShellSpawnError);
      assert.match(error.message, /workdir does not exist: .*gone/);
      assert.equal((await second).exitCode, 0);
    });
  });

  it("a workdir option is taken from the session's directory, and the session follows it like a cd", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "a", "b"), { recursive: true });
      const session = shell.session({ owner: null });
      await session.exec("true", { workdir: "a" });
      assert.equal(session.cwd, join(dir, "a"));
      assert.equal((await session.exec("pwd", { workdir: "b" })).stdout.text, `${join(dir, "a", "b")}\n`);
      // The command's own env is its own: it is not exported into the session unless the command exports it.
      assert.equal((await session.exec('echo "$ONCE"', { env: { ONCE: "x" } })).stdout.text, "x\n");
      assert.deepEqual(session.env, {});
    });
  });

  it("start() runs from the state, as the session's owner, and never changes the session", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "sub"));
      const session = shell.session({ owner: "agent-1", env: { SEED: "s" } });
      await session.exec("cd sub");
      const task = session.start('pwd; echo "$SEED"; cd /; export Z=1');
      assert.deepEqual(shell.tasks("agent-1"), [task]);
      assert.deepEqual(shell.tasks("agent-2"), []);
      const result = await task.done;
      assert.equal(result.stdout.text, `${join(dir, "sub")}\ns\n`);
      assert.equal(session.cwd, join(dir, "sub"));
      assert.deepEqual(session.env, { SEED: "s" });
    });
  });

  it("bad options are refused by name", async () => {
    await withShell({}, async (shell) => {
      assertSpecError(thrown(() => shell.session({} as never)), "owner");
      assertSpecError(thrown(() => shell.session({ owner: 5 } as never)), "owner");
      assertSpecError(thrown(() => shell.session({ owner: null, env: { "A=B": "1" } })), 'env["A=B"]');
      assertSpecError(thrown(() => shell.session({ owner: null, workdir: "" })), "workdir");
      assertSpecError(thrown(() => shell.session({ owner: null, cwd: "/" } as never)), "cwd");
      const session = shell.session({ owner: "a" });
      assertSpecError(await rejection(session.exec("true", { owner: "b" } as never)), "owner");
      assertSpecError(await rejection(session.exec("true", { timeoutMs: -1 })), "timeoutMs");
    });
  });
});

describe("closing", () => {
  it("session.close() ends the command it runs and its tasks; the shell stays open", async () => {
    await withShell({}, async (shell, dir) => {
      const mark = `session-close-${process.pid}-${Date.now()}`;
      const session = shell.session({ owner: "a", env: { MARK: mark } });
      const task = session.start("sleep 60 & sleep 60");
      const running = session.exec(`(sleep 60 &); touch ${shQuote(join(dir, "up"))}; sleep 60`);
      assert.ok(await appeared(join(dir, "up"), POLL_MS));
      await session.close();
      assert.equal((await running).aborted, true);
      assert.equal(task.status, "killed");
      assert.ok(await eventually(() => runningWithEnv("MARK", mark).length === 0, POLL_MS), "nothing left running");
      assert.ok((await rejection(session.exec("true"))) instanceof ShellClosedError);
      assert.throws(() => session.start("true"), { name: "ShellClosedError", message: "the session is closed" });
      assert.equal((await shell.exec("echo still")).stdout.text, "still\n");
    });
  });

  it("100 sessions with a command each are all ended by shell.close(), nothing left running", async () => {
    const mark = `sessions-100-${process.pid}-${Date.now()}`;
    const shell = createLocalShell({ graceMs: 300 });
    const sessions: ShellSession[] = [];
    for (let i = 0; i < 100; i++) sessions.push(shell.session({ owner: `o${i % 7}`, env: { MARK: mark } }));
    const runs = sessions.map((session) => session.exec("sleep 60"));
    // Each a bash (which stays, to run the state's EXIT trap) and its sleep.
    assert.ok(await eventually(() => runningWithEnv("MARK", mark).length === 200, POLL_MS), "all 100 running");
    await shell.close();
    for (const result of await Promise.all(runs)) assert.equal(result.aborted, true);
    assert.deepEqual(runningWithEnv("MARK", mark), []);
    assert.throws(() => shell.session({ owner: null }), ShellClosedError);
  });
});

describe("the bash tool follows a session", () => {
  it("foreground calls run in it, background ones start from it, and the owner must match", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "pkg", "lib"), { recursive: true });
      const session = shell.session({ owner: "agent-1" });
      const context = { owner: "agent-1", session };
      await executeBashTool(shell, { command: "cd pkg && export STAGE=build" }, context);
      const pwd = await executeBashTool(shell, { command: 'pwd; echo "$STAGE"' }, context);
      assert.equal(pwd.text, `${join(dir, "pkg")}\nbuild`);
      // The input's workdir is where that call starts, and the session follows it.
      await executeBashTool(shell, { command: "true", workdir: "lib" }, context);
      assert.equal(session.cwd, join(dir, "pkg", "lib"));
      const started = await executeBashTool(shell, { command: "pwd; cd /", run_in_background: true }, context);
      assert.equal(started.isError, false);
      const task = shell.task(started.taskId ?? "", "agent-1");
      assert.equal((await task.done).stdout.text, `${join(dir, "pkg", "lib")}\n`);
      assert.equal(session.cwd, join(dir, "pkg", "lib"));
      await assert.rejects(
        executeBashTool(shell, { command: "true" }, { owner: "agent-2", session }),
        /session: belongs to another owner/,
      );
    });
  });

  it("what the session did not take is the text's last line, for the model to read", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: "agent-1" });
      const context = { owner: "agent-1", session };
      const big = await executeBashTool(
        shell,
        { command: "export BIG=$(head -c 200000 /dev/zero | tr '\\0' x); echo done; exit 3" },
        context,
      );
      const lines = big.text.split("\n");
      assert.deepEqual(lines.slice(0, 2), ["done", "[exit code: 3]"]);
      assert.match(lines[2], /^\[session: session variables not carried \(.*\): BIG \(200005 bytes, .*\)\]$/);
      assert.equal(lines.length, 3);
      const plain = await executeBashTool(shell, { command: "echo ok" }, context);
      assert.equal(plain.text, "ok");
    });
  });
});

describe("a session in the sandbox", { skip: sandboxSkip() }, () => {
  it("carries the directory and variables, and not the sandbox's own TMPDIR", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-sandbox-");
    try {
      const work = join(base, "work");
      mkdirSync(join(work, "sub"), { recursive: true });
      writeFileSync(join(work, "sub", "file"), "x");
      await using shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { network: "none" } });
      const session = shell.session({ owner: "agent-1" });
      await session.exec("cd sub && export MODE=sandboxed");
      const next = await session.exec('pwd; echo "$MODE"; ls');
      assert.equal(next.stdout.text, `${join(work, "sub")}\n${"sandboxed"}\nfile\n`);
      assert.deepEqual(session.env, { MODE: "sandboxed" });
      // Killed in the sandbox: nothing taken.
      await session.exec("cd /; export MODE=killed; sleep 30", { timeoutMs: 500 });
      assert.equal(session.cwd, join(work, "sub"));
      assert.deepEqual(session.env, { MODE: "sandboxed" });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("another owner's command cannot reach a session's state: no fd 9 to find, no state file to write", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-forge-");
    try {
      const work = join(base, "work");
      mkdirSync(work);
      await using shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { network: "none" } });
      const victim = shell.session({ owner: "victim" });
      const up = join(work, "up");
      const go = join(work, "go");
      const running = victim.exec(`touch ${shQuote(up)}; ${untilFileExists(go)}; export MINE=1`);
      assert.ok(await appeared(up, POLL_MS));
      // Every way a same-user command would try: the fds of every process it can see, every state file it can find.
      const forged = "/\\0PWNED=1\\0dsh-state-end\\0";
      const attack = await shell.exec(
        `hit=0
for f in /proc/[0-9]*/fd/9; do [ -e "$f" ] && printf '${forged}' > "$f" && hit=$((hit + 1)); done
for f in $(find / -xdev -name '.state-*' 2>/dev/null); do printf '${forged}' > "$f" && hit=$((hit + 1)); done
echo "hits $hit"`,
        { owner: "attacker" },
      );
      assert.equal(attack.stdout.text, "hits 0\n", attack.stderr.text);
      writeFileSync(go, "");
      assert.equal((await running).exitCode, 0);
      assert.equal(victim.cwd, work);
      assert.deepEqual(victim.env, { MINE: "1" });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
