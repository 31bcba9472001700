/**
 * The README's demo: one command run the way a hook bridge runs a hook. It
 * reads a JSON event on stdin and a managed `DSH_*` variable, while a fake
 * secret sits in the ambient environment and is shown not to reach it.
 *
 *   deno task demo
 */

import process from "node:process";
import { createLocalShell, explainEnv } from "../mod.ts";

// A fake secret, assembled so no secret-shaped literal sits in the repository.
const fakeKey = ["sk", "-demo", "0123456789abcdefghijklmnop"].join("");
const ambient = { ...process.env, DEMO_API_KEY: fakeKey, DSH_SESSION: "forged-by-the-environment" };
const event = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /tmp/x" } };
const dshEnv = { DSH_SESSION: "session-42" } as const;

await using shell = createLocalShell({ ambientEnv: ambient, timeoutMs: 10_000 });
const command = [
  'read -r event; echo "event on stdin: $event"',
  'echo "DSH_SESSION=$DSH_SESSION"',
  'echo "DEMO_API_KEY=${DEMO_API_KEY:-(not set: scrubbed)}"',
  'echo "TERM=$TERM NO_COLOR=$NO_COLOR"',
].join("; ");

console.log(`$ ${command}\n`);
const result = await shell.run(shell.resolve({ command, owner: null, stdin: `${JSON.stringify(event)}\n`, dshEnv }));
console.log(result.stdout.text);
console.log(`exit code ${result.exitCode}, ${result.durationMs.toFixed(0)} ms`);
console.log(`the secret's value appears in the output: ${result.stdout.text.includes(fakeKey)}`);

const { entries, dropped } = explainEnv({ ambient, dshEnv });
const interesting = new Set(["DEMO_API_KEY", "DSH_SESSION", "TERM", "NO_COLOR", "PATH"]);
console.log("\nwhere the child's environment came from (explainEnv, names only):");
for (const entry of entries.filter((e) => interesting.has(e.name))) {
  console.log(`  ${entry.name.padEnd(14)} ${entry.source}`);
}
for (const drop of dropped.filter((d) => interesting.has(d.name))) {
  console.log(`  ${drop.name.padEnd(14)} dropped: ${drop.reason}`);
}
