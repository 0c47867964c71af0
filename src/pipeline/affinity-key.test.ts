import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig } from '../config/gateway-config.js';
import type { ChatRequest } from '../protocol/openai/chat-request-schema.js';
import { affinityKey, conversationOpening, MAX_OPENING_CHARACTERS } from './affinity-key.js';

const model = (affinity: 'session' | 'prefix' | 'none') =>
  ({ id: 'm', routing: { affinity, affinityLoadFactor: 1.25 } }) as unknown as ModelConfig;
const chat = (messages: ChatRequest['messages']) => ({ model: 'm', messages }) as ChatRequest;

const opening: ChatRequest['messages'] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: [{ type: 'text', text: 'Fix the bug.' } as { type: string }] },
];

test('prefix affinity: the opening (system and first user message) decides; later turns do not', () => {
  const first = affinityKey(model('prefix'), chat(opening), undefined);
  const later = affinityKey(
    model('prefix'),
    chat([...opening, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Next.' }]),
    undefined,
  );
  assert.equal(typeof first, 'number');
  assert.equal(first, later);
  const otherSystem = chat([{ role: 'system', content: 'Other.' }, ...opening.slice(1)]);
  assert.notEqual(affinityKey(model('prefix'), otherSystem, undefined), first);
});

test('a session key wins over the opening; session mode ignores the opening; none ignores both', () => {
  assert.equal(affinityKey(model('session'), chat(opening), undefined), undefined);
  assert.equal(affinityKey(model('none'), chat(opening), 'abc'), undefined);
  assert.equal(affinityKey(model('session'), chat(opening), 'abc'), affinityKey(model('prefix'), chat(opening), 'abc'));
  assert.notEqual(
    affinityKey(model('prefix'), chat(opening), 'abc'),
    affinityKey(model('prefix'), chat(opening), undefined),
  );
});

test('the opening is cut at 8 KiB', () => {
  const long = conversationOpening([{ role: 'user', content: 'x'.repeat(100_000) }]);
  assert.equal(long.length, MAX_OPENING_CHARACTERS);
});

test('an agent system prompt longer than 8 KiB still leaves the first user message its say', () => {
  const system = { role: 'system' as const, content: 'You are a coding agent. '.repeat(1000) };
  const one = affinityKey(model('prefix'), chat([system, { role: 'user', content: 'Fix the login bug.' }]), undefined);
  const two = affinityKey(model('prefix'), chat([system, { role: 'user', content: 'Write the docs.' }]), undefined);
  assert.notEqual(one, two);
  const opening = conversationOpening([system, { role: 'user', content: 'y'.repeat(100_000) }]);
  assert.equal(opening.length, MAX_OPENING_CHARACTERS);
});
