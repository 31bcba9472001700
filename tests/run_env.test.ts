import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { ENV_OVERRIDES } from "../src/seam/env/mod.ts";
import { createShell } from "../mod.ts";
import type { ProcessAdapter } from "../src/seam/mod.ts";
import { HostProcess } from "../src/seam/host.ts";
import { createShellIn } from "../src/seam/shell.ts";
import { runtimeAdapter } from "./helpers/adapters.ts";
import { IS_DENO } from "./helpers/runtime.ts";
import { shQuote } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { parseEnv0 } from "./helpers/env_dump.ts";

// Fake secrets, assembled so no secret-shaped literal sits in the repository.
const fakeGithubToken = ["ghp", "_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"].join("");
const fakeDbUrl = ["postgres://app", ":", "hunter2", "@db:5432/app"].join("");

describe("the child's environment", () => {
  let shell: Shell;
  before(() => {
    shell = createLocalShell({
      ambientEnv: {
        PATH: process.env.PATH,
        HOME: "/home/someone",
        OPENAI_API_KEY: "not-shown-1",
        SOME_VALUE: fakeGithubToken,
        DATABASE_URL: fakeDbUrl,
        DSH_SESSION: "ambient-session",
        dsh_lower: "ambient-lower",
        GIT_AUTHOR_NAME: "Someone",
        TERM: "xterm-256color",
      },
    });
  });
  after(() => shell.close());

  const childEnv = async (extra: Partial<Parameters<Shell["resolve"]>[0]> = {}) => {
    const result = await shell.run(shell.resolve({ command: "env -0", owner: null, ...extra }));
    assert.equal(result.exitCode, 0);
    return parseEnv0(result.stdout.text);
  };

  it("drops credential names, credential values and DSH_* entries; keeps the rest", async () => {
    const env = await childEnv();
    for (const gone of ["OPENAI_API_KEY", "SOME_VALUE", "DATABASE_URL", "DSH_SESSION", "dsh_lower"]) {
      assert.equal(env[gone], undefined, `${gone} reached the child`);
    }
    assert.equal(env.HOME, "/home/someone");
    assert.equal(env.GIT_AUTHOR_NAME, "Someone");
    assert.equal(env.PATH, process.env.PATH);
  });

  it("applies ENV_OVERRIDES over the ambient environment", async () => {
    const env = await childEnv();
    for (const [name, value] of Object.entries(ENV_OVERRIDES)) assert.equal(env[name], value, name);
  });

  it("lets explicit env win over the scrub and the overrides, and undefined remove", async () => {
    const env = await childEnv({ env: { OPENAI_API_KEY: "passed-on-purpose", TERM: "vt100", HOME: undefined } });
    assert.equal(env.OPENAI_API_KEY, "passed-on-purpose");
    assert.equal(env.TERM, "vt100");
    assert.equal(env.HOME, undefined);
  });

  it("lets dshEnv win over env", async () => {
    const env = await childEnv({ env: { DSH_SESSION: "forged" }, dshEnv: { DSH_SESSION: "trusted" } });
    assert.equal(env.DSH_SESSION, "trusted");
  });

  it("gives each command a mark of its own that neither env nor dshEnv can set", async () => {
    const forged = "0".repeat(32);
    const first = await childEnv({ env: { DSH_COMMAND_MARK: forged }, dshEnv: { DSH_COMMAND_MARK: forged } });
    const second = await childEnv();
    assert.match(first.DSH_COMMAND_MARK ?? "", /^[0-9a-f]{32}$/);
    assert.notEqual(first.DSH_COMMAND_MARK, forged);
    assert.notEqual(first.DSH_COMMAND_MARK, second.DSH_COMMAND_MARK);
  });

  it("passes no variable it was not given (no inherited PWD, SHLVL aside)", async () => {
    const env = await childEnv();
    // bash itself sets PWD, SHLVL and _; the launch adds the command's mark for the watchdog; everything else must
    // come from the merge.
    const expected = new Set([
      "PATH",
      "HOME",
      "GIT_AUTHOR_NAME",
      ...Object.keys(ENV_OVERRIDES),
      "PWD",
      "SHLVL",
      "_",
      "DSH_COMMAND_MARK",
    ]);
    for (const name of Object.keys(env)) assert.ok(expected.has(name), `unexpected variable ${name}`);
    assert.match(env.DSH_COMMAND_MARK ?? "", /^[0-9a-f]{32}$/);
  });

  it("reads the process environment at each spawn when ambientEnv is not given", async () => {
    const local = createLocalShell();
    const name = "DSH_TEST_FAKE_API_KEY_FOR_SCRUB";
    const plain = "DSHELL_TEST_PLAIN_VALUE";
    try {
      process.env.MY_FAKE_API_KEY = "scrub-me";
      process.env[plain] = "keep-me";
      process.env[name] = "managed";
      const result = await local.run(local.resolve({ command: "env -0", owner: null }));
      const env = parseEnv0(result.stdout.text);
      assert.equal(env.MY_FAKE_API_KEY, undefined);
      assert.equal(env[name], undefined);
      assert.equal(env[plain], "keep-me");
    } finally {
      delete process.env.MY_FAKE_API_KEY;
      delete process.env[plain];
      delete process.env[name];
      await local.close();
    }
  });

  it("starts from the adapter's readEnvironment when it has one, read at each spawn", async () => {
    let reads = 0;
    const adapter: ProcessAdapter = {
      ...runtimeAdapter,
      readEnvironment: () => {
        reads++;
        return { PATH: process.env.PATH ?? "/usr/bin:/bin", FROM_READER: `read ${reads}`, GITHUB_TOKEN: "hidden" };
      },
    };
    const local = createShell(adapter);
    const name = "DSHELL_TEST_ONLY_IN_PROCESS_ENV";
    try {
      process.env[name] = "not from the reader";
      for (const expected of ["read 1", "read 2"]) {
        const result = await local.run(local.resolve({ command: "env -0", owner: null }));
        const env = parseEnv0(result.stdout.text);
        assert.equal(env.FROM_READER, expected);
        assert.equal(env[name], undefined, "the process environment was read instead of the adapter's");
        assert.equal(env.GITHUB_TOKEN, undefined, "what the reader gave was not scrubbed");
      }
      assert.equal(reads, 2);
    } finally {
      delete process.env[name];
      await local.close();
    }
  });

  it("a reader's new copy of an unchanged environment reuses the scrub remembered for it", async () => {
    const host = new HostProcess();
    const memo = host.scrubDecisions;
    const results: unknown[] = [];
    const get = memo.get.bind(memo);
    memo.get = (ambient, source) => {
      const result = get(ambient, source);
      results.push(result);
      return result;
    };
    const fixed = { PATH: process.env.PATH ?? "/usr/bin:/bin", KEPT: "yes" };
    const local = createShellIn(host, { ...runtimeAdapter, readEnvironment: () => ({ ...fixed }) });
    try {
      for (let i = 0; i < 2; i++) {
        assert.equal((await local.run(local.resolve({ command: "echo $KEPT", owner: null }))).stdout.text, "yes\n");
      }
      assert.equal(results.length, 2);
      assert.equal(results[0], results[1], "the scrub was built again for an unchanged environment");
      fixed.KEPT = "changed";
      assert.equal((await local.run(local.resolve({ command: "echo $KEPT", owner: null }))).stdout.text, "changed\n");
      assert.notEqual(results[2], results[1], "a changed environment was served the old scrub");
    } finally {
      await local.close();
    }
  });

  it("the runtime adapter's readEnvironment, where there is one, reads what process.env holds", () => {
    const name = "DSHELL_TEST_READER_AGREES";
    try {
      process.env[name] = "set through process.env";
      const read = runtimeAdapter.readEnvironment?.();
      // Node has no reader: process.env is read directly, and is what the other tests here check.
      if (!IS_DENO) return assert.equal(read, undefined);
      assert.deepEqual({ ...read }, { ...process.env });
      delete process.env[name];
      assert.equal(name in runtimeAdapter.readEnvironment!(), false, "a deleted variable was still read");
    } finally {
      delete process.env[name];
    }
  });

  it("sees every change of the process environment between two spawns of one shell", async () => {
    const local = createLocalShell();
    const name = "DSHELL_TEST_CHANGING_URL";
    const added = "DSHELL_TEST_ADDED_LATER";
    const spawnEnv = async () => {
      const result = await local.run(local.resolve({ command: "env -0", owner: null }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      return parseEnv0(result.stdout.text);
    };
    try {
      process.env[name] = "postgres://db:5432/app";
      assert.equal((await spawnEnv())[name], "postgres://db:5432/app");
      process.env[name] = fakeDbUrl;
      assert.equal((await spawnEnv())[name], undefined, "a value that became credential-shaped reached the child");
      process.env[name] = "postgres://db:5432/other";
      process.env[added] = "new";
      const env = await spawnEnv();
      assert.equal(env[name], "postgres://db:5432/other");
      assert.equal(env[added], "new");
      delete process.env[name];
      delete process.env[added];
      const after = await spawnEnv();
      assert.equal(name in after, false, "a deleted variable reached the child");
      assert.equal(added in after, false, "a deleted variable reached the child");
    } finally {
      delete process.env[name];
      delete process.env[added];
      await local.close();
    }
  });
});

describe("bash reads no startup file", () => {
  // bash sources ~/.bashrc for a "remote" top-level shell: stdin a socket
  // (what Node gives a child) or SSH_CLIENT set, with SHLVL absent. A hook
  // always has stdin, so without the nesting mark every hook on Node would
  // run the user's ~/.bashrc first.
  let home: string;
  let marker: string;
  before(() => {
    home = freshDir("dsh-bashrc-");
    marker = join(home, "bashrc-ran");
    writeFileSync(join(home, ".bashrc"), `echo ran >> ${shQuote(marker)}\necho from-bashrc\n`);
  });
  after(() => removeDir(home));

  const cases: { name: string; ambient: Record<string, string | undefined>; shlvl: string }[] = [
    { name: "no SHLVL", ambient: {}, shlvl: "2" },
    { name: "no SHLVL, SSH_CLIENT set", ambient: { SSH_CLIENT: "10.0.0.1 5000 22" }, shlvl: "2" },
    { name: "SHLVL=0", ambient: { SHLVL: "0" }, shlvl: "2" },
    { name: "SHLVL=3 is kept", ambient: { SHLVL: "3" }, shlvl: "4" },
    // bash resets a level of 1000 or more to 1: a top-level shell again, which would read ~/.bashrc.
    { name: "SHLVL=999", ambient: { SHLVL: "999" }, shlvl: "2" },
    { name: "SHLVL not a number", ambient: { SHLVL: "x" }, shlvl: "2" },
  ];
  for (const { name, ambient, shlvl } of cases) {
    it(`a command with stdin: ${name}`, async () => {
      rmSync(marker, { force: true });
      const shell = createLocalShell({ ambientEnv: { PATH: process.env.PATH, HOME: home, ...ambient } });
      try {
        const result = await shell.run(
          shell.resolve({ command: 'read -r line; echo "$line $SHLVL"', owner: null, stdin: "payload\n" }),
        );
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.equal(result.stdout.text, `payload ${shlvl}\n`);
        assert.equal(existsSync(marker), false, "~/.bashrc was sourced");
      } finally {
        await shell.close();
      }
    });
  }

  for (const where of ["ambient", "env"] as const) {
    it(`neither BASH_ENV nor ENV is sourced, nor reaches the command (set in ${where})`, async () => {
      rmSync(marker, { force: true });
      const rc = { BASH_ENV: join(home, ".bashrc"), ENV: join(home, ".bashrc") };
      const shell = createLocalShell({
        ambientEnv: { PATH: process.env.PATH, HOME: home, ...(where === "ambient" ? rc : {}) },
      });
      try {
        const result = await shell.run(shell.resolve({
          command: 'echo "${BASH_ENV:-none} ${ENV:-none}"; bash -c "echo inner"',
          owner: null,
          stdin: "payload\n",
          ...(where === "env" ? { env: rc } : {}),
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        assert.equal(result.stdout.text, "none none\ninner\n");
        assert.equal(existsSync(marker), false, "a startup file was sourced");
      } finally {
        await shell.close();
      }
    });
  }
});
