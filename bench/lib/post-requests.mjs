// Sends N POSTs of one body to a URL, C at a time over keep-alive connections, reading every
// reply whole, then exits; fails when any answer is not 200. Used by bench/door-instructions.sh.
//   node bench/lib/post-requests.mjs URL BODY_FILE N C API_KEY
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, bodyFile, total, concurrency, key] = process.argv.slice(2);
const count = Number(total);
const body = readFileSync(bodyFile);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const headers = {
  'content-type': 'application/json',
  authorization: `Bearer ${key}`,
  'anthropic-version': '2023-06-01',
};
let sent = 0;
let done = 0;
/** Answers that were not 200, by status. */
const failed = new Map();
await new Promise((resolve, reject) => {
  const next = () => {
    if (sent === count) return;
    sent++;
    const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
      if (response.statusCode !== 200) failed.set(response.statusCode, (failed.get(response.statusCode) ?? 0) + 1);
      response.resume();
      response.on('end', () => (++done === count ? resolve() : next()));
    });
    request.on('error', reject);
    request.end(body);
  };
  for (let i = 0; i < Number(concurrency); i++) next();
});
agent.destroy();
if (failed.size > 0) {
  const statuses = [...failed].map(([status, times]) => `${times} × ${status}`).join(', ');
  console.error(`post-requests: answers of ${count} that were not 200: ${statuses}`);
  process.exit(1);
}
