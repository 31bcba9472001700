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
].flatMap((ending) => [ending, `${ending}S`]);

/**
 * Tells whether an environment variable's name says it holds a secret.
 *
 * The name is upper-cased and split into words on `_`, `-` and `.`; it is
 * credential-shaped when a word is one of `KEY`, `KEYS`, `TOKEN`, `TOKENS`,
 * `SECRET`, `SECRETS`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `PWD`,
 * `CREDENTIAL`, `CREDENTIALS`, `CREDS`, `AUTH`, `COOKIE`, or ends with
 * `PASSWORD`, `PASSWD`, `PASSPHRASE`, `TOKEN`, `SECRET` or `APIKEY` (or
 * one of those with a plural `S`). Substrings inside a word do not count (`TOKENIZERS_PARALLELISM`,
 * `KEYBOARD_LAYOUT`, `MONKEY_PATCH`, `OLDPWD` are not credentials).
 *
 * The one exception is the name `PWD`, the shell's working directory. It is
 * matched exactly and case-sensitively, as POSIX names are: `pwd` or `Pwd`
 * is not what shells maintain, so it is treated like any other `PWD` word.
 *
 * @param name An environment variable name.
 * @returns `true` when the name is credential-shaped.
 *
 * @example
 * ```ts
 * import { isCredentialName } from "@dsh/shell/seam";
 * isCredentialName("GITHUB_TOKEN"); // true
 * isCredentialName("TOKENIZERS_PARALLELISM"); // false
 * ```
 */
export function isCredentialName(name: string): boolean {
  if (name === "PWD") return false;
  for (const word of name.toUpperCase().split(/[_.-]/)) {
    if (word === "") continue;
    if (SECRET_WORDS.has(word)) return true;
    if (SECRET_WORD_ENDINGS.some((ending) => word.endsWith(ending))) {
      return true;
    }
  }
  return false;
}

/*
 * Every token pattern below starts with a literal prefix guarded by a
 * one-character lookbehind, and ends in a greedy run with nothing required
 * after it (or a fixed-width run), so a failed attempt costs at most one
 * scan of the run that follows its prefix. Values can be megabytes: no
 * pattern may backtrack more than that.
 */
const TOKEN_PATTERNS: readonly RegExp[] = [
  // GitHub classic tokens: personal, OAuth, user-to-server, server, refresh.
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}/,
  // GitHub fine-grained personal access tokens.
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/,
  // Slack: every real token continues with a numeric id after the dash,
  // which keeps words such as `xoxo-hugs-and-kisses` out.
  /(?<![A-Za-z0-9])xox[abeoprs]-[0-9]+-[A-Za-z0-9-]{8,}/,
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
 * OpenAI and Anthropic keys (`sk-…`, `sk-proj-…`, `sk-ant-api03-…`) are
 * random base62/base64url. Kebab-case words can also start with `sk-`
 * (`sk-learn-…`), so a run counts only when long and of mixed case with a
 * digit, as a random token almost always is and a word almost never.
 */
function hasSkToken(value: string): boolean {
  // The literal sits in the function so each call gets a fresh `lastIndex`.
  const runs = /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g;
  for (const [run] of value.matchAll(runs)) {
    if (/[0-9]/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run)) {
      return true;
    }
  }
  return false;
}

/** Characters that end a URL authority (RFC 3986 delimiters, plus text). */
const AUTHORITY_END = /[/?#\\\s"'`<>]/;

/*
 * A URL with a password in its userinfo: `scheme://user:pass@host`, also
 * with an empty user. Written as a scan, not a regex, because an unanchored
 * `scheme://…@` pattern rescans long runs of scheme characters from every
 * starting point. Each authority scan stops at the next `/`, so no two
 * scans overlap and the whole pass is linear.
 */
function hasUrlPassword(value: string): boolean {
  let at = value.indexOf("://");
  while (at !== -1) {
    if (at > 0 && /[A-Za-z0-9+.-]/.test(value[at - 1])) {
      const start = at + 3;
      let end = start;
      while (end < value.length && !AUTHORITY_END.test(value[end])) end++;
      const authority = value.slice(start, end);
      const userinfoEnd = authority.lastIndexOf("@");
      if (userinfoEnd !== -1) {
        const colon = authority.indexOf(":");
        // `u:@host` names a user with an empty password: nothing secret.
        if (colon !== -1 && colon < userinfoEnd - 1) return true;
      }
    }
    at = value.indexOf("://", at + 3);
  }
  return false;
}

/**
 * Tells whether a value is plainly a secret, wherever in the value it sits
 * (so `--db=postgres://u:p@host/db` counts): a URL with a password in its
 * userinfo (also `redis://:p@host` with an empty user), a PEM private-key
 * block, or a well-known token — GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`,
 * `ghr_`, `github_pat_`), Slack (`xoxb-` …), AWS (`AKIA`/`ASIA`), OpenAI and
 * Anthropic (`sk-`), Google (`AIza`) or a JWT.
 *
 * Ordinary values stay: `postgres://db:5432/app` has a port, not a
 * password; `sk-learn` is too short and plain to be a key. Runs in time
 * linear in the value's length.
 *
 * @param value An environment variable's value.
 * @returns `true` when the value holds a recognisable secret.
 *
 * @example
 * ```ts
 * import { isCredentialValue } from "@dsh/shell/seam";
 * isCredentialValue("postgres://app:hunter2@db:5432/app"); // true
 * isCredentialValue("postgres://db:5432/app"); // false
 * ```
 */
export function isCredentialValue(value: string): boolean {
  return hasUrlPassword(value) ||
    TOKEN_PATTERNS.some((pattern) => pattern.test(value)) ||
    hasSkToken(value);
}
