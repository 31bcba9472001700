/**
 * Terminal control sequences never reach the model by default: the texts of
 * `bash`, `bash_output`, `exec_command`, `write_stdin` and the MCP server's
 * results and progress are free of CSI, OSC (OSC 52 clipboard writes
 * included) and every other C0/C1 control but `\t`, `\n`, `\r`; the
 * result, the observers and the spill files keep the raw bytes; the
 * `keepControlSequences` option keeps them in the text too.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createLocalShell, type Shell } from "../mod.ts";
import { createMcpServer } from "../src/mcp/mod.ts";
import { stripControlSequences } from "../src/tool/shared/control_sequences.ts";
import {
  bashTool,
  executeBashOutputTool,
  executeBashTool,
  executeExecCommandTool,
  executeWriteStdinTool,
} from "../src/tool/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { connectInMemory } from "./helpers/mcp.ts";

const ESC = "\x1b";
/** What a hostile or merely colorful command prints: colors, a title, a clipboard write (BEL and ST), a link. */
const PAINTED = `${ESC}[1;31mred${ESC}[0m ${ESC}]0;title${ESC}\\${ESC}]52;c;ZWNobyBwd25lZA==\x07` +
  `${ESC}]8;;https://example.com${ESC}\\link${ESC}]8;;${ESC}\\ bell\x07 back\x08 nul\x00 c1\u009b2Jend`;
const CLEAN = "red link bell back nul c1end";
/** The same as printf's format: every byte as an octal escape, so the shell line itself has no control byte. */
const PRINTF = [...new TextEncoder().encode(PAINTED)].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");

describe("stripControlSequences", () => {
  it("removes CSI, OSC (BEL and ST), DCS, other escapes and C0/C1 controls; keeps \\t \\n \\r and text", () => {
    assert.equal(stripControlSequences(PAINTED), CLEAN);
    assert.equal(stripControlSequences(`${ESC}P1$r0m${ESC}\\a${ESC}7b${ESC}(Bc${ESC}[?25l`), "abc");
    assert.equal(stripControlSequences("tab\there\r\nnext ünïcødé 日本"), "tab\there\r\nnext ünïcødé 日本");
    // Cut off at the end of the text (a read between two chunks): no half sequence is left.
    assert.equal(stripControlSequences(`ok${ESC}[38;5`), "ok");
    assert.equal(stripControlSequences(`ok${ESC}]52;c;AAAA`), "ok");
  });
});

describe("the tools' texts", () => {
  let shell: Shell;
  let dir: string;
  before(() => {
    dir = freshDir("dsh-control-");
    shell = createLocalShell({ workdir: dir, maxOutputBytes: 4_000 });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("bash: the text is clean; the result and the observer have the raw bytes; the option keeps them", async () => {
    const seen: Uint8Array[] = [];
    const outcome = await executeBashTool(shell, { command: `printf '${PRINTF}'; printf '${PRINTF}' >&2` }, {
      owner: "a",
      onStdout: (chunk) => seen.push(chunk),
    });
    assert.equal(outcome.text, `${CLEAN}\n[stderr]\n${CLEAN}`);
    assert.equal(outcome.result?.stdout.text, PAINTED);
    assert.equal(new TextDecoder().decode(Buffer.concat(seen)), PAINTED);
    const kept = await executeBashTool(shell, { command: `printf '${PRINTF}'` }, {
      owner: "a",
      keepControlSequences: true,
    });
    assert.equal(kept.text, PAINTED);
    assert.equal(bashTool.render(outcome.result!), CLEAN + "\n[stderr]\n" + CLEAN);
    assert.equal(bashTool.render(outcome.result!, { keepControlSequences: true }), `${PAINTED}\n[stderr]\n${PAINTED}`);
    await assert.rejects(
      executeBashTool(shell, { command: "true" }, { owner: "a", keepControlSequences: 1 as never }),
      /keepControlSequences/,
    );
  });

  it("bash: a spill file keeps the raw bytes of a long painted output", async () => {
    const outcome = await executeBashTool(shell, { command: `for i in $(seq 200); do printf '${PRINTF}\\n'; done` }, {
      owner: "a",
    });
    const path = /full output: (\S+)\]$/.exec(outcome.text)?.[1];
    assert.ok(path, outcome.text.slice(-200));
    assert.equal(outcome.text.includes(ESC), false);
    assert.equal(readFileSync(path, "utf8"), `${PAINTED}\n`.repeat(200));
  });

  it("bash_output: clean, unless kept", async () => {
    const started = await executeBashTool(shell, { command: `printf '${PRINTF}'`, run_in_background: true }, {
      owner: "b",
    });
    const task = shell.task(started.taskId ?? "", "b");
    await task.done;
    const read = await executeBashOutputTool(shell, { task_id: task.id }, { owner: "b" });
    assert.equal(read.text, `${CLEAN}\n[status: completed; exit code: 0]`);
    const again = await executeBashTool(shell, { command: `printf '${PRINTF}'`, run_in_background: true }, {
      owner: "b",
    });
    await shell.task(again.taskId ?? "", "b").done;
    const kept = await executeBashOutputTool(shell, { task_id: again.taskId }, {
      owner: "b",
      keepControlSequences: true,
    });
    assert.ok(kept.text.startsWith(PAINTED), kept.text);
  });

  it("exec_command and write_stdin on a terminal: the program's words, not its paint", async () => {
    const context = { owner: "c" };
    const started = await executeExecCommandTool(shell, {
      cmd: `read -p "$(printf '\\033[1mname?\\033[0m ')" name; printf '${PRINTF}'; echo " $name"`,
      tty: true,
      yield_time_ms: 300,
    }, context);
    assert.equal(started.text.includes(ESC), false, started.text);
    const answered = await executeWriteStdinTool(shell, {
      session_id: started.sessionId ?? 0,
      chars: "Ada\n",
      yield_time_ms: 10_000,
    }, context);
    assert.match(answered.text, new RegExp(`${CLEAN} Ada`));
    // deno-lint-ignore no-control-regex -- control characters are what it looks for
    const control = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
    assert.equal(control.test(answered.text), false, JSON.stringify(answered.text));
  });

  it("MCP: results and progress are clean; keepControlSequences keeps them", async () => {
    const client = await connectInMemory(createMcpServer(shell));
    const messages: string[] = [];
    const result = await client.callTool({ name: "bash", arguments: { command: `printf '${PRINTF}'` } }, undefined, {
      onprogress: (note) => void messages.push(note.message ?? ""),
    });
    assert.equal((result.content as { text: string }[])[0].text, CLEAN);
    assert.equal(messages.join(""), CLEAN);
    const raw = await connectInMemory(createMcpServer(shell, { keepControlSequences: true }));
    const kept = await raw.callTool({ name: "bash", arguments: { command: `printf '${PRINTF}'` } });
    assert.equal((kept.content as { text: string }[])[0].text, PAINTED);
    await Promise.all([client.close(), raw.close()]);
  });
});
