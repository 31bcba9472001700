/**
 * The argv form: `args` on a request runs `command` as a program, without a
 * shell, with exactly those arguments. Everything else (the environment
 * rules, stdin, its own session, termination, capture) is the same as for a
 * command line.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ShellSpawnError } from "../mod.ts";
import { bashTool } from "../src/tool/mod.ts";
import { parseEnvDump } from "./helpers/env_dump.ts";
import { assertSpecError, rejection, thrown } from "./helpers/errors.ts";
import { waitForPids } from "./helpers/pid_files.ts";
import { isRunning, procInfo } from "./helpers/proc.ts";
import { withShell } from "./helpers/shell.ts";
import { eventually } from "./helpers/wait.ts";

/** Arguments a shell would expand, split, glob or run: the program must get each exactly as written. */
const TRICKY = [
  "two words",
  "",
  "'single quoted'",
  '"double quoted"',
  "$(touch EXPANDED)",
  "`touch BACKTICKED`",
  "$HOME and ${PATH}",
  "line one\nline two",
  "*",
  "-n",
  "--",
  "; touch SEMICOLON",
  "a|b&c>d<e",
  "é € 😀",
  "\\back\\slash\\",
  "  leading and trailing  ",
];

describe("the argv form", () => {
  it("passes every argument verbatim: spaces, quotes, $(), backticks, newlines, * and empty ones", async () => {
    await withShell({}, async (shell, dir) => {
      // printf from coreutils prints each argument between NULs: nothing expands them but a shell, and there is none.
      const result = await shell.run(shell.resolve({ command: "printf", args: ["%s\\0", ...TRICKY], owner: null }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.deepEqual(result.stdout.text.split("\0").slice(0, -1), TRICKY);
      for (const name of ["EXPANDED", "BACKTICKED", "SEMICOLON"]) {
        assert.equal(existsSync(join(dir, name)), false, `${name}: a shell ran part of an argument`);
      }
    });
  });

  it("reaches a program in another language unchanged (python3's sys.argv)", async () => {
    await withShell({}, async (shell) => {
      const script = "import json, sys; print(json.dumps(sys.argv[1:]))";
      const result = await shell.run(
        shell.resolve({ command: "python3", args: ["-c", script, ...TRICKY], owner: null }),
      );
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.deepEqual(JSON.parse(result.stdout.text), TRICKY);
    });
  });

  it("looks the program up on the child's PATH, and runs a path relative to the workdir", async () => {
    await withShell({}, async (shell, dir) => {
      const bin = join(dir, "bin");
      mkdirSync(bin);
      const tool = join(bin, "dsh-argv-tool");
      writeFileSync(tool, '#!/bin/sh\nprintf "%s|" "$0" "$@"\n');
      chmodSync(tool, 0o755);
      const path = `${bin}:/usr/bin:/bin`;
      const found = await shell.run(
        shell.resolve({ command: "dsh-argv-tool", args: ["a b"], owner: null, env: { PATH: path } }),
      );
      assert.equal(found.stdout.text, `${tool}|a b|`);
      writeFileSync(join(dir, "local.sh"), '#!/bin/sh\necho "local $1"\n');
      chmodSync(join(dir, "local.sh"), 0o755);
      const local = await shell.run(shell.resolve({ command: "./local.sh", args: ["x"], owner: null }));
      assert.equal(local.stdout.text, "local x\n");
    });
  });

  it("a missing program is a ShellSpawnError naming it and the PATH searched, and nothing runs", async () => {
    await withShell({}, async (shell, dir) => {
      const path = join(dir, "empty");
      const spec = shell.resolve({ command: "dsh-no-such-program", args: [], owner: null, env: { PATH: path } });
      const error = await rejection(shell.run(spec));
      assert.ok(error instanceof ShellSpawnError, String(error));
      assert.match(error.message, /^cannot start the program "dsh-no-such-program": not found/);
      assert.ok(error.message.includes(`PATH=${path}`), error.message);
      assert.equal(error.path, "dsh-no-such-program");
      const task = shell.start(spec);
      assert.equal(task.pid, -1);
      assert.ok(task.spawnError instanceof ShellSpawnError);
    });
  });

  it("gets the same environment as a command line: scrubbed ambient, overrides, env, dshEnv", async () => {
    const ambientEnv = { PATH: "/usr/bin:/bin", GITHUB_TOKEN: "hidden", KEPT: "ambient", DSH_OLD: "x" };
    await withShell({ ambientEnv }, async (shell) => {
      const result = await shell.run(shell.resolve({
        command: "env",
        args: [],
        owner: null,
        env: { ADDED: "env" },
        dshEnv: { DSH_SESSION: "s1" },
      }));
      const env = parseEnvDump(result.stdout.text);
      assert.equal(env.get("KEPT"), "ambient");
      assert.equal(env.get("GITHUB_TOKEN"), undefined);
      assert.equal(env.get("DSH_OLD"), undefined);
      assert.equal(env.get("ADDED"), "env");
      assert.equal(env.get("DSH_SESSION"), "s1");
      assert.equal(env.get("TERM"), "dumb");
      assert.equal(env.get("NO_COLOR"), "1");
    });
  });

  it("takes stdin, leads its own session, and a timeout ends its whole tree", async () => {
    await withShell({}, async (shell, dir) => {
      const echoed = await shell.run(shell.resolve({ command: "cat", args: [], owner: null, stdin: "piped in" }));
      assert.equal(echoed.stdout.text, "piped in");

      const pids = join(dir, "pids");
      // The program is sh here only to make a tree; it gets its script as an argument, not through a shell.
      const script = `echo $$ > "$1"; sleep 30 & echo $! >> "$1"; trap '' TERM; wait`;
      const result = await shell.run(shell.resolve({
        command: "sh",
        args: ["-c", script, "sh", pids],
        owner: null,
        timeoutMs: 300,
      }));
      assert.equal(result.timedOut, true);
      const [leader, child] = await waitForPids(pids, 2);
      assert.equal(procInfo(leader)?.sid ?? leader, leader, "the program led its own session");
      assert.ok(await eventually(() => !isRunning(leader) && !isRunning(child)), "the tree outlived the timeout");
    });
  });

  it("args is validated like the rest of the request: an array of strings without NUL, named by index", async () => {
    await withShell({}, (shell) => {
      assertSpecError(thrown(() => shell.resolve({ command: "echo", args: "a b" as never, owner: null })), "args");
      assertSpecError(
        thrown(() => shell.resolve({ command: "echo", args: ["ok", 7 as never], owner: null })),
        "args[1]",
      );
      assertSpecError(thrown(() => shell.resolve({ command: "echo", args: ["a\0b"], owner: null })), "args[0]", /NUL/);
      assertSpecError(
        thrown(() => shell.resolve({ command: "echo", args: ["\ud800"], owner: null })),
        "args[0]",
        /surrogate/,
      );
      return Promise.resolve();
    });
  });

  it("the spec keeps its own copy of args; a change to the spec's array itself is validated and runs", async () => {
    await withShell({}, async (shell) => {
      const args = ["first"];
      const spec = shell.resolve({ command: "echo", args, owner: null });
      args[0] = "changed";
      assert.equal((await shell.run(spec)).stdout.text, "first\n", "the request's array is not the spec's");
      (spec.args as string[])[0] = "second";
      assert.equal((await shell.run(spec)).stdout.text, "second\n", "the spec is the caller's to change");
      (spec.args as string[])[0] = "bad\0";
      assertSpecError(await rejection(shell.run(spec)), "args[0]", /NUL/);
    });
  });

  it("the model-facing tool never produces args: the key is refused", () => {
    const error = thrown(() => bashTool.parse({ command: "echo", args: ["x"] }));
    assert.equal((error as Error).name, "ToolInputError");
    assert.match((error as Error).message, /args/);
  });
});
