import { hash } from 'node:crypto';
import { isRecord } from '../protocol/is-record.js';
import { messageText } from './message-text.js';

/** vLLM's default KV-cache block size, in tokens. */
export const DEFAULT_BLOCK_TOKENS = 16;

/** What `countTokens` splits on (the same set as its `isWhitespace`). */
const WHITESPACE = /\s+/;

/**
 * The keys a prefix cache stores a prompt under, as vLLM's automatic prefix caching does:
 * the prompt's tokens cut into full blocks of `blockTokens` (a last partial block is not
 * cached), each block's key a hash of its parent's key and its own tokens, so a key names
 * the whole prefix up to the end of its block. A conversation that grows by a turn keeps
 * every key of its previous prompt but those of the last block or two (the prompt's
 * closing tokens are where the new turn goes).
 *
 * The tokens are the simulated tokenizer's (`countPromptTokens`): per message a start
 * marker, its role, a content marker, the words of its text and an end marker, then two
 * tokens that open the reply; so the tokens hashed are exactly the prompt tokens counted.
 * The model name seeds the chain: one node's cache keeps models apart.
 */
export function promptBlockHashes(model: string, messages: readonly unknown[], blockTokens: number): string[] {
  const hashes: string[] = [];
  let parent = hash('sha1', `model:${model}`, 'base64');
  let block = '';
  let inBlock = 0;
  const push = (token: string): void => {
    block += `${token}\u0000`;
    if (++inBlock < blockTokens) return;
    parent = hash('sha1', `${parent}\u0001${block}`, 'base64');
    hashes.push(parent);
    block = '';
    inBlock = 0;
  };
  for (const message of messages) {
    push('<|start|>');
    push(isRecord(message) && typeof message.role === 'string' ? message.role : 'system');
    push('<|content|>');
    for (const word of messageText(message).split(WHITESPACE)) if (word !== '') push(word);
    push('<|end|>');
  }
  push('<|start|>');
  push('assistant');
  return hashes;
}
