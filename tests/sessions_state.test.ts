/**
 * A session's state is read bounded, never waiting on the command, and only
 * from the file the library made (`maxSessionStateBytes`): the attacks of
 * red team 4 on the state channel, each checked from the OS. A FIFO, a
 * symlink, a sparse or oversized file at the state's path is refused with
 * a `sessionNote`, the session stays as it was, and the host neither
 * freezes nor grows; inside the sandbox, nothing written to fd 9 puts more
 * than the bound on the host's disk.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createLocalShell, DEFAULTS, ShellClosedError } from "../mod.ts";
import { assertSpecErrorNaming } from "./helpers/errors.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { parseState } from "../src/seam/carry/state.ts";
import { withShell } from "./helpers/shell.ts";
import { untilFileExists } from "./helpers/bash.ts";
import { appeared, within } from "./helpers/wait.ts";

/** Shell code that puts the path of its own state file (named in its own command line, the trap's) in `$f`. */
const FIND_STATE = `f=$(printf %s "$BASH_EXECUTION_STRING" | grep -o "/[^']*/\\.state-[0-9a-f]*" | head -n 1)
[ -n "$f" ] || { echo "no state path" >&2; exit 99; }`;

/** Long enough for any state read that does not wait on the command; far shorter than a frozen host's wait. */
const SETTLE_MS = 30_000;

describe("a state that is no state is refused, and the session stays as it was", () => {
  it("the default bound is 1 MiB, and a shell option sets it", () => {
    assert.equal(DEFAULTS.maxSessionStateBytes, 1024 * 1024);
    assert.throws(() => createLocalShell({ maxSessionStateBytes: 0 }), /maxSessionStateBytes/);
  });

  it("a FIFO put at the state's path neither freezes the host nor changes the session", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      await session.exec("export KEEP=1");
      // On 7888e55 the host's readFileSync of the FIFO blocked its event loop for ever.
      const result = await within(session.exec(`${FIND_STATE}\ntrap '' EXIT; rm -f "$f"; mkfifo "$f"`), SETTLE_MS);
      assert.notEqual(result, "timed out");
      if (result === "timed out") return;
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.match(result.sessionNote ?? "", /^session state refused: its file was removed or replaced/);
      assert.equal(result.sessionNote?.includes("\n"), false);
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, { KEEP: "1" });
      // The session still runs commands, and takes their state again.
      await session.exec("export NEXT=2");
      assert.deepEqual(session.env, { KEEP: "1", NEXT: "2" });
    });
  });

  it("a sparse 1.5 GB state is never read: the host does not grow", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      const before = process.memoryUsage().rss;
      const result = await session.exec(`${FIND_STATE}\ntrap 'truncate -s 1500M "$f"' EXIT; cd /; export EVIL=1`);
      const grown = process.memoryUsage().rss - before;
      // On 7888e55 the host read all 1.5 GB into memory before it looked at the size.
      assert.ok(grown < 256 * 1024 * 1024, `the host grew by ${grown} bytes`);
      assert.match(result.sessionNote ?? "", /larger than maxSessionStateBytes \(1572864000 > 1048576 bytes\)/);
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, {});
    });
  });

  it("a state over maxSessionStateBytes is refused by name; one under it is taken", async () => {
    await withShell({ maxSessionStateBytes: 64 * 1024 }, async (shell) => {
      const session = shell.session({ owner: null });
      const big = await session.exec("export BIG=$(head -c 70000 /dev/zero | tr '\\0' x)");
      assert.match(big.sessionNote ?? "", /larger than maxSessionStateBytes \(\d+ > 65536 bytes\)/);
      assert.deepEqual(session.env, {});
      const fits = await session.exec("export FITS=$(head -c 30000 /dev/zero | tr '\\0' x)");
      assert.equal(fits.sessionNote, undefined);
      assert.equal(session.env.FITS?.length, 30000);
    });
  });

  it("a symlink or another file put at the state's path is refused, never followed", async () => {
    await withShell({}, async (shell, dir) => {
      const session = shell.session({ owner: null });
      const decoy = join(dir, "decoy");
      const forged = `printf '/\\n\\0FORGED=1\\0dsh-state-end\\0' > ${decoy}`;
      const linked = await session.exec(`${FIND_STATE}\n${forged}; trap '' EXIT; rm -f "$f"; ln -s ${decoy} "$f"`);
      assert.match(linked.sessionNote ?? "", /removed or replaced/);
      const moved = await session.exec(`${FIND_STATE}\n${forged}; trap '' EXIT; rm -f "$f"; cp ${decoy} "$f"`);
      assert.match(moved.sessionNote ?? "", /removed or replaced/);
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, {});
    });
  });

  it("a state file still written by a background process is refused or whole, never read past its size", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      // The writer appends for as long as it lives; whatever the read sees, it is bounded, and the session is not
      // left with a part of what the writer wrote.
      const result = await session.exec(
        `${FIND_STATE}\n(trap '' PIPE; exec 2>/dev/null; while :; do printf 'X=%s\\0' 1234567890 >> "$f" || exit; done) & ` +
          "export MINE=1",
      );
      assert.equal(result.exitCode, 0);
      assert.equal(Object.hasOwn(session.env, "X"), false);
      await session.close();
    });
  });
});

describe("inside the sandbox, fd 9 is no way onto the host's disk", { skip: sandboxSkip() }, () => {
  it("writing 20 MiB to fd 9 leaves at most the bound and one byte in the host's state file", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-fill-");
    try {
      const work = join(base, "work");
      mkdirSync(work);
      const max = 64 * 1024;
      await using shell = createLocalShell({
        workdir: work,
        graceMs: 300,
        maxSessionStateBytes: max,
        sandbox: { network: "none", tmpMaxBytes: 1024 * 1024 },
      });
      const session = shell.session({ owner: "agent" });
      const token = `fill-${process.pid}-${Date.now()}`;
      const [ready, go, written, done] = ["ready", "go", "written", "done"].map((name) => join(work, name));
      const running = session.exec(
        `: ${token}; touch ready; ${untilFileExists(go)}; head -c 20971520 /dev/zero >&9; touch written; ` +
          `${untilFileExists(done)}; export AFTER=1`,
      );
      assert.ok(await appeared(ready, SETTLE_MS));
      // The host's copy of the state is named in the copier's command line (a fork of the launcher, reading).
      const files = stateFilesOf(token);
      assert.equal(files.length, 1, "the copier of the state was not found on the host");
      writeFileSync(go, "");
      assert.ok(await appeared(written, SETTLE_MS));
      const size = statSync(files[0]).size;
      writeFileSync(done, "");
      const result = await running;
      assert.equal(result.exitCode, 0, result.stderr.text);
      // On 7888e55 fd 9 was the host file itself: 20 MiB landed on the host's disk.
      assert.equal(size, max + 1);
      // The state written after the garbage is refused: the garbage is part of it.
      assert.match(result.sessionNote ?? "", /larger than maxSessionStateBytes/);
      assert.deepEqual(session.env, {});
      // A sparse file is no way either: fd 9 is a pipe.
      const sparse = await session.exec("truncate -s 1500M /proc/self/fd/9; export NEXT=1");
      assert.equal(sparse.exitCode, 0);
      assert.deepEqual(session.env, { NEXT: "1" });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a background process left holding fd 9 neither holds the result nor spoils the state", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-hold-");
    try {
      const work = join(base, "work");
      mkdirSync(work);
      await using shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { network: "none" } });
      const session = shell.session({ owner: "agent" });
      const result = await session.exec("sleep 60 & export HELD=1; cd /");
      assert.equal(result.exitCode, 0);
      assert.equal(result.sessionNote, undefined);
      assert.deepEqual(session.env, { HELD: "1" });
      assert.equal(session.cwd, "/");
      await session.close();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/** The host paths of the state files that the sandbox's copiers of a command holding `token` write. */
function stateFilesOf(token: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
    } catch {
      continue;
    }
    // The launcher's argv: bash --norc -p -c WRAPPER dsh-sandbox STATUS SECCOMP STATE MAX …
    const at = argv.indexOf("dsh-sandbox");
    if (at < 0 || argv[at + 3] === undefined || argv[at + 3] === "") continue;
    if (argv.some((arg) => arg.includes(token))) files.push(argv[at + 3]);
  }
  return files;
}

describe("a session never takes what its next command could not start with", () => {
  it("a variable over 128 KiB is not taken, and named; the next command runs", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      const big = await session.exec("export BIG=$(head -c 200000 /dev/zero | tr '\\0' x); export SMALL=1");
      assert.equal(big.exitCode, 0);
      assert.match(big.sessionNote ?? "", /^session variables not carried .*: BIG \(200005 bytes, over 131072/);
      assert.deepEqual(session.env, { SMALL: "1" });
      // On 7888e55 every later command of the session was a ShellSpawnError (E2BIG), `unset BIG` included.
      const next = await session.exec('echo "${BIG-unset} $SMALL"');
      assert.equal(next.stdout.text, "unset 1\n");
      assert.equal(next.sessionNote, undefined);
    });
  });

  it("variables that together would pass the bound: the largest the command set are not taken", async () => {
    await withShell({ maxSessionStateBytes: 8 * 1024 * 1024 }, async (shell) => {
      const session = shell.session({ owner: null });
      await session.exec("export KEPT=1");
      const many = await session.exec(
        "i=0; while [ $i -lt 20 ]; do i=$((i + 1)); export V$i=$(head -c $((110000 + i)) /dev/zero | tr '\\0' x); done",
      );
      assert.equal(many.exitCode, 0);
      const names = Array.from({ length: 11 }, (_, at) => `V${20 - at}`).join(", ");
      assert.ok(many.sessionNote?.endsWith(`: ${names} (together over 1048576 bytes)`), many.sessionNote);
      assert.equal(many.sessionNote?.includes("\n"), false);
      assert.equal(session.env.KEPT, "1");
      assert.equal(session.env.V20, undefined);
      assert.equal(session.env.V1?.length, 110001);
      // On 7888e55 the session took all 2.2 MB, and every later command was a ShellSpawnError (E2BIG).
      const next = await session.exec("echo ok");
      assert.equal(next.stdout.text, "ok\n");
    });
  });
});

describe("trusted code takes back what a session carries", () => {
  it("managed names are not carried in any case: dsh_owner, Dsh_Session, bash_func_x", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: "agent" });
      // On 7888e55 the carry's DSH_ check was case-sensitive: these two were carried.
      await session.exec("export dsh_owner=evil Dsh_Session=forged bash_func_x=1 KEPT=1");
      assert.deepEqual(session.env, { KEPT: "1" });
      const next = await session.exec('echo "${dsh_owner-none} ${Dsh_Session-none}"');
      assert.equal(next.stdout.text, "none none\n");
    });
  });

  it("unset() forgets what the session carries for those names, from the next command on", async () => {
    await withShell({ ambientEnv: { PATH: "/usr/bin:/bin", HOME: "/home/x" } }, async (shell, dir) => {
      const session = shell.session({ owner: null });
      await session.exec("export TOKEN=secret PATH=/planted:$PATH MODE=dev; unset HOME");
      assert.deepEqual(session.env, { TOKEN: "secret", PATH: "/planted:/usr/bin:/bin", MODE: "dev", HOME: undefined });
      session.unset("TOKEN", "PATH", "HOME", "NEVER_SET");
      assert.deepEqual(session.env, { MODE: "dev" });
      const next = await session.exec('echo "${TOKEN-gone} $PATH $HOME $MODE"; pwd');
      assert.equal(next.stdout.text, `gone /usr/bin:/bin /home/x dev\n${dir}\n`);
      assert.throws(() => session.unset(7 as unknown as string), (error: Error) => /names\[0\]/.test(error.message));
      await session.close();
      assert.throws(() => session.unset("MODE"), ShellClosedError);
      assert.throws(() => session.reset(), ShellClosedError);
    });
  });

  it("reset() returns to the workdir and variables the session was made with", async () => {
    await withShell({}, async (shell, dir) => {
      mkdirSync(join(dir, "sub"));
      const session = shell.session({ owner: null, env: { SEED: "1", GONE: undefined } });
      await session.exec("cd sub && export MODE=dev SEED=2 GONE=back");
      assert.equal(session.cwd, join(dir, "sub"));
      session.reset();
      assert.equal(session.cwd, dir);
      assert.deepEqual(session.env, { SEED: "1", GONE: undefined });
      const next = await session.exec('pwd; echo "$SEED ${MODE-none} ${GONE-none}"');
      assert.equal(next.stdout.text, `${dir}\n1 none none\n`);
    });
  });
});

describe("a session's sandbox is fixed at creation", { skip: sandboxSkip() }, () => {
  it("a model's planted PATH never reaches an unsandboxed call: sandbox: false on a call is refused by name", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-fixed-");
    // A directory of the host's /tmp: the sandbox's /tmp is the owner's own, so only a command outside sees it.
    const hostOnly = mkdtempSync(join(tmpdir(), "dsh-session-host-"));
    try {
      const work = join(base, "work");
      mkdirSync(work);
      await using shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { network: "none" } });
      const session = shell.session({ owner: "model" });
      await session.exec(
        "mkdir -p bin && printf '#!/bin/sh\\necho planted\\n' > bin/git && chmod +x bin/git && " +
          'export PATH="$PWD/bin:$PATH" LD_PRELOAD="$PWD/evil.so"',
      );
      assert.equal(session.env.PATH?.startsWith(join(work, "bin")), true);
      // On 7888e55 this ran the planted git on the host, outside the sandbox.
      const refused = await session.exec("git --version", { sandbox: false }).then(() => undefined, (error) => error);
      assertSpecErrorNaming(refused, "sandbox");
      assert.throws(() => session.start("git --version", { sandbox: false }), (error: Error) => {
        assertSpecErrorNaming(error, "sandbox");
        return true;
      });
      const inside = await session.exec(`[ -e ${hostOnly} ] && echo host || echo sandbox`);
      assert.equal(inside.stdout.text, "sandbox\n");

      // Trusted code's own session, outside the sandbox, from creation; a call may not put it back in either.
      const trusted = shell.session({ owner: "ops", sandbox: false });
      const outside = await trusted.exec(`[ -e ${hostOnly} ] && echo host || echo sandbox`);
      assert.equal(outside.stdout.text, "host\n");
      assert.equal((await trusted.exec("echo same", { sandbox: false })).stdout.text, "same\n");
      assert.throws(() => shell.session({ owner: "x", sandbox: true as unknown as false }), /sandbox/);
    } finally {
      rmSync(base, { recursive: true, force: true });
      rmSync(hostOnly, { recursive: true, force: true });
    }
  });
});

describe("a sandboxed command's environment is in no argv", { skip: sandboxSkip() }, () => {
  it("a secret value never appears in any process's command line, and the command still gets it", async () => {
    const base = mkdtempSync("/var/tmp/dsh-session-argv-");
    try {
      const work = join(base, "work");
      mkdirSync(work);
      await using shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { network: "none" } });
      const secret = `s3cr3t-${process.pid}-${Date.now()}`;
      const [up, go] = ["up", "go"].map((name) => join(work, name));
      const running = shell.exec(
        `touch up; ${untilFileExists(go)}; printf '%s|%s' "$TOKEN" "\${DSH_SANDBOX_ENV_0-none}"`,
        {
          owner: "agent",
          env: { TOKEN: secret, LD_PRELOAD: "" },
        },
      );
      assert.ok(await appeared(up, SETTLE_MS));
      // Every process of the host, the launcher, bubblewrap and the command's included: `ps` shows them all to
      // every user. On 7888e55 bubblewrap's argv held `--setenv TOKEN <secret>`.
      const holders = readdirSync("/proc").filter((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        try {
          return readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(secret);
        } catch {
          return false;
        }
      });
      writeFileSync(go, "");
      const result = await running;
      assert.deepEqual(holders, []);
      assert.equal(result.stdout.text, `${secret}|none`, result.stderr.text);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("a session's command sees nothing of the library's prelude", () => {
  it("$LINENO counts from the command's own first line", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      // On 7888e55 the trap's line came first: the command's first line was line 2.
      const result = await session.exec("echo $LINENO\necho $LINENO; export AFTER=1");
      assert.equal(result.stdout.text, "1\n2\n");
      assert.deepEqual(session.env, { AFTER: "1" });
    });
  });

  it("trap and trap -p list the command's own traps only, and the state is still handed on", async () => {
    await withShell({}, async (shell) => {
      const session = shell.session({ owner: null });
      // On 7888e55 both listed the library's EXIT trap, its dump included.
      const none = await session.exec("trap -p; trap; trap -p EXIT; export NONE=1");
      assert.equal(none.stdout.text, "");
      const own = await session.exec("trap 'echo int' INT; trap -p; export OWN=1");
      assert.equal(own.stdout.text, "trap -- 'echo int' SIGINT\n");
      assert.deepEqual(session.env, { NONE: "1", OWN: "1" });
    });
  });
});

describe("a spoiled state hands on no name a command could not start with", () => {
  it("bytes a command wrote into its own state never become a variable's name", () => {
    // As a background writer on fd 9 left it on SSH: its lines glued to the front of the dump's next entry. On the
    // code before this, the session took that name, and every later command on the engine was refused for it.
    const spoiled = "/work\n\0\ndsh-sup fail forged\n\nMAIL=/var/mail\0A-B=1\0OK=1\0dsh-state-end\0";
    const change = parseState(spoiled, { KEEP: "1", "A-B": "0" });
    assert.deepEqual(change, { cwd: "/work", env: { OK: "1", KEEP: undefined } });
  });
});
