import { gatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { PLAIN_EVENT_HEAD, PLAIN_EVENT_TAIL } from '../../streaming/sse-parser.js';
import { emptySummary, type CallContext, type SseOutput, type SseRecord, type StreamMapper, type StreamSignal } from '../types.js';
import { ChunkScanner } from './chunk-scanner.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';
import { modelField, replaceModelField } from './replace-model-field.js';

/** Options for tests. */
export interface StreamMapperOptions {
  /** false: every event goes through `JSON.parse`, the reference the scanned path must match. */
  readonly scan?: boolean;
}

/**
 * OpenAI-protocol stream → client chunks. Every event is inspected (usage, reasoning field,
 * finish reason, text lengths, in-stream errors); an event that needed no change is
 * forwarded as the node's own text. Events of the common shape are read by a scan of
 * their text (ChunkScanner), the rest (usage, errors, renames, anything unusual) are
 * parsed.
 */
export function createStreamMapper(context: CallContext, options: StreamMapperOptions = {}): StreamMapper {
  const summary = emptySummary();
  const identity = { id: '', created: Math.floor(Date.now() / 1000), model: context.clientModel };
  const clientModel = context.clientModel;
  const clientModelField = modelField(clientModel);
  /** The client's model id as it stands between the quotes of a JSON string. */
  const clientModelCharacters = JSON.stringify(clientModel).slice(1, -1);
  const scanner = options.scan === false ? undefined : new ChunkScanner();
  let nodeModel = '';
  let nodeModelField = '';
  /** The scanner's remembered chunk start, and the same as the client sees it (undefined: work it out per chunk). */
  let knownPrefix = '';
  let clientPrefix: string | undefined = undefined;

  function map(record: SseRecord, emit: (chunkJson: string) => void): StreamSignal {
    const data = record.data;
    if (data === '[DONE]') return 'end';
    if (scanner !== undefined && record.event !== 'error' && scanner.scan(data)) {
      const text = scannedText(scanner, data);
      if (text === undefined) return mapParsed(record, emit);
      takeScanned(scanner);
      emit(text);
      return 'more';
    }
    return mapParsed(record, emit);
  }

  /**
   * `map` for a plain `data: …\n\n` event read where it lies in the node's text: a scanned
   * chunk goes out as the node's own text, its model string swapped in place when it is
   * not the client's; anything else is cut out and parsed.
   */
  function mapPlainEvent(text: string, eventStart: number, eventEnd: number, out: SseOutput): StreamSignal {
    const start = eventStart + PLAIN_EVENT_HEAD;
    const end = eventEnd - PLAIN_EVENT_TAIL;
    if (scanner !== undefined && scanner.scanRange(text, start, end)) {
      const { modelStart, modelEnd } = scanner;
      if (modelStart === -1 || (modelEnd - modelStart === clientModel.length && text.startsWith(clientModel, modelStart))) {
        out.copy(text, eventStart, eventEnd);
      } else {
        out.copy(text, eventStart, modelStart);
        out.insert(clientModelCharacters);
        out.copy(text, modelEnd, eventEnd);
      }
      takeScanned(scanner);
      return 'more';
    }
    // Not `map`: it would scan the chunk again.
    const data = text.slice(start, end);
    if (data === '[DONE]') return 'end';
    return mapParsed({ event: undefined, data }, (json) => out.insert(`data: ${json}\n\n`));
  }

  /** What a scanned chunk tells: the stream's identity (first chunk), text lengths, finish reason. */
  function takeScanned(read: ChunkScanner): void {
    if (identity.id === '') {
      const id = read.id();
      if (id !== undefined) {
        identity.id = id;
        identity.created = read.created() ?? identity.created;
      }
    }
    summary.contentCharacters += read.contentCharacters;
    summary.reasoningCharacters += read.reasoningCharacters;
    if (read.finishReason !== undefined) summary.finishReason ??= read.finishReason;
  }

  /** A scanned chunk's text for the client; undefined when the model field must be re-serialized. */
  function scannedText(scanner: ChunkScanner, data: string): string | undefined {
    const prefixLength = scanner.resumedAt;
    if (prefixLength > 0 && scanner.modelEnd <= prefixLength) {
      // The model field (or its absence) is in the start the chunk shares with earlier ones.
      if (scanner.prefix !== knownPrefix) {
        knownPrefix = scanner.prefix;
        clientPrefix = withClientModel(knownPrefix, scanner.modelStart, scanner.modelEnd);
      }
      if (clientPrefix === knownPrefix) return data;
      if (clientPrefix !== undefined) return clientPrefix + data.slice(prefixLength);
    }
    return withClientModel(data, scanner.modelStart, scanner.modelEnd);
  }

  /**
   * `text` with its top-level model string (at `start`…`end`, -1 when none) replaced by
   * the client's model id; undefined when the field is not in the compact form.
   */
  function withClientModel(text: string, start: number, end: number): string | undefined {
    if (start === -1 || (end - start === clientModel.length && text.startsWith(clientModel, start))) return text;
    // The client sees the model id it asked for.
    if (!(end - start === nodeModel.length && text.startsWith(nodeModel, start))) {
      nodeModel = text.slice(start, end);
      nodeModelField = modelField(nodeModel);
    }
    return replaceModelField(text, nodeModelField, clientModelField);
  }

  function mapParsed(record: SseRecord, emit: (chunkJson: string) => void): StreamSignal {
    const data = record.data;
    let chunk: ChatCompletionChunk & { error?: unknown };
    try {
      chunk = JSON.parse(data) as ChatCompletionChunk & { error?: unknown };
    } catch {
      throw gatewayError('bad_gateway', { params: { reason: `node ${context.node.id} sent an event that is not JSON` }, upstream: { nodeId: context.node.id } });
    }
    if (record.event === 'error' || (chunk !== null && typeof chunk === 'object' && chunk.error)) {
      throw inStreamError(chunk.error ?? chunk, context);
    }
    if (identity.id === '' && typeof chunk.id === 'string') {
      identity.id = chunk.id;
      if (typeof chunk.created === 'number') identity.created = chunk.created;
    }
    let changed = false;
    if (Array.isArray(chunk.choices)) {
      for (const choice of chunk.choices) {
        const delta = choice?.delta;
        if (delta !== null && typeof delta === 'object') {
          if (normalizeReasoningField(delta)) changed = true;
          if (typeof delta.content === 'string') summary.contentCharacters += delta.content.length;
          if (typeof delta.reasoning_content === 'string') summary.reasoningCharacters += delta.reasoning_content.length;
        }
        if (choice?.finish_reason) summary.finishReason ??= choice.finish_reason;
      }
    }
    if (chunk.usage) summary.usage = chunk.usage;
    if (changed) {
      chunk.model = context.clientModel;
      emit(JSON.stringify(chunk));
    } else if (typeof chunk.model === 'string' && chunk.model !== context.clientModel) {
      // The client sees the model id it asked for.
      if (chunk.model !== nodeModel) {
        nodeModel = chunk.model;
        nodeModelField = modelField(nodeModel);
      }
      emit(replaceModelField(data, nodeModelField, clientModelField) ?? JSON.stringify({ ...chunk, model: context.clientModel }));
    } else {
      emit(data);
    }
    return 'more';
  }

  return { map, mapPlainEvent: scanner === undefined ? undefined : mapPlainEvent, summary, identity };
}

/** A node's `{"error": …}` event mid-stream: reported to the client as the gateway's error event. */
function inStreamError(error: unknown, context: CallContext) {
  const message =
    error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : 'the node reported an error';
  return gatewayError('bad_gateway', {
    params: { reason: `node ${context.node.id}: ${message}` },
    upstream: { nodeId: context.node.id },
  });
}
