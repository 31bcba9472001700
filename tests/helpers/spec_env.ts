/**
 * The variable names the specification lists for the environment scrub,
 * shared by the example tests and the property tests so both check the
 * same list.
 */

/** Names the specification says are scrubbed by name. */
export const SPEC_MUST_SCRUB_NAMES: readonly string[] = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "DEEPSEEK_API_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
  "HF_TOKEN",
  "DB_PASSWORD",
  "PGPASSWORD",
  "MYSQL_PWD",
  "SSH_AUTH_SOCK",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "AZURE_CLIENT_SECRET",
  "SLACK_BOT_TOKEN",
  "STRIPE_SECRET_KEY",
  "JWT_SECRET",
  "GPG_PASSPHRASE",
  "api_key",
  "Secret",
];

/** Names the specification says survive the scrub. */
export const SPEC_MUST_SURVIVE_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "SHELL",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "PWD",
  "OLDPWD",
  "EDITOR",
  "HOSTNAME",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "TOKENIZERS_PARALLELISM",
  "KEYBOARD_LAYOUT",
  "XDG_RUNTIME_DIR",
  "XDG_SESSION_ID",
  "JAVA_HOME",
  "HTTP_PROXY",
  "NO_PROXY",
];
