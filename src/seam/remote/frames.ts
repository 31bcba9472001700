/**
 * Reading a wrapper's stderr: its first line says the command started
 * (`<nonce> s <sid>`) or why it did not (`<nonce> e <reason>`); every byte
 * after it is the command's stderr, never parsed. Bytes before a first line
 * are the local client's own (`docker: Error response from daemon: …`,
 * `ssh: connect to host …`), kept for the error message and never shown as
 * the command's.
 *
 * Only the first line is the wrapper's because it is written before the
 * command exists. Once the command runs, it can read the nonce from its
 * wrapper's memory (`/proc/$PPID/mem`: same user) and write any line a
 * wrapper could, so how the command ended never travels on stderr: it is
 * the client's exit code, and a lost connection is the supervisor's link's
 * to tell (`command.ts`).
 *
 * @module
 */

import { concatBytes } from "../capture/bytes.ts";

/** What the frames say, as they come. */
export interface FrameListener {
  /** The command started, in session `sid` on the engine. */
  started(sid: number): void;
  /** The wrapper refused to run the command; `reason` is its word (`cwd-missing`, `shell`, …). */
  refused(reason: string): void;
  /** The command's own stderr bytes (valid during the call). */
  stderr(chunk: Uint8Array): void;
}

/** How much of the client's own text is kept for a message. */
const CLIENT_TEXT_BYTES = 8 * 1024;
/** How far into the stream a start line is looked for, past a client's warnings, before giving up. */
const START_SEARCH_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A wrapper's stderr, parsed as it arrives: its first line, then nothing but the command's bytes. */
export class WrapperFrames {
  readonly #listener: FrameListener;
  readonly #first: Uint8Array;
  /** Before the first line; after it (every byte the command's). */
  #phase: "head" | "after" = "head";
  /** The head so far: bytes that may still end in the first line. */
  #held: Uint8Array = new Uint8Array(0);
  #clientText = "";

  /** @param nonce The header's nonce. @param listener Told of each part. */
  constructor(nonce: string, listener: FrameListener) {
    this.#listener = listener;
    this.#first = encoder.encode(`${nonce} `);
  }

  /** The client's own text: what came before a first line of the wrapper (bounded). */
  get clientText(): string {
    return this.#clientText + (this.#phase === "head" ? decoder.decode(this.#held.subarray(0, CLIENT_TEXT_BYTES)) : "");
  }

  /** Whether the wrapper's first line has been seen. */
  get answered(): boolean {
    return this.#phase !== "head";
  }

  /** Takes the next chunk of stderr. */
  push(chunk: Uint8Array): void {
    // The hot path of a flood: no copy, no scan.
    if (this.#phase === "after") {
      this.#listener.stderr(chunk);
      return;
    }
    const bytes = this.#held.length === 0 ? chunk : concatBytes([this.#held, chunk]);
    this.#held = new Uint8Array(0);
    this.#head(bytes);
  }

  /** The stream has ended. */
  end(): void {
    if (this.#phase !== "head") this.#held = new Uint8Array(0);
  }

  #head(bytes: Uint8Array): void {
    // Lines before the wrapper's first are the client's; the wrapper's is the first line starting with the nonce.
    let start = 0;
    while (true) {
      const newline = bytes.indexOf(10, start);
      if (newline < 0) break;
      const line = bytes.subarray(start, newline);
      if (startsWith(line, this.#first)) {
        // A terminal may end the line with "\r\n": the "\r" is not part of the answer.
        const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
        this.#firstLine(decoder.decode(line.subarray(this.#first.length, end)));
        if (newline + 1 < bytes.length) this.#listener.stderr(bytes.subarray(newline + 1));
        return;
      }
      if (this.#clientText.length < CLIENT_TEXT_BYTES) {
        this.#clientText += decoder.decode(bytes.subarray(start, newline + 1)).slice(0, CLIENT_TEXT_BYTES);
      }
      start = newline + 1;
    }
    const rest = bytes.subarray(start);
    // A line too long to be ours: the client's text; keep looking, within bounds.
    this.#held = rest.length > START_SEARCH_BYTES ? new Uint8Array(0) : rest.slice();
  }

  #firstLine(text: string): void {
    const [kind, value = ""] = text.split(" ", 2);
    this.#phase = "after";
    if (kind === "s" && /^[1-9][0-9]*$/.test(value)) {
      this.#listener.started(Number(value));
    } else {
      // "e <reason>", or a line we do not know: either way the command did not run.
      this.#listener.refused(kind === "e" ? value : `unexpected answer: ${text.slice(0, 80)}`);
    }
  }
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
