import type { ChatCompletionChunk, Usage } from '../protocol/openai/chat-response-types.js';

/** Identity fields every chunk of one stream shares. */
export interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

/**
 * Builds OpenAI `chat.completion.chunk` objects for protocols whose events are
 * translated rather than forwarded (Anthropic, Gemini). One choice (index 0); the first
 * delta carries `role: "assistant"` as OpenAI's first chunk does.
 */
export class ChunkBuilder {
  private started = false;

  constructor(readonly identity: ChunkIdentity) {}

  /** True once a chunk went out (the stream is committed to this node). */
  get hasStarted(): boolean {
    return this.started;
  }

  /** A chunk with one delta; the very first one also says `role: "assistant"` and `refusal: null`, as OpenAI's does. */
  delta(delta: Record<string, unknown>, finishReason: string | null = null): ChatCompletionChunk {
    const first = this.started ? delta : { role: 'assistant', content: '', refusal: null, ...delta };
    this.started = true;
    return this.frame([{ index: 0, delta: first, logprobs: null, finish_reason: finishReason }]);
  }

  /** The final usage chunk: `choices: []` and the usage (provider-protocols 2.6). */
  usage(usage: Usage): ChatCompletionChunk {
    return this.frame([], usage);
  }

  private frame(choices: ChatCompletionChunk['choices'], usage?: Usage): ChatCompletionChunk {
    const { id, created, model } = this.identity;
    return usage === undefined
      ? { id, object: 'chat.completion.chunk', created, model, choices }
      : { id, object: 'chat.completion.chunk', created, model, choices, usage };
  }
}
