import type { ChatCompletionChunk } from '../protocol/openai/chat-response-types.js';
import type { ReplySummary } from '../providers/types.js';
import type { StreamForm } from './stream-events.js';

/** One Server-Sent Event as parsed from a node's stream. */
export interface SseRecord {
  readonly event: string | undefined;
  readonly data: string;
}

/** `more`: keep reading; `end`: the node finished its stream normally. */
export type StreamSignal = 'more' | 'end';

/** Takes one translated chunk; the mapper hands it over and builds no other reference to it. */
export type EmitChunk = (chunk: ChatCompletionChunk) => void;

/**
 * Takes SSE text already framed for the client. `nodeText`: the text is the node's own
 * (slices of its events, with the framing and the client's model id when that is ASCII), so
 * it is ASCII whenever the node's bytes are; text the mapper built (serialized) is not marked.
 */
export type WriteText = (text: string, nodeText?: boolean) => void;

/** Stateful per call: maps the node's stream events to the client's: chunk objects, or framed text. */
export interface StreamMapper {
  /**
   * What the mapper gives: `chunks` (through `emit`: a translated stream) or `text`
   * (through `write`: a native relay's events, or chunk events passed through as an
   * OpenAI-protocol node sent them to the chat door). One mapper uses one of the two.
   */
  readonly form: StreamForm;
  /**
   * Maps one event, handing each resulting chunk to `emit`, or text already framed for the
   * client to `write`, as `form` says. Throws a GatewayError when the node reports an
   * error inside the stream.
   */
  map(record: SseRecord, emit: EmitChunk, write: WriteText): StreamSignal;
  /**
   * Optional, for a node that speaks the client's own protocol (form `text`): relays a run
   * of whole events in the plain framing (`data: <data>\n\n` each) to `write` as the
   * client's SSE text, changing only what must change. The same text, summary and signal
   * as `map` gives event by event (differential tests hold the two together); lets a
   * same-protocol stream pass without each event being cut out, read and framed again.
   */
  relayEvents?(events: string, write: WriteText): StreamSignal;
  /**
   * The node's body ended without an end signal from `map`. Protocols whose streams just
   * stop (Gemini) emit their last chunks here; a mapper throws a GatewayError when the
   * stream was cut short (no finish reason seen).
   */
  finish?(emit: EmitChunk): void;
  /** What the stream carried so far, including the node's usage if it sent one. */
  readonly summary: ReplySummary;
  /** Identity fields for chunks the gateway adds itself (the final usage chunk). */
  readonly identity: { id: string; created: number; model: string };
}
