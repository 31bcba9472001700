/**
 * The one program every file operation runs where the shell's commands run:
 * a fixed POSIX `sh` script, started in the argv form (`sh -c SCRIPT
 * dsh-files OP PATH …`), so a path is an argument and never part of a
 * command line, and content comes on stdin. It runs through the shell's own
 * pipeline, so the sandbox's kernel (bubblewrap's mounts, the read-only
 * roots) decides what can be read and written, and on Docker and SSH the
 * files are the engine's. It needs only what busybox has: `sh`, `head`,
 * `tail`, `tr`, `wc`, `stat`, `cat`, `mv`, `rm`, `readlink`, `dirname`.
 *
 * Its answer is its exit status (the table {@linkcode FILE_STATUS}); what it
 * prints on stdout is the data asked for, bounded by the host's arguments.
 *
 * @module
 */

/** The script's exit statuses, besides 0: what went wrong, as the host words it. */
export const FILE_STATUS = {
  /** The path, or its parent directory, does not exist. */
  missing: 3,
  /** The kernel refused: not readable, not writable, or a directory that cannot be searched. */
  denied: 4,
  /** A directory was given where a file was expected. */
  directory: 5,
  /** Not a regular file (a device, a FIFO, a socket, or a path the sandbox masked with `/dev/null`). */
  special: 6,
  /** NUL bytes in the first 8 KiB: a binary file. */
  binary: 7,
  /** The parent of the path is not a directory. */
  notDirectory: 8,
  /** Larger than the bound of a whole read (`cat`): refused before a byte of it is read. */
  tooLarge: 9,
} as const;

/**
 * The script. Operations (every path absolute, checked by the host):
 * - `read PATH OFFSET LINES BYTES`: checks, then prints the file's size on
 *   one line, then at most `BYTES` bytes of lines `OFFSET..OFFSET+LINES-1`.
 * - `count PATH`: the file's size, then the number of newlines in it
 *   (`wc -l`), one to a line.
 * - `cat PATH BYTES`: checks (a file larger than `BYTES` is refused before
 *   any of it is read), then the size on one line, then at most `BYTES`
 *   bytes of the file.
 * - `write PATH PARENT TOKEN MODE`: (with MODE `parents`, the parent
 *   directories made first, as `mkdir -p`) stdin into `PARENT/.dsh-write-TOKEN`
 *   (created exclusively), then renamed over the path (over a symbolic
 *   link's target, in the target's directory); the mode of a file replaced
 *   is kept; prints `created` or `replaced`.
 * - `delete PATH`: removes a regular file (or a symbolic link).
 */
export const FILE_SCRIPT: string = `
set -u
op=$1 p=$2
# Why "$1" cannot be used: its parent is missing or not a directory, cannot be searched, or it is missing itself.
# (Each $(…) ends in "x" and drops it with the newline before: a name may end in newlines of its own.)
absent() {
  d=$(dirname "$1"; echo x) && d=\${d%?x}
  if [ -d "$d" ]; then
    [ -x "$d" ] || exit ${FILE_STATUS.denied}
    exit ${FILE_STATUS.missing}
  fi
  [ -e "$d" ] && exit ${FILE_STATUS.notDirectory}
  exit ${FILE_STATUS.missing}
}
# A file that can be read as text: exists, regular, readable, no NUL in its first 8 KiB.
readable() {
  [ -d "$1" ] && exit ${FILE_STATUS.directory}
  [ -e "$1" ] || absent "$1"
  [ -f "$1" ] || exit ${FILE_STATUS.special}
  [ -r "$1" ] || exit ${FILE_STATUS.denied}
  { : <"$1"; } 2>/dev/null || exit ${FILE_STATUS.denied}
  all=$(head -c 8192 "$1" | wc -c) || exit ${FILE_STATUS.denied}
  text=$(head -c 8192 "$1" | tr -d '\\000' | wc -c)
  [ "$all" -eq "$text" ] || exit ${FILE_STATUS.binary}
}
case $op in
read)
  readable "$p"
  stat -L -c %s "$p" || exit ${FILE_STATUS.denied}
  tail -n "+$3" "$p" | head -n "$4" | head -c "$5"
  ;;
count)
  readable "$p"
  stat -L -c %s "$p" || exit ${FILE_STATUS.denied}
  wc -l <"$p"
  ;;
cat)
  readable "$p"
  size=$(stat -L -c %s "$p") || exit ${FILE_STATUS.denied}
  [ "$size" -le "$3" ] || exit ${FILE_STATUS.tooLarge}
  echo "$size"
  head -c "$3" "$p"
  ;;
write)
  d=$3
  if [ ! -d "$d" ] && [ "$5" = parents ]; then
    mkdir -p "$d" 2>/dev/null || { [ -e "$d" ] && exit ${FILE_STATUS.notDirectory}; exit ${FILE_STATUS.denied}; }
  fi
  [ -d "$d" ] || absent "$p"
  [ -d "$p" ] && exit ${FILE_STATUS.directory}
  target=$p
  if [ -L "$p" ]; then
    target=$(readlink -f "$p" && echo x) || exit ${FILE_STATUS.missing}
    target=\${target%?x}
    d=$(dirname "$target"; echo x) && d=\${d%?x}
    [ -d "$d" ] || absent "$target"
    [ -d "$target" ] && exit ${FILE_STATUS.directory}
  fi
  if [ -e "$target" ] && [ ! -f "$target" ]; then exit ${FILE_STATUS.special}; fi
  t="$d/.dsh-write-$4"
  [ -e "$t" ] && exit ${FILE_STATUS.denied}
  set -C
  { cat >"$t"; } 2>/dev/null || { rm -f "$t"; exit ${FILE_STATUS.denied}; }
  set +C
  if [ -e "$target" ]; then
    mode=$(stat -L -c %a "$target") && chmod "$mode" "$t"
  fi
  state=created
  [ -e "$target" ] && state=replaced
  mv -f "$t" "$target" 2>/dev/null || { rm -f "$t"; exit ${FILE_STATUS.denied}; }
  echo "$state"
  ;;
delete)
  [ -d "$p" ] && exit ${FILE_STATUS.directory}
  [ -e "$p" ] || [ -L "$p" ] || absent "$p"
  if [ ! -L "$p" ] && [ ! -f "$p" ]; then exit ${FILE_STATUS.special}; fi
  rm -f "$p" 2>/dev/null || exit ${FILE_STATUS.denied}
  [ -e "$p" ] && exit ${FILE_STATUS.denied}
  ;;
*)
  exit 2
  ;;
esac
exit 0
`;
