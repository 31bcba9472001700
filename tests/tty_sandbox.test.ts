/**
 * A command on a terminal in a sandboxed shell: the terminal reaches the
 * command through bubblewrap, typed characters still signal it, the
 * sandbox's rules still hold, nothing is left after a kill or `close()`,
 * and the terminal is the command's own: it cannot inject input into
 * another command's terminal (TIOCSTI) nor reach a virtual console
 * (TIOCLINUX). Skipped where bubblewrap is missing (never in CI).
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { createLocalShell, type Shell, type ShellTask } from "../mod.ts";
import { procInfo, runningSessionMembers, runningWithEnv } from "./helpers/proc.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { eventually } from "./helpers/wait.ts";

const skip = sandboxSkip();

/** Reads a task's stdout until `pattern` shows up; fails after `withinMs`. */
async function outputUntil(task: ShellTask, pattern: RegExp, withinMs = 10_000): Promise<string> {
  let seen = "";
  const deadline = Date.now() + withinMs;
  while (!pattern.test(seen)) {
    const left = deadline - Date.now();
    assert.ok(left > 0, `no ${pattern} in the output within ${withinMs} ms: ${JSON.stringify(seen)}`);
    await task.waitForOutput({ timeoutMs: left });
    seen += task.read().stdout;
  }
  return seen;
}

/** Waits until some process of session `sid` runs `name` (through the sandbox's pid namespace, seen from here). */
async function runsInSession(sid: number, name: string): Promise<number> {
  let pid: number | undefined;
  const found = await eventually(() => {
    pid = runningSessionMembers(sid).find((member) => procInfo(member)?.comm === name);
    return pid !== undefined;
  });
  assert.ok(found && pid !== undefined, `no ${name} ever ran in session ${sid}`);
  return pid;
}

async function withSandbox(body: (shell: Shell, workdir: string) => Promise<void>): Promise<void> {
  const workdir = mkdtempSync("/var/tmp/dsh-tty-sandbox-");
  const shell = createLocalShell({ workdir, graceMs: 500, sandbox: {} });
  try {
    await body(shell, workdir);
  } finally {
    await shell.close();
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** Python that asks the kernel for `request` on fd 0 with `arg` and prints `ok` or the errno's name. */
function ioctlScript(request: string, arg: string): string {
  return `python3 -c 'import errno, fcntl, termios
try:
    fcntl.ioctl(0, ${request}, ${arg}); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])'`;
}

describe("a sandboxed command on a terminal", { skip }, () => {
  it("has its terminal, of its size, and the sandbox still holds", async () => {
    await withSandbox(async (shell) => {
      const result = await shell.exec(
        '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo tty; stty size; echo "$TERM"; ' +
          "touch /etc/dsh-tty-escape 2>/dev/null || echo read-only; echo to-stderr >&2",
        { tty: { columns: 91, rows: 21 } },
      );
      assert.equal(result.exitCode, 0, result.stdout.text);
      assert.equal(result.stdout.text, "tty\r\n21 91\r\nxterm-256color\r\nread-only\r\nto-stderr\r\n");
      assert.equal(result.stderr.text, "");
    });
  });

  it("answers a python3 prompt, and Ctrl-C reaches the foreground program inside", async () => {
    await withSandbox(async (shell) => {
      const prompt = shell.start(shell.resolve({
        command: `python3 -c 'x = input("name? "); print("hi", x)'`,
        owner: "agent",
        tty: true,
      }));
      await outputUntil(prompt, /name\? $/);
      await prompt.write("ann\r");
      assert.equal((await prompt.done).exitCode, 0);
      assert.match(prompt.read().stdout, /hi ann\r\n$/);

      const sleeper = shell.start(shell.resolve({
        command: "trap 'echo interrupted' INT; sleep 30; echo \"sleep ended: $?\"",
        owner: "agent",
        tty: true,
      }));
      await runsInSession(sleeper.pid, "sleep");
      await sleeper.write("\x03");
      const result = await sleeper.done;
      assert.equal(result.exitCode, 0);
      assert.match(result.stdout.text, /interrupted\r\nsleep ended: 130\r\n$/);
    });
  });

  it("leaves nothing running after kill() and close(), setsid inside included", async () => {
    await withSandbox(async (shell) => {
      const value = randomBytes(8).toString("hex");
      const start = () =>
        shell.start(shell.resolve({
          command: "setsid sleep 300 & echo started; sleep 300",
          owner: "agent",
          tty: true,
          env: { DSH_TTY_TEST: value },
        }));
      const killed = start();
      const closed = start();
      await Promise.all([outputUntil(killed, /started/), outputUntil(closed, /started/)]);
      assert.ok(await eventually(() => runningWithEnv("DSH_TTY_TEST", value).length >= 4), "both sleep pairs run");
      assert.equal(killed.kill(), true);
      await killed.done;
      await shell.close();
      assert.equal(closed.status, "killed");
      assert.ok(await eventually(() => runningWithEnv("DSH_TTY_TEST", value).length === 0), "a sleep outlived them");
    });
  });
});

describe("a sandboxed command's terminal is its own", { skip }, () => {
  it("TIOCSTI types only into its own input: another task's terminal is not there to reach", async () => {
    await withSandbox(async (shell) => {
      // The victim: a task reading a line from its terminal.
      const victim = shell.start(
        shell.resolve({ command: 'read -r line; echo "victim read: $line"', owner: "a", tty: true }),
      );
      const reader = await runsInSession(victim.pid, "bash");
      const victimTerminal = readlinkSync(`/proc/${reader}/fd/0`);
      assert.match(victimTerminal, /^\/dev\/pts\/\d+$/);
      // The attacker, another owner's sandboxed command: the victim's terminal does not exist in its /dev, and the
      // victim's processes are not in its /proc (a pid namespace of its own).
      const probe = await shell.exec(
        `[ -e ${victimTerminal} ] && echo visible || echo absent; ls /proc/${reader}/fd >/dev/null 2>&1 && echo fds || echo no-fds; ` +
          ioctlScript("termios.TIOCSTI", 'b"x"'),
        { owner: "b", tty: true },
      );
      // TIOCSTI on its own terminal is allowed (the kernel's rule: one's controlling terminal) and lands in its own
      // input only, which it could have typed anyway: the terminal echoes the "x" it typed, before python's "ok".
      assert.deepEqual(probe.stdout.text.split("\r\n"), ["absent", "no-fds", "xok", ""], probe.stdout.text);
      // A task, not run(): run() ends the input at once, and that end-of-file would come before what it types.
      const own = shell.start(shell.resolve({
        command: `python3 -c 'import fcntl, termios
for c in b"typed-by-itself\\n": fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))'; read -r line; echo "read: $line"`,
        owner: "b",
        tty: true,
      }));
      assert.match((await own.done).stdout.text, /read: typed-by-itself\r\n$/);
      // The victim saw none of it: it still waits, and reads only what its own owner types.
      assert.equal(victim.status, "running");
      await victim.write("from-its-owner\r");
      await victim.done;
      assert.match(victim.read().stdout, /victim read: from-its-owner\r\n$/);
    });
  });

  it("TIOCLINUX has no virtual console to act on", async () => {
    await withSandbox(async (shell) => {
      // 12 = TIOCL_GETMOUSEREPORTING, a harmless read: it fails on anything but a virtual console.
      const result = await shell.exec(
        "ls /dev/tty0 /dev/tty1 /dev/vcs 2>/dev/null || echo no-consoles; " +
          ioctlScript("0x541C", "bytes([12])"),
        { tty: true },
      );
      const lines = result.stdout.text.split("\r\n");
      assert.equal(lines[0], "no-consoles", result.stdout.text);
      assert.notEqual(lines[1], "ok", "TIOCLINUX worked on a pseudo-terminal");
    });
  });
});
