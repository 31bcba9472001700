/**
 * The four file tools' definitions: names, descriptions and input schemas
 * as the agents have them (Claude Code's `Read`, `Write`, `Edit`; Codex's
 * `apply_patch`), and the check of each input.
 *
 * @module
 */

import { z } from "zod";
import { checkInput, type InputRules } from "../shared/check_input.ts";
import { generateInputSchema } from "../shared/json_schema.ts";
import type { ApplyPatchToolInput, EditToolInput, FileTool, ReadToolInput, WriteToolInput } from "./types.ts";

const PATH = z.string({
  error: (issue) => issue.input === undefined ? "is required: the path of the file" : "must be a string: a path",
}).min(1, { error: "must not be empty: the path of the file" });

function rules<T>(
  tool: string,
  validator: z.ZodType<T>,
  names: readonly string[],
  example: string,
  refusals: [string, string][] = [],
): InputRules<T> {
  return { tool, names, refusals: new Map(refusals), validator, example };
}

const PATH_KEYS: [string, string][] = ["path", "file", "filename", "filePath"].map((key) => [
  key,
  "the file is `file_path`",
]);

const readValidator: z.ZodType<ReadToolInput> = z.strictObject({
  file_path: PATH.describe("The absolute path to the file to read (or one relative to the working directory)"),
  offset: z.number({ error: "must be a number: the line to start from" }).int().min(1, {
    error: "must be a line number, from 1",
  }).optional().describe(
    "The line number to start reading from. Only provide if the file is too large to read at once",
  ),
  limit: z.number({ error: "must be a number of lines" }).int().min(1, { error: "must be at least 1" }).optional()
    .describe("The number of lines to read. Only provide if the file is too large to read at once."),
});

const writeValidator: z.ZodType<WriteToolInput> = z.strictObject({
  file_path: PATH.describe("The absolute path to the file to write (must be absolute, not relative)"),
  content: z.string({ error: "must be a string: the whole content of the file" }).describe(
    "The content to write to the file",
  ),
});

const editValidator: z.ZodType<EditToolInput> = z.strictObject({
  file_path: PATH.describe("The absolute path to the file to modify"),
  old_string: z.string({ error: "must be a string: the exact text to replace" }).describe("The text to replace"),
  new_string: z.string({ error: "must be a string: the replacement" }).describe(
    "The text to replace it with (must be different from old_string)",
  ),
  replace_all: z.boolean({ error: "must be true or false" }).optional().describe(
    "Replace all occurrences of old_string (default false)",
  ),
});

const patchValidator: z.ZodType<ApplyPatchToolInput> = z.strictObject({
  input: z.string({ error: "must be a string: the whole patch, from *** Begin Patch to *** End Patch" }).describe(
    "The entire contents of the apply_patch command",
  ),
});

/** The input rules of each tool, for `checkInput`. */
export const READ_RULES: InputRules<ReadToolInput> = rules(
  "Read",
  readValidator,
  ["file_path", "offset", "limit"],
  '{"file_path": "/work/README.md"}',
  PATH_KEYS,
);
export const WRITE_RULES: InputRules<WriteToolInput> = rules(
  "Write",
  writeValidator,
  ["file_path", "content"],
  '{"file_path": "/work/notes.txt", "content": "hello\\n"}',
  PATH_KEYS,
);
export const EDIT_RULES: InputRules<EditToolInput> = rules(
  "Edit",
  editValidator,
  ["file_path", "old_string", "new_string", "replace_all"],
  '{"file_path": "/work/a.ts", "old_string": "foo", "new_string": "bar"}',
  [...PATH_KEYS, ["oldString", "the text to replace is `old_string`"], [
    "newString",
    "the replacement is `new_string`",
  ]],
);
export const APPLY_PATCH_RULES: InputRules<ApplyPatchToolInput> = rules(
  "apply_patch",
  patchValidator,
  ["input"],
  '{"input": "*** Begin Patch\\n*** Add File: a.txt\\n+hello\\n*** End Patch"}',
  [["patch", "the patch is `input`"]],
);

const WHERE = "It runs where this shell's commands run (under the same sandbox, on the same machine or container).";

/**
 * Claude Code's `Read`: numbered lines of a text file, `cat -n` style.
 *
 * @example
 * ```ts
 * import { readTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.equal(readTool.name, "Read");
 * assert.deepEqual(readTool.parse({ file_path: "/etc/hostname" }), { file_path: "/etc/hostname" });
 * ```
 */
export const readTool: FileTool<"Read", ReadToolInput> = Object.freeze({
  name: "Read",
  description: [
    "Reads a text file. Results are returned with line numbers starting at 1, one line per row: the number, a tab, " +
    "the line.",
    "- `file_path` should be an absolute path; a relative one is taken from the working directory.",
    "- By default up to 2000 lines from the start are read; give `offset` and `limit` for a part of a long file.",
    "- At most 256 KiB are returned: a longer read is cut at a line end, and a note says where to read on.",
    "- Binary files and directories are refused; list a directory with a command.",
    `- ${WHERE}`,
  ].join("\n"),
  inputSchema: generateInputSchema("Read", readValidator, READ_RULES.names, ["file_path"]),
  parse: (input: unknown) => checkInput(READ_RULES, input),
});

/**
 * Claude Code's `Write`: the whole file, written atomically.
 *
 * @example
 * ```ts
 * import { writeTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.deepEqual(writeTool.inputSchema.required, ["file_path", "content"]);
 * ```
 */
export const writeTool: FileTool<"Write", WriteToolInput> = Object.freeze({
  name: "Write",
  description: [
    "Writes a file, replacing it whole if it exists.",
    "- `file_path` should be an absolute path; its directory must exist.",
    "- The write is atomic: the file holds the old content or the new one, never a part.",
    "- Prefer Edit for changing part of an existing file.",
    `- ${WHERE}`,
  ].join("\n"),
  inputSchema: generateInputSchema("Write", writeValidator, WRITE_RULES.names, ["file_path", "content"]),
  parse: (input: unknown) => checkInput(WRITE_RULES, input),
});

/**
 * Claude Code's `Edit`: exact text replaced in a file.
 *
 * @example
 * ```ts
 * import { editTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.deepEqual(editTool.inputSchema.required, ["file_path", "old_string", "new_string"]);
 * ```
 */
export const editTool: FileTool<"Edit", EditToolInput> = Object.freeze({
  name: "Edit",
  description: [
    "Performs exact string replacements in a file.",
    "- `old_string` must match the file's text exactly, whitespace included (without the line-number prefix of " +
    "Read's output).",
    "- The edit fails if `old_string` is not found, or is found more than once: give more surrounding text to make " +
    "it unique, or set `replace_all` to replace every occurrence.",
    "- `new_string` must differ from `old_string`. The file is written atomically.",
    `- ${WHERE}`,
  ].join("\n"),
  inputSchema: generateInputSchema("Edit", editValidator, EDIT_RULES.names, ["file_path", "old_string", "new_string"]),
  parse: (input: unknown) => checkInput(EDIT_RULES, input),
});

/**
 * Codex's `apply_patch`, as a function tool whose `input` is the patch.
 *
 * @example
 * ```ts
 * import { applyPatchTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.equal(applyPatchTool.name, "apply_patch");
 * assert.deepEqual(applyPatchTool.inputSchema.required, ["input"]);
 * ```
 */
export const applyPatchTool: FileTool<"apply_patch", ApplyPatchToolInput> = Object.freeze({
  name: "apply_patch",
  description: [
    "Use the `apply_patch` tool to edit files. The patch language is a stripped-down, file-oriented diff format:",
    "",
    "*** Begin Patch",
    "[ one or more file sections ]",
    "*** End Patch",
    "",
    "Each file section starts with one of three headers:",
    "*** Add File: <path> - create a new file. Every following line is a + line (the initial contents).",
    "*** Delete File: <path> - remove an existing file. Nothing follows.",
    "*** Update File: <path> - patch an existing file in place (optionally followed by *** Move to: <new path>).",
    "An update has one or more hunks, each introduced by @@ (optionally followed by a line of context such as a " +
    "class or function name), then lines starting with ' ' (context), '-' (removed) or '+' (added). Give about 3 " +
    "lines of context above and below each change.",
    "Paths are relative to the working directory (or absolute). The patch is applied all or nothing.",
    WHERE,
  ].join("\n"),
  inputSchema: generateInputSchema("apply_patch", patchValidator, APPLY_PATCH_RULES.names, ["input"]),
  parse: (input: unknown) => checkInput(APPLY_PATCH_RULES, input),
});

/**
 * The four file tools, in the order MCP serves them.
 *
 * @example
 * ```ts
 * import { fileTools } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * assert.equal(fileTools.length, 4);
 * ```
 */
export const fileTools: readonly [typeof readTool, typeof writeTool, typeof editTool, typeof applyPatchTool] = Object
  .freeze([readTool, writeTool, editTool, applyPatchTool] as const);
