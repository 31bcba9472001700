import { createLocalShell } from "../mod.ts";
await using shell = createLocalShell({ graceMs: 300 });
for (const cmd of ["/nonexistent/prog", "no-such-program-x", "/etc/passwd"]) {
  try { const r = await shell.exec(cmd, { args: [], tty: true }); console.log(cmd, r.exitCode, r.signal, JSON.stringify(r.stdout.text)); } catch (e) { console.log(cmd, "threw", String(e)); }
  try { const r = await shell.exec(cmd, { args: [] }); console.log(cmd, "pipes", r.exitCode); } catch (e) { console.log(cmd, "pipes threw", String(e)); }
}
const r = await shell.exec("kill -TERM $$", { tty: true }); console.log(r.exitCode, r.signal);
