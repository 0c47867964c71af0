/** Anthropic `stop_reason` → OpenAI `finish_reason` (provider-protocols 6.3). */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  // A paused server-tool turn: the client sees a normal end (gateway rule, as LiteLLM).
  pause_turn: 'stop',
  model_context_window_exceeded: 'length',
};

export function mapStopReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' ? FINISH_REASONS[stopReason] : undefined) ?? 'stop';
}
