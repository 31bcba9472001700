/**
 * Attacks on where a sandboxed command's inherited fds are closed (issue
 * 41). The wrapper before bubblewrap is `dash` for a command without a
 * session's state, which cannot close an fd above 9: the mount check's step
 * inside closes every fd the harness let the child inherit, and lets the
 * command run only once bubblewrap's init (pid 1 inside, the command's
 * user, whose `/proc/1/fd` a command can open) holds none of them either.
 * Each test hands the launcher directory fds without close-on-exec (below
 * 10, above 10, and at the numbers the sandbox itself uses: 3, 4 and the
 * state's 9), as a careless parent of the harness would, then looks from
 * inside and checks the host: no file was written through them.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell } from "../mod.ts";
import type { ProcessAdapter, SpawnRequest } from "../src/seam/mod.ts";
import { isMountRefusal, mountCheckArgs } from "../src/seam/sandbox/mount_check.ts";
import { adaptersUnderTest } from "./helpers/adapters.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";

const skip = sandboxSkip();

/** The fds the launcher is handed, open on a host directory and not close-on-exec. */
const LEAKED = [3, 4, 7, 9, 12, 200];

/** What a command inside tries through each leaked fd, from itself and from the sandbox's init. */
const PROBE = [
  "echo self: $(ls /proc/self/fd | tr '\\n' ' ')",
  // The init's fds and what each is (the eventfd is bubblewrap's own).
  "for f in /proc/1/fd/*; do echo init: ${f##*/} $(readlink $f); done",
  ...LEAKED.map((fd) =>
    `(echo pwned > /proc/self/fd/${fd}/escaped-self-${fd}) 2>/dev/null && echo wrote-self-${fd}; ` +
    `(echo pwned > /proc/1/fd/${fd}/escaped-init-${fd}) 2>/dev/null && echo wrote-init-${fd}; true`
  ),
].join("\n");

/**
 * `base`, whose sandbox launcher (the spawn whose argv holds `dsh-sandbox`)
 * is started through a bash that first opens `LEAKED` on `dir` without
 * close-on-exec and writes the fds it then holds to `seen`; `programs`
 * gets each launcher's program.
 */
function leakingAdapter(base: ProcessAdapter, dir: string, seen: string, programs: string[]): ProcessAdapter {
  return {
    ...base,
    name: `leaking-${base.name}`,
    spawn(request: SpawnRequest) {
      if (!request.args.includes("dsh-sandbox")) return base.spawn(request);
      programs.push(request.program);
      const opens = LEAKED.map((fd) => `${fd}<"$1"`).join(" ");
      return base.spawn({
        ...request,
        program: "/bin/bash",
        args: [
          "--norc",
          "-c",
          `exec ${opens} && ls /proc/self/fd > "$2" && shift 2 && exec "$@"`,
          "leak",
          dir,
          seen,
          request.program,
          ...request.args,
        ],
      });
    },
  };
}

describe("an fd the harness inherited reaches neither a sandboxed command nor the sandbox's init", { skip }, () => {
  let base: string;
  before(() => base = mkdtempSync("/var/tmp/dsh-fds-"));
  after(() => rmSync(base, { recursive: true, force: true }));

  for (const adapter of adaptersUnderTest) {
    for (const kind of ["a command", "a session's command"] as const) {
      it(`${kind}, on the ${adapter.name} adapter`, async () => {
        const dir = mkdtempSync(join(base, "case-"));
        const outside = join(dir, "outside");
        const work = join(dir, "work");
        mkdirSync(outside);
        mkdirSync(work);
        const seen = join(dir, "launcher-fds");
        const programs: string[] = [];
        const shell = createLocalShell({
          workdir: work,
          sandbox: {},
          adapter: leakingAdapter(adapter, outside, seen, programs),
        });
        try {
          const result = kind === "a command"
            ? await shell.exec(PROBE, { stdoutMaxBytes: 65_536 })
            : await shell.session({ owner: null }).exec(PROBE, { stdoutMaxBytes: 65_536 });
          assert.equal(result.exitCode, 0, result.stderr.text);
          // The attack was mounted: the launcher itself held every leaked fd.
          const launcher = readFileSync(seen, "utf8").split("\n").filter((line) => line !== "").map(Number);
          for (const fd of LEAKED) assert.ok(launcher.includes(fd), `the launcher did not get fd ${fd}`);
          // The state's copier needs bash; a command without state starts bubblewrap from dash where there is one.
          const dash = ["/usr/bin/dash", "/bin/dash"].some((path) => existsSync(path));
          const expected = kind === "a command" && dash ? /\/dash$/ : /\/bash$/;
          assert.match(programs.at(-1) ?? "", expected);
          const lines = result.stdout.text.split("\n");
          // The command's own fds: 0–2 and ls's listing (3); a session's command also its state pipe (9).
          const self = lines.find((line) => line.startsWith("self:"));
          assert.equal(self, kind === "a command" ? "self: 0 1 2 3" : "self: 0 1 2 3 9");
          // The init: 0–2 and bubblewrap's eventfd, nothing of the host's.
          const init = lines.filter((line) => line.startsWith("init:"));
          assert.equal(init.length, 4, result.stdout.text);
          assert.deepEqual(init.slice(0, 3).map((line) => line.split(" ")[1]), ["0", "1", "2"]);
          assert.match(init[3], /^init: \d+ anon_inode:\[eventfd\]$/);
          assert.doesNotMatch(result.stdout.text, /wrote-/);
          assert.deepEqual(readdirSync(outside), [], "a file was written on the host through a leaked fd");
        } finally {
          await shell.close();
        }
      });
    }
  }
});

describe("the check waits for the sandbox's init to close what it inherited", { skip }, () => {
  let dir: string;
  before(() => dir = mkdtempSync("/var/tmp/dsh-fds-init-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Runs the guarded check as the child of a pid 1 (`bash`, bubblewrap's
   * `--as-pid-1`) that does `init` first, the check's own fd 7 open on a
   * host directory; the command lists its fds and writes through fd 7.
   */
  function underInit(init: string): { code: number | null; stdout: string; stderr: string } {
    const bash = "/bin/bash";
    const check = mountCheckArgs(bash, [], undefined, { keep: [] });
    const command = ["/bin/sh", "-c", `ls /proc/self/fd | tr '\\n' ' '; echo pwned > /proc/self/fd/7/escaped-7`];
    const run = spawnSync("bwrap", [
      "--unshare-user",
      "--unshare-pid",
      "--as-pid-1",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--bind",
      dir,
      dir,
      "--",
      bash,
      "--norc",
      "-c",
      // pid 1 closes what the test runner let it inherit, then starts the check as its child and waits for it: it
      // keeps what `init` opened.
      `for fd in /proc/self/fd/*; do fd=\${fd##*/}; case $fd in 0|1|2) ;; *) exec {fd}<&- ;; esac; done; ` +
      `${init} "$@" 7<"${dir}"; exit $?`,
      "pid-1",
      ...check,
      ...command,
    ], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  it("an init that holds a host directory: refused, the command never ran", () => {
    const run = underInit(`exec 9<"${dir}";`);
    assert.equal(run.code, 125, run.stderr);
    assert.equal(isMountRefusal(run.code ?? undefined, run.stderr), true, run.stderr);
    assert.match(run.stderr, /the sandbox's init still holds fds it inherited/);
    assert.equal(run.stdout, "");
    assert.equal(existsSync(join(dir, "escaped-7")), false);
  });

  it("an init that holds nothing more: the command runs, without the fd the check inherited", () => {
    const run = underInit("");
    // sh's own refusal of the path: fd 7 is not there.
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "0 1 2 3 ");
    assert.equal(existsSync(join(dir, "escaped-7")), false);
  });
});
