/**
 * The sandbox's seccomp filter: a classic BPF program, built here, that
 * bubblewrap installs (`--seccomp FD`) on the sandbox's init and on the
 * command before it runs. bubblewrap reads the raw program from the fd: an
 * array of `struct sock_filter` (`linux/filter.h`: u16 code, u8 jt, u8 jf,
 * u32 k; 8 bytes, in the machine's byte order, little-endian on both
 * architectures here). The kernel runs it on each system call over
 * `struct seccomp_data` (`linux/seccomp.h`).
 *
 * What it refuses, and why (`docs/sandbox.md` has the long form):
 *
 * - `ptrace`, `process_vm_readv`, `process_vm_writev`, `pidfd_getfd`: the
 *   sandbox's init (bubblewrap, pid 1 inside) runs as the command's user,
 *   so without this the command could make it call `setsid` and leave the
 *   session the library terminates.
 * - `keyctl`, `add_key`, `request_key`: the kernel keyrings are not
 *   namespaced; the command would share the harness's session keyring.
 * - `socket(AF_VSOCK, …)`: the hypervisor's sockets cross every network
 *   namespace.
 * - `socket(AF_UNIX, …)` under network `"none"`: a socket file of the host
 *   is reachable wherever the command can see it, read-only mount or not
 *   (`connect` needs only write permission on the socket, which its owner
 *   has), and the filter cannot read the path `connect` is given. So no
 *   unix socket can be made at all; `socketpair` (another call) still
 *   works, and so do pipes. Abstract sockets belong to the network
 *   namespace, which is the sandbox's own.
 * - `chmod`, `fchmod`, `fchmodat`, `fchmodat2` with a mode holding
 *   S_ISUID or S_ISGID, and `open`, `openat`, `creat`, `mknod`, `mknodat`
 *   creating a file with such a mode: inside, every mount is `nosuid`, but
 *   the host runs a file the command left in a writable root as it is.
 * - `io_uring_setup` (and its two companions): io_uring opens files and
 *   sockets in the kernel, where no filter looks at their arguments.
 * - `openat2` gets ENOSYS, not EPERM: its mode sits in a struct the filter
 *   cannot read, and ENOSYS makes the C library fall back to `openat`.
 * - Any other ABI than the host's native one: the x32 ABI on x86_64 gets
 *   EPERM; another architecture (i386 through `int 0x80`, AArch32) kills
 *   the process, since its system calls have other numbers.
 *
 * The numbers come from the kernel's tables: `arch/x86/entry/syscalls/
 * syscall_64.tbl` for x86_64 and `include/uapi/asm-generic/unistd.h` for
 * aarch64 (which has only the `*at` forms of open, chmod and mknod).
 *
 * @module
 */

import process from "node:process";
import { ShellSandboxError } from "../errors.ts";

/** The architectures the filter is built for. */
export type SeccompArch = "x86_64" | "aarch64";

/** `AUDIT_ARCH_*` (`linux/audit.h`): the ELF machine with the 64-bit and little-endian flags. */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = Object.freeze({
  x86_64: 0xc000003e,
  aarch64: 0xc00000b7,
});

/** System call numbers of one architecture; undefined where the architecture lacks the call. */
export interface SyscallNumbers {
  readonly ptrace: number;
  readonly process_vm_readv: number;
  readonly process_vm_writev: number;
  readonly pidfd_getfd: number;
  readonly keyctl: number;
  readonly add_key: number;
  readonly request_key: number;
  readonly io_uring_setup: number;
  readonly io_uring_enter: number;
  readonly io_uring_register: number;
  readonly socket: number;
  readonly chmod?: number;
  readonly fchmod: number;
  readonly fchmodat: number;
  readonly fchmodat2: number;
  readonly open?: number;
  readonly openat: number;
  readonly openat2: number;
  readonly creat?: number;
  readonly mknod?: number;
  readonly mknodat: number;
}

/** The numbers, from the kernel's tables (see the module's comment). */
export const SYSCALLS: Readonly<Record<SeccompArch, SyscallNumbers>> = Object.freeze({
  x86_64: Object.freeze({
    open: 2,
    socket: 41,
    creat: 85,
    chmod: 90,
    fchmod: 91,
    ptrace: 101,
    mknod: 133,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    openat: 257,
    mknodat: 259,
    fchmodat: 268,
    process_vm_readv: 310,
    process_vm_writev: 311,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    openat2: 437,
    pidfd_getfd: 438,
    fchmodat2: 452,
  }),
  aarch64: Object.freeze({
    mknodat: 33,
    fchmod: 52,
    fchmodat: 53,
    openat: 56,
    ptrace: 117,
    socket: 198,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    process_vm_readv: 270,
    process_vm_writev: 271,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    openat2: 437,
    pidfd_getfd: 438,
    fchmodat2: 452,
  }),
});

/** `SECCOMP_RET_*` (`linux/seccomp.h`). */
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
/** Fail the call with the errno in the low 16 bits. */
export const SECCOMP_RET_ERRNO = 0x00050000;
/** Let the call run. */
export const SECCOMP_RET_ALLOW = 0x7fff0000;
/** The errnos the filter answers with (`asm-generic/errno-base.h`, `asm-generic/errno.h`; both architectures). */
export const EPERM = 1;
/** Function not implemented. */
export const ENOSYS = 38;

/** The x32 ABI's flag in a system call number on x86_64 (`__X32_SYSCALL_BIT`). */
export const X32_SYSCALL_BIT = 0x40000000;
/** Protocol family of the hypervisor's sockets (`AF_VSOCK`). */
export const AF_VSOCK = 40;
/** Protocol family of local sockets (`AF_UNIX`, also `AF_LOCAL`). */
export const AF_UNIX = 1;
/** The mode bits a command may not set: S_ISUID | S_ISGID. */
export const SET_ID_BITS = 0o6000;
/** The open flags under which the mode argument is used (`O_CREAT`, `__O_TMPFILE`; same value on both architectures). */
export const CREATING_FLAGS = 0o100 | 0o20000000;

/** Classic BPF opcodes (`linux/bpf_common.h`): load word absolute, jump if equal / if any bit set, return. */
const LD_W_ABS = 0x00 | 0x00 | 0x20;
const JEQ_K = 0x05 | 0x10 | 0x00;
const JSET_K = 0x05 | 0x40 | 0x00;
const RET_K = 0x06 | 0x00;

/** Offsets in `struct seccomp_data`: `int nr; u32 arch; u64 instruction_pointer; u64 args[6]`. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of `args[i]` (little-endian): every argument the filter reads is an int or a mode. */
const argLow = (index: number): number => 16 + 8 * index;

/** The size of one `struct sock_filter`. */
export const INSTRUCTION_BYTES = 8;

/** A jump target: the next instruction, or a label. */
type Target = 0 | string;

/** One instruction before its labels are resolved. */
type Draft =
  | { readonly op: "ld"; readonly offset: number }
  | { readonly op: "jeq" | "jset"; readonly k: number; readonly yes: Target; readonly no: Target }
  | { readonly op: "ret"; readonly k: number }
  | { readonly op: "label"; readonly name: string };

/** The architecture the filter is built for on this host; a `ShellSandboxError` for any other. */
export function hostSeccompArch(): SeccompArch {
  if (process.arch === "x64") return "x86_64";
  if (process.arch === "arm64") return "aarch64";
  throw new ShellSandboxError(
    `the sandbox's seccomp filter is built for x86_64 and aarch64 only; this is ${process.arch}: ` +
      "create the shell without sandbox",
  );
}

/**
 * The filter for `arch`, as the bytes bubblewrap reads from `--seccomp FD`.
 * With `network` `"none"` (the default) it also refuses `socket(AF_UNIX,
 * …)`: see the module's comment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INSTRUCTION_BYTES, seccompProgram } from "./seccomp.ts";
 * const program = seccompProgram("x86_64");
 * assert.equal(program.length % INSTRUCTION_BYTES, 0); // whole instructions
 * // The first one loads seccomp_data.arch (offset 4): BPF_LD | BPF_W | BPF_ABS.
 * assert.deepEqual([...program.subarray(0, 8)], [0x20, 0, 0, 0, 4, 0, 0, 0]);
 * // With the host's network the filter leaves unix sockets alone, and is shorter.
 * assert.ok(seccompProgram("x86_64", "host").length < program.length);
 * ```
 */
export function seccompProgram(arch: SeccompArch, network: "none" | "host" = "none"): Uint8Array {
  const nr = SYSCALLS[arch];
  const drafts: Draft[] = [
    { op: "ld", offset: OFFSET_ARCH },
    { op: "jeq", k: AUDIT_ARCH[arch], yes: 0, no: "kill" },
    { op: "ld", offset: OFFSET_NR },
  ];
  // x32 calls carry the x86_64 arch value: only the number tells them apart.
  if (arch === "x86_64") drafts.push({ op: "jset", k: X32_SYSCALL_BIT, yes: "eperm", no: 0 });
  const refused = [
    nr.ptrace,
    nr.process_vm_readv,
    nr.process_vm_writev,
    nr.pidfd_getfd,
    nr.keyctl,
    nr.add_key,
    nr.request_key,
    nr.io_uring_setup,
    nr.io_uring_enter,
    nr.io_uring_register,
  ];
  for (const call of refused) drafts.push({ op: "jeq", k: call, yes: "eperm", no: 0 });
  drafts.push({ op: "jeq", k: nr.openat2, yes: "enosys", no: 0 });
  drafts.push({ op: "jeq", k: nr.socket, yes: "socket", no: 0 });
  // Which argument holds the mode, and for the opens which one holds the flags.
  const modeAt: [number | undefined, number][] = [
    [nr.chmod, 1],
    [nr.fchmod, 1],
    [nr.fchmodat, 2],
    [nr.fchmodat2, 2],
    [nr.creat, 1],
    [nr.mknod, 1],
    [nr.mknodat, 2],
  ];
  for (const [call, index] of modeAt) {
    if (call !== undefined) drafts.push({ op: "jeq", k: call, yes: `mode${index}`, no: 0 });
  }
  const opens: [number | undefined, number, number][] = [[nr.open, 1, 2], [nr.openat, 2, 3]];
  for (const [call, flags, mode] of opens) {
    if (call !== undefined) drafts.push({ op: "jeq", k: call, yes: `open${flags}${mode}`, no: 0 });
  }
  drafts.push({ op: "ret", k: SECCOMP_RET_ALLOW });

  drafts.push({ op: "label", name: "socket" }, { op: "ld", offset: argLow(0) });
  if (network === "none") drafts.push({ op: "jeq", k: AF_UNIX, yes: "eperm", no: 0 });
  drafts.push({ op: "jeq", k: AF_VSOCK, yes: "eperm", no: "allow" });
  for (const index of new Set(modeAt.filter(([call]) => call !== undefined).map(([, index]) => index))) {
    drafts.push({ op: "label", name: `mode${index}` }, ...modeCheck(index));
  }
  for (const [call, flags, mode] of opens) {
    if (call === undefined) continue;
    drafts.push({ op: "label", name: `open${flags}${mode}` }, { op: "ld", offset: argLow(flags) });
    // Without O_CREAT or O_TMPFILE the mode argument is ignored: nothing is created.
    drafts.push({ op: "jset", k: CREATING_FLAGS, yes: 0, no: "allow" }, ...modeCheck(mode));
  }
  drafts.push(
    { op: "label", name: "allow" },
    { op: "ret", k: SECCOMP_RET_ALLOW },
    { op: "label", name: "eperm" },
    { op: "ret", k: SECCOMP_RET_ERRNO | EPERM },
    { op: "label", name: "enosys" },
    { op: "ret", k: SECCOMP_RET_ERRNO | ENOSYS },
    { op: "label", name: "kill" },
    { op: "ret", k: SECCOMP_RET_KILL_PROCESS },
  );
  return assemble(drafts);
}

/** Refuses when the mode in argument `index` holds S_ISUID or S_ISGID; allows otherwise. */
function modeCheck(index: number): Draft[] {
  return [
    { op: "ld", offset: argLow(index) },
    { op: "jset", k: SET_ID_BITS, yes: "eperm", no: "allow" },
  ];
}

/**
 * Resolves the labels to forward offsets and encodes the instructions.
 * Classic BPF only jumps forward, at most 255 instructions for a
 * conditional jump: a target behind or too far is a bug here, so it throws.
 */
function assemble(drafts: readonly Draft[]): Uint8Array {
  const labels = new Map<string, number>();
  let count = 0;
  for (const draft of drafts) {
    if (draft.op === "label") labels.set(draft.name, count);
    else count++;
  }
  const bytes = new Uint8Array(count * INSTRUCTION_BYTES);
  const view = new DataView(bytes.buffer);
  let at = 0;
  for (const draft of drafts) {
    if (draft.op === "label") continue;
    const offset = (target: Target): number => {
      if (target === 0) return 0;
      const index = labels.get(target);
      const jump = index === undefined ? -1 : index - at - 1;
      if (jump < 0 || jump > 255) throw new ShellSandboxError(`seccomp: cannot jump from ${at} to ${target}`);
      return jump;
    };
    let code: number;
    let jt = 0;
    let jf = 0;
    let k: number;
    if (draft.op === "ld") {
      code = LD_W_ABS;
      k = draft.offset;
    } else if (draft.op === "ret") {
      code = RET_K;
      k = draft.k;
    } else {
      code = draft.op === "jeq" ? JEQ_K : JSET_K;
      jt = offset(draft.yes);
      jf = offset(draft.no);
      k = draft.k;
    }
    const base = at * INSTRUCTION_BYTES;
    view.setUint16(base, code, true);
    view.setUint8(base + 2, jt);
    view.setUint8(base + 3, jf);
    view.setUint32(base + 4, k >>> 0, true);
    at++;
  }
  return bytes;
}
