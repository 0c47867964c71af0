/** Message/delta field that carries reasoning text (DeepSeek/SGLang vs. vLLM/OpenRouter/Ollama spelling). */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/** What every body or chunk of one simulated completion shares. */
export interface CompletionIdentity {
  id: string;
  /** Unix seconds, the same on every chunk. */
  created: number;
  /** The request's `model`, echoed back. */
  model: string;
  reasoningField: ReasoningField;
}
