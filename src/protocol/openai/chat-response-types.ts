/** Token usage as OpenAI reports it (provider-protocols 2.5). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [field: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [field: string]: unknown } | null;
  [field: string]: unknown;
}

/** The assistant message of a non-streaming reply, with reasoning always as `reasoning_content`. */
export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  /** The model's refusal text, null when it did not refuse (OpenAI's schema requires the field). */
  refusal: string | null;
  reasoning_content?: string;
  [field: string]: unknown;
}

/** A non-streaming reply (spec 2.3). */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: ChatCompletionMessage;
    finish_reason: string | null;
    [field: string]: unknown;
  }>;
  usage?: Usage | null;
  [field: string]: unknown;
}

/** One streamed chunk (spec 2.5). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string | null; reasoning_content?: string; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }>;
  usage?: Usage | null;
  [field: string]: unknown;
}
