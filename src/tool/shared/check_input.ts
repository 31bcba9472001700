/**
 * Checking a tool call's input, the same way for every tool of `./tool`:
 * the input must be an object; unknown keys are refused first, each with
 * the reason and what to do instead; then the declared fields' types.
 *
 * @module
 */

import type { z } from "zod";
import { ToolInputError } from "./errors.ts";
import { showValue } from "../../seam/show_value.ts";

/** What one tool accepts, and what it says about keys it does not. */
export interface InputRules<T> {
  /** The tool's name, as the messages give it: `"bash"`, `"bash_output"`. */
  readonly tool: string;
  /** The declared inputs, in the order the schema lists them. */
  readonly names: readonly string[];
  /** Why a key is not an input, for keys a model is likely to try. */
  readonly refusals: ReadonlyMap<string, string>;
  /** The validator of the declared inputs. */
  readonly validator: z.ZodType<T>;
  /** A well-formed input, shown when the input is not an object at all: `{"command": "ls"}`. */
  readonly example: string;
}

/** A key as it appears in a message: bare when it is a plain name, quoted otherwise. */
function showKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
}

/** The refusal of `keys` (all unknown), naming the first. */
function unknownKeyError<T>(rules: InputRules<T>, keys: string[]): ToolInputError {
  const [key, ...others] = keys;
  const why = rules.refusals.get(key) ?? `its inputs are ${rules.names.join(", ")}`;
  const also = others.length === 0 ? "" : `; also not inputs: ${others.map(showKey).join(", ")}`;
  return new ToolInputError(key, `${showKey(key)} is not an input of the ${rules.tool} tool: ${why}${also}`);
}

/**
 * Checks `input` against `rules` and returns it with only the declared
 * fields. Throws {@linkcode ToolInputError}: for an input that is not an
 * object, for a key that is not an input (naming it and saying what to do
 * instead), then for a declared field that is missing or of the wrong type
 * (naming the field and what it got).
 */
export function checkInput<T>(rules: InputRules<T>, input: unknown): T {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ToolInputError(
      "input",
      `input: must be an object of named arguments such as ${rules.example} (got ${showValue(input)})`,
    );
  }
  const unknown = Object.keys(input).filter((key) => !rules.names.includes(key));
  if (unknown.length > 0) throw unknownKeyError(rules, unknown);

  const checked = rules.validator.safeParse(input);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  const field = String(issue.path[0] ?? "input");
  const given = Object.hasOwn(input, field) ? ` (got ${showValue((input as Record<string, unknown>)[field])})` : "";
  throw new ToolInputError(field, `${field}: ${issue.message}${given}`);
}
