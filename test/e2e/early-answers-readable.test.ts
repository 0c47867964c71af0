import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { expectError } from '../support/http-assertions.js';
import { postChat } from '../support/post-chat.js';
import { expectRawError, parseRawResponse, readRawResponse, type RawResponse } from '../support/raw-http.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const KEY = 'sk-early-answers-0123456789';
const BAD_KEY = 'sk-not-a-key-0123456789';
const TIMEOUT = { timeout: 60_000 };
const MIB = 1024 * 1024;

const GATEWAY_YAML = (http: string) => `
http: ${http}
nodes: [{ id: sim, provider: simulated }]
models: [{ id: m, routes: [{ node: sim }] }]
keys: [{ key: ${KEY} }]
`;

/**
 * Like Python's urllib: writes the head and the whole body without reading, and reads
 * only once every byte was handed to the kernel. Resolves with what it could read (status
 * 0 when the connection was reset first).
 */
function writeAllThenRead(port: number, head: string, body: Buffer): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), 30_000);
    void readRawResponse(socket).then((response) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    });
    socket.write(head);
    socket.write(body, () => socket.resume());
  });
}

function head(key: string, length: number, extra = ''): string {
  return `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${extra}\r\n`;
}

/**
 * Sends a chunked body in `chunkBytes` chunks every `everyMs` until the gateway closes the
 * connection or `maxBytes` were sent; resolves the bytes sent, whether it was closed, and
 * the response read.
 */
function sendUntilClosed(
  port: number,
  key: string,
  chunkBytes: number,
  everyMs: number,
  maxBytes: number,
): Promise<{ sent: number; closed: boolean; response: RawResponse }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const chunk = Buffer.concat([
      Buffer.from(`${chunkBytes.toString(16)}\r\n`),
      Buffer.alloc(chunkBytes, 32),
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    let finished = false;
    function finish(closed: boolean): void {
      if (finished) return;
      finished = true;
      socket.destroy();
      resolve({ sent, closed, response: parseRawResponse(Buffer.concat(received).toString('utf8')) });
    }
    socket.on('data', (data: Buffer) => received.push(data));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    const send = (): void => {
      if (finished) return;
      if (sent >= maxBytes) return finish(false);
      sent += chunkBytes;
      if (socket.write(chunk)) setTimeout(send, everyMs);
      else socket.once('drain', () => setTimeout(send, everyMs));
    };
    send();
  });
}

describe('answers sent before the body was read reach clients that write their whole body first', () => {
  let gateway: TestGateway;
  let tight: TestGateway;

  before(async () => {
    gateway = await startTestGateway(GATEWAY_YAML('{ body_idle_timeout_ms: 10000 }'));
    tight = await startTestGateway(GATEWAY_YAML('{ max_drain_bytes: 1048576, drain_timeout_ms: 1000 }'));
  });
  after(async () => {
    await gateway.close();
    await tight.close();
  });

  test("Node's fetch posting 50 MB reads the 413 payload_too_large", TIMEOUT, async () => {
    const response = await postChat(gateway.baseUrl, KEY, Buffer.alloc(50 * 1024 * 1024, 32), { timeoutMs: 30_000 });
    await expectError(response, { status: 413, code: 'payload_too_large', type: 'invalid_request_error' });
  });

  test(
    'a client that writes 10 MB before reading gets the 413, with or without Connection: close',
    TIMEOUT,
    async () => {
      for (const extra of ['', 'connection: close\r\n']) {
        const response = await writeAllThenRead(gateway.port, head(KEY, 10 * MIB, extra), Buffer.alloc(10 * MIB, 32));
        expectRawError(response, 413, 'payload_too_large');
      }
    },
  );

  test(
    'a client that writes 5 MB before reading gets the 401 for a bad key (urllib sends Connection: close)',
    TIMEOUT,
    async () => {
      const response = await writeAllThenRead(
        gateway.port,
        head(BAD_KEY, 5_000_000, 'connection: close\r\n'),
        Buffer.alloc(5_000_000, 32),
      );
      expectRawError(response, 401, 'invalid_api_key');
    },
  );

  test('after a drained 413 the keep-alive connection serves the next request', TIMEOUT, async () => {
    const next = `GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${KEY}\r\n\r\n`;
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(gateway.port, '127.0.0.1');
      const received: Buffer[] = [];
      const timer = setTimeout(() => socket.destroy(), 10_000);
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        if (/HTTP\/1\.1 200[\s\S]*"data"/.test(Buffer.concat(received).toString('utf8'))) socket.destroy();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(received).toString('utf8'));
      });
      socket.write(head(KEY, 5 * MIB));
      socket.write(Buffer.alloc(5 * MIB, 32));
      socket.write(next);
    });
    assert.match(raw, /^HTTP\/1\.1 413 /);
    assert.match(raw, /HTTP\/1\.1 200 [\s\S]*"data"/, 'the second response on the same connection');
  });

  test(
    'the drain is bounded in bytes: a client that keeps sending after its 401 is closed past http.max_drain_bytes',
    TIMEOUT,
    async () => {
      const result = await sendUntilClosed(tight.port, BAD_KEY, 64 * 1024, 0, 64 * MIB);
      assert.ok(result.closed, `closed (sent ${result.sent} bytes)`);
      assert.ok(result.sent < 16 * MIB, `closed soon after 1 MiB, sent ${result.sent} bytes`);
      expectRawError(result.response, 401, 'invalid_api_key');
    },
  );

  test(
    'the drain is bounded in time: a client trickling its body after its 401 is closed past http.drain_timeout_ms',
    TIMEOUT,
    async () => {
      const result = await sendUntilClosed(tight.port, BAD_KEY, 1024, 100, 100 * 1024);
      assert.ok(result.closed, `closed (sent ${result.sent} bytes in about ${result.sent / 10} ms)`);
      expectRawError(result.response, 401, 'invalid_api_key');
    },
  );
});
