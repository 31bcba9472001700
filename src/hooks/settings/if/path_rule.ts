/**
 * `Read(…)` and `Edit(…)` rule paths, as Claude Code's permissions page
 * ("Read and Edit") defines them: gitignore patterns with four anchors.
 *
 * | pattern            | anchored at                                        |
 * | ------------------ | -------------------------------------------------- |
 * | `//path`           | the filesystem root                                |
 * | `~/path`           | the home directory                                 |
 * | `/path`            | the settings source (the bridge: the project dir)  |
 * | `path` or `./path` | the current directory                              |
 *
 * Within the anchor, gitignore rules: `*` and `?` stay within one segment,
 * `**` crosses directories, a pattern without a slash (a bare name such as
 * `.env` or `*.ts`) matches at any depth, one with a slash is anchored
 * (`src/**` is only `<cwd>/src` and what is in it, as `if` reads it since
 * Claude Code 2.1.214), and a pattern that matches a directory matches
 * everything in it.
 *
 * @module
 */

import { isAbsolute, relative, resolve } from "node:path";

/** The directories a path pattern can be anchored at. */
export interface PathAnchors {
  /** The current directory of the event (`path`, `./path`). */
  cwd: string;
  /** The home directory (`~/path`). */
  home: string;
  /** The settings source (`/path`). */
  settingsRoot: string;
}

/**
 * Paths longer than this are not matched (the hook runs, as for a Bash
 * command too long to analyse): Linux refuses longer paths (`PATH_MAX`), so
 * only a model that wants the matcher to work hard sends one.
 */
export const MAX_MATCHED_PATH = 4096;

/** A compiled path pattern: whether an absolute file path matches. */
export type PathTest = (path: string) => boolean;

/** Compiles the specifier of a `Read(…)`/`Edit(…)`/`Write(…)` rule. */
export function compilePathPattern(specifier: string, anchors: PathAnchors): PathTest {
  let spec = specifier.trim();
  if (spec === "" || spec === "*" || spec === "**") return () => true;
  let anchor: string;
  let anchored = true;
  if (spec.startsWith("//")) {
    anchor = "/";
    spec = spec.slice(2);
  } else if (spec.startsWith("~/")) {
    anchor = anchors.home;
    spec = spec.slice(2);
  } else if (spec.startsWith("/")) {
    anchor = anchors.settingsRoot;
    spec = spec.slice(1);
  } else if (spec.startsWith("./")) {
    anchor = anchors.cwd;
    spec = spec.slice(2);
  } else {
    anchor = anchors.cwd;
    anchored = false;
  }
  const directoryOnly = spec.endsWith("/");
  if (directoryOnly) spec = spec.replace(/\/+$/, "");
  // gitignore: a slash at the start or in the middle anchors; otherwise the name floats to any depth.
  const floating = !anchored && !spec.includes("/");
  // A pattern matching a directory matches everything below it; a directory-only pattern only that. One
  // test of the whole path, not one per leading run of segments (quadratic in a long path the model chose).
  // `s`: a newline in a file name is one more character, not a way around the rule.
  const below = directoryOnly ? "/.+" : "(?:/.*)?";
  const regex = new RegExp(`^${floating ? "(?:.*/)?" : ""}${globToRegExp(spec)}${below}$`, "s");
  return (path) => {
    const rel = relative(anchor, resolve(anchors.cwd, path));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return false;
    return regex.test(rel);
  };
}

/** A gitignore glob as a regular expression source (no anchors). */
function globToRegExp(glob: string): string {
  const segments = glob.split("/");
  let out = "";
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === "**") {
      // `a/**/b`: zero or more directories. A trailing `/**`: the directory and everything in it
      // ("matches only the src directory in the working directory and the files under it").
      if (!last) out += "(?:.*/)?";
      else out = index === 0 ? ".*" : out.slice(0, -1);
      return;
    }
    out += segmentToRegExp(segment) + (last ? "" : "/");
  });
  return out;
}

/** One path segment's glob: `*`, `?` and `[…]` classes never cross a `/`. */
function segmentToRegExp(segment: string): string {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i];
    if (ch === "*") {
      out += "[^/]*";
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const end = segment.indexOf("]", i + 2);
      if (end === -1) {
        out += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, end);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, "\\\\").replace(/\//g, "")}]`;
      i = end;
    } else if (ch === "\\" && i + 1 < segment.length) {
      out += escapeRegExp(segment[++i]);
    } else {
      out += escapeRegExp(ch);
    }
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
