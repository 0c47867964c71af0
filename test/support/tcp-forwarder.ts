import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 to a real service (PostgreSQL, Redis), that a test can cut
 * and restore on the same port: the service looks unreachable to whatever connects
 * through it, while the service itself, shared with other tests, is never touched.
 */
export class TcpForwarder {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens (again) on the same port as before, or on a free one the first time. */
  async open(): Promise<number> {
    const server = createServer((client) => {
      if (this.stalled) {
        // Taken and never answered, as a hung service does.
        this.sockets.add(client);
        client.once('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        return;
      }
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const address = server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : this.port;
    return this.port;
  }

  /**
   * Freezes the hop without closing anything: bytes on open connections are no longer passed
   * on, new connections are taken and never answered. The service seems hung, not gone.
   */
  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  /** Stops listening and drops every connection: new connections are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
