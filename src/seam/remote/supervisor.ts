/**
 * One connection of a shell to a remote engine, seen from here: the
 * supervisor's program (`scripts.ts`), its greeting (the engine's ambient
 * environment and its record directory), the requests the shell sends it
 * (remember, forget, terminate, watch a session; a heartbeat every second,
 * which it answers) and its answers. A supervisor that ends without being asked to is a lost
 * connection: every command on it fails with a `ShellEngineError`.
 *
 * @module
 */

import {
  clearInterval as clearNodeInterval,
  clearTimeout as clearNodeTimeout,
  setInterval as setNodeInterval,
  setTimeout as setNodeTimeout,
} from "node:timers";
import type { EngineChannel, EngineLink, RemoteEngine } from "../engine.ts";
import { ShellEngineError } from "../errors.ts";
import { supervisorArgv } from "./scripts.ts";

/** How often the heartbeat is sent; the supervisor gives up after `heartbeatMs` of silence. */
const PING_EVERY_MS = 1_000;
/** How long a supervisor asked to end may take before its client is killed. */
const END_WAIT_MS = 2_000;
/** Bytes of the greeting's lines and of the client's stderr kept at most. */
const TEXT_BYTES = 8 * 1024;
/** The first size of the buffer of the supervisor's stdout. */
const FIRST_BUFFER_BYTES = 64 * 1024;
/** How much output may come before the greeting (a chatty login script) before the connection is refused. */
const GREETING_SEARCH_BYTES = 64 * 1024;

/** How a connection is opened. */
export interface SupervisorOptions {
  /** SIGTERM→SIGKILL delay the supervisor applies when it ends sessions by itself. */
  readonly graceMs: number;
  /** Silence after which the supervisor ends every session (0: never). */
  readonly heartbeatMs: number;
  /** How long the greeting may take. */
  readonly connectTimeoutMs: number;
  /** The most of a session's state a `state` line may carry (`maxSessionStateBytes`): its lines are bounded by it. */
  readonly maxStateBytes: number;
}

/** A session's state as the supervisor sent it: its bytes, or why it refused them. */
export interface RemoteState {
  /** The state file's bytes (at most the bound); undefined when there was none or it was refused. */
  readonly bytes?: Uint8Array;
  /** The supervisor's reason for a refusal. */
  readonly refused?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A connection: the supervisor's local client and what it said. */
export class Supervisor {
  readonly engine: RemoteEngine;
  readonly link: EngineLink;
  /** Settles once the supervisor has answered; rejects with the `ShellEngineError` of a failed connection. */
  readonly ready: Promise<void>;
  /** Settles when the supervisor's client has exited, however. */
  readonly ended: Promise<void>;
  /** The engine's ambient environment, as the supervisor was given it. */
  env: Record<string, string> = {};
  /** The supervisor's record directory on the engine. */
  recordDir = "";
  readonly #channel: EngineChannel;
  readonly #waiters = new Map<string, ((answered: boolean) => void)[]>();
  #exited = false;
  /** What came on stdout and is not read yet: `#buffer[#from, #end)`, a newline searched for up to `#scanned`. */
  #buffer: Uint8Array = new Uint8Array(FIRST_BUFFER_BYTES);
  #from = 0;
  #end = 0;
  #scanned = 0;
  /** A line longer than any the supervisor sends is being dropped, up to its newline. */
  #dropping = false;
  readonly #maxLine: number;
  #stderr = "";
  #phase: "greeting" | "env" | "lines" = "greeting";
  #envBytes = 0;
  readonly #stateWaiters = new Map<string, ((state: RemoteState | undefined) => void)[]>();
  #skipped = 0;
  #announceReady: () => void = () => {};
  #fail: (error: ShellEngineError) => void = () => {};
  #ending = false;
  #failure: ShellEngineError | undefined;
  #ping: ReturnType<typeof setNodeInterval> | undefined;
  #tokens = 0;
  /** When the supervisor last said anything, and when the heartbeat last ticked. */
  #heardAt = 0;
  #tickAt = 0;
  /** Awaited work that keeps the host's event loop open, and the timer that does it. */
  #holds = 0;
  #holdTimer: ReturnType<typeof setNodeInterval> | undefined;

  /** Starts the supervisor through `link`. Throws the link's `ShellEngineError` when its client cannot start. */
  constructor(engine: RemoteEngine, link: EngineLink, options: SupervisorOptions) {
    this.engine = engine;
    this.link = link;
    // A state line: `dsh-sup state SID + ` and two hex digits per byte of the bound.
    this.#maxLine = 2 * options.maxStateBytes + TEXT_BYTES;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#announceReady = resolve;
      this.#fail = reject;
    });
    // A rejection nobody waits for (a connection lost before any command) must not crash the host.
    this.ready.catch(() => {});
    this.#channel = this.#launch(options);
    const timer = setTimeout(() => {
      this.#lose(`no answer within ${options.connectTimeoutMs} ms`);
      this.#channel.abandon();
    }, options.connectTimeoutMs);
    this.ready.then(() => clearTimeout(timer), () => clearTimeout(timer));
    this.ended = this.#channel.exited.then(async (exit) => {
      clearTimeout(timer);
      clearNodeInterval(this.#ping);
      // Its last words may still be in the pipes.
      await firstOf(this.#channel.drained, 500);
      // Whatever ended it, what the link holds here (a control socket's directory) goes with it.
      this.link.dispose();
      if (this.#ending) return;
      const said = this.link.explain({ ...exit, stderr: this.#stderr });
      this.#lose(this.#phase === "lines" ? `the connection was lost (${said})` : said);
    });
    this.ended.then(() => this.#wakeAll());
    this.ready.then(() => {
      this.#heardAt = this.#tickAt = performance.now();
      this.#ping = setNodeInterval(() => this.#beat(options.heartbeatMs), PING_EVERY_MS).unref();
    }, () => {});
  }

  /**
   * The heartbeat, which the supervisor answers: the engine's side hears
   * from us, and we hear from it. A link that went silent (a frozen peer, a
   * partition) is noticed on both sides: there, the supervisor ends every
   * session; here, once nothing came back for `heartbeatMs` and a beat,
   * the connection counts as lost and its client is killed, so commands
   * waiting on it fail instead of hanging. A tick that comes late means
   * this process was stalled, not the link: answers may be waiting unread
   * in the pipe, so that tick judges nothing.
   */
  #beat(heartbeatMs: number): void {
    const now = performance.now();
    const stalled = now - this.#tickAt > 2 * PING_EVERY_MS;
    this.#tickAt = now;
    if (stalled) this.#heardAt = now;
    if (heartbeatMs > 0 && now - this.#heardAt > heartbeatMs + PING_EVERY_MS) {
      this.#lose(`the connection went silent: no answer for ${Math.round(now - this.#heardAt)} ms`);
      this.#channel.abandon();
      return;
    }
    this.#send("q beat");
  }

  /** Why the connection failed or was lost; undefined while it is up (or was ended on purpose). */
  get failure(): ShellEngineError | undefined {
    return this.#failure;
  }

  /** Whether commands may still be started on it. */
  get usable(): boolean {
    return this.#failure === undefined && !this.#ending;
  }

  /** The supervisor remembers session `sid`, whatever happens to its record file. */
  remember(sid: number): void {
    this.#send(`r ${sid}`);
  }

  /** The supervisor forgets session `sid` (it was seen gone). */
  forget(sid: number): void {
    this.#send(`f ${sid}`);
  }

  /**
   * Terminates session `sid` on the engine (SIGTERM, the grace, SIGKILL)
   * and resolves true once it is gone, or false when the connection ended
   * first.
   */
  terminate(sid: number): Promise<boolean> {
    const gone = this.#holding(this.#await(`gone ${sid}`));
    this.#send(`t ${sid}`);
    return gone;
  }

  /** Resolves true once nothing of session `sid` runs, or false when the connection ended first. */
  watch(sid: number): Promise<boolean> {
    const gone = this.#await(`gone ${sid}`);
    this.#send(`w ${sid}`);
    return gone;
  }

  /** Resolves true when the supervisor answers a question, false when the connection ends first. */
  confirm(): Promise<boolean> {
    const token = `q${++this.#tokens}`;
    const answered = this.#holding(this.#await(`ok ${token}`));
    this.#send(`q ${token}`);
    return answered;
  }

  /** Sets the size of session `sid`'s terminal over there (its stdin), which sends its foreground job SIGWINCH. */
  resize(sid: number, size: { readonly columns: number; readonly rows: number }): void {
    this.#send(`z ${sid} ${size.rows} ${size.columns}`);
  }

  /**
   * Takes the state file a session's command left (`s SID MAX`): at most
   * `maxBytes` of it, or why the supervisor refused it; undefined when the
   * connection ended first.
   */
  takeState(sid: number, maxBytes: number): Promise<RemoteState | undefined> {
    if (this.#exited) return Promise.resolve(undefined);
    const key = String(sid);
    const taken = this.#holding(
      new Promise<RemoteState | undefined>((resolve) => {
        const list = this.#stateWaiters.get(key) ?? [];
        list.push(resolve);
        this.#stateWaiters.set(key, list);
      }),
    );
    this.#send(`s ${sid} ${maxBytes}`);
    return taken;
  }

  /**
   * Ends the connection on purpose: the supervisor's stdin closes, it ends
   * whatever is left (nothing, after a clean `close()`) and exits; after
   * {@linkcode END_WAIT_MS} its client is killed.
   */
  async end(): Promise<void> {
    if (!this.#ending) {
      this.#ending = true;
      clearNodeInterval(this.#ping);
      this.#channel.end();
    }
    await this.#holding((async () => {
      if (await firstOf(this.ended, END_WAIT_MS) === "timeout") this.#channel.abandon();
      await this.ended;
    })());
  }

  /** Kills the local client at once (the engine's side ends its sessions when it notices). */
  abandon(): void {
    this.#channel.abandon();
  }

  #launch(options: SupervisorOptions): EngineChannel {
    const argv = supervisorArgv(options.graceMs, options.heartbeatMs);
    try {
      return this.link.supervise(argv, {
        onStdout: (chunk) => this.#read(chunk),
        onStderr: (chunk) => {
          if (this.#stderr.length < TEXT_BYTES) this.#stderr += decoder.decode(chunk).slice(0, TEXT_BYTES);
        },
      });
    } catch (error) {
      if (error instanceof ShellEngineError) throw error;
      throw new ShellEngineError(this.engine.name, this.engine.target, `cannot start its client: ${error}`, {
        cause: error,
      });
    }
  }

  #send(line: string): void {
    if (!this.#ending && this.#failure === undefined) this.#channel.write(encoder.encode(`${line}\n`));
  }

  /**
   * `work`, during which the host's event loop is kept open. The client and
   * its pipes do not hold the loop (a harness that forgets `close()` must
   * still end), so whoever awaits an answer the engine's side owes — a
   * termination, a confirmation, the end of the connection — would
   * otherwise see the host exit under it (`await shell.close()` as a
   * script's last line, say). Watching a survivor holds nothing: that may
   * take forever.
   */
  #holding<T>(work: Promise<T>): Promise<T> {
    if (this.#holds++ === 0) this.#holdTimer = setNodeInterval(() => {}, 60_000);
    return work.finally(() => {
      if (--this.#holds === 0) clearNodeInterval(this.#holdTimer);
    });
  }

  /** Resolves true when `answer` comes, false when the client has ended (or ends) without it. */
  #await(answer: string): Promise<boolean> {
    if (this.#exited) return Promise.resolve(false);
    return new Promise((resolve) => {
      const list = this.#waiters.get(answer) ?? [];
      list.push(resolve);
      this.#waiters.set(answer, list);
    });
  }

  #wakeAll(): void {
    this.#exited = true;
    for (const list of this.#waiters.values()) for (const wake of list) wake(false);
    this.#waiters.clear();
    for (const list of this.#stateWaiters.values()) for (const wake of list) wake(undefined);
    this.#stateWaiters.clear();
  }

  #lose(cause: string): void {
    if (this.#failure !== undefined || this.#ending) return;
    this.#failure = new ShellEngineError(this.engine.name, this.engine.target, cause);
    this.#fail(this.#failure);
  }

  /**
   * The supervisor's stdout: the greeting, then one answer per line. Each
   * byte is copied and scanned once (the buffer doubles when it must): a
   * state line of megabytes costs its length, not its length squared. A
   * line longer than any the supervisor sends (`#maxLine`; before the
   * greeting, what a login script prints, 8 KiB) is dropped, never kept.
   */
  #read(chunk: Uint8Array): void {
    this.#append(chunk);
    while (this.#from < this.#end) {
      if (this.#phase === "env") {
        if (this.#end - this.#from < this.#envBytes) return;
        this.env = parseEnviron(this.#buffer.subarray(this.#from, this.#from + this.#envBytes));
        this.#from += this.#envBytes;
        this.#scanned = this.#from;
        this.#phase = "greeting";
        continue;
      }
      const newline = this.#buffer.subarray(0, this.#end).indexOf(10, this.#scanned);
      if (newline < 0) {
        this.#scanned = this.#end;
        const limit = this.#phase === "lines" ? this.#maxLine : TEXT_BYTES;
        if (this.#end - this.#from > limit) {
          this.#dropping = true;
          this.#from = this.#scanned = this.#end;
        }
        return;
      }
      const line = this.#buffer.subarray(this.#from, newline);
      this.#from = this.#scanned = newline + 1;
      if (this.#dropping) {
        this.#dropping = false;
        continue;
      }
      this.#line(decoder.decode(line));
    }
  }

  #append(chunk: Uint8Array): void {
    const kept = this.#end - this.#from;
    // Nothing kept: a buffer grown for one long line goes back to its first size.
    if (kept === 0 && this.#buffer.length > FIRST_BUFFER_BYTES && chunk.length <= FIRST_BUFFER_BYTES / 2) {
      this.#buffer = new Uint8Array(FIRST_BUFFER_BYTES);
      this.#from = this.#end = this.#scanned = 0;
    }
    if (this.#end + chunk.length > this.#buffer.length) {
      // At least half of it free after the move: a byte is moved a bounded number of times on average.
      let size = this.#buffer.length;
      while (2 * (kept + chunk.length) > size) size *= 2;
      if (size === this.#buffer.length) this.#buffer.copyWithin(0, this.#from, this.#end);
      else {
        const grown = new Uint8Array(size);
        grown.set(this.#buffer.subarray(this.#from, this.#end));
        this.#buffer = grown;
      }
      this.#scanned -= this.#from;
      this.#end = kept;
      this.#from = 0;
    }
    this.#buffer.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  #line(line: string): void {
    this.#heardAt = performance.now();
    if (!line.startsWith("dsh-sup ")) {
      // Before the greeting: what a login script printed. After it: nothing else writes here.
      this.#skipped += line.length + 1;
      if (this.#skipped > GREETING_SEARCH_BYTES) this.#lose("no greeting from the supervisor");
      return;
    }
    const [word, ...rest] = line.slice("dsh-sup ".length).split(" ");
    const value = rest.join(" ");
    if (this.#phase === "greeting" && word === "env") {
      this.#envBytes = Number(value);
      this.#phase = "env";
    } else if (this.#phase === "greeting" && word === "ready") {
      this.recordDir = value.slice(value.indexOf(" ") + 1);
      this.#phase = "lines";
      this.#announceReady();
    } else if (word === "fail") {
      this.#lose(value);
      this.#channel.abandon();
    } else if (this.#phase === "lines" && word === "state") {
      this.#answerState(rest[0], stateOf(rest[1], rest.slice(2).join(" ")));
    } else if (word === "gone" || word === "ok") {
      const key = `${word} ${value}`;
      const list = this.#waiters.get(key);
      this.#waiters.delete(key);
      for (const wake of list ?? []) wake(true);
    }
  }

  #answerState(sid: string, state: RemoteState): void {
    const list = this.#stateWaiters.get(sid);
    this.#stateWaiters.delete(sid);
    for (const wake of list ?? []) wake(state);
  }
}

/** `NAME=value` entries separated by NUL, as `/proc/<pid>/environ` holds them. */
function parseEnviron(bytes: Uint8Array): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of decoder.decode(bytes).split("\0")) {
    const equals = entry.indexOf("=");
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}

/** Whichever comes first: `promise` or `"timeout"` after `ms`; the timer never holds the event loop. */
export function firstOf<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setNodeTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setNodeTimeout(() => resolve("timeout"), ms).unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearNodeTimeout(timer));
}

/** A `state` line's answer: `+ HEX` (the bytes), `- REASON` (refused), nothing (no state). */
function stateOf(kind: string | undefined, text: string): RemoteState {
  if (kind === "-") return { refused: text };
  if (kind !== "+") return {};
  const bytes = fromHex(text);
  return bytes === undefined ? { refused: "it came back damaged" } : { bytes };
}

const HEX_VALUES = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX_VALUES["0123456789abcdef".charCodeAt(digit)] = digit;

/** Lower-case hex digits as bytes; undefined for anything else (an odd count, another character). */
function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  for (let at = 0; at < bytes.length; at++) {
    const high = HEX_VALUES[text.charCodeAt(2 * at) & 127];
    const low = HEX_VALUES[text.charCodeAt(2 * at + 1) & 127];
    if (high < 0 || low < 0 || text.charCodeAt(2 * at) > 127 || text.charCodeAt(2 * at + 1) > 127) return undefined;
    bytes[at] = high * 16 + low;
  }
  return bytes;
}
