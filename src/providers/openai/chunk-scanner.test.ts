import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generatedStream } from '../../../test/support/openai-chunk-generator.js';
import { ChunkScanner } from './chunk-scanner.js';

interface ParsedChoice {
  delta?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown } | null;
  finish_reason?: unknown;
}

/** The facts the scanner reports, worked out from the parsed chunk. */
function factsOf(text: string) {
  const chunk = JSON.parse(text) as { id?: unknown; created?: unknown; model?: unknown; usage?: unknown; error?: unknown; choices?: unknown };
  assert.ok(chunk !== null && typeof chunk === 'object' && !Array.isArray(chunk), 'an object');
  assert.ok(chunk.usage === undefined || chunk.usage === null, 'usage absent or null');
  assert.ok(chunk.error === undefined || chunk.error === null, 'error absent or null');
  let contentCharacters = 0;
  let reasoningCharacters = 0;
  let finishReason: unknown;
  if (chunk.choices !== undefined && chunk.choices !== null) {
    assert.ok(Array.isArray(chunk.choices), 'choices is an array');
    for (const choice of chunk.choices as ParsedChoice[]) {
      assert.ok(choice !== null && typeof choice === 'object' && !Array.isArray(choice), 'a choice object');
      const delta = choice.delta;
      if (delta !== undefined && delta !== null) {
        assert.ok(typeof delta === 'object' && !Array.isArray(delta), 'a delta object');
        assert.notEqual(typeof delta.reasoning, 'string', 'no reasoning field to rename');
        if (typeof delta.content === 'string') contentCharacters += delta.content.length;
        if (typeof delta.reasoning_content === 'string') reasoningCharacters += delta.reasoning_content.length;
      }
      if (choice.finish_reason) finishReason ??= choice.finish_reason;
    }
  }
  return {
    contentCharacters,
    reasoningCharacters,
    finishReason,
    model: typeof chunk.model === 'string' ? chunk.model : undefined,
    id: typeof chunk.id === 'string' ? chunk.id : undefined,
    created: typeof chunk.created === 'number' ? chunk.created : undefined,
  };
}

/** Scans the events of one stream with one scanner; every chunk it accepts must be valid JSON with the same facts. */
function checkStream(datas: readonly string[], label: string): { accepted: number; resumed: number } {
  const scanner = new ChunkScanner();
  let accepted = 0;
  let resumed = 0;
  for (const [index, text] of datas.entries()) {
    if (!scanner.scan(text)) continue;
    accepted++;
    if (scanner.resumedAt > 0) resumed++;
    const where = `${label}, event ${index}: ${text}`;
    let expected;
    try {
      expected = factsOf(text);
    } catch (error) {
      assert.fail(`${where}: accepted, but ${(error as Error).message}`);
    }
    assert.deepEqual(
      {
        contentCharacters: scanner.contentCharacters,
        reasoningCharacters: scanner.reasoningCharacters,
        finishReason: scanner.finishReason,
        model: scanner.modelStart === -1 ? undefined : text.slice(scanner.modelStart, scanner.modelEnd),
        id: scanner.id(),
        created: scanner.created(),
      },
      expected,
      where,
    );
  }
  return { accepted, resumed };
}

test('every chunk the scanner accepts is valid JSON, and its facts are those of the parsed chunk', () => {
  let accepted = 0;
  let resumed = 0;
  for (let seed = 1; seed <= 1500; seed++) {
    const counts = checkStream(generatedStream(seed).records.map((record) => record.data), `seed ${seed}`);
    accepted += counts.accepted;
    resumed += counts.resumed;
  }
  // The generated streams reach both ways of reading a chunk.
  assert.ok(accepted > 5000 && resumed > 2000, `accepted ${accepted}, resumed ${resumed}`);
});

test('the recorded streams are read without JSON.parse but for their usage chunks', () => {
  const folder = join(import.meta.dirname, '__fixtures__');
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.sse'))) {
    const datas = readFileSync(join(folder, name), 'utf8').split('\n').filter((line) => line.startsWith('data: {')).map((line) => line.slice(6));
    const { accepted } = checkStream(datas, name);
    const renamed = datas.filter((data) => data.includes('"reasoning":"')).length;
    const withUsage = datas.filter((data) => data.includes('"usage":{')).length;
    assert.equal(accepted, datas.length - renamed - withUsage, name);
  }
});

test('a key repeated across the remembered start and the rest of a chunk is left to JSON.parse', () => {
  const head = '{"id":"c1","model":"m","choices":[{"finish_reason":"stop","index":0,"delta":';
  const scanner = new ChunkScanner();
  assert.equal(scanner.scan(`${head}{"content":"a"}}]}`), true);
  assert.equal(scanner.scan(`${head}{"content":"bc"}}]}`), true);
  assert.equal(scanner.resumedAt, head.length);
  assert.equal(scanner.contentCharacters, 2);
  assert.equal(scanner.finishReason, 'stop');
  assert.equal(scanner.scan(`${head}{"content":"d"},"finish_reason":"length"}]}`), false);
  assert.equal(scanner.scan(`${head}{"content":"d"},"delta":{}}]}`), false);
  assert.equal(scanner.scan(`${head}{"content":"d"}}],"choices":[]}`), false);
  assert.equal(scanner.scan(`${head}{"content":"d"}}],"model":"n"}`), false);
});
