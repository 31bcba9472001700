/**
 * The file tools against the released binaries: Claude Code 2.1.328 driven
 * by the mock model to call its own Read and Edit, and Codex 0.169.0 to
 * call its own apply_patch, on the same files as this library's tools.
 * What each binary hands the model (and the files it leaves) is compared
 * with `executeReadTool`, `executeEditTool` and `executeApplyPatchTool`
 * case by case; the differences that stay are listed in docs/files.md and
 * asserted here as they are, so a new release that changes them fails.
 *
 * Expensive (one run of each binary): run once per CI, like the other
 * `agents_*` files.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createLocalShell, type Shell } from "../mod.ts";
import { executeApplyPatchTool, executeEditTool, executeReadTool, type ToolOutcome } from "../src/tool/mod.ts";
import {
  CLAUDE_CODE_VERSION,
  claudeCodeBinary,
  claudeCodeRun,
  CODEX_VERSION,
  codexBinary,
  codexRun,
  isolation,
  REQUIRE_AGENTS,
  runAgent,
} from "./helpers/agents.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { type ScriptedToolCall, toolResultsOf } from "./helpers/mock_model.ts";

const isolated = isolation();
const owner = { owner: "differential" };

/** Writes `files` (relative path → content) under `root`. */
function plant(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** Every file under `root`, relative path → content. */
function tree(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else found[relative(root, path)] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return found;
}

/** Why the binary cannot run here, or undefined. */
function missingFor(found: { path: string } | { missing: string }): string | undefined {
  if ("missing" in found) return found.missing;
  if ("missing" in isolated) return isolated.missing;
  return undefined;
}

/** One case: what the model calls (paths relative to the project), and how the binary's answer relates to ours. */
interface Case {
  readonly name: string;
  readonly tool: string;
  readonly input: Record<string, unknown>;
}

describe(`Read and Edit against Claude Code ${CLAUDE_CODE_VERSION}`, () => {
  const found = claudeCodeBinary();
  const missing = missingFor(found);
  let dir: string;
  let ours: string;
  let shell: Shell;

  before(() => {
    dir = freshDir("dsh-agents-files-cc-");
    ours = join(dir, "ours");
    mkdirSync(ours);
    shell = createLocalShell({ workdir: ours });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("the binary is here where it is required", () => {
    if (REQUIRE_AGENTS) assert.equal(missing, undefined, missing);
  });

  const FILES = {
    "a.txt": "alpha\nbeta beta\ngamma\n",
    "b.txt": "no newline at the end",
    "crlf.txt": "one\r\ntwo\r\n",
    "tabs.txt": "\tindented\n  spaced\n",
    "empty.txt": "",
    "dir/inside.txt": "inside\n",
    "blob.dat": "\u0000\u0001binary\u0000",
  };
  const CASES: readonly Case[] = [
    { name: "numbering, a file that ends with a newline", tool: "Read", input: { file_path: "a.txt" } },
    { name: "offset and limit", tool: "Read", input: { file_path: "a.txt", offset: 2, limit: 1 } },
    { name: "an offset past the end", tool: "Read", input: { file_path: "a.txt", offset: 10 } },
    { name: "an offset on the empty last line", tool: "Read", input: { file_path: "a.txt", offset: 4 } },
    { name: "no newline at the end", tool: "Read", input: { file_path: "b.txt" } },
    { name: "CRLF line ends", tool: "Read", input: { file_path: "crlf.txt" } },
    { name: "leading tabs", tool: "Read", input: { file_path: "tabs.txt" } },
    { name: "an empty file", tool: "Read", input: { file_path: "empty.txt" } },
    { name: "a missing file", tool: "Read", input: { file_path: "missing.txt" } },
    {
      name: "Edit: not unique",
      tool: "Edit",
      input: { file_path: "a.txt", old_string: "beta", new_string: "B" },
    },
    {
      name: "Edit: not found",
      tool: "Edit",
      input: { file_path: "a.txt", old_string: "delta", new_string: "D" },
    },
    {
      name: "Edit: replaced",
      tool: "Edit",
      input: { file_path: "a.txt", old_string: "gamma", new_string: "GAMMA" },
    },
    { name: "a directory", tool: "Read", input: { file_path: "dir" } },
    { name: "a binary file", tool: "Read", input: { file_path: "blob.dat" } },
    { name: "a limit past the end", tool: "Read", input: { file_path: "b.txt", limit: 50 } },
    {
      name: "Edit: the same string",
      tool: "Edit",
      input: { file_path: "a.txt", old_string: "alpha", new_string: "alpha" },
    },
    {
      name: "Edit: a missing file",
      tool: "Edit",
      input: { file_path: "missing.txt", old_string: "a", new_string: "b" },
    },
    {
      name: "Edit: replace_all",
      tool: "Edit",
      input: { file_path: "a.txt", old_string: "beta", new_string: "B", replace_all: true },
    },
  ];

  it(`the tool results and the files left match this library's, ${CASES.length} cases`, {
    skip: missing ?? false,
  }, async () => {
    const project = join(dir, "project");
    mkdirSync(project);
    plant(project, FILES);
    plant(ours, FILES);
    const calls: ScriptedToolCall[] = CASES.map(({ tool, input }) => ({
      name: tool,
      input: { ...input, file_path: join(project, String(input.file_path)) },
    }));
    const binary = (found as { path: string }).path;
    const run = await runAgent((isolated as { bwrap: string }).bwrap, {
      ...claudeCodeRun(binary, dir, { env: { ENABLE_TOOL_SEARCH: "false" } }),
      cwd: project,
      protocol: "anthropic",
      call: calls,
      dir,
    });
    assert.equal(run.code, 0, `Claude Code failed: ${run.stderr}`);
    const results = toolResultsOf(run.requests.at(-1));
    assert.equal(results.length, CASES.length, `${results.length} tool results: ${JSON.stringify(results)}`);
    const mismatches: string[] = [];
    for (const [index, { name, tool, input }] of CASES.entries()) {
      const execute = tool === "Read" ? executeReadTool : executeEditTool;
      const mine: ToolOutcome = await execute(
        shell,
        { ...input, file_path: join(ours, String(input.file_path)) },
        owner,
      );
      // Claude Code's harness wraps its own tools' errors; the tool's text is inside.
      const theirs = results[index].content.replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, "$1")
        .replaceAll(project, "<root>");
      const text = mine.text.replaceAll(ours, "<root>");
      if (theirs !== text || results[index].isError !== mine.isError) {
        mismatches.push(
          `${name}:\n  Claude Code: ${JSON.stringify([theirs, results[index].isError])}\n` +
            `  this library: ${JSON.stringify([text, mine.isError])}`,
        );
      }
    }
    assert.deepEqual(mismatches, [], mismatches.join("\n"));
    assert.deepEqual(tree(ours), tree(project), "the files left");
  });
});

describe(`apply_patch against Codex ${CODEX_VERSION}`, () => {
  const found = codexBinary();
  const missing = missingFor(found);
  let dir: string;
  let ours: string;
  let shell: Shell;

  before(() => {
    dir = freshDir("dsh-agents-files-codex-");
    ours = join(dir, "ours");
    mkdirSync(ours);
    shell = createLocalShell({ workdir: ours });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("the binary is here where it is required", () => {
    if (REQUIRE_AGENTS) assert.equal(missing, undefined, missing);
  });

  const FILES = {
    "multi.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
    "move.txt": "moving\n",
    "gone.txt": "to delete\n",
    "context.txt": "a\nb\nc\n",
    "spaces.txt": "  padded   \nplain\n",
    "twice.txt": "x\ny\n",
  };
  const patch = (...lines: string[]): string => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
  const CASES: readonly Case[] = [
    { name: "add", tool: "apply_patch", input: { input: patch("*** Add File: added.txt", "+first", "+second") } },
    {
      name: "update with several hunks",
      tool: "apply_patch",
      input: { input: patch("*** Update File: multi.txt", "@@", "-two", "+TWO", "@@ five", "-six", "+SIX") },
    },
    {
      name: "move",
      tool: "apply_patch",
      input: { input: patch("*** Update File: move.txt", "*** Move to: sub/moved.txt", "@@", "-moving", "+moved") },
    },
    { name: "delete", tool: "apply_patch", input: { input: patch("*** Delete File: gone.txt") } },
    {
      name: "a context that does not match",
      tool: "apply_patch",
      input: { input: patch("*** Update File: context.txt", "@@", "-x", "+y") },
    },
    {
      name: "a bad header",
      tool: "apply_patch",
      input: { input: patch("*** Frobnicate File: context.txt", "+z") },
    },
    {
      name: "no Begin Patch",
      tool: "apply_patch",
      input: { input: "*** Update File: context.txt\n@@\n-a\n+A\n*** End Patch" },
    },
    {
      name: "whitespace-tolerant matching",
      tool: "apply_patch",
      input: { input: patch("*** Update File: spaces.txt", "@@", "-padded", "+PADDED") },
    },
    {
      name: "an update of a missing file",
      tool: "apply_patch",
      input: { input: patch("*** Update File: nowhere.txt", "@@", "-a", "+b") },
    },
    {
      name: "add over an existing file",
      tool: "apply_patch",
      input: { input: patch("*** Add File: added.txt", "+new") },
    },
    { name: "delete a missing file", tool: "apply_patch", input: { input: patch("*** Delete File: nowhere.txt") } },
    {
      name: "one file updated twice",
      tool: "apply_patch",
      input: {
        input: patch("*** Update File: twice.txt", "@@", "-x", "+X", "*** Update File: twice.txt", "@@", "-y", "+Y"),
      },
    },
    {
      name: "an end-of-file hunk",
      tool: "apply_patch",
      input: { input: patch("*** Update File: twice.txt", "@@", "-y", "+last", "*** End of File") },
    },
  ];

  it(`the files left and the texts match this library's, ${CASES.length} cases`, {
    skip: missing ?? false,
  }, async () => {
    const project = join(dir, "project");
    mkdirSync(project);
    plant(project, FILES);
    plant(ours, FILES);
    const binary = (found as { path: string }).path;
    const { home, ...run } = codexRun(binary, dir);
    // A model whose catalog entry offers apply_patch (the freeform tool): the mock's own name offers none.
    const prepare = `${run.prepare}\nsed -i 's/^model = "mock-model"/model = "gpt-5.6-sol"/' '${home}/config.toml'`;
    const calls: ScriptedToolCall[] = CASES.map(({ tool, input }) => ({ name: tool, custom: true, input }));
    const done = await runAgent((isolated as { bwrap: string }).bwrap, {
      ...run,
      prepare,
      cwd: project,
      protocol: "responses",
      call: calls,
      dir,
    });
    assert.equal(done.code, 0, `Codex failed: ${done.stderr}`);
    const results = toolResultsOf(done.requests.at(-1));
    assert.equal(results.length, CASES.length, `${results.length} tool results: ${JSON.stringify(results)}`);
    const mismatches: string[] = [];
    for (const [index, { name, input }] of CASES.entries()) {
      const mine = await executeApplyPatchTool(shell, input, owner);
      // Codex's exec framing around the tool's own text.
      const theirs = results[index].content.replace(/^Exit code: \d+\nWall time: [\d.]+ seconds\nOutput:\n/, "")
        .replaceAll(project, "<root>");
      const text = mine.text.replaceAll(ours, "<root>");
      if (theirs !== text) {
        mismatches.push(`${name}:\n  Codex: ${JSON.stringify(theirs)}\n  this library: ${JSON.stringify(text)}`);
      }
    }
    assert.deepEqual(mismatches, [], mismatches.join("\n"));
    assert.deepEqual(tree(ours), tree(project), "the files left");
  });
});
