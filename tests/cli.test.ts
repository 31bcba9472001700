import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRun, dshShell, spawnCli } from "./helpers/cli.ts";
import { freshDir, removeDir } from "./helpers/dirs.ts";
import { repositoryRoot } from "./helpers/repository.ts";
import { MissingPeerError, withPeer } from "../src/cli/optional_peer.ts";
import { examplesDir } from "./helpers/examples.ts";
import { MCP_TOOL_NAMES } from "./helpers/mcp.ts";

const examples = examplesDir();

/** A user mistake is exactly one line on stderr, no stack trace, and exit code 64. */
function assertUsageMistake(run: CliRun, mentions: RegExp): void {
  assert.equal(run.code, 64, `exit code ${run.code}; stderr: ${run.stderr}`);
  assert.equal(run.stderr.split("\n").filter((line) => line !== "").length, 1, run.stderr);
  assert.match(run.stderr, mentions);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
}

describe("dsh-shell", () => {
  let dir: string;
  before(() => {
    dir = freshDir("dsh-cli-");
  });
  after(() => removeDir(dir));

  it("--help lists the commands; no command is a usage mistake", async () => {
    const help = await dshShell(["--help"]);
    assert.equal(help.code, 0);
    for (const command of ["run", "env", "hook", "mcp"]) assert.match(help.stdout, new RegExp(`dsh-shell ${command}`));
    // What mcp serves, as it serves it: the nine tools (tests/mcp.test.ts checks the server lists these).
    const mcpHelp = await dshShell(["mcp", "--help"]);
    for (const text of [help.stdout, mcpHelp.stdout]) {
      for (const tool of MCP_TOOL_NAMES) assert.match(text, new RegExp(`\\b${tool}\\b`), `${tool} in ${text}`);
      assert.match(text, /nine/);
    }
    assertUsageMistake(await dshShell([]), /missing the command/);
    assertUsageMistake(await dshShell(["frobnicate"]), /unknown command "frobnicate"/);
  });

  it("--version and -V print the package's version", async () => {
    const config = JSON.parse(readFileSync(join(repositoryRoot(), "deno.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const run = await dshShell([flag]);
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, `dsh-shell ${config.version}\n`, ""]);
    }
  });

  describe("run", () => {
    it("--help describes the options", async () => {
      const help = await dshShell(["run", "--help"]);
      assert.equal(help.code, 0);
      for (const flag of ["--stdin", "--env", "--timeout", "--json"]) assert.ok(help.stdout.includes(flag), flag);
    });

    it("runs the command with stdin, env and the scrub, and passes its exit code through", async () => {
      const fake = ["sk", "-ant-", "Abc123Def456Ghi789Jkl0"].join("");
      const run = await dshShell(
        [
          "run",
          "--stdin",
          "-",
          "--env",
          "GREETING=hello",
          "--",
          'read -r line; echo "$GREETING $line ${ANTHROPIC_API_KEY:-scrubbed}"; echo oops >&2; exit 3',
        ],
        { stdin: "world\n", env: { ANTHROPIC_API_KEY: fake } },
      );
      assert.equal(run.code, 3);
      assert.equal(run.stdout, "hello world scrubbed\n");
      assert.equal(run.stderr, "oops\n");
    });

    it("--json prints the whole result", async () => {
      const run = await dshShell(["run", "--json", "--", "printf abc"]);
      assert.equal(run.code, 0);
      const result = JSON.parse(run.stdout);
      assert.equal(result.stdout.text, "abc");
      assert.equal(result.exitCode, 0);
      assert.equal(result.timedOut, false);
    });

    it("a timeout exits 124 and a signal death 128+n, each said in one line on stderr", async () => {
      const timedOut = await dshShell(["run", "--timeout", "200", "--", "sleep 30"]);
      assert.equal(timedOut.code, 124);
      assert.equal(
        timedOut.stderr,
        "dsh-shell run: timed out after 200ms; the command's whole process group was killed (exit 124)\n",
      );
      const killed = await dshShell(["run", "--", "kill -TERM $$"]);
      assert.equal(killed.code, 128 + 15);
      assert.equal(killed.stderr, "dsh-shell run: the command was killed by SIGTERM\n");
      assert.equal((await dshShell(["run", "--", "exit 3"])).stderr, "", "an ordinary exit needs no note");
    });

    it("prints the output as it arrives: the first line is read while the command still runs", async () => {
      const child = spawnCli(["run", "--", "echo first; echo oops >&2; sleep 30; echo never"]);
      try {
        let stdout = "";
        let stderr = "";
        const both = new Promise<void>((resolve) => {
          const check = (): void => {
            if (stdout.includes("first\n") && stderr.includes("oops\n")) resolve();
          };
          child.stdout.on("data", (chunk) => (stdout += chunk, check()));
          child.stderr.on("data", (chunk) => (stderr += chunk, check()));
        });
        const exited = new Promise<string>((resolve) =>
          child.once("close", (code, signal) => resolve(`${code ?? signal}`))
        );
        // Before, nothing was printed until the command ended (here: after its 30 s sleep).
        assert.equal(await Promise.race([both.then(() => "printed"), exited.then(() => "exited")]), "printed");
        assert.equal(child.exitCode, null, "the command still runs");
        child.kill("SIGINT");
        // Interrupted: exit 130 on Node; Deno ends a process that took a SIGINT by that signal, which a shell
        // reports as 130 too.
        assert.ok(["130", "SIGINT"].includes(await exited));
        assert.ok(!stdout.includes("never"));
      } finally {
        child.kill("SIGKILL");
      }
    });

    it("a long output reaches the terminal whole, and no spill file is left; --json keeps head, tail and a spill file", async () => {
      const spillParent = join(dir, "tmp-spill");
      mkdirSync(spillParent);
      const env = { TMPDIR: spillParent };
      const spillFiles = (): string[] => readdirSync(spillParent).filter((name) => name.startsWith("dsh-shell-"));
      const long = "head -c 200000 /dev/zero | tr '\\0' x";
      const live = await dshShell(["run", "--", long], { env });
      assert.equal(live.code, 0);
      assert.equal(live.stdout, "x".repeat(200_000));
      assert.deepEqual(spillFiles(), []);
      const kept = await dshShell(["run", "--json", "--", long], { env });
      assert.match(JSON.parse(kept.stdout).stdout.text, /full output: /);
      assert.equal(spillFiles().length, 1);
      rmSync(spillParent, { recursive: true });
      mkdirSync(spillParent);
      const none = await dshShell(["run", "--json", "--no-spill", "--", long], { env });
      assert.equal(none.code, 0);
      assert.match(JSON.parse(none.stdout).stdout.text, /full output unavailable \(not kept: maxSpillBytes is 0\)/);
      assert.deepEqual(spillFiles(), []);
    });

    it("--stdin FILE gives the file to the command", async () => {
      const file = join(dir, "in.txt");
      writeFileSync(file, "from a file\n");
      const run = await dshShell(["run", "--stdin", file, "--", "cat"]);
      assert.equal(run.stdout, "from a file\n");
    });

    it("usage mistakes are one line on stderr", async () => {
      assertUsageMistake(
        await dshShell(["run", "--timeout", "soon", "--", "true"]),
        /--timeout needs a positive number/,
      );
      assertUsageMistake(await dshShell(["run", "--bogus", "--", "true"]), /unknown option --bogus/);
      // A flag without its value is blamed, not the command after it.
      assertUsageMistake(await dshShell(["run", "--timeout", "--", "ls"]), /^dsh-shell run: --timeout needs a value/);
      assertUsageMistake(await dshShell(["run", "--timeout", "--json", "--", "ls"]), /--timeout needs a value/);
      assertUsageMistake(await dshShell(["run", "--workdir"]), /--workdir needs a value/);
      // One-dash options: said what they are, and which long one was meant.
      assertUsageMistake(
        await dshShell(["run", "-t", "5", "--", "ls"]),
        /unknown option -t: .*did you mean --timeout\?/,
      );
      assertUsageMistake(
        await dshShell(["mcp", "-w", "/tmp"]),
        /unknown option -w: .*did you mean --workdir or --writable-root\?/,
      );
      assert.equal((await dshShell(["run", "-h"])).code, 0);
      assertUsageMistake(await dshShell(["run", "echo hi"]), /put the command after --/);
      assertUsageMistake(await dshShell(["run", "--env", "NOEQUALS", "--", "true"]), /--env needs NAME=VALUE/);
      assertUsageMistake(
        await dshShell(["run", "--stdin", join(dir, "missing"), "--", "cat"]),
        /cannot read .*missing/,
      );
    });

    it("a command that cannot start exits 125 with one line naming the workdir", async () => {
      const missing = join(dir, "no-such-dir");
      const run = await dshShell(["run", "--workdir", missing, "--", "true"]);
      assert.equal(run.code, 125);
      assert.equal(run.stderr.trim().split("\n").length, 1);
      assert.ok(run.stderr.includes(missing), run.stderr);
    });
  });

  describe("env", () => {
    it("shows names and sources, never a value", async () => {
      const secret = ["ghp", "_", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"].join("");
      const run = await dshShell(["env", "--env", "EXPLICIT=1"], {
        env: { MY_SERVICE_TOKEN: "token-value-123", INNOCENT: secret, DSH_FORGED: "x" },
      });
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^EXPLICIT\s+env$/m);
      assert.match(run.stdout, /^TERM\s+override$/m);
      assert.match(run.stdout, /^MY_SERVICE_TOKEN\s+credential-name$/m);
      assert.match(run.stdout, /^INNOCENT\s+credential-value$/m);
      assert.match(run.stdout, /^DSH_FORGED\s+managed$/m);
      assert.ok(!run.stdout.includes("token-value-123") && !run.stdout.includes(secret));
    });

    it("--json and --help work; a stray argument is a usage mistake", async () => {
      const json = JSON.parse((await dshShell(["env", "--json"])).stdout);
      assert.ok(Array.isArray(json.entries) && Array.isArray(json.dropped));
      assert.equal((await dshShell(["env", "--help"])).code, 0);
      assertUsageMistake(await dshShell(["env", "extra"]), /unexpected argument "extra"/);
    });
  });

  describe("hook", () => {
    it("--help describes the options", async () => {
      const help = await dshShell(["hook", "--help"]);
      assert.equal(help.code, 0);
      for (
        const flag of ["--settings", "--plugin-root", "--plugin-data", "--env", "--dialect", "--match", "--payload"]
      ) {
        assert.ok(help.stdout.includes(flag), flag);
      }
    });

    it("dispatches the example PreToolUse event: blocked, exit 2, with the hook's reason", async () => {
      const run = await dshShell([
        "hook",
        "PreToolUse",
        "--settings",
        join(examples, "settings.json"),
        "--payload",
        join(examples, "events", "pre_tool_use_rm.json"),
        "--project-dir",
        examples,
      ]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stdout, /decision: deny \(blocked\)/);
      assert.match(run.stdout, /rm -rf/);
    });

    it("an allowed event exits 0, and --json gives the dispatch result", async () => {
      const settings = join(dir, "settings.json");
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [{
              matcher: "Bash",
              hooks: [{
                type: "command",
                command:
                  `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}'`,
              }],
            }],
          },
        }),
      );
      const run = await dshShell(["hook", "PreToolUse", "--settings", settings, "--match", "Bash", "--json"]);
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.permission, "allow");
      assert.deepEqual(result.reasons, ["fine"]);
      assert.equal(result.blocked, false);
    });

    it("usage mistakes are one line on stderr", async () => {
      assertUsageMistake(await dshShell(["hook", "PreToolUse"]), /--settings FILE or --plugin-root DIR is required/);
      assertUsageMistake(
        await dshShell(["hook", "Stop", "--settings", join(examples, "settings.json"), "--plugin-data", dir]),
        /--plugin-data needs --plugin-root/,
      );
      assertUsageMistake(
        await dshShell(["hook", "Stop", "--plugin-root", join(dir, "no-plugin")]),
        /--plugin-root: cannot read .*no-plugin\/hooks\/hooks\.json: no such file/,
      );
      assertUsageMistake(await dshShell(["hook", "--settings", "x.json"]), /missing the EVENT/);
      const settings = join(dir, "ok.json");
      writeFileSync(settings, "{}");
      assertUsageMistake(
        await dshShell(["hook", "PreToolUse", "--settings", settings, "--dialect", "vim"]),
        /--dialect must be claude-code or codex/,
      );
      const broken = join(dir, "broken.json");
      writeFileSync(broken, "{ not json");
      assertUsageMistake(await dshShell(["hook", "PreToolUse", "--settings", broken]), /is not valid JSON/);
    });
  });
});

describe("dsh-shell without an optional peer", () => {
  it("a missing package is named in one line, with how to install it; any other failure is left as it is", async () => {
    const missing = withPeer("the MCP server", "@modelcontextprotocol/sdk", () =>
      // What Node says when a static import of the package fails, as the dynamic import of mcp_command sees it.
      Promise.reject(
        Object.assign(
          new Error("Cannot find package '@modelcontextprotocol/sdk' imported from /x/esm/src/mcp/server.js"),
          {
            code: "ERR_MODULE_NOT_FOUND",
          },
        ),
      ));
    await assert.rejects(missing, (error: Error) => {
      assert.ok(error instanceof MissingPeerError);
      assert.equal(
        error.message,
        "the MCP server needs @modelcontextprotocol/sdk, an optional peer of @dsh/shell: install it " +
          "(npm install @modelcontextprotocol/sdk)",
      );
      return true;
    });
    const other = new Error("Cannot find package 'left-pad'");
    await assert.rejects(withPeer("the MCP server", "@modelcontextprotocol/sdk", () => Promise.reject(other)), other);
    assert.equal(await withPeer("x", "y", () => Promise.resolve(7)), 7);
  });

  it("run, env and hook do not load the MCP server: only mcp needs the SDK", () => {
    const main = readFileSync(join(repositoryRoot(), "src", "cli", "main.ts"), "utf8");
    assert.doesNotMatch(main, /^import .*mcp/m, "no static import of the mcp command");
    assert.match(main, /import\("\.\/mcp_command\.ts"\)/);
  });
});
