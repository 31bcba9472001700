import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLocalShell, type Shell, type ShellExecSpec, ShellSpecError } from "../mod.ts";
import { resolveOptions } from "../src/seam/resolve/options.ts";
import { resolveRequest } from "../src/seam/resolve/request.ts";
import { ResolvedSpecs } from "../src/seam/resolve/resolved_specs.ts";
import { rejection } from "./helpers/errors.ts";

/**
 * run() skips validating a spec that resolve() returned and nobody changed;
 * a spec changed in any way since is validated like a hand-built one.
 */
describe("ResolvedSpecs", () => {
  const options = resolveOptions({});
  const resolved = (): { specs: ResolvedSpecs; spec: ShellExecSpec } => {
    const specs = new ResolvedSpecs();
    const spec = resolveRequest({ command: "true", owner: null, stdin: "x" }, options);
    specs.remember(spec);
    return { specs, spec };
  };

  it("knows an unchanged resolved spec, and gives back its own frozen copy", () => {
    const { specs, spec } = resolved();
    const copy = specs.unchanged(spec);
    assert.notEqual(copy, undefined);
    assert.notEqual(copy, spec);
    assert.deepEqual(copy, spec);
    assert.ok(Object.isFrozen(copy));
    assert.equal(Object.isFrozen(spec), false, "the caller's spec stays an ordinary object");
  });

  it("does not know a spec it never saw, nor a copy of one it saw", () => {
    const { specs, spec } = resolved();
    assert.equal(specs.unchanged({ ...spec }), undefined);
    assert.equal(new ResolvedSpecs().unchanged(spec), undefined);
    for (const junk of [null, undefined, 1, "spec"]) {
      assert.equal(specs.unchanged(junk as unknown as ShellExecSpec), undefined);
    }
  });

  const changes: [string, (spec: Record<string, unknown>) => void][] = [
    ["a field changed", (spec) => spec.command = "false"],
    ["a field set to the same value of another type", (spec) => spec.timeoutMs = String(spec.timeoutMs)],
    ["a field removed", (spec) => delete spec.owner],
    ["an optional field removed", (spec) => delete spec.stdin],
    ["a field added", (spec) => spec.signal = new AbortController().signal],
    ["an unknown key added", (spec) => spec.timeout = 5],
    ["an unknown key added in place of a removed one", (spec) => {
      delete spec.stdin;
      spec.stdn = "x";
    }],
  ];
  for (const [title, change] of changes) {
    it(`${title}: no longer known`, () => {
      const { specs, spec } = resolved();
      change(spec as unknown as Record<string, unknown>);
      assert.equal(specs.unchanged(spec), undefined);
    });
  }

  it("does not remember a spec with env or dshEnv: those records may change inside", () => {
    const specs = new ResolvedSpecs();
    for (const extra of [{ env: { A: "1" } }, { dshEnv: { DSH_A: "1" } as Record<`DSH_${string}`, string> }]) {
      const spec = resolveRequest({ command: "true", owner: null, ...extra }, options);
      specs.remember(spec);
      assert.equal(specs.unchanged(spec), undefined);
    }
  });
});

describe("run() with a resolved spec changed afterwards", () => {
  let shell: Shell;
  before(() => {
    shell = createLocalShell({ maxTimeoutMs: 5_000, graceMs: 300 });
  });
  after(() => shell.close());

  const rejects = async (change: (spec: Record<string, unknown>) => void, field: string, request = {}) => {
    const spec = shell.resolve({ command: "echo ran", owner: null, ...request });
    change(spec as unknown as Record<string, unknown>);
    const error = await rejection(shell.run(spec), "run() resolved");
    assert.ok(error instanceof ShellSpecError, String(error));
    assert.ok(error.message.startsWith(field), error.message);
  };

  it("an unchanged spec runs, and runs again", async () => {
    const spec = shell.resolve({ command: "echo ran", owner: null });
    assert.equal((await shell.run(spec)).stdout.text, "ran\n");
    assert.equal((await shell.run(spec)).stdout.text, "ran\n");
  });

  it("an emptied command, a NaN timeout, a removed owner or an unknown key is refused", async () => {
    await rejects((spec) => spec.command = "", "command");
    await rejects((spec) => spec.timeoutMs = NaN, "timeoutMs");
    await rejects((spec) => delete spec.owner, "owner");
    await rejects((spec) => spec.timeout = 1000, "spec");
    await rejects((spec) => spec.workdir = "relative", "workdir");
  });

  it("env changed inside after resolve() is validated", async () => {
    await rejects((spec) => (spec.env as Record<string, string>)["A=B"] = "x", "env", { env: { A: "1" } });
  });

  it("a raised timeout is still capped at maxTimeoutMs", async () => {
    const spec = shell.resolve({ command: "true", owner: null });
    spec.timeoutMs = 1_000_000;
    assert.equal((await shell.run(spec)).timeoutMs, 5_000);
  });

  it("a spec resolved by another shell is checked against this shell's cap", async () => {
    await using other = createLocalShell({ maxTimeoutMs: 60_000 });
    const spec = other.resolve({ command: "true", owner: null, timeoutMs: 50_000 });
    assert.equal((await shell.run(spec)).timeoutMs, 5_000);
  });
});
