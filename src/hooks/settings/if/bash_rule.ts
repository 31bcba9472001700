/**
 * Bash permission rules as an `if` filter evaluates them: the command is
 * split into its subcommands (compound operators, `$()`, backticks),
 * leading `VAR=value` assignments and the fixed wrappers are stripped, and
 * the rule's pattern is matched against each. Sources: the Claude Code
 * hooks reference ("Bash if matching") and permissions page ("Bash",
 * "Wildcard patterns", "Compound commands", "Wrappers").
 *
 * The filter only narrows when a hook runs, so every doubt runs it: a
 * command that cannot be parsed, or one whose words are computed at run
 * time, runs the hook (fail open), as Claude Code does.
 *
 * @module
 */

/** Commands longer than this are not analysed (permissions page, "Read-only commands"): the hook runs. */
const MAX_ANALYSED = 10_000;

/** What a Bash command is made of, as far as rule matching needs it. */
export interface BashCommandShape {
  /** Every simple command, outer ones first, then those inside `$()`, backticks and `<()`. */
  readonly commands: readonly string[];
  /** Some word is computed at run time (`$()`, backticks, `$VAR`, `${…}`, `$((…))`). */
  readonly dynamic: boolean;
}

/** A compiled Bash rule pattern. */
export interface BashPattern {
  /** Whether one simple command (already stripped) matches. */
  test(command: string): boolean;
  /** The pattern names only a command (`rm`, `rm *`, `rm:*`), not its arguments. */
  readonly commandNameOnly: boolean;
}

/**
 * Compiles the specifier of a `Bash(…)` rule. `*` matches any sequence of
 * characters, spaces included; a trailing ` *` (or its spelling `:*`, only
 * at the end) also needs a word boundary: `ls *` matches `ls` and `ls -la`
 * but not `lsof`. An empty specifier or `*` matches every command.
 */
export function compileBashPattern(specifier: string, caseInsensitive = false): BashPattern {
  let spec = specifier.trim();
  if (spec.endsWith(":*")) spec = `${spec.slice(0, -2)} *`;
  if (spec === "" || spec === "*") return { test: () => true, commandNameOnly: true };
  const boundary = spec.endsWith(" *");
  const body = boundary ? spec.slice(0, -2) : spec;
  const source = body.split("*").map(escapeRegExp).join("[\\s\\S]*") + (boundary ? "(?: [\\s\\S]*)?" : "");
  const regex = new RegExp(`^${source}$`, caseInsensitive ? "i" : "");
  return { test: (command) => regex.test(command), commandNameOnly: /^[^\s*]+$/.test(body) };
}

/**
 * Whether the rule `pattern` matches the Bash `command`, as an `if` filter
 * reads it. `failOpen` says why the answer is "run the hook" without a
 * match (the command cannot be parsed).
 */
export function bashRuleMatches(pattern: BashPattern, command: string): { match: boolean; failOpen?: string } {
  const shape = splitBashCommand(command);
  if (shape === undefined) return { match: true, failOpen: "the command could not be parsed" };
  for (const simple of shape.commands) {
    if (candidates(simple).some((candidate) => pattern.test(candidate))) return { match: true };
  }
  // "Patterns that specify more than the command name run the hook anyway on $(), backticks, or $VAR."
  if (shape.dynamic && !pattern.commandNameOnly) return { match: true };
  return { match: false };
}

/**
 * Splits `command` into its simple commands. Returns `undefined` when it
 * cannot be parsed: an unterminated quote or substitution, or more than
 * 10 000 characters.
 */
export function splitBashCommand(command: string): BashCommandShape | undefined {
  if (command.length > MAX_ANALYSED) return undefined;
  const scan = new Scanner(command);
  const commands = scan.sequence(undefined);
  if (scan.failed || scan.pos < command.length) return undefined;
  return { commands: [...commands.filter((text) => text !== ""), ...scan.inner], dynamic: scan.dynamic };
}

/** Reads a command line: separators split it, substitutions are read (and split) on their own. */
class Scanner {
  pos = 0;
  failed = false;
  dynamic = false;
  /** Simple commands found inside substitutions. */
  readonly inner: string[] = [];

  constructor(private readonly text: string) {}

  /**
   * Reads simple commands until `close` (`)` for `$(`, `` ` `` for a
   * backtick) at depth 0, or the end; the closing character is consumed.
   */
  sequence(close: string | undefined): string[] {
    const commands: string[] = [];
    let current = "";
    const flush = (): void => {
      commands.push(normalise(current));
      current = "";
    };
    const text = this.text;
    while (this.pos < text.length && !this.failed) {
      const ch = text[this.pos];
      if (close !== undefined && ch === close) {
        this.pos++;
        flush();
        return commands;
      }
      if (ch === "\\") {
        current += text.slice(this.pos, this.pos + 2);
        this.pos += 2;
      } else if (ch === "'") {
        const end = text.indexOf("'", this.pos + 1);
        if (end === -1) return this.fail();
        current += text.slice(this.pos, end + 1);
        this.pos = end + 1;
      } else if (ch === '"') {
        current += this.doubleQuoted();
      } else if (ch === "`") {
        current += this.substitution("`", 1);
      } else if (ch === "$") {
        current += this.dollar();
      } else if ((ch === "<" || ch === ">") && text[this.pos + 1] === "(") {
        current += this.substitution(")", 2);
      } else if (ch === "#" && (current === "" || /\s$/.test(current))) {
        // A comment runs to the end of the line.
        const end = text.indexOf("\n", this.pos);
        this.pos = end === -1 ? text.length : end;
      } else if (ch === ";" || ch === "\n") {
        this.pos++;
        flush();
      } else if (ch === "|") {
        this.pos += text[this.pos + 1] === "|" || text[this.pos + 1] === "&" ? 2 : 1;
        flush();
      } else if (ch === "&") {
        const prev = text[this.pos - 1];
        const next = text[this.pos + 1];
        if (prev === ">" || prev === "<" || next === ">") {
          // `2>&1`, `&>file`, `<&3`: a redirection, not a separator.
          current += ch;
          this.pos++;
        } else {
          this.pos += next === "&" ? 2 : 1;
          flush();
        }
      } else {
        current += ch;
        this.pos++;
      }
    }
    if (close !== undefined) return this.fail();
    flush();
    return commands;
  }

  /** A double-quoted string, with its substitutions; returns its text. */
  private doubleQuoted(): string {
    const start = this.pos;
    this.pos++;
    let out = '"';
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos];
      if (ch === "\\") {
        out += this.text.slice(this.pos, this.pos + 2);
        this.pos += 2;
      } else if (ch === '"') {
        this.pos++;
        return `${out}"`;
      } else if (ch === "`") {
        out += this.substitution("`", 1);
      } else if (ch === "$") {
        out += this.dollar();
      } else {
        out += ch;
        this.pos++;
      }
      if (this.failed) return "";
    }
    this.pos = start;
    this.fail();
    return "";
  }

  /** `$(…)`, `$((…))`, `${…}`, `$NAME` or a lone `$`; returns its text. */
  private dollar(): string {
    const text = this.text;
    const next = text[this.pos + 1];
    if (next === "(" && text[this.pos + 2] === "(") {
      // Arithmetic: its words are computed, but it runs no command.
      const end = text.indexOf("))", this.pos + 3);
      if (end === -1) return this.failText();
      this.dynamic = true;
      const part = text.slice(this.pos, end + 2);
      this.pos = end + 2;
      return part;
    }
    if (next === "(") return this.substitution(")", 2);
    if (next === "{") {
      const end = text.indexOf("}", this.pos + 2);
      if (end === -1) return this.failText();
      this.dynamic = true;
      const part = text.slice(this.pos, end + 1);
      this.pos = end + 1;
      return part;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9@*#?$!-]/.exec(text.slice(this.pos + 1));
    if (name === null) {
      this.pos++;
      return "$";
    }
    this.dynamic = true;
    this.pos += 1 + name[0].length;
    return `$${name[0]}`;
  }

  /** A command substitution opened by `skip` characters and closed by `close`; its commands are read too. */
  private substitution(close: string, skip: number): string {
    const start = this.pos;
    this.pos += skip;
    this.dynamic = true;
    const commands = this.sequence(close);
    if (this.failed) return "";
    this.inner.push(...commands.filter((command) => command !== ""));
    return this.text.slice(start, this.pos);
  }

  private fail(): string[] {
    this.failed = true;
    return [];
  }

  private failText(): string {
    this.failed = true;
    return "";
  }
}

/** Keywords and grouping that open a simple command without being it. */
const OPENERS = /^(?:[({!]|if|then|elif|else|do|while|until)(?=\s|$)\s*/;

/** A simple command's text without grouping, keywords and surrounding space. */
function normalise(text: string): string {
  let command = text.trim();
  for (;;) {
    const opener = OPENERS.exec(command);
    if (opener === null || opener[0] === "") break;
    command = command.slice(opener[0].length);
  }
  return command.replace(/[\s)}]+$/, "").trim();
}

/**
 * The texts a rule is matched against for one simple command: without its
 * leading `VAR=value` assignments, then again after each wrapper Claude
 * Code strips (`timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`,
 * `builtin`, `noglob`, a bare `xargs`). Matching any of them runs the hook.
 */
function candidates(simple: string): string[] {
  const words = wordsOf(simple);
  let index = 0;
  while (index < words.length && /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(words[index].text)) index++;
  const found: string[] = [];
  const from = (at: number): string => (at < words.length ? simple.slice(words[at].start).trim() : "");
  let at = index;
  for (;;) {
    const text = from(at);
    if (text === "") break;
    found.push(text);
    const next = afterWrapper(words, at);
    if (next === undefined) break;
    at = next;
  }
  return found;
}

/** The index of the wrapped command's first word when `words[at]` is a wrapper, else `undefined`. */
function afterWrapper(words: readonly Word[], at: number): number | undefined {
  const name = words[at]?.text;
  let next = at + 1;
  const isFlag = (index: number): boolean => words[index]?.text.startsWith("-") ?? false;
  switch (name) {
    case "time":
    case "nohup":
    case "builtin":
    case "noglob":
      break;
    case "command":
      if (isFlag(next)) return undefined; // `command -v` looks a command up; it runs nothing
      break;
    case "xargs":
      if (isFlag(next)) return undefined; // only a bare xargs is stripped
      break;
    case "nice":
      while (isFlag(next)) next += words[next].text === "-n" ? 2 : 1;
      break;
    case "stdbuf":
      while (isFlag(next)) next += /^-[ioe]$/.test(words[next].text) ? 2 : 1;
      break;
    case "timeout":
      while (isFlag(next)) next += /^-[sk]$/.test(words[next].text) ? 2 : 1;
      next += 1; // the duration
      break;
    default:
      return undefined;
  }
  return next < words.length ? next : undefined;
}

/** One shell word of a simple command and where it starts. */
interface Word {
  text: string;
  start: number;
}

/** The words of a simple command, quotes kept in their text. */
function wordsOf(command: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < command.length) {
    while (i < command.length && /\s/.test(command[i])) i++;
    if (i >= command.length) break;
    const start = i;
    let quote: string | undefined;
    while (i < command.length && (quote !== undefined || !/\s/.test(command[i]))) {
      const ch = command[i];
      if (ch === "\\" && quote !== "'") i++;
      else if (quote === undefined && (ch === "'" || ch === '"')) quote = ch;
      else if (ch === quote) quote = undefined;
      i++;
    }
    words.push({ text: command.slice(start, i), start });
  }
  return words;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
