/**
 * Reads bash's `export -p` listing (`script.ts` writes it into a session's
 * state) back into the variables bash hands a child: the host parses it as
 * data, byte by byte, exactly as bash would read it back, and never runs it.
 *
 * What bash prints, one variable a line, in its listing's order:
 *
 * - `declare -FLAGS NAME="VALUE"`, or in POSIX mode `export NAME="VALUE"`:
 *   inside the double quotes bash puts a backslash before `"`, `\`, `$` and
 *   a backquote, and nothing else; older bash versions leave a newline as it
 *   is, inside the quotes.
 * - `declare -FLAGS NAME=$'VALUE'`: bash 5.2 and later, for a value with a
 *   byte its locale cannot print (the dump runs in the C locale, so every
 *   control byte and every byte from 0x80): `\n`, `\t`, `\E`… and three
 *   octal digits for any other byte; `\\` and `\'` for themselves.
 * - `declare -FLAGS NAME`: exported, but with no value; a child gets no such
 *   variable.
 * - `declare -aFLAGS NAME=(…)` (`-A` for an associative array; `export -a`
 *   in POSIX mode): an array, which bash never hands a child; its elements
 *   are skipped, quote by quote, so that a quoted `)` or newline in them
 *   never ends the line early.
 *
 * Anything else (a line bash would not print, a duplicate name, a quote left
 * open, an escape bash never writes) makes the whole listing unreadable, and
 * the session takes nothing from it: a command controls the values, and a
 * lenient reader could be made to see a line that is not there.
 *
 * @module
 */

const NEWLINE = 0x0a;
const SPACE = 0x20;
const DOUBLE = 0x22;
const DOLLAR = 0x24;
const SINGLE = 0x27;
const OPEN = 0x28;
const CLOSE = 0x29;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;
const BACKQUOTE = 0x60;

/** What follows a backslash in `$'…'`, and the byte it stands for (bash's `ansicstr`, the escapes it prints). */
const ANSI_C_ESCAPES: ReadonlyMap<number, number> = new Map([
  ["a", 7],
  ["b", 8],
  ["e", 27],
  ["E", 27],
  ["f", 12],
  ["n", 10],
  ["r", 13],
  ["t", 9],
  ["v", 11],
  ["\\", 0x5c],
  ["'", 0x27],
  ['"', 0x22],
  ["?", 0x3f],
].map(([escape, byte]) => [(escape as string).charCodeAt(0), byte as number]));

/** Not streaming: one decoder serves every call. */
const decoder = new TextDecoder();

/**
 * The variables in `listing` (bash's `export -p` output) that bash hands a
 * child: each exported scalar with a value, by name, its value decoded as
 * UTF-8 (a byte that is not UTF-8 becomes U+FFFD, as the rest of the state
 * is read). Arrays and variables with no value are left out. `undefined`
 * when the listing is not one bash prints, whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportedVariables } from "./export_list.ts";
 * const listing = new TextEncoder().encode(
 *   'declare -x A="1 \\"2\\""\ndeclare -x NL=$\'a\\nb\\303\\251\'\ndeclare -ax ARR=([0]=")")\ndeclare -x EMPTY\n',
 * );
 * assert.deepEqual(Object.fromEntries(exportedVariables(listing) ?? []), { A: '1 "2"', NL: "a\nbé" });
 * // A line bash would never print: nothing is read from the listing.
 * assert.equal(exportedVariables(new TextEncoder().encode("A=1\n")), undefined);
 * ```
 */
export function exportedVariables(listing: Uint8Array): Map<string, string> | undefined {
  return new ListingReader(binary(listing)).read();
}

/** The longest run of bytes turned into a string in one call (a call's arguments are bounded). */
const CHUNK = 4096;

/** `bytes` as a string of one character per byte (its code the byte's value), read with string operations. */
function binary(bytes: Uint8Array): string {
  let text = "";
  for (let start = 0; start < bytes.length; start += CHUNK) {
    text += String.fromCharCode.apply(null, bytes.subarray(start, start + CHUNK) as unknown as number[]);
  }
  return text;
}

/** A value's bytes (a string of one character per byte) as UTF-8 text; ASCII, the usual case, as it is. */
function utf8(bytes: string): string {
  // deno-lint-ignore no-control-regex
  if (!/[^\x00-\x7f]/.test(bytes)) return bytes;
  return decoder.decode(Uint8Array.from(bytes, (char) => char.charCodeAt(0)));
}

/**
 * One pass over a listing, held as a string of one character per byte. A
 * listing bash would not print is refused (`#refuse()`): the reader jumps
 * to the end, where every loop stops and every byte read is -1, and
 * `read()` then returns undefined.
 */
class ListingReader {
  readonly #text: string;
  #at = 0;
  #refused = false;

  constructor(text: string) {
    this.#text = text;
  }

  read(): Map<string, string> | undefined {
    const variables = new Map<string, string>();
    // Every name listed, with a value or not: bash lists each once.
    const seen = new Set<string>();
    while (this.#at < this.#text.length) {
      const flags = this.#prefix();
      const name = this.#name();
      if (seen.has(name)) this.#refuse();
      seen.add(name);
      const next = this.#take();
      if (next === NEWLINE) continue;
      if (next !== EQUALS) this.#refuse();
      if (flags.includes("a") || flags.includes("A")) {
        this.#skipArray();
      } else {
        const value = this.#scalar();
        if (!this.#refused) variables.set(name, utf8(value));
      }
      if (this.#take() !== NEWLINE) this.#refuse();
    }
    return this.#refused ? undefined : variables;
  }

  /** This is no listing of bash's: read no further. */
  #refuse(): void {
    this.#refused = true;
    this.#at = this.#text.length;
  }

  /** `declare -FLAGS ` or `export ` (POSIX mode, `export -FLAGS ` for an array): the flags. */
  #prefix(): string {
    const text = this.#text;
    if (text.startsWith("declare -", this.#at)) {
      this.#at += 9;
      return this.#flags();
    }
    if (!text.startsWith("export ", this.#at)) {
      this.#refuse();
      return "";
    }
    this.#at += 7;
    if (text.charCodeAt(this.#at) !== 0x2d) return "";
    this.#at++;
    return this.#flags();
  }

  /** Letters (or bash's `-` for none) up to one space. */
  #flags(): string {
    const start = this.#at;
    while (isFlag(this.#text.charCodeAt(this.#at))) this.#at++;
    if (this.#at === start || this.#take() !== SPACE) {
      this.#refuse();
      return "";
    }
    return this.#text.slice(start, this.#at - 1);
  }

  /** A shell variable's name: a letter or `_`, then letters, digits and `_`. */
  #name(): string {
    const text = this.#text;
    const start = this.#at;
    if (!isNameStart(text.charCodeAt(start))) {
      this.#refuse();
      return "";
    }
    let at = start + 1;
    while (isNameStart(text.charCodeAt(at)) || isDigit(text.charCodeAt(at))) at++;
    this.#at = at;
    return text.slice(start, at);
  }

  /** A scalar's value: `"…"` or `$'…'`, as bytes (one character each). */
  #scalar(): string {
    const first = this.#take();
    if (first === DOUBLE) return this.#doubleQuoted();
    if (first === DOLLAR && this.#take() === SINGLE) return this.#ansiC();
    this.#refuse();
    return "";
  }

  /** After `"`: up to the closing `"`, with bash's four escapes (`\"`, `\\`, `\$`, `` \` ``) and nothing else. */
  #doubleQuoted(): string {
    let value = "";
    while (!this.#refused) {
      // The run up to the next quote, backslash, `$` or backquote is taken as it is.
      value += this.#plainRun(endsDoubleQuotedRun);
      const byte = this.#take();
      if (byte === DOUBLE) return value;
      // Unescaped, these would be expansions when bash read the line back: bash never prints them so.
      const escaped = byte === BACKSLASH ? this.#take() : -1;
      if (escaped !== DOUBLE && escaped !== BACKSLASH && escaped !== DOLLAR && escaped !== BACKQUOTE) {
        this.#refuse();
      } else {
        value += String.fromCharCode(escaped);
      }
    }
    return "";
  }

  /** After `$'`: up to the closing `'`, decoding `\n`, `\E`, octal and hex escapes to their bytes. */
  #ansiC(): string {
    let value = "";
    while (!this.#refused) {
      value += this.#plainRun(endsAnsiCRun);
      const byte = this.#take();
      if (byte === SINGLE) return value;
      const escape = byte === BACKSLASH ? this.#take() : -1;
      const code = this.#escaped(escape);
      if (code < 0) this.#refuse();
      else value += String.fromCharCode(code);
    }
    return "";
  }

  /** The characters from here up to the first that `ends` (or the text's end), taken as they are; stops before it. */
  #plainRun(ends: (byte: number) => boolean): string {
    const text = this.#text;
    const start = this.#at;
    let at = start;
    while (at < text.length && !ends(text.charCodeAt(at))) at++;
    this.#at = at;
    return text.slice(start, at);
  }

  /** The byte `$'…'`'s escape stands for (`escape` is the character after the backslash, consumed), or -1. */
  #escaped(escape: number): number {
    const named = ANSI_C_ESCAPES.get(escape);
    if (named !== undefined) return named;
    const text = this.#text;
    if (isOctal(escape)) {
      // One to three octal digits, as bash reads them; over 0377 is no byte, and bash never prints it.
      let code = escape - 0x30;
      for (let digits = 1; digits < 3 && isOctal(text.charCodeAt(this.#at)); digits++) {
        code = code * 8 + this.#take() - 0x30;
      }
      return code > 0xff ? -1 : code;
    }
    if (escape === 0x78) {
      // `\xHH`: one or two hex digits.
      let code = -1;
      for (let digits = 0; digits < 2 && hexValue(text.charCodeAt(this.#at)) >= 0; digits++) {
        code = Math.max(code, 0) * 16 + hexValue(this.#take());
      }
      return code;
    }
    // `\u`, `\U` (decoded through the locale), `\c`, and any other: bash's listing never has them.
    return -1;
  }

  /**
   * An array's value, skipped: `(…)` up to the `)` outside every quote
   * (its keys and values are quoted as scalars are, `'…'` too), or, as
   * bash before 4.4 printed it, one `'…'`.
   */
  #skipArray(): void {
    const first = this.#take();
    if (first === SINGLE) return this.#skipSingleQuoted();
    if (first !== OPEN) return this.#refuse();
    while (!this.#refused) {
      const byte = this.#take();
      if (byte === CLOSE) return;
      if (byte < 0) this.#refuse();
      else if (byte === DOUBLE) this.#doubleQuoted();
      else if (byte === SINGLE) this.#skipSingleQuoted();
      else if (byte === BACKSLASH) this.#take();
      else if (byte === DOLLAR) {
        if (this.#take() === SINGLE) this.#ansiC();
        else this.#refuse();
      }
    }
  }

  /** After `'`: up to the next `'` (no escapes inside). */
  #skipSingleQuoted(): void {
    const close = this.#text.indexOf("'", this.#at);
    if (close === -1) this.#refuse();
    else this.#at = close + 1;
  }

  /** The next byte, consumed; -1 at the end (where a line is never whole). */
  #take(): number {
    return this.#at < this.#text.length ? this.#text.charCodeAt(this.#at++) : -1;
  }
}

/** Where a plain run inside `"…"` ends: a character bash escapes there, or the closing quote. */
function endsDoubleQuotedRun(byte: number): boolean {
  return byte === DOUBLE || byte === BACKSLASH || byte === DOLLAR || byte === BACKQUOTE;
}

/** Where a plain run inside `$'…'` ends: an escape, or the closing quote. */
function endsAnsiCRun(byte: number): boolean {
  return byte === SINGLE || byte === BACKSLASH;
}

function isFlag(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d;
}

function isNameStart(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function isOctal(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x37;
}

/** A hex digit's value, or -1. */
function hexValue(byte: number): number {
  if (isDigit(byte)) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
