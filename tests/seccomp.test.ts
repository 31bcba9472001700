/**
 * The sandbox's seccomp program (src/seam/sandbox/seccomp.ts), run here by
 * a classic-BPF interpreter of the test's own over `struct seccomp_data`
 * values, for both architectures it is built for; and its system call
 * numbers, held against the kernel headers where this machine has them.
 * The sandbox tests (tests/sandbox.test.ts) attack the installed filter
 * with real system calls.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import {
  hostSeccompArch,
  type SeccompArch,
  seccompProgram,
  type SyscallNumbers,
  SYSCALLS,
} from "../src/seam/sandbox/seccomp.ts";

/** What the kernel does with a call, decoded from the program's return value. */
type Verdict = "allow" | "EPERM" | "ENOSYS" | "kill" | `other ${number}`;

/** `struct seccomp_data`, as the test builds it: each argument as a 64-bit value. */
interface SeccompData {
  nr: number;
  arch: number;
  args?: bigint[];
}

// The values below are written from linux/seccomp.h, linux/audit.h and linux/filter.h, apart from the module's own.
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const ARCH = { x86_64: 0xc000003e, aarch64: 0xc00000b7, i386: 0x40000003, arm: 0x40000028 };
const O_CREAT = 0o100;
const O_WRONLY = 0o1;
/** __O_TMPFILE | O_DIRECTORY: O_DIRECTORY is 0200000 on x86_64 and 040000 on aarch64 (asm/fcntl.h). */
const O_TMPFILE = { x86_64: 0o20000000 | 0o200000, aarch64: 0o20000000 | 0o40000 };
const S_IFREG = 0o100000;
const S_IFIFO = 0o10000;

/** The 64-byte `struct seccomp_data` (little-endian): nr, arch, instruction_pointer, args[6]. */
function encode(data: SeccompData): DataView {
  const view = new DataView(new ArrayBuffer(64));
  view.setInt32(0, data.nr, true);
  view.setUint32(4, data.arch, true);
  view.setBigUint64(8, 0x401000n, true);
  (data.args ?? []).forEach((arg, index) => view.setBigUint64(16 + 8 * index, BigInt.asUintN(64, arg), true));
  return view;
}

/**
 * Runs `program` over `data` as the kernel's classic-BPF interpreter would,
 * for the instructions a seccomp filter may hold. Refuses (throws) what the
 * kernel's checker refuses: an unknown opcode, a load outside
 * seccomp_data or unaligned, a jump out of the program, no return at the end.
 */
function run(program: Uint8Array, data: SeccompData): number {
  assert.equal(program.length % 8, 0, "whole instructions");
  const count = program.length / 8;
  assert.ok(count > 0 && count <= 4096, `BPF_MAXINSNS: ${count}`);
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const input = encode(data);
  let accumulator = 0;
  for (let pc = 0; pc < count;) {
    const op = code.getUint16(pc * 8, true);
    const jt = code.getUint8(pc * 8 + 2);
    const jf = code.getUint8(pc * 8 + 3);
    const k = code.getUint32(pc * 8 + 4, true);
    const next = (skip: number): number => {
      const target = pc + 1 + skip;
      assert.ok(target < count, `jump out of the program at ${pc}`);
      return target;
    };
    switch (op) {
      case 0x20: // BPF_LD | BPF_W | BPF_ABS
        assert.ok(k % 4 === 0 && k + 4 <= 64, `load at ${k} (instruction ${pc})`);
        accumulator = input.getUint32(k, true);
        pc++;
        break;
      case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
        pc = next(accumulator === k ? jt : jf);
        break;
      case 0x45: // BPF_JMP | BPF_JSET | BPF_K
        pc = next((accumulator & k) !== 0 ? jt : jf);
        break;
      case 0x06: // BPF_RET | BPF_K
        return k;
      default:
        throw new Error(`unknown opcode ${op.toString(16)} at ${pc}`);
    }
  }
  throw new Error("the program ran off its end");
}

function verdict(program: Uint8Array, data: SeccompData): Verdict {
  const value = run(program, data);
  if (value === RET_ALLOW) return "allow";
  if (value === RET_KILL_PROCESS) return "kill";
  if (value === (RET_ERRNO | 1)) return "EPERM";
  if (value === (RET_ERRNO | 38)) return "ENOSYS";
  return `other ${value}`;
}

for (const arch of ["x86_64", "aarch64"] as const) {
  describe(`the seccomp program for ${arch}`, () => {
    const program = seccompProgram(arch);
    const nr: SyscallNumbers = SYSCALLS[arch];
    const call = (number: number, args: (number | bigint)[] = []): Verdict =>
      verdict(program, { nr: number, arch: ARCH[arch], args: args.map(BigInt) });

    it("kills a call of any other architecture (i386, AArch32, the other 64-bit one)", () => {
      const others = [ARCH.i386, ARCH.arm, arch === "x86_64" ? ARCH.aarch64 : ARCH.x86_64];
      for (const other of others) {
        // Number 0 is read on x86_64 and io_setup on aarch64: harmless natively, refused under another ABI.
        assert.equal(verdict(program, { nr: 0, arch: other }), "kill", other.toString(16));
        assert.equal(verdict(program, { nr: nr.ptrace, arch: other }), "kill");
      }
    });

    it("lets ordinary calls through", () => {
      // read, write, execve, getpid (x86_64: 0, 1, 59, 39; aarch64: 63, 64, 221, 172).
      const ordinary = arch === "x86_64" ? [0, 1, 59, 39] : [63, 64, 221, 172];
      for (const number of ordinary) assert.equal(call(number, [3, 0o4755, 0o4755, 0o4755]), "allow", `${number}`);
    });

    it("refuses ptrace, process_vm_readv/writev, pidfd_getfd, the keyrings and io_uring with EPERM", () => {
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
      for (const number of refused) {
        assert.equal(call(number), "EPERM", `${number}`);
        assert.equal(call(number, [0x4206, 1, 0, 0]), "EPERM", `${number}`);
      }
    });

    it("answers openat2 with ENOSYS, so that the C library falls back to openat", () => {
      assert.equal(call(nr.openat2, [-100, 0x1000, 0x2000, 24]), "ENOSYS");
    });

    it("refuses AF_VSOCK and AF_UNIX sockets only; the low 32 bits of the domain are what the kernel reads", () => {
      for (const domain of [40, 1]) assert.equal(call(nr.socket, [domain, 1, 0]), "EPERM", `${domain}`);
      for (const domain of [2, 10, 16]) assert.equal(call(nr.socket, [domain, 1, 0]), "allow", `${domain}`);
      assert.equal(call(nr.socket, [(1n << 32n) | 40n, 1, 0]), "EPERM");
      assert.equal(call(nr.socket, [(1n << 32n) | 1n, 1, 0]), "EPERM");
      assert.equal(call(nr.socket, [(40n << 32n) | 2n, 1, 0]), "allow");
      // socketpair(AF_UNIX, …) is another call (x86_64 53, aarch64 199: the kernel's tables): it still works.
      assert.equal(call(arch === "x86_64" ? 53 : 199, [1, 1, 0, 0]), "allow");
    });

    it("with the host's network, lets AF_UNIX sockets through and still refuses AF_VSOCK", () => {
      const host = seccompProgram(arch, "host");
      const socket = (domain: number): Verdict =>
        verdict(host, { nr: nr.socket, arch: ARCH[arch], args: [BigInt(domain)] });
      assert.equal(socket(1), "allow");
      assert.equal(socket(2), "allow");
      assert.equal(socket(40), "EPERM");
      assert.equal(verdict(host, { nr: nr.ptrace, arch: ARCH[arch] }), "EPERM");
    });

    it("refuses a chmod that sets S_ISUID or S_ISGID, in the argument each call takes the mode in", () => {
      const chmods: [number | undefined, number][] = [
        [nr.chmod, 1],
        [nr.fchmod, 1],
        [nr.fchmodat, 2],
        [nr.fchmodat2, 2],
      ];
      for (const [number, index] of chmods) {
        if (number === undefined) continue;
        const withMode = (mode: number | bigint): Verdict => {
          const args: (number | bigint)[] = [-100, 0x1000, 0, 0];
          args[index] = mode;
          return call(number, args);
        };
        for (const mode of [0o4755, 0o2755, 0o6755, 0o4000, 0o2000, 0o7777]) {
          assert.equal(withMode(mode), "EPERM", `${number} ${mode.toString(8)}`);
        }
        for (const mode of [0o755, 0o644, 0o1777, 0o777, 0]) {
          assert.equal(withMode(mode), "allow", `${number} ${mode.toString(8)}`);
        }
        // The kernel reads a umode_t: bits above the low 32 change nothing, either way.
        assert.equal(withMode((1n << 40n) | 0o755n), "allow");
        assert.equal(withMode((1n << 40n) | 0o4755n), "EPERM");
        // The mode in another argument does not count.
        const elsewhere: (number | bigint)[] = [0o4755, 0o4755, 0o4755, 0o4755];
        elsewhere[index] = 0o755;
        assert.equal(call(number, elsewhere), "allow", `${number}`);
      }
    });

    it("refuses creating a file whose mode sets S_ISUID or S_ISGID: open, openat, creat, mknod, mknodat", () => {
      const opens: [number | undefined, number, number][] = [[nr.open, 1, 2], [nr.openat, 2, 3]];
      for (const [number, flagsAt, modeAt] of opens) {
        if (number === undefined) continue;
        const open = (flags: number, mode: number): Verdict => {
          const args = [-100, 0x1000, 0, 0];
          args[flagsAt] = flags;
          args[modeAt] = mode;
          return call(number, args);
        };
        assert.equal(open(O_CREAT | O_WRONLY, 0o4755), "EPERM");
        assert.equal(open(O_CREAT | O_WRONLY, 0o2755), "EPERM");
        assert.equal(open(O_TMPFILE[arch] | O_WRONLY, 0o4755), "EPERM");
        assert.equal(open(O_CREAT | O_WRONLY, 0o755), "allow");
        // Without O_CREAT or O_TMPFILE nothing is created and the mode is ignored: allowed whatever it holds.
        assert.equal(open(O_WRONLY, 0o4755), "allow");
        assert.equal(open(0, 0o6777), "allow");
      }
      if (nr.creat !== undefined) {
        assert.equal(call(nr.creat, [0x1000, 0o4755]), "EPERM");
        assert.equal(call(nr.creat, [0x1000, 0o644]), "allow");
      }
      if (nr.mknod !== undefined) {
        assert.equal(call(nr.mknod, [0x1000, S_IFREG | 0o4755, 0]), "EPERM");
        assert.equal(call(nr.mknod, [0x1000, S_IFIFO | 0o644, 0]), "allow");
      }
      assert.equal(call(nr.mknodat, [-100, 0x1000, S_IFREG | 0o2755, 0]), "EPERM");
      assert.equal(call(nr.mknodat, [-100, 0x1000, S_IFIFO | 0o644, 0]), "allow");
    });

    if (arch === "x86_64") {
      it("refuses every call of the x32 ABI with EPERM", () => {
        for (const number of [0, 1, 2, 59, 101, 512, 545]) {
          assert.equal(call(0x40000000 + number, [0, 0, 0, 0]), "EPERM", `${number}`);
        }
      });
    } else {
      it("has no open, chmod, creat or mknod, and reads x86_64's numbers of them as other calls", () => {
        assert.deepEqual([nr.open, nr.chmod, nr.creat, nr.mknod], [undefined, undefined, undefined, undefined]);
        // 2, 85, 90, 133 are io_submit, timerfd_gettime, capget and rt_sigtimedwait here.
        for (const number of [2, 85, 90, 133]) assert.equal(call(number, [0, 0o4755, 0o4755, 0o4755]), "allow");
      });
    }
  });
}

describe("the seccomp numbers", () => {
  it("are the kernel headers' where this machine has them", { skip: !hasHeaders() && "no kernel headers" }, () => {
    const headers: [SeccompArch, string][] = [
      ["x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"],
      ["x86_64", "/usr/include/asm/unistd_64.h"],
      ["aarch64", "/usr/include/asm-generic/unistd.h"],
    ];
    let compared = 0;
    for (const [arch, file] of headers) {
      if (!existsSync(file)) continue;
      const defined = new Map<string, number>();
      for (const match of readFileSync(file, "utf8").matchAll(/^#define __NR_(\w+)\s+(\d+)\s*$/gm)) {
        defined.set(match[1], Number(match[2]));
      }
      for (const [name, number] of Object.entries(SYSCALLS[arch])) {
        // Older headers lack the newest calls (fchmodat2 came with Linux 6.6): nothing to compare then.
        if (!defined.has(name)) continue;
        assert.equal(number, defined.get(name), `${arch} ${name} (${file})`);
        compared++;
      }
      if (arch === "aarch64") {
        for (const name of ["open", "chmod", "creat", "mknod"]) assert.equal(defined.has(name), false, name);
      }
    }
    assert.ok(compared >= 20, `only ${compared} numbers compared`);
  });

  it("the filter is built for this host's architecture, or the sandbox refuses to start", () => {
    if (process.arch === "x64") assert.equal(hostSeccompArch(), "x86_64");
    else if (process.arch === "arm64") assert.equal(hostSeccompArch(), "aarch64");
    else assert.throws(() => hostSeccompArch(), { name: "ShellSandboxError" });
  });

  it("the program is laid out as struct sock_filter: u16 code, u8 jt, u8 jf, u32 k, little-endian", () => {
    const program = seccompProgram("x86_64");
    // ld [4] (arch); jeq AUDIT_ARCH_X86_64, 0, kill; ld [0] (nr).
    assert.deepEqual([...program.subarray(0, 8)], [0x20, 0x00, 0, 0, 4, 0, 0, 0]);
    assert.deepEqual([...program.subarray(8, 12)], [0x15, 0x00, 0, program[11]]);
    assert.deepEqual([...program.subarray(12, 16)], [0x3e, 0x00, 0x00, 0xc0]);
    assert.deepEqual([...program.subarray(16, 24)], [0x20, 0x00, 0, 0, 0, 0, 0, 0]);
    // The jump to the kill lands on the last instruction: ret SECCOMP_RET_KILL_PROCESS.
    const count = program.length / 8;
    assert.equal(2 + program[11], count - 1);
    assert.deepEqual([...program.subarray(program.length - 8)], [0x06, 0x00, 0, 0, 0, 0, 0, 0x80]);
  });
});

function hasHeaders(): boolean {
  return [
    "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
    "/usr/include/asm/unistd_64.h",
    "/usr/include/asm-generic/unistd.h",
  ].some(existsSync);
}
