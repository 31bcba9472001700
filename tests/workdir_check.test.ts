import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell, ShellSpawnError } from "../mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { rejection } from "./helpers/errors.ts";

/** The workdir check before spawning: a cheap directory test first, the full stat only when it fails. */
describe("the workdir check", () => {
  let work: string;
  let shell: Shell;
  before(() => {
    work = freshDir("dsh-workdir-");
    mkdirSync(join(work, "dir"));
    writeFileSync(join(work, "file"), "x");
    symlinkSync(join(work, "dir"), join(work, "link-to-dir"));
    symlinkSync(join(work, "file"), join(work, "link-to-file"));
    symlinkSync(join(work, "nowhere"), join(work, "dangling"));
    shell = createLocalShell({ workdir: work, graceMs: 300 });
  });
  after(async () => {
    await shell.close();
    removeDir(work);
  });

  const failure = async (workdir: string): Promise<ShellSpawnError> => {
    const error = await rejection(
      shell.run(shell.resolve({ command: "true", owner: null, workdir })),
      `${workdir}: run() resolved`,
    );
    assert.ok(error instanceof ShellSpawnError, String(error));
    assert.equal(error.path, join(work, workdir));
    return error;
  };

  it("runs in a directory, also through a symbolic link, and with a trailing slash", async () => {
    for (const workdir of ["dir", "link-to-dir", "dir/", "/"]) {
      const result = await shell.run(shell.resolve({ command: "pwd", owner: null, workdir }));
      assert.equal(result.exitCode, 0, workdir);
    }
  });

  it("a file, or a symbolic link to one, is not a directory", async () => {
    for (const workdir of ["file", "link-to-file"]) {
      assert.match((await failure(workdir)).message, /^workdir is not a directory: /);
    }
  });

  it("a missing path, or a dangling symbolic link, does not exist", async () => {
    for (const workdir of ["missing", "dangling", "file/below-a-file"]) {
      assert.match((await failure(workdir)).message, /^workdir does not exist: /);
    }
  });
});
