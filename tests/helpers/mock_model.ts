/**
 * A mock model API on 127.0.0.1, for driving the real agent binaries
 * without a model: Anthropic's Messages API (Claude Code) or OpenAI's
 * Responses API (Codex). The first turn asks for one tool call (the
 * case's), or each turn the next of several, one per tool result the
 * conversation already holds; then every turn answers "done". A request
 * whose user messages carry `SUBAGENT-TASK` is a subagent's (the prompt a
 * case gives its Task tool): it is answered "done" at once. Each request body is kept, so
 * a test reads what the model was shown (the tool result). Anthropic's
 * replies stream (server-sent events) or not, as the client asks; the
 * Responses API's always stream.
 *
 * Nothing here imports the library.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { eventually } from "./wait.ts";

/** Which API the mock speaks. */
export type MockProtocol = "anthropic" | "responses";

/** A tool call the mock's first turn makes. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** The Responses API's tool namespace (Codex offers an MCP server's tools as `mcp__<server>`). */
  readonly namespace?: string;
  /**
   * A Responses API freeform tool's call (`custom_tool_call`, as Codex's `apply_patch` is offered): its
   * input is `input.input`, a string, sent as it is.
   */
  readonly custom?: boolean;
  /**
   * The turn answers with this API error instead of a call (`name` and
   * `input` unused): the HTTP status and the error's `type`, as each API
   * words an error body.
   */
  readonly apiError?: { readonly status: number; readonly type: string };
}

/** How the mock answers an HTTP hook's POST to `/hooks/<name>`. */
export interface HookReply {
  readonly status: number;
  readonly body: string;
  /** Milliseconds before it answers. */
  readonly delayMs?: number;
  /** A redirect's target: the `location` header (a path is on the mock itself). */
  readonly location?: string;
  /** Spaces the mock appends to `body` (argv cannot carry a body past 128 KiB). */
  readonly padBytes?: number;
}

/** An HTTP hook's request, as the mock got it. */
export interface HookRequest {
  readonly name: string;
  readonly method: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A tool result the model was shown. */
export interface ToolResult {
  readonly content: string;
  readonly isError: boolean;
}

/** What the mock's turns call: one tool call, or one per turn in order. */
export type ScriptedCalls = ScriptedToolCall | readonly ScriptedToolCall[];

/**
 * In a scripted call's input, the id of the last subagent the conversation
 * started (the `agent_id` of Codex's `spawn_agent` result), for a call that
 * waits for it.
 */
export const LAST_AGENT_ID = "__LAST_AGENT_ID__";

/** `call`'s arguments, with {@linkcode LAST_AGENT_ID} replaced from the request `body`. */
function argumentsOf(call: ScriptedToolCall, body: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(call.input);
  if (!text.includes(LAST_AGENT_ID)) return call.input;
  const ids = [...JSON.stringify(body).matchAll(/agent_id\\?":\\?"([\w-]+)/g)].map((match) => match[1]);
  return JSON.parse(text.replaceAll(LAST_AGENT_ID, ids.at(-1) ?? ""));
}

/** The marker of a subagent's prompt: a request whose user messages hold it is answered "done". */
export const SUBAGENT_TASK = "SUBAGENT-TASK";

/** The mock server; `url` once `start()` has resolved. */
export class MockModel {
  readonly #calls: readonly ScriptedToolCall[];
  readonly #protocol: MockProtocol;
  readonly #server: Server;
  /** Told of each request body, as it arrives. */
  onRequest: (body: Record<string, unknown>) => void = () => {};
  /** Every request body to `/v1/messages`, parsed, in arrival order. */
  readonly requests: Record<string, unknown>[] = [];
  /** Every path asked for, in arrival order (only loopback ever sees them). */
  readonly paths: string[] = [];
  /** Told of each HTTP hook's request, as it arrives. */
  onHookRequest: (request: HookRequest) => void = () => {};
  readonly #hookReplies: Readonly<Record<string, HookReply>>;
  readonly #firstTurnTokens: number;
  readonly #holdLastUntil: readonly string[];
  #turn = 0;

  /**
   * @param call The tool call of the first turn, or of each turn in order.
   * @param protocol The API spoken.
   * @param hookReplies How `/hooks/<name>` answers, by name (HTTP hooks of a case).
   * @param firstTurnTokens The input tokens the first answer reports (1 otherwise): a large
   *   count makes the agent compact its context once, after that turn.
   * @param holdLastUntil Files the turns after the last scripted call wait for, all of them
   *   (at most {@linkcode HOLD_MS}): what the agent started during the run (an async hook)
   *   gets to record itself before the answer that ends the run.
   */
  constructor(
    call: ScriptedCalls,
    protocol: MockProtocol = "anthropic",
    hookReplies: Readonly<Record<string, HookReply>> = {},
    firstTurnTokens = 1,
    holdLastUntil: readonly string[] = [],
  ) {
    this.#firstTurnTokens = firstTurnTokens;
    this.#holdLastUntil = holdLastUntil;
    this.#calls = Array.isArray(call) ? call : [call as ScriptedToolCall];
    this.#protocol = protocol;
    this.#hookReplies = hookReplies;
    this.#server = createServer((request, response) => this.#serve(request, response));
  }

  /** Listens on a free loopback port; resolves with the base URL. */
  start(): Promise<string> {
    return new Promise((resolve) => {
      this.#server.listen(0, "127.0.0.1", () => {
        const { port } = this.#server.address() as AddressInfo;
        resolve(`http://127.0.0.1:${port}`);
      });
    });
  }

  /** Stops listening and drops every connection. */
  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** The tool results the model was shown, in order, across all turns. */
  toolResults(): ToolResult[] {
    return toolResultsOf(this.requests.at(-1));
  }

  #serve(request: IncomingMessage, response: ServerResponse): void {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => body += chunk);
    request.on("end", () => {
      this.paths.push(`${request.method} ${request.url}`);
      const hook = /^\/hooks\/([\w-]+)$/.exec(request.url ?? "");
      if (hook !== null) {
        this.onHookRequest({ name: hook[1], method: request.method ?? "", headers: request.headers, body });
        const reply = this.#hookReplies[hook[1]] ?? { status: 404, body: "" };
        setTimeout(() => {
          if (response.destroyed) return;
          response.writeHead(reply.status, {
            "content-type": "application/json",
            ...(reply.location === undefined ? {} : { location: reply.location }),
          });
          response.end(reply.padBytes === undefined ? reply.body : reply.body + " ".repeat(reply.padBytes));
        }, reply.delayMs ?? 0);
        return;
      }
      const path = this.#protocol === "anthropic" ? /^\/v1\/messages(\?|$)/ : /^\/v1\/responses$/;
      if (request.method !== "POST" || !path.test(request.url ?? "")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not mocked" } }));
        return;
      }
      const parsed = JSON.parse(body) as Record<string, unknown>;
      this.requests.push(parsed);
      this.onRequest(parsed);
      const answer = (): void => {
        if (this.#apiError(parsed, response)) return;
        if (this.#protocol === "anthropic") this.#reply(parsed, response);
        else this.#replyResponses(parsed, response);
      };
      const held = this.#holdLastUntil;
      if (held.length === 0 || this.#resultsIn(parsed) < this.#calls.length) answer();
      else void eventually(() => held.every((file) => existsSync(file)), HOLD_MS).then(answer);
    });
  }

  /** How many tool results a request's conversation holds: the turn it asks for. */
  #resultsIn(parsed: Record<string, unknown>): number {
    const input = (parsed.input ?? []) as Record<string, unknown>[];
    const messages = (parsed.messages ?? []) as unknown[];
    return this.#protocol === "anthropic"
      ? JSON.stringify(messages).split('"type":"tool_result"').length - 1
      : input.filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output").length;
  }

  /** Answers the turn with its scripted API error, if it has one; whether it did. */
  #apiError(parsed: Record<string, unknown>, response: ServerResponse): boolean {
    const error = this.#calls[this.#resultsIn(parsed)]?.apiError;
    if (error === undefined) return false;
    this.#turn++;
    const message = `MOCK-API-ERROR ${error.type}`;
    response.writeHead(error.status, { "content-type": "application/json" });
    response.end(JSON.stringify(
      this.#protocol === "anthropic"
        ? { type: "error", error: { type: error.type, message } }
        : { error: { type: error.type, code: error.type, message } },
    ));
    return true;
  }

  /** The input tokens the current answer reports. */
  #inputTokens(): number {
    return this.#turn === 1 ? this.#firstTurnTokens : 1;
  }

  /** The call a conversation gets next: the one after the `results` it holds, none for a subagent's (`prompt`). */
  #next(prompt: unknown, results: number): ScriptedToolCall | undefined {
    if (JSON.stringify(prompt ?? "").includes(SUBAGENT_TASK)) return undefined;
    return this.#calls[results];
  }

  /** Each turn calls the next tool; once every call has its result (or for a subagent), the answer is "done". */
  #reply(parsed: Record<string, unknown>, response: ServerResponse): void {
    this.#turn++;
    const messages = (parsed.messages ?? []) as { role?: string; content?: unknown }[];
    const results = this.#resultsIn(parsed);
    // A user message's own text, not the tool results it carries (the main conversation's Task result names the task).
    const prompts = messages.filter((message) => message.role === "user").map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content as Record<string, unknown>[]).filter((block) => block.type === "text")
    );
    const call = this.#next(prompts, results);
    const block = call === undefined
      ? { type: "text", text: "done" }
      : { type: "tool_use", id: `toolu_mock_${this.#turn}`, name: call.name, input: argumentsOf(call, parsed) };
    const stopReason = call === undefined ? "end_turn" : "tool_use";
    const message = {
      id: `msg_mock_${this.#turn}`,
      type: "message",
      role: "assistant",
      model: parsed.model,
      content: [] as unknown[],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: this.#inputTokens(), output_tokens: 1 },
    };
    if (parsed.stream !== true) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason }));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    const event = (type: string, data: Record<string, unknown>): void => {
      response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    event("message_start", { message });
    if (block.type === "text") {
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: block.text } });
    } else {
      event("content_block_start", { index: 0, content_block: { ...block, input: {} } });
      event("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    event("content_block_stop", { index: 0 });
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
    event("message_stop", {});
    response.end();
  }

  /** The Responses API: a function call per turn as scripted, then a message; always streamed. */
  #replyResponses(parsed: Record<string, unknown>, response: ServerResponse): void {
    this.#turn++;
    const input = (parsed.input ?? []) as Record<string, unknown>[];
    const results = this.#resultsIn(parsed);
    const call = this.#next(input.filter((item) => item.role === "user"), results);
    const id = `resp_mock_${this.#turn}`;
    const item = call === undefined
      ? {
        type: "message",
        role: "assistant",
        id: `msg_mock_${this.#turn}`,
        content: [{ type: "output_text", text: "done" }],
      }
      : call.custom === true
      ? {
        type: "custom_tool_call",
        id: `ctc_mock_${this.#turn}`,
        call_id: `call_mock_${this.#turn}`,
        name: call.name,
        input: String(call.input.input),
      }
      : {
        type: "function_call",
        id: `fc_mock_${this.#turn}`,
        call_id: `call_mock_${this.#turn}`,
        name: call.name,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
        arguments: JSON.stringify(argumentsOf(call, parsed)),
      };
    response.writeHead(200, { "content-type": "text/event-stream" });
    const event = (type: string, data: Record<string, unknown>): void => {
      response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    event("response.created", { response: { id } });
    event("response.output_item.done", { output_index: 0, item });
    event("response.completed", {
      response: {
        id,
        output: [],
        usage: { input_tokens: this.#inputTokens(), output_tokens: 1, total_tokens: this.#inputTokens() + 1 },
      },
    });
    response.end();
  }
}

/** How long a held turn waits for its file before it is answered regardless. */
export const HOLD_MS = 30_000;

/** The tool results shown to the model in one request body, of either API. */
export function toolResultsOf(body: Record<string, unknown> | undefined): ToolResult[] {
  const found: ToolResult[] = [];
  for (const item of (body?.input ?? []) as Record<string, unknown>[]) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      // A string, or (Codex 0.169.0, an MCP tool's result of several content blocks) a list of content items.
      const content = Array.isArray(item.output)
        ? (item.output as { text?: string }[]).map((part) => part.text ?? "").join("\n")
        : String(item.output);
      found.push({ content, isError: false });
    }
  }
  for (const message of (body?.messages ?? []) as { content?: unknown }[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type !== "tool_result") continue;
      const content = typeof block.content === "string"
        ? block.content
        : (block.content as { text?: string }[] ?? []).map((part) => part.text ?? "").join("");
      found.push({ content, isError: block.is_error === true });
    }
  }
  return found;
}

/** The names of the tools a request offers the model (a Responses API namespace's tools as `namespace.name`). */
export function toolNames(body: Record<string, unknown> | undefined): string[] {
  const names: string[] = [];
  for (const tool of (body?.tools ?? []) as Record<string, unknown>[]) {
    if (Array.isArray(tool.tools)) {
      for (const inner of tool.tools as { name?: string }[]) names.push(`${tool.name}.${inner.name}`);
    } else names.push(String(tool.name ?? tool.type));
  }
  return names;
}
