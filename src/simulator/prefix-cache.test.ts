import assert from 'node:assert/strict';
import test from 'node:test';
import { PrefixCache } from './prefix-cache.js';
import { promptBlockHashes } from './prompt-blocks.js';
import { countPromptTokens } from './simulated-tokenizer.js';

/** `count` distinct words, so no two blocks of different texts hash alike. */
function words(tag: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${tag}${index}`).join(' ');
}

/** An agent conversation after `turns` turns: a long system prompt, then user/assistant pairs. */
function conversation(session: string, turns: number): Array<{ role: string; content: string }> {
  const messages = [{ role: 'system', content: words(`${session}-system-`, 400) }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: words(`${session}-user${turn}-`, 120) });
    if (turn < turns) messages.push({ role: 'assistant', content: words(`${session}-reply${turn}-`, 40) });
  }
  return messages;
}

function lookUp(cache: PrefixCache, messages: Array<{ role: string; content: string }>): number {
  return cache.lookupAndStore(promptBlockHashes('m', messages, cache.blockTokens), countPromptTokens(messages));
}

test('the blocks hashed are the prompt tokens counted: full 16-token blocks, a partial last block left out', () => {
  const messages = conversation('a', 3);
  const hashes = promptBlockHashes('m', messages, 16);
  assert.equal(hashes.length, Math.floor(countPromptTokens(messages) / 16));
  assert.equal(new Set(hashes).size, hashes.length);
  // The same text under another model shares no block.
  assert.ok(!promptBlockHashes('other', messages, 16).some((hash) => hashes.includes(hash)));
});

test('a conversation that grows by a turn hits on every full block of its previous prompt', () => {
  const cache = new PrefixCache(100_000, 16);
  let queried = 0;
  let hits = 0;
  const first = conversation('a', 1);
  assert.equal(lookUp(cache, first), 0);
  queried += countPromptTokens(first);
  for (let turns = 2; turns <= 6; turns++) {
    const previous = countPromptTokens(conversation('a', turns - 1));
    const cached = lookUp(cache, conversation('a', turns));
    // The previous prompt ended with the reply's opening, which the new prompt continues: all its full blocks hit.
    assert.equal(cached, Math.floor(previous / 16) * 16, `turn ${turns}`);
    queried += countPromptTokens(conversation('a', turns));
    hits += cached;
  }
  // Another session shares nothing.
  assert.equal(lookUp(cache, conversation('b', 2)), 0);
  queried += countPromptTokens(conversation('b', 2));
  assert.deepEqual(cache.counters, { queriedTokens: queried, hitTokens: hits });
});

test('the same prompt twice computes at least one block', () => {
  const cache = new PrefixCache(100_000, 16);
  const messages = conversation('a', 2);
  lookUp(cache, messages);
  const hashes = promptBlockHashes('m', messages, 16).length;
  const tokens = countPromptTokens(messages);
  const cached = lookUp(cache, messages);
  // Every full block is cached; when they cover the whole prompt, the last one is computed again.
  assert.equal(cached, hashes * 16 < tokens ? hashes * 16 : (hashes - 1) * 16);
  assert.ok(cached < tokens);
});

test('past its capacity the cache evicts the least recently used blocks: an evicted session misses again', () => {
  const one = countPromptTokens(conversation('a', 2));
  // Room for two sessions' prompts, not three.
  const cache = new PrefixCache(2.5 * one, 16);
  lookUp(cache, conversation('a', 1));
  lookUp(cache, conversation('b', 1));
  assert.ok(lookUp(cache, conversation('a', 2)) > 0, 'a is still cached');
  lookUp(cache, conversation('c', 2));
  lookUp(cache, conversation('d', 2));
  // b was used longest ago: evicted; its next turn computes the whole prompt.
  assert.equal(lookUp(cache, conversation('b', 2)), 0);
  assert.ok(cache.cachedTokens <= 2.5 * one);
});

test("a prompt's opening is evicted after its tail (blocks refreshed last to first)", () => {
  const blocks = Math.floor(countPromptTokens(conversation('a', 1)) / 16);
  // Room for a's blocks and 20 more: storing b (as long as a) evicts blocks - 20 of a's.
  const cache = new PrefixCache((blocks + 20) * 16, 16);
  lookUp(cache, conversation('a', 1));
  lookUp(cache, conversation('b', 1));
  // a's tail went, its first 20 blocks (all inside its system prompt) stayed.
  const opening = [{ role: 'system', content: words('a-system-', 400) }];
  assert.equal(lookUp(cache, opening), 20 * 16);
});

test('a cache must hold a block', () => {
  assert.throws(() => new PrefixCache(8, 16), /at least one block/);
  assert.throws(() => new PrefixCache(1000, 0), /blockTokens/);
});
