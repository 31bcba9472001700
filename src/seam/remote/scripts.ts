/**
 * The two programs a remote engine runs for a shell, as POSIX `sh` text
 * (checked with dash, busybox ash and bash): the **supervisor**, one per
 * connection, and the **wrapper**, one per command. They travel as argv
 * (`sh -c SCRIPT`), never as a script on stdin: dash and busybox read ahead
 * on stdin and would swallow the bytes meant for the command.
 *
 * Why a supervisor at all: the local client (`docker exec`, `ssh`) is not
 * the process to kill, and killing it does not end what it started. So the
 * engine's side gets a process of its own that can signal sessions there,
 * and that notices when the harness is gone — its stdin reaches end of file
 * (the harness closed, exited or died, or the connection dropped) or its
 * heartbeat stops (a link gone silent) — and then ends every session the
 * shell started: SIGTERM to each process group, SIGKILL after the grace.
 *
 * @module
 */

import { KILL_MARKED_FUNCTION } from "../guard/watchdog.ts";

/**
 * The supervisor, run as `sh -c SUPERVISOR dsh-sup GRACE_MS HEARTBEAT_MS`.
 *
 * It first says `dsh-sup env N` and the N bytes of its own environment
 * (NUL-separated, as the engine gives it to a program: the shell's ambient
 * environment), then `dsh-sup ready PID DIR`, or `dsh-sup fail REASON` and
 * ends. `DIR` is its private record directory (0700): each wrapper records
 * its session there before its command runs, so that a command started
 * just as the harness dies is still ended, and keeps its output FIFOs
 * there (`SID.o`, `SID.e`), which go with the record once the session is
 * seen gone: one `rm` fewer per command.
 *
 * Requests, one per line: `r SID` (the harness saw session SID start:
 * remember it, even if its record file is removed), `f SID` (forget it),
 * `t SID` (terminate it; answers `gone SID`), `w SID` (answer `gone SID`
 * once nothing of it runs), `q TOKEN` (answers `ok TOKEN`: the shell's
 * heartbeat is `q beat`, once a second), `s SID MAX` (answers, on one line, `state SID + HEX`: the state
 * file a session's command left, `SID.s`, as hex digits, read once into a snapshot the command can no longer
 * change, at most MAX bytes of it; `state SID - REASON` when it is refused (larger than MAX, a symlink, a FIFO or
 * anything but a regular file, which is opened read-write so that it never blocks); `state SID` when there is none;
 * then removes it. As hex, no byte of a state, nor of anything a command wrote to it, can be read as a line of the
 * supervisor's (a forged `dsh-sup fail …`), and its length is fixed before it is sent), `z SID ROWS COLS`
 * (sets the size of the terminal that is the session's stdin, which signals its foreground job with SIGWINCH:
 * after the wrapper, the only writer of that size; the engine's client sends none, see `startProcess`). Every line counts as a heartbeat.
 * The `gone` answers come from background subshells, so they and a state's line and bytes take the lock
 * `DIR/lock` (a directory: `mkdir` is atomic everywhere) to write: a `gone` written between a state's line and
 * its bytes, or inside them, corrupted the state and was itself lost, and a termination awaiting it never ended.
 * Session ids are refused
 * unless they are a pid other than 0, 1 and its own: `kill -- -0` or
 * `kill -- -1` would reach far more than a command.
 *
 * Liveness reads `/proc` (with awk when there is one, which handles a
 * command name holding a newline; else a slower sh loop): a process is
 * gone when dead, or a zombie with no thread left running.
 *
 * When it ends every session by itself (its stdin ended, the heartbeat
 * stopped, a SIGTERM), it first SIGKILLs each session's leader, the
 * wrapper, if it still leads that session (`unwrap`): a wrapper outlives
 * the SIGTERM that follows and would exit with whatever status its
 * command's TERM trap chose, and sshd would pass that on as an exit-status
 * that the host takes without asking (`EngineLink.fromEngine`). Killed, it
 * leaves its client ssh's 255, which the host only takes once the
 * supervisor answers, and it no longer can.
 *
 * A terminal's command has its mark in its record file (the wrapper writes
 * it): its session counts as alive while anything carrying the mark runs,
 * and ending it also SIGKILLs what carries the mark outside the session
 * (`setsid`), as the local watchdog does (`kill_marked`).
 */
export const SUPERVISOR_SCRIPT = `trap '' PIPE HUP INT QUIT
g=$1 hb=$2
umask 077
say() { printf 'dsh-sup %s\\n' "$*"; }
[ -r /proc/$$/environ ] || { say 'fail the engine has no /proc: only Linux containers and hosts are supported'; exit 0; }
d=$(mktemp -d "\${TMPDIR:-/tmp}/dsh-sup.XXXXXX" 2>/dev/null) ||
  d=$(mktemp -d /tmp/dsh-sup.XXXXXX 2>/dev/null) ||
  d=$(mktemp -d /dev/shm/dsh-sup.XXXXXX 2>/dev/null) ||
  { say 'fail no writable temporary directory (TMPDIR, /tmp, /dev/shm) for the supervisor'; exit 0; }
say "env $(($(wc -c < /proc/$$/environ)))"
cat /proc/$$/environ
say "ready $$ $d"
S=
${KILL_MARKED_FUNCTION}
nul_grep=""
if printf 'x\\0' | grep -qzxF x 2>/dev/null; then nul_grep=1; fi
valid() { case $1 in ''|*[!0-9]*|0*|1) return 1 ;; esac; [ "$1" != "$$" ]; }
if command -v awk >/dev/null 2>&1; then
  members() {
    M=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v s="$1" '
      /\\)/ { sub(/.*\\) /, ""); n = split($0, f, " ")
        if (n >= 18 && f[4] == s && f[1] !~ /^[Xx]/ && (f[1] != "Z" || f[18] > 1)) printf " %s", f[3] }')
  }
else
  members() {
    M= s_=$1
    for f_ in /proc/[0-9]*/stat; do
      l_=
      { while IFS= read -r x_ || [ -n "$x_" ]; do l_="$l_ $x_"; done; } < "$f_" 2>/dev/null || continue
      case $l_ in *")"*) ;; *) continue ;; esac
      l_=\${l_##*) }
      set -f; set -- $l_; set +f
      [ "$#" -ge 18 ] && [ "$4" = "$s_" ] || continue
      case $1 in X|x) continue ;; Z) [ "\${18}" -gt 1 ] || continue ;; esac
      M="$M $3"
    done
  }
fi
signal() {
  members "$2"; seen_=
  for p_ in $M; do
    case " $seen_ " in *" $p_ "*) continue ;; esac
    seen_="$seen_ $p_"; kill -s "$1" -- "-$p_" 2>/dev/null
  done
}
now() { read -r u_ _ < /proc/uptime; u_=\${u_%%.*}\${u_#*.}; while :; do case $u_ in 0?*) u_=\${u_#0} ;; *) break ;; esac; done; now=$u_; }
settle() {
  now; end_=$((now + $2)); iv_=2
  while :; do
    [ -n "$3" ] && signal "$3" "$1"
    members "$1"; [ -z "$M" ] && return 0
    now; [ "$now" -ge "$end_" ] && return 1
    sleep "0.$(printf %02d "$iv_")" </dev/null >/dev/null 2>&1 || sleep 1 </dev/null >/dev/null 2>&1
    iv_=$((iv_ * 2)); [ "$iv_" -gt 5 ] && iv_=5
  done
}
mark_of() { m_=; [ -s "$d/$1" ] && m_=$(cat "$d/$1" 2>/dev/null); }
terminate() {
  mark_of "$1"
  signal TERM "$1"
  settle "$1" $(((g + 9) / 10)) || settle "$1" 500 KILL
  [ -z "$m_" ] || kill_marked "$m_"
  rm -f "$d/$1" "$d/$1.o" "$d/$1.e" "$d/$1.s"
}
watch() {
  mark_of "$1"
  while [ -d "$d" ]; do
    members "$1"
    if [ -z "$M" ] && { [ -z "$m_" ] || [ -z "$(marked "$m_")" ]; }; then
      rm -f "$d/$1" "$d/$1.o" "$d/$1.e" "$d/$1.s"; locked say "gone $1"; return
    fi
    sleep 0.5 </dev/null >/dev/null 2>&1
  done
}
locked() {
  until mkdir "$d/lock" 2>/dev/null; do
    [ -d "$d" ] || break
    sleep 0.01 </dev/null >/dev/null 2>&1 || sleep 1 </dev/null >/dev/null 2>&1
  done
  "$@"; rmdir "$d/lock" 2>/dev/null
}
state() {
  f_="$d/$1.s"
  x_=$(
    [ -e "$f_" ] || [ -L "$f_" ] || exit 0
    [ ! -L "$f_" ] || { echo "- its file was replaced by a symlink"; exit 0; }
    exec 3<>"$f_" || { echo "- its file cannot be opened"; exit 0; }
    [ -f /proc/self/fd/3 ] || { echo "- its file was replaced by something that is no regular file"; exit 0; }
    h_=$(head -c "$(($2 + 1))" </proc/self/fd/3 | od -An -v -tx1 | tr -dc 0-9a-f)
    if [ "\${#h_}" -gt "$(($2 * 2))" ]; then echo "- it is larger than maxSessionStateBytes ($2 bytes)"
    elif [ -n "$h_" ]; then echo "+ $h_"
    fi
  ) 2>/dev/null
  rm -f "$f_"
  say "state $1 $x_"
}
size_ok() { case $1 in ''|*[!0-9]*) return 1 ;; esac; [ "$1" -gt 0 ] && [ "$1" -le 65535 ]; }
resize() {
  t_=$(readlink "/proc/$1/fd/0" 2>/dev/null) || return 0
  case $t_ in /dev/pts/*) stty -F "$t_" rows "$2" cols "$3" </dev/null >/dev/null 2>&1 ;; esac
}
forget() { k_=; for s_ in $S; do [ "$s_" = "$1" ] || k_="$k_ $s_"; done; S=$k_; }
unwrap() {
  { read -r w_ < "/proc/$1/stat"; } 2>/dev/null || return 0
  w_=\${w_##*) }; set -f; set -- "$1" $w_; set +f
  [ "$5" != "$1" ] || kill -s KILL "$1" 2>/dev/null
}
cleanup() {
  trap '' TERM USR1
  exec </dev/null >/dev/null 2>&1
  [ -z "$tp" ] || kill "$tp" 2>/dev/null
  all_=$S
  if [ -d "$d" ] && mv "$d" "$d.closing"; then d=$d.closing; fi
  for f_ in "$d"/*; do all_="$all_ \${f_##*/}"; done
  seen_= pids_=
  for s_ in $all_; do
    valid "$s_" || continue
    case " $seen_ " in *" $s_ "*) continue ;; esac
    seen_="$seen_ $s_"
    unwrap "$s_"
    ( terminate "$s_" ) & pids_="$pids_ $!"
  done
  [ -z "$pids_" ] || wait $pids_
  rm -rf "$d"
}
trap 'cleanup; exit 0' USR1 TERM
beat() { { true > "$d/beat"; } 2>/dev/null; }
beat
tp=
if [ "$hb" -gt 0 ]; then
  (
    trap 'kill "$sp" 2>/dev/null; exit 0' TERM
    ms_=$((hb / 2)); step_=$((ms_ / 1000)).$((ms_ % 1000 / 100))$((ms_ % 100 / 10))$((ms_ % 10)); missed_=0
    while [ -d "$d" ]; do
      sleep "$step_" & sp=$!; wait "$sp"
      if [ -e "$d/beat" ]; then rm -f "$d/beat"; missed_=0
      else missed_=$((missed_ + 1)); [ "$missed_" -lt 2 ] || { kill -s USR1 $$; exit 0; }
      fi
    done
  ) </dev/null >/dev/null 2>&1 &
  tp=$!
fi
while IFS=' ' read -r op a b c _; do
  beat
  case $op in
    r) valid "$a" && S="$S $a" ;;
    f) valid "$a" && forget "$a" ;;
    t) valid "$a" && { ( terminate "$a"; locked say "gone $a" ) & } ;;
    w) valid "$a" && { ( watch "$a" ) & } ;;
    q) say "ok $a" ;;
    s) valid "$a" && case $b in ''|*[!0-9]*) ;; *) locked state "$a" "$b" ;; esac ;;
    z) valid "$a" && size_ok "$b" && size_ok "$c" && resize "$a" "$b" "$c" ;;
  esac
done
cleanup
`;

/**
 * The wrapper of one command, run as `env -i sh -c WRAPPER dsh-run` (an
 * empty environment: nothing of the engine's reaches the command unless the
 * header sets it).
 *
 * Its stdin starts with a header: a line with a fresh nonce, shell code
 * defining `dsh_env` (the `export`s of the command's environment, every
 * value single-quoted), `dsh_cwd`, `dsh_dir` (the supervisor's record
 * directory), `dsh_stdin`, `dsh_grace` (seconds, for `sleep`), `dsh_path`
 * (the command's `PATH`, for the program lookup) and either `dsh_shell` +
 * `dsh_cmd` or `dsh_argv` (the argv as quoted words), then the nonce line
 * again; every byte after it is the command's stdin, untouched (`read` on a
 * pipe never reads past the newline, which is why it reads a byte at a
 * time). When no byte of the command's follows (no stdin: the client's
 * stdin ends with the header), the first line is `<nonce> .` and the last
 * `dsh_end=<nonce>`: the wrapper then reads the header whole, in blocks, as
 * a script (`. /proc/self/fd/0`, or line by line to the end when its stdin
 * is not a pipe), runs nothing unless the end line came, and gives the
 * command `/dev/null`.
 *
 * It checks, in order, that it leads its own session (the engine must start
 * it so), the workdir, and the program; records its session; and says
 * `<nonce> s <sid>` as the first line of stderr, before anything of the
 * command runs. Any refusal is one line `<nonce> e <reason>` instead, and
 * nothing runs. After that line nothing the wrapper writes is a frame: a
 * command of the same user can read the nonce out of the wrapper's memory
 * (`/proc/$PPID/mem`), so no later line of stderr could be trusted. How the
 * command ended is the wrapper's exit status, which the engine's client
 * exits with (sshd and Docker read it from the kernel).
 *
 * The command runs in the foreground, in the wrapper's session, with the
 * header's environment applied last (so no name in it can change the
 * wrapper's own variables). Its stdout and stderr are FIFOs that two `cat`s
 * (which ignore SIGTERM, so the output of a command's own TERM trap still
 * gets out) copy to the wrapper's: a background process left holding them
 * keeps only the FIFO open, so once the command has ended and the copies
 * have drained for at most `dsh_grace`, the wrapper kills the copies and
 * exits, and the client exits with the status instead of waiting for that
 * process. Without `mkfifo` the command writes to the wrapper's stdout and
 * stderr directly, and such a process holds the client until it ends. The
 * wrapper catches SIGTERM, so it outlives a termination that its command
 * does not, to exit with the command's status; SIGKILL ends it too.
 */
/**
 * The part both wrappers share: read the header, check the session, the
 * workdir and the program, and record the session; a refusal is one line
 * \`<nonce> e <reason>\` on fd \`$dsh_frames\` (stderr, or the terminal).
 */
const WRAPPER_HEAD = `IFS= read -r n || exit 97
w=\${n#* } n=\${n%% *}
[ -n "$n" ] || exit 97
fail() { printf '%s e %s\\n' "$n" "$1" >&"$dsh_frames"; exit 97; }
if [ "$w" = . ]; then
  if [ -p /proc/self/fd/0 ]; then . /proc/self/fd/0
  else
    h=
    while IFS= read -r l; do h="$h$l
"; done
    eval "$h" || fail header
  fi
  [ "\${dsh_end-}" = "$n" ] || fail header
  dsh_stdin=0
else
  h=
  while IFS= read -r l; do
    [ "$l" = "$n" ] && break
    h="$h$l
"
  done
  [ "$l" = "$n" ] || fail header
  eval "$h" || fail header
fi
sid=$$
if { read -r st < /proc/$$/stat; } 2>/dev/null; then st=\${st##*) }; set -f; set -- $st; set +f; sid=$4; fi
[ "$sid" = "$$" ] || fail session
if [ -d "$dsh_cwd" ]; then cd -- "$dsh_cwd" 2>/dev/null || fail cwd-access
elif [ -e "$dsh_cwd" ]; then fail cwd-not-dir
else fail cwd-missing
fi
found() {
  case $1 in */*) [ -f "$1" ] && [ -x "$1" ]; return ;; esac
  o_=$IFS; IFS=:; set -f
  for p_ in \${dsh_path-/usr/bin:/bin}; do
    if [ -f "\${p_:-.}/$1" ] && [ -x "\${p_:-.}/$1" ]; then IFS=$o_; set +f; return 0; fi
  done
  IFS=$o_; set +f; return 1
}
if [ -n "\${dsh_cmd+set}" ]; then
  found "$dsh_shell" || fail shell
  set -- "$dsh_shell" -c "$dsh_cmd"
else
  eval "set -- $dsh_argv"
  found "$1" || fail program
fi
{ printf '%s' "\${dsh_mark-}" > "$dsh_dir/$sid"; } 2>/dev/null || fail supervisor
`;

/**
 * How both wrappers run the command, in a subshell: a session's command gets
 * its state file on fd 9, then the header's environment, then its program.
 */
const RUN_FUNCTION = `run() {
  if [ "\${dsh_state-}" = 1 ]; then exec 9>"$dsh_dir/$sid.s" || exit 97; fi
  unset PATH SHLVL PWD OLDPWD; dsh_env; exec "$@"
}
`;

export const WRAPPER_SCRIPT = `dsh_frames=2
${WRAPPER_HEAD}trap : TERM
o="$dsh_dir/$sid.o" e="$dsh_dir/$sid.e"
if mkfifo -m 600 "$o" "$e" 2>/dev/null; then
  (trap '' TERM; exec cat "$o") & co=$!
  (trap '' TERM; exec cat "$e" >&2) & ce=$!
else
  rm -f "$o" "$e" 2>/dev/null; co=
fi
printf '%s s %s\\n' "$n" "$sid" >&2
${RUN_FUNCTION}if [ -z "$co" ]; then
  if [ "$dsh_stdin" = 1 ]; then (run "$@"); else (run "$@") < /dev/null; fi
  exit
fi
if [ "$dsh_stdin" = 1 ]; then (run "$@") >"$o" 2>"$e"; else (run "$@") < /dev/null >"$o" 2>"$e"; fi
st=$?
exec </dev/null >/dev/null 2>&1
(trap 'kill "$w_" 2>/dev/null; exit 0' TERM; sleep "$dsh_grace" & w_=$!; wait "$w_"; kill -9 "$co" "$ce") & k=$!
for c_ in "$co" "$ce"; do
  wait "$c_"; while [ "$?" -gt 128 ] && kill -0 "$c_" 2>/dev/null; do wait "$c_"; done
done
kill "$k" 2>/dev/null
exit "$st"
`;

/**
 * The wrapper of one command on a terminal (\`docker exec -t\`, \`ssh -tt\`):
 * its fds are the engine's pseudo-terminal, so stdout and stderr are one
 * stream and what is sent to it is typed. It first turns the terminal raw
 * (no echo, no line editing, no signal keys, bytes as they are) and says
 * \`dsh-ready\`; only then is the header sent, and read as on a pipe. Its
 * first line (\`<nonce> s <sid>\` or a refusal) comes on the terminal,
 * before anything of the command runs, as the pipe wrapper's comes first
 * on stderr, once the terminal has its usual settings back (\`stty sane\`):
 * what is typed after that line (the request's \`stdin\` included) is
 * typed into a terminal as the command will see it. The command then runs
 * on it, in the foreground, at the size the header gives (set here, before
 * the command runs), and later sizes come from the supervisor (`z`) alone:
 * the client runs on a 0 × 0 terminal and sends none, so no size of its
 * own can land after a later one and undo it. Ctrl-C
 * reaches the command's group and the wrapper alike: the wrapper traps it
 * (a handler, not an ignore, which the command would inherit) so that it
 * outlives it and exits with the command's status.
 */
export const TERMINAL_WRAPPER_SCRIPT = `stty raw -echo 2>/dev/null || exit 97
printf 'dsh-ready\\n'
dsh_frames=1
${WRAPPER_HEAD}trap : TERM INT QUIT
stty sane 2>/dev/null
[ -z "\${dsh_rows-}" ] || stty rows "$dsh_rows" cols "$dsh_cols" 2>/dev/null
printf '%s s %s\\n' "$n" "$sid"
${RUN_FUNCTION}(run "$@")
exit $?
`;

/** The argv that starts a shell's supervisor on the engine. */
export function supervisorArgv(graceMs: number, heartbeatMs: number): string[] {
  return ["/bin/sh", "-c", SUPERVISOR_SCRIPT, "dsh-sup", String(graceMs), String(heartbeatMs)];
}

/** The argv that starts one command's wrapper on the engine, with an empty environment. */
export const WRAPPER_ARGV: readonly string[] = Object.freeze(["env", "-i", "/bin/sh", "-c", WRAPPER_SCRIPT, "dsh-run"]);

/** The argv of the wrapper of a command on a terminal, with an empty environment. */
export const TERMINAL_WRAPPER_ARGV: readonly string[] = Object.freeze([
  "env",
  "-i",
  "/bin/sh",
  "-c",
  TERMINAL_WRAPPER_SCRIPT,
  "dsh-run",
]);
