/**
 * `shell.files()`: read, write, edit and applyPatch where the shell's
 * commands run. Locally; under the sandbox, where the kernel refuses what a
 * command could not do (and the disk is checked: nothing written, nothing
 * half-written); and against bad input, each refused with a clear error
 * naming the field or the path.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  createLocalShell,
  type Shell,
  type ShellEvent,
  ShellFileError,
  type ShellFiles,
  ShellSpecError,
} from "../mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { rejection } from "./helpers/errors.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";

/** The rejection of `promise`, which must be a ShellFileError with `code` naming `path`. */
async function fileError(promise: Promise<unknown>, code: string, path: string): Promise<ShellFileError> {
  const error = await rejection(promise);
  assert.ok(error instanceof ShellFileError, `not a ShellFileError: ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.equal(error.path, path);
  assert.ok(error.message.startsWith(`${JSON.stringify(path)}: `), error.message);
  return error;
}

/** The rejection of `promise` (or the throw of a call), which must be a ShellSpecError naming `field`. */
async function specError(call: () => Promise<unknown>, field: string): Promise<ShellSpecError> {
  let error: unknown;
  try {
    await call();
  } catch (thrown) {
    error = thrown;
  }
  assert.ok(error instanceof ShellSpecError, `not a ShellSpecError: ${String(error)}`);
  assert.equal(error.field, field);
  return error;
}

describe("shell.files(): locally", () => {
  let dir: string;
  let shell: Shell;
  let files: ShellFiles;
  const events: ShellEvent[] = [];

  before(() => {
    dir = freshDir("dsh-files-");
    shell = createLocalShell({ workdir: dir });
    shell.events.subscribe((event) => void events.push(event));
    files = shell.files({ owner: "agent-1" });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("write, read, edit: the file on disk is what was written; a replaced file keeps its mode", async () => {
    const written = await files.write("notes.txt", "one\ntwo\nthree\n");
    assert.deepEqual(written, { path: join(dir, "notes.txt"), bytes: 14, created: true });
    assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "one\ntwo\nthree\n");
    chmodSync(join(dir, "notes.txt"), 0o751);
    const edited = await files.edit("notes.txt", { oldString: "two", newString: "2" });
    assert.deepEqual(edited, { path: join(dir, "notes.txt"), bytes: 12, replacements: 1 });
    assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "one\n2\nthree\n");
    assert.equal(statSync(join(dir, "notes.txt")).mode & 0o777, 0o751);
    const again = await files.write(join(dir, "notes.txt"), "new");
    assert.equal(again.created, false);
    const read = await files.read("notes.txt");
    assert.deepEqual(read, {
      path: join(dir, "notes.txt"),
      text: "new",
      startLine: 1,
      lineCount: 1,
      size: 3,
      truncated: false,
    });
    // No temporary file is left beside it.
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith(".dsh-")), []);
  });

  it("read: offset and limit pick lines; a cut says where to read on; an offset past the end says how many lines", async () => {
    writeFileSync(join(dir, "lines.txt"), "a\nb\nc\nd");
    const middle = await files.read("lines.txt", { offset: 2, limit: 2 });
    assert.deepEqual([middle.text, middle.startLine, middle.lineCount, middle.truncated], ["b\nc\n", 2, 2, true]);
    assert.match(middle.note ?? "", /offset 4/);
    const tail = await files.read("lines.txt", { offset: 4 });
    assert.deepEqual([tail.text, tail.truncated, tail.note], ["d", false, undefined]);
    const past = await files.read("lines.txt", { offset: 9 });
    assert.deepEqual([past.text, past.totalLines], ["", 4]);
    assert.match(past.note ?? "", /offset 9 is past the end: the file has 4 lines/);
    await specError(() => files.read("lines.txt", { offset: 0 }), "offset");
    await specError(() => files.read("lines.txt", { limit: 1.5 }), "limit");
  });

  it("a 1 GiB sparse file: a read is cut at 256 KiB, not loaded; an edit refuses it and leaves it as it was", async () => {
    const big = join(dir, "big.log");
    writeFileSync(big, "x".repeat(300 * 1024) + "\nsecond line\n");
    truncateSync(big, 2 ** 30);
    const read = await files.read(big);
    assert.equal(read.size, 2 ** 30);
    assert.equal(read.truncated, true);
    assert.equal(read.text, "x".repeat(256 * 1024));
    assert.match(
      read.note ?? "",
      /^cut at 256 KiB inside line 1, which is longer than that; the file is 1073741824 bytes/,
    );
    // Lines that fit: the cut falls at a line's end, and the note says where to read on.
    const lines = join(dir, "lines.log");
    writeFileSync(lines, `${"y".repeat(1000)}\n`.repeat(300));
    const cut = await files.read(lines);
    assert.equal(cut.lineCount, 261);
    assert.equal(cut.text, `${"y".repeat(1000)}\n`.repeat(261));
    assert.match(cut.note ?? "", /^cut at 256 KiB; the file is 300300 bytes: read on with offset 262$/);
    assert.equal((await files.read(lines, { offset: 262 })).lineCount, 39);
    await fileError(files.edit(big, { oldString: "second", newString: "2nd" }), "EFBIG", big);
    assert.equal(statSync(big).size, 2 ** 30);
  });

  it("refuses binary files, directories and special files, each by path and code", async () => {
    writeFileSync(join(dir, "blob.bin"), Buffer.from([0x41, 0, 0x42]));
    await fileError(files.read("blob.bin"), "EBINARY", join(dir, "blob.bin"));
    await fileError(files.edit("blob.bin", { oldString: "A", newString: "C" }), "EBINARY", join(dir, "blob.bin"));
    assert.deepEqual([...readFileSync(join(dir, "blob.bin"))], [0x41, 0, 0x42]);
    mkdirSync(join(dir, "folder"));
    await fileError(files.read("folder"), "EISDIR", join(dir, "folder"));
    await fileError(files.write("folder", "x"), "EISDIR", join(dir, "folder"));
    await fileError(files.edit("folder", { oldString: "a", newString: "b" }), "EISDIR", join(dir, "folder"));
    assert.ok(statSync(join(dir, "folder")).isDirectory());
    await fileError(files.read("/dev/null"), "EACCES", "/dev/null");
  });

  it("a missing file or parent is ENOENT, and a write into a missing directory creates nothing", async () => {
    await fileError(files.read("absent.txt"), "ENOENT", join(dir, "absent.txt"));
    await fileError(files.write("no/such/dir/x.txt", "x"), "ENOENT", join(dir, "no/such/dir/x.txt"));
    assert.equal(existsSync(join(dir, "no")), false);
    writeFileSync(join(dir, "plain"), "");
    await fileError(files.write("plain/x.txt", "x"), "ENOENT", join(dir, "plain/x.txt"));
  });

  it("bad paths: '..', empty, NUL are ShellSpecErrors naming the field; a newline in a name is a name", async () => {
    const climb = await specError(() => files.read("../etc/passwd"), "path");
    assert.match(climb.message, /must not contain "\.\." segments/);
    await specError(() => files.write("a/../../b", "x"), "path");
    await specError(() => files.read(""), "path");
    await specError(() => files.read("a\0b"), "path");
    await specError(() => files.write("x.txt", 7 as unknown as string), "content");
    const named = await files.write("two\nlines.txt", "inside\n");
    assert.equal(named.path, join(dir, "two\nlines.txt"));
    assert.equal(readFileSync(join(dir, "two\nlines.txt"), "utf8"), "inside\n");
    assert.equal((await files.read("two\nlines.txt")).text, "inside\n");
    const missing = await fileError(files.read("gone\nname"), "ENOENT", join(dir, "gone\nname"));
    assert.equal(missing.message.split("\n").length, 1, "the path is quoted: the message stays one line");
  });

  it("edit: empty, unchanged, missing and not-unique oldString are refused and the file is unchanged", async () => {
    const path = join(dir, "edit.txt");
    writeFileSync(path, "foo bar foo\n");
    await specError(() => files.edit(path, { oldString: "", newString: "x" }), "oldString");
    await specError(() => files.edit(path, { oldString: "foo", newString: "foo" }), "newString");
    const twice = await fileError(files.edit(path, { oldString: "foo", newString: "baz" }), "EDITMATCH", path);
    assert.match(twice.message, /found 2 times/);
    const none = await fileError(files.edit(path, { oldString: "qux", newString: "baz" }), "EDITMATCH", path);
    assert.match(none.message, /not found/);
    assert.equal(readFileSync(path, "utf8"), "foo bar foo\n");
    const all = await files.edit(path, { oldString: "foo", newString: "$&$1", replaceAll: true });
    assert.equal(all.replacements, 2);
    assert.equal(readFileSync(path, "utf8"), "$&$1 bar $&$1\n");
  });

  it("a path is an argument, never a command line: shell syntax in names and content is data", async () => {
    const names = ["$(touch pwned)", "-rf", "*", "a'b\"c", "`id`", "; touch pwned2"];
    for (const name of names) await files.write(name, "$(touch pwned3) `touch pwned4`\n");
    for (const name of names) {
      assert.equal(readFileSync(join(dir, name), "utf8"), "$(touch pwned3) `touch pwned4`\n", name);
      assert.equal((await files.read(name)).text, "$(touch pwned3) `touch pwned4`\n", name);
    }
    await files.edit("-rf", { oldString: "$(touch pwned3)", newString: "$HOME" });
    assert.equal(readFileSync(join(dir, "-rf"), "utf8"), "$HOME `touch pwned4`\n");
    const pwned = readdirSync(dir).filter((name) => name.startsWith("pwned"));
    assert.deepEqual(pwned, [], "nothing ran");
  });

  it("a write through a symbolic link replaces its target; the link stays a link", async () => {
    writeFileSync(join(dir, "target.txt"), "old\n");
    symlinkSync("target.txt", join(dir, "link.txt"));
    await files.write("link.txt", "new\n");
    assert.ok(lstatSync(join(dir, "link.txt")).isSymbolicLink());
    assert.equal(readFileSync(join(dir, "target.txt"), "utf8"), "new\n");
  });

  it("applyPatch: add (with new directories), update with two hunks, move and delete, in one patch", async () => {
    writeFileSync(join(dir, "p1.txt"), "alpha\nbeta\ngamma\ndelta\nepsilon\n");
    writeFileSync(join(dir, "p2.txt"), "to move\n");
    writeFileSync(join(dir, "p3.txt"), "to delete\n");
    const changes = await files.applyPatch([
      "*** Begin Patch",
      "*** Add File: made/new.txt",
      "+hello",
      "*** Update File: p1.txt",
      "@@",
      "-beta",
      "+BETA",
      "@@ delta",
      "-epsilon",
      "+EPSILON",
      "*** Update File: p2.txt",
      "*** Move to: moved/p2.txt",
      "@@",
      "-to move",
      "+moved",
      "*** Delete File: p3.txt",
      "*** End Patch",
    ].join("\n"));
    assert.deepEqual(changes, [
      { action: "add", path: join(dir, "made/new.txt") },
      { action: "update", path: join(dir, "p1.txt") },
      { action: "move", path: join(dir, "p2.txt"), movedTo: join(dir, "moved/p2.txt") },
      { action: "delete", path: join(dir, "p3.txt") },
    ]);
    assert.equal(readFileSync(join(dir, "made/new.txt"), "utf8"), "hello\n");
    assert.equal(readFileSync(join(dir, "p1.txt"), "utf8"), "alpha\nBETA\ngamma\ndelta\nEPSILON\n");
    assert.equal(readFileSync(join(dir, "moved/p2.txt"), "utf8"), "moved\n");
    assert.equal(existsSync(join(dir, "p2.txt")), false);
    assert.equal(existsSync(join(dir, "p3.txt")), false);
  });

  it("applyPatch is all or nothing: a context that does not match, a path touched twice, a bad header", async () => {
    writeFileSync(join(dir, "q.txt"), "one\ntwo\n");
    const nomatch = await fileError(
      files.applyPatch(
        "*** Begin Patch\n*** Add File: q-new.txt\n+x\n*** Update File: q.txt\n@@\n-three\n+3\n*** End Patch",
      ),
      "PATCH",
      join(dir, "q.txt"),
    );
    assert.match(nomatch.message, /Failed to find expected lines in .*q\.txt:\nthree$/);
    assert.equal(existsSync(join(dir, "q-new.txt")), false);
    const twice = await fileError(
      files.applyPatch(
        "*** Begin Patch\n*** Update File: q.txt\n@@\n-one\n+1\n*** Update File: q.txt\n@@\n-two\n+2\n*** End Patch",
      ),
      "PATCH",
      join(dir, "q.txt"),
    );
    assert.match(twice.message, /invalid patch: multiple operations target .*q\.txt$/);
    const header = await fileError(
      files.applyPatch("*** Begin Patch\n*** Frobnicate: q.txt\n*** End Patch"),
      "PATCH",
      "patch",
    );
    assert.match(header.message, /'\*\*\* Frobnicate: q\.txt' is not a valid hunk header/);
    await fileError(files.applyPatch("no patch here"), "PATCH", "patch");
    assert.equal(readFileSync(join(dir, "q.txt"), "utf8"), "one\ntwo\n");
  });

  it("each operation is one file event with its path, size and outcome, never the content", () => {
    const fileEvents = events.filter((event) => event.type === "file");
    assert.ok(fileEvents.length > 10);
    const first = fileEvents[0];
    assert.deepEqual(
      { ...first, time: 0 },
      {
        type: "file",
        operation: "write",
        owner: "agent-1",
        path: join(dir, "notes.txt"),
        bytes: 14,
        outcome: "ok",
        time: 0,
      },
    );
    assert.ok(fileEvents.some((event) => event.outcome === "EDITMATCH"));
    assert.ok(fileEvents.some((event) => event.operation === "patch" && event.action === "move"));
    // The content went on stdin: no event, command or file, carries it.
    assert.ok(!JSON.stringify(events).includes("one\\ntwo\\nthree"));
  });

  it("a closed shell refuses files() and its operations", async () => {
    const closing = createLocalShell({ workdir: dir });
    const early = closing.files({ owner: null });
    await closing.close();
    assert.throws(() => closing.files({ owner: null }), { name: "ShellClosedError" });
    await assert.rejects(early.write("closed.txt", "x"), { name: "ShellClosedError" });
    assert.equal(existsSync(join(dir, "closed.txt")), false);
    assert.throws(() => shell.files({} as { owner: null }), ShellSpecError);
  });
});

describe("shell.files(): under the sandbox, the kernel decides", { skip: sandboxSkip() }, () => {
  let work: string;
  let outside: string;
  let shell: Shell;
  let files: ShellFiles;

  before(() => {
    // Not under /tmp: every owner has a /tmp of its own in the sandbox, and the host's is not seen.
    work = mkdtempSync("/var/tmp/dsh-files-work-");
    outside = mkdtempSync("/var/tmp/dsh-files-outside-");
    writeFileSync(join(outside, "secret.txt"), "the secret\n");
    writeFileSync(join(outside, "public.txt"), "public\n");
    shell = createLocalShell({ workdir: work, sandbox: { denyRead: [join(outside, "secret.txt")] } });
    files = shell.files({ owner: "agent-1" });
  });
  after(async () => {
    await shell.close();
    removeDir(work);
    removeDir(outside);
  });

  it("a denyRead file cannot be read, nor edited", async () => {
    const secret = join(outside, "secret.txt");
    const error = await rejection(files.read(secret));
    assert.ok(error instanceof ShellFileError && ["EACCES", "ENOENT"].includes(error.code), String(error));
    assert.ok(!error.message.includes("the secret"));
    await rejection(files.edit(secret, { oldString: "secret", newString: "public" }));
    assert.equal(readFileSync(secret, "utf8"), "the secret\n");
  });

  it("outside the writable roots a file can be read but not written: refused, and absent on disk", async () => {
    assert.equal((await files.read(join(outside, "public.txt"))).text, "public\n");
    const target = join(outside, "new.txt");
    await fileError(files.write(target, "escaped"), "EACCES", target);
    assert.deepEqual(readdirSync(outside).sort(), ["public.txt", "secret.txt"]);
    const edit = join(outside, "public.txt");
    await fileError(files.edit(edit, { oldString: "public", newString: "changed" }), "EACCES", edit);
    assert.equal(readFileSync(edit, "utf8"), "public\n");
    await files.write("inside.txt", "fine\n");
    assert.equal(readFileSync(join(work, "inside.txt"), "utf8"), "fine\n");
  });

  it("a symbolic link out of the writable root does not carry a write out of it", async () => {
    symlinkSync(join(outside, "public.txt"), join(work, "out-link"));
    await rejection(files.write("out-link", "escaped"));
    assert.equal(readFileSync(join(outside, "public.txt"), "utf8"), "public\n");
    assert.ok(lstatSync(join(work, "out-link")).isSymbolicLink());
  });

  it("a symbolic link in the workdir to a denyRead file does not read it", async () => {
    symlinkSync(join(outside, "secret.txt"), join(work, "innocent.txt"));
    const error = await rejection(files.read("innocent.txt"));
    assert.ok(error instanceof ShellFileError, String(error));
    assert.ok(!error.message.includes("the secret"));
  });

  it("one owner's /tmp is not another's: what agent-1 wrote there, agent-2 cannot read", async () => {
    const path = `/tmp/mine-${randomBytes(6).toString("hex")}.txt`;
    await files.write(path, "agent-1's\n");
    assert.equal((await files.read(path)).text, "agent-1's\n");
    const other = shell.files({ owner: "agent-2" });
    const error = await rejection(other.read(path));
    assert.ok(error instanceof ShellFileError && error.code === "ENOENT", String(error));
    assert.equal(existsSync(path), false, "nor is it in the host's /tmp");
  });

  it("a patch that adds a file outside the writable roots changes nothing, not even a directory", async () => {
    writeFileSync(join(work, "first.txt"), "first\n");
    const target = join(outside, "made", "new.txt");
    await fileError(
      files.applyPatch(
        `*** Begin Patch\n*** Update File: first.txt\n@@\n-first\n+changed\n*** Add File: ${target}\n+x\n*** End Patch`,
      ),
      "EACCES",
      target,
    );
    assert.equal(readFileSync(join(work, "first.txt"), "utf8"), "first\n");
    assert.equal(existsSync(join(outside, "made")), false);
  });

  it("a patch whose later write is refused puts back what it wrote before", async () => {
    writeFileSync(join(work, "kept.txt"), "before\n");
    const refused = join(outside, "public.txt");
    const error = await fileError(
      files.applyPatch(
        [
          "*** Begin Patch",
          "*** Update File: kept.txt",
          "@@",
          "-before",
          "+after",
          "*** Add File: made.txt",
          "+made",
          `*** Update File: ${refused}`,
          "@@",
          "-public",
          "+changed",
          "*** End Patch",
        ].join("\n"),
      ),
      "EACCES",
      refused,
    );
    assert.match(error.message, /no file was changed/);
    assert.equal(readFileSync(join(work, "kept.txt"), "utf8"), "before\n");
    assert.equal(existsSync(join(work, "made.txt")), false);
    assert.equal(readFileSync(refused, "utf8"), "public\n");
  });
});
