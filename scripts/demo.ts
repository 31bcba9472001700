/**
 * The README's demo: the CLI dispatches the example PreToolUse event (a
 * model about to run `rm -rf`) through the example settings, as a harness
 * would, while a fake API key sits in the environment. It prints each
 * hook's result and the merged decision: blocked, and the key invisible to
 * every hook.
 *
 *   deno task demo
 */

import { spawnSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const examples = `${root}docs/examples`;
// A fake secret, assembled so no secret-shaped literal sits in the repository.
const fakeKey = ["sk", "-ant-", "demo0123456789ABCDEFabcdef"].join("");
const args = [
  "hook",
  "PreToolUse",
  "--settings",
  `${examples}/settings.json`,
  "--payload",
  `${examples}/events/pre_tool_use_rm.json`,
  "--project-dir",
  examples,
];

console.log(
  `The model wants to run: ${
    JSON.stringify("rm -rf build/ node_modules/")
  } (docs/examples/events/pre_tool_use_rm.json)`,
);
console.log(`The harness's environment holds ANTHROPIC_API_KEY=${fakeKey.slice(0, 10)}… (fake)\n`);
console.log(`$ dsh-shell ${args.map((arg) => arg.replace(root, "")).join(" ")}\n`);
const cli = spawnSync(process.execPath, ["run", "-A", `${root}src/cli/main.ts`, ...args], {
  env: { ...process.env, ANTHROPIC_API_KEY: fakeKey },
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
});
process.stdout.write(cli.stdout);
console.log(`\nexit code ${cli.status} (2 = blocked)`);
console.log(`the fake key's value appears in any hook's output: ${cli.stdout.includes(fakeKey)}`);
