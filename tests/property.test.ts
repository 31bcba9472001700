/**
 * Property tests (fast-check): random requests, the environment merge and
 * output capture, each checked against an oracle written from the
 * specification rather than from the code.
 *
 * - Requests built from plausible and implausible field values (wrong
 *   types, NUL bytes, huge numbers, extra keys) are either refused by
 *   `resolve()` with a `ShellSpecError` naming a field the oracle also
 *   finds invalid, or turned into a spec the spec schema accepts, with the
 *   documented defaults and caps; a subset with safe commands runs, and
 *   `run()` resolves or rejects only as the specification allows.
 * - `mergeEnv`/`explainEnv` over ambient environments whose every entry is
 *   labelled by how it was built (safe, credential name, credential value,
 *   managed `DSH_*`), so the expectation never asks the scrub itself.
 * - `OutputCollector` over random bytes and random UTF-8 text in random
 *   chunkings: head + omitted + tail account for the stream exactly, the
 *   spill file is the stream, no U+FFFD appears that the input did not have,
 *   and what is held stays within the budget.
 *
 * Runs are bounded (numRuns) so the file takes seconds. On a failure
 * fast-check prints the seed and the counterexample's path; replay with
 * `FC_SEED=<seed> deno test -A tests/property.test.ts`.
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
// deno-lint-ignore no-import-prefix -- the Node leg's build rewrites this specifier and installs the package
import fc from "npm:fast-check@^4";
import { createLocalShell, type Shell, type ShellExecRequest, ShellSpawnError, ShellSpecError } from "../mod.ts";
import { ENV_OVERRIDES, type EnvExplanation, explainEnv, mergeEnv } from "../src/seam/env/mod.ts";
import { ShellExecSpecSchema, ShellRunResultSchema } from "../src/seam/schemas.ts";
import { OutputCollector } from "../src/seam/capture/collector.ts";
import { ownFields } from "../src/seam/own_fields.ts";
import { commonRequest, requestSchema } from "../src/seam/resolve/schemas.ts";
import { concatBytes } from "./helpers/capture.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { fastCheckRuns } from "./helpers/fast_check.ts";
import { DECIDED_SURVIVE_NAMES, SPEC_MUST_SCRUB_NAMES, SPEC_MUST_SURVIVE_NAMES } from "./helpers/spec_env.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/** The request's keys, as the specification lists them. */
const REQUEST_KEYS = [
  "command",
  "owner",
  "workdir",
  "timeoutMs",
  "stdoutMaxBytes",
  "signal",
  "stdin",
  "env",
  "dshEnv",
] as const;
type RequestKey = typeof REQUEST_KEYS[number];

/** Linux's limit for one exec argument, its terminating NUL excluded. */
const MAX_COMMAND_BYTES = 131_071;
const GIB = 1_073_741_824;

/** Values of every type, for fields that expect something else. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.bigInt(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    2 ** 53,
    -0,
    Symbol("junk"),
    () => 1,
    new Map([["A", "1"]]),
    new Date(0),
    new Uint16Array(2),
    [] as unknown[],
    ["A=1"],
  ),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** A field slot: absent (undefined), or present with a value (which may itself be `undefined`). */
type Slot = { value: unknown } | undefined;

/** Weights out of 20: `absentWeight` absent, 2 present as `undefined`, the rest a value. */
function slot(values: fc.Arbitrary<unknown>, absentWeight = 4): fc.Arbitrary<Slot> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: absentWeight },
    { arbitrary: fc.constant({ value: undefined }), weight: 2 },
    { arbitrary: values.map((value) => ({ value })), weight: 18 - absentWeight },
  );
}

const binaryString = (maxLength: number) => fc.string({ unit: "binary", maxLength });

const commandValues = fc.oneof(
  fc.constantFrom("true", "printf %s ok", "exit 3", "", "\0", "echo a\0b", " "),
  binaryString(24),
  fc.constantFrom(
    "x".repeat(MAX_COMMAND_BYTES), // the longest command
    "x".repeat(MAX_COMMAND_BYTES + 1),
    "é".repeat(65_535) + "x", // 131 071 bytes in 65 536 UTF-16 units
    "é".repeat(65_536), // 131 072 bytes
    "\ud800".repeat(43_690), // lone surrogates: refused, whatever the length
    "a\udc00b",
    "\u{1F600}".repeat(32_767) + "xx", // well-formed pairs: 4 bytes each, 131 070 in all
    "\u{1F600}".repeat(32_768),
  ),
  junk,
);

const ownerValues = fc.oneof(fc.constant(null), binaryString(8), fc.constantFrom("", "s1", "a\0b"), junk);

const workdirValues = fc.oneof(
  fc.constantFrom(".", "sub", "/", "/tmp", "../x", "", "a\0b", "\0", "a\ud800", "\udfff/x"),
  binaryString(12),
  junk,
);

const timeoutValues = fc.oneof(
  fc.double(),
  fc.integer({ min: -5, max: 3_000_000_000 }),
  fc.constantFrom(1, 0.5, 1e-300, 1e308, 2 ** 31, 2 ** 53, 2 ** 1023),
  junk,
);

const budgetValues = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 31 }),
  fc.constantFrom(1, GIB, GIB + 1, 1.5, 2 ** 53, 2 ** 53 + 2, 2 ** 1023),
  fc.double(),
  junk,
);

const signalValues = fc.oneof(
  fc.constant(new AbortController().signal),
  fc.constant(AbortSignal.abort("already aborted")),
  fc.constant({ aborted: false }),
  junk,
);

const stdinValues = fc.oneof(
  binaryString(16),
  fc.uint8Array({ maxLength: 16 }),
  fc.constantFrom(new Uint16Array(1), new DataView(new ArrayBuffer(1)), "a\0b"),
  junk,
);

const envNames = fc.oneof(
  binaryString(10),
  fc.constantFrom(
    "",
    "=",
    "A=B",
    "A\0B",
    "\0",
    "A\ud800",
    "__proto__",
    "constructor",
    "PATH",
    "DSH_X",
    "dsh_y",
    "GITHUB_TOKEN",
  ),
);
const envValues = fc.oneof(binaryString(16), fc.constantFrom(undefined, "", "a\0b", "\0", "\udc00", "\u{1F600}"), junk);
const envRecords = fc.oneof(
  { arbitrary: fc.array(fc.tuple(envNames, envValues), { maxLength: 5 }).map((e) => Object.fromEntries(e)), weight: 4 },
  { arbitrary: junk, weight: 1 },
);

const dshNames = fc.oneof(
  binaryString(8).map((rest) => `DSH_${rest}`),
  envNames,
  fc.constantFrom("DSH_", "dsh_x", "Dsh_X", "DSH_A=B", "DSH_\0", "DSH_\ud800"),
);
const dshValues = fc.oneof(binaryString(16), fc.constantFrom(undefined, "", "a\0b", "a\udbff"), junk);
const dshRecords = fc.oneof(
  { arbitrary: fc.array(fc.tuple(dshNames, dshValues), { maxLength: 4 }).map((e) => Object.fromEntries(e)), weight: 4 },
  { arbitrary: junk, weight: 1 },
);

const extraKeys = fc.oneof(
  { arbitrary: fc.constant({}), weight: 6 },
  {
    arbitrary: fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("timeout", "cwd", "Command", "__proto__")),
      junk,
      { minKeys: 1, maxKeys: 2 },
    ).map((extra) => {
      for (const key of REQUEST_KEYS) delete (extra as Record<string, unknown>)[key];
      return extra;
    }),
    weight: 1,
  },
);

/** A generated request: the object given to `resolve()`, and the slots it was built from. */
interface GeneratedRequest {
  request: unknown;
  slots: Partial<Record<RequestKey, Slot>>;
  extra: Record<string, unknown>;
}

const requests: fc.Arbitrary<GeneratedRequest> = fc.oneof(
  {
    arbitrary: fc.record({
      command: slot(commandValues, 1),
      owner: slot(ownerValues, 1),
      workdir: slot(workdirValues),
      timeoutMs: slot(timeoutValues),
      stdoutMaxBytes: slot(budgetValues),
      signal: slot(signalValues, 8),
      stdin: slot(stdinValues),
      env: slot(envRecords),
      dshEnv: slot(dshRecords),
      extra: extraKeys,
    }).map(({ extra, ...slots }) => ({ request: build(slots, extra), slots, extra })),
    weight: 20,
  },
  {
    // Not an object at all.
    arbitrary: fc.constantFrom<unknown>(null, undefined, 0, "echo hi", [], true).map((request) => ({
      request,
      slots: {},
      extra: {},
    })),
    weight: 1,
  },
);

function build(slots: Partial<Record<RequestKey, Slot>>, extra: Record<string, unknown>): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const key of REQUEST_KEYS) {
    const field = slots[key];
    if (field !== undefined) entries.push([key, field.value]);
  }
  // defineProperty-like semantics: an extra "__proto__" key becomes an own key.
  return Object.fromEntries([...entries, ...Object.entries(extra)]);
}

const hasNul = (text: string): boolean => text.includes("\0");

/** Whether `text` holds a lone surrogate: UTF-8 cannot carry it, so a round trip changes the text. */
const hasLoneSurrogate = (text: string): boolean => new TextDecoder().decode(encoder.encode(text)) !== text;

/** What the OS cannot be given: a NUL cuts the string short, a lone surrogate turns into U+FFFD. */
const unsendable = (text: string): boolean => hasNul(text) || hasLoneSurrogate(text);

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.prototype.toString.call(value) === "[object Object]";
}

/** Whether an optional slot is absent or holds `undefined` (both mean "not given"). */
const notGiven = (field: Slot): boolean => field === undefined || field.value === undefined;

/** The oracle: which fields of a request are invalid, by the specification's rules. */
function invalidFields(generated: GeneratedRequest): Set<string> {
  const invalid = new Set<string>();
  const { request, slots, extra } = generated;
  if (!isPlainRecord(request)) return new Set(["request"]);
  if (Object.keys(extra).length > 0) invalid.add("request");
  const command = slots.command?.value;
  if (
    typeof command !== "string" || command.length === 0 || unsendable(command) ||
    encoder.encode(command).length > MAX_COMMAND_BYTES
  ) invalid.add("command");
  const owner = slots.owner;
  if (owner === undefined || (owner.value !== null && typeof owner.value !== "string")) invalid.add("owner");
  const workdir = slots.workdir;
  if (
    !notGiven(workdir) && (typeof workdir!.value !== "string" || workdir!.value === "" || unsendable(workdir!.value))
  ) {
    invalid.add("workdir");
  }
  const timeout = slots.timeoutMs;
  if (
    !notGiven(timeout) &&
    (typeof timeout!.value !== "number" || !Number.isFinite(timeout!.value) || timeout!.value <= 0)
  ) invalid.add("timeoutMs");
  const budget = slots.stdoutMaxBytes;
  if (
    !notGiven(budget) &&
    (!Number.isSafeInteger(budget!.value) || (budget!.value as number) <= 0 || (budget!.value as number) > GIB)
  ) invalid.add("stdoutMaxBytes");
  const signal = slots.signal;
  if (!notGiven(signal) && !(signal!.value instanceof AbortSignal)) invalid.add("signal");
  const stdin = slots.stdin;
  if (!notGiven(stdin) && typeof stdin!.value !== "string" && !(stdin!.value instanceof Uint8Array)) {
    invalid.add("stdin");
  }
  const env = slots.env;
  if (!notGiven(env) && !validEnv(env!.value, false)) invalid.add("env");
  const dshEnv = slots.dshEnv;
  if (!notGiven(dshEnv) && !validEnv(dshEnv!.value, true)) invalid.add("dshEnv");
  return invalid;
}

function validEnv(record: unknown, managed: boolean): boolean {
  if (!isPlainRecord(record)) return false;
  return Object.entries(record).every(([name, value]) => {
    if (name === "" || name.includes("=") || unsendable(name)) return false;
    if (managed && !name.startsWith("DSH_")) return false;
    if (value === undefined) return !managed;
    return typeof value === "string" && !unsendable(value);
  });
}

/** The field path's first segment: `env["A=B"]` → `env`. */
function fieldRoot(field: string): string {
  const bracket = field.indexOf("[");
  return bracket === -1 ? field : field.slice(0, bracket);
}

function describeValue(value: unknown): string {
  try {
    return typeof value === "string" && value.length > 80 ? `a string of ${value.length} units` : fc.stringify(value);
  } catch {
    return String(value);
  }
}

describe("property: random requests", () => {
  const SHELL_TIMEOUT = 5_000;
  const SHELL_MAX_TIMEOUT = 10_000;
  const SHELL_BUDGET = 2_000;
  let work: string;
  let spillDir: string;
  let shell: Shell;

  before(() => {
    work = freshDir("dsh-prop-work-");
    mkdirSync(join(work, "sub"));
    writeFileSync(join(work, "file"), "not a directory");
    spillDir = freshDir("dsh-prop-spill-");
    shell = createLocalShell({
      workdir: work,
      timeoutMs: SHELL_TIMEOUT,
      maxTimeoutMs: SHELL_MAX_TIMEOUT,
      maxOutputBytes: SHELL_BUDGET,
      spillDir,
      graceMs: 200,
    });
  });

  after(async () => {
    await shell.close();
    removeDir(work);
    removeDir(spillDir);
  });

  it("resolve() throws a ShellSpecError naming an invalid field, or returns a valid spec with the defaults and caps", () => {
    fc.assert(
      fc.property(requests, (generated) => {
        const invalid = invalidFields(generated);
        let spec;
        try {
          spec = shell.resolve(generated.request as ShellExecRequest);
        } catch (error) {
          assert.ok(error instanceof ShellSpecError, `resolve() threw something else: ${String(error)}`);
          assert.equal(error.name, "ShellSpecError");
          assert.ok(
            error.message.startsWith(`${error.field}: `),
            `the message starts with the field path: ${JSON.stringify(error.message)}`,
          );
          assert.ok(
            invalid.has(fieldRoot(error.field)),
            `resolve() refused ${error.field} (${error.message}), but the oracle finds invalid only ${
              JSON.stringify([...invalid])
            }`,
          );
          return;
        }
        assert.deepEqual([...invalid], [], "resolve() accepted a request the specification refuses");
        const request = generated.request as Record<string, unknown>;
        const parsed = ShellExecSpecSchema.safeParse(spec);
        assert.ok(parsed.success, `the spec schema refuses what resolve() returned: ${describeValue(spec)}`);
        assert.equal(spec.command, request.command);
        assert.equal(spec.owner, request.owner);
        assert.equal(spec.workdir, resolvePath(work, (request.workdir as string | undefined) ?? "."));
        assert.ok(spec.workdir.startsWith("/"));
        const timeout = (request.timeoutMs as number | undefined) ?? SHELL_TIMEOUT;
        assert.equal(spec.timeoutMs, Math.min(timeout, SHELL_MAX_TIMEOUT));
        assert.equal(spec.stdoutMaxBytes, (request.stdoutMaxBytes as number | undefined) ?? SHELL_BUDGET);
        for (const key of ["signal", "stdin", "env", "dshEnv"] as const) {
          if (request[key] === undefined) assert.ok(!(key in spec), `${key} is absent, not undefined`);
          else assert.equal(spec[key], request[key], `${key} is passed on as it is`);
        }
        for (const key of Object.keys(spec)) assert.ok((REQUEST_KEYS as readonly string[]).includes(key), key);
      }),
      fastCheckRuns(1_500),
    );
  });

  it("the quick check of common requests accepts exactly what the schema accepts, and as the schema returns it", () => {
    // Mostly valid values, so that both verdicts come up often; the generator above is mostly invalid.
    const mostly = (valid: fc.Arbitrary<unknown>, any: fc.Arbitrary<unknown>) =>
      fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: any, weight: 1 });
    const common = fc.record({
      command: slot(mostly(fc.string({ minLength: 1, maxLength: 12 }), commandValues), 1),
      owner: slot(mostly(fc.oneof(fc.constant(null), fc.string({ maxLength: 6 })), ownerValues), 1),
      workdir: slot(mostly(fc.constantFrom("sub", "/tmp", "."), workdirValues), 12),
      timeoutMs: slot(mostly(fc.integer({ min: 1, max: 100_000 }), timeoutValues), 12),
      stdoutMaxBytes: slot(mostly(fc.integer({ min: 1, max: GIB }), budgetValues), 12),
      signal: slot(signalValues, 14),
      stdin: slot(mostly(fc.string({ maxLength: 4 }), stdinValues), 12),
      extra: fc.oneof({ arbitrary: fc.constant({}), weight: 12 }, { arbitrary: extraKeys, weight: 1 }),
    }).map(({ extra, ...slots }) => build(slots, extra));
    const verdicts = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(common, (request) => {
        const fields = ownFields(request);
        const quick = commonRequest(fields);
        const parsed = requestSchema.safeParse(fields);
        assert.equal(quick !== undefined, parsed.success, `the verdicts differ on ${describeValue(fields)}`);
        if (quick === undefined || !parsed.success) {
          verdicts.refused++;
          return;
        }
        verdicts.accepted++;
        for (const key of REQUEST_KEYS) assert.equal(quick[key], parsed.data[key], key);
      }),
      fastCheckRuns(3_000),
    );
    assert.ok(verdicts.accepted > 300 && verdicts.refused > 300, `one verdict is rare: ${JSON.stringify(verdicts)}`);
  });

  it("hand-built specs: run() rejects a bad one with ShellSpecError before spawning anything", async () => {
    await fc.assert(
      fc.asyncProperty(requests, async (generated) => {
        // A request is not a spec: a relative workdir and a missing timeout
        // are spec errors, so most of these are refused. Those that pass are
        // not run here: the commands are random text.
        const candidate = generated.request;
        const checked = ShellExecSpecSchema.safeParse(candidate);
        if (checked.success) return;
        await assert.rejects(
          shell.run(candidate as never),
          (error: unknown) => error instanceof ShellSpecError && error.message.startsWith(`${error.field}: `),
        );
      }),
      fastCheckRuns(300),
    );
  });

  // Commands a random request may run: each is harmless and quick.
  const SAFE_COMMANDS = [
    "true",
    "printf %s ok",
    'printf %s "$V_A"',
    "cat",
    "exit 7",
    "kill -TERM $$",
    "echo err >&2; exit 1",
    "head -c 5000 /dev/zero | tr '\\0' x",
    "sleep 0.05",
  ];
  const safeEnv = fc.dictionary(
    fc.oneof(
      fc.string({ unit: fc.constantFrom(..."ABCXYZ019_"), maxLength: 4 }).map((rest) => `V_${rest}`),
      fc.constantFrom("V_A", "__proto__"),
    ),
    fc.option(fc.string({ unit: "grapheme", maxLength: 12 }).map((v) => v.replaceAll("\0", "")), { nil: undefined }),
    { maxKeys: 3 },
  ).map((env) => Object.assign(env, { V_A: "ok" }));
  const runnable = fc.record({
    command: fc.constantFrom(...SAFE_COMMANDS),
    owner: fc.oneof(fc.constant(null), fc.string({ maxLength: 4 })),
    workdir: fc.option(fc.constantFrom(".", "sub", "/", "missing", "file"), { nil: undefined }),
    timeoutMs: fc.option(fc.oneof(fc.integer({ min: 1, max: 400 }), fc.constant(1e308)), { nil: undefined }),
    stdoutMaxBytes: fc.option(fc.integer({ min: 1, max: 6_000 }), { nil: undefined }),
    signal: fc.option(
      fc.constantFrom(new AbortController().signal, AbortSignal.abort("already aborted")),
      { nil: undefined },
    ),
    stdin: fc.option(fc.oneof(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 })), { nil: undefined }),
    env: fc.option(safeEnv, { nil: undefined }),
    dshEnv: fc.option(fc.dictionary(fc.constantFrom("DSH_A", "DSH_SESSION"), fc.string({ maxLength: 8 })), {
      nil: undefined,
    }),
  }, { requiredKeys: ["command", "owner"] });

  it("valid requests with safe commands run: a result the schema accepts, or only the errors the spec allows", async () => {
    await fc.assert(
      fc.asyncProperty(runnable, async (request) => {
        const spec = shell.resolve(request as ShellExecRequest);
        let result;
        try {
          result = await shell.run(spec);
        } catch (error) {
          if (spec.signal?.aborted) {
            assert.equal(error, spec.signal.reason, "an aborted signal rejects with its reason");
            return;
          }
          assert.ok(error instanceof ShellSpawnError, `run() rejected with ${String(error)}`);
          const workdirUnusable = !existsSync(spec.workdir) || !statSync(spec.workdir).isDirectory();
          assert.ok(workdirUnusable, `a spawn error for a usable workdir: ${error.message}`);
          assert.equal(error.path, spec.workdir);
          assert.ok(error.message.includes(spec.workdir), error.message);
          return;
        }
        assert.ok(!spec.signal?.aborted, "an aborted signal spawns nothing");
        assert.ok(existsSync(spec.workdir) && statSync(spec.workdir).isDirectory(), "the workdir was usable");
        const checked = ShellRunResultSchema.safeParse(result);
        assert.ok(checked.success, `the result schema refuses the result: ${describeValue(result)}`);
        assert.ok(!(result.timedOut && result.aborted), "never both timed out and aborted");
        assert.equal(result.aborted, false, "nothing aborted a live signal");
        assert.equal(result.exitCode === null, result.signal !== null, "an exit code or a signal, never both");
        assert.equal(result.timeoutMs, spec.timeoutMs);
        for (const stream of [result.stdout, result.stderr]) {
          if (stream.spillPath !== undefined) {
            assert.equal(stream.truncated, true);
            assert.equal(dirname(stream.spillPath), spillDir);
            assert.equal(readFileSync(stream.spillPath).length, stream.totalBytes);
            rmSync(stream.spillPath);
          }
        }
        if (result.timedOut) return;
        const expected = result.stdout.text;
        switch (spec.command) {
          case "true":
            assert.equal(result.exitCode, 0);
            break;
          case "exit 7":
            assert.equal(result.exitCode, 7);
            break;
          case "kill -TERM $$":
            assert.deepEqual([result.exitCode, result.signal], [null, "SIGTERM"]);
            break;
          case 'printf %s "$V_A"':
            if (spec.stdoutMaxBytes >= 2) assert.equal(expected, spec.env === undefined ? "" : "ok");
            break;
          case "cat": {
            const given = spec.stdin === undefined
              ? new Uint8Array(0)
              : typeof spec.stdin === "string"
              ? encoder.encode(spec.stdin)
              : spec.stdin;
            assert.equal(result.stdout.totalBytes, given.length, "cat gives back exactly its stdin");
            if (given.length <= spec.stdoutMaxBytes) assert.equal(expected, decoder.decode(given));
            break;
          }
          case "head -c 5000 /dev/zero | tr '\\0' x":
            assert.equal(result.stdout.totalBytes, 5_000);
            assert.equal(result.stdout.truncated, spec.stdoutMaxBytes < 5_000);
            break;
        }
      }),
      fastCheckRuns(40),
    );
    assert.deepEqual(readdirSync(spillDir), [], "every spill file was returned (and removed by the test)");
  });
});

// ---------------------------------------------------------------------------
// The environment merge
// ---------------------------------------------------------------------------

/** Name words that can never spell a secret word, `DSH`, `AUTH` or `PW`: no e, h, k, p, s, t, u, w, y. */
const SAFE_CHARS = [..."abcdfgijlmnoqrvxz0123456789"];
/**
 * Value characters that can never form a token, a URL, a PEM header, a
 * secret setting key (`password`, `pwd`, `accountkey` …) or `basic`/`bearer`.
 */
const SAFE_VALUE_CHARS = [..."abcdfgijlmnoqrvxz0123456789 ./=,_"];

/** From the specification (and the look-alikes documented as kept): must survive the scrub. */
const SPEC_SURVIVORS = [...SPEC_MUST_SURVIVE_NAMES, ...DECIDED_SURVIVE_NAMES, "__proto__", "constructor"];

/**
 * Words that hold a secret word only as a substring, or a secret word with
 * letters after it: never a secret word themselves, alone, with digits or
 * as a camelCase word.
 */
const LOOKALIKE_WORDS = [
  "PATH",
  "PATCH",
  "PATTERN",
  "PASSENGER",
  "PASSIVE",
  "COMPASS",
  "BYPASS",
  "ASKPASS",
  "OLDPWD",
  "KEYBOARD",
  "MONKEY",
  "TOKENIZERS",
  "SESSION",
  "AUTHOR",
  "SECRETARY",
  "CREDIT",
];

/** From the specification: scrubbed by name. */
const SPEC_CREDENTIAL_NAMES = [...SPEC_MUST_SCRUB_NAMES, "pwd"];
const SECRET_WORDS = [
  "KEY",
  "KEYS",
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "PWD",
  "CREDENTIAL",
  "CREDENTIALS",
  "CREDS",
  "AUTH",
  "COOKIE",
  "PASS",
  "PW",
  "PAT",
];
const SECRET_ENDINGS = ["PASSWORD", "PASSWD", "PASSPHRASE", "TOKEN", "SECRET", "APIKEY"];
/** Whole names and a prefix that tools keep secrets in. */
const SECRET_TOOL_NAMES = ["SSHPASS", "sshpass", "BW_SESSION", "bw_session"];

/** `TOKEN` -> `Token`: the word as it sits inside a camelCase name. */
const capitalized = (word: string): string => word[0].toUpperCase() + word.slice(1).toLowerCase();
const digits = fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: 3 });

const safeWord = fc.string({ unit: fc.constantFrom(...SAFE_CHARS), minLength: 1, maxLength: 3 });
const anyCase = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.constantFrom("upper", "lower", "as-is")).map(([t, c]) =>
    c === "upper" ? t.toUpperCase() : c === "lower" ? t.toLowerCase() : t
  );
const separator = fc.constantFrom("_", "-", ".");

type NameKind = "safe" | "credential" | "managed" | "override";

const namesOf: Record<NameKind, fc.Arbitrary<string>> = {
  safe: fc.oneof(
    fc.constantFrom(...SPEC_SURVIVORS),
    anyCase(safeWord),
    anyCase(fc.tuple(safeWord, separator, safeWord).map((parts) => parts.join(""))),
    // camelCase words that are not secret words.
    fc.tuple(safeWord, safeWord).map(([a, b]) => a + capitalized(b)),
    // Look-alikes of secret words, as words, with digits, and in camelCase.
    anyCase(
      fc.tuple(safeWord, separator, fc.constantFrom(...LOOKALIKE_WORDS), fc.option(digits))
        .map(([a, s, w, d]) => `${a}${s}${w}${d ?? ""}`),
    ),
    fc.tuple(safeWord, fc.constantFrom(...LOOKALIKE_WORDS)).map(([a, w]) => a + capitalized(w)),
    // Playwright's `PW_…` namespace: a leading PW with more words after it.
    anyCase(fc.tuple(separator, safeWord).map(([s, w]) => `PW${s}${w}`)),
  ),
  credential: fc.oneof(
    fc.constantFrom(...SPEC_CREDENTIAL_NAMES),
    anyCase(
      fc.tuple(safeWord, separator, fc.constantFrom(...SECRET_WORDS), fc.option(fc.tuple(separator, safeWord)))
        .map(([a, s, w, rest]) => `${a}${s}${w}${rest === null ? "" : rest.join("")}`),
    ),
    anyCase(fc.tuple(safeWord, fc.constantFrom(...SECRET_ENDINGS)).map(([a, w]) => a + w)),
    // A secret word or ending followed by digits counts as the word.
    anyCase(
      fc.tuple(safeWord, separator, fc.constantFrom(...SECRET_WORDS, ...SECRET_ENDINGS), digits)
        .map(([a, s, w, d]) => `${a}${s}${w}${d}`),
    ),
    // camelCase: a secret word capitalised after a lower-case word, a digit or
    // an acronym (`openaiKey`, `api2Key`, `XMLToken`), maybe with digits and
    // more words after it. Never re-cased: that would undo the split.
    fc.tuple(
      fc.oneof(safeWord, safeWord.map((w) => w.toUpperCase() + "X")),
      fc.constantFrom(...SECRET_WORDS),
      fc.option(digits),
      // A following word starts with a capital letter, as camelCase words do.
      fc.option(fc.tuple(fc.constantFrom(..."abcdfg"), safeWord).map(([first, tail]) => capitalized(first + tail))),
    ).map(([a, w, d, rest]) => `${a}${capitalized(w)}${d ?? ""}${rest ?? ""}`),
    fc.constantFrom(...SECRET_TOOL_NAMES),
    anyCase(safeWord.map((account) => `OP_SESSION_${account}`)),
  ),
  managed: fc.tuple(fc.constantFrom("DSH_", "dsh_", "Dsh_", "dSh_"), fc.oneof(safeWord, fc.constantFrom("", "TOKEN")))
    .map(([prefix, rest]) => prefix + rest),
  override: fc.constantFrom(...Object.keys(ENV_OVERRIDES)),
};

const alnum = (min: number, max: number, chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") =>
  fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });

const safeValue = fc.string({ unit: fc.constantFrom(...SAFE_VALUE_CHARS), maxLength: 12 });

/**
 * Values that hold no secret but sit close to the value rules: ports before
 * paths with `@`, settings with empty values, the words Basic and Bearer in
 * text, short runs after token prefixes.
 */
const LOOKALIKE_VALUES = [
  "postgres://db:5432/app",
  "http://localhost:5173/@vite/client",
  "https://registry.npmjs.org:443/@scope/pkg",
  "git+ssh://git@github.com:org/repo.git@v1.0",
  "https://user@host:8080/path?q=a#b",
  "password=",
  "password=;",
  "--password-file=/run/secrets/db",
  "SharedAccessKeyName=Root",
  "PWD=/home/u",
  "Basic setup",
  "Bearer of bad news",
  "npm_config_cache",
  "hf_transfer",
  "hvs.example.com",
  "https://hooks.slack.com/services/",
];
/** Ordinary values: random safe text, and the look-alikes. */
const ordinaryValue = fc.oneof(
  { arbitrary: safeValue, weight: 4 },
  { arbitrary: fc.constantFrom(...LOOKALIKE_VALUES), weight: 1 },
);

const password = alnum(1, 12);
/** A password that starts with a letter, so `u:12/x@h` is never read as a port and a path. */
const urlPassword = fc.tuple(alnum(1, 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), alnum(0, 6));
/** The keys a connection string holds a secret in, in any case. */
const settingKey = anyCase(
  fc.constantFrom("Password", "Pwd", "AccountKey", "SharedAccessKey", "SharedAccessSignature", "db_password"),
);

/** Values that are plainly secrets, in the formats the specification lists. */
const secretToken = fc.oneof(
  fc.tuple(fc.constantFrom("postgres", "redis", "https"), fc.oneof(fc.constant(""), alnum(1, 6)), alnum(1, 10))
    .map(([scheme, user, pass]) => `${scheme}://${user}:${pass}@db.internal:5432/app`),
  // Unescaped `/`, `#` or `?` inside the password.
  fc.tuple(
    fc.constantFrom("postgres", "redis", "https"),
    fc.oneof(fc.constant(""), alnum(1, 6)),
    urlPassword,
    fc.constantFrom("/", "#", "?"),
    alnum(0, 6),
  ).map(([scheme, user, [head, tail], delimiter, rest]) =>
    `${scheme}://${user}:${head}${tail}${delimiter}${rest}@db.internal/app`
  ),
  // Connection strings: ADO.NET/ODBC/Azure (`;`), libpq (blanks), JDBC query strings.
  fc.tuple(settingKey, fc.constantFrom("", " "), fc.constantFrom("", "'", '"'), password).map(
    ([key, blank, quote, pass]) => `Server=db;Database=app;${key}${blank}=${blank}${quote}${pass}${quote};Encrypt=true`,
  ),
  fc.tuple(settingKey, password).map(([key, pass]) => `host=db user=app ${key}=${pass} dbname=app`),
  password.map((pass) => `jdbc:postgresql://db/app?user=app&password=${pass}`),
  // JVM system properties.
  fc.tuple(fc.constantFrom("javax.net.ssl.trustStore", "javax.net.ssl.keyStore", "http.proxy", "db."), password)
    .map(([property, pass]) => `-Xmx1g -D${property}Password=${pass} -Dfile.encoding=UTF-8`),
  // Authorization: the header with any credentials; bare Basic `user:pass`; bare Bearer with a digit.
  fc.tuple(anyCase(fc.constantFrom("Basic", "Bearer")), alnum(1, 20))
    .map(([scheme, credentials]) => `Authorization: ${scheme} ${credentials}`),
  fc.tuple(alnum(0, 8), password).map(([user, pass]) => `Basic ${btoa(`${user}:${pass}`)}`),
  fc.tuple(alnum(4, 20), fc.integer({ min: 0, max: 9 }), alnum(3, 20))
    .map(([head, digit, tail]) => `Bearer ${head}${digit}${tail}`),
  // The token formats added with the grown rules.
  alnum(20, 30).map((rest) => `glpat-${rest}`),
  alnum(36, 36).map((rest) => `npm_${rest}`),
  alnum(34, 34).map((rest) => `hf_${rest}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), alnum(8, 40)).map(([version, rest]) => `xapp-${version}-${rest}`),
  fc.tuple(fc.constantFrom("sk", "rk"), alnum(24, 99)).map(([kind, rest]) => `${kind}_live_${rest}`),
  alnum(24, 95).map((rest) => `hvs.${rest}`),
  alnum(20, 150).map((rest) => `ya29.${rest}`),
  fc.tuple(alnum(8, 11), alnum(8, 11), alnum(24, 24))
    .map(([team, bot, secret]) => `https://hooks.slack.com/services/T${team}/B${bot}/${secret}`),
  alnum(36, 40).map((rest) => `ghp_${rest}`),
  alnum(22, 30).map((rest) => `github_pat_${rest}`),
  fc.tuple(fc.integer({ min: 1, max: 1e9 }), alnum(10, 20)).map(([id, rest]) => `xoxb-${id}-${rest}`),
  alnum(16, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").map((rest) => `AKIA${rest}`),
  alnum(35, 35).map((rest) => `AIza${rest}`),
  alnum(17, 40).map((rest) => `sk-aB3${rest}`),
  fc.tuple(alnum(4, 20), alnum(4, 20), alnum(8, 30)).map(([h, p, s]) => `eyJ${h}.eyJ${p}.${s}`),
  alnum(20, 40).map((body) => `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`),
);
/** A secret on its own, or inside other text (`--db=postgres://u:p@h`-style). */
const secretValue = fc.oneof(
  secretToken,
  fc.tuple(ordinaryValue, secretToken, ordinaryValue).map(([a, token, b]) => `${a} ${token} ${b}`),
);

interface AmbientEntry {
  name: string;
  kind: NameKind;
  value: string | undefined;
  secretValue: boolean;
}

const ambientEntry: fc.Arbitrary<AmbientEntry> = fc.constantFrom<NameKind>(
  "safe",
  "safe",
  "credential",
  "managed",
  "override",
).chain((kind) =>
  fc.tuple(
    namesOf[kind],
    fc.oneof(
      { arbitrary: ordinaryValue.map((v) => ({ value: v as string | undefined, secret: false })), weight: 3 },
      { arbitrary: secretValue.map((v) => ({ value: v as string | undefined, secret: true })), weight: 2 },
      { arbitrary: fc.constant({ value: undefined as string | undefined, secret: false }), weight: 1 },
    ),
  ).map(([name, { value, secret }]) => ({ name, kind, value, secretValue: secret }))
);

interface EnvCase {
  ambient: AmbientEntry[];
  env: [string, string | undefined][];
  dshEnv: [string, string][];
}

const envCases: fc.Arbitrary<EnvCase> = fc.array(ambientEntry, { maxLength: 14 }).chain((entries) => {
  // The last entry of a name wins, as in the object built from them.
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const ambient = [...byName.values()];
  const known = ambient.map((entry) => entry.name);
  const anyName = fc.oneof(
    ...(known.length > 0 ? [fc.constantFrom(...known)] : []),
    namesOf.safe,
    namesOf.credential,
    namesOf.managed,
    namesOf.override,
  );
  const layerValue = fc.oneof(ordinaryValue, secretValue);
  const dshName = fc.oneof(
    safeWord.map((rest) => `DSH_${rest.toUpperCase()}`),
    ...(known.some((n) => n.startsWith("DSH_")) ? [fc.constantFrom(...known.filter((n) => n.startsWith("DSH_")))] : []),
  );
  return fc.record({
    ambient: fc.constant(ambient),
    env: fc.array(fc.tuple(anyName, fc.option(layerValue, { nil: undefined })), { maxLength: 6 }),
    dshEnv: fc.array(fc.tuple(dshName, layerValue), { maxLength: 3 }),
  });
});

type Source = "ambient" | "override" | "env" | "dshEnv";
type Reason = "credential-name" | "credential-value" | "managed" | "removed";

/** The oracle: the merge as the specification states it, with the scrub decided by how each entry was built. */
function expectedMerge(input: EnvCase): {
  kept: Map<string, { value: string; source: Source }>;
  dropped: Map<string, Reason>;
} {
  const kept = new Map<string, { value: string; source: Source }>();
  const dropped = new Map<string, Reason>();
  for (const entry of input.ambient) {
    if (entry.value === undefined) continue;
    const reason: Reason | undefined = entry.kind === "managed"
      ? "managed"
      : entry.kind === "credential"
      ? "credential-name"
      : entry.secretValue
      ? "credential-value"
      : undefined;
    if (reason === undefined) kept.set(entry.name, { value: entry.value, source: "ambient" });
    else dropped.set(entry.name, reason);
  }
  const set = (name: string, value: string, source: Source) => {
    kept.set(name, { value, source });
    dropped.delete(name);
  };
  for (const [name, value] of Object.entries(ENV_OVERRIDES)) set(name, value, "override");
  for (const [name, value] of new Map(input.env)) {
    if (value !== undefined) set(name, value, "env");
    else if (kept.delete(name)) dropped.set(name, "removed");
  }
  for (const [name, value] of new Map(input.dshEnv)) set(name, value, "dshEnv");
  return { kept, dropped };
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

describe("property: mergeEnv and explainEnv", () => {
  it("hold the scrub, the layer order and the explanation's invariants", () => {
    fc.assert(
      fc.property(envCases, (input) => {
        const ambient = Object.fromEntries(input.ambient.map((entry) => [entry.name, entry.value]));
        const env = Object.fromEntries(input.env);
        const dshEnv = Object.fromEntries(input.dshEnv);
        const snapshot = JSON.stringify([ambient, env, dshEnv].map((layer) => Object.entries(layer)));
        const merged = mergeEnv({ ambient, env, dshEnv });
        const explained: EnvExplanation = explainEnv({ ambient, env, dshEnv });
        assert.equal(
          JSON.stringify([ambient, env, dshEnv].map((layer) => Object.entries(layer))),
          snapshot,
          "no input is modified",
        );

        // Names are compared as own keys only: "constructor" is `in` every object.
        const has = (record: object, name: string): boolean => Object.hasOwn(record, name);
        const envSet = new Map<string, string>();
        const envRemoved = new Set<string>();
        for (const [name, value] of Object.entries(env)) {
          if (value === undefined) envRemoved.add(name);
          else envSet.set(name, value);
        }
        const explicitValues = new Set([...Object.values(env), ...Object.values(dshEnv)]);

        // 1. A scrubbed ambient entry never survives unless passed in env or dshEnv.
        for (const entry of input.ambient) {
          if (entry.value === undefined) continue;
          const scrubbed = entry.kind === "managed" || entry.kind === "credential" || entry.secretValue;
          if (!scrubbed) continue;
          if (!envSet.has(entry.name) && !has(dshEnv, entry.name)) {
            if (has(ENV_OVERRIDES, entry.name) && !envRemoved.has(entry.name)) {
              assert.equal(merged[entry.name], ENV_OVERRIDES[entry.name], `${entry.name} holds the override`);
            } else assert.ok(!has(merged, entry.name), `scrubbed ${entry.name} survived`);
          }
          // A secret value is scrubbed under any name: it reaches the child only when passed explicitly.
          if (entry.secretValue && !explicitValues.has(entry.value)) {
            assert.ok(
              !Object.values(merged).includes(entry.value),
              `the scrubbed value of ${entry.name} reached the environment`,
            );
          }
        }
        // 2. dshEnv always wins.
        for (const [name, value] of Object.entries(dshEnv)) assert.equal(merged[name], value, `dshEnv ${name}`);
        // 3. env beats the overrides and ambient; undefined removes.
        for (const [name, value] of envSet) {
          if (!has(dshEnv, name)) assert.equal(merged[name], value, `env ${name}`);
        }
        for (const name of envRemoved) {
          if (!has(dshEnv, name)) assert.ok(!has(merged, name), `env removed ${name}`);
        }
        // 4. The overrides beat ambient.
        for (const [name, value] of Object.entries(ENV_OVERRIDES)) {
          if (!envSet.has(name) && !envRemoved.has(name) && !has(dshEnv, name)) {
            assert.equal(merged[name], value, `override ${name}`);
          }
        }
        // 5. The whole result, and the explanation, equal the oracle's.
        const expected = expectedMerge(input);
        assert.deepEqual(
          Object.entries(merged).sort(([a], [b]) => byCodeUnit(a, b)),
          [...expected.kept].map(([name, { value }]) => [name, value] as [string, string]).sort(([a], [b]) =>
            byCodeUnit(a, b)
          ),
          "mergeEnv equals the specification's merge",
        );
        const entryNames = explained.entries.map((entry) => entry.name);
        assert.deepEqual(entryNames, Object.keys(merged).sort(byCodeUnit), "entries are exactly the final names");
        assert.deepEqual(entryNames, [...entryNames].sort(byCodeUnit), "entries are sorted by name");
        for (const entry of explained.entries) {
          assert.deepEqual(Object.keys(entry).sort(), ["name", "source"], "an entry holds a name and a source only");
          assert.equal(entry.source, expected.kept.get(entry.name)?.source, `source of ${entry.name}`);
          if (entry.source === "ambient") assert.equal(merged[entry.name], ambient[entry.name]);
          if (entry.source === "dshEnv") assert.ok(has(dshEnv, entry.name));
        }
        assert.deepEqual(
          explained.dropped.map(({ name, reason }) => [name, reason]),
          [...expected.dropped].sort(([a], [b]) => byCodeUnit(a, b)),
          "dropped names and reasons",
        );
        for (const entry of explained.dropped) {
          assert.deepEqual(Object.keys(entry).sort(), ["name", "reason"], "a dropped entry holds a name and a reason");
          assert.ok(!has(merged, entry.name), `${entry.name} is both dropped and kept`);
        }
        const text = JSON.stringify(explained);
        for (const entry of input.ambient) {
          if (entry.secretValue && entry.value !== undefined) {
            assert.ok(!text.includes(JSON.stringify(entry.value)), "the explanation holds a secret value");
          }
        }
      }),
      fastCheckRuns(1_000),
    );
  });
});

// ---------------------------------------------------------------------------
// Output capture
// ---------------------------------------------------------------------------

/** Text pieces: ASCII, 2-, 3- and 4-byte characters, newlines, and marker look-alikes. */
const TEXT_PIECES = ["a", "Z", "7", " ", "\n", "é", "ß", "€", "中", "😀", "𝄞", "[... ", "]"];
const codePoint = fc.integer({ min: 0, max: 0x10ffff })
  .filter((c) => (c < 0xd800 || c > 0xdfff) && c !== 0xfffd)
  .map((c) => String.fromCodePoint(c));
const validText = (maxPieces: number) =>
  fc.array(
    fc.oneof({ arbitrary: fc.constantFrom(...TEXT_PIECES), weight: 4 }, { arbitrary: codePoint, weight: 1 }),
    { maxLength: maxPieces },
  ).map((parts) => parts.join(""));

/** Byte runs that meet every kind of UTF-8 boundary, valid and not. */
const TRICKY_BYTES = [
  [0xf0, 0x90, 0x80, 0x80], // U+10000
  [0xe2, 0x82, 0xac], // €
  [0xe2, 0x82], // a cut-off €
  [0xf0, 0x90], // a cut-off 4-byte character
  [0xed, 0xa0, 0x80], // an encoded surrogate (invalid)
  [0xc0, 0xaf], // an overlong encoding (invalid)
  [0xff],
  [0xef, 0xbf, 0xbd], // U+FFFD itself, as input
].map((bytes) => new Uint8Array(bytes));

const rawBytes = (maxParts: number) =>
  fc.array(
    fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.uint8Array({ minLength: 1, maxLength: 7, min: 0x80, max: 0xbf }), // runs of continuation bytes
      fc.constantFrom(...TRICKY_BYTES),
      validText(4).map((text) => encoder.encode(text)),
    ),
    { maxLength: maxParts },
  ).map(concatBytes);

interface CaptureCase {
  stream: Uint8Array;
  valid: boolean;
  budget: number;
  maxSpillBytes: number;
  cuts: number[];
}

function captureCases(valid: boolean): fc.Arbitrary<CaptureCase> {
  const streams = valid
    ? fc.oneof(validText(60), validText(600)).map((text) => encoder.encode(text))
    : fc.oneof(rawBytes(20), rawBytes(200));
  return fc.record({
    stream: streams,
    budget: fc.oneof(fc.integer({ min: 1, max: 48 }), fc.integer({ min: 49, max: 1_500 })),
    maxSpillBytes: fc.oneof(
      { arbitrary: fc.constant(1 << 30), weight: 4 },
      { arbitrary: fc.integer({ min: 1, max: 3_000 }), weight: 1 },
      // 0: no spill file at all.
      { arbitrary: fc.constant(0), weight: 1 },
    ),
    rawCuts: fc.array(fc.nat(), { maxLength: 24 }),
  }).map(({ stream, budget, maxSpillBytes, rawCuts }) => ({
    stream,
    valid,
    budget,
    maxSpillBytes,
    cuts: [...new Set(rawCuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b),
  }));
}

const utf8Length = (text: string): number => encoder.encode(text).length;

/**
 * Feeds the stream in the given chunks through one reused buffer (as the
 * adapters lend chunks) and checks the result against the stream.
 */
function checkCapture(input: CaptureCase, spillDir: string): void {
  const { stream, budget, maxSpillBytes } = input;
  const collector = new OutputCollector({ budget, maxSpillBytes, spillDirectory: () => spillDir, label: "stdout" });
  const scratch = new Uint8Array(Math.max(1, stream.length));
  let from = 0;
  for (const to of [...input.cuts, stream.length]) {
    if (to > from) {
      const lent = scratch.subarray(0, to - from);
      lent.set(stream.subarray(from, to));
      collector.write(lent);
      lent.fill(0xaa);
    }
    from = to;
  }
  const out = collector.finish();
  const decoded = decoder.decode(stream);
  try {
    assert.equal(out.totalBytes, stream.length, "totalBytes");
    if (input.valid) assert.ok(!out.text.includes("\ufffd"), "valid UTF-8 never shows U+FFFD");
    if (stream.length <= budget) {
      assert.equal(out.truncated, false);
      assert.equal(out.text, decoded, "a stream within its budget comes back whole");
      assert.equal(out.spillPath, undefined);
      assert.deepEqual(readdirSync(spillDir), [], "no spill file for a stream within its budget");
      return;
    }
    assert.equal(out.truncated, true);
    // The spill file is the stream, byte for byte, unless the stream passed maxSpillBytes.
    const spillKept = stream.length <= maxSpillBytes;
    let where: string;
    if (spillKept) {
      assert.ok(out.spillPath !== undefined, "a spill path");
      assert.equal(dirname(out.spillPath), spillDir);
      assert.deepEqual(readdirSync(spillDir), [basename(out.spillPath)], "exactly one spill file");
      assert.ok(Buffer.compare(readFileSync(out.spillPath), stream) === 0, "the spill file is the stream");
      assert.equal(statSync(out.spillPath).mode & 0o777, 0o600);
      where = `full output: ${out.spillPath}`;
    } else {
      assert.equal(out.spillPath, undefined, "no spill path past maxSpillBytes");
      assert.deepEqual(readdirSync(spillDir), [], "the spill file is deleted past maxSpillBytes");
      where = maxSpillBytes === 0
        ? "full output unavailable (not kept: maxSpillBytes is 0)"
        : "full output unavailable (over maxSpillBytes)";
    }
    // Head, marker line, tail.
    const end = out.text.lastIndexOf(`; ${where}]\n`);
    assert.ok(end >= 0, `the marker line: ${JSON.stringify(out.text.slice(0, 200))}`);
    const start = out.text.lastIndexOf("[... ", end);
    const count = out.text.slice(start + 5, end).match(/^(\d+) bytes omitted$/);
    assert.ok(start >= 0 && count !== null, "the marker gives the omitted byte count");
    const omitted = Number(count[1]);
    const markerLine = out.text.slice(start, end + where.length + 4);
    const before = out.text.slice(0, start);
    const tail = out.text.slice(start + markerLine.length);
    // The head is the decoded first k bytes, cut back by at most 3 to a
    // character boundary; the tail the decoded last t bytes, likewise. Only
    // the head's floor(budget / 2) bytes and the tail's rest are ever held.
    const headLimit = Math.floor(budget / 2);
    const tailLimit = budget - headLimit;
    const heads: number[] = [];
    for (let k = Math.max(0, headLimit - 3); k <= headLimit; k++) {
      const head = decoder.decode(stream.subarray(0, k));
      const separator = head === "" || head.endsWith("\n") ? "" : "\n";
      if (before === head + separator) heads.push(k);
    }
    const tails: number[] = [];
    for (let t = Math.max(0, tailLimit - 3); t <= tailLimit; t++) {
      if (decoder.decode(stream.subarray(stream.length - t)) === tail) tails.push(t);
    }
    assert.ok(heads.length > 0, `the head is the stream's first bytes: ${JSON.stringify(before)}`);
    assert.ok(tails.length > 0, `the tail is the stream's last bytes: ${JSON.stringify(tail)}`);
    const heldHeads = heads.filter((k) => tails.some((t) => k + omitted + t === stream.length));
    assert.ok(heldHeads.length > 0, "head + omitted + tail = the stream, byte for byte");
    // No U+FFFD that the input did not have: the parts are a prefix and a suffix of the decoded stream.
    assert.ok(
      heldHeads.some((k) => decoded.startsWith(decoder.decode(stream.subarray(0, k)))),
      `the head is a prefix of the decoded stream: ${JSON.stringify(before)}`,
    );
    assert.ok(decoded.endsWith(tail), `the tail is a suffix of the decoded stream: ${JSON.stringify(tail)}`);
    // Memory: the text is the budget's bytes plus one marker line (and one newline before it).
    const shown = out.text.length - markerLine.length;
    assert.ok(shown <= budget + 1, `${shown} UTF-16 units shown for a budget of ${budget}`);
    if (input.valid) {
      assert.ok(utf8Length(out.text) <= budget + utf8Length(markerLine) + 1, "text bytes within budget + marker");
    }
  } finally {
    if (out.spillPath !== undefined) rmSync(out.spillPath, { force: true });
  }
}

describe("property: output capture over random streams and chunkings", () => {
  let spillDir: string;

  before(() => {
    spillDir = freshDir("dsh-prop-capture-");
  });

  after(() => {
    removeDir(spillDir);
  });

  it("valid UTF-8 text: exact head + tail + spill, no U+FFFD at all, memory within the budget", () => {
    fc.assert(fc.property(captureCases(true), (input) => checkCapture(input, spillDir)), fastCheckRuns(600));
  });

  it("raw bytes: exact head + tail + spill, no U+FFFD beyond the input's own, memory within the budget", () => {
    fc.assert(fc.property(captureCases(false), (input) => checkCapture(input, spillDir)), fastCheckRuns(600));
  });

  it("a tail that starts inside a run of 4+ continuation bytes shows no U+FFFD the stream does not have", () => {
    // "aaaaaa", U+10000 (f0 90 80 80), one stray continuation byte. A budget
    // of 8 keeps 4 head bytes and the last 4 bytes, which start at 0x90: the
    // tail must skip the three bytes that belong to U+10000 and show one
    // U+FFFD (the stray byte), as the decoded stream does, not four.
    const stream = new Uint8Array([0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xf0, 0x90, 0x80, 0x80, 0x80]);
    checkCapture({ stream, valid: false, budget: 8, maxSpillBytes: 1 << 30, cuts: [] }, spillDir);
  });
});
