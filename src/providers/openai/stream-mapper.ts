import { gatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { eachPlainEvent, plainEventAround, plainEventData } from '../../streaming/sse-parser.js';
import { isAsciiText } from '../../streaming/stream-events.js';
import type { EmitChunk, SseRecord, StreamMapper, StreamSignal, WriteText } from '../../streaming/stream-mapper.js';
import { invalidReply } from '../../upstream/node-failure.js';
import { isRecord } from '../../validation/is-record.js';
import type { CallContext, ReplySummary } from '../types.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';
import { modelField, writeEveryModelField } from '../replace-model-field.js';
import { withoutNodeSecret } from '../redact-node-secret.js';
import { nodeUsage } from '../node-usage.js';
import { countedUsage } from '../../billing/booked-usage.js';

/** Options for tests. */
export interface StreamMapperOptions {
  /** false: every event is parsed (`map`): the reference the relay is tested against (form `text`). */
  readonly relay?: boolean;
}

/** The `emit` of a mapper of form `text`, which never emits. */
const NO_EMIT: EmitChunk = () => {
  throw new Error('the OpenAI stream mapper of form text emitted a chunk');
};

/**
 * What marks an event the relay must read: the end, an error object, a finish reason (also
 * vLLM's `stop_reason`), usage, a reasoning field to rename. Inside a JSON string a quote
 * is escaped, so `…":` stands only after a key. One pass of a regular expression without
 * a leading quote (measured: 3 µs over the kit's 6 KB stream, against 2.5-4 µs for each
 * marker searched on its own). Sticky to the run it is used on (lastIndex).
 */
const MARKERS = /\[DONE\]|_reason":"|usage":\{|error":|reasoning":/g;

/**
 * Text relayed unread is counted (for an estimate) once this much of it waits. It stays on
 * the heap until then: at 1 MiB a slow stream held every event it relayed (~5 KiB per held
 * stream halfway through a 120-token stream, `npm run scale-test`); 8 KiB still leaves the
 * kit's whole 22-event stream (~6 KB) unread.
 */
const MAX_UNCOUNTED_CHARACTERS = 8 * 1024;

/**
 * Relayed runs (one per read of the node's socket) kept unread before they are counted. A
 * fast stream arrives in a few large runs and stays unread; a slow one arrives an event a
 * read, and each event kept stays on the heap with the run it was sliced from for the
 * stream's life: at 2 tokens/s a held stream kept ~6-8 KiB (`npm run scale-test`, the
 * 8 KiB cap). Four runs (~0.7 KiB of a slow stream's events) are then parsed once each,
 * ~1-2 µs an event on a quiet machine, against the read and write each costs anyway.
 */
const MAX_UNCOUNTED_RUNS = 4;

/** A plain event's framing around its data (ASCII, written as the node's own text: WriteText). */
const EVENT_HEAD = 'data: ';
const EVENT_TAIL = '\n\n';

/**
 * What an OpenAI-protocol stream carried. The reasoning and answer text of relayed events
 * is counted only when read (a stream without usage, a progress record, a large backlog):
 * most streams end with the node's usage, and then it never is.
 */
class RelaySummary implements ReplySummary {
  usage: ReplySummary['usage'] = undefined;
  finishReason: string | undefined = undefined;
  serviceTier?: string;
  private reasoning = 0;
  private content = 0;
  private uncounted: string[] = [];
  private uncountedLength = 0;

  get reasoningCharacters(): number {
    this.countText();
    return this.reasoning;
  }

  set reasoningCharacters(value: number) {
    this.countText();
    this.reasoning = value;
  }

  get contentCharacters(): number {
    this.countText();
    return this.content;
  }

  set contentCharacters(value: number) {
    this.countText();
    this.content = value;
  }

  /**
   * The node ended its stream (`[DONE]`). With the node's usage booked (`countedUsage`), the
   * text kept for counting is never read: it is let go now rather than when the request
   * ends. A relayed run is a slice of the node's network chunk, so it held the whole chunk
   * (the kit's whole 6.5 KB stream) on the heap to the end of the request, long enough to
   * be copied by young-generation collections under load (sampled survivors per kit
   * stream, ALLOC_SURVIVORS=1 bench/alloc-profile.sh: the decoded text 8.2 KB → 1.9 KB).
   */
  streamEnded(): void {
    if (countedUsage(this.usage) === undefined) return;
    this.uncounted = [];
    this.uncountedLength = 0;
  }

  /** Relayed plain events (`data: <chunk>\n\n` each) whose text is counted when it is asked for. */
  keepUncounted(events: string): void {
    this.uncounted.push(events);
    this.uncountedLength += events.length;
    if (this.uncountedLength > MAX_UNCOUNTED_CHARACTERS || this.uncounted.length > MAX_UNCOUNTED_RUNS) this.countText();
  }

  /** How many relayed runs wait unread (tests: what a held stream keeps). */
  get uncountedRuns(): number {
    return this.uncounted.length;
  }

  private countText(): void {
    if (this.uncountedLength === 0) return;
    const runs = this.uncounted;
    this.uncounted = [];
    this.uncountedLength = 0;
    for (const run of runs) eachPlainEvent(run, this.countEvent);
  }

  private readonly countEvent = (data: string): void => {
    const chunk = parseChunk(data);
    for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : []) {
      const delta: unknown = isRecord(choice) ? choice.delta : undefined;
      if (!isRecord(delta)) continue;
      if (typeof delta.content === 'string') this.content += delta.content.length;
      if (typeof delta.reasoning_content === 'string') this.reasoning += delta.reasoning_content.length;
    }
  };
}

/** A relayed event's chunk, or undefined for one that is not a JSON object (relayed as the node sent it). */
function parseChunk(data: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

/**
 * OpenAI-protocol stream → client chunks. For the chat door (`context.streamForm` `text`)
 * the client speaks the node's protocol, so events are relayed as the node sent them,
 * changing only the model id (the one the client asked for). Events that must be read (the
 * end, errors, finish reason, usage, a `reasoning` field renamed to `reasoning_content`)
 * are parsed; the rest pass unread (`relayEvents`). `map` parses every event: the
 * reference path, and the one for events in other framings. For a door that maps chunks
 * (form `chunks`) every event is parsed and handed on as an object, the model id the client's.
 */
export function createStreamMapper(context: CallContext, options: StreamMapperOptions = {}): StreamMapper {
  const form = context.streamForm ?? 'chunks';
  const summary = new RelaySummary();
  const identity = { id: '', created: Math.floor(Date.now() / 1000), model: context.clientModel };
  const clientModel = context.clientModel;
  const clientModelField = modelField(clientModel);
  /** The client's model id is ASCII: the node's text with it swapped in stays ASCII when the node's was (WriteText). */
  const swapKeepsAscii = isAsciiText(clientModelField);
  let nodeModel = '';
  let nodeModelField = '';
  /** Whether the node writes `"model":"…"` compactly (else every event is parsed); unknown until an event names it. */
  let relayable: boolean | undefined;

  function map(record: SseRecord, emit: EmitChunk, write: WriteText): StreamSignal {
    if (record.data === '[DONE]') return ended();
    return mapParsed(record, emit, write);
  }

  function relayEvents(events: string, write: WriteText): StreamSignal {
    let from = 0;
    while ((relayable === undefined || identity.id === '') && from < events.length) {
      // Events are read until the stream's identity and the node's model are known, and how the
      // node writes its model id (compactly: swapped in place; otherwise every event is read).
      const end = plainEventAround(events, from).end;
      const data = plainEventData(events, from, end);
      if (mapRead(data, write) === 'end') return 'end';
      if (relayable === undefined && nodeModel !== '')
        relayable = nodeModel === clientModel || data.includes(nodeModelField);
      from = end;
    }
    if (relayable !== true) return mapEachEvent(events, from, write);
    MARKERS.lastIndex = from;
    for (let match = MARKERS.exec(events); match !== null; match = MARKERS.exec(events)) {
      const event = plainEventAround(events, match.index);
      relayUnread(events, from, event.start, write);
      if (mapRead(plainEventData(events, event.start, event.end), write) === 'end') return 'end';
      from = event.end;
      MARKERS.lastIndex = from;
    }
    relayUnread(events, from, events.length, write);
    return 'more';
  }

  /** Events read by no one: the model id swapped, the text kept for counting later. */
  function relayUnread(events: string, from: number, to: number, write: WriteText): void {
    if (from === to) return;
    const stretch = from === 0 && to === events.length ? events : events.slice(from, to);
    summary.keepUncounted(stretch);
    if (nodeModel === clientModel) write(stretch, true);
    else writeSwapped(stretch, write);
  }

  /**
   * The stream's one model-swap path, for relayed runs and parsed events alike: the text to
   * `write` in pieces, every `"model":"<node model>"` in it (a key: quotes in strings are
   * escaped) naming the client's model instead. (JSON replies have theirs: replaceModelField.)
   */
  function writeSwapped(text: string, write: WriteText): void {
    writeEveryModelField(text, nodeModelField, clientModelField, (piece) => write(piece, swapKeepsAscii));
  }

  function mapEachEvent(events: string, from: number, write: WriteText): StreamSignal {
    const ended = eachPlainEvent(events, (data) => mapRead(data, write) === 'end', from);
    return ended ? 'end' : 'more';
  }

  /** One event of a relayed run, read (form `text`). */
  function mapRead(data: string, write: WriteText): StreamSignal {
    if (data === '[DONE]') return ended();
    return mapParsed({ event: undefined, data }, NO_EMIT, write);
  }

  function ended(): StreamSignal {
    summary.streamEnded();
    return 'end';
  }

  function mapParsed(record: SseRecord, emit: EmitChunk, write: WriteText): StreamSignal {
    const data = record.data;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw gatewayError('bad_gateway', {
        params: { reason: `node ${context.node.id} sent an event that is not JSON` },
        upstream: { nodeId: context.node.id },
      });
    }
    const error = isRecord(parsed) ? parsed.error : undefined;
    if (record.event === 'error' || error) throw inStreamError(error ?? parsed, context);
    // Read as loosely as the relay passes events unread (a chunk's choices may be anything).
    if (!isRecord(parsed)) throw invalidReply(context.node.id, 'sent an event that is not an object');
    const chunk = parsed;
    if (identity.id === '' && typeof chunk.id === 'string') {
      identity.id = chunk.id;
      if (typeof chunk.created === 'number') identity.created = chunk.created;
    }
    let changed = false;
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isRecord(choice)) continue;
      const delta = choice.delta;
      if (isRecord(delta)) {
        if (normalizeReasoningField(delta)) changed = true;
        if (typeof delta.content === 'string') summary.contentCharacters += delta.content.length;
        if (typeof delta.reasoning_content === 'string') summary.reasoningCharacters += delta.reasoning_content.length;
      }
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
        summary.finishReason ??= choice.finish_reason;
    }
    if (chunk.usage) summary.usage = nodeUsage(chunk.usage);
    if (typeof chunk.service_tier === 'string') summary.serviceTier = chunk.service_tier;
    if (typeof chunk.model === 'string' && chunk.model !== nodeModel) {
      nodeModel = chunk.model;
      nodeModelField = modelField(nodeModel);
    }
    if (form === 'chunks') {
      // The client sees the model id it asked for.
      if (changed || typeof chunk.model === 'string') chunk.model = clientModel;
      // Checked only as loosely as the relay passes events (an object): the doors read it as a chunk.
      emit(chunk as unknown as ChatCompletionChunk);
    } else if (changed) {
      chunk.model = clientModel;
      write(EVENT_HEAD);
      write(JSON.stringify(chunk));
      write(EVENT_TAIL);
    } else if (typeof chunk.model === 'string' && chunk.model !== clientModel) {
      // The client sees the model id it asked for. Written in pieces, as relayed runs are.
      write(EVENT_HEAD, true);
      if (data.includes(nodeModelField)) writeSwapped(data, write);
      else write(JSON.stringify({ ...chunk, model: clientModel }));
      write(EVENT_TAIL, true);
    } else {
      write(EVENT_HEAD, true);
      write(data, true);
      write(EVENT_TAIL, true);
    }
    return 'more';
  }

  return {
    form,
    map,
    relayEvents: options.relay === false || form === 'chunks' ? undefined : relayEvents,
    summary,
    identity,
  };
}

/** A node's `{"error": …}` event mid-stream: reported to the client as the gateway's error event. */
function inStreamError(error: unknown, context: CallContext) {
  const message = isRecord(error) && typeof error.message === 'string' ? error.message : 'the node reported an error';
  return gatewayError('bad_gateway', {
    params: { reason: `node ${context.node.id}: ${withoutNodeSecret(message, context.node)}` },
    upstream: { nodeId: context.node.id },
  });
}
