import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSimulator } from './run-simulator.js';

test('runSimulator starts a node from flags, prints its URL and stops on abort', { timeout: 5000 }, async () => {
  const aborter = new AbortController();
  const lines: string[] = [];
  let printed: (line: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => {
    printed = resolve;
  });
  const running = runSimulator(
    ['--port', '0', '--host', '127.0.0.1', '--reasoning-field', 'reasoning', '--first-byte-ms', '0'],
    {
      signal: aborter.signal,
      print: (line) => {
        lines.push(line);
        printed(line);
      },
    },
  );
  const line = await listening;
  const match = /^simulated node listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line);
  assert.ok(match, line);
  const baseUrl = match[1] ?? '';
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'cli', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }),
  });
  const completion = (await response.json()) as { choices: Array<{ message: Record<string, unknown> }> };
  assert.equal(typeof completion.choices[0]?.message.reasoning, 'string');

  aborter.abort();
  await running;
  await assert.rejects(fetch(`${baseUrl}/models`));
  assert.equal(lines.length, 1);
});

test('runSimulator rejects bad flags', async () => {
  await assert.rejects(runSimulator(['--port', 'abc']), /--port/);
  await assert.rejects(runSimulator(['--reasoning-field', 'thoughts']), /--reasoning-field/);
  await assert.rejects(runSimulator(['--unknown']), /unknown/i);
});

test(
  'runSimulator: --prefix-cache-tokens and --max-num-seqs give a node a prefix cache and a batch',
  { timeout: 5000 },
  async () => {
    const aborter = new AbortController();
    let printed: (line: string) => void = () => undefined;
    const listening = new Promise<string>((resolve) => {
      printed = resolve;
    });
    const running = runSimulator(
      ['--port', '0', '--prefix-cache-tokens', '10000', '--prefill-ms-per-token', '0.01', '--max-num-seqs', '4'],
      { signal: aborter.signal, print: (line) => printed(line) },
    );
    const baseUrl = /(http:\S+)$/.exec(await listening)?.[1] ?? '';
    const text = Array.from({ length: 64 }, (_, index) => `word${index}`).join(' ');
    const ask = async (): Promise<number> => {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'cli', messages: [{ role: 'user', content: text }] }),
      });
      const body = (await response.json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } };
      return body.usage.prompt_tokens_details.cached_tokens;
    };
    assert.equal(await ask(), 0);
    assert.equal(await ask(), 64);
    const metrics = await (await fetch(`${baseUrl.replace(/\/v1$/, '')}/metrics`)).text();
    assert.match(metrics, /^vllm:prefix_cache_hits_total\{model_name="simulated",engine="0"\} 64$/m);
    aborter.abort();
    await running;
    await assert.rejects(runSimulator(['--block-tokens', '32']), /--block-tokens needs --prefix-cache-tokens/);
  },
);
