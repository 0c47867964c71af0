import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type GatewayProcess, startGatewayProcess } from '../support/gateway-process.js';
import { ADMIN_KEY, AdminClient, chat, expectedCostNano, PRICES, uniqueId, usdToNano } from '../support/money.js';
import { type StoreBackend, storeBackends } from '../support/store-backends.js';
import { waitFor } from '../support/wait-for.js';
import { postChat } from '../support/post-chat.js';

// Issue 16 item 10 / docs/keys-and-money.md "Crash guarantee": a stream in flight when the gateway is killed
// (SIGKILL) is still charged at the next start, from the progress the journal kept of it
// (booked as estimated, at most one progress interval short of what was streamed), and a
// stream that had finished before the kill is booked once, on its own final usage.

const backends = await storeBackends('crash-stream');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const PROGRESS_MS = 500;
/** Scheduling slack on a machine shared with other tests (the gateway's timer may run late). */
const SLACK_MS = 1_000;
const CHARACTERS_PER_TOKEN = 4;

function pricing(model: string): string {
  return `{ ${Object.entries(PRICES[model] ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ')} }`;
}

/** A gateway file of its own: its account, key and journal directory (the backend's store is shared by the tests of the file). */
function configFor(
  backend: StoreBackend,
  accountId: string,
  start: number,
  cleanup: (work: () => void) => void,
  flushIntervalMs = 60_000,
): { file: string; key: string; journalDir: string } {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-crash-stream-'));
  cleanup(() => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, 'gateway.yaml');
  const journalDir = join(directory, 'journal');
  const key = `sk-${accountId}`;
  // `paid-slow` streams 128 reasoning tokens then a 12–48 token answer at 20 tokens/s (7–9 s).
  writeFileSync(
    file,
    `listen: { host: 127.0.0.1, port: 0 }
store: "${backend.store}"
admin_key: ${ADMIN_KEY}
log_level: warn
usage: { journal_dir: "${journalDir}", flush_interval_ms: ${flushIntervalMs}, stream_progress_interval_ms: ${PROGRESS_MS} }
nodes:
  - { id: sim, provider: simulated }
  - { id: crawl, provider: simulated, simulated: { tokens_per_second: 20 } }
models:
  - { id: paid, pricing: ${pricing('paid')}, routes: [{ node: sim }] }
  - { id: paid-slow, reasoning: { default_effort: high }, pricing: ${pricing('paid-slow')}, routes: [{ node: crawl }] }
accounts:
  - { id: ${accountId}, balance: ${start} }
keys:
  - { key: ${key}, account: ${accountId} }
`,
  );
  return { file, key, journalDir };
}

function streamRequest(baseUrl: string, key: string, body: Record<string, unknown>): Promise<Response> {
  return postChat(
    baseUrl,
    key,
    { ...body, stream: true, stream_options: { include_usage: true } },
    { timeoutMs: 200_000 },
  );
}

/** Answer and reasoning characters of the complete `data:` events in `text`. */
function streamedCharacters(text: string): { content: number; reasoning: number } {
  const characters = { content: 0, reasoning: 0 };
  for (const event of text.split('\n\n').slice(0, -1)) {
    if (!event.startsWith('data: {')) continue;
    const chunk = JSON.parse(event.slice('data: '.length)) as {
      choices?: Array<{ delta?: { content?: string; reasoning_content?: string } }>;
    };
    for (const choice of chunk.choices ?? []) {
      characters.content += choice.delta?.content?.length ?? 0;
      characters.reasoning += choice.delta?.reasoning_content?.length ?? 0;
    }
  }
  return characters;
}

/** The gateway's estimate of the completion tokens of that text (src/billing/booked-usage.ts). */
function estimatedTokens(text: string): { completion: number; reasoning: number } {
  const { content, reasoning } = streamedCharacters(text);
  const reasoningTokens = Math.ceil(reasoning / CHARACTERS_PER_TOKEN);
  return { completion: reasoningTokens + Math.ceil(content / CHARACTERS_PER_TOKEN), reasoning: reasoningTokens };
}

async function kill9(served: GatewayProcess): Promise<void> {
  served.child.kill('SIGKILL');
  assert.equal(await served.exited, null, 'killed by a signal');
}

/**
 * Starts a slow stream on `served`, runs `meanwhile` once it streams, then kills the
 * gateway; returns the gateway's estimate of what the client received in all, and of what
 * it received more than one progress interval (and some slack) before the kill.
 */
async function cutByKill(
  served: GatewayProcess,
  key: string,
  meanwhile: () => Promise<void>,
): Promise<{ streamed: ReturnType<typeof estimatedTokens>; covered: ReturnType<typeof estimatedTokens> }> {
  const cut = await streamRequest(served.baseUrl, key, {
    model: 'paid-slow',
    messages: [{ role: 'user', content: 'a long story, cut by a crash' }],
  });
  assert.equal(cut.status, 200);
  const reader = (cut.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  /** [time, length of the text received by then]. */
  const received: Array<[number, number]> = [];
  let readerDone = false;
  const reading = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        received.push([Date.now(), text.length]);
      }
    } catch {
      // The connection dies with the process.
    }
    readerDone = true;
  })();
  await waitFor(() => estimatedTokens(text).completion > 0, 20_000, { what: 'the slow stream to start' });
  await meanwhile();
  assert.equal(readerDone, false, 'the stream is still running at the kill');
  const killedAt = Date.now();
  await kill9(served);
  await reading;
  assert.ok(!text.includes('[DONE]'), 'the stream did not finish');
  const coveredLength = received
    .filter(([at]) => at <= killedAt - PROGRESS_MS - SLACK_MS)
    .reduce((most, [, length]) => Math.max(most, length), 0);
  const covered = estimatedTokens(text.slice(0, coveredLength));
  assert.ok(covered.completion > 0, 'tokens came more than one progress interval before the kill');
  return { streamed: estimatedTokens(text), covered };
}

// The backends run side by side; a backend's tests one after the other (a PGlite directory has one process at a time).
describe('SIGKILL in the middle of a stream', { concurrency: true }, () => {
  for (const backend of backends) {
    describe(backend.name, { skip: backend.skip, concurrency: false }, () => {
      test(
        `${backend.name}: the cut stream is booked as estimated from its journaled progress, the finished one once; balance and spend = ledger`,
        { skip: backend.skip },
        async (t) => {
          const accountId = uniqueId('crash-stream');
          const start = 3;
          // Batches wait a minute: at the kill nothing of these requests has reached the store.
          const { file, key, journalDir } = configFor(backend, accountId, start, (work) => t.after(work));
          let served = await startGatewayProcess(file);
          t.after(() => served.child.kill('SIGKILL'));

          // A stream that finishes before the kill: its final row must win over its progress records.
          const finished = await streamRequest(served.baseUrl, key, {
            model: 'paid',
            max_tokens: 30,
            messages: [{ role: 'user', content: 'finished stream' }],
          });
          const finishedText = await finished.text();
          assert.ok(finishedText.endsWith('data: [DONE]\n\n'), finishedText.slice(-200));
          const usageLine = finishedText
            .split('\n')
            .filter((line) => line.includes('"usage":{'))
            .pop() as string;
          const finishedUsage = JSON.parse(usageLine.slice('data: '.length)).usage;
          const finishedCost = expectedCostNano('paid', finishedUsage);

          // A slow stream, killed after a few seconds of streaming.
          const { streamed, covered } = await cutByKill(served, key, async () => {
            await new Promise((resolve) => setTimeout(resolve, 3_000));
          });
          assert.ok(
            readdirSync(journalDir).some((name) => name.endsWith('.ndjson')),
            'the killed gateway left its journal',
          );

          served = await startGatewayProcess(file);
          const admin = new AdminClient(served.baseUrl);
          const report = await admin.usage({ account: accountId });
          assert.equal(report.totals.requests, 2, `one row per request: ${JSON.stringify(report.data)}`);
          const rows = new Map<string, { [field: string]: unknown }>(
            report.data.map((row: { model: string }) => [row.model, row]),
          );
          const finishedRow = rows.get('paid');
          assert.ok(finishedRow !== undefined);
          assert.equal(finishedRow.estimated, false, 'the finished stream is booked on its final usage');
          assert.equal(finishedRow.completion_tokens, finishedUsage.completion_tokens);
          assert.equal(finishedRow.cost_nano, finishedCost);

          const cutRow = rows.get('paid-slow');
          assert.ok(cutRow !== undefined, 'the stream cut by the kill is booked');
          assert.equal(cutRow.estimated, true);
          assert.equal(cutRow.error_code, 'gateway_crashed');
          assert.equal(cutRow.stream, true);
          const completion = cutRow.completion_tokens as number;
          t.diagnostic(
            `cut stream: booked ${String(cutRow.completion_tokens)} completion tokens; streamed ${streamed.completion}, of which ${covered.completion} more than ${PROGRESS_MS + SLACK_MS} ms before the kill`,
          );
          const prompt = cutRow.prompt_tokens as number;
          assert.ok(prompt > 0, 'the prompt is charged');
          assert.ok(
            completion <= streamed.completion,
            `booked ${completion} completion tokens, no more than the ${streamed.completion} streamed`,
          );
          assert.ok(
            completion >= covered.completion,
            `booked ${completion} completion tokens, at least the ${covered.completion} streamed up to one interval before the kill`,
          );
          const reasoning = cutRow.reasoning_tokens as number;
          assert.ok(
            reasoning > 0 && reasoning <= streamed.reasoning,
            `reasoning tokens ${reasoning} of ${streamed.reasoning} streamed`,
          );
          const usage = {
            prompt_tokens: prompt,
            completion_tokens: completion,
            completion_tokens_details: { reasoning_tokens: reasoning },
          };
          assert.equal(cutRow.cost_nano, expectedCostNano('paid-slow', usage));

          // Balance and the key's spend equal the ledger.
          const total = report.totals.cost_nano as number;
          assert.equal(total, finishedCost + (cutRow.cost_nano as number));
          assert.equal(await admin.balanceNano(accountId), usdToNano(start) - total, 'balance = start − Σ cost');
          assert.equal(await admin.spentNano(cutRow.key as string), total, 'key spent = Σ cost');
          // The replayed files are gone: their progress records keep no file alive.
          assert.deepEqual(
            readdirSync(journalDir).filter((name) => !name.startsWith(`usage-${served.child.pid}-`)),
            [],
            'the killed process left no file behind after the replay',
          );

          // Killed again with nothing new: nothing is booked twice.
          await kill9(served);
          served = await startGatewayProcess(file);
          const again = new AdminClient(served.baseUrl);
          assert.equal((await again.usage({ account: accountId })).totals.requests, 2);
          assert.equal(await again.balanceNano(accountId), usdToNano(start) - total);
          served.child.kill('SIGTERM');
          assert.equal(await served.exited, 0, 'a clean stop');
        },
      );

      test(
        `${backend.name}: batches committed while a stream runs leave it covered at the kill; no journal file outlives the streams it covers`,
        { skip: backend.skip },
        async (t) => {
          const accountId = uniqueId('crash-stream-batches');
          const start = 3;
          // Batches are written every 25 ms: the files holding the stream's first records are committed while it runs.
          const { file, key, journalDir } = configFor(backend, accountId, start, (work) => t.after(work), 25);
          let served = await startGatewayProcess(file);
          t.after(() => served.child.kill('SIGKILL'));
          let costs = 0;
          const json = async (index: number) => {
            const answer = await chat(served.baseUrl, key, {
              model: 'paid',
              max_tokens: 20,
              messages: [{ role: 'user', content: `json request ${index}` }],
            });
            assert.equal(answer.status, 200, JSON.stringify(answer.body));
            costs += expectedCostNano('paid', answer.body.usage);
          };
          const { streamed, covered } = await cutByKill(served, key, async () => {
            for (let index = 0; index < 8; index++) {
              await json(index);
              await new Promise((resolve) => setTimeout(resolve, 300));
            }
            // Everything booked so far is committed, and its files are deleted (or kept for the stream until its next record).
            assert.equal((await new AdminClient(served.baseUrl).usage({ account: accountId })).totals.requests, 8);
          });

          served = await startGatewayProcess(file);
          let admin = new AdminClient(served.baseUrl);
          const report = await admin.usage({ account: accountId });
          assert.equal(report.totals.requests, 9, `one row per request: ${JSON.stringify(report.data)}`);
          const cutRow = report.data.find((row: { model: string }) => row.model === 'paid-slow');
          assert.ok(cutRow !== undefined, 'the stream cut by the kill is booked');
          assert.equal(cutRow.estimated, true);
          t.diagnostic(
            `cut stream: booked ${String(cutRow.completion_tokens)} completion tokens; streamed ${streamed.completion}, of which ${covered.completion} more than ${PROGRESS_MS + SLACK_MS} ms before the kill`,
          );
          assert.ok(
            cutRow.completion_tokens <= streamed.completion && cutRow.completion_tokens >= covered.completion,
            `booked ${String(cutRow.completion_tokens)}, streamed ${streamed.completion}, covered ${covered.completion}`,
          );
          assert.equal(report.totals.cost_nano, costs + (cutRow.cost_nano as number));
          assert.equal(
            await admin.balanceNano(accountId),
            usdToNano(start) - report.totals.cost_nano,
            'balance = start − Σ cost',
          );
          assert.equal(await admin.spentNano(cutRow.key as string), report.totals.cost_nano, 'key spent = Σ cost');

          // A stream that ends normally while batches are committed: once it is over, no journal file is left.
          const finishing = streamRequest(served.baseUrl, key, {
            model: 'paid-slow',
            reasoning_effort: 'low',
            messages: [{ role: 'user', content: 'a short story' }],
          }).then((response) => response.text());
          let streamText: string | undefined;
          void finishing.then((text) => (streamText = text));
          for (let index = 100; streamText === undefined; index++) {
            await json(index);
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          assert.ok((streamText as string).endsWith('data: [DONE]\n\n'));
          admin = new AdminClient(served.baseUrl);
          await admin.usage({ account: accountId });
          await waitFor(() => readdirSync(journalDir).length === 0, 5_000, {
            everyMs: 50,
            what: () => `an empty journal; files left: ${readdirSync(journalDir).join(', ')}`,
          });
          served.child.kill('SIGTERM');
          assert.equal(await served.exited, 0, 'a clean stop');
        },
      );
    });
  }
});
