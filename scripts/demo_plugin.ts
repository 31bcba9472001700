/**
 * The README's second demo: a Claude Code plugin's hooks loaded with
 * `dsh-shell hook --plugin-root`. The plugin is `git-guard` from
 * `tests/fixtures/plugins/`: its `hooks/hooks.json` runs scripts under
 * `${CLAUDE_PLUGIN_ROOT}` in exec form, narrowed by `if` filters, and
 * audits every Bash command in the background into its data directory.
 *
 * Three events, as a harness would dispatch them: a push to main (denied),
 * `git status` (the `if` filters start no hook), and a finished Bash call
 * (the background audit reports when it ends).
 *
 *   deno task demo:plugin
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const plugin = join(root, "tests", "fixtures", "plugins", "git-guard");
const work = mkdtempSync(join(tmpdir(), "dsh-demo-plugin-"));
const data = join(work, "plugin-data");

/** Runs the CLI for `event` with `payload` on stdin, printing the command line and its report. */
function hook(event: string, toolInput: Record<string, unknown>, what: string): void {
  const payload = { session_id: "demo", cwd: work, hook_event_name: event, tool_name: "Bash", tool_input: toolInput };
  const args = ["hook", event, "--plugin-root", plugin, "--plugin-data", data, "--project-dir", work, "--payload", "-"];
  console.log(`--- ${what}`);
  console.log(`$ echo '${JSON.stringify(payload).replaceAll(work, "$WORK")}' \\`);
  console.log(`    | dsh-shell ${args.map((arg) => arg.replace(root, "").replace(work, "$WORK")).join(" ")}\n`);
  const cli = spawnSync(process.execPath, ["run", "-A", join(root, "src", "cli", "main.ts"), ...args], {
    input: JSON.stringify(payload),
    stdio: ["pipe", "pipe", "inherit"],
    encoding: "utf8",
  });
  process.stdout.write(cli.stdout);
  console.log(`\nexit code ${cli.status}${cli.status === 2 ? " (2 = blocked)" : ""}\n`);
}

try {
  console.log(`The plugin: ${plugin.replace(root, "")}/hooks/hooks.json\n`);
  console.log(readFileSync(join(plugin, "hooks", "hooks.json"), "utf8"));
  hook("PreToolUse", { command: "npm test && git push origin main" }, "the model pushes to main");
  hook("PreToolUse", { command: "git status" }, "the model runs git status: no if filter matches, no hook starts");
  hook("PostToolUse", { command: "npm test" }, "a Bash call finished: the audit hook runs in the background");
  console.log(`The audit log in the plugin's data directory (CLAUDE_PLUGIN_DATA):`);
  console.log(readFileSync(join(data, "audit.log"), "utf8").replaceAll(work, "$WORK"));
} finally {
  rmSync(work, { recursive: true, force: true });
}
