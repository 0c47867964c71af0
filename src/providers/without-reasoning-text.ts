import type { ChatCompletionChunk } from '../protocol/openai/chat-response-types.js';
import type { EmitChunk, StreamMapper } from '../streaming/stream-mapper.js';
import { fieldOf } from '../validation/field-of.js';
import { isRecord } from '../validation/is-record.js';

/**
 * Fields of a message or delta that carry reasoning text: ours (`reasoning_content`, and the
 * signed `thinking_blocks` of Anthropic nodes) and, from an OpenAI-protocol node that sent
 * them, OpenRouter's `reasoning` and `reasoning_details`.
 */
const REASONING_FIELDS = ['reasoning_content', 'reasoning', 'reasoning_details', 'thinking_blocks'] as const;

/** Cheap test on the JSON text before it is parsed: most chunks of a reply carry no reasoning. */
const MAY_CARRY_REASONING = /"(?:reasoning|thinking_blocks)/;

/** Deletes the reasoning fields of `target`; whether there were any. */
function strip(target: unknown): boolean {
  if (!isRecord(target)) return false;
  let removed = false;
  for (const field of REASONING_FIELDS) {
    if (field in target) {
      delete target[field];
      removed = true;
    }
  }
  return removed;
}

/**
 * A `chat.completion` without its reasoning text, for a client that sent `reasoning.exclude`
 * (PRODUCT.md decision 19). The usage is left as the node reported it: reasoning tokens are
 * still counted and billed. The text is returned unchanged when it had no reasoning.
 */
export function withoutReasoningBody(body: string): string {
  if (!MAY_CARRY_REASONING.test(body)) return body;
  const completion: unknown = JSON.parse(body);
  const choices = fieldOf(completion, 'choices');
  let removed = false;
  for (const choice of Array.isArray(choices) ? choices : []) if (strip(fieldOf(choice, 'message'))) removed = true;
  return removed ? JSON.stringify(completion) : body;
}

/**
 * One chunk without its reasoning text (its deltas changed in place: the stream's own
 * object); undefined when nothing is left of it (a delta that carried only reasoning, with
 * no finish reason, log probabilities or usage).
 */
export function withoutReasoningChunk(chunk: ChatCompletionChunk): ChatCompletionChunk | undefined {
  const choices: unknown = chunk.choices;
  if (!Array.isArray(choices)) return chunk;
  let removed = false;
  let left = chunk.usage !== undefined && chunk.usage !== null;
  for (const choice of choices) {
    const delta = fieldOf(choice, 'delta');
    if (strip(delta)) removed = true;
    if (
      (isRecord(delta) && Object.keys(delta).length > 0) ||
      (fieldOf(choice, 'finish_reason') ?? null) !== null ||
      (fieldOf(choice, 'logprobs') ?? null) !== null
    )
      left = true;
  }
  return !removed || left ? chunk : undefined;
}

/**
 * The adapter's stream mapper, with every chunk read and its reasoning text left out
 * (`reasoning.exclude`). It takes a mapper of form `chunks` (an event passed through as
 * text could carry reasoning). The summary is the adapter's: it still counts the
 * reasoning, so a stream cut short is estimated with it.
 */
export function withoutReasoningStream(mapper: StreamMapper): StreamMapper {
  const filtered =
    (emit: EmitChunk): EmitChunk =>
    (chunk): void => {
      const kept = withoutReasoningChunk(chunk);
      if (kept !== undefined) emit(kept);
    };
  const finish = mapper.finish?.bind(mapper);
  return {
    form: mapper.form,
    map: (record, emit, write) => mapper.map(record, filtered(emit), write),
    ...(finish === undefined ? {} : { finish: (emit: EmitChunk) => finish(filtered(emit)) }),
    get summary() {
      return mapper.summary;
    },
    get identity() {
      return mapper.identity;
    },
  };
}
