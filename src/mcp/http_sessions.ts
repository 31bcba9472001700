/**
 * The session table of `serveHttp`: the open MCP sessions, each one
 * transport and one server (and so one owner and one shell session), the
 * cap on how many are open or opening, the idle clock, and the end of a
 * session and everything it started.
 *
 * @module
 */

import type { Server } from "@modelcontextprotocol/sdk/server";
// Deno does not find the types of the package's wildcard exports (`./*.js`); tsc does. The same file, named for Deno.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { randomUUID } from "node:crypto";
import type { Shell } from "../seam/types.ts";
import { buildServer, endConnection } from "./server.ts";
import type { McpServerOptions } from "./types.ts";

// How long an ending session waits for the answers of its aborted calls to be written.
const ANSWER_GRACE_MS = 2_000;

/** One MCP session: its transport, its server (and so its owner and shell session), and its idle clock. */
export interface HttpSession {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** POST requests under way: a session is idle only when none is. */
  posts: number;
  /** Told when `posts` falls to 0. */
  quiet: (() => void)[];
  idle: ReturnType<typeof setTimeout> | undefined;
  ending: Promise<void> | undefined;
}

/** The open sessions by id, and those being opened, against the cap. */
export class HttpSessions {
  readonly #shell: Shell;
  readonly #server: McpServerOptions;
  readonly #idleTimeoutMs: number;
  readonly #maxSessions: number;
  readonly #open = new Map<string, HttpSession>();
  // Sessions being created: they count against the cap before their id is known.
  #opening = 0;

  /**
   * @param shell The shell every session's server runs its tools in.
   * @param server The MCP server's options (each session gets its own owner).
   * @param idleTimeoutMs A session with no request for this long is ended.
   * @param maxSessions The most sessions open or opening at once.
   */
  constructor(shell: Shell, server: McpServerOptions, idleTimeoutMs: number, maxSessions: number) {
    this.#shell = shell;
    this.#server = server;
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#maxSessions = maxSessions;
  }

  /** How many sessions are open now. */
  get size(): number {
    return this.#open.size;
  }

  /** The open session of `id`, unless it is ending. */
  get(id: string): HttpSession | undefined {
    const found = this.#open.get(id);
    return found === undefined || found.ending !== undefined ? undefined : found;
  }

  /**
   * Counts a session being opened against the cap until {@linkcode release}, so a burst of initializes cannot pass
   * it; `false` when the cap is reached.
   */
  reserve(): boolean {
    if (this.#open.size + this.#opening >= this.#maxSessions) return false;
    this.#opening++;
    return true;
  }

  /** Ends what {@linkcode reserve} counted. */
  release(): void {
    this.#opening--;
  }

  /** A new session, its server connected to its transport; not open until {@linkcode add}. */
  async create(): Promise<HttpSession> {
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      // Awaited by the transport before it answers a DELETE: the answer comes once the session's work has ended.
      onsessionclosed: () => this.end(session),
    });
    const server = buildServer(this.#shell, { ...this.#server, owner: `mcp-http-${id}` });
    const session: HttpSession = { id, transport, server, posts: 0, quiet: [], idle: undefined, ending: undefined };
    transport.onclose = () => void this.end(session);
    await server.connect(transport);
    return session;
  }

  /** Opens a session whose initialize succeeded. */
  add(session: HttpSession): void {
    this.#open.set(session.id, session);
  }

  /** A POST of `session` begins: the session is not idle while it runs. */
  postStarted(session: HttpSession): void {
    session.posts++;
    clearTimeout(session.idle);
  }

  /** A POST of `session` ended: with none left, an ending session is told and a live one's idle clock starts. */
  postEnded(session: HttpSession): void {
    if (--session.posts !== 0) return;
    session.quiet.splice(0).forEach((tell) => tell());
    if (session.ending === undefined) this.#armIdle(session);
  }

  /** Ends `session`: its calls aborted, its tasks killed, its transport closed; resolves once its work has ended. */
  end(session: HttpSession): Promise<void> {
    session.ending ??= (async () => {
      clearTimeout(session.idle);
      this.#open.delete(session.id);
      // The calls are aborted and the tasks killed; this resolves once they have ended.
      await endConnection(session.server);
      // The aborted calls' answers are on their way to their streams: let them go out before the streams close
      // (a client would otherwise wait for them until its own timeout), for a moment at most.
      if (session.posts > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => session.quiet.push(resolve)),
          new Promise<void>((resolve) => timer = setTimeout(resolve, ANSWER_GRACE_MS)),
        ]);
        clearTimeout(timer);
      }
      await session.transport.close();
    })();
    return session.ending;
  }

  /** Ends every open session. */
  async endAll(): Promise<void> {
    await Promise.all([...this.#open.values()].map((session) => this.end(session)));
  }

  #armIdle(session: HttpSession): void {
    clearTimeout(session.idle);
    session.idle = setTimeout(() => void this.end(session), this.#idleTimeoutMs);
    // The clock alone must not keep a process alive whose server was closed.
    (session.idle as { unref?: () => void }).unref?.();
  }
}
