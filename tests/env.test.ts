import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DSH_ENV_PREFIX,
  ENV_OVERRIDES,
  explainEnv,
  isCredentialName,
  isCredentialValue,
  mergeEnv,
  scrubEnv,
} from "../src/seam/mod.ts";
import { SPEC_MUST_SCRUB_NAMES, SPEC_MUST_SURVIVE_NAMES } from "./helpers/spec_env.ts";

// Fake secrets are assembled from pieces so that no secret-shaped literal
// sits in the repository for scanners to flag.
const ALNUM = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
const UPPER_DIGITS = "QW3ERT5YU7IOP9ASD2FGH4JKL6ZXC8VB";
const B64URL = "Ab-Cd_Ef0Gh1Ij2Kl3Mn4Op5Qr6St7Uv8";

function fill(length: number, alphabet = ALNUM): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[(i * 7) % alphabet.length];
  return out;
}

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const FAKE = {
  githubClassic: ["gh", "p_"].join("") + fill(36),
  githubOauth: ["gh", "o_"].join("") + fill(36),
  githubServer: ["gh", "s_"].join("") + fill(36),
  githubFineGrained: ["github", "_pat_"].join("") + fill(22) + "_" + fill(59),
  slack: ["xo", "xb-"].join("") + "1234567890-0987654321-" + fill(24),
  awsAccessKey: ["AK", "IA"].join("") + fill(16, UPPER_DIGITS),
  awsTemporaryKey: ["AS", "IA"].join("") + fill(16, UPPER_DIGITS),
  openai: ["s", "k-proj-"].join("") + fill(48),
  anthropic: ["s", "k-ant-api03-"].join("") + fill(93, B64URL) + "AA",
  google: ["AI", "za"].join("") + fill(35, B64URL),
  jwt: [
    base64url(JSON.stringify({ alg: "HS256", typ: "JWT" })),
    base64url(JSON.stringify({ sub: "1234567890" })),
    fill(43, B64URL),
  ].join("."),
  pem: ["-----BEGIN RSA PRIVATE", " KEY-----\n"].join("") + fill(64) +
    "\n-----END RSA PRIVATE KEY-----\n",
  opensshPem: ["-----BEGIN OPENSSH PRIVATE", " KEY-----\n"].join("") +
    fill(70) + "\n-----END OPENSSH PRIVATE KEY-----",
  urlPassword: ["postgres://app:", "hunter2", "@db:5432/app"].join(""),
  urlEmptyUser: ["redis://:", "s3cr3t-pw", "@cache:6379/0"].join(""),
} as const;

const HARMLESS = "harmless-value";

const MUST_SCRUB_BY_NAME = SPEC_MUST_SCRUB_NAMES;

const MUST_SCRUB_AS_MANAGED = ["DSH_ANYTHING", "dsh_x", "Dsh_Y"];

const MUST_SURVIVE = SPEC_MUST_SURVIVE_NAMES;

function reasonFor(
  ambient: Record<string, string | undefined>,
  name: string,
): string | undefined {
  return explainEnv({ ambient }).dropped.find((d) => d.name === name)?.reason;
}

function sourceFor(
  input: Parameters<typeof explainEnv>[0],
  name: string,
): string | undefined {
  return explainEnv(input).entries.find((e) => e.name === name)?.source;
}

describe("constants", () => {
  it("DSH_ENV_PREFIX is DSH_", () => {
    assert.equal(DSH_ENV_PREFIX, "DSH_");
  });

  it("ENV_OVERRIDES holds exactly the five entries and is frozen", () => {
    assert.deepEqual({ ...ENV_OVERRIDES }, {
      NO_COLOR: "1",
      TERM: "dumb",
      PAGER: "cat",
      GIT_PAGER: "cat",
      GIT_TERMINAL_PROMPT: "0",
    });
    assert.equal(Object.isFrozen(ENV_OVERRIDES), true);
  });
});

describe("isCredentialName", () => {
  for (
    const name of [
      "TOKENIZERS_PARALLELISM",
      "KEYBOARD_LAYOUT",
      "MONKEY_PATCH",
      "GIT_ASKPASS",
      "OLDPWD",
      "GIT_AUTHOR_NAME",
      "PWD",
      "AUTHOR",
      "KEYCHAIN_PATH",
      "",
    ]
  ) {
    it(`a substring is not a word: ${JSON.stringify(name)} survives`, () => {
      assert.equal(isCredentialName(name), false);
    });
  }

  for (
    const name of [
      "PGPASSWORD",
      "AUTHTOKEN",
      "MY_APIKEY",
      "api-key",
      "x.secret",
      "MYSQL_PWD",
      "pwd",
      "__KEY__",
      "SESSION_COOKIE",
      "REGISTRY_CREDS",
      "GITHUBTOKENS",
      "ssh-keys",
    ]
  ) {
    it(`a whole word or a secret ending counts: ${name} is scrubbed`, () => {
      assert.equal(isCredentialName(name), true);
    });
  }
});

describe("isCredentialValue", () => {
  for (const [kind, secret] of Object.entries(FAKE)) {
    it(`recognises a ${kind} value, alone and inside a longer value`, () => {
      assert.equal(isCredentialValue(secret), true);
      assert.equal(isCredentialValue(`--flag=${secret} --other`), true);
    });
  }

  it("finds a URL password inside a quoted option", () => {
    const value = ['--db="postgres://u:', "p", '@h/db"'].join("");
    assert.equal(isCredentialValue(value), true);
  });

  for (
    const value of [
      "postgres://db:5432/app",
      "postgres://app@db:5432/app",
      "http://user:@host/path",
      "https://example.com/path?next=a:b@c",
      "ssh://git@github.com/org/repo.git",
      "git@github.com:org/repo.git",
      "mailto:someone@example.com",
      "://:p@h",
      "sk-learn",
      "skip",
      "sk-learn-scikit-learn-extras-2024",
      "sk-ScikitLearn-Extras-Package",
      ["gh", "p_"].join("") + "short",
      ["AK", "IA"].join("") + fill(15, UPPER_DIGITS),
      ["AK", "IA"].join("") + fill(17, UPPER_DIGITS),
      ["AI", "za"].join("") + fill(34, B64URL),
      "xoxo-hugs-and-kisses-forever",
      base64url(JSON.stringify({ alg: "none" })),
      base64url(JSON.stringify({ alg: "none" })) + ".eyJ.",
      "-----BEGIN PUBLIC KEY-----",
      "-----BEGIN CERTIFICATE-----",
      "/usr/local/bin:/usr/bin:/bin",
      "en_US.UTF-8",
      "",
    ]
  ) {
    it(`leaves an ordinary value alone: ${JSON.stringify(value)}`, () => {
      assert.equal(isCredentialValue(value), false);
    });
  }

  it("answers correctly on megabyte-sized pathological values", () => {
    const n = 1_000_000;
    const values = [
      "a".repeat(n) + "://",
      "://".repeat(n / 3),
      "x://" + "a:".repeat(n / 2),
      "eyJ" + "a".repeat(n) + ".eyJ" + "a".repeat(n) + ".",
      "sk-" + "a".repeat(n),
      "xoxb-" + "1".repeat(n),
      "-----BEGIN ".repeat(n / 11),
      "gh" + "p_".repeat(n / 2),
      "AKIA".repeat(n / 4),
      "AIza".repeat(n / 4),
    ];
    // No timing is asserted (timings belong in benchmarks), but quadratic
    // work on these inputs would take minutes and stall the suite visibly.
    for (const value of values) assert.equal(isCredentialValue(value), false);
  });
});

describe("scrubEnv", () => {
  for (const name of MUST_SCRUB_BY_NAME) {
    it(`scrubs ${name} by its name`, () => {
      const ambient = { [name]: HARMLESS, PATH: "/usr/bin" };
      assert.deepEqual(scrubEnv(ambient), { PATH: "/usr/bin" });
      assert.equal(isCredentialName(name), true);
      assert.equal(reasonFor(ambient, name), "credential-name");
    });
  }

  for (const name of MUST_SCRUB_AS_MANAGED) {
    it(`scrubs ${name} as managed (DSH_ prefix, any case)`, () => {
      const ambient = { [name]: HARMLESS, PATH: "/usr/bin" };
      assert.deepEqual(scrubEnv(ambient), { PATH: "/usr/bin" });
      assert.equal(reasonFor(ambient, name), "managed");
    });
  }

  it("calls a managed name managed even when it is credential-shaped", () => {
    assert.equal(reasonFor({ DSH_TOKEN: HARMLESS }, "DSH_TOKEN"), "managed");
  });

  it("matches only the DSH_ prefix, not lookalikes", () => {
    const ambient = { DSHX_A: "1", XDSH_B: "2", DSH: "3", MY_DSH_C: "4" };
    assert.deepEqual(scrubEnv(ambient), ambient);
  });

  for (const name of MUST_SURVIVE) {
    it(`keeps ${name}`, () => {
      assert.deepEqual(scrubEnv({ [name]: HARMLESS }), { [name]: HARMLESS });
      assert.equal(isCredentialName(name), false);
    });
  }

  it("scrubs DATABASE_URL holding a password, keeps it without one", () => {
    assert.deepEqual(scrubEnv({ DATABASE_URL: FAKE.urlPassword }), {});
    assert.equal(
      reasonFor({ DATABASE_URL: FAKE.urlPassword }, "DATABASE_URL"),
      "credential-value",
    );
    const plain = { DATABASE_URL: "postgres://db:5432/app" };
    assert.deepEqual(scrubEnv(plain), plain);
  });

  for (const [kind, secret] of Object.entries(FAKE)) {
    it(`scrubs an innocuous name whose value is a ${kind}`, () => {
      const ambient = { SOME_SETTING: secret, HOME: "/home/u" };
      assert.deepEqual(scrubEnv(ambient), { HOME: "/home/u" });
      assert.equal(reasonFor(ambient, "SOME_SETTING"), "credential-value");
    });
  }

  it("drops undefined values without reporting them", () => {
    const ambient = { GONE: undefined, HOME: "/home/u" };
    assert.deepEqual(scrubEnv(ambient), { HOME: "/home/u" });
    const report = explainEnv({ ambient });
    assert.equal(report.entries.some((e) => e.name === "GONE"), false);
    assert.equal(report.dropped.some((d) => d.name === "GONE"), false);
  });

  it("does not mutate its input and returns a new object", () => {
    const ambient = { HOME: "/home/u", NPM_TOKEN: HARMLESS, dsh_x: "1" };
    const before = { ...ambient };
    const out = scrubEnv(ambient);
    assert.deepEqual(ambient, before);
    assert.notEqual(out, ambient);
  });
});

describe("mergeEnv order", () => {
  it("adds the overrides to an empty ambient environment", () => {
    assert.deepEqual(mergeEnv({ ambient: {} }), { ...ENV_OVERRIDES });
  });

  it("overrides replace ambient values", () => {
    const out = mergeEnv({
      ambient: { TERM: "xterm-256color", PAGER: "less" },
    });
    assert.equal(out.TERM, "dumb");
    assert.equal(out.PAGER, "cat");
    assert.equal(
      sourceFor({ ambient: { TERM: "xterm-256color" } }, "TERM"),
      "override",
    );
  });

  it("env replaces an override, and the source is env", () => {
    const input = { ambient: {}, env: { TERM: "xterm" } };
    assert.equal(mergeEnv(input).TERM, "xterm");
    assert.equal(sourceFor(input, "TERM"), "env");
    assert.equal(ENV_OVERRIDES.TERM, "dumb");
  });

  it("explicit env wins over the scrub, by name and by value", () => {
    const input = {
      ambient: { GITHUB_TOKEN: FAKE.githubClassic, DATABASE_URL: "x" },
      env: { GITHUB_TOKEN: "explicit", DATABASE_URL: FAKE.urlPassword },
    };
    const out = mergeEnv(input);
    assert.equal(out.GITHUB_TOKEN, "explicit");
    assert.equal(out.DATABASE_URL, FAKE.urlPassword);
    const report = explainEnv(input);
    assert.equal(sourceFor(input, "GITHUB_TOKEN"), "env");
    assert.equal(report.dropped.some((d) => d.name === "GITHUB_TOKEN"), false);
  });

  it("env may set DSH_* names, and dshEnv beats env", () => {
    const input = {
      ambient: { DSH_X: "ambient" },
      env: { DSH_X: "from-env", dsh_y: "from-env" },
      dshEnv: { DSH_X: "managed" },
    };
    const out = mergeEnv(input);
    assert.equal(out.DSH_X, "managed");
    assert.equal(out.dsh_y, "from-env");
    assert.equal(sourceFor(input, "DSH_X"), "dshEnv");
    assert.equal(sourceFor(input, "dsh_y"), "env");
  });

  it("an ambient DSH_* replaced by dshEnv is an entry, not a drop", () => {
    const input = { ambient: { DSH_S: "stale" }, dshEnv: { DSH_S: "fresh" } };
    const report = explainEnv(input);
    assert.deepEqual(report.entries.find((e) => e.name === "DSH_S"), {
      name: "DSH_S",
      source: "dshEnv",
    });
    assert.equal(report.dropped.some((d) => d.name === "DSH_S"), false);
    assert.equal(mergeEnv(input).DSH_S, "fresh");
  });

  it("undefined in env removes ambient entries and overrides", () => {
    const input = {
      ambient: { EDITOR: "vim", HOME: "/home/u" },
      env: { EDITOR: undefined, PAGER: undefined },
    };
    const out = mergeEnv(input);
    assert.equal(Object.hasOwn(out, "EDITOR"), false);
    assert.equal(Object.hasOwn(out, "PAGER"), false);
    assert.equal(out.HOME, "/home/u");
    const report = explainEnv(input);
    assert.deepEqual(report.dropped, [
      { name: "EDITOR", reason: "removed" },
      { name: "PAGER", reason: "removed" },
    ]);
  });

  it("removing an already-scrubbed or unknown name keeps the report exact", () => {
    const report = explainEnv({
      ambient: { NPM_TOKEN: HARMLESS },
      env: { NPM_TOKEN: undefined, NEVER_SET: undefined },
    });
    assert.deepEqual(report.dropped, [
      { name: "NPM_TOKEN", reason: "credential-name" },
    ]);
    assert.equal(report.entries.some((e) => e.name === "NEVER_SET"), false);
  });

  it("dshEnv wins even when env removes the same name", () => {
    const out = mergeEnv({
      ambient: {},
      env: { DSH_Z: undefined },
      dshEnv: { DSH_Z: "z" },
    });
    assert.equal(out.DSH_Z, "z");
  });

  it("mutates none of its inputs", () => {
    const ambient = { HOME: "/h", GH_TOKEN: HARMLESS, TERM: "xterm" };
    const env = { TERM: undefined, EXTRA: "1" };
    const dshEnv = { DSH_A: "a" };
    const copies = [{ ...ambient }, { ...env }, { ...dshEnv }];
    const out = mergeEnv({ ambient, env, dshEnv });
    assert.deepEqual([ambient, env, dshEnv], copies);
    assert.equal(Object.hasOwn(env, "TERM"), true);
    out.HOME = "changed";
    assert.equal(ambient.HOME, "/h");
    assert.equal(mergeEnv({ ambient }).HOME, "/h");
  });

  it("treats prototype names as ordinary variables", () => {
    const ambient: Record<string, string> = JSON.parse(
      '{"__proto__":"p","constructor":"c","toString":"t","hasOwnProperty":"h"}',
    );
    const out = mergeEnv({ ambient, env: { toString: undefined } });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(Object.hasOwn(out, "__proto__"), true);
    assert.equal(Object.getOwnPropertyDescriptor(out, "__proto__")?.value, "p");
    assert.equal(
      Object.getOwnPropertyDescriptor(out, "constructor")?.value,
      "c",
    );
    assert.equal(Object.hasOwn(out, "toString"), false);
    assert.equal(
      Object.hasOwn(mergeEnv({ ambient: {} }), "constructor"),
      false,
    );
    const report = explainEnv({ ambient, env: { toString: undefined } });
    assert.equal(sourceFor({ ambient }, "__proto__"), "ambient");
    assert.deepEqual(report.dropped, [{ name: "toString", reason: "removed" }]);
  });
});

describe("explainEnv", () => {
  const ambient: Record<string, string | undefined> = {
    ZED: "zed-value-marker",
    HOME: "/home/marker-user",
    GITHUB_TOKEN: FAKE.githubClassic,
    dsh_x: "managed-marker",
    TERM: "xterm-marker",
    EDITOR: "editor-marker",
  };
  // Index-based names: a name built from the kind (`urlPassword`) would
  // itself be credential-shaped and be dropped for the wrong reason.
  Object.values(FAKE).forEach((secret, i) => {
    ambient[`SETTING_${i}`] = secret;
  });
  const input = {
    ambient,
    env: {
      EDITOR: undefined,
      EXPLICIT: "explicit-marker",
      TERM: "term-marker",
    },
    dshEnv: { DSH_SESSION: "session-marker" },
  };

  it("names every entry with its source and every drop with its reason", () => {
    const report = explainEnv(input);
    assert.deepEqual(report.entries, [
      { name: "DSH_SESSION", source: "dshEnv" },
      { name: "EXPLICIT", source: "env" },
      { name: "GIT_PAGER", source: "override" },
      { name: "GIT_TERMINAL_PROMPT", source: "override" },
      { name: "HOME", source: "ambient" },
      { name: "NO_COLOR", source: "override" },
      { name: "PAGER", source: "override" },
      { name: "TERM", source: "env" },
      { name: "ZED", source: "ambient" },
    ]);
    assert.deepEqual(report.dropped, [
      { name: "EDITOR", reason: "removed" },
      { name: "GITHUB_TOKEN", reason: "credential-name" },
      ...Object.keys(FAKE).map((_, i) => ({
        name: `SETTING_${i}`,
        reason: "credential-value",
      })).sort((a, b) => (a.name < b.name ? -1 : 1)),
      { name: "dsh_x", reason: "managed" },
    ]);
  });

  it("agrees with mergeEnv on the final names", () => {
    const names = explainEnv(input).entries.map((e) => e.name);
    assert.deepEqual(names, Object.keys(mergeEnv(input)));
  });

  it("holds no value at all, secret or not, and survives JSON", () => {
    const report = explainEnv(input);
    const json = JSON.stringify(report);
    const values = [
      ...Object.values(input.ambient),
      ...Object.values(input.env),
      ...Object.values(input.dshEnv),
    ].filter((v): v is string => v !== undefined);
    assert.ok(values.length > Object.keys(FAKE).length);
    for (const value of values) {
      assert.equal(
        json.includes(value),
        false,
        `leaked a value of length ${value.length}`,
      );
    }
    for (const secret of Object.values(FAKE)) {
      assert.equal(json.includes(secret.slice(0, 12)), false);
    }
    assert.deepEqual(JSON.parse(json), report);
  });
});
