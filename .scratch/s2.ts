import { createLocalShell } from "../mod.ts";
await using shell = createLocalShell({ graceMs: 300 });
const r = await shell.exec(`bash --norc -p -c 'set -m; "$@"; echo "status $?"' x bash -c 'ps -o pid,pgid,tpgid,sid,comm; exit 3'`, { tty: true });
console.log(r.exitCode, r.stdout.text, r.stderr.text);
