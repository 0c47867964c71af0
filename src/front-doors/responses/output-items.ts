import type { ReasoningArtifact } from './reasoning-artifact.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import { outputItemId } from './response-ids.js';
import type { ToolNames } from './tool-names.js';
import { isRecord } from '../../validation/is-record.js';

type Item = Record<string, unknown>;

/** What shapes the output items of one response, whole or streamed. */
export interface OutputShaping {
  readonly responseId: string;
  readonly toolNames: ToolNames;
  /** Reasoning text goes into `summary` parts (the client set `reasoning.summary`); else into `content` as `reasoning_text`. */
  readonly summaryMode: boolean;
  /** `include` asked for `reasoning.encrypted_content`. */
  readonly includeEncrypted: boolean;
  readonly envelope: ReasoningEnvelope;
}

/** A reasoning item (inbound-protocols 3.6): its text where the client asked, and the envelope when asked for and a node is known. */
export function reasoningItem(
  shaping: OutputShaping,
  index: number,
  text: string,
  artifact: ReasoningArtifact,
  node: string | undefined,
): Item {
  const item: Item = { type: 'reasoning', id: outputItemId('rs', shaping.responseId, index), summary: [] };
  if (shaping.summaryMode) {
    if (text !== '') item.summary = [{ type: 'summary_text', text }];
  } else if (text !== '') {
    item.content = [{ type: 'reasoning_text', text }];
  }
  if (shaping.includeEncrypted) {
    item.encrypted_content = node === undefined ? null : shaping.envelope.seal(node, artifact);
  }
  return item;
}

/** An assistant message item with its text and refusal parts. */
export function messageItem(id: string, text: string | undefined, refusal: string | undefined, status: string): Item {
  const content: Item[] = [];
  if (text !== undefined) content.push({ type: 'output_text', text, annotations: [], logprobs: [] });
  if (refusal !== undefined) content.push({ type: 'refusal', refusal });
  return { type: 'message', id, status, role: 'assistant', content };
}

/** The item a node's tool call is to the client: a `function_call` (with its `namespace`), or a `custom_tool_call` (rule B9). */
export function toolCallItem(
  shaping: OutputShaping,
  index: number,
  callId: string,
  functionName: string,
  args: string,
  status: string,
): Item {
  const tool = shaping.toolNames.clientTool(functionName);
  if (tool.kind === 'custom') {
    return {
      type: 'custom_tool_call',
      id: outputItemId('ctc', shaping.responseId, index),
      status,
      call_id: callId,
      name: tool.name,
      input: customToolInput(args),
      ...(tool.namespace === undefined ? {} : { namespace: tool.namespace }),
    };
  }
  const item: Item = {
    type: 'function_call',
    id: outputItemId('fc', shaping.responseId, index),
    status,
    call_id: callId,
    name: tool.name,
    arguments: args,
  };
  if (tool.kind === 'namespaced') item.namespace = tool.namespace;
  return item;
}

/** The `input` string of a custom tool call from the arguments of the function it was offered as. */
export function customToolInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isRecord(parsed) && typeof parsed.input === 'string') return parsed.input;
  } catch {
    // Not JSON: the node wrote the input itself.
  }
  return args;
}

/** The reasoning a chat message or the deltas of a stream carried, as the artifact that gives it back to its node. */
export function reasoningArtifact(text: string, thinkingBlocks: readonly Item[] | undefined): ReasoningArtifact {
  if (thinkingBlocks !== undefined && thinkingBlocks.length > 0) return { thinking_blocks: thinkingBlocks };
  return { reasoning_content: text };
}
