/**
 * Claude Code's `if` field: one permission rule (`Bash(git push *)`,
 * `Edit(src/**)`, `mcp__github`, `WebFetch(domain:example.com)`) that a
 * tool call must match for the hook to run. Sources: the hooks reference
 * ("Common fields", "Bash if matching") and the permissions page
 * ("Permission rule syntax" and the per-tool sections).
 *
 * The filter is best-effort in Claude Code and only narrows when a hook
 * runs; whatever cannot be evaluated here (a specifier form it does not
 * know, a missing input field, a command that cannot be parsed) runs the
 * hook, so a guard hook is never skipped by a filter that could not tell.
 *
 * Claude Code 2.1.328 itself matches a specifier only with the tool's own
 * matcher (Bash's command, a file tool's path): it runs no hook whose `if`
 * is `WebFetch(domain:…)`, `Agent(type)` or `Tool(param:value)` (measured,
 * tests/conformance_events.test.ts). The bridge reads those as the
 * permissions page does, and a parameter rule of Bash or a file tool as the
 * binary does too: a hook runs whenever either reading matches.
 *
 * @module
 */

import { bashRuleMatches, compileBashPattern } from "./bash_rule.ts";
import { compilePathPattern, MAX_MATCHED_PATH, type PathAnchors } from "./path_rule.ts";

/** A parsed `if` rule: the tool part and the specifier in parentheses, if any. */
export interface IfRule {
  /** The tool name, possibly with `*` globs or an `mcp__server` prefix. */
  readonly tool: string;
  /** The text between the parentheses; absent for a bare tool name. */
  readonly specifier?: string;
}

/** What an `if` rule is evaluated against. */
export interface IfContext extends PathAnchors {
  /** The event's `tool_name`. */
  toolName: string | undefined;
  /** The event's `tool_input`. */
  toolInput: unknown;
}

/** The verdict of an `if` rule for one tool call. */
export interface IfOutcome {
  /** Whether the hook runs. */
  readonly match: boolean;
  /** When it runs only because the rule could not be evaluated: why. */
  readonly failOpen?: string;
}

/**
 * Parses the text of an `if` field: `Tool` or `Tool(specifier)`. Returns
 * `undefined` when it is not one permission rule (empty, unbalanced
 * parentheses, text after the closing one).
 */
export function parseIfRule(text: string): IfRule | undefined {
  const match = /^([^\s()]+)(?:\(([\s\S]*)\))?$/.exec(text.trim());
  if (match === null) return undefined;
  if (match[2] === undefined) return { tool: match[1] };
  // `Bash(rm *) && Bash(git *)` is two rules: its "specifier" closes before it ends.
  let depth = 0;
  for (const ch of match[2]) {
    depth += ch === "(" ? 1 : ch === ")" ? -1 : 0;
    if (depth < 0) return undefined;
  }
  return { tool: match[1], specifier: match[2] };
}

/** The built-in tools a path rule (`Edit(…)`, `Write(…)`, `Read(…)`) covers, and the input field holding their path. */
const PATH_TOOLS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // "Edit rules apply to all built-in tools that edit files", says the permissions page; in `if`, Claude Code
  // 2.1.328 runs no `Edit(…)` hook on a Write call and reads `Write(…)` as a path rule of its own (measured:
  // tests/conformance_events.test.ts). MultiEdit and NotebookEdit, not measured, stay covered: a guard of them
  // runs more often than in the binary, never less.
  Edit: { Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" },
  Write: { Write: "file_path" },
  // "Claude makes a best-effort attempt to apply Read rules to all built-in tools that read files like Grep and Glob."
  Read: { Read: "file_path", Grep: "path", Glob: "path" },
};

/** Bash's input fields a `Bash(name:value)` rule may name (its primary field, `command`, cannot be). */
const BASH_PARAMETERS: ReadonlySet<string> = new Set([
  "run_in_background",
  "timeout",
  "description",
  "dangerouslyDisableSandbox",
]);

/** `Tool(param:value)`: a parameter's name, then its value. */
const PARAMETER_FORM = /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([\s\S]*)$/;

/** Evaluates `rule` for one tool call. */
export function ifRuleMatches(rule: IfRule, context: IfContext): IfOutcome {
  const toolName = context.toolName;
  if (toolName === undefined) return { match: true, failOpen: "the event has no tool_name" };
  if (!toolMatches(rule.tool, toolName)) return { match: false };
  const specifier = rule.specifier?.trim();
  if (specifier === undefined || specifier === "" || specifier === "*") return { match: true };
  const input = isRecord(context.toolInput) ? context.toolInput : undefined;
  if (input === undefined) return { match: true, failOpen: "the event has no tool_input" };

  const parameter = PARAMETER_FORM.exec(specifier);
  const shellTool = rule.tool === "Bash" || rule.tool === "PowerShell";
  if (
    parameter !== null && (!shellTool || BASH_PARAMETERS.has(parameter[1])) && !isSpecialParameter(rule, parameter[1])
  ) {
    const byParameter = parameterMatches(input, parameter[1], parameter[2]);
    // Claude Code 2.1.328 hands `Bash(description:touch)` to the tool's own matcher, which reads it as a
    // command (or a path): the hook runs when either reading matches, never less often than there.
    if (byParameter.match || (!shellTool && !Object.hasOwn(PATH_TOOLS, rule.tool))) return byParameter;
    return ownMatcher(rule, specifier, parameter, toolName, input, context);
  }
  return ownMatcher(rule, specifier, parameter, toolName, input, context);
}

/**
 * A specifier read by the tool's own matcher: a Bash command, a file path, a domain, a subagent type.
 * `parameter` is the specifier read as `name:value` ({@linkcode PARAMETER_FORM}), or null.
 */
function ownMatcher(
  rule: IfRule,
  specifier: string,
  parameter: RegExpExecArray | null,
  toolName: string,
  input: Record<string, unknown>,
  context: IfContext,
): IfOutcome {
  if (rule.tool === "Bash" || rule.tool === "PowerShell") {
    const command = ownValue(input, "command");
    if (typeof command !== "string") return { match: true, failOpen: "tool_input.command is not a string" };
    return bashRuleMatches(compileBashPattern(specifier, rule.tool === "PowerShell"), command);
  }
  if (Object.hasOwn(PATH_TOOLS, rule.tool)) {
    const field = PATH_TOOLS[rule.tool][toolName];
    const value = field === undefined ? undefined : ownValue(input, field);
    // Grep and Glob search the current directory when they are given no path.
    const path = value === undefined && (toolName === "Grep" || toolName === "Glob") ? context.cwd : value;
    if (typeof path !== "string") return { match: true, failOpen: `tool_input has no ${field ?? "path"}` };
    if (path.length > MAX_MATCHED_PATH) {
      return { match: true, failOpen: `tool_input.${field ?? "path"} is longer than ${MAX_MATCHED_PATH} characters` };
    }
    return { match: compilePathPattern(specifier, context)(path) };
  }
  if (rule.tool === "WebFetch" && parameter?.[1] === "domain") {
    const url = ownValue(input, "url");
    const host = typeof url === "string" ? hostOf(url) : undefined;
    if (host === undefined) return { match: true, failOpen: "tool_input.url is not a URL" };
    return { match: domainMatches(parameter[2].trim(), host) };
  }
  if (rule.tool === "Agent" || rule.tool === "Task") {
    const agent = ownValue(input, "subagent_type");
    if (typeof agent !== "string") return { match: true, failOpen: "tool_input.subagent_type is not a string" };
    return { match: globMatches(specifier, agent, false) };
  }
  return { match: true, failOpen: `the specifier form of ${rule.tool}(…) is not understood here` };
}

/** The subagent tool's names: `Agent`, and `Task`, its older name. */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["Agent", "Task"]);

/** `WebFetch(domain:…)` is its own form, not a parameter match. */
function isSpecialParameter(rule: IfRule, name: string): boolean {
  return rule.tool === "WebFetch" && name === "domain";
}

/**
 * Whether the tool part of a rule names `toolName`: exactly; `mcp__server`
 * for every tool of that server; a `*` glob over the whole name (`mcp__*`,
 * `mcp__github__get_*`); `Edit` and `Read` for the tools their rules cover.
 */
function toolMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  // One tool under its two names: Claude Code 2.1.328 runs an `if: "Task"` hook on an Agent call (measured).
  if (SUBAGENT_TOOLS.has(ruleTool) && SUBAGENT_TOOLS.has(toolName)) return true;
  if (Object.hasOwn(PATH_TOOLS, ruleTool) && Object.hasOwn(PATH_TOOLS[ruleTool], toolName)) return true;
  if (ruleTool.includes("*")) return globMatches(ruleTool, toolName, false);
  if (ruleTool.startsWith("mcp__") && !ruleTool.slice(5).includes("__")) return toolName.startsWith(`${ruleTool}__`);
  return false;
}

/**
 * `Tool(param:value)`: the input's top-level `param` compared with `value`
 * (`*` matches any sequence); a parameter the call leaves unset never
 * matches (permissions page, "Match by input parameter").
 */
function parameterMatches(input: Record<string, unknown>, name: string, value: string): IfOutcome {
  const actual = ownValue(input, name);
  if (actual === undefined) return { match: false };
  if (actual !== null && typeof actual === "object") {
    return { match: true, failOpen: `tool_input.${name} is not a scalar` };
  }
  return { match: globMatches(value.trim(), String(actual), false) };
}

/** `WebFetch(domain:…)`: `*.example.com` is any subdomain; elsewhere `*` stays within one label. */
function domainMatches(pattern: string, host: string): boolean {
  const normal = (text: string): string => text.toLowerCase().replace(/\.$/, "");
  const rule = normal(pattern);
  const name = normal(host);
  if (rule === "*") return true;
  if (rule.startsWith("*.")) return name.endsWith(rule.slice(1));
  const source = rule.split("*").map(escapeRegExp).join("[^.]*");
  return new RegExp(`^${source}$`).test(name);
}

/** A whole-string glob where `*` matches any sequence. */
function globMatches(pattern: string, text: string, caseInsensitive: boolean): boolean {
  const source = pattern.split("*").map(escapeRegExp).join("[\\s\\S]*");
  return new RegExp(`^${source}$`, caseInsensitive ? "i" : "").test(text);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
