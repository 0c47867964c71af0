import type { ChatCompletionChunk, Usage } from '../../protocol/openai/chat-response-types.js';
import type { ThinkingSignatures } from './thinking-signatures.js';
import { thinkingBlock } from './to-messages-reply.js';
import { messageIdFor, toMessagesStop, toMessagesUsage, type MessagesUsage } from './usage-and-stop.js';

/** What the stream translator needs besides the stream. */
export interface MessagesStreamContext {
  readonly requestId: string;
  /** The client's model id, until the first chunk names it. */
  readonly model: string;
  /** The gateway's estimate of the prompt, for `message_start` before the node's count is known (rule A1). */
  readonly inputTokensEstimate: number;
  /** The node answering (read when a thinking block closes, for its signature envelope). */
  readonly node: () => string | undefined;
  readonly envelopes: ThinkingSignatures;
}

/** One tool call of the stream, by its chat index. */
interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  signature: string | undefined;
  /** Its block is the open one (streamed live); else it is sent whole at the end. */
  live: boolean;
}

type Open =
  | { readonly kind: 'text' | 'thinking'; readonly index: number }
  | { readonly kind: 'tool'; readonly index: number; readonly call: ToolCall };

/** One SSE event of the Anthropic stream, `event:` line included (rule A21). */
export function messagesEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The keep-alive on silence (inbound-protocols 1.8; rule C2). */
export const PING_EVENT = messagesEvent('ping', {});

/**
 * The usage so far of a stream cut before its end (shutdown grace, deadline, node failure):
 * a `message_delta` without a stop reason, sent before the error event so the client reads
 * what it is charged, as the chat and Responses doors send theirs (issue 28, finding 11).
 */
export function usageSoFarEvent(usage: Usage): string {
  return messagesEvent('message_delta', {
    delta: { stop_reason: null, stop_sequence: null, stop_details: null, container: null },
    usage: deltaUsage(toMessagesUsage(usage)),
  });
}

/**
 * Internal `chat.completion.chunk` events → Anthropic's stream (inbound-protocols 1.8, 3.2):
 * `message_start` (with the estimated input usage) before the first block; blocks opened
 * and closed in order with indexes 0, 1, 2… (never reused, rule A3); reasoning in its own
 * thinking block closed with a `signature_delta` (the gateway's envelope, 3.8); no block
 * for empty text (A5); the first tool call streamed live as `input_json_delta`, further
 * calls of the turn (which chat streams may interleave, A7) each sent whole in its own
 * block at the end, in order, their arguments as one `input_json_delta` (A6); then
 * `message_delta` with the stop reason (3.10, `tool_use` whenever a tool was called, A2)
 * and the booked usage, and `message_stop`.
 *
 * Fed the internal chunks in any batches; returns the Anthropic SSE text to send.
 */
export class MessagesStreamTranslator {
  private started = false;
  private nextIndex = 0;
  private open: Open | undefined;
  private readonly calls = new Map<number, ToolCall>();
  private liveCallTaken = false;
  private finishReason: string | undefined;
  private matchedStop: unknown;
  private usage: Usage | undefined;
  private model: string;
  /** Thought signatures of calls seen after the last thinking block closed (Gemini): sealed into a block of their own. */
  private lateSignatures: Record<string, string> | undefined;

  constructor(private readonly context: MessagesStreamContext) {
    this.model = context.model;
  }

  /** Maps a batch of internal chunks. */
  write(chunks: readonly ChatCompletionChunk[]): string {
    let out = '';
    for (const chunk of chunks) out += this.chunk(chunk);
    return out;
  }

  /** The closing events of a stream that ended normally (after its last chunks), with the booked usage. */
  end(lastChunks: readonly ChatCompletionChunk[], usage: Usage | undefined): string {
    let out = this.write(lastChunks);
    out += this.start();
    out += this.closeOpen();
    out += this.sealLateSignatures();
    for (const call of [...this.calls.values()].filter((entry) => !entry.live)) out += this.wholeToolBlock(call);
    const stop = toMessagesStop(this.finishReason, this.calls.size > 0, this.matchedStop);
    const finalUsage = toMessagesUsage(usage ?? this.usage);
    out += messagesEvent('message_delta', {
      delta: { stop_reason: stop.stop_reason, stop_sequence: stop.stop_sequence, stop_details: null, container: null },
      usage: deltaUsage(finalUsage),
    });
    return out + messagesEvent('message_stop', {});
  }

  /**
   * A failure after the stream started: what is still pending, the usage so far when it is
   * known (usageSoFarEvent), then the error event (rule C1).
   */
  fail(lastChunks: readonly ChatCompletionChunk[], errorBody: string, usage?: Usage): string {
    let out = this.write(lastChunks);
    if (usage !== undefined) out += this.start() + usageSoFarEvent(usage);
    return `${out}event: error\ndata: ${errorBody}\n\n`;
  }

  private chunk(chunk: ChatCompletionChunk): string {
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
    let out = this.start();
    const choice = chunk.choices?.[0];
    if (choice === undefined) return out;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? (typeof delta.reasoning === 'string' ? delta.reasoning : undefined);
    if (typeof reasoning === 'string' && reasoning !== '') out += this.thinking(reasoning);
    if (typeof delta.content === 'string' && delta.content !== '') out += this.text(delta.content);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as unknown[]) out += this.toolDelta(call);
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.finishReason = choice.finish_reason;
      this.matchedStop = choice.stop_reason;
    }
    return out;
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const usage = toMessagesUsage({
      prompt_tokens: this.context.inputTokensEstimate,
      completion_tokens: 1,
      total_tokens: 0,
    });
    return messagesEvent('message_start', {
      message: {
        id: messageIdFor(this.context.requestId),
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage,
      },
    });
  }

  private thinking(text: string): string {
    let out = '';
    if (this.open?.kind !== 'thinking') {
      out += this.closeOpen();
      out += this.openBlock(
        { kind: 'thinking', index: this.nextIndex },
        { type: 'thinking', thinking: '', signature: '' },
      );
    }
    return out + this.delta({ type: 'thinking_delta', thinking: text });
  }

  private text(text: string): string {
    let out = '';
    if (this.open?.kind !== 'text') {
      out += this.closeOpen();
      out += this.openBlock({ kind: 'text', index: this.nextIndex }, { type: 'text', text: '' });
    }
    return out + this.delta({ type: 'text_delta', text });
  }

  private toolDelta(value: unknown): string {
    if (typeof value !== 'object' || value === null) return '';
    const part = value as {
      index?: unknown;
      id?: unknown;
      function?: { name?: unknown; arguments?: unknown };
      extra_content?: unknown;
    };
    const key = typeof part.index === 'number' ? part.index : this.calls.size;
    const fragment = typeof part.function?.arguments === 'string' ? part.function.arguments : '';
    const signature = (part.extra_content as { google?: { thought_signature?: unknown } } | undefined)?.google
      ?.thought_signature;
    let call = this.calls.get(key);
    let out = '';
    if (call === undefined) {
      call = {
        id: typeof part.id === 'string' && part.id !== '' ? part.id : `toolu_${this.context.requestId}_${key}`,
        name: typeof part.function?.name === 'string' ? part.function.name : '',
        arguments: '',
        signature: typeof signature === 'string' ? signature : undefined,
        live: !this.liveCallTaken,
      };
      this.calls.set(key, call);
      if (call.signature !== undefined) (this.lateSignatures ??= {})[call.id] = call.signature;
      if (call.live) {
        this.liveCallTaken = true;
        out += this.closeOpen();
        out += this.sealLateSignatures();
        out += this.openBlock(
          { kind: 'tool', index: this.nextIndex, call },
          { type: 'tool_use', id: call.id, name: call.name, input: {} },
        );
      }
    } else if (typeof part.function?.name === 'string' && call.name === '') {
      call.name = part.function.name;
    }
    if (fragment === '') return out;
    call.arguments += fragment;
    if (call.live && this.open?.kind === 'tool' && this.open.call === call)
      out += this.delta({ type: 'input_json_delta', partial_json: fragment });
    return out;
  }

  private openBlock(open: Open, block: Record<string, unknown>): string {
    this.open = open;
    this.nextIndex++;
    return messagesEvent('content_block_start', { index: open.index, content_block: block });
  }

  private delta(delta: Record<string, unknown>): string {
    return messagesEvent('content_block_delta', { index: this.open?.index, delta });
  }

  private closeOpen(): string {
    const open = this.open;
    if (open === undefined) return '';
    let out = '';
    if (open.kind === 'thinking') {
      const { signature } = thinkingBlock('', this.context.node(), this.takeLateSignatures(), this.context.envelopes);
      out += this.delta({ type: 'signature_delta', signature });
    } else if (open.kind === 'tool' && open.call.arguments === '') {
      out += this.delta({ type: 'input_json_delta', partial_json: '{}' });
    }
    this.open = undefined;
    return out + messagesEvent('content_block_stop', { index: open.index });
  }

  /** A tool call sent whole in its own block. */
  private wholeToolBlock(call: ToolCall): string {
    const index = this.nextIndex++;
    return (
      messagesEvent('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }) +
      messagesEvent('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: call.arguments === '' ? '{}' : call.arguments },
      }) +
      messagesEvent('content_block_stop', { index })
    );
  }

  private takeLateSignatures(): Record<string, string> | undefined {
    const signatures = this.lateSignatures;
    this.lateSignatures = undefined;
    return signatures;
  }

  /** Thought signatures not yet sealed into a thinking block: a thinking block of their own, before the calls. */
  private sealLateSignatures(): string {
    const signatures = this.takeLateSignatures();
    if (signatures === undefined) return '';
    const block = thinkingBlock('', this.context.node(), signatures, this.context.envelopes);
    const index = this.nextIndex++;
    return (
      messagesEvent('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }) +
      messagesEvent('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }) +
      messagesEvent('content_block_stop', { index })
    );
  }
}

/** The usage of the final `message_delta`: cumulative, input side restated (inbound-protocols 1.8 item 7). */
function deltaUsage(usage: MessagesUsage): Record<string, unknown> {
  const { cache_creation: _splitByTtl, ...rest } = usage;
  return rest;
}
