/**
 * Credential detection for the environment scrub: by name (a word of the
 * name says it holds a secret) and by value (the value is plainly a secret).
 *
 * @module
 */

/** Words that, standing alone in a name, mark it as holding a secret. */
const SECRET_WORDS: ReadonlySet<string> = new Set([
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
  "PASS",
  "PW",
  "PAT",
  "CREDENTIAL",
  "CREDENTIALS",
  "CREDS",
  "AUTH",
  "COOKIE",
]);

/**
 * Endings that mark a glued word (`PGPASSWORD`, `AUTHTOKEN`, `MY_APIKEY`).
 * Plurals (`GITHUBTOKENS`) count too: a list of secrets is still secret.
 */
const SECRET_WORD_ENDINGS: readonly string[] = [
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "TOKEN",
  "SECRET",
  "APIKEY",
  // Glued keys: Tailscale's `TS_AUTHKEY`, Honeycomb's `HONEYCOMB_WRITEKEY`,
  // `AWS_SECRETKEY`, `SIGNING_PRIVATEKEY`.
  "AUTHKEY",
  "SECRETKEY",
  "WRITEKEY",
  "PRIVATEKEY",
].flatMap((ending) => [ending, `${ending}S`]);

/**
 * Whole names (upper-cased) that tools read a secret from, though no word
 * of them says so: sshpass's password, the Bitwarden CLI's session key and
 * fastlane's Apple ID session cookie.
 * `SESSION` alone is no secret word (`XDG_SESSION_ID`, `SESSION_MANAGER`).
 */
const SECRET_NAMES: ReadonlySet<string> = new Set(["SSHPASS", "BW_SESSION", "FASTLANE_SESSION"]);

/** The 1Password CLI keeps a session key per account in `OP_SESSION_<account>`. */
const SECRET_NAME_PREFIX = "OP_SESSION_";

function isDigit(char: string): boolean {
  return char >= "0" && char <= "9";
}

function isUpper(char: string): boolean {
  return char >= "A" && char <= "Z";
}

function isLower(char: string): boolean {
  return char >= "a" && char <= "z";
}

/**
 * Whether one word (already upper-cased) is a secret word or has a secret
 * ending. Trailing digits are dropped first, so `TOKEN1` and `KEY2` count
 * as `TOKEN` and `KEY`. A loop, not `/[0-9]+$/`: that pattern rescans a
 * run of digits from each of its positions when the run is not at the end.
 */
function isSecretWord(word: string): boolean {
  let end = word.length;
  while (end > 0 && isDigit(word[end - 1])) end--;
  if (end === 0) return false;
  const bare = end === word.length ? word : word.slice(0, end);
  return SECRET_WORDS.has(bare) || SECRET_WORD_ENDINGS.some((ending) => bare.endsWith(ending));
}

/**
 * The camelCase words of a part of a name that has both lower- and
 * upper-case letters: a new word starts at an upper-case letter after a
 * lower-case letter or a digit (`openai|Key`, `api2|Key`), and at the last
 * capital of a run of capitals that a lower-case letter follows
 * (`XML|Http|Token`, `API|Key`). A part in one case (`MONKEY`, `monkey`) is
 * one word, so names in the usual upper case split exactly as before.
 */
function camelWords(part: string): string[] {
  let hasLower = false;
  let hasUpper = false;
  for (const char of part) {
    hasLower ||= isLower(char);
    hasUpper ||= isUpper(char);
  }
  if (!hasLower || !hasUpper) return [];
  const words: string[] = [];
  let start = 0;
  for (let i = 1; i < part.length; i++) {
    if (!isUpper(part[i])) continue;
    const before = part[i - 1];
    const startsWord = isLower(before) || isDigit(before) ||
      (isUpper(before) && i + 1 < part.length && isLower(part[i + 1]));
    if (startsWord) {
      words.push(part.slice(start, i));
      start = i;
    }
  }
  words.push(part.slice(start));
  return words;
}

/**
 * Tells whether an environment variable's name says it holds a secret.
 *
 * The name is split into words on `_`, `-` and `.`, and a part in mixed
 * case also into its camelCase words (`openaiKey` is `openai` and `Key`,
 * `XMLHttpToken` is `XML`, `Http` and `Token`); words are compared
 * upper-cased, and digits at the end of a word do not count (`TOKEN1` is
 * `TOKEN`). The name is credential-shaped when a word is one of `KEY`,
 * `KEYS`, `TOKEN`, `TOKENS`, `SECRET`, `SECRETS`, `PASSWORD`, `PASSWD`,
 * `PASSPHRASE`, `PWD`, `PASS`, `PW`, `PAT`, `CREDENTIAL`, `CREDENTIALS`,
 * `CREDS`, `AUTH`, `COOKIE`, or ends with `PASSWORD`, `PASSWD`,
 * `PASSPHRASE`, `TOKEN`, `SECRET`, `APIKEY`, `AUTHKEY`, `SECRETKEY`,
 * `WRITEKEY` or `PRIVATEKEY` (or one of those with a plural `S`); also
 * when the name is `SSHPASS`, `BW_SESSION` or `FASTLANE_SESSION` or starts
 * with `OP_SESSION_` (any case). Substrings inside a word do not count
 * (`TOKENIZERS_PARALLELISM`, `KEYBOARD_LAYOUT`, `MONKEY_PATCH`, `PATH`,
 * `PATCH_LEVEL`, `PASSENGER_APP_ENV`, `GIT_ASKPASS`, `OLDPWD`,
 * `XDG_SESSION_ID` are not credentials).
 *
 * There are two exceptions. The name `PWD` is the shell's working
 * directory. It is matched exactly and case-sensitively, as POSIX names
 * are: `pwd` or `Pwd` is not what shells maintain, so it is treated like
 * any other `PWD` word. And `PW` as the first of several words is
 * Playwright's namespace (`PW_TEST_HTML_REPORT_OPEN`), not a password;
 * `PW`, `DB_PW` and `PW1_X` are credentials.
 *
 * @param name An environment variable name.
 * @returns `true` when the name is credential-shaped.
 *
 * @example
 * ```ts
 * import { isCredentialName } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(isCredentialName("GITHUB_TOKEN"), true);
 * assert.equal(isCredentialName("DB_PASS"), true);
 * assert.equal(isCredentialName("TOKEN1"), true);
 * assert.equal(isCredentialName("openaiKey"), true);
 * assert.equal(isCredentialName("TOKENIZERS_PARALLELISM"), false);
 * assert.equal(isCredentialName("PATH"), false);
 * ```
 */
export function isCredentialName(name: string): boolean {
  if (name === "PWD") return false;
  const upper = name.toUpperCase();
  if (SECRET_NAMES.has(upper) || upper.startsWith(SECRET_NAME_PREFIX)) return true;
  const parts = name.split(/[_.-]/).filter((part) => part !== "");
  for (const [index, part] of parts.entries()) {
    // `PW_…` is Playwright's namespace (`PW_TEST_HTML_REPORT_OPEN=never`
    // keeps a failing run from serving its report and waiting for Ctrl+C),
    // so a leading `PW` with more words after it is not the secret word.
    if (index === 0 && parts.length > 1 && part.toUpperCase() === "PW") continue;
    // The whole part first, so a glued name (`MYAPIKEY`) counts whatever its case.
    if (isSecretWord(part.toUpperCase())) return true;
    for (const word of camelWords(part)) {
      if (isSecretWord(word.toUpperCase())) return true;
    }
  }
  return false;
}

/*
 * Values can be megabytes, so every check below is linear in the value's
 * length. Each pattern starts with a literal keyword (most behind a
 * one-character lookbehind, which costs one comparison), so only the
 * positions where the keyword sits can start a match, and each attempt then
 * reads only runs that belong to that attempt:
 *
 * - a run with nothing required after it (`[A-Za-z0-9]{36,}` at the end)
 *   is read once and never backtracked into;
 * - a run that must be followed by a delimiter the run cannot contain
 *   (`[0-9]+-`, `[A-Za-z0-9]+\/`) is read once and given back once;
 * - a run of blanks (`[ \t]*`) follows a keyword made of letters, so the
 *   blanks after one keyword can never be the blanks after another.
 *
 * So no two attempts read the same characters more than a bounded number of
 * times. A pattern of the shape `prefix[chars]*keyword` is never used: it
 * rereads the run from every start inside it (quadratic), and that is why
 * the URL check below is a scan.
 */
const TOKEN_PATTERNS: readonly RegExp[] = [
  // GitHub classic tokens: personal, OAuth, user-to-server, server, refresh.
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}/,
  // GitHub fine-grained personal access tokens.
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/,
  // GitLab personal, project and group access tokens.
  /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/,
  // npm access tokens: `npm_` and 36 base62 characters, so `npm_config_x` is not one.
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,}/,
  // Hugging Face access tokens: `hf_` and 34 letters.
  /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/,
  // Slack: every real token continues with a numeric id after the dash,
  // which keeps words such as `xoxo-hugs-and-kisses` out. The digit run
  // must be followed by a dash it cannot contain: read once.
  /(?<![A-Za-z0-9])xox[abeoprs]-[0-9]+-[A-Za-z0-9-]{8,}/,
  // Slack app-level tokens: `xapp-<version>-<app id>-…`, the same shape.
  /(?<![A-Za-z0-9])xapp-[0-9]+-[A-Za-z0-9-]{8,}/,
  // Slack webhook URLs: `hooks.slack.com/services/T…/B…/<secret>` (also
  // the workflow and trigger webhooks). Each segment ends at a `/` it
  // cannot contain.
  /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+/,
  // Discord webhook URLs: `discord.com/api/webhooks/<numeric id>/<token>`
  // (also the older `discordapp.com` and versioned `/api/v10/`). The id
  // ends at a `/` it cannot contain.
  /discord(?:app)?\.com\/api\/(?:v[0-9]{1,2}\/)?webhooks\/[0-9]+\/[A-Za-z0-9_-]{16,}/,
  // Stripe live secret and restricted keys.
  /(?<![A-Za-z0-9_])[rs]k_live_[A-Za-z0-9]{20,}/,
  // HashiCorp Vault service tokens.
  /(?<![A-Za-z0-9_.-])hvs\.[A-Za-z0-9_-]{24,}/,
  // Google OAuth 2 access tokens.
  /(?<![A-Za-z0-9_.-])ya29\.[A-Za-z0-9_-]{20,}/,
  // AWS access key ids, long-lived (AKIA) and temporary (ASIA): exactly 20.
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/,
  // Google API keys: exactly 39 characters.
  /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/,
  // JWT: base64url JSON header and payload (both start `{"` = `eyJ`), and a
  // non-empty signature. Each part starts after a fixed delimiter, so the
  // engine never rescans a part from a second starting point.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/,
  // PEM private keys of any flavour (RSA, EC, OPENSSH, ENCRYPTED, PGP ...).
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/,
];

/*
 * `key=value` settings that hold a secret: connection strings (ADO.NET and
 * ODBC `Password=…;`/`PWD=…;`, libpq `host=db password=…`, Azure
 * `AccountKey=…`, `SharedAccessKey=…`, `SharedAccessSignature=…`), query
 * strings (`?user=u&password=…`), options (`--password=…`) and JVM system
 * properties (`-Djavax.net.ssl.trustStorePassword=…`). Any case; blanks may
 * sit around `=` and the value may be quoted. The value must be non-empty:
 * `password=;`, `password=""` and a trailing `password=` name no secret.
 */
const SETTING_VALUE = String.raw`[ \t]*=[ \t]*["']?[^\s;&"']`;
/** The same, but a value may not start with `/`. */
const SETTING_VALUE_NOT_PATH = String.raw`[ \t]*=[ \t]*["']?[^\s;&"'/]`;
const SETTING_PATTERNS: readonly RegExp[] = [
  // Any key that ends in `password`, glued or not: `password=`,
  // `db_password=`, `PGPASSWORD=`, `trustStorePassword=`. No lookbehind is
  // needed: the keyword itself is the literal every attempt starts with.
  new RegExp(`password${SETTING_VALUE}`, "i"),
  // These keys only as whole words: `StorageAccountKey` is another key.
  new RegExp(`(?<![A-Za-z0-9])(?:accountkey|sharedaccesskey|sharedaccesssignature)${SETTING_VALUE}`, "i"),
  // `pwd=` as a whole word (`OLDPWD=` is not one), except before `/`:
  // `PWD=/home/u` in a command line is the working directory.
  new RegExp(`(?<![A-Za-z0-9])pwd${SETTING_VALUE_NOT_PATH}`, "i"),
  // An HTTP `Authorization` header with Basic or Bearer credentials.
  /authorization[ \t]*:[ \t]*(?:basic|bearer)[ \t]+[^\s"']/i,
  // The same header URL-encoded, as `OTEL_EXPORTER_OTLP_HEADERS` carries
  // it (`Authorization=Basic%20…`, the form Grafana Cloud documents).
  /authorization[ \t]*(?:=|%3A)[ \t]*(?:basic|bearer)(?:%20|\+)+[^\s"',&%]/i,
];

/*
 * OpenAI and Anthropic keys (`sk-…`, `sk-proj-…`, `sk-ant-api03-…`) are
 * random base62/base64url. Kebab-case words can also start with `sk-`
 * (`sk-learn-…`), so a run counts only when long and of mixed case with a
 * digit, as a random token almost always is and a word almost never; or
 * when it starts with 32 or more letters and digits, a digit among them
 * (DeepSeek's keys are `sk-` and 32 lower-case hex digits): no word is
 * that long without a dash.
 */
function hasSkToken(value: string): boolean {
  // The literal sits in the function so each call gets a fresh `lastIndex`.
  const runs = /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g;
  for (const [run] of value.matchAll(runs)) {
    if (/[0-9]/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run)) {
      return true;
    }
    if (isLongAlnumWithDigit(run, 3)) return true;
  }
  return false;
}

/** Whether `run` from `start` has 32 or more letters and digits before any `-` or `_`, a digit among them. */
function isLongAlnumWithDigit(run: string, start: number): boolean {
  let end = start;
  let digit = false;
  while (end < run.length && run[end] !== "-" && run[end] !== "_") {
    digit ||= isDigit(run[end]);
    end++;
  }
  return digit && end - start >= 32;
}

/*
 * Bare authorization values without the header name: `Basic <base64>` and
 * `Bearer <token>`. Both words are ordinary English ("Basic setup",
 * "Bearer of bad news"), so the credential must look like one: a Basic
 * credential must decode to `user:password` text (RFC 7617), a Bearer
 * token must be 8+ token characters (RFC 6750) with a digit. Matches never
 * overlap (`matchAll` resumes after each), and each is checked once.
 */
function hasBasicCredentials(value: string): boolean {
  // The blank may be URL-encoded (`Basic%20…`), as in `OTEL_EXPORTER_OTLP_HEADERS`.
  const runs = /(?<![A-Za-z0-9_-])basic(?:[ \t]|%20)+([A-Za-z0-9+/]+={0,2})/gi;
  for (const match of value.matchAll(runs)) {
    if (isUserPass(match[1])) return true;
  }
  return false;
}

const UTF8 = new TextDecoder();

/**
 * Whether base64 text decodes to printable UTF-8 holding a `:` and
 * something besides it. An empty password counts, unlike in a URL: APIs
 * that use Basic put the key in the user name (`sk_live_…:`). Text that
 * `atob` would refuse is ruled out first, so no exception is thrown per
 * match (they are slow, and a value can hold many matches).
 */
function isUserPass(base64: string): boolean {
  const padded = base64.endsWith("=");
  if (base64.length % 4 === 1 || (padded && base64.length % 4 !== 0)) return false;
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  // Invalid UTF-8 decodes to U+FFFD: random bytes, not text.
  const text = UTF8.decode(bytes);
  if (text.length < 2 || !text.includes(":") || text.includes("\uFFFD")) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

function hasBearerToken(value: string): boolean {
  const runs = /(?<![A-Za-z0-9_-])bearer(?:[ \t]|%20)+([A-Za-z0-9._~+/-]{8,})/gi;
  for (const match of value.matchAll(runs)) {
    if (/[0-9]/.test(match[1])) return true;
  }
  return false;
}

/** Characters that end a URL's user name: it never holds these unescaped. */
const USER_END = /[:/?#[\]\\\s"'`<>]/;

/**
 * Characters that end a URL's password. Not `/`, `?` or `#`, nor a quote, a
 * backtick or `\\`: a password is often pasted into a URL unescaped, and
 * `u:p/ss@host` or `u:it's@host` still hands it out.
 */
const PASSWORD_END = /[@\s<>]/;

/**
 * Whether the text after the colon starts with a port and then a path,
 * query or fragment (`host:8080/@scope/pkg`): an `@` later on is in the
 * path, not after a password.
 */
function isPortThenPath(value: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && isDigit(value[i])) i++;
  return i > start && i < end && (value[i] === "/" || value[i] === "?" || value[i] === "#");
}

/*
 * A URL with a password in its userinfo: `scheme://user:pass@host`, also
 * with an empty user. Written as a scan, not a regex, because an unanchored
 * `scheme://…@` pattern rescans long runs of scheme characters from every
 * starting point.
 *
 * Linear: after each `://` the scan reads a user name, which stops at any
 * `:` and so never reaches the next `://`, then a password, which stops
 * at an `@`, at a delimiter or at the next `://`. So no character is read
 * for two different `://`: each is read by one scan and by `indexOf`.
 */
function hasUrlPassword(value: string): boolean {
  let at = value.indexOf("://");
  while (at !== -1) {
    if (at > 0 && /[A-Za-z0-9+.-]/.test(value[at - 1])) {
      let colon = at + 3;
      let userHasAt = false;
      while (colon < value.length && !USER_END.test(value[colon])) {
        userHasAt ||= value[colon] === "@";
        colon++;
      }
      if (value[colon] === ":" && !value.startsWith("//", colon + 1)) {
        const start = colon + 1;
        let end = start;
        let hasDelimiter = false;
        while (end < value.length && !PASSWORD_END.test(value[end]) && !value.startsWith("://", end)) {
          hasDelimiter ||= value[end] === "/" || value[end] === "?" || value[end] === "#";
          end++;
        }
        // `u:@host` names a user with an empty password: nothing secret.
        // A user name holding `@` already ended the userinfo
        // (`git@host:org/repo.git@v1` is scp-style, not a password), so
        // there the password may not run on past `/`, `?` or `#`.
        if (
          value[end] === "@" && end > start && !(userHasAt && hasDelimiter) &&
          !isPortThenPath(value, start, end)
        ) {
          return true;
        }
      }
    }
    at = value.indexOf("://", at + 3);
  }
  return false;
}

/**
 * Tells whether a value is plainly a secret, wherever in the value it sits
 * (so `--db=postgres://u:p@host/db` counts):
 *
 * - a URL with a password in its userinfo (also `redis://:p@host` with an
 *   empty user, and unescaped passwords holding `/`, `?`, `#`, quotes, a
 *   backtick or `\`: `postgres://u:p/ss@host`);
 * - a `key=value` setting whose key ends in `password` or is `pwd`,
 *   `AccountKey`, `SharedAccessKey` or `SharedAccessSignature` (any case),
 *   with a non-empty value: connection strings (`Server=db;Password=…`,
 *   `host=db password=…`), options (`--password=…`) and JVM properties
 *   (`-Djavax.net.ssl.trustStorePassword=…`);
 * - Basic or Bearer authorization (`Authorization: Bearer …`, or a bare
 *   `Basic <base64 of user:password>` / `Bearer <token with a digit>`),
 *   also URL-encoded (`Authorization=Basic%20…` in
 *   `OTEL_EXPORTER_OTLP_HEADERS`);
 * - a PEM private-key block;
 * - a well-known token — GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
 *   `github_pat_`), GitLab (`glpat-`), npm (`npm_`), Hugging Face (`hf_`),
 *   Slack (`xoxb-` …, `xapp-`, webhook URLs), Discord webhook URLs, Stripe (`sk_live_`,
 *   `rk_live_`), Vault (`hvs.`), Google (`AIza`, OAuth `ya29.`), AWS
 *   (`AKIA`/`ASIA`), OpenAI, Anthropic and DeepSeek (`sk-`), or a JWT.
 *
 * Ordinary values stay: `postgres://db:5432/app` has a port, not a
 * password; `http://localhost:5173/@vite/client` has a port and a path;
 * `sk-learn` is too short and plain to be a key; `password=` names no
 * password; `PWD=/home/u` is a directory. Runs in time linear in the
 * value's length.
 *
 * @param value An environment variable's value.
 * @returns `true` when the value holds a recognisable secret.
 *
 * @example
 * ```ts
 * import { isCredentialValue } from "@dsh/shell/seam";
 * import assert from "node:assert/strict";
 * assert.equal(isCredentialValue("postgres://app:hunter2@db:5432/app"), true);
 * assert.equal(isCredentialValue("host=db user=app password=hunter2"), true);
 * assert.equal(isCredentialValue("postgres://db:5432/app"), false);
 * assert.equal(isCredentialValue("Basic setup"), false);
 * ```
 */
export function isCredentialValue(value: string): boolean {
  return hasUrlPassword(value) ||
    TOKEN_PATTERNS.some((pattern) => pattern.test(value)) ||
    SETTING_PATTERNS.some((pattern) => pattern.test(value)) ||
    hasSkToken(value) ||
    hasBasicCredentials(value) ||
    hasBearerToken(value);
}
