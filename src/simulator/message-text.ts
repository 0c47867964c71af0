import { isRecord } from '../validation/is-record.js';

/**
 * Text of one chat message: a string `content` as is, or the `text` of its `{type:"text"}`
 * parts joined with "\n". Anything else (null content, images, tool calls) contributes "".
 */
export function messageText(message: unknown): string {
  if (!isRecord(message)) return '';
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}
