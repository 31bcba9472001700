/**
 * A proxy of a Docker daemon's socket that holds every exec resize request
 * (`POST /…/exec/ID/resize`) until told to let them go: a daemon slow to
 * answer the CLI's own resize, as a loaded machine makes it, on demand.
 * Everything else (the exec's hijacked stream included) passes at once, in
 * order on each connection.
 *
 * Nothing here imports the library.
 */

import { createConnection, createServer, type Server, type Socket } from "node:net";

/** The proxy: `host` is the `DOCKER_HOST` that reaches the daemon through it. */
export class SlowResizeProxy {
  readonly host: string;
  readonly #server: Server;
  /** Held requests: each lets its request go and resolves once the daemon has answered it. */
  readonly #held: (() => Promise<void>)[] = [];
  readonly #sockets = new Set<Socket>();

  /** Forwards what reaches `path` to the daemon's socket at `upstream`; `listening` says when it is up. */
  private constructor(upstream: string, path: string) {
    this.host = `unix://${path}`;
    this.#server = createServer({ allowHalfOpen: true }, (client) => this.#connect(client, upstream));
  }

  /** Listens at `path` and forwards to the daemon's socket at `upstream`. */
  static start(upstream: string, path: string): Promise<SlowResizeProxy> {
    const proxy = new SlowResizeProxy(upstream, path);
    return new Promise((resolve) => proxy.#server.listen(path, () => resolve(proxy)));
  }

  /** Lets every held request go; resolves with how many there were, once the daemon has answered each. */
  async releaseAll(): Promise<number> {
    const now = this.#held.splice(0);
    await Promise.all(now.map((release) => release()));
    return now.length;
  }

  /** Stops listening and drops every connection. */
  close(): void {
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
  }

  #connect(client: Socket, upstream: string): void {
    const daemon = createConnection({ path: upstream, allowHalfOpen: true });
    for (const socket of [client, daemon]) {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        daemon.destroy();
      });
    }
    // HTTP/1.1 answers in order: once a held request is let go, the next bytes from the daemon are its answer.
    let answered: (() => void) | undefined;
    daemon.on("data", (chunk) => {
      answered?.();
      answered = undefined;
      client.write(chunk);
    });
    daemon.on("end", () => client.end());
    let queue = Promise.resolve();
    client.on("data", (chunk: Buffer) => {
      if (!/^POST \S*\/exec\/[^/ ]+\/resize/.test(chunk.toString("latin1", 0, 200))) {
        queue = queue.then(() => void daemon.write(chunk));
        return;
      }
      let letGo = (): void => {};
      const released = new Promise<void>((resolve) => letGo = resolve);
      const done = new Promise<void>((resolve) => {
        queue = queue.then(async () => {
          await released;
          answered = resolve;
          daemon.write(chunk);
        });
      });
      this.#held.push(() => {
        letGo();
        return done;
      });
    });
    client.on("end", () => void queue.then(() => daemon.end()));
  }
}
