import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageJournal } from './usage-journal.js';

/** A process id no process has (above the kernel's pid_max). */
const GONE_PID = 2_147_483_000;

test('journal lines written before end users were booked replay with none; newer lines keep theirs', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-journal-end-user-'));
  try {
    const old = {
      requestId: 'req_old',
      correlationId: 'req_old',
      keyId: 'key_a',
      accountId: null,
      model: 'm',
      node: 'n',
      attempts: 1,
      promptTokens: 1,
      completionTokens: 1,
      reasoningTokens: 0,
      cachedTokens: 0,
      costNano: 10,
      estimated: false,
      status: 200,
      errorCode: null,
      latencyMs: 1,
      firstByteMs: 1,
      stream: false,
      finishReason: 'stop',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const lines = [
      JSON.stringify(old),
      JSON.stringify({ ...old, requestId: 'req_new', frontDoor: 'messages', endUser: 'alice' }),
    ];
    writeFileSync(join(directory, `usage-${GONE_PID}-active.ndjson`), `${lines.join('\n')}\n`);
    const journal = new UsageJournal(directory);
    const rows = journal.leftovers().flatMap((file) => file.rows);
    journal.close();
    assert.deepEqual(
      rows.map((row) => [row.requestId, row.frontDoor, row.endUser, row.cacheWriteTokens]),
      [
        ['req_old', 'chat', null, 0],
        ['req_new', 'messages', 'alice', 0],
      ],
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
