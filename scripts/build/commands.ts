/**
 * Running the external programs the build needs: npm (installs), deno
 * (`deno types`) and node (its version, the tests). Their stdin is closed,
 * so a program that asks a question fails instead of hanging the build, and
 * a failure throws with the command line, so the log says what failed.
 *
 * @module
 */

/** `npm install` without lockfile, audit or funding noise. */
const NPM_QUIET_INSTALL = [
  "install",
  "--no-package-lock",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
];

/** Runs a command with output passed through; throws if it fails. */
export async function runOrThrow(command: string, args: string[], cwd: string): Promise<void> {
  const { code } = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
}

/** Runs `npm install` quietly in `cwd` with `args` added; throws if it fails. */
export async function npmInstall(args: string[], cwd: string): Promise<void> {
  await runOrThrow("npm", [...NPM_QUIET_INSTALL, ...args], cwd);
}

/** Runs a command and returns its stdout; throws if it fails. */
export async function outputOf(command: string, args: string[]): Promise<string> {
  const { code, stdout } = await new Deno.Command(command, {
    args,
    stdin: "null",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
  return new TextDecoder().decode(stdout);
}
