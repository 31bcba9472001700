/**
 * The released agent binaries the hook bridge is compared with, at pinned
 * versions, installed from npm into the clone's own cache
 * (`node_modules/.cache/dsh-agents/`, git-ignored) on first use: the native
 * binary of the platform's package, run directly. With
 * `DSH_REQUIRE_AGENTS=1` (CI) a binary that cannot be had fails the tests
 * that need it; elsewhere they are skipped.
 *
 * Nothing here imports the library.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The Claude Code release the bridge is measured against (docs/hooks.md names it). */
export const CLAUDE_CODE_VERSION = "2.1.328";

/** Whether a missing binary fails (CI) rather than skips. */
export const REQUIRE_AGENTS: boolean = process.env.DSH_REQUIRE_AGENTS === "1";

/** The repository: the first directory above this file that holds `deno.json`. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "deno.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("deno.json not found above the tests");
    dir = parent;
  }
  return dir;
}

/** npm's name for this platform's native package, or undefined where Claude Code ships none we run. */
function claudePlatformPackage(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const arch = process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : undefined;
  if (arch === undefined) return undefined;
  // glibc unless the loader says musl.
  const musl = existsSync(`/lib/ld-musl-${arch === "x64" ? "x86_64" : "aarch64"}.so.1`);
  return `@anthropic-ai/claude-code-linux-${arch}${musl ? "-musl" : ""}`;
}

/**
 * The path of the Claude Code binary at {@linkcode CLAUDE_CODE_VERSION},
 * installing it first if needed; the reason it cannot be had otherwise.
 */
export function claudeCodeBinary(): { path: string } | { missing: string } {
  const platformPackage = claudePlatformPackage();
  if (platformPackage === undefined) {
    return { missing: `no Claude Code binary for ${process.platform}-${process.arch}` };
  }
  const cache = join(repositoryRoot(), "node_modules", ".cache", "dsh-agents", `claude-code-${CLAUDE_CODE_VERSION}`);
  const binary = join(cache, "node_modules", ...platformPackage.split("/"), "claude");
  if (!existsSync(binary)) {
    mkdirSync(cache, { recursive: true });
    const install = spawnSync(
      "npm",
      [
        "install",
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--prefix",
        cache,
        `${platformPackage}@${CLAUDE_CODE_VERSION}`,
      ],
      { encoding: "utf8" },
    );
    if (install.status !== 0 || !existsSync(binary)) {
      return {
        missing: `npm could not install ${platformPackage}@${CLAUDE_CODE_VERSION}: ${install.stderr ?? install.error}`,
      };
    }
  }
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" });
  if (!String(version.stdout).startsWith(`${CLAUDE_CODE_VERSION} `)) {
    return { missing: `${binary} is not Claude Code ${CLAUDE_CODE_VERSION}: ${version.stdout}${version.stderr}` };
  }
  return { path: binary };
}
