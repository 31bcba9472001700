/**
 * Codex's `apply_patch` format, parsed and applied to text in memory: a
 * pure function of the patch and the files' contents, so that every new
 * content is known before anything is written. The grammar and the
 * matching follow `codex-rs/apply-patch` (the reference the differential
 * tests hold this to): markers may carry surrounding blanks, a heredoc
 * wrapper (`<<'EOF'` … `EOF`) is taken off, the first chunk of an update
 * may omit its `@@`, and old lines are sought forward from the last chunk,
 * exactly, then ignoring trailing blanks, then all surrounding blanks, then
 * with typographic punctuation and spaces made plain.
 *
 * @module
 */

import { ShellFileError } from "../errors.ts";

/** A patch that cannot be parsed: a `ShellFileError` (`PATCH`) of the patch itself; the problem is Codex's message. */
export class PatchSyntaxError extends ShellFileError {
  /** @param problem Codex's message. */
  constructor(problem: string) {
    super("PATCH", "patch", problem);
  }
}

/** A patch that does not fit a file: a `ShellFileError` (`PATCH`) of its path; the problem is Codex's message. */
export class PatchMatchError extends ShellFileError {
  /**
   * @param path The file's path, as the patch gives it.
   * @param problem Codex's message, naming the path.
   */
  constructor(path: string, problem: string) {
    super("PATCH", path, problem);
  }
}

/** One chunk of an update: context to find, then old lines to replace with new ones. */
export interface PatchChunk {
  readonly context: string | undefined;
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  readonly endOfFile: boolean;
}

/** One file of a patch, as written in it (paths not yet resolved). */
export type PatchHunk =
  | { readonly kind: "add"; readonly path: string; readonly contents: string }
  | { readonly kind: "delete"; readonly path: string }
  | {
    readonly kind: "update";
    readonly path: string;
    readonly moveTo: string | undefined;
    readonly chunks: readonly PatchChunk[];
  };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARKER = "*** End of File";

/** Splits as Rust's `str::lines` does: on `\n`, a `\r` before it dropped, no empty last line. */
function rustLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
}

/** The patch's body (the lines between its markers), or the error Codex gives. */
function body(lines: readonly string[]): readonly string[] {
  const strict = (candidate: readonly string[]): readonly string[] | PatchSyntaxError => {
    const first = candidate[0]?.trim();
    const last = candidate[candidate.length - 1]?.trim();
    if (first === BEGIN && last === END && candidate.length >= 2) return candidate.slice(1, -1);
    if (first !== BEGIN) {
      return new PatchSyntaxError("invalid patch: The first line of the patch must be '*** Begin Patch'");
    }
    return new PatchSyntaxError("invalid patch: The last line of the patch must be '*** End Patch'");
  };
  const direct = strict(lines);
  if (!(direct instanceof PatchSyntaxError)) return direct;
  const [first, last] = [lines[0], lines[lines.length - 1]];
  if (
    lines.length >= 4 && (first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"') && last.endsWith("EOF")
  ) {
    const inner = strict(lines.slice(1, -1));
    if (!(inner instanceof PatchSyntaxError)) return inner;
    throw inner;
  }
  throw direct;
}

/** Parses `patch` into its hunks. Throws {@linkcode PatchSyntaxError} with Codex's message. */
export function parsePatch(patch: string): PatchHunk[] {
  const lines = body(rustLines(patch.trim()));
  const hunks: PatchHunk[] = [];
  let at = 0;
  let lineNumber = 2;
  while (at < lines.length) {
    const [hunk, used] = parseHunk(lines.slice(at), lineNumber);
    hunks.push(hunk);
    at += used;
    lineNumber += used;
  }
  return hunks;
}

function invalidHunk(lineNumber: number, message: string): PatchSyntaxError {
  return new PatchSyntaxError(`invalid hunk at line ${lineNumber}, ${message}`);
}

function parseHunk(lines: readonly string[], lineNumber: number): [PatchHunk, number] {
  const first = lines[0].trim();
  if (first.startsWith(ADD)) {
    let contents = "";
    let used = 1;
    for (const line of lines.slice(1)) {
      if (!line.startsWith("+")) break;
      contents += line.slice(1) + "\n";
      used++;
    }
    return [{ kind: "add", path: first.slice(ADD.length), contents }, used];
  }
  if (first.startsWith(DELETE)) return [{ kind: "delete", path: first.slice(DELETE.length) }, 1];
  if (first.startsWith(UPDATE)) {
    const path = first.slice(UPDATE.length);
    let rest = lines.slice(1);
    let used = 1;
    let moveTo: string | undefined;
    if (rest[0]?.startsWith(MOVE)) {
      moveTo = rest[0].slice(MOVE.length);
      rest = rest.slice(1);
      used++;
    }
    const chunks: PatchChunk[] = [];
    while (rest.length > 0) {
      if (rest[0].trim() === "") {
        rest = rest.slice(1);
        used++;
        continue;
      }
      if (rest[0].startsWith("*")) break;
      const [chunk, chunkLines] = parseChunk(rest, lineNumber + used, chunks.length === 0);
      chunks.push(chunk);
      used += chunkLines;
      rest = rest.slice(chunkLines);
    }
    if (chunks.length === 0) throw invalidHunk(lineNumber, `Update file hunk for path '${path}' is empty`);
    return [{ kind: "update", path, moveTo, chunks }, used];
  }
  throw invalidHunk(
    lineNumber,
    `'${first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', ` +
      "'*** Delete File: {path}', '*** Update File: {path}'",
  );
}

function parseChunk(lines: readonly string[], lineNumber: number, mayOmitContext: boolean): [PatchChunk, number] {
  let context: string | undefined;
  let start = 1;
  if (lines[0] === "@@") context = undefined;
  else if (lines[0].startsWith("@@ ")) context = lines[0].slice(3);
  else if (mayOmitContext) start = 0;
  else {
    throw invalidHunk(lineNumber, `Expected update hunk to start with a @@ context marker, got: '${lines[0]}'`);
  }
  if (start >= lines.length) throw invalidHunk(lineNumber + 1, "Update hunk does not contain any lines");
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let endOfFile = false;
  let parsed = 0;
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (parsed === 0) throw invalidHunk(lineNumber + 1, "Update hunk does not contain any lines");
      endOfFile = true;
      parsed++;
      break;
    }
    const mark = line[0];
    if (mark === undefined) {
      oldLines.push("");
      newLines.push("");
    } else if (mark === " ") {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    } else if (mark === "+") newLines.push(line.slice(1));
    else if (mark === "-") oldLines.push(line.slice(1));
    else {
      if (parsed === 0) {
        throw invalidHunk(
          lineNumber + 1,
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), ` +
            "'+' (added line), or '-' (removed line)",
        );
      }
      break;
    }
    parsed++;
  }
  return [{ context, oldLines, newLines, endOfFile }, parsed + start];
}

/** Typographic dashes, quotes and spaces as their ASCII selves: the last pass of the search. */
function plain(line: string): string {
  return line.trim().replace(/[\u2010-\u2015\u2212]/g, "-").replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"').replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ");
}

const PASSES: readonly ((line: string) => string)[] = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  plain,
];

/** Where `pattern` starts in `lines` at or after `from` (at the end when `endOfFile`), or -1. */
function seek(lines: readonly string[], pattern: readonly string[], from: number, endOfFile: boolean): number {
  if (pattern.length === 0) return from;
  if (pattern.length > lines.length) return -1;
  const start = endOfFile ? lines.length - pattern.length : from;
  for (const pass of PASSES) {
    for (let at = start; at <= lines.length - pattern.length; at++) {
      if (pattern.every((line, index) => pass(lines[at + index]) === pass(line))) return at;
    }
  }
  return -1;
}

/**
 * The new content of the file at `path` (named in errors as given) after
 * `chunks`. Throws {@linkcode PatchMatchError} with Codex's message when a
 * context or the old lines cannot be found.
 */
export function applyChunks(path: string, original: string, chunks: readonly PatchChunk[]): string {
  const lines = original.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const replacements: [number, number, readonly string[]][] = [];
  let from = 0;
  for (const chunk of chunks) {
    if (chunk.context !== undefined) {
      const at = seek(lines, [chunk.context], from, false);
      if (at === -1) throw new PatchMatchError(path, `Failed to find context '${chunk.context}' in ${path}`);
      from = at + 1;
    }
    if (chunk.oldLines.length === 0) {
      replacements.push([lines.length, 0, chunk.newLines]);
      continue;
    }
    let pattern = chunk.oldLines;
    let replacement = chunk.newLines;
    let at = seek(lines, pattern, from, chunk.endOfFile);
    if (at === -1 && pattern[pattern.length - 1] === "") {
      // A trailing empty line is often the file's final newline: try again without it.
      pattern = pattern.slice(0, -1);
      if (replacement[replacement.length - 1] === "") replacement = replacement.slice(0, -1);
      at = seek(lines, pattern, from, chunk.endOfFile);
    }
    if (at === -1) {
      throw new PatchMatchError(path, `Failed to find expected lines in ${path}:\n${chunk.oldLines.join("\n")}`);
    }
    replacements.push([at, pattern.length, replacement]);
    from = at + pattern.length;
  }
  replacements.sort((a, b) => a[0] - b[0]);
  const result = [...lines];
  for (const [at, length, replacement] of replacements.reverse()) result.splice(at, length, ...replacement);
  if (result[result.length - 1] !== "") result.push("");
  return result.join("\n");
}
