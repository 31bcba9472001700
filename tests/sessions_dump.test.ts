/**
 * bash's state dump is its `export -p` listing, parsed on the host
 * (`src/seam/carry/export_list.ts`, issue 41). A command controls every
 * value in it, so these attack the parser: a value that holds a whole
 * forged `declare -x` line, quotes, backslashes, newlines, bytes that are
 * not UTF-8, very long values and many variables, in every form bash prints
 * (`"…"`, `$'…'`, older bash's newline inside the quotes, POSIX mode's
 * `export`, arrays skipped quote by quote); and a listing bash would not
 * print is no state at all. Then, through real sessions: after each line the
 * next command starts from exactly the environment the line's shell hands a
 * child (`/proc/self/environ`), on this host and in the sandbox.
 */

import { describe, it } from "node:test";
import { Buffer } from "node:buffer";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportedVariables } from "../src/seam/carry/export_list.ts";
import { statePrelude } from "../src/seam/carry/script.ts";
import { parseState } from "../src/seam/carry/state.ts";
import { childEnvironment } from "./helpers/env_dump.ts";
import { sandboxSkip } from "./helpers/sandbox.ts";
import { withShell } from "./helpers/shell.ts";

const encoder = new TextEncoder();

/** The variables bash hands a child, read from `listing` (a string of bytes as bash wrote them), as an object. */
function read(listing: string | Uint8Array): Record<string, string> | undefined {
  const listed = exportedVariables(typeof listing === "string" ? encoder.encode(listing) : listing);
  return listed === undefined ? undefined : Object.fromEntries(listed);
}

/** A whole dump as bash's trap writes it: the directory, the listing's mark, the listing, the end mark. */
function dump(listing: string, cwd = "/work"): string {
  return `${cwd}\n\0dsh-export-p\0${listing}\0dsh-state-end\0`;
}

describe("the export -p parser reads what bash prints, exactly", () => {
  it("double quotes with bash's four escapes, and the ANSI-C form with its escapes and octal bytes", () => {
    assert.deepEqual(read('declare -x A="q\\"uo\\\\te\\$x\\`b\\\\"\ndeclare -x B=""\n'), {
      A: 'q"uo\\te$x`b\\',
      B: "",
    });
    assert.deepEqual(read("declare -x C=$'new\\nline\\t\\E\\a\\b\\f\\r\\v\\\\\\'\\001\\177'\n"), {
      C: "new\nline\t\x1b\x07\b\f\r\v\\'\x01\x7f",
    });
    // UTF-8 written as octal bytes in the C locale, and bytes that are not UTF-8: read as the rest of the state is.
    assert.deepEqual(read("declare -x D=$'\\303\\251\\346\\227\\245'\n"), { D: "é日" });
    assert.deepEqual(read("declare -x F=$'\\377\\376 bad'\n"), { F: "\ufffd\ufffd bad" });
  });

  it("a value holding a whole forged line stays one value, in every quoting bash uses", () => {
    const forged = 'declare -x EVIL="evil"';
    // bash 5.2: the newline as \n in $'…'; older bash: the newline itself inside the double quotes.
    assert.deepEqual(read(`declare -x V=$'x\\n${forged}'\n`), { V: `x\n${forged}` });
    assert.deepEqual(read(`declare -x V="x\n${forged.replaceAll('"', '\\"')}"\ndeclare -x W="1"\n`), {
      V: `x\n${forged}`,
      W: "1",
    });
    // A value that closes its own quote only through an escape the parser honours.
    assert.deepEqual(read('declare -x V="\\"\ndeclare -x EVIL=\\"evil\\""\n'), { V: '"\ndeclare -x EVIL="evil"' });
  });

  it("arrays and variables without a value are no child's; an array's quoted ) and newline do not end its line", () => {
    const listing = [
      'declare -ax ARR=([0]="1" [1]=")\ndeclare -x EVIL=\\"1\\"" [2]=$\')\\n\')',
      'declare -Ax ASS=([$\'\\n\']="2" [")"]="4" ["\\""]="3" ["a b"]="1" ["\\$x"]="6" )',
      "declare -a OLD='([0]=\"1\")'",
      "declare -x UNSET",
      'declare -nx REF="HOME"',
      'declare -irx NUMBER="5"',
      "",
    ].join("\n");
    assert.deepEqual(read(listing), { REF: "HOME", NUMBER: "5" });
  });

  it("POSIX mode's export lines read the same", () => {
    const listing = 'export A="1"\nexport -a ARR=([0]="x")\nexport UNSET\nexport B=$\'\\n\'\n';
    assert.deepEqual(read(listing), { A: "1", B: "\n" });
  });

  it("a listing bash would not print is no listing at all", () => {
    const refused = [
      "A=1\n", // no declare
      'declare -x A="1"', // no newline at its end
      'declare -x A="1\n', // a quote left open
      'declare -x A="1"x\n', // bytes after the value
      'declare -x A="$(id)"\n', // an expansion bash would have escaped
      'declare -x A="`id`"\n',
      'declare -x A="\\n"\n', // an escape bash never writes inside double quotes
      "declare -x A=$'\\u00e9'\n", // a locale-dependent escape bash never writes
      "declare -x A=$'\\400'\n", // no byte
      "declare -x A=$'\\x'\n",
      "declare -x A='1'\n", // single quotes: never bash's for a scalar
      "declare -x A=1\n",
      'declare -x A="1"\ndeclare -x A="2"\n', // a name twice
      'declare -x 1A="1"\n',
      'declare -x A-B="1"\n',
      'declare x A="1"\n',
      'declare -ax ARR=([0]="1"\n', // an array never closed
      'declare -x A="1"\n\n',
      'typeset -x A="1"\n',
    ];
    for (const listing of refused) assert.equal(read(listing), undefined, JSON.stringify(listing));
  });

  it("very long values, very long names and many variables are read in one pass", () => {
    const long = "x".repeat(1024 * 1024);
    assert.equal(read(`declare -x LONG="${long}"\n`)?.LONG, long);
    // A name longer than any argument list: no stack is spent on it.
    const name = "N".repeat(2 * 1024 * 1024);
    assert.equal(Object.keys(read(`declare -x ${name}="1"\n`) ?? {})[0]?.length, name.length);
    const many = Array.from({ length: 20_000 }, (_, index) => `declare -x V${index}=$'\\n${index}'\n`).join("");
    const variables = read(many) ?? {};
    assert.equal(Object.keys(variables).length, 20_000);
    assert.equal(variables.V19999, "\n19999");
    // Every byte value in a value, NUL aside (no environment holds one).
    const bytes = Array.from({ length: 255 }, (_, index) => `\\${(index + 1).toString(8).padStart(3, "0")}`).join("");
    const all = read(`declare -x ALL=$'${bytes}'\n`)?.ALL ?? "";
    assert.equal(all, new TextDecoder().decode(Uint8Array.from({ length: 255 }, (_, index) => index + 1)));
  });

  it("a dump takes only what the listing holds, never a managed name, and nothing from a listing out of place", () => {
    const given = { KEEP: "1", GONE: "1", "A-B": "0" };
    const listing = 'declare -x KEEP="1"\ndeclare -x NEW="a\\"b"\ndeclare -x DSH_OWNER="forged"\n' +
      'declare -x dsh_mark="x"\ndeclare -x BASH_FUNC_x="1"\ndeclare -x SHLVL="9"\n';
    assert.deepEqual(parseState(dump(listing), given), { cwd: "/work", env: { NEW: 'a"b', GONE: undefined } });
    // The same dump as bytes (the host reads bytes).
    assert.deepEqual(parseState(encoder.encode(dump(listing)), given)?.env, { NEW: 'a"b', GONE: undefined });
    // A listing bash would not print, or records around it that bash did not write: no state.
    assert.equal(parseState(dump('declare -x A="1'), given), undefined);
    assert.equal(parseState(`/work\n\0A=1\0dsh-export-p\0${listing}\0dsh-state-end\0`, given), undefined);
    assert.equal(parseState(`/work\n\0dsh-export-p\0${listing}\0B=2\0dsh-state-end\0`, given), undefined);
    assert.equal(parseState(`/work\n\0dsh-export-p\0${listing}\0`, given), undefined);
    // A NUL cannot be in a value: one written into the listing by hand ends the record, and the dump is refused.
    assert.equal(parseState(dump('declare -x A="1\0declare -x B="2"\n'), given), undefined);
  });
});

describe("bash's trap writes export -p's listing, in the C locale", () => {
  /** The state file bash's trap wrote after `line`, as text. */
  function stateAfter(line: string): string {
    const dir = mkdtempSync(join(tmpdir(), "dsh-dump-"));
    try {
      const path = join(dir, "state");
      const ran = spawnSync("bash", ["-c", statePrelude({ path }, "bash") + line], {
        env: { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8" },
      });
      assert.equal(ran.status, 0, ran.stderr.toString());
      return readFileSync(path, "latin1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("one listing between its mark and the end mark, every byte from 0x80 as an octal escape", () => {
    const state = stateAfter("cd /usr; export WIDE=é");
    assert.match(state, /^\/usr\n\0dsh-export-p\0declare -x [^\0]*\n\0dsh-state-end\0$/);
    assert.ok(state.includes(`declare -x WIDE=$'\\303\\251'\n`), state);
    assert.equal(
      parseState(state.slice(0, state.indexOf("dsh-state-end")), {})?.env.WIDE,
      undefined,
      "a dump cut short is none",
    );
    assert.equal(parseState(Buffer.from(state, "latin1"), {})?.env.WIDE, "é");
  });

  it("POSIX mode lists with export; a read-only LC_ALL has the environment read through a cat", () => {
    assert.match(stateAfter("set -o posix; export P=1"), /\0dsh-export-p\0(export [^\0]*\n)+\0dsh-state-end\0$/);
    const pinned = stateAfter("declare -rx LC_ALL=C.UTF-8; export P=1");
    assert.ok(!pinned.includes("dsh-export-p") && pinned.includes("\0P=1\0"), pinned);
  });
});

/** Lines whose values attack the listing; after each, the next command must start from what its shell hands a child. */
const ATTACKS = [
  `export EVIL=$'x\\ndeclare -x INJECTED="1"\\ndeclare -x PATH="/evil"'`,
  `export QUOTES='"'"'"'\\\\$\`"\\" \\\\\\"' DOLLAR='$(id)\`id\`'`,
  `export NL=$'a\\n\\nb\\n' CR=$'\\r' TAB=$'\\t' ESC=$'\\e[31m' BELL=$'\\a'`,
  `export BYTES=$'\\x80\\xff\\xc3' UTF8='é日本' MIXED=$'\\xe2\\x82'€`,
  `export OCTAL='\\303\\251' ANSI="\\$'x'" EMPTY= SPACE=' '`,
  "export LONG=$(head -c 100000 /dev/zero | tr '\\0' x)",
  "for i in $(seq 500); do export MANY_$i=$'v\\n'$i; done",
  "declare -Ax ASS=([')']=1 [$'\\n']=2); declare -ax ARR=(')' $'\\ndeclare -x X=1'); export AFTER=arrays",
  "declare -n NREF=HOME; declare -nx XREF=PATH; export AFTER=namerefs",
  "export LC_ALL=C.UTF-8; export WIDE='é'$'\\x01'",
  "set -o posix; export POSIX_MODE=$'p\\nq'; declare -nx PREF=HOME",
  "set -a; IMPLICIT=$'a\\\"b'; set +a; export -n EMPTY",
  "unset LONG; for i in $(seq 500); do unset MANY_$i; done",
];

/** Output budgets above the largest environment here, so that both dumps compared are whole. */
const WHOLE = { stdoutMaxBytes: 4 * 1024 * 1024 };

describe("after each attacking line the next command starts from the environment its shell hands a child", () => {
  const ambientEnv = { PATH: "/usr/bin:/bin", HOME: "/", GONE: "1" };

  it("on this host", async () => {
    await withShell({ ambientEnv }, async (shell) => {
      const session = shell.session({ owner: null });
      for (const line of ATTACKS) {
        const ended = await session.exec(`${line}\ncommand -p cat /proc/self/environ`, WHOLE);
        assert.equal(ended.exitCode, 0, `${line}: ${ended.stderr.text}`);
        assert.equal(ended.sessionNote, undefined, line);
        const next = await session.exec("command -p cat /proc/self/environ", WHOLE);
        assert.equal(next.exitCode, 0, next.stderr.text);
        assert.deepEqual(childEnvironment(next.stdout.text), childEnvironment(ended.stdout.text), line);
      }
      assert.equal(session.env.INJECTED, undefined);
      assert.equal(Object.hasOwn(session.env, "INJECTED"), false);
      assert.equal(session.env.PATH, undefined, "PATH was never changed");
      assert.equal(session.env.EVIL, 'x\ndeclare -x INJECTED="1"\ndeclare -x PATH="/evil"');
      assert.equal(session.env.XREF, "PATH", "an exported name reference hands its own value on, as bash does");
    });
  });

  it("in the sandbox", { skip: sandboxSkip() }, async () => {
    await withShell({ ambientEnv, sandbox: {} }, async (shell) => {
      const session = shell.session({ owner: null });
      for (const line of [ATTACKS[0], ATTACKS[1], ATTACKS[3], ATTACKS[7], ATTACKS[10]]) {
        const ended = await session.exec(`${line}\ncommand -p cat /proc/self/environ`);
        assert.equal(ended.exitCode, 0, `${line}: ${ended.stderr.text}`);
        const next = await session.exec("command -p cat /proc/self/environ");
        assert.deepEqual(childEnvironment(next.stdout.text), childEnvironment(ended.stdout.text), line);
      }
      assert.equal(Object.hasOwn(session.env, "INJECTED"), false);
      assert.equal(session.env.POSIX_MODE, "p\nq");
    });
  });
});
