import type { ReplySummary } from '../providers/types.js';

/** One Server-Sent Event as parsed from a node's stream. */
export interface SseRecord {
  readonly event: string | undefined;
  readonly data: string;
}

/** `more`: keep reading; `end`: the node finished its stream normally. */
export type StreamSignal = 'more' | 'end';

/** Stateful per call: maps the node's stream events to OpenAI chunk JSON texts. */
export interface StreamMapper {
  /**
   * Maps one event, handing each resulting chunk (serialized) to `emit`, or text already
   * framed for the client to `write` (a native relay: the node's own events). Throws a
   * GatewayError when the node reports an error inside the stream.
   */
  map(record: SseRecord, emit: (chunkJson: string) => void, write: (text: string) => void): StreamSignal;
  /**
   * Optional, for a node that speaks the client's own protocol: relays a run of whole
   * events in the plain framing (`data: <data>\n\n` each) to `write` as the client's SSE
   * text, changing only what must change. The same text, summary and signal as `map` gives
   * event by event (differential tests hold the two together); lets a same-protocol stream
   * pass without each event being cut out, read and framed again.
   */
  relayEvents?(events: string, write: (text: string) => void): StreamSignal;
  /**
   * The node's body ended without an end signal from `map`. Protocols whose streams just
   * stop (Gemini) emit their last chunks here; a mapper throws a GatewayError when the
   * stream was cut short (no finish reason seen).
   */
  finish?(emit: (chunkJson: string) => void): void;
  /** What the stream carried so far, including the node's usage if it sent one. */
  readonly summary: ReplySummary;
  /** Identity fields for chunks the gateway adds itself (the final usage chunk). */
  readonly identity: { id: string; created: number; model: string };
}
