import type { LeftOut } from '../../billing/unresolved-inputs.js';
import { gatewayError, invalidParameter } from '../../errors/gateway-error.js';
import type { ChatMessage } from '../../protocol/openai/chat-request-schema.js';
import { isRecord } from '../../validation/is-record.js';
import { reasoningArtifactOf, type ReasoningArtifact } from './reasoning-artifact.js';
import type { ReasoningEnvelope } from '../reasoning-envelope.js';
import { namespacedFunctionName } from './tool-names.js';

type Item = Record<string, unknown>;
/** A chat content part. */
type Part = { type: string } & Record<string, unknown>;

/** Where an item came from, for the `param` of an error about it. */
export interface LocatedItem {
  readonly item: Item;
  /** e.g. `input[3]`; items of a stored conversation are named by the input they replay. */
  readonly path: string;
}

/** The messages, and the node whose reasoning they carry back (affinity, PRODUCT.md decision 17). */
export interface TranslatedInput {
  readonly messages: ChatMessage[];
  readonly reasoningNode: string | undefined;
  /** What a native node is sent but these messages leave out, for the reservation to price (billing/unresolved-inputs.ts). */
  readonly leftOut: LeftOut;
}

/** Item types that replay OpenAI-side state (hosted tools, compaction): only a native node can read them. */
const HOSTED_ITEM =
  /^(file_search_call|web_search_call|computer_call|computer_call_output|image_generation_call|code_interpreter_call|local_shell_call|local_shell_call_output|shell_call|shell_call_output|apply_patch_call|apply_patch_call_output|mcp_\w+|tool_search_\w+|compaction|program\w*)$/;

const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'system', 'developer']);

/** A role a message item may have. */
function isMessageRole(role: unknown): role is 'user' | 'assistant' | 'system' | 'developer' {
  return ROLES.has(role);
}

/**
 * Maps Responses input items to chat messages (inbound-protocols 3.5): messages keep their
 * role, tool calls join the assistant message before them, tool outputs become `tool`
 * messages, reasoning in Switchyard's envelope goes back to the next assistant message when
 * the node that made it will be asked (`readsReasoning`; any other reasoning is dropped:
 * its owner alone could read it), `item_reference`s are replaced by the items they name, and hosted-tool replays
 * are dropped for a translated node. What a native node would still be sent of it (references
 * not stored here, hosted-tool turns, reasoning not given back) is returned as `leftOut`.
 */
export function inputToMessages(
  items: readonly LocatedItem[],
  references: ReadonlyMap<string, Item>,
  envelope: ReasoningEnvelope,
  readsReasoning: (node: string) => boolean,
  /** A node of the model serves the API natively: a reference to nothing stored here is left out (that node may hold it) rather than a 404. */
  servedNatively: boolean,
): TranslatedInput {
  const messages: ChatMessage[] = [];
  let pendingReasoning: ReasoningArtifact | undefined;
  let reasoningNode: string | undefined;
  let unresolvedReferences = 0;
  /** Items only a native node reads (hosted-tool turns, reasoning not given back), as it is sent them. */
  const leftOutText: string[] = [];
  const leaveOut = (item: Item): void => {
    if (servedNatively) leftOutText.push(JSON.stringify(item));
  };

  /** The assistant message tool calls join: the last message when it is an assistant one, else a new one. */
  const assistantMessage = (): ChatMessage => {
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant' && pendingReasoning === undefined) return last;
    const message: ChatMessage = { role: 'assistant', content: null, ...takeReasoning() };
    messages.push(message);
    return message;
  };
  const takeReasoning = (): Partial<ReasoningArtifact> => {
    const artifact = pendingReasoning ?? {};
    pendingReasoning = undefined;
    return artifact;
  };

  const mapItem = (item: Item, path: string, depth: number): void => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        if (!isMessageRole(role)) {
          throw invalidParameter(`${path}.role`, 'must_be_message_role');
        }
        if (role === 'assistant') {
          const { text, refusal } = assistantText(item.content, `${path}.content`);
          const message: ChatMessage = { role: 'assistant', content: text, ...takeReasoning() };
          if (refusal !== undefined) message.refusal = refusal;
          messages.push(message);
        } else {
          pendingReasoning = undefined;
          messages.push({ role, content: userContent(item.content, `${path}.content`) });
        }
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const callId = requiredString(item.call_id, `${path}.call_id`);
        const name = requiredString(item.name, `${path}.name`);
        const functionName = typeof item.namespace === 'string' ? namespacedFunctionName(item.namespace, name) : name;
        const args =
          type === 'function_call'
            ? requiredString(item.arguments, `${path}.arguments`, true)
            : JSON.stringify({ input: requiredString(item.input, `${path}.input`, true) });
        const message = assistantMessage();
        (message.tool_calls ??= []).push({
          id: callId,
          type: 'function',
          function: { name: functionName, arguments: args },
        });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = requiredString(item.call_id, `${path}.call_id`);
        pendingReasoning = undefined;
        const { text, images } = toolOutput(item.output, `${path}.output`);
        messages.push({ role: 'tool', tool_call_id: callId, content: text });
        if (images.length > 0) messages.push({ role: 'user', content: images });
        return;
      }
      case 'reasoning': {
        const opened = envelope.open(item.encrypted_content);
        if (opened !== undefined && readsReasoning(opened.node)) {
          pendingReasoning = mergeArtifacts(pendingReasoning, reasoningArtifactOf(opened.payload));
          reasoningNode = opened.node;
        } else leaveOut(item);
        return;
      }
      case 'item_reference': {
        const id = requiredString(item.id, `${path}.id`);
        const referenced = references.get(id);
        if (referenced === undefined && servedNatively && depth === 0) {
          unresolvedReferences++;
          return;
        }
        if (referenced === undefined || depth > 0) {
          throw gatewayError('not_found', { param: path, params: { kind: 'item', id } });
        }
        mapItem(referenced, path, depth + 1);
        return;
      }
      case 'additional_tools':
        // Tools declared mid-input (Codex CLI): no message; to-chat-request.ts offers its tools.
        return;
      default:
        if (HOSTED_ITEM.test(type)) return leaveOut(item);
        throw invalidParameter(`${path}.type`, 'item_type_unsupported', { type });
    }
  };

  for (const { item, path } of items) mapItem(item, path, 0);
  return { messages, reasoningNode, leftOut: { unresolved: unresolvedReferences, text: leftOutText } };
}

function mergeArtifacts(before: ReasoningArtifact | undefined, next: ReasoningArtifact): ReasoningArtifact {
  if (before === undefined) return next;
  const text = [before.reasoning_content, next.reasoning_content].filter((part) => part !== undefined).join('');
  const blocks = [...(before.thinking_blocks ?? []), ...(next.thinking_blocks ?? [])];
  return {
    ...(text === '' ? {} : { reasoning_content: text }),
    ...(blocks.length === 0 ? {} : { thinking_blocks: blocks }),
  };
}

function requiredString(value: unknown, path: string, emptyAllowed = false): string {
  if (typeof value !== 'string' || (!emptyAllowed && value === '')) {
    throw invalidParameter(path, 'must_be_non_empty_string');
  }
  return value;
}

function partsOf(content: unknown, path: string): Item[] {
  if (!Array.isArray(content)) throw invalidParameter(path, 'must_be_string_or_parts');
  return content.map((part, index) => {
    if (!isRecord(part) || typeof part.type !== 'string') throw invalidParameter(`${path}[${index}].type`, 'required');
    return part;
  });
}

/** An assistant message's text (`output_text` or `input_text` parts joined) and refusal. */
function assistantText(content: unknown, path: string): { text: string; refusal: string | undefined } {
  if (typeof content === 'string') return { text: content, refusal: undefined };
  let text = '';
  let refusal: string | undefined;
  partsOf(content, path).forEach((part, index) => {
    if (part.type === 'output_text' || part.type === 'input_text' || part.type === 'text') {
      text += requiredString(part.text, `${path}[${index}].text`, true);
    } else if (part.type === 'refusal') {
      refusal = requiredString(part.refusal, `${path}[${index}].refusal`, true);
    } else {
      throw invalidParameter(`${path}[${index}].type`, 'part_type_unsupported_in_assistant', {
        type: String(part.type),
      });
    }
  });
  return { text, refusal };
}

/** A user/system/developer message's content: a string, or chat parts. */
function userContent(content: unknown, path: string): string | Part[] {
  if (typeof content === 'string') return content;
  return partsOf(content, path).map((part, index) => inputPart(part, `${path}[${index}]`));
}

/** One input part as a chat content part (inbound-protocols 3.5). */
function inputPart(part: Item, path: string): Part {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: requiredString(part.text, `${path}.text`, true) };
    case 'input_image': {
      if (typeof part.image_url !== 'string' || part.image_url === '') {
        throw invalidParameter(`${path}.image_url`, 'image_url_required');
      }
      const detail =
        part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
      return {
        type: 'image_url',
        image_url: detail === undefined ? { url: part.image_url } : { url: part.image_url, detail },
      };
    }
    case 'input_file': {
      const file: Item = {};
      if (typeof part.file_data === 'string') file.file_data = part.file_data;
      if (typeof part.file_id === 'string') file.file_id = part.file_id;
      if (typeof part.filename === 'string') file.filename = part.filename;
      if (file.file_data === undefined && file.file_id === undefined) {
        throw invalidParameter(`${path}.file_data`, 'file_data_required');
      }
      return { type: 'file', file };
    }
    default:
      throw invalidParameter(`${path}.type`, 'part_type_unsupported', { type: String(part.type) });
  }
}

/** A tool output: its text (parts joined) and its images, which go to a following user message (rule A12). */
function toolOutput(output: unknown, path: string): { text: string; images: Part[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  const images: Part[] = [];
  let text = '';
  partsOf(output, path).forEach((part, index) => {
    const mapped = inputPart(part, `${path}[${index}]`);
    if (mapped.type === 'text') text += typeof mapped.text === 'string' ? mapped.text : '';
    else images.push(mapped);
  });
  return { text, images };
}
