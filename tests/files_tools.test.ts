/**
 * The file tools of `./tool` (Claude Code's Read, Write, Edit; Codex's
 * apply_patch): their inputs, the text they give the model, the owner
 * they run as, and the same tools served over MCP (tools/list, and a
 * Write → Read → Edit round trip).
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalShell, type Shell, type ShellEvent } from "../mod.ts";
import { Agent, RunContext } from "@openai/agents";
import { asSchema, type ToolSet } from "ai";
import { createMcpServer } from "../src/mcp/mod.ts";
import { aiSdkFileTools } from "../src/frameworks/ai.ts";
import { openAIAgentsFileTools } from "../src/frameworks/openai_agents.ts";
import {
  applyPatchTool,
  editTool,
  executeApplyPatchTool,
  executeEditTool,
  executeReadTool,
  executeWriteTool,
  fileTools,
  readTool,
  ToolInputError,
  writeTool,
} from "../src/tool/mod.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { connectInMemory, connectStdio } from "./helpers/mcp.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";

describe("the file tools", () => {
  let dir: string;
  let shell: Shell;
  const owners: (string | null)[] = [];
  const context = { owner: "session-7" };

  before(() => {
    dir = freshDir("dsh-file-tools-");
    shell = createLocalShell({ workdir: dir });
    shell.events.subscribe((event: ShellEvent) => {
      if (event.type === "file") owners.push(event.owner);
    });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("have the agents' names and inputs", () => {
    assert.deepEqual(fileTools.map((tool) => tool.name), ["Read", "Write", "Edit", "apply_patch"]);
    assert.deepEqual(Object.keys(readTool.inputSchema.properties), ["file_path", "offset", "limit"]);
    assert.deepEqual(Object.keys(writeTool.inputSchema.properties), ["file_path", "content"]);
    assert.deepEqual(Object.keys(editTool.inputSchema.properties), [
      "file_path",
      "old_string",
      "new_string",
      "replace_all",
    ]);
    assert.deepEqual(applyPatchTool.inputSchema.required, ["input"]);
    const unknown = assert.throws(() => readTool.parse({ path: "/x" }), (error) => {
      assert.ok(error instanceof ToolInputError);
      assert.equal(error.field, "path");
      assert.match(error.message, /the file is `file_path`/);
      return true;
    });
    assert.equal(unknown, undefined);
  });

  it("Read numbers lines as Claude Code does: the number, a tab, the line", async () => {
    writeFileSync(join(dir, "r.txt"), "alpha\r\nbeta\n\ngamma");
    const all = await executeReadTool(shell, { file_path: join(dir, "r.txt") }, context);
    assert.deepEqual(all, { text: "1\talpha\n2\tbeta\n3\t\n4\tgamma", isError: false });
    const part = await executeReadTool(shell, { file_path: "r.txt", offset: 2, limit: 2 }, context);
    assert.equal(part.text, "2\tbeta\n3\t", "no note: the model asked for two lines");
    writeFileSync(join(dir, "long.txt"), "x\n".repeat(2001));
    const long = await executeReadTool(shell, { file_path: "long.txt" }, context);
    assert.ok(long.text.endsWith("2000\tx\n\n[showing lines 1-2000; the file goes on: read on with offset 2001]"));
    const past = await executeReadTool(shell, { file_path: "r.txt", offset: 10 }, context);
    assert.equal(
      past.text,
      "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 4 lines." +
        "</system-reminder>",
    );
    writeFileSync(join(dir, "empty.txt"), "");
    const empty = await executeReadTool(shell, { file_path: "empty.txt" }, context);
    assert.equal(empty.text, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>");
    const missing = await executeReadTool(shell, { file_path: "nope.txt" }, context);
    assert.equal(missing.isError, true);
    assert.equal(missing.text, `File does not exist. Note: your current working directory is ${dir}.`);
    writeFileSync(join(dir, "ends.txt"), "one\ntwo\n");
    // Claude Code's lines are the text split at newlines: one that ends the file is followed by an empty line.
    assert.equal((await executeReadTool(shell, { file_path: "ends.txt" }, context)).text, "1\tone\n2\ttwo\n3\t");
    assert.equal((await executeReadTool(shell, { file_path: "ends.txt", limit: 2 }, context)).text, "1\tone\n2\ttwo");
    assert.equal((await executeReadTool(shell, { file_path: "ends.txt", offset: 3 }, context)).text, "3\t");
    const climbing = await executeReadTool(shell, { file_path: "../x" }, context);
    assert.deepEqual([climbing.isError, climbing.text.startsWith("file_path: must not contain")], [true, true]);
    const zero = await executeReadTool(shell, { file_path: "r.txt", offset: 0 }, context);
    assert.deepEqual([zero.isError, zero.text.startsWith("offset")], [true, true]);
  });

  it("Write and Edit answer as Claude Code does, and refuse as it does, with nothing changed", async () => {
    const path = join(dir, "w.txt");
    assert.equal(
      (await executeWriteTool(shell, { file_path: path, content: "a b a\n" }, context)).text,
      `File created successfully at: ${path}`,
    );
    assert.equal(
      (await executeWriteTool(shell, { file_path: path, content: "a b a\n" }, context)).text,
      `The file ${path} has been updated successfully.`,
    );
    const twice = await executeEditTool(shell, { file_path: path, old_string: "a", new_string: "c" }, context);
    assert.deepEqual(twice, {
      text: "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set " +
        "replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the " +
        "instance.\nString: a",
      isError: true,
    });
    const none = await executeEditTool(shell, { file_path: path, old_string: "zzz", new_string: "c" }, context);
    assert.deepEqual(none, { text: "String to replace not found in file.\nString: zzz", isError: true });
    const same = await executeEditTool(shell, { file_path: path, old_string: "b", new_string: "b" }, context);
    assert.deepEqual(same, {
      text: "No changes to make: old_string and new_string are exactly the same.",
      isError: true,
    });
    const empty = await executeEditTool(shell, { file_path: path, old_string: "", new_string: "x" }, context);
    assert.deepEqual([empty.isError, empty.text.startsWith("old_string: must not be empty")], [true, true]);
    assert.equal(readFileSync(path, "utf8"), "a b a\n");
    const all = await executeEditTool(
      shell,
      { file_path: path, old_string: "a", new_string: "c", replace_all: true },
      context,
    );
    assert.equal(all.text, `The file ${path} has been updated. All occurrences were successfully replaced.`);
    const one = await executeEditTool(shell, { file_path: path, old_string: "b", new_string: "B" }, context);
    assert.equal(one.text, `The file ${path} has been updated successfully.`);
    assert.equal(readFileSync(path, "utf8"), "c B c\n");
  });

  it("apply_patch answers as Codex does, and a failure changes nothing", async () => {
    writeFileSync(join(dir, "old.txt"), "x\n");
    const done = await executeApplyPatchTool(shell, {
      input: "*** Begin Patch\n*** Add File: added.txt\n+new\n*** Update File: old.txt\n*** Move to: renamed.txt\n" +
        "@@\n-x\n+y\n*** End Patch",
    }, context);
    assert.deepEqual(done, {
      text: "Success. Updated the following files:\nA added.txt\nM renamed.txt\n",
      isError: false,
    });
    assert.equal(readFileSync(join(dir, "renamed.txt"), "utf8"), "y\n");
    const failed = await executeApplyPatchTool(shell, {
      input: "*** Begin Patch\n*** Delete File: added.txt\n*** Update File: renamed.txt\n@@\n-nope\n+z\n*** End Patch",
    }, context);
    assert.deepEqual(failed, {
      text: `apply_patch verification failed: Failed to find expected lines in ${join(dir, "renamed.txt")}:\nnope`,
      isError: true,
    });
    assert.ok(existsSync(join(dir, "added.txt")));
    const header = await executeApplyPatchTool(shell, { input: "*** Begin Patch\n*** Nope\n*** End Patch" }, context);
    assert.equal(header.isError, true);
    assert.match(header.text, /^apply_patch verification failed: invalid hunk at line 2, '\*\*\* Nope' is not a valid/);
  });

  it("every call ran as the harness's owner", () => {
    assert.ok(owners.length > 5);
    assert.deepEqual([...new Set(owners)], ["session-7"]);
  });
});

describe("the file tools over MCP", () => {
  let dir: string;
  let shell: Shell;

  before(() => {
    dir = freshDir("dsh-file-mcp-");
    shell = createLocalShell({ workdir: dir });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("tools/list has the four tools, by set, with ./tool's very definitions", async () => {
    const claude = await connectInMemory(createMcpServer(shell, { tools: "claude" }));
    const codex = await connectInMemory(createMcpServer(shell, { tools: "codex" }));
    const all = await connectInMemory(createMcpServer(shell));
    const names = async (client: typeof all): Promise<string[]> =>
      (await client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual((await names(claude)).slice(3), ["Read", "Write", "Edit"]);
    assert.deepEqual((await names(codex)).slice(2), ["apply_patch"]);
    const listed = (await all.listTools()).tools.filter((tool) => fileTools.some((own) => own.name === tool.name));
    assert.deepEqual(listed.map((tool) => tool.name), ["Read", "Write", "Edit", "apply_patch"]);
    assert.deepEqual(listed.map((tool) => tool.inputSchema), fileTools.map((tool) => tool.inputSchema));
    assert.deepEqual(listed.map((tool) => tool.annotations?.readOnlyHint), [true, false, false, false]);
    await Promise.all([claude.close(), codex.close(), all.close()]);
  });

  it("a Write → Read → Edit round trip", async () => {
    const client = await connectInMemory(createMcpServer(shell));
    const path = join(dir, "mcp.txt");
    const call = async (name: string, args: Record<string, unknown>): Promise<[string, boolean]> => {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text: string }[];
      return [content.map((part) => part.text).join(""), result.isError === true];
    };
    assert.deepEqual(await call("Write", { file_path: path, content: "hello\nworld\n" }), [
      `File created successfully at: ${path}`,
      false,
    ]);
    assert.deepEqual(await call("Read", { file_path: path }), ["1\thello\n2\tworld\n3\t", false]);
    assert.deepEqual(await call("Edit", { file_path: path, old_string: "world", new_string: "there" }), [
      `The file ${path} has been updated successfully.`,
      false,
    ]);
    assert.equal(readFileSync(path, "utf8"), "hello\nthere\n");
    const [refused, isError] = await call("Edit", { file_path: path, old_string: "world", new_string: "x" });
    assert.deepEqual([refused, isError], ["String to replace not found in file.\nString: world", true]);
    await client.close();
  });
});

describe("the file tools in the framework adapters, with the real packages", () => {
  let dir: string;
  let shell: Shell;
  const owners: (string | null)[] = [];

  before(() => {
    dir = freshDir("dsh-file-frameworks-");
    shell = createLocalShell({ workdir: dir });
    shell.events.subscribe((event: ShellEvent) => {
      if (event.type === "file") owners.push(event.owner);
    });
  });
  after(async () => {
    await shell.close();
    removeDir(dir);
  });

  it("AI SDK: the four tools carry ./tool's descriptions and schemas, and run as the owner", async () => {
    const tools = aiSdkFileTools(shell, { owner: "chat-1" }) satisfies ToolSet;
    assert.deepEqual(Object.keys(tools), ["Read", "Write", "Edit", "apply_patch"]);
    for (const [index, tool] of Object.values(tools).entries()) {
      assert.equal(tool.description, fileTools[index].description);
      assert.deepEqual(await asSchema(tool.inputSchema).jsonSchema, fileTools[index].inputSchema);
    }
    const options = { toolCallId: "call-1", messages: [], context: {} };
    await tools.Write.execute({ file_path: "ai.txt", content: "one\n" }, options);
    assert.deepEqual(await tools.Read.execute({ file_path: "ai.txt" }, options), {
      text: "1\tone\n2\t",
      isError: false,
    });
    const refused = await tools.Edit.execute({ file_path: "ai.txt", old_string: "two", new_string: "2" }, options);
    const shown = await tools.Edit.toModelOutput?.({ toolCallId: "c", input: {}, output: refused });
    assert.deepEqual(shown, { type: "error-text", value: "String to replace not found in file.\nString: two" });
    assert.throws(() => aiSdkFileTools(shell, {} as { owner: null }), TypeError);
  });

  it("OpenAI Agents SDK: four function tools an Agent takes, run as the owner", async () => {
    const tools = openAIAgentsFileTools(shell, { owner: "run-1" });
    const agent = new Agent({ name: "files", tools });
    assert.deepEqual(agent.tools.map((tool) => tool.name), ["Read", "Write", "Edit", "apply_patch"]);
    const [read, , , applyPatch] = tools;
    const context = new RunContext();
    const patch = "*** Begin Patch\n*** Add File: agents.txt\n+made\n*** End Patch";
    assert.equal(
      await applyPatch.invoke(context, JSON.stringify({ input: patch })),
      "Success. Updated the following files:\nA agents.txt\n",
    );
    assert.equal(await read.invoke(context, JSON.stringify({ file_path: "agents.txt" })), "1\tmade\n2\t");
    assert.equal(readFileSync(join(dir, "agents.txt"), "utf8"), "made\n");
  });

  it("every call ran as its adapter's owner", () => {
    assert.deepEqual([...new Set(owners)].sort(), ["chat-1", "run-1"]);
  });
});

describe("the file tools of dsh-shell mcp on stdio, sandboxed (the CLI's default)", { skip: sandboxSkip() }, () => {
  let work: string;
  let outside: string;

  before(() => {
    // Not under /tmp, which the sandbox replaces with an owner's own.
    work = mkdtempSync("/var/tmp/dsh-file-mcp-work-");
    outside = mkdtempSync("/var/tmp/dsh-file-mcp-outside-");
    writeFileSync(join(outside, "theirs.txt"), "theirs\n");
  });
  after(() => {
    removeDir(work);
    removeDir(outside);
  });

  it("writes in the workdir; outside it a file can be read, not written or edited, and nothing appears", async () => {
    const server = await connectStdio([], work);
    const call = async (name: string, args: Record<string, unknown>): Promise<[string, boolean]> => {
      const result = await server.client.callTool({ name, arguments: args });
      return [(result.content as { text: string }[]).map((part) => part.text).join(""), result.isError === true];
    };
    assert.deepEqual(await call("Write", { file_path: join(work, "in.txt"), content: "in\n" }), [
      `File created successfully at: ${join(work, "in.txt")}`,
      false,
    ]);
    assert.deepEqual(await call("Read", { file_path: join(outside, "theirs.txt") }), ["1\ttheirs\n2\t", false]);
    const [written, writeFailed] = await call("Write", { file_path: join(outside, "new.txt"), content: "x" });
    assert.equal(writeFailed, true, written);
    assert.match(written, /permission denied \(or a read-only file system\)/);
    const [, editFailed] = await call("Edit", {
      file_path: join(outside, "theirs.txt"),
      old_string: "theirs",
      new_string: "mine",
    });
    assert.equal(editFailed, true);
    const patch = `*** Begin Patch\n*** Add File: ${join(outside, "patched.txt")}\n+x\n*** End Patch`;
    assert.equal((await call("apply_patch", { input: patch }))[1], true);
    assert.deepEqual(readdirSync(outside), ["theirs.txt"]);
    assert.equal(readFileSync(join(outside, "theirs.txt"), "utf8"), "theirs\n");
    await server.client.close();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });
});
