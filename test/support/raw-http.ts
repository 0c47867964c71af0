import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';

/** A response read off a raw socket. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Everything received, as text. */
  readonly raw: string;
}

/**
 * Sends bytes on a fresh TCP connection and reads until the first response is complete
 * (headers and Content-Length body) or the server closes the connection; rejects after
 * `timeoutMs`. `chunks` are written in order, `pauseMs` apart.
 */
export function rawExchange(
  port: number,
  chunks: ReadonlyArray<string | Buffer>,
  options: { pauseMs?: number; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const { pauseMs = 0, timeoutMs = 5000 } = options;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no close within ${timeoutMs} ms; got: ${Buffer.concat(received).toString('latin1').slice(0, 300)}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const text = Buffer.concat(received).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const response = parseRawResponse(text);
      if (
        Buffer.byteLength(text.slice(end + 4)) >= Number(response.headers['content-length'] ?? Number.POSITIVE_INFINITY)
      )
        socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRawResponse(Buffer.concat(received).toString('utf8')));
    });
    socket.on('connect', async () => {
      for (const [index, chunk] of chunks.entries()) {
        if (index > 0 && pauseMs > 0) await new Promise((wait) => setTimeout(wait, pauseMs));
        if (socket.destroyed) return;
        socket.write(chunk);
      }
    });
  });
}

/** Parses the first HTTP/1.1 response in `raw` (Content-Length bodies only). */
export function parseRawResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: '', raw };
  const [statusLine, ...headerLines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return {
    status,
    headers,
    body: Buffer.from(raw.slice(end + 4))
      .subarray(0, length)
      .toString('utf8'),
    raw,
  };
}

/** Checks a raw response is a spec 7.1 error: status, JSON envelope, request id in body and header. */
export function expectRawError(response: RawResponse, status: number, code: string): void {
  assert.equal(response.status, status, `status (raw: ${response.raw.slice(0, 300)})`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  const body = JSON.parse(response.body) as { error: Record<string, unknown> };
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'request_id', 'type']);
  assert.equal(body.error.code, code);
  assert.match(String(body.error.request_id), /^req_/);
  assert.equal(response.headers['x-request-id'], body.error.request_id);
  assert.ok(response.headers['x-correlation-id']);
}

/**
 * Collects a socket's bytes as one HTTP response: resolves once the whole body of a
 * response with a content length has arrived, or when the socket closes or fails (with
 * what was read; status 0 when nothing was).
 */
export function readRawResponse(socket: Socket): Promise<RawResponse> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      resolve(parseRawResponse(Buffer.concat(received).toString('utf8')));
    };
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const parsed = parseRawResponse(Buffer.concat(received).toString('utf8'));
      const length = Number(parsed.headers['content-length'] ?? Number.POSITIVE_INFINITY);
      if (parsed.status !== 0 && Buffer.byteLength(parsed.body) >= length) done();
    });
    socket.on('error', done);
    socket.on('close', done);
  });
}
