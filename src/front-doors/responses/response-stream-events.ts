import type { ChatCompletionChunk, Usage } from '../../protocol/openai/chat-response-types.js';
import {
  customToolInput,
  messageItem,
  reasoningArtifact,
  reasoningItem,
  toolCallItem,
  type OutputShaping,
} from './output-items.js';
import { outputItemId } from './response-ids.js';
import { responseUsage, terminalStatus, type ResponseObject } from './response-object.js';

type Item = Record<string, unknown>;

/** A reasoning or message item being written. */
interface OpenTextItem {
  readonly kind: 'reasoning' | 'message';
  readonly index: number;
  readonly id: string;
  text: string;
  refusal: string | undefined;
  /** The message's open part: its text, or its refusal (a refusal part follows the text part). */
  part: 'text' | 'refusal' | undefined;
  partIndex: number;
  blocks: Item[];
}

/** A tool call; opened once its name is known, closed at the end of the stream (parallel calls may interleave, rule A7). */
interface ToolCall {
  index: number | undefined;
  callId: string;
  name: string;
  args: string;
  /** Arguments that came before the call could open. */
  opened: boolean;
}

/**
 * Maps the pipeline's internal stream (`chat.completion.chunk` objects, in any batches)
 * to the Responses event sequence (inbound-protocols 2.7, 3.6): `response.created` and
 * `response.in_progress` first, items opened before their deltas (rule B1), every event
 * with the next `sequence_number`, a terminal event with the full output and usage (rule
 * B2), or `error` + `response.failed` (2.10, rule B12). Writes framed SSE text.
 */
export class ResponseStreamEvents {
  private sequence = 0;
  private began = false;
  private readonly output: Item[] = [];
  private openItem: OpenTextItem | undefined;
  private readonly calls = new Map<number, ToolCall>();
  private finishReason: string | null = null;
  private out = '';

  constructor(
    private readonly response: ResponseObject,
    private readonly shaping: OutputShaping,
    private readonly node: () => string | undefined,
  ) {}

  /** The output items so far (final once the stream ended). */
  get items(): readonly Item[] {
    return this.output;
  }

  /** The events for a batch of internal chunks. */
  write(chunks: readonly ChatCompletionChunk[]): string {
    this.feed(chunks);
    return this.take();
  }

  /** A keep-alive event (2.8); the lifecycle events first when nothing went out yet. */
  keepalive(): string {
    this.begin();
    this.emit('keepalive', {});
    return this.take();
  }

  /** The closing events of a stream that ended: open items closed, then `response.completed` or `response.incomplete`. */
  end(lastChunks: readonly ChatCompletionChunk[], usage: Usage | undefined): { events: string; response: Item } {
    this.feed(lastChunks);
    this.closeAll();
    const terminal = terminalStatus(this.finishReason);
    const response = this.response.finished(this.output, responseUsage(usage ?? ZERO_USAGE), terminal);
    this.emit(terminal.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    return { events: this.take(), response };
  }

  /**
   * The closing events of a stream that failed: `error`, then `response.failed` with the
   * output so far, under `responseId` when the stream's response had another id than ours
   * (a native node's).
   */
  fail(
    lastChunks: readonly ChatCompletionChunk[],
    error: { code: string; message: string; type: string },
    usage: Usage | undefined,
    responseId?: string,
  ): { events: string; response: Item } {
    this.feed(lastChunks);
    this.closeAll();
    const { code, message, type } = error;
    this.emit('error', { code, message, param: null, error: { type, code, message, param: null } });
    const response = this.response.failed(
      this.output,
      { code, message },
      usage === undefined ? null : responseUsage(usage),
    );
    if (responseId !== undefined) response.id = responseId;
    this.emit('response.failed', { response });
    return { events: this.take(), response };
  }

  /**
   * The failure events after a native stream (the node's own events) broke: `error` and
   * `response.failed`, numbered after the `sentEvents` the node's stream had, the response
   * under the id the node's `response.created` gave it (ours when none went out).
   */
  nativeFailure(
    sentEvents: number,
    error: { code: string; message: string; type: string },
    nodeResponseId: string | undefined,
  ): string {
    this.began = true;
    this.sequence = sentEvents;
    return this.fail([], error, undefined, nodeResponseId).events;
  }

  private feed(chunks: readonly ChatCompletionChunk[]): void {
    this.begin();
    for (const chunk of chunks) this.chunk(chunk);
  }

  private begin(): void {
    if (this.began) return;
    this.began = true;
    this.emit('response.created', { response: this.response.inProgress() });
    this.emit('response.in_progress', { response: this.response.inProgress() });
  }

  private chunk(chunk: ChatCompletionChunk): void {
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Item | undefined) : undefined;
    if (choice === undefined) return;
    const delta = (choice.delta ?? {}) as Item;
    const blocks = delta.thinking_blocks;
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '')
      this.reasoningDelta(delta.reasoning_content);
    if (Array.isArray(blocks) && blocks.length > 0) {
      this.textItem('reasoning').blocks.push(...(blocks as Item[]));
    }
    if (typeof delta.content === 'string' && delta.content !== '') this.textDelta(delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.refusalDelta(delta.refusal);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as Item[]) this.toolCallDelta(call);
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
  }

  private reasoningDelta(text: string): void {
    const item = this.textItem('reasoning');
    const summary = this.shaping.summaryMode;
    if (item.part === undefined) {
      item.part = 'text';
      if (summary)
        this.emit('response.reasoning_summary_part.added', {
          ...this.at(item),
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
      else
        this.emit('response.content_part.added', {
          ...this.at(item),
          content_index: 0,
          part: { type: 'reasoning_text', text: '' },
        });
    }
    item.text += text;
    if (summary)
      this.emit('response.reasoning_summary_text.delta', { ...this.at(item), summary_index: 0, delta: text });
    else this.emit('response.reasoning_text.delta', { ...this.at(item), content_index: 0, delta: text });
  }

  private textDelta(text: string): void {
    const item = this.textItem('message');
    if (item.part !== 'text') {
      item.part = 'text';
      this.emit('response.content_part.added', {
        ...this.at(item),
        content_index: item.partIndex,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    item.text += text;
    this.emit('response.output_text.delta', {
      ...this.at(item),
      content_index: item.partIndex,
      delta: text,
      logprobs: [],
    });
  }

  private refusalDelta(text: string): void {
    const item = this.textItem('message');
    if (item.part !== 'refusal') {
      if (item.part === 'text') this.closeTextPart(item);
      item.part = 'refusal';
      item.refusal = '';
      this.emit('response.content_part.added', {
        ...this.at(item),
        content_index: item.partIndex,
        part: { type: 'refusal', refusal: '' },
      });
    }
    item.refusal += text;
    this.emit('response.refusal.delta', { ...this.at(item), content_index: item.partIndex, delta: text });
  }

  private toolCallDelta(delta: Item): void {
    const key = typeof delta.index === 'number' ? delta.index : this.calls.size;
    const fn = (delta.function ?? {}) as Item;
    let call = this.calls.get(key);
    if (call === undefined) {
      call = { index: undefined, callId: '', name: '', args: '', opened: false };
      this.calls.set(key, call);
    }
    if (typeof delta.id === 'string' && delta.id !== '') call.callId = delta.id;
    if (typeof fn.name === 'string' && fn.name !== '') call.name += fn.name;
    const args = typeof fn.arguments === 'string' ? fn.arguments : '';
    if (!call.opened && call.name !== '') this.openCall(call, key);
    call.args += args;
    if (call.opened && args !== '' && this.isFunctionCall(call)) {
      this.emit('response.function_call_arguments.delta', {
        item_id: this.output[call.index as number]?.id,
        output_index: call.index,
        delta: args,
      });
    }
  }

  private openCall(call: ToolCall, key: number): void {
    this.closeOpenItem();
    call.opened = true;
    call.index = this.output.length;
    if (call.callId === '') call.callId = `call_${this.shaping.responseId.slice(5)}_${key}`;
    const item = toolCallItem(this.shaping, call.index, call.callId, call.name, '', 'in_progress');
    if (item.type === 'custom_tool_call') item.input = '';
    this.output.push(item);
    this.emit('response.output_item.added', { output_index: call.index, item: { ...item } });
    if (call.args !== '' && this.isFunctionCall(call)) {
      this.emit('response.function_call_arguments.delta', {
        item_id: item.id,
        output_index: call.index,
        delta: call.args,
      });
    }
  }

  private isFunctionCall(call: ToolCall): boolean {
    return this.output[call.index as number]?.type === 'function_call';
  }

  /** The open reasoning or message item, opened now if another kind (or nothing) is open. */
  private textItem(kind: OpenTextItem['kind']): OpenTextItem {
    if (this.openItem?.kind === kind) return this.openItem;
    this.closeOpenItem();
    const index = this.output.length;
    const id = outputItemId(kind === 'reasoning' ? 'rs' : 'msg', this.shaping.responseId, index);
    const item: OpenTextItem = {
      kind,
      index,
      id,
      text: '',
      refusal: undefined,
      part: undefined,
      partIndex: 0,
      blocks: [],
    };
    const added =
      kind === 'reasoning'
        ? { type: 'reasoning', id, summary: [] }
        : messageItem(id, undefined, undefined, 'in_progress');
    this.output.push(added);
    this.openItem = item;
    this.emit('response.output_item.added', { output_index: index, item: { ...added } });
    return item;
  }

  private at(item: OpenTextItem): Item {
    return { item_id: item.id, output_index: item.index };
  }

  private closeTextPart(item: OpenTextItem): void {
    const content_index = item.partIndex;
    const part = { type: 'output_text', text: item.text, annotations: [], logprobs: [] };
    this.emit('response.output_text.done', { ...this.at(item), content_index, text: item.text, logprobs: [] });
    this.emit('response.content_part.done', { ...this.at(item), content_index, part });
    item.partIndex += 1;
    item.part = undefined;
  }

  private closeOpenItem(): void {
    const item = this.openItem;
    if (item === undefined) return;
    this.openItem = undefined;
    let done: Item;
    if (item.kind === 'reasoning') {
      if (item.part === 'text') {
        if (this.shaping.summaryMode) {
          this.emit('response.reasoning_summary_text.done', { ...this.at(item), summary_index: 0, text: item.text });
          this.emit('response.reasoning_summary_part.done', {
            ...this.at(item),
            summary_index: 0,
            part: { type: 'summary_text', text: item.text },
          });
        } else {
          this.emit('response.reasoning_text.done', { ...this.at(item), content_index: 0, text: item.text });
          this.emit('response.content_part.done', {
            ...this.at(item),
            content_index: 0,
            part: { type: 'reasoning_text', text: item.text },
          });
        }
      }
      const blocks = item.blocks.length > 0 ? item.blocks : undefined;
      done = reasoningItem(this.shaping, item.index, item.text, reasoningArtifact(item.text, blocks), this.node());
    } else {
      if (item.part === 'text') this.closeTextPart(item);
      if (item.part === 'refusal') {
        this.emit('response.refusal.done', { ...this.at(item), content_index: item.partIndex, refusal: item.refusal });
        this.emit('response.content_part.done', {
          ...this.at(item),
          content_index: item.partIndex,
          part: { type: 'refusal', refusal: item.refusal },
        });
      }
      done = messageItem(
        item.id,
        item.text === '' && item.refusal !== undefined ? undefined : item.text,
        item.refusal,
        'completed',
      );
    }
    this.output[item.index] = done;
    this.emit('response.output_item.done', { output_index: item.index, item: done });
  }

  private closeAll(): void {
    this.closeOpenItem();
    for (const [key, call] of this.calls) {
      if (!call.opened) {
        if (call.name === '') continue;
        this.openCall(call, key);
      }
      const index = call.index as number;
      const args = call.args === '' ? '{}' : call.args;
      const done = toolCallItem(this.shaping, index, call.callId, call.name, args, 'completed');
      const id = done.id;
      if (done.type === 'custom_tool_call') {
        const input = customToolInput(args);
        this.emit('response.custom_tool_call_input.delta', { item_id: id, output_index: index, delta: input });
        this.emit('response.custom_tool_call_input.done', { item_id: id, output_index: index, input });
      } else {
        this.emit('response.function_call_arguments.done', {
          item_id: id,
          output_index: index,
          name: done.name,
          arguments: args,
        });
      }
      this.output[index] = done;
      this.emit('response.output_item.done', { output_index: index, item: done });
    }
    this.calls.clear();
  }

  private emit(type: string, fields: Item): void {
    this.out += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence, ...fields })}\n\n`;
    this.sequence += 1;
  }

  private take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }
}

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
