/**
 * Reading a wrapper's stderr: its first line says the command started
 * (`<nonce> s <sid>`) or why it did not (`<nonce> e <reason>`); then comes
 * the command's stderr, byte for byte; then the trailer
 * `\n<nonce> x <status> <kept|lost>`; then whatever background processes
 * of the command still write. Bytes before a first line are the local
 * client's own (`docker: Error response from daemon: …`, `ssh: connect to
 * host …`), kept for the error message and never shown as the command's.
 *
 * The exit status comes only from the trailer, never from the client's
 * exit code: `ssh` exits 255 for its own failures, `docker` 125–127 and
 * 137, and a command may exit with any of them.
 *
 * @module
 */

/** What the frames say, as they come. */
export interface FrameListener {
  /** The command started, in session `sid` on the engine. */
  started(sid: number): void;
  /** The wrapper refused to run the command; `reason` is its word (`cwd-missing`, `shell`, …). */
  refused(reason: string): void;
  /** The command's own stderr bytes (valid during the call). */
  stderr(chunk: Uint8Array): void;
  /** The command ended with `status`; `lost` when the supervisor was ending every session. */
  ended(status: number, lost: boolean): void;
}

/** How much of the client's own text is kept for a message. */
const CLIENT_TEXT_BYTES = 8 * 1024;
/** How far into the stream a start line is looked for, past a client's warnings, before giving up. */
const START_SEARCH_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A wrapper's stderr, parsed as it arrives. */
export class WrapperFrames {
  readonly #listener: FrameListener;
  readonly #first: Uint8Array;
  readonly #trailer: Uint8Array;
  /** Before the first line; in the command's stderr; after the trailer. */
  #phase: "head" | "body" | "after" = "head";
  /** Bytes held back: the head so far, or a possible start of the trailer at the end of the body. */
  #held: Uint8Array = new Uint8Array(0);
  #clientText = "";

  /** @param nonce The header's nonce. @param listener Told of each part. */
  constructor(nonce: string, listener: FrameListener) {
    this.#listener = listener;
    this.#first = encoder.encode(`${nonce} `);
    this.#trailer = encoder.encode(`\n${nonce} x `);
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
    if (this.#phase === "after") {
      this.#listener.stderr(chunk);
      return;
    }
    const bytes = this.#held.length === 0 ? chunk : concat(this.#held, chunk);
    this.#held = new Uint8Array(0);
    if (this.#phase === "head") this.#head(bytes);
    else this.#body(bytes);
  }

  /** The stream has ended: what was held back was the command's after all. */
  end(): void {
    if (this.#phase === "body" && this.#held.length > 0) this.#listener.stderr(this.#held);
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
        this.#firstLine(decoder.decode(line.subarray(this.#first.length)));
        if (this.#phase === "body") this.#body(bytes.subarray(newline + 1));
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
    if (kind === "s" && /^[1-9][0-9]*$/.test(value)) {
      this.#phase = "body";
      this.#listener.started(Number(value));
    } else {
      // "e <reason>", or a line we do not know: either way the command did not run.
      this.#phase = "after";
      this.#listener.refused(kind === "e" ? value : `unexpected answer: ${text.slice(0, 80)}`);
    }
  }

  #body(bytes: Uint8Array): void {
    const at = indexOf(bytes, this.#trailer);
    if (at >= 0) {
      const from = at + this.#trailer.length;
      const newline = bytes.indexOf(10, from);
      if (newline < 0) {
        // The trailer is split across chunks: hold it whole.
        if (at > 0) this.#listener.stderr(bytes.subarray(0, at));
        this.#held = bytes.slice(at);
        return;
      }
      if (at > 0) this.#listener.stderr(bytes.subarray(0, at));
      const [status, how] = decoder.decode(bytes.subarray(from, newline)).split(" ");
      this.#phase = "after";
      this.#listener.ended(Number(status), how === "lost");
      if (newline + 1 < bytes.length) this.#listener.stderr(bytes.subarray(newline + 1));
      return;
    }
    // Hold back the longest end that could begin the trailer: it begins with a newline.
    const keep = possibleStart(bytes, this.#trailer);
    if (keep < bytes.length) this.#listener.stderr(bytes.subarray(0, bytes.length - keep));
    if (keep > 0) this.#held = bytes.slice(bytes.length - keep);
  }
}

/** The length of the longest end of `bytes` that is a beginning of `marker`. */
function possibleStart(bytes: Uint8Array, marker: Uint8Array): number {
  const from = Math.max(0, bytes.length - marker.length + 1);
  for (let at = bytes.indexOf(10, from); at >= 0; at = bytes.indexOf(10, at + 1)) {
    if (startsWith(marker, bytes.subarray(at))) return bytes.length - at;
  }
  return 0;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function indexOf(bytes: Uint8Array, marker: Uint8Array): number {
  for (
    let at = bytes.indexOf(marker[0]);
    at >= 0 && at + marker.length <= bytes.length;
    at = bytes.indexOf(marker[0], at + 1)
  ) {
    if (startsWith(bytes.subarray(at), marker)) return at;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
