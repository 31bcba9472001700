/**
 * What the report says about the machine and the runtimes, so that a table
 * is never read without knowing where it was measured.
 *
 * @module
 */

/** The machine and runtimes of one bench run. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  /** The 1-minute load average when the bench started: other work on the machine skews every number. */
  loadAverage: string;
  deno: string;
  /** `node --version`, or undefined when no Node runs the Node leg. */
  node: string | undefined;
  /** ISO date of the run. */
  date: string;
}

function readOr(file: string, fallback: string): string {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return fallback;
  }
}

/** Describes this machine; `node` is the Node binary of the Node leg, if any. */
export async function describeMachine(node: string | undefined): Promise<MachineInfo> {
  const cpuinfo = readOr("/proc/cpuinfo", "");
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1].trim() ?? Deno.build.arch;
  const memKiB = Number(/^MemTotal:\s+(\d+) kB/m.exec(readOr("/proc/meminfo", ""))?.[1] ?? NaN);
  return {
    cpuModel,
    cores: navigator.hardwareConcurrency,
    memoryGiB: memKiB / (1024 * 1024),
    kernel: `${Deno.build.os} ${readOr("/proc/sys/kernel/osrelease", "").trim()}`.trim(),
    loadAverage: readOr("/proc/loadavg", "?").split(" ").slice(0, 3).join(" "),
    deno: Deno.version.deno,
    node: node === undefined ? undefined : await nodeVersion(node),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  };
}

async function nodeVersion(node: string): Promise<string | undefined> {
  try {
    const { stdout, success } = await new Deno.Command(node, { args: ["--version"], stdin: "null" }).output();
    return success ? new TextDecoder().decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `/proc/loadavg`'s first three fields now. */
export function loadAverageNow(): string {
  return readOr("/proc/loadavg", "?").split(" ").slice(0, 3).join(" ");
}
