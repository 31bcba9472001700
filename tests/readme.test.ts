/**
 * The README's samples run as written: every ```js block is run as a
 * script of its own, on the runtime running the tests (Deno against the
 * sources; Node 20, 22 and 24 against the built package, each leg its own
 * Node), and must exit 0 and print exactly the ```text block that follows
 * it. A sample that a runtime cannot parse (`await using` on Node 20) or an
 * output that drifted fails here.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { IS_DENO, scriptArgs } from "./helpers/runtime.ts";
import { dirHolding } from "./helpers/repository.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";

/** One sample: its code and the output the README shows under it. */
interface Sample {
  line: number;
  code: string;
  expected: string;
}

/** Every ```js block of `markdown` with the ```text block right after it. */
function samples(markdown: string): Sample[] {
  const found: Sample[] = [];
  const fence = /```(\w+)\n([\s\S]*?)```/g;
  const blocks = [...markdown.matchAll(fence)].map((match) => ({
    lang: match[1],
    body: match[2],
    line: markdown.slice(0, match.index).split("\n").length,
  }));
  blocks.forEach((block, index) => {
    if (block.lang !== "js") return;
    const next = blocks[index + 1];
    if (next === undefined || next.lang !== "text") throw new Error(`README line ${block.line}: no output block`);
    found.push({ line: block.line, code: block.body, expected: next.body });
  });
  return found;
}

/** Why a sandbox sample cannot run here, or false when it can (always false in CI, where a missing bwrap must fail). */
/** Runs `file` with this runtime; resolves with its exit code and output. */
function runScript(file: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, scriptArgs(file, []), { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => stdout += chunk);
  child.stderr.on("data", (chunk) => stderr += chunk);
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the README's samples", () => {
  const root = dirHolding("README.md");
  const found = samples(readFileSync(join(root, "README.md"), "utf8"));

  it("there are samples for the root, the tools (streaming too), the hooks and the events", () => {
    assert.ok(found.length >= 5, `only ${found.length} samples`);
    for (const entry of ['"@dsh/shell"', '"@dsh/shell/tool"', '"@dsh/shell/hooks"']) {
      assert.ok(found.some((sample) => sample.code.includes(entry)), `no sample imports ${entry}`);
    }
    // What issue 24 asked to see run: a streaming tool call and an audit-log listener.
    assert.ok(
      found.some((s) => s.code.includes("executeBashTool") && s.code.includes("onStdout")),
      "no streaming tool call",
    );
    assert.ok(found.some((s) => s.code.includes("shell.events.subscribe")), "no audit-log listener");
    assert.ok(found.some((s) => s.code.includes("hookPayload(")), "no hook payload builder");
  });

  it("no code block uses `await using`, which Node 20 cannot parse (the README says its samples do not)", () => {
    const markdown = readFileSync(join(root, "README.md"), "utf8");
    const blocks = [...markdown.matchAll(/```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/g)];
    assert.ok(blocks.length > found.length, "the ts blocks are read too");
    const using = blocks.filter((block) => /\bawait using\b/.test(block[1]));
    assert.deepEqual(using.map((block) => markdown.slice(0, block.index).split("\n").length), []);
  });

  for (const sample of found) {
    // The sandbox's sample needs bubblewrap: skipped loudly where it is missing, except in CI, where it must run.
    const skip = sample.code.includes("sandbox:") && sandboxSkip();
    it(`the sample at README line ${sample.line} runs and prints what the README shows`, { skip }, async () => {
      // Inside the package (or the repository), so that "@dsh/shell" resolves to this very code.
      const dir = mkdtempSync(join(root, ".readme-sample-"));
      try {
        const file = join(dir, IS_DENO ? "sample.js" : "sample.mjs");
        writeFileSync(file, sample.code);
        const run = await runScript(file, dir);
        assert.equal(run.code, 0, `exit code ${run.code}; stderr:\n${run.stderr}`);
        assert.equal(run.stdout, sample.expected);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
