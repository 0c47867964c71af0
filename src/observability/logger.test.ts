import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// The JSON-lines logger writes to file descriptor 1, so it is run in a child process and
// its stdout read back.

const SCRIPT = `
import { createLogger, requestLineLogger } from './src/observability/logger.ts';
const logger = createLogger('info', 'json', false);
const lines = requestLineLogger(logger);
const context = (id, status) => ({ requestId: id, correlationId: 'c-' + id, record: { stream: false, attempts: [], clientAborted: false, status, model: 'm"x' } });
const source = context('req_1', 200);
source.record.costUsd = 0.25;
lines.write('info', { context: source, method: 'POST', path: '/v1/chat/completions', totalMs: 1.5 });
logger.warn({ detail: 'between' }, 'a warning');
lines.write('debug', { context: context('req_debug', 200), method: 'GET', path: '/healthz', totalMs: 0.1 });
for (let i = 0; i < 300; i++) lines.write('info', { context: context('req_many_' + i, 201), method: 'POST', path: '/v1/chat/completions', totalMs: i });
setTimeout(() => {
  lines.write('info', { context: context('req_last', 503), method: 'POST', path: '/v1/chat/completions', totalMs: 2 });
  process.exit(0);
}, 50);
`;

test('JSON lines: request lines batched in order with other records, one JSON object a line, flushed at exit', () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  const lines = child.stdout.split('\n').filter((line) => line !== '');
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(records.length, 1 + 1 + 300 + 1, 'no debug line at info, nothing lost');
  assert.deepEqual(records[0], {
    level: 30,
    time: records[0]?.time,
    service: 'switchyard',
    request_id: 'req_1',
    correlation_id: 'c-req_1',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    model: 'm"x',
    stream: false,
    cost_usd: 0.25,
    total_ms: 1.5,
    client_aborted: false,
    msg: 'request',
  });
  assert.equal(typeof records[0]?.time, 'number');
  assert.deepEqual([records[1]?.msg, records[1]?.level, records[1]?.detail], ['a warning', 40, 'between']);
  assert.deepEqual(
    records.slice(2, 302).map((record) => record.request_id),
    Array.from({ length: 300 }, (_, i) => `req_many_${i}`),
  );
  assert.equal(records[302]?.request_id, 'req_last', 'a line still collected at exit is written');
});
