/**
 * The bash tool as one object: what a harness registers with a model API.
 *
 * @module
 */

import { DESCRIPTION, SESSION_DESCRIPTION } from "./description.ts";
import { inputSchema } from "./input_schema.ts";
import { parse } from "./parse.ts";
import { render } from "./render.ts";
import { toRequest } from "./request.ts";
import type { BashTool } from "./types.ts";

/**
 * The model-facing bash tool: `name` (`"bash"`), `description` and
 * `inputSchema` for the model API, and `parse`, `toRequest` and `render`,
 * the steps of a call. The object is frozen.
 *
 * Inputs: `command` (required), `description`, `timeout` (ms), `workdir`,
 * `run_in_background`. Any other key — `stdin`, `env`, `dshEnv`,
 * `stdoutMaxBytes` included — is refused by `parse` with a
 * `ToolInputError` naming it.
 *
 * @example Register the tool with a model API
 * ```ts
 * import { bashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * const tools = [{ name: bashTool.name, description: bashTool.description, input_schema: bashTool.inputSchema }];
 * assert.equal(tools[0].name, "bash");
 * assert.deepEqual(tools[0].input_schema.required, ["command"]);
 * ```
 *
 * @example Run one call step by step
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell();
 * const input = bashTool.parse({ command: "echo out; echo err >&2; exit 3" });
 * const result = await shell.run(shell.resolve(bashTool.toRequest(input, { owner: "session-7" })));
 * assert.equal(bashTool.render(result), "out\n[stderr]\nerr\n[exit code: 3]");
 * ```
 */
export const bashTool: BashTool = Object.freeze({
  name: "bash",
  description: DESCRIPTION,
  inputSchema,
  parse,
  toRequest,
  render,
});

/**
 * The bash tool for calls that share a session (`executeBashTool(shell,
 * input, { owner, session })`): {@linkcode bashTool} with the description
 * that says what then happens, that `cd` and `export` carry over to the
 * next call. Offer this one to the model when the harness passes a
 * session, and `bashTool` when it does not. The MCP server's `bash` is this
 * one. The object is frozen.
 *
 * @example
 * ```ts
 * import { createLocalShell } from "@dsh/shell";
 * import { bashSessionTool, bashTool, executeBashTool } from "@dsh/shell/tool";
 * import assert from "node:assert/strict";
 * await using shell = createLocalShell({ workdir: "/" });
 * await using session = shell.session({ owner: "chat-1" });
 * assert.match(bashSessionTool.description, /carry over to the next call/);
 * assert.match(bashTool.description, /nothing carries over between calls/);
 * const context = { owner: "chat-1", session };
 * await executeBashTool(shell, { command: "cd /usr && export STAGE=build" }, context);
 * const next = await executeBashTool(shell, { command: 'pwd; echo "$STAGE"' }, context);
 * assert.equal(next.text, "/usr\nbuild");
 * ```
 */
export const bashSessionTool: BashTool = Object.freeze({ ...bashTool, description: SESSION_DESCRIPTION });
