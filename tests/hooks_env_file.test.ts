/**
 * `CLAUDE_ENV_FILE` (and Codex's `CODEX_ENV_FILE`): a fresh private file
 * per hook on the events that have one, the hooks' writes returned in
 * configuration order, and the variables they set read back by sourcing
 * the text in bash.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { createLocalShell, type Shell, ShellSpawnError } from "../mod.ts";
import { dispatchHookEvent, type HookDialect } from "../src/hooks/mod.ts";
import { readEnvFile } from "../src/hooks/run/env_file.ts";
import { shQuote, untilFileExists } from "./helpers/bash.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { settingsWith } from "./helpers/hooks.ts";

describe("env file", () => {
  let dir: string;
  let shell: Shell;
  before(() => {
    dir = freshDir("dsh-env-file-");
    shell = createLocalShell({
      graceMs: 300,
      timeoutMs: 20_000,
      // A harness that itself runs under Claude Code has its own CLAUDE_ENV_FILE: hooks must not inherit it.
      ambientEnv: { PATH: process.env.PATH, HOME: process.env.HOME, CLAUDE_ENV_FILE: "/ambient/env.sh", GONE: "x" },
    });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  const dispatch = (dialect: HookDialect, event: string, entries: Record<string, unknown>[]) =>
    dispatchHookEvent(shell, settingsWith(event, entries, dialect), {
      event,
      payload: { hook_event_name: event, source: "startup" },
      projectDir: dir,
      owner: null,
    });

  it("SessionStart: each hook writes its own file; the text comes back in configuration order, with its effect", async () => {
    const firstMayWrite = join(dir, "first-may-write");
    const result = await dispatch("claude-code", "SessionStart", [
      // Writes last, yet comes first: configuration order, not finish order.
      { command: `${untilFileExists(firstMayWrite)}; echo 'export FIRST=1' >> "$CLAUDE_ENV_FILE"` },
      {
        command: "python3",
        args: [
          "-c",
          "import os; open(os.environ['CLAUDE_ENV_FILE'], 'a').write('export SECOND=\"two words\"\\nunset GONE\\n')",
        ],
      },
      { command: `echo 'export PATH="$PATH:/opt/tools"' >> "$CLAUDE_ENV_FILE"; touch ${shQuote(firstMayWrite)}` },
      { command: "echo no env writes" },
    ]);
    assert.deepEqual(result.results.map((entry) => entry.result.outcome), Array(4).fill("success"));
    assert.equal(
      result.envFile?.text,
      'export FIRST=1\nexport SECOND="two words"\nunset GONE\nexport PATH="$PATH:/opt/tools"\n',
    );
    assert.equal(result.envFile?.env.FIRST, "1");
    assert.equal(result.envFile?.env.SECOND, "two words");
    assert.ok(result.envFile?.env.PATH?.endsWith(":/opt/tools"));
    assert.ok(Object.hasOwn(result.envFile?.env ?? {}, "GONE") && result.envFile?.env.GONE === undefined);
  });

  it("the files are private, distinct per hook, not the host's, and gone after the dispatch", async () => {
    // node for the modes: GNU and BSD stat disagree on their flags.
    const mode =
      `const fs = require("fs"); for (const p of process.argv.slice(1)) console.log((fs.statSync(p).mode & 0o777).toString(8))`;
    // One file per hook: the hooks run in parallel, and their lines would interleave in a shared one.
    const record = (seen: string): string =>
      `node -e ${shQuote(mode)} "$CLAUDE_ENV_FILE" "$(dirname "$CLAUDE_ENV_FILE")" >> ${shQuote(seen)}; ` +
      `echo "$CLAUDE_ENV_FILE" >> ${shQuote(seen)}`;
    const seen = [join(dir, "seen-1"), join(dir, "seen-2")];
    const result = await dispatch("claude-code", "SessionStart", seen.map((file) => ({ command: record(file) })));
    assert.equal(result.envFile, undefined, "nothing written: no envFile");
    const paths = seen.map((file) => {
      const [fileMode, dirMode, path] = readFileSync(file, "utf8").trim().split("\n");
      assert.deepEqual([fileMode, dirMode], ["600", "700"], file);
      return path;
    });
    assert.ok(paths.every((path) => path.startsWith("/")), String(paths));
    assert.notEqual(paths[0], paths[1]);
    assert.ok(!paths.includes("/ambient/env.sh"));
    for (const path of paths) assert.equal(existsSync(dirname(path)), false, `${path}'s directory is removed`);
  });

  it("claude-code: SessionStart, Setup, CwdChanged and FileChanged have it; others do not", async () => {
    const probe = { command: `echo "\${CLAUDE_ENV_FILE:-none} \${CODEX_ENV_FILE:-none}"` };
    for (const event of ["SessionStart", "Setup", "CwdChanged", "FileChanged"]) {
      const [entry] = (await dispatch("claude-code", event, [probe])).results;
      assert.match(entry.result.stdout, /^\/\S+ none\n$/, event);
    }
    for (const event of ["PreToolUse", "UserPromptSubmit", "SessionEnd"]) {
      const [entry] = (await dispatch("claude-code", event, [probe])).results;
      assert.equal(entry.result.stdout, "none none\n", event);
    }
  });

  it("codex 0.169.0: SessionStart hooks get no env file (neither CODEX_ENV_FILE nor CLAUDE_ENV_FILE)", async () => {
    for (const event of ["SessionStart", "CwdChanged"]) {
      const result = await dispatch("codex", event, [
        { command: `echo "\${CODEX_ENV_FILE:-none} \${CLAUDE_ENV_FILE:-none}"` },
      ]);
      assert.equal(result.results[0].result.stdout, "none none\n", event);
      assert.equal("envFile" in result, false, event);
    }
  });

  it("background hooks get none; a file with an error still yields what it set before", async () => {
    const result = await dispatch("claude-code", "SessionStart", [
      { command: `echo "\${CLAUDE_ENV_FILE:-none}"`, async: true },
      { command: `printf 'export OK=1\\nif then\\n' >> "$CLAUDE_ENV_FILE"` },
    ]);
    assert.equal((await result.background[0].done).result.stdout, "none\n");
    assert.deepEqual(result.envFile?.env, { OK: "1" });
  });

  it("the harness applies the variables to later commands", async () => {
    const result = await dispatch("claude-code", "SessionStart", [
      { command: `echo 'export GREETING=hello' >> "$CLAUDE_ENV_FILE"` },
    ]);
    const later = await shell.run(
      shell.resolve({ command: 'echo "$GREETING"', owner: null, env: result.envFile?.env }),
    );
    assert.equal(later.stdout.text, "hello\n");
  });
  it("drops DSH_* and BASH_FUNC_* names with a warning: a hook cannot forge the owner or replace git later", async () => {
    const marker = join(dir, "forged-git-ran");
    const result = await dispatch("claude-code", "SessionStart", [
      {
        // In any case: `dsh_owner` is refused as `DSH_OWNER` is (it was carried before, the check case-sensitive).
        command:
          `{ echo 'export DSH_OWNER=forged dsh_owner=forged KEPT=1'; echo 'git() { touch ${shQuote(marker)}; }'; ` +
          `echo 'export -f git'; echo 'export BASH_ENV=/x'; } >> "$CLAUDE_ENV_FILE"`,
      },
    ]);
    assert.deepEqual(result.envFile?.env, { KEPT: "1", BASH_ENV: "/x" });
    const warning = result.warnings.find((entry) => entry.field === "envFile");
    assert.match(warning?.message ?? "", /DSH_OWNER/);
    assert.match(warning?.message ?? "", /dsh_owner/);
    assert.match(warning?.message ?? "", /BASH_FUNC_git%%/);
    const later = await shell.run(
      shell.resolve({
        command: 'git --version >/dev/null; echo "${DSH_OWNER:-none} ${BASH_ENV:-none}"',
        owner: null,
        env: result.envFile?.env,
      }),
    );
    assert.equal(later.stdout.text, "none none\n", "neither the owner nor BASH_ENV reached the later command");
    assert.equal(existsSync(marker), false, "the env file's git function ran in a later command");
  });
});

describe("env file read-back failures", () => {
  // A shell whose run ends without an exit code: the read-back must fail with a ShellError the dispatch can word.
  const ended = (fields: { timedOut: boolean; text?: string; exitCode?: number | null }): Shell =>
    ({
      resolve: (request: object) => request,
      run: () =>
        Promise.resolve({
          exitCode: fields.exitCode ?? null,
          timedOut: fields.timedOut,
          stdout: { text: fields.text ?? "", truncated: false },
        }),
    }) as unknown as Shell;
  const options = { env: {}, workdir: "/", owner: null };

  it("a read-back that timed out, did not exit or lost its separator is a ShellSpawnError with its reason", async () => {
    const cases: [Shell, string][] = [
      [ended({ timedOut: true }), "reading the env file timed out"],
      [ended({ timedOut: false }), "reading the env file failed"],
      [ended({ timedOut: false, exitCode: 0, text: "A=1\0" }), "reading the env file failed"],
    ];
    for (const [fake, message] of cases) {
      await assert.rejects(readEnvFile(fake, "export A=1\n", options), (error) => {
        assert.ok(error instanceof ShellSpawnError);
        assert.equal(error.code, "ERR_SHELL_SPAWN");
        assert.equal(error.message, message);
        return true;
      });
    }
  });
});
