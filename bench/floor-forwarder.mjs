// The floor for a Node gateway on Switchyard's stack: node:http in front, the same undici
// Pool behind, and nothing else. It reads the body, parses it (to know `stream`), sends it
// on, and relays the node's answer (one body, or the stream's chunks unread). No auth,
// limits, money, routing, event inspection, logs or metrics. Compare it with the gateway
// and the kit's minimal proxy: `bash bench/ab-cpu.sh json|sse 4 4 proxy=proxy floor=floor switchyard=dist`.
//   BENCH_GATEWAY_PORT=18110 BENCH_UPSTREAM_BASE_URL=http://127.0.0.1:18101/v1 node bench/floor-forwarder.mjs
import http from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.env.BENCH_UPSTREAM_BASE_URL ?? 'http://127.0.0.1:18101/v1');
const path = `${upstream.pathname.replace(/\/+$/, '')}/chat/completions`;
const pool = new Pool(upstream.origin, {
  connections: Number(process.env.BENCH_FLOOR_CONNECTIONS ?? 256),
  pipelining: 1,
});

async function forward(text, response) {
  const request = text === '' ? {} : JSON.parse(text);
  const reply = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  if (request.stream === true) {
    response.writeHead(reply.statusCode, { 'content-type': 'text/event-stream' });
    for await (const chunk of reply.body) response.write(chunk);
    response.end();
    return;
  }
  const body = await reply.body.text();
  response.writeHead(reply.statusCode, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

http
  .createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      forward(Buffer.concat(chunks).toString('utf8'), response).catch(() => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
    });
  })
  .listen(Number(process.env.BENCH_GATEWAY_PORT ?? 18110), '127.0.0.1', function onListening() {
    console.log(`floor listening on http://127.0.0.1:${this.address().port}`);
  });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
