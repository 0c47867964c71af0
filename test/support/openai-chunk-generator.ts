import type { SseRecord } from '../../src/streaming/stream-mapper.js';
import { mulberry32, type RandomSource } from '../../src/simulator/mulberry32.js';

/**
 * Seeded random OpenAI-protocol streams for differential tests of the stream mapper's
 * scanned path: chunks of the common shape around varied deltas (escapes, keys inside
 * strings, whitespace, repeated or escaped keys, usage, errors, renamed reasoning, several
 * choices), other shapes, damaged JSON and stray events.
 */
export function generatedStream(seed: number): { records: SseRecord[]; clientModel: string } {
  // Seeded, so a failure can be replayed.
  const random = mulberry32(seed);
  const models = [
    pick(random, ['gpt-4o-mini-2024-07-18', 'Qwen/Qwen3-32B', 'client-model']),
    pick(random, ['gpt-4o-mini-2024-07-18', 'client-model', 'other']),
  ];
  // Most events of a stream share their start, as real ones do; now and then one differs or is damaged.
  const template = chunk(random, models);
  const stream: SseRecord[] = [];
  const length = 5 + Math.floor(random() * 30);
  for (let i = 0; i < length; i++) {
    const roll = random();
    let data: string;
    if (roll < 0.5) data = template.replace(/"delta":\{[^{}]*\}/, `"delta":${delta(random)}`);
    else if (roll < 0.58) {
      // The same start, another member after the delta (a second finish reason, a late model…).
      const extra = member(
        random,
        pick(random, ['finish_reason', 'delta', 'model', 'usage', 'logprobs']),
        random() < 0.5 ? textValue(random) : anyValue(random),
      );
      data = template.replace(/"delta":\{[^{}]*\}/, `"delta":${delta(random)},${extra}`);
    } else if (roll < 0.85) data = chunk(random, models);
    else if (roll < 0.97) data = damaged(random, random() < 0.5 ? template : chunk(random, models));
    else data = pick(random, ['[DONE]', 'null', '1', '"x"', '[]', '{}']);
    stream.push({ event: random() < 0.02 ? pick(random, ['error', 'message']) : undefined, data });
  }
  return { records: stream, clientModel: models[1] as string };
}

const TEXT_PIECES = [
  'The capital',
  ' of France',
  '',
  ' ',
  'é',
  '日本',
  '😀',
  '\\"',
  '\\\\',
  '\\n',
  '\\t',
  '\\/',
  '\\u00e9',
  '\\ud83d\\ude00',
  '\\ud800',
  '\\u0000',
  '"usage":{"total_tokens":1}',
  '\\"usage\\":{}',
  '\\"error\\":1',
  '\\"reasoning\\":\\"x\\"',
  'finish_reason',
  '}',
  ']',
  ',',
  '\\\\"',
  'choices',
  '\\"model\\":\\"x\\"',
];
const BAD_PIECES = ['\n', '\t', '\u0001', '\u001f', '\\x', '\\u12', '\\', '"', '\\u00g0', '\\u000g', '\\U0041'];

function pick<T>(random: RandomSource, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function textValue(random: RandomSource): string {
  const pieces: string[] = [];
  const count = Math.floor(random() * 4);
  for (let i = 0; i < count; i++) pieces.push(pick(random, TEXT_PIECES));
  if (random() < 0.04) pieces.splice(Math.floor(random() * (pieces.length + 1)), 0, pick(random, BAD_PIECES));
  return `"${pieces.join('')}"`;
}

function anyValue(random: RandomSource, depth = 0): string {
  const kind = Math.floor(random() * (depth > 2 ? 5 : 7));
  switch (kind) {
    case 0:
      return textValue(random);
    case 1:
      return pick(random, ['0', '-1', '12', '1.5', '-0.25e+3', '1E5', '7e-2', '01', '1.', '-', '.5', '1e']);
    case 2:
      return pick(random, ['null', 'true', 'false', 'nul', 'True']);
    case 3:
      return '{}';
    case 4:
      return '[]';
    case 5:
      return `{${Array.from({ length: Math.floor(random() * 3) }, () => `"${pick(random, ['a', 'usage', 'error', 'content', 'model', 'b\\u0063'])}":${anyValue(random, depth + 1)}`).join(',')}}`;
    default:
      return `[${Array.from({ length: Math.floor(random() * 3) }, () => anyValue(random, depth + 1)).join(',')}]`;
  }
}

/** Whitespace JSON allows between tokens, now and then. */
function space(random: RandomSource): string {
  const roll = random();
  if (roll < 0.04) return pick(random, [' ', '  ', '\t', '\r\n', '\n']);
  return roll < 0.045 ? pick(random, ['\u000b', '\f', '\u00a0', '\u2028']) : ''; // not JSON whitespace
}

function member(random: RandomSource, key: string, value: string): string {
  return `${space(random)}"${key}"${space(random)}:${space(random)}${value}${space(random)}`;
}

function object(random: RandomSource, members: string[]): string {
  if (random() < 0.05 && members.length > 1) members.push(pick(random, members)); // a repeated key
  if (random() < 0.1) members.sort(() => random() - 0.5);
  return `{${members.join(',')}}`;
}

function delta(random: RandomSource): string {
  const members: string[] = [];
  if (random() < 0.1) members.push(member(random, 'role', '"assistant"'));
  const text = random();
  if (text < 0.45) members.push(member(random, 'content', random() < 0.9 ? textValue(random) : anyValue(random)));
  else if (text < 0.75)
    members.push(member(random, 'reasoning_content', random() < 0.9 ? textValue(random) : anyValue(random)));
  else if (text < 0.85)
    members.push(member(random, 'reasoning', random() < 0.7 ? textValue(random) : anyValue(random)));
  if (random() < 0.1)
    members.push(
      member(random, pick(random, ['refusal', 'tool_calls', 'reasoning', 'con\\u0074ent', 'extra']), anyValue(random)),
    );
  if (random() < 0.05) members.push(member(random, 'content', textValue(random)));
  return object(random, members);
}

function choice(random: RandomSource, index: number): string {
  const members = [member(random, 'index', String(index))];
  const shape = random();
  members.push(member(random, 'delta', shape < 0.92 ? delta(random) : pick(random, ['null', '[]', '"x"', '{}', '1'])));
  if (random() < 0.9) members.push(member(random, 'logprobs', random() < 0.9 ? 'null' : anyValue(random)));
  const finish = random();
  const finishReason = () =>
    member(
      random,
      'finish_reason',
      finish < 0.8 ? 'null' : pick(random, ['"stop"', '"length"', '""', '0', '1', '"st\\u006fp"', '{}', 'true']),
    );
  members.push(finishReason());
  if (random() < 0.05) members.unshift(finishReason()); // repeated, maybe another value
  return object(random, members);
}

function chunk(random: RandomSource, models: readonly string[]): string {
  const members = [member(random, 'id', random() < 0.95 ? '"chatcmpl-1"' : textValue(random))];
  members.push(member(random, 'object', '"chat.completion.chunk"'));
  members.push(
    member(
      random,
      'created',
      pick(random, ['1735689600', '1735689600', '1.5e9', '"x"', '-0', '1E400', '0.1e1', 'null', '017']),
    ),
  );
  const modelPlace = random();
  const model = member(
    random,
    'model',
    random() < 0.95 ? JSON.stringify(pick(random, models)) : pick(random, ['null', '1', '"gpt\\u002d4o"', '"a\\"b"']),
  );
  if (modelPlace < 0.85) members.push(model);
  if (random() < 0.1) members.push(member(random, 'system_fingerprint', random() < 0.5 ? 'null' : textValue(random)));
  const choices = random();
  if (choices < 0.8) members.push(member(random, 'choices', `[${choice(random, 0)}]`));
  else if (choices < 0.87) members.push(member(random, 'choices', `[${choice(random, 0)},${choice(random, 1)}]`));
  else if (choices < 0.93) members.push(member(random, 'choices', '[]'));
  else members.push(member(random, 'choices', pick(random, ['null', '{}', '[null]', '[1]', '[[]]'])));
  if (modelPlace >= 0.85 && modelPlace < 0.95) members.push(model);
  if (random() < 0.03) members.push(member(random, 'model', JSON.stringify(pick(random, models)))); // repeated, maybe another value
  const usage = random();
  if (usage < 0.2) members.push(member(random, 'usage', 'null'));
  else if (usage < 0.25)
    members.push(member(random, 'usage', '{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}'));
  else if (usage < 0.27) members.push(member(random, 'usage', pick(random, ['0', '""', 'false', '[]'])));
  const error = random();
  if (error < 0.02)
    members.push(
      member(
        random,
        'error',
        random() < 0.5 ? 'null' : pick(random, ['{"message":"overloaded"}', '0', '""', '"boom"', '{}']),
      ),
    );
  if (random() < 0.1) members.push(member(random, 'obfuscation', textValue(random)));
  if (random() < 0.05)
    members.push(member(random, pick(random, ['extra', 'usage\\u0020', '__proto__', 'nested']), anyValue(random)));
  return `${space(random)}${object(random, members)}${space(random)}`;
}

/** A text cut, doubled or with one character changed: mostly invalid JSON. */
function damaged(random: RandomSource, text: string): string {
  const at = Math.floor(random() * text.length);
  switch (Math.floor(random() * 4)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1);
    case 2:
      return (
        text.slice(0, at) + pick(random, ['"', '\\', ',', '}', ']', '{', ':', 'x', '\u0002', ' ']) + text.slice(at)
      );
    default:
      return text + pick(random, ['', '}', ' x', ',']);
  }
}
