/**
 * Limits the schemas enforce beyond types: output budgets up to 1 GiB, a
 * command no longer than exec takes as one argument, and environment
 * records validated as they are — a variable named `__proto__` (as
 * `JSON.parse` makes it) reaches the child, and a non-object is refused.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  createLocalShell,
  type LocalShellOptions,
  type Shell,
  type ShellExecRequest,
  type ShellExecSpec,
} from "../mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { env0Entries } from "./helpers/env_dump.ts";
import { assertSpecErrorNaming, rejection, thrown } from "./helpers/errors.ts";

const GRACE_MS = 300;
const GiB = 1_073_741_824;
/** Linux's MAX_ARG_STRLEN: one exec argument, its terminating NUL included. */
const MAX_ARG_STRLEN = 131_072;

/** An ill-typed value where a typed one is expected, as JSON or plugins can send. */
function untyped<T>(value: unknown): T {
  return value as T;
}

describe("schema limits: output budgets", () => {
  let shell: Shell;
  let work: string;

  before(() => {
    work = freshDir("dsh-limits-");
    shell = createLocalShell({ workdir: work, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
  });

  it("stdoutMaxBytes up to 1 GiB is accepted", () => {
    assert.equal(shell.resolve({ command: "true", owner: null, stdoutMaxBytes: GiB }).stdoutMaxBytes, GiB);
  });

  for (const value of [GiB + 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
    it(`stdoutMaxBytes ${value} is refused, naming the 1 GiB limit`, async () => {
      const error = thrown(() => shell.resolve({ command: "true", owner: null, stdoutMaxBytes: value }));
      assertSpecErrorNaming(error, "stdoutMaxBytes");
      assert.equal(error.field, "stdoutMaxBytes");
      assert.ok(/1073741824|1 GiB/.test(error.message), error.message);
      const spec: ShellExecSpec = {
        command: "true",
        owner: null,
        workdir: work,
        timeoutMs: 1000,
        stdoutMaxBytes: value,
      };
      const fromRun = await rejection(shell.run(spec));
      assertSpecErrorNaming(fromRun, "stdoutMaxBytes");
    });
  }

  it("maxOutputBytes up to 1 GiB is accepted, and beyond it refused naming the limit", async () => {
    await createLocalShell({ maxOutputBytes: GiB }).close();
    for (const value of [GiB + 1, 2 ** 32]) {
      const error = thrown(() => createLocalShell({ maxOutputBytes: value }));
      assertSpecErrorNaming(error, "maxOutputBytes");
      assert.ok(/1073741824|1 GiB/.test(error.message), error.message);
    }
  });

  it("maxSpillBytes is not capped (it is disk) but must be a safe integer", async () => {
    await createLocalShell({ maxSpillBytes: 2 ** 40 }).close();
    const error = thrown(() => createLocalShell(untyped<LocalShellOptions>({ maxSpillBytes: 2 ** 53 })));
    assertSpecErrorNaming(error, "maxSpillBytes");
  });
});

describe("schema limits: the command is one exec argument", () => {
  let shell: Shell;
  let work: string;

  before(() => {
    work = freshDir("dsh-limits-");
    shell = createLocalShell({ workdir: work, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
  });

  it("the longest command exec takes (131 071 bytes) runs", async () => {
    const command = `: ${"x".repeat(MAX_ARG_STRLEN - 1 - 2)}`;
    const result = await shell.run(shell.resolve({ command, owner: null }));
    assert.equal(result.exitCode, 0);
  });

  const tooLong: [string, string][] = [
    ["131 072 ASCII bytes", "x".repeat(MAX_ARG_STRLEN)],
    ["131 072 bytes of 2-byte characters", "é".repeat(MAX_ARG_STRLEN / 2)],
    ["131 073 bytes of 3-byte characters", "€".repeat((MAX_ARG_STRLEN + 1) / 3)],
    ["a megabyte", "x".repeat(1 << 20)],
  ];
  for (const [title, command] of tooLong) {
    it(`a command of ${title} is refused on \`command\`, suggesting stdin`, () => {
      const error = thrown(() => shell.resolve({ command, owner: null }));
      assertSpecErrorNaming(error, "command");
      assert.equal(error.field, "command");
      assert.match(error.message, /longer than/);
      assert.match(error.message, /stdin/);
    });
  }

  it("multi-byte characters count as their UTF-8 bytes, not as UTF-16 units", () => {
    // 65 535 two-byte characters and one ASCII byte: 131 071 bytes.
    const command = `${"é".repeat(MAX_ARG_STRLEN / 2 - 1)}a`;
    assert.equal(shell.resolve({ command, owner: null }).command, command);
  });

  it("a hand-built spec with a too long command is refused by run()", async () => {
    const spec: ShellExecSpec = {
      command: "x".repeat(MAX_ARG_STRLEN),
      owner: null,
      workdir: work,
      timeoutMs: 1000,
      stdoutMaxBytes: 1000,
    };
    assertSpecErrorNaming(await rejection(shell.run(spec)), "command");
  });
});

describe("schema limits: environment records", () => {
  let shell: Shell;
  let work: string;

  before(() => {
    work = freshDir("dsh-limits-");
    shell = createLocalShell({ workdir: work, graceMs: GRACE_MS });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
  });

  it('an env entry named "__proto__" from JSON.parse reaches the child', async () => {
    const env = JSON.parse('{"__proto__":"x","A":"1"}');
    const result = await shell.run(shell.resolve({ command: "env -0", owner: null, env }));
    const seen = env0Entries(result.stdout.text);
    assert.ok(seen.includes("__proto__=x"), `__proto__=x in ${JSON.stringify(seen)}`);
    assert.ok(seen.includes("A=1"), `A=1 in ${JSON.stringify(seen)}`);
  });

  it('an ambientEnv entry named "__proto__" from JSON.parse reaches the child', async () => {
    const ambientEnv = JSON.parse('{"__proto__":"y","PATH":"/usr/bin:/bin"}');
    const ambient = createLocalShell({ workdir: work, graceMs: GRACE_MS, ambientEnv });
    try {
      const result = await ambient.run(ambient.resolve({ command: "env -0", owner: null }));
      assert.ok(env0Entries(result.stdout.text).includes("__proto__=y"), result.stdout.text);
    } finally {
      await ambient.close();
    }
  });

  it('a dshEnv entry named "__proto__" is checked like any other name (and refused: no DSH_ prefix)', () => {
    const dshEnv = JSON.parse('{"__proto__":"x"}');
    const error = thrown(() => shell.resolve({ command: "true", owner: null, dshEnv }));
    assertSpecErrorNaming(error, "dshEnv");
    assert.ok(error.field.includes("__proto__"), error.field);
  });

  it('a value of "__proto__" is checked like any other value', () => {
    const env = JSON.parse('{"__proto__":5}');
    const error = thrown(() => shell.resolve({ command: "true", owner: null, env }));
    assertSpecErrorNaming(error, "env");
    assert.ok(error.field.includes("__proto__"), error.field);
  });

  const notRecords: [string, unknown][] = [
    ["an array", ["A=1"]],
    ["an empty array", []],
    ["a Map", new Map([["A", "1"]])],
    ["a string", "A=1"],
    ["a number", 1],
    ["null", null],
  ];
  for (const [title, value] of notRecords) {
    it(`env as ${title} is refused naming env`, () => {
      const request = untyped<ShellExecRequest>({ command: "true", owner: null, env: value });
      const error = thrown(() => shell.resolve(request));
      assertSpecErrorNaming(error, "env");
      assert.equal(error.field, "env");
    });
  }

  it("dshEnv and ambientEnv as a Map or an array are refused naming the field", () => {
    for (const value of [new Map([["DSH_A", "1"]]), ["DSH_A=1"]]) {
      const request = untyped<ShellExecRequest>({ command: "true", owner: null, dshEnv: value });
      assertSpecErrorNaming(thrown(() => shell.resolve(request)), "dshEnv");
      const options = untyped<LocalShellOptions>({ ambientEnv: value });
      assertSpecErrorNaming(thrown(() => createLocalShell(options)), "ambientEnv");
    }
  });

  it("a null-prototype object is an ordinary record", () => {
    const env = Object.assign(Object.create(null), { A: "1" });
    assert.equal(shell.resolve({ command: "true", owner: null, env }).env?.A, "1");
  });
});
