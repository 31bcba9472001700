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
} from "../src/seam/env/mod.ts";
import { DECIDED_SURVIVE_NAMES, SPEC_MUST_SCRUB_NAMES, SPEC_MUST_SURVIVE_NAMES } from "./helpers/spec_env.ts";

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
  // Unescaped `/`, `#`, `?` in a password: 1.0 ended the authority there.
  urlPasswordSlash: ["postgres://app:", "p/ss", "@db:5432/app"].join(""),
  urlPasswordHash: ["https://app:", "p#ss", "@example.com/x"].join(""),
  urlPasswordQuery: ["redis://:", "p?ss", "@cache:6379/0"].join(""),
  urlPasswordPortLike: ["ftp://u:", "12ab/cd", "@files.internal/"].join(""),
  adoNet: ["Server=db;Database=app;User Id=sa;", "Password=", "hunter2;"].join(""),
  odbc: ["DRIVER={ODBC Driver 18};SERVER=db;UID=sa;", "PWD=", "hunter2"].join(""),
  libpq: ["host=db user=app ", "password=", "hunter2 dbname=app"].join(""),
  libpqQuoted: ["host=db ", "password = ", "'hunter 2'"].join(""),
  jdbcQuery: ["jdbc:postgresql://db/app?user=app&", "password=", "hunter2"].join(""),
  azureStorage: [
    "DefaultEndpointsProtocol=https;AccountName=acct;",
    "AccountKey=",
    fill(64, B64URL),
    "==;EndpointSuffix=core.windows.net",
  ].join(""),
  azureServiceBus: [
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;",
    "SharedAccessKey=",
    fill(44, B64URL),
  ].join(""),
  azureSas: [
    "BlobEndpoint=https://acct.blob.core.windows.net/;",
    "sharedaccesssignature=",
    "sv=2022-11-02&ss=b&sig=",
    fill(20),
  ].join(""),
  jvmTrustStore: ["-Xmx1g -Djavax.net.ssl.trustStore", "Password=", "changeit2 -Dfoo=bar"].join(""),
  jvmSpring: ["-Dspring.datasource.", "password=", "hunter2"].join(""),
  cliOption: ["--user=root --", "password=", "hunter2"].join(""),
  authorizationHeader: ["Authorization: ", "Bearer ", "opaque"].join(""),
  basic: ["Basic ", btoa("app:hunter2")].join(""),
  basicApiKeyAsUser: ["basic ", btoa(["sk", "_live_", fill(24)].join("") + ":")].join(""),
  bearer: ["Bearer ", fill(32)].join(""),
  gitlab: ["gl", "pat-"].join("") + fill(20, B64URL),
  npm: ["np", "m_"].join("") + fill(36),
  huggingFace: ["h", "f_"].join("") + fill(34),
  slackApp: ["xa", "pp-"].join("") + "1-A0123456789-1234567890123-" + fill(64),
  slackWebhook: ["https://hooks.sl", "ack.com/services/"].join("") + "T0" + fill(8, UPPER_DIGITS) + "/B0" +
    fill(8, UPPER_DIGITS) + "/" + fill(24),
  stripeLive: ["sk", "_live_"].join("") + fill(99),
  stripeRestricted: ["rk", "_live_"].join("") + fill(24),
  vault: ["hv", "s."].join("") + fill(90, B64URL),
  googleOauth: ["ya", "29."].join("") + fill(120, B64URL),
} as const;

const HARMLESS = "harmless-value";

const MUST_SCRUB_BY_NAME = SPEC_MUST_SCRUB_NAMES;

const MUST_SCRUB_AS_MANAGED = ["DSH_ANYTHING", "dsh_x", "Dsh_Y"];

const MUST_SURVIVE = [...SPEC_MUST_SURVIVE_NAMES, ...DECIDED_SURVIVE_NAMES];

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
      "PATH",
      "PATCH_LEVEL",
      "PASSENGER_APP_ENV",
      "COMPASS_HOME",
      "SESSION_MANAGER",
      "PWD1X",
      "OP_SESSION",
      "BW_SESSIONS",
      "SSHPASS_HOST",
      "TOKENizer",
      "keyboardLayout",
      "PATH2",
      "123",
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

  for (
    const name of [
      "DB_PASS",
      "pass",
      "x.pw",
      "GITHUB_PAT",
      "pat-file",
      "PW",
      "PW1_X",
      "_PW",
      "TOKEN1",
      "API_KEY2",
      "PASS12",
      "GITHUBTOKEN2",
      "my_pwd3",
      "AUTH0_DOMAIN",
    ]
  ) {
    it(`the words PASS, PW, PAT, and a word followed by digits: ${name} is scrubbed`, () => {
      assert.equal(isCredentialName(name), true);
    });
  }

  for (
    const name of [
      "openaiKey",
      "privateKey",
      "dbPass",
      "adminPw",
      "githubPat",
      "apiKey2",
      "key2Value",
      "oauth2Token",
      "XMLHttpToken",
      "APIKey",
      "myAPIKey",
      "SessionCookie",
      "DB_adminPass",
    ]
  ) {
    it(`camelCase splits into words: ${name} is scrubbed`, () => {
      assert.equal(isCredentialName(name), true);
    });
  }

  for (
    const name of [
      "TS_AUTHKEY",
      "HONEYCOMB_WRITEKEY",
      "AWS_SECRETKEY",
      "SIGNING_PRIVATEKEY",
      "MY_SECRETKEYS",
    ]
  ) {
    it(`glued key words (AUTHKEY, WRITEKEY, SECRETKEY, PRIVATEKEY): ${name} is scrubbed`, () => {
      assert.equal(isCredentialName(name), true);
    });
  }

  for (
    const name of [
      "SSHPASS",
      "sshpass",
      "BW_SESSION",
      "FASTLANE_SESSION",
      "OP_SESSION_my",
      "op_session_team2",
      "OP_SESSION_",
    ]
  ) {
    it(`a tool's secret variable: ${name} is scrubbed`, () => {
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

  for (
    const value of [
      // Built from pieces so no scanner takes the fixture for a real secret.
      ["Authorization=Basic", "%20", btoa("12345:glc_abcdef")].join(""),
      ["authorization=Bearer", "%20", "abc123def456"].join(""),
      ["api-key=1,Authorization=Bearer", "%20", "tok3n-value-42"].join(""),
      ["Basic", "%20", btoa("user:pass")].join(""),
      ["postgres://app:it", "'s", "@db/app"].join(""),
      ["postgres://app:a", "`b", "@db/app"].join(""),
      ["postgres://app:a", "\\b", "@db/app"].join(""),
      ["postgres://app:a", '"b', "@db/app"].join(""),
      ["https://discord.com/api/webhooks/", "123456789012345678/", fill(68, B64URL)].join(""),
      ["https://discordapp.com/api/v10/webhooks/", "1234/", fill(40, B64URL)].join(""),
      ["sk-", "0123456789abcdef0123456789abcdef"].join(""),
      ["sk-", "a1".repeat(24)].join(""),
    ]
  ) {
    it(`recognises a secret the red team found: ${JSON.stringify(value.slice(0, 40))}`, () => {
      assert.equal(isCredentialValue(value), true);
      assert.equal(isCredentialValue(`x ${value} y`), true);
    });
  }

  it("finds a URL password inside a quoted option", () => {
    const value = ['--db="postgres://u:', "p", '@h/db"'].join("");
    assert.equal(isCredentialValue(value), true);
  });

  it("finds a password with / # ? in a URL nested after one without", () => {
    const value = ["https://h:80/x?next=https://u:", "p/w", "@h2"].join("");
    assert.equal(isCredentialValue(value), true);
  });

  it("matches setting keys in any case, quoted and with blanks", () => {
    for (const key of ["PASSWORD", "Password", "pAsSwOrD", "PWD", "Pwd", "ACCOUNTKEY", "sharedAccessKey"]) {
      assert.equal(isCredentialValue(`a=b;${key}=x;c=d`), true, key);
      assert.equal(isCredentialValue(`a=b ${key} = "x y"`), true, key);
    }
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
      "sk-" + "a".repeat(40),
      "sk-0123456789abcdef0123456789abcde",
      "https://discord.com/api/webhooks/",
      "https://discord.com/api/webhooks/123/short",
      "Authorization=Basic%20",
      "basic%20setup",
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
      // A port, then a path holding `@`: not a password.
      "http://localhost:5173/@vite/client",
      "https://registry.npmjs.org:443/@scope/pkg",
      "http://[::1]:8080/@x",
      "https://user@host:8080/path?q=a#b",
      "git+ssh://git@github.com:org/repo.git@v1.0",
      "a://b://c@d",
      // Settings that name no password.
      "password=",
      "password=;",
      'password="" user=app',
      "--password-file=/run/secrets/db",
      "password_reset_url=/reset",
      "SharedAccessKeyName=RootManageSharedAccessKey",
      "StorageAccountKey=x",
      "PWD=/home/u",
      "env OLDPWD=/tmp make",
      "-Dcom.sun.management.jmxremote.password.file=/etc/jmx",
      // The words Basic and Bearer in text.
      "Basic setup",
      "Basic settings",
      "basic auth",
      "Bearer of bad news",
      "bearer tokens expire",
      "Bearer 1234567",
      // Near the new token prefixes.
      "npm_config_cache",
      "npm_" + fill(35),
      "hf_transfer",
      "hvs.example.com",
      "ya29.short",
      "xapp-token",
      "sk_test_" + fill(24),
      "https://hooks.slack.com/services/",
      "https://hooks.slack.com/services/T0/B0",
      "glpat-short",
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
      // The grown rules: every keyword repeated, and each keyword before a
      // long run its pattern reads but that never completes a match.
      "a://" + ":".repeat(n),
      "a://u:".repeat(n / 6),
      "a://" + "@".repeat(n) + ":",
      "a://x:1/".repeat(n / 8) + "@",
      "a://x:" + "1".repeat(n) + "/@",
      "password".repeat(n / 8),
      "password" + " ".repeat(n),
      "password=" + " ".repeat(n),
      "pwd=/".repeat(n / 5),
      "accountkey" + "\t".repeat(n),
      "authorization" + " ".repeat(n),
      "authorization:" + " ".repeat(n) + "basic",
      "basic ".repeat(n / 6),
      "basic " + "A".repeat(n),
      "bearer " + "a".repeat(n),
      "bearer a".repeat(n / 8),
      "hooks.slack.com/services/" + "a".repeat(n),
      "hooks.slack.com/services/a/" + "b".repeat(n),
      "xapp-" + "1".repeat(n),
      "npm_".repeat(n / 4),
      "hf_".repeat(n / 3),
      "hvs.".repeat(n / 4),
      "ya29.".repeat(n / 5),
      "sk_live_".repeat(n / 8),
      "basic%20".repeat(n / 8),
      "bearer%20a".repeat(n / 10),
      "authorization=basic" + "%20".repeat(n / 3),
      "discord.com/api/webhooks/" + "1".repeat(n),
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
