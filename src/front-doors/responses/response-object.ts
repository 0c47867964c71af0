import type { Usage } from '../../protocol/openai/chat-response-types.js';
import type { CreateResponseRequest } from './create-response-schema.js';

type Item = Record<string, unknown>;

/** A Response's usage (inbound-protocols 3.9, "Responses ← chat"). */
export function responseUsage(usage: Usage): Item {
  const input = usage.prompt_tokens;
  const output = usage.completion_tokens;
  const details = usage.prompt_tokens_details ?? undefined;
  const cacheWrite = details?.cache_write_tokens;
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: details?.cached_tokens ?? 0,
      cache_write_tokens: typeof cacheWrite === 'number' ? cacheWrite : 0,
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

/** How a reply ends, as a Response's status (inbound-protocols 3.10). */
export interface TerminalStatus {
  readonly status: 'completed' | 'incomplete';
  readonly incompleteDetails: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

export function terminalStatus(finishReason: string | null | undefined): TerminalStatus {
  if (finishReason === 'length') return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } };
  return { status: 'completed', incompleteDetails: null };
}

/**
 * The Response object of one request at any point of its life: the request's settings
 * echoed (inbound-protocols 2.6: every lifecycle event and the stored response carry them),
 * its id, creation time and the client's model id.
 */
export class ResponseObject {
  private readonly echo: Item;

  constructor(
    readonly id: string,
    readonly createdAt: number,
    readonly model: string,
    request: CreateResponseRequest,
  ) {
    this.echo = {
      background: false,
      instructions: request.instructions ?? null,
      max_output_tokens: request.max_output_tokens ?? null,
      max_tool_calls: request.max_tool_calls ?? null,
      parallel_tool_calls: request.parallel_tool_calls ?? true,
      previous_response_id: request.previous_response_id ?? null,
      prompt_cache_key: request.prompt_cache_key ?? null,
      reasoning: { effort: request.reasoning?.effort ?? null, summary: reasoningSummary(request) ?? null },
      safety_identifier: request.safety_identifier ?? null,
      service_tier: 'default',
      store: request.store !== false,
      temperature: request.temperature ?? 1,
      text: { format: request.text?.format ?? { type: 'text' }, verbosity: request.text?.verbosity ?? 'medium' },
      tool_choice: request.tool_choice ?? 'auto',
      tools: request.tools ?? [],
      top_logprobs: request.top_logprobs ?? 0,
      top_p: request.top_p ?? 1,
      truncation: request.truncation ?? 'disabled',
      user: request.user ?? null,
      metadata: request.metadata ?? {},
    };
  }

  /** The object while it is being made: `in_progress`, no output, no usage. */
  inProgress(): Item {
    return this.build('in_progress', [], null, null, null);
  }

  /** The finished object: its output items, usage and terminal status. */
  finished(output: readonly Item[], usage: Item, terminal: TerminalStatus): Item {
    return this.build(terminal.status, output, usage, null, terminal.incompleteDetails);
  }

  /** The object of a failed response: what was output so far, and the error. */
  failed(output: readonly Item[], error: { code: string; message: string }, usage: Item | null): Item {
    return this.build('failed', output, usage, error, null);
  }

  private build(
    status: string,
    output: readonly Item[],
    usage: Item | null,
    error: Item | null,
    incomplete: Item | null,
  ): Item {
    const object: Item = {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status,
    };
    if (status === 'completed') object.completed_at = Math.floor(Date.now() / 1000);
    Object.assign(object, { error, incomplete_details: incomplete, model: this.model, output }, this.echo, { usage });
    return object;
  }
}

/** The summary mode the client asked for (`reasoning.summary`, or its deprecated alias). */
export function reasoningSummary(request: CreateResponseRequest): string | undefined {
  return request.reasoning?.summary ?? request.reasoning?.generate_summary ?? undefined;
}
