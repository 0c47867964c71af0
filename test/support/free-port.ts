import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (bound, then released): for a child to listen on, or, left alone, an unreachable node. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port was bound')),
      );
    });
  });
}
