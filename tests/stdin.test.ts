import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell, type Shell } from "../mod.ts";
import { sha256 } from "./helpers/capture.ts";

describe("stdin", () => {
  let shell: Shell;
  before(() => {
    shell = createLocalShell({ graceMs: 500 });
  });
  after(() => shell.close());

  const run = (command: string, stdin?: string | Uint8Array) =>
    shell.run(shell.resolve(stdin === undefined ? { command, owner: null } : { command, owner: null, stdin }));

  it("a string reaches the child unchanged", async () => {
    const text = "héllo wörld €😀\nline two\n\n  trailing spaces  ";
    const result = await run("cat", text);
    assert.equal(result.stdout.text, text);
    assert.equal(result.exitCode, 0);
  });

  it("arbitrary bytes, 0x00 and 0xff included, reach the child unchanged", async () => {
    const bytes = new Uint8Array(256 * 64);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
    assert.ok(bytes.includes(0x00) && bytes.includes(0xff));
    const result = await run("sha256sum | cut -d' ' -f1", bytes);
    const expected = sha256(bytes);
    assert.equal(result.stdout.text, `${expected}\n`);
  });

  it("without stdin, fd 0 is /dev/null", async () => {
    const result = await run("readlink /proc/$$/fd/0");
    assert.equal(result.stdout.text, "/dev/null\n");
  });

  it("with stdin, fd 0 is a pipe (Node gives a socketpair)", async () => {
    const result = await run("readlink /proc/$$/fd/0", "x");
    assert.match(result.stdout.text, /^(pipe|socket):\[\d+\]\n$/);
  });

  it('"" is a pipe that gives an immediate EOF', async () => {
    const result = await run("readlink /proc/$$/fd/0; cat; echo done", "");
    assert.match(result.stdout.text, /^(pipe|socket):\[\d+\]\ndone\n$/);
  });

  it("8 MiB written to a command that never reads resolves normally", async () => {
    const result = await run("true", new Uint8Array(8 * 1024 * 1024).fill(0x61));
    assert.equal(result.exitCode, 0);
    assert.equal(result.signal, null);
    assert.equal(result.stderr.text, "");
  });

  it("8 MiB arrive whole at a command that reads them", async () => {
    const result = await run("wc -c", new Uint8Array(8 * 1024 * 1024).fill(0x62));
    assert.equal(result.stdout.text.trim(), String(8 * 1024 * 1024));
  });
});
