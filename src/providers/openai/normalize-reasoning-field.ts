/**
 * Servers name reasoning text differently (provider-protocols 3): vLLM ≥ 0.11, Ollama and
 * OpenRouter use `reasoning`, DeepSeek and SGLang `reasoning_content`. Clients always get
 * `reasoning_content` (PRODUCT.md decision 6). Mutates `target` (a message or a delta);
 * returns whether it changed anything.
 */
export function normalizeReasoningField(target: Record<string, unknown>): boolean {
  const reasoning = target.reasoning;
  if (typeof reasoning !== 'string') return false;
  if (typeof target.reasoning_content !== 'string') target.reasoning_content = reasoning;
  delete target.reasoning;
  return true;
}
