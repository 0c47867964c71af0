import { gatewayError } from '../../errors/gateway-error.js';
import type { ChatCompletionChunk } from '../../protocol/openai/chat-response-types.js';
import { PLAIN_EVENT_HEAD, PLAIN_EVENT_TAIL } from '../../streaming/sse-parser.js';
import { emptySummary, type CallContext, type SseOutput, type SseRecord, type StreamMapper, type StreamSignal } from '../types.js';
import { ChunkScanner } from './chunk-scanner.js';
import { normalizeReasoningField } from './normalize-reasoning-field.js';
import { modelField, replaceModelField } from './replace-model-field.js';

/** Options for tests. */
export interface StreamMapperOptions {
  /** false: every event goes through `JSON.parse`: the reference the scanned paths are tested against. */
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
  /** The scanner's remembered chunk start, and the same as the client sees it. */
  let knownPrefix = '';
  let clientPrefix = '';

  function map(record: SseRecord, emit: (chunkJson: string) => void): StreamSignal {
    const data = record.data;
    if (data === '[DONE]') return 'end';
    if (scanner !== undefined && record.event !== 'error' && scanner.scan(data)) {
      emit(scannedText(scanner, data));
      takeScanned(scanner);
      return 'more';
    }
    return mapParsed(record, emit);
  }

  /**
   * `map` for a plain `data: …\n\n` event read where it lies in the node's text, with the
   * same result: a scanned chunk goes out as stretches of the node's text around the
   * client's model id; anything else is cut out and parsed.
   */
  function mapPlainEvent(text: string, eventStart: number, eventEnd: number, output: SseOutput): StreamSignal {
    const start = eventStart + PLAIN_EVENT_HEAD;
    const end = eventEnd - PLAIN_EVENT_TAIL;
    if (scanner !== undefined && scanner.scanRange(text, start, end)) {
      const { modelStart, modelEnd } = scanner;
      if (isClientModel(text, modelStart, modelEnd)) {
        output.copy(text, eventStart, eventEnd);
      } else {
        output.copy(text, eventStart, modelStart);
        output.insert(clientModelCharacters);
        output.copy(text, modelEnd, eventEnd);
      }
      takeScanned(scanner);
      return 'more';
    }
    // Not `map`: it would scan the chunk again.
    const data = text.slice(start, end);
    if (data === '[DONE]') return 'end';
    return mapParsed({ event: undefined, data }, (json) => output.emit(json));
  }

  /**
   * A scanned chunk as the client sees it: the node's text with the client's model id
   * between the quotes of the top-level model string (found by the scanner, so a `model`
   * nested elsewhere is never touched, and the rest of the node's text is kept as it
   * came: spacing, member order, numbers). The start of the chunk that repeats from
   * chunk to chunk is rewritten once.
   */
  function scannedText(scanned: ChunkScanner, data: string): string {
    const { modelStart, modelEnd } = scanned;
    if (isClientModel(data, modelStart, modelEnd)) return data;
    const prefixLength = scanned.resumedAt;
    if (prefixLength > 0 && modelEnd <= prefixLength) {
      if (scanned.prefix !== knownPrefix) {
        knownPrefix = scanned.prefix;
        clientPrefix = withClientModel(knownPrefix, modelStart, modelEnd);
      }
      return clientPrefix + data.slice(prefixLength);
    }
    return withClientModel(data, modelStart, modelEnd);
  }

  /** No model string at `start` (-1), or the client's id already. */
  function isClientModel(text: string, start: number, end: number): boolean {
    return start === -1 || (end - start === clientModel.length && text.startsWith(clientModel, start));
  }

  function withClientModel(text: string, start: number, end: number): string {
    return text.slice(0, start) + clientModelCharacters + text.slice(end);
  }

  /** What a scanned chunk tells: the stream's identity (first chunk), text lengths, finish reason. */
  function takeScanned(scanned: ChunkScanner): void {
    if (identity.id === '') {
      const id = scanned.id();
      if (id !== undefined) {
        identity.id = id;
        identity.created = scanned.created() ?? identity.created;
      }
    }
    summary.contentCharacters += scanned.contentCharacters;
    summary.reasoningCharacters += scanned.reasoningCharacters;
    if (scanned.finishReason !== undefined) summary.finishReason ??= scanned.finishReason;
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
