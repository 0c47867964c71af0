import type { ChatCompletionChunk } from '../protocol/openai/chat-response-types.js';
import type { SseRecord } from './stream-mapper.js';
import { SseParser } from './sse-parser.js';

/**
 * SSE text framed for the client: a native stream's own events (the node speaks the door's
 * protocol), or `chat.completion.chunk` events passed through as an OpenAI-protocol node
 * sent them (`data: <json>\n\n` each) to the chat door.
 */
export interface StreamText {
  readonly form: 'text';
  readonly text: string;
  /**
   * Every character of `text` is ASCII, known without reading it (the node's bytes were, and
   * nothing else went in): it goes to the socket as latin1, whose byte length is its length,
   * instead of being counted and encoded as UTF-8.
   */
  readonly ascii?: boolean;
}

/** `chat.completion.chunk` objects translated from a node's stream, for a door to serialize or map. */
export interface StreamChunks {
  readonly form: 'chunks';
  readonly chunks: readonly ChatCompletionChunk[];
}

/**
 * A run of a stream's events, in one of two forms; one stream's runs all have one form.
 * Text is kept only where the events pass through in the client's own protocol; a
 * translated stream is objects, so no door parses what a mapper built.
 */
export type StreamEvents = StreamText | StreamChunks;

/** The form a stream's events take. */
export type StreamForm = StreamEvents['form'];

/** No events. */
export const NO_EVENTS: StreamText = { form: 'text', text: '' };

/** True when every character of a short text is ASCII (read: for text the gateway built, not a relayed run). */
export function isAsciiText(text: string): boolean {
  return !/[\u0080-\uffff]/.test(text);
}

/** True when `events` holds nothing to send. */
export function isEmpty(events: StreamEvents): boolean {
  return events.form === 'text' ? events.text === '' : events.chunks.length === 0;
}

/** The events as SSE text: chunks framed `data: <json>\n\n` each, text as it is. */
export function textOf(events: StreamEvents): string {
  if (events.form === 'text') return events.text;
  let text = '';
  for (const chunk of events.chunks) text += `data: ${JSON.stringify(chunk)}\n\n`;
  return text;
}

/**
 * The events as chunk objects. Chunks are returned as they are; text (chunk events: the
 * pipeline hands none to a door that needs objects) is cut by the one SSE parser and
 * parsed, `[DONE]` left out.
 */
export function chunksOf(events: StreamEvents): readonly ChatCompletionChunk[] {
  if (events.form === 'chunks') return events.chunks;
  const chunks: ChatCompletionChunk[] = [];
  const onRecord = (record: SseRecord): void => {
    if (record.data !== '[DONE]') chunks.push(JSON.parse(record.data) as ChatCompletionChunk);
  };
  const parser = new SseParser(Number.MAX_SAFE_INTEGER);
  parser.push(events.text, onRecord);
  parser.end(onRecord);
  return chunks;
}
