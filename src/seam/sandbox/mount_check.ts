/**
 * The last look before a sandboxed command runs, from inside the sandbox:
 * did each bind land where it was meant to, with what it was meant to
 * hold? The library checks each path before it hands it to bubblewrap, and
 * bubblewrap mounts it a few milliseconds later, following symbolic links
 * on the way, once for the source and once for the destination. A command
 * of an older sandbox (one set up before the path existed, so nothing there
 * is pinned for it) can swap a directory for a link in between, and a
 * `--bind <dir> <dir>` then binds a host directory such as `/etc` writable,
 * at the link's target or even at `<dir>` itself. The mount table of the
 * finished sandbox cannot be raced: no process in it can mount. So a small
 * `bash` step reads `/proc/self/mountinfo` first. Each bind from inside a
 * writable root must be there, at its own path, and every mount at that
 * path must show the file system and the directory within it that the host
 * has at that path (mountinfo's device and root fields); each mask must be
 * there. Anything else is a refusal (exit 125 with its own message, which
 * {@linkcode isMountRefusal} recognises); otherwise it `exec`s the command,
 * which keeps its pid.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { isUnder } from "./paths.ts";

/** The exit code of a refusal: the command never ran. */
export const MOUNT_REFUSED_CODE = 125;

/** How the refusal's message starts, on its own line of stderr. */
const REFUSED = "dsh-sandbox: refused:";

/** Where a process reads the mounts of its own namespace. */
const MOUNTINFO = "/proc/self/mountinfo";

/**
 * The names that carry a sandboxed command's environment through the
 * launcher and bubblewrap (`SANDBOX_ENV_PREFIX<n>` = `NAME=value`): no value
 * is ever an argument of any process, where every user reads it (`ps`).
 * Only this step, inside the sandbox, makes them the command's variables.
 */
export const SANDBOX_ENV_PREFIX = "DSH_SANDBOX_ENV_";

/** What an expectation's device and root are when only the mount's presence is checked. */
const ANY = "-";

/**
 * `$1` is the mountinfo file, `$2` the number of expectations, then three
 * arguments each (mount point, device, root, as mountinfo spells them; `-`
 * for any); the rest is the command.
 */
const CHECK = [
  "info=$1; count=$2; shift 2; declare -A dev root seen; order=()",
  'for ((i = 0; i < count; i++)); do dev[$1]=$2; root[$1]=$3; order+=("$1"); shift 3; done',
  // One read of the whole table: `while read` on a /proc file reads a line at a time and seeks back after each,
  // and every seek makes the kernel generate the table again (2 system calls a mount).
  'mapfile -t mounts < "$info"; set -f',
  'for line in "${mounts[@]}"; do',
  "  fields=($line); d=${fields[2]-} r=${fields[3]-} point=${fields[4]-}",
  "  [[ -v dev[$point] ]] || continue",
  '  if [[ ${dev[$point]} != - && ( $d != "${dev[$point]}" || $r != "${root[$point]}" ) ]]; then',
  `    echo "${REFUSED} the mount at $point holds $r of $d, not \${root[$point]} of \${dev[$point]} ` +
  `(a directory was swapped for a link while the sandbox was set up)" >&2`,
  `    exit ${MOUNT_REFUSED_CODE}`,
  "  fi",
  "  seen[$point]=1",
  "done",
  "set +f",
  `(( \${#mounts[@]} > 0 )) || { echo "${REFUSED} $info could not be read" >&2; exit ${MOUNT_REFUSED_CODE}; }`,
  'for point in "${order[@]}"; do',
  "  [[ -v seen[$point] ]] && continue",
  `  echo "${REFUSED} nothing is mounted at $point (a directory was swapped for a link while the sandbox was set ` +
  `up)" >&2`,
  `  exit ${MOUNT_REFUSED_CODE}`,
  "done",
];

/**
 * The command's environment, which came through bubblewrap's environment,
 * never its argv (`launcher.ts`), and then the command. bash's `exec` hands
 * on SHLVL one lower: a SHLVL of the command's is raised by one first, so
 * that it gets its own.
 */
const ENVIRONMENT_AND_EXEC = [
  `s=; for v in "\${!${SANDBOX_ENV_PREFIX}@}"; do e=\${!v}; unset "$v"; [[ $e == SHLVL=* ]] && s=1; ` +
  `export "$e" 2>/dev/null; done; [[ -n $s && $SHLVL =~ ^[0-9]+$ ]] && SHLVL=$((SHLVL + 1)); unset v e s`,
  'exec "$@"',
];

/** The check alone, as tests run it on tables of their own (no fd is closed, no init looked at). */
const SCRIPT = [...CHECK, ...ENVIRONMENT_AND_EXEC].join("\n");

/** How long the check waits for the sandbox's init to close what it inherited, in microseconds. */
const INIT_WAIT_MICROSECONDS = 5_000_000;

/**
 * The fd guard, first: every fd but 0–2 and `keep` is closed, and any left
 * open is a refusal, as is a `/proc` that cannot list them. The launcher
 * before bubblewrap may be `dash`, which cannot name an fd above 9, so an
 * fd the harness process inherited without close-on-exec (a directory, from
 * which `/proc/self/fd/N/..` walks the host's tree) reaches this step, and
 * dies here, before any of the command's code runs.
 */
function closeFds(keep: readonly number[]): string[] {
  const kept = [0, 1, 2, ...keep].map((fd) => String(Math.trunc(fd))).join("|");
  return [
    "for pass in close check; do",
    "  for fd in /proc/self/fd/*; do",
    "    fd=${fd##*/}",
    "    case $fd in",
    `      ${kept}) ;;`,
    `      ''|*[!0-9]*) echo "${REFUSED} the open fds in /proc/self/fd could not be listed" >&2; exit ${MOUNT_REFUSED_CODE} ;;`,
    "      *) if [[ $pass = close ]]; then exec {fd}<&-",
    // The listing's own fd is closed by now; anything else still open was not closed.
    `         elif [[ -L /proc/self/fd/$fd ]]; then echo "${REFUSED} fd $fd stayed open" >&2; exit ${MOUNT_REFUSED_CODE}; fi ;;`,
    "    esac",
    "  done",
    "done",
    "unset pass fd",
  ];
}

/**
 * The fd guard, last (before the environment, whose locale variables would
 * change how bash spells the clock): bubblewrap's init (pid 1 inside, the
 * command's user, dumpable) inherits what bubblewrap had and closes it all
 * but fds 0–2 and an eventfd right after its fork, in parallel with this
 * step. A command that ran before it had could open an inherited fd
 * through `/proc/1/fd/N`. So the command runs only once `/proc/1/fd` holds
 * nothing but 0–2 and at most one other fd, which its fdinfo shows to be
 * an eventfd (bubblewrap's own); a `/proc/1/fd` that cannot be listed, or
 * an init still holding more after 5 s, is a refusal.
 */
const INIT_CHECK = [
  `deadline=$(( \${EPOCHREALTIME//[!0-9]/} + ${INIT_WAIT_MICROSECONDS} ))`,
  "while :; do",
  "  n=0 bad=",
  "  for f in /proc/1/fd/*; do",
  "    f=${f##*/}",
  "    case $f in",
  "      0|1|2) ;;",
  "      ''|*[!0-9]*) bad=1 ;;",
  // bash cannot read a link, and its `-f` holds for an anonymous inode too: the fd's fdinfo names an eventfd.
  "      *) n=$((n + 1)) ev=; lines=(); mapfile -t lines 2>/dev/null < /proc/1/fdinfo/$f",
  '         for l in "${lines[@]}"; do [[ $l == eventfd-count:* ]] && ev=1; done; [[ -n $ev ]] || bad=1 ;;',
  "    esac",
  "  done",
  "  [[ -z $bad && $n -le 1 ]] && break",
  `  (( \${EPOCHREALTIME//[!0-9]/} < deadline )) || { echo "${REFUSED} the sandbox's init still holds fds it ` +
  `inherited" >&2; exit ${MOUNT_REFUSED_CODE}; }`,
  "done",
  "unset deadline n bad f ev lines l",
];

/** What the check step runs: with `guard`, the fd guard around the check (see {@linkcode mountCheckArgs}). */
function scriptFor(guard: FdGuard | undefined): string {
  if (guard === undefined) return SCRIPT;
  return [...closeFds(guard.keep), ...CHECK, ...INIT_CHECK, ...ENVIRONMENT_AND_EXEC].join("\n");
}

/**
 * The step's fd guard, for a step that runs as pid 2 of bubblewrap's pid
 * namespace (the library's own use).
 */
export interface FdGuard {
  /** The fds besides 0–2 that the command keeps (a session's `STATE_FD`). */
  readonly keep: readonly number[];
}

/** One mount of the host, as `/proc/self/mountinfo` lists it. */
interface HostMount {
  /** `major:minor` of the file system. */
  readonly device: string;
  /** The directory of the file system that is mounted, decoded. */
  readonly root: string;
  /** Where it is mounted, decoded. */
  readonly point: string;
}

/** What the check holds one mount point to. */
export interface MountExpectation {
  /** The mount point, real. */
  readonly point: string;
  /** Bound from the host's own `point`: its file system and directory must be the host's. Otherwise only present. */
  readonly sameAsHost: boolean;
}

/**
 * The argv that checks the sandbox's mounts against `expected` and then
 * runs the command that follows it. `bash` is an absolute path; `files`
 * say where the host's mount table is read now and where the check reads
 * the sandbox's (both `/proc/self/mountinfo`, each in its own namespace;
 * tests give files of their own). With `guard`, the step first closes
 * every fd but 0–2 and `guard.keep`, and runs the command only once the
 * sandbox's init holds none it inherited (the launcher's `dash` could not
 * close them: `launcher.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mountCheckArgs } from "./mount_check.ts";
 * const argv = mountCheckArgs("/usr/bin/bash", [{ point: "/tmp/a b", sameAsHost: false }]);
 * assert.deepEqual(argv.slice(0, 3), ["/usr/bin/bash", "--norc", "-p"]);
 * assert.deepEqual(argv.slice(6), ["/proc/self/mountinfo", "1", "/tmp/a\\040b", "-", "-"]);
 * ```
 */
export function mountCheckArgs(
  bash: string,
  expected: readonly MountExpectation[],
  files: { readonly host: string; readonly inside: string } = { host: MOUNTINFO, inside: MOUNTINFO },
  guard?: FdGuard,
): string[] {
  const host = expected.some((expectation) => expectation.sameAsHost) ? hostMounts(files.host) : [];
  const triples = expected.flatMap(({ point, sameAsHost }) => {
    if (!sameAsHost) return [encode(point), ANY, ANY];
    const mount = containing(host, point);
    // No mount of the host holds it (cannot be on Linux): at least it must be there.
    if (mount === undefined) return [encode(point), ANY, ANY];
    const below = relative(mount.point, point);
    const root = below === "" ? mount.root : mount.root === "/" ? `/${below}` : `${mount.root}/${below}`;
    return [encode(point), mount.device, encode(root)];
  });
  return [
    bash,
    "--norc",
    "-p",
    "-c",
    scriptFor(guard),
    "dsh-mounts",
    files.inside,
    String(expected.length),
    ...triples,
  ];
}

/**
 * Whether a sandboxed command's exit and stderr are the mount check's
 * refusal (then the command never ran). A command that prints the same
 * only makes its own result a `ShellSandboxError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isMountRefusal } from "./mount_check.ts";
 * assert.equal(isMountRefusal(125, "dsh-sandbox: refused: nothing is mounted at /srv/p/.git …\n"), true);
 * assert.equal(isMountRefusal(1, "dsh-sandbox: refused: …\n"), false);
 * ```
 */
export function isMountRefusal(exitCode: number | undefined, stderr: string): boolean {
  return exitCode === MOUNT_REFUSED_CODE && stderr.trimEnd().split("\n").at(-1)?.startsWith(REFUSED) === true;
}

/** The host's mounts, in the order listed (a later one at the same point is on top). */
function hostMounts(mountinfo: string): HostMount[] {
  let text = "";
  try {
    text = readFileSync(mountinfo, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter((line) => line !== "").map((line) => {
    const [, , device, root, point] = line.split(" ");
    return { device, root: decode(root), point: decode(point) };
  });
}

/** The mount `path` is on: the deepest mount point above it, the last one listed there. */
function containing(mounts: readonly HostMount[], path: string): HostMount | undefined {
  let found: HostMount | undefined;
  for (const mount of mounts) {
    if (isUnder(path, mount.point) && (found === undefined || mount.point.length >= found.point.length)) {
      found = mount;
    }
  }
  return found;
}

/** A path as mountinfo spells it: space, tab, newline and backslash as octal escapes. */
function encode(path: string): string {
  return path.replace(/[\\ \t\n]/g, (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

/** A mountinfo field as the path it spells. */
function decode(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
