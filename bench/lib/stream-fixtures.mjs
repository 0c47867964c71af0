// The bench kit's mock reply (bench-burst.sse, an OpenAI node's stream) and the same answer
// as an Anthropic node's event sequence, for the in-process stream benchmarks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The kit's mock reply as an OpenAI node streams it. */
export const chatFixture = readFileSync(`${here}../../src/providers/openai/__fixtures__/bench-burst.sse`, 'utf8');

/** The same answer as Anthropic's event sequence: thinking deltas, text deltas, usage. */
export function anthropicFixture() {
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = event('message_start', {
    message: {
      id: 'msg_bench000000000000000001',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  });
  let index = -1;
  let open;
  let usage;
  for (const raw of chatFixture.split('\n\n')) {
    if (!raw.startsWith('data: {')) continue;
    const chunk = JSON.parse(raw.slice(6));
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices[0]?.delta ?? {};
    for (const [kind, text] of [
      ['thinking', delta.reasoning_content],
      ['text', delta.content],
    ]) {
      if (!text) continue;
      if (open !== kind) {
        if (open !== undefined) out += event('content_block_stop', { index });
        index++;
        open = kind;
        out += event('content_block_start', {
          index,
          content_block:
            kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
        });
      }
      out += event('content_block_delta', {
        index,
        delta: kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text },
      });
    }
  }
  out += event('content_block_stop', { index });
  out += event('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage?.completion_tokens ?? 20 },
  });
  return out + event('message_stop', {});
}
