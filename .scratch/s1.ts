import { createLocalShell } from "../mod.ts";
await using shell = createLocalShell({ sandbox: {}, graceMs: 300 });
const r = await shell.exec("[ -t 0 ] && echo tty; stty size; echo $TERM; ls -la /dev/ /dev/pts; ps -o pid,pgid,sid,tty,comm; readlink /proc/self/fd/0; command -v python3; ls /dev/tty0", { tty: { columns: 90, rows: 20 } });
console.log(r.exitCode, r.stdout.text, r.stderr.text);
