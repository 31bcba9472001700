/**
 * `shell.files()` on the Docker and SSH engines: the files are the
 * engine's. In a container they are written there and nowhere on the host
 * (busybox's tools only); over SSH they are written as the login user, and
 * what that user may not write is refused by its kernel.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import process from "node:process";
import { createShell, type Shell, ShellFileError, type ShellFiles } from "../mod.ts";
import { dockerEngine, sshEngine } from "../src/engines/mod.ts";
import { DockerDaemon, dockerUnavailable } from "./helpers/docker_daemon.ts";
import { rejection } from "./helpers/errors.ts";
import { SSH_USER, SshDaemon, sshUnavailable } from "./helpers/ssh_daemon.ts";

const REQUIRED = process.env.DSH_REQUIRE_ENGINES === "1";
const dockerMissing = dockerUnavailable();
const sshMissing = sshUnavailable();

const PATCH = [
  "*** Begin Patch",
  "*** Add File: made/new.txt",
  "+added",
  "*** Update File: notes.txt",
  "@@",
  "-two",
  "+2",
  "*** End Patch",
].join("\n");

/** Write, read, edit and a patch, through `files`, in `dir` on the engine; `cat` reads a file there from outside. */
async function roundTrip(files: ShellFiles, dir: string, cat: (path: string) => string | undefined): Promise<void> {
  const written = await files.write(`${dir}/notes.txt`, "one\ntwo\nthree\n");
  assert.equal(written.created, true);
  assert.equal(cat(`${dir}/notes.txt`), "one\ntwo\nthree\n");
  const read = await files.read(`${dir}/notes.txt`, { offset: 2, limit: 1 });
  assert.deepEqual([read.text, read.startLine, read.truncated, read.size], ["two\n", 2, true, 14]);
  await files.edit(`${dir}/notes.txt`, { oldString: "three", newString: "3" });
  assert.equal(cat(`${dir}/notes.txt`), "one\ntwo\n3\n");
  const before = cat(`${dir}/notes.txt`);
  const twice = await rejection(files.edit(`${dir}/notes.txt`, { oldString: "o", newString: "0" }));
  assert.ok(twice instanceof ShellFileError && twice.code === "EDITMATCH", String(twice));
  assert.equal(cat(`${dir}/notes.txt`), before);
  // The patch is read relative to the shell's workdir.
  const changes = await files.applyPatch(
    PATCH.replaceAll("made/", `${dir}/made/`).replace("notes.txt", `${dir}/notes.txt`),
  );
  assert.deepEqual(changes.map((change) => change.action), ["add", "update"]);
  assert.equal(cat(`${dir}/made/new.txt`), "added\n");
  assert.equal(cat(`${dir}/notes.txt`), "one\n2\n3\n");
  const missing = await rejection(files.read(`${dir}/absent`));
  assert.ok(missing instanceof ShellFileError && missing.code === "ENOENT", String(missing));
  const directory = await rejection(files.read(dir));
  assert.ok(directory instanceof ShellFileError && directory.code === "EISDIR", String(directory));
  const named = await files.write(`${dir}/a\nb`, "newline\n");
  assert.equal(cat(named.path), "newline\n");
}

describe("shell.files() on the Docker engine: the container's files", { skip: !REQUIRED && dockerMissing }, () => {
  let docker: DockerDaemon;
  let container: string;
  let shell: Shell;

  before(async () => {
    docker = await DockerDaemon.start();
    container = docker.run(`dsh-files-${process.pid}`);
    shell = createShell(dockerEngine({ container, dockerHost: docker.host }), {
      workdir: "/tmp",
      shell: "sh",
      timeoutMs: 30_000,
    });
  });
  after(async () => {
    await shell?.close();
    await docker?.stop();
  });

  it("write, read, edit and a patch happen in the container, and nothing on the host", async () => {
    const dir = `/tmp/dsh-files-${randomBytes(6).toString("hex")}`;
    assert.equal((await shell.exec(`mkdir ${dir}`)).exitCode, 0);
    const cat = (path: string): string | undefined => {
      const out = docker.cli(["exec", container, "cat", path]);
      return out.status === 0 ? out.stdout : undefined;
    };
    await roundTrip(shell.files({ owner: "agent-1" }), dir, cat);
    assert.equal(existsSync(dir), false, "the host has no such directory");
  });
});

describe("shell.files() on the SSH engine: the login user's files", { skip: !REQUIRED && sshMissing }, () => {
  let sshd: SshDaemon;
  let shell: Shell;
  let dir: string;
  let locked: string;

  before(async () => {
    sshd = await SshDaemon.start();
    // A directory the login user may write (its own), and one it may only read (root's, 0755).
    dir = mkdtempSync("/var/tmp/dsh-files-ssh-");
    chmodSync(dir, 0o777);
    locked = mkdtempSync("/var/tmp/dsh-files-locked-");
    chmodSync(locked, 0o755);
    writeFileSync(`${locked}/root.txt`, "root's\n");
    chmodSync(`${locked}/root.txt`, 0o644);
    shell = createShell(
      sshEngine({
        host: "127.0.0.1",
        port: sshd.port,
        user: SSH_USER,
        identityFile: sshd.identityFile,
        knownHostsFile: sshd.knownHostsFile,
      }),
      { workdir: "/", shell: "sh", timeoutMs: 30_000 },
    );
  });
  after(async () => {
    await shell?.close();
    await sshd?.stop();
    for (const path of [dir, locked]) if (path !== undefined) rmSync(path, { recursive: true, force: true });
  });

  it("write, read, edit and a patch, written as the login user", async () => {
    const cat = (path: string): string | undefined => existsSync(path) ? readFileSync(path, "utf8") : undefined;
    await roundTrip(shell.files({ owner: "agent-1" }), dir, cat);
    const owner = statSync(`${dir}/notes.txt`).uid;
    assert.notEqual(owner, process.getuid?.(), "written by the login user, not by this process");
  });

  it("what the login user may not write is refused by its kernel, and left as it was", async () => {
    const files = shell.files({ owner: "agent-1" });
    assert.equal((await files.read(`${locked}/root.txt`)).text, "root's\n");
    const error = await rejection(files.edit(`${locked}/root.txt`, { oldString: "root", newString: "mine" }));
    assert.ok(error instanceof ShellFileError && error.code === "EACCES", String(error));
    assert.equal(readFileSync(`${locked}/root.txt`, "utf8"), "root's\n");
    const created = await rejection(files.write(`${locked}/new.txt`, "x"));
    assert.ok(created instanceof ShellFileError && created.code === "EACCES", String(created));
    assert.equal(existsSync(`${locked}/new.txt`), false);
  });
});
