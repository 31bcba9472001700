/**
 * Every way a request, a spec or the shell's options can be wrong, and the
 * errors `run()` may reject with: `ShellSpecError` naming the field,
 * `ShellSpawnError` naming the path, `ShellClosedError`, and the reason of
 * an already-aborted signal. Where nothing may be spawned, a counting
 * adapter proves it.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createLocalShell,
  createShell,
  type LocalShellOptions,
  type Shell,
  ShellClosedError,
  type ShellExecRequest,
  type ShellExecSpec,
  ShellSpawnError,
  ShellSpecError,
} from "../mod.ts";
import type { ProcessAdapter } from "../src/seam/mod.ts";
import { dockerEngine } from "../src/engines/mod.ts";
import { runtimeAdapter } from "./helpers/adapters.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { assertSpecError, assertSpecErrorNaming, rejection, thrown } from "./helpers/errors.ts";
import { withShell } from "./helpers/shell.ts";

const GRACE_MS = 300;

/** The runtime's own adapter, wrapped to count spawns. */
function countingAdapter(): ProcessAdapter & { spawns: number } {
  const base = runtimeAdapter;
  const adapter = {
    ...base,
    name: `counting-${base.name}`,
    spawns: 0,
    spawn(request: Parameters<ProcessAdapter["spawn"]>[0]) {
      adapter.spawns++;
      return base.spawn(request);
    },
  };
  return adapter;
}

/** An ill-typed request, as untyped callers (JSON, plugins) can send. */
function badRequest(fields: Record<string, unknown>): ShellExecRequest {
  return fields as unknown as ShellExecRequest;
}

function badSpec(fields: Record<string, unknown>): ShellExecSpec {
  return fields as unknown as ShellExecSpec;
}

function badOptions(fields: Record<string, unknown>): LocalShellOptions {
  return fields as unknown as LocalShellOptions;
}

describe("request validation: ShellSpecError names the field", () => {
  let shell: Shell;
  let adapter: ReturnType<typeof countingAdapter>;

  before(() => {
    adapter = countingAdapter();
    shell = createLocalShell({ adapter, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    assert.equal(adapter.spawns, 0, "resolve() never spawns");
  });

  const ok = { command: "true", owner: null };

  const cases: [string, Record<string, unknown>, string][] = [
    ["owner missing", { command: "true" }, "owner"],
    ["owner a number", { command: "true", owner: 42 }, "owner"],
    ["owner undefined", { command: "true", owner: undefined }, "owner"],
    ["command missing", { owner: null }, "command"],
    ["command empty", { ...ok, command: "" }, "command"],
    ["command with NUL", { ...ok, command: "echo a\0b" }, "command"],
    ["command a number", { ...ok, command: 1 }, "command"],
    ["timeoutMs 0", { ...ok, timeoutMs: 0 }, "timeoutMs"],
    ["timeoutMs negative", { ...ok, timeoutMs: -5 }, "timeoutMs"],
    ["timeoutMs NaN", { ...ok, timeoutMs: NaN }, "timeoutMs"],
    ["timeoutMs Infinity", { ...ok, timeoutMs: Infinity }, "timeoutMs"],
    ["timeoutMs a string", { ...ok, timeoutMs: "1000" }, "timeoutMs"],
    ["stdoutMaxBytes 0", { ...ok, stdoutMaxBytes: 0 }, "stdoutMaxBytes"],
    ["stdoutMaxBytes 1.5", { ...ok, stdoutMaxBytes: 1.5 }, "stdoutMaxBytes"],
    ["workdir empty", { ...ok, workdir: "" }, "workdir"],
    ["workdir with NUL", { ...ok, workdir: "/tmp/a\0b" }, "workdir"],
    ["signal not an AbortSignal", { ...ok, signal: {} }, "signal"],
    ["signal a string", { ...ok, signal: "abort" }, "signal"],
    ["stdin a number", { ...ok, stdin: 5 }, "stdin"],
    ["stdin an array of numbers", { ...ok, stdin: [104, 105] }, "stdin"],
  ];

  for (const [title, request, field] of cases) {
    it(title, () => {
      const error = thrown(() => shell.resolve(badRequest(request)));
      assertSpecErrorNaming(error, field);
      assert.equal((error as ShellSpecError).field, field);
    });
  }

  const envCases: [string, Record<string, unknown>, string][] = [
    ['env name ""', { "": "x" }, ""],
    ['env name "A=B"', { "A=B": "x" }, "A=B"],
    ['env name "A\\0B"', { "A\0B": "x" }, "A"],
    ["env value with NUL", { A: "x\0y" }, "A"],
    ["env value a number", { A: 1 }, "A"],
    ["env value null", { A: null }, "A"],
  ];

  for (const [title, env, entry] of envCases) {
    it(title, () => {
      const error = thrown(() => shell.resolve(badRequest({ ...ok, env })));
      assertSpecErrorNaming(error, "env");
      const { field } = error as ShellSpecError;
      assert.ok(field.startsWith("env"), `field ${JSON.stringify(field)} is under env`);
      assert.ok(field.includes(entry), `field ${JSON.stringify(field)} names the entry`);
    });
  }

  it("the error shows the value it refused, as the tool's errors do; never a value that may be a secret", async () => {
    const message = (request: Record<string, unknown>): string =>
      (thrown(() => shell.resolve(badRequest(request))) as ShellSpecError).message;
    assert.equal(message({ ...ok, timeoutMs: "5" }), 'timeoutMs: must be a positive, finite number (got "5")');
    assert.equal(message({ ...ok, timeoutMs: -5 }), "timeoutMs: must be a positive, finite number (got -5)");
    assert.equal(message({ ...ok, stdoutMaxBytes: 1.5 }), "stdoutMaxBytes: must be a positive whole number (got 1.5)");
    assert.match(message({ ...ok, signal: {} }), /^signal: must be an AbortSignal \(got an object\)$/);
    assert.match(message({ ...ok, owner: 42 }), /\(got 42\)$/);
    assert.match(
      message({ ...ok, workdir: `/${"x".repeat(100)}\0` }),
      /\(got "\/x{39}\.\.\."\)$/,
      "a long string is cut",
    );
    // What may hold a credential is named, never shown.
    for (
      const request of [
        { ...ok, env: { A: "sk-secret\0" } },
        { ...ok, dshEnv: { DSH_A: "sk-secret\0" } },
        { ...ok, command: "curl -H 'token: sk-secret'\0" },
        { ...ok, stdin: 5 },
      ]
    ) {
      assert.doesNotMatch(message(request), /got|sk-secret/);
    }
    assert.doesNotMatch(message({ command: "true" }), /got/, "a missing field has no value to show");
    const options = thrown(() => createLocalShell({ graceMs: -1 })) as ShellSpecError;
    assert.match(options.message, /^graceMs: .* \(got -1\)$/);
    // A task's wait, on a shell of its own: this one's adapter counts spawns that must not happen.
    await using own = createLocalShell();
    const task = own.start(own.resolve({ command: "true", owner: null }));
    const wait = thrown(() => task.waitForOutput({ timeoutMs: "5" as unknown as number }));
    assert.match((wait as Error).message, /^timeoutMs: .* \(got "5"\)$/);
    await task.done;
  });

  it("env entries that are undefined are allowed (they remove a variable)", () => {
    const spec = shell.resolve({ ...ok, env: { HOME: undefined } });
    assert.ok(spec.env !== undefined && "HOME" in spec.env);
  });

  const dshCases: [string, Record<string, unknown>, string][] = [
    ['dshEnv name "FOO"', { FOO: "x" }, "FOO"],
    ['dshEnv name "dsh_lower"', { dsh_lower: "x" }, "dsh_lower"],
    ['dshEnv name "DSH" (no underscore)', { DSH: "x" }, "DSH"],
    ["dshEnv value with NUL", { DSH_A: "x\0y" }, "DSH_A"],
    ["dshEnv value undefined", { DSH_A: undefined }, "DSH_A"],
  ];

  for (const [title, dshEnv, entry] of dshCases) {
    it(title, () => {
      const error = thrown(() => shell.resolve(badRequest({ ...ok, dshEnv })));
      assertSpecErrorNaming(error, "dshEnv");
      const { field } = error as ShellSpecError;
      assert.ok(field.startsWith("dshEnv"), `field ${JSON.stringify(field)} is under dshEnv`);
      assert.ok(field.includes(entry), `field ${JSON.stringify(field)} names the entry`);
    });
  }

  it("a valid dshEnv passes", () => {
    const spec = shell.resolve({ ...ok, dshEnv: { DSH_SESSION: "s1" } });
    assert.deepEqual(spec.dshEnv, { DSH_SESSION: "s1" });
  });

  it("an unknown request key is refused, naming the key", () => {
    const error = thrown(() => shell.resolve(badRequest({ ...ok, timeout: 1000 })));
    assert.ok(error instanceof ShellSpecError);
    assert.equal(error.name, "ShellSpecError");
    assert.match(error.message, /\btimeout\b/);
  });

  it("a request that is not an object is refused", () => {
    for (const value of [null, "echo hi", 42]) {
      const error = thrown(() => shell.resolve(value as unknown as ShellExecRequest));
      assert.ok(error instanceof ShellSpecError, `for ${JSON.stringify(value)}`);
    }
  });
});

describe("run() validates a hand-built spec", () => {
  let shell: Shell;
  let adapter: ReturnType<typeof countingAdapter>;
  let work: string;

  before(() => {
    work = freshDir("dsh-err-spec-");
    adapter = countingAdapter();
    shell = createLocalShell({ adapter, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
  });

  const valid = () => ({
    command: `touch ${shQuote(join(work, "spawned"))}`,
    workdir: work,
    timeoutMs: 10_000,
    stdoutMaxBytes: 1000,
    owner: null,
  });

  const cases: [string, (spec: Record<string, unknown>) => void, string][] = [
    ["relative workdir", (s) => s.workdir = "relative/dir", "workdir"],
    ["missing workdir", (s) => delete s.workdir, "workdir"],
    ["missing timeoutMs", (s) => delete s.timeoutMs, "timeoutMs"],
    ["timeoutMs NaN", (s) => s.timeoutMs = NaN, "timeoutMs"],
    ["missing stdoutMaxBytes", (s) => delete s.stdoutMaxBytes, "stdoutMaxBytes"],
    ["missing owner", (s) => delete s.owner, "owner"],
    ["empty command", (s) => s.command = "", "command"],
  ];

  for (const [title, spoil, field] of cases) {
    it(`${title}: run() rejects with ShellSpecError and spawns nothing`, async () => {
      const spec: Record<string, unknown> = valid();
      spoil(spec);
      const before = adapter.spawns;
      const running = shell.run(badSpec(spec)); // must reject, not throw
      assertSpecError(await rejection(running), field);
      assert.equal(adapter.spawns, before, "nothing was spawned");
      assert.equal(existsSync(join(work, "spawned")), false);
    });
  }

  it("an unknown spec key is refused", async () => {
    const error = await rejection(shell.run(badSpec({ ...valid(), timeout: 5 })));
    assert.ok(error instanceof ShellSpecError);
    assert.match(error.message, /\btimeout\b/);
  });

  it("the valid hand-built spec runs (the cases above can fail)", async () => {
    const result = await shell.run(valid());
    assert.equal(result.exitCode, 0);
    assert.equal(existsSync(join(work, "spawned")), true);
  });
});

describe("createLocalShell validates its options", () => {
  let dir: string;

  before(() => {
    dir = freshDir("dsh-err-opt-");
  });

  after(() => {
    removeDir(dir);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["timeoutMs 0", { timeoutMs: 0 }, "timeoutMs"],
    ["timeoutMs negative", { timeoutMs: -1 }, "timeoutMs"],
    ["maxTimeoutMs -1", { maxTimeoutMs: -1 }, "maxTimeoutMs"],
    ["maxTimeoutMs Infinity", { maxTimeoutMs: Infinity }, "maxTimeoutMs"],
    ["maxOutputBytes 1.5", { maxOutputBytes: 1.5 }, "maxOutputBytes"],
    ["maxOutputBytes 0", { maxOutputBytes: 0 }, "maxOutputBytes"],
    ["maxSpillBytes NaN", { maxSpillBytes: NaN }, "maxSpillBytes"],
    ["graceMs 2147483648", { graceMs: 2_147_483_648 }, "graceMs"],
    ["graceMs Infinity", { graceMs: Infinity }, "graceMs"],
    ["graceMs a string", { graceMs: "300" }, "graceMs"],
    ['shell ""', { shell: "" }, "shell"],
    ["shell a number", { shell: 1 }, "shell"],
    ['workdir ""', { workdir: "" }, "workdir"],
    ["maxTasksPerOwner 0", { maxTasksPerOwner: 0 }, "maxTasksPerOwner"],
    ["maxFinishedTasks -3", { maxFinishedTasks: -3 }, "maxFinishedTasks"],
    ["adapter {}", { adapter: {} }, "adapter"],
    ["adapter a string", { adapter: "node" }, "adapter"],
    ["ambientEnv with a NUL value", { ambientEnv: { A: "x\0y" } }, "ambientEnv"],
  ];

  for (const [title, options, field] of cases) {
    it(title, async () => {
      let created: Shell | undefined;
      const error = thrown(() => created = createLocalShell(badOptions({ graceMs: GRACE_MS, ...options })));
      await created?.close();
      assertSpecErrorNaming(error, field);
      assert.ok(
        (error as ShellSpecError).field.startsWith(field),
        `field ${JSON.stringify((error as ShellSpecError).field)}`,
      );
    });
  }

  it("an unknown option key is refused, naming the key", () => {
    const error = thrown(() => createLocalShell(badOptions({ timeout: 5 })));
    assert.ok(error instanceof ShellSpecError);
    assert.equal(error.name, "ShellSpecError");
    assert.match(error.message, /\btimeout\b/);
  });

  it("a shell's workdir that is missing, or a file, is refused when the shell is made, naming workdir", () => {
    // Before, the shell was made and every command failed with a ShellSpawnError far from the mistake.
    const missing = thrown(() => createLocalShell({ workdir: join(dir, "no-such-dir"), graceMs: GRACE_MS }));
    assertSpecError(missing, "workdir");
    assert.match((missing as Error).message, /no such directory: .*no-such-dir$/);
    const file = join(dir, "workdir-file");
    writeFileSync(file, "x");
    const notDir = thrown(() => createLocalShell({ workdir: file, graceMs: GRACE_MS }));
    assertSpecError(notDir, "workdir");
    assert.match((notDir as Error).message, /is not a directory/);
  });

  it("an engine's workdir is a path on the engine's side: not looked for here", async () => {
    const shell = createShell(dockerEngine({ container: "dsh-never-started" }), { workdir: join(dir, "not-here") });
    await shell.close();
  });

  it("spillDir pointing at a regular file is refused", () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const error = thrown(() => createLocalShell({ spillDir: file, graceMs: GRACE_MS }));
    assertSpecError(error, "spillDir");
  });

  it("spillDir that is a symlink to a directory is refused", () => {
    const target = join(dir, "real-dir");
    const link = join(dir, "link-dir");
    mkdirSync(target);
    symlinkSync(target, link);
    const error = thrown(() => createLocalShell({ spillDir: link, graceMs: GRACE_MS }));
    assertSpecError(error, "spillDir");
  });

  it("the largest timer value and an existing directory are accepted", async () => {
    const target = join(dir, "ok-dir");
    // An explicit mode: under a umask of 002 a plain mkdir would be group-writable, which spillDir refuses.
    mkdirSync(target, { mode: 0o700 });
    const shell = createLocalShell({
      graceMs: 2_147_483_647,
      timeoutMs: 2_147_483_647,
      maxTimeoutMs: 2_147_483_647,
      spillDir: target,
    });
    await shell.close();
  });
});

describe("run() spawn errors and limits", () => {
  let work: string;
  let adapter: ReturnType<typeof countingAdapter>;
  let shell: Shell;

  before(() => {
    work = freshDir("dsh-err-run-");
    adapter = countingAdapter();
    shell = createLocalShell({ adapter, workdir: work, maxTimeoutMs: 5_000, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
  });

  it("a missing workdir gives ShellSpawnError naming it, and spawns nothing", async () => {
    const missing = join(work, "does", "not", "exist");
    const before = adapter.spawns;
    const spec = shell.resolve({ command: "true", owner: null, workdir: missing });
    const error = await rejection(shell.run(spec));
    assert.ok(error instanceof ShellSpawnError, `got ${String(error)}`);
    assert.equal(error.name, "ShellSpawnError");
    assert.ok(error.message.includes(missing), error.message);
    assert.ok(!/\bbash\b/.test(error.message), `names the workdir, not the shell: ${error.message}`);
    assert.equal(error.path, missing);
    assert.equal(adapter.spawns, before, "nothing was spawned");
  });

  it("a workdir that is a file gives ShellSpawnError naming it", async () => {
    const file = join(work, "plain-file");
    writeFileSync(file, "x");
    const before = adapter.spawns;
    const error = await rejection(shell.run(shell.resolve({ command: "true", owner: null, workdir: file })));
    assert.ok(error instanceof ShellSpawnError, `got ${String(error)}`);
    assert.equal(error.name, "ShellSpawnError");
    assert.ok(error.message.includes(file), error.message);
    assert.equal(error.path, file);
    assert.equal(adapter.spawns, before, "nothing was spawned");
  });

  it("a missing or non-executable shell gives ShellSpawnError naming the shell", async () => {
    const notExecutable = join(work, "not-executable-shell");
    writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
    for (const program of ["/nonexistent/bash", "dsh-no-such-shell-xyz", notExecutable]) {
      const broken = createLocalShell({ shell: program, workdir: work, graceMs: GRACE_MS });
      try {
        const error = await rejection(broken.run(broken.resolve({ command: "true", owner: null })));
        assert.ok(error instanceof ShellSpawnError, `${program}: got ${String(error)}`);
        assert.equal(error.name, "ShellSpawnError");
        assert.ok(error.message.includes(program), error.message);
      } finally {
        await broken.close();
      }
    }
  });

  it("caps timeoutMs at maxTimeoutMs, in the spec and in the result", async () => {
    const spec = shell.resolve({ command: "true", owner: null, timeoutMs: 999_999 });
    assert.equal(spec.timeoutMs, 5_000);
    const result = await shell.run(spec);
    assert.equal(result.timeoutMs, 5_000);
    const below = shell.resolve({ command: "true", owner: null, timeoutMs: 1_234 });
    assert.equal(below.timeoutMs, 1_234, "a timeout under the cap is kept");
    assert.equal((await shell.run(below)).timeoutMs, 1_234);
  });

  it("caps the timeoutMs of a hand-built spec too", async () => {
    const result = await shell.run({
      command: "true",
      workdir: work,
      timeoutMs: 999_999,
      stdoutMaxBytes: 1000,
      owner: null,
    });
    assert.equal(result.timeoutMs, 5_000);
  });

  it("resolves a relative request workdir against the shell's workdir", async () => {
    mkdirSync(join(work, "sub", "inner"), { recursive: true });
    assert.equal(shell.resolve({ command: "true", owner: null }).workdir, work);
    const spec = shell.resolve({ command: "pwd -P", owner: null, workdir: "sub/inner" });
    assert.equal(spec.workdir, join(work, "sub", "inner"));
    const result = await shell.run(spec);
    assert.equal(result.stdout.text, `${realpathSync(join(work, "sub", "inner"))}\n`);
    const up = shell.resolve({ command: "true", owner: null, workdir: "sub/inner/.." });
    assert.equal(up.workdir, join(work, "sub"));
  });
});

describe("run() after close() and with an aborted signal", () => {
  it("run() after close() rejects with ShellClosedError", async () => {
    const shell = createLocalShell({ graceMs: GRACE_MS });
    const spec = shell.resolve({ command: "true", owner: null });
    await shell.close();
    const error = await rejection(shell.run(spec));
    assert.ok(error instanceof ShellClosedError, `got ${String(error)}`);
    assert.equal(error.name, "ShellClosedError");
  });

  it("a pre-aborted signal rejects with its reason and spawns nothing", async () => {
    const adapter = countingAdapter();
    await withShell({ adapter, graceMs: GRACE_MS }, async (shell, work) => {
      const reason = { why: "the caller gave up" };
      const controller = new AbortController();
      controller.abort(reason);
      const marker = join(work, "marker");
      const spec = shell.resolve({
        command: `touch ${shQuote(marker)}`,
        owner: null,
        signal: controller.signal,
      });
      const error = await rejection(shell.run(spec));
      assert.equal(error, reason, "rejects with the very reason object");
      assert.equal(adapter.spawns, 0, "nothing was spawned");
      assert.equal(existsSync(marker), false, "the command did not run");

      // Control: the same command without the signal does create the marker.
      const control = join(work, "control");
      const result = await shell.run(shell.resolve({ command: `touch ${shQuote(control)}`, owner: null }));
      assert.equal(result.exitCode, 0);
      assert.equal(existsSync(control), true);
      assert.equal(adapter.spawns, 1);
    });
  });
});
