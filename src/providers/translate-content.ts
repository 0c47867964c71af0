import { invalidParameter, invalidValue, type GatewayError } from '../errors/gateway-error.js';
import { isRecord } from '../validation/is-record.js';

/**
 * Helpers shared by the adapters that translate OpenAI requests into another protocol
 * (Anthropic, Gemini): reading content parts, data URLs and tool arguments, and the 400
 * for what the target protocol cannot express (never silently mistranslated).
 */

/** 400 validation_failed: `param` holds something the node's protocol cannot express. */
export function notExpressible(param: string, protocol: string, what: string): GatewayError {
  return invalidParameter(param, 'not_for_protocol', { what, protocol });
}

export { isRecord };

/** An OpenAI content part as sent by clients. */
export type ContentPart = Record<string, unknown> & { type: string };

/** Content as a list of parts: a string is one text part; null/absent is none. */
export function contentParts(content: unknown): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content as ContentPart[];
}

/** The text of content that may only hold text (system, developer, tool messages on some protocols). */
export function textOnly(content: unknown, param: string, protocol: string): string {
  const texts: string[] = [];
  contentParts(content).forEach((part, index) => {
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw notExpressible(`${param}[${index}]`, protocol, `a "${part.type}" part in this message`);
    }
    texts.push(part.text);
  });
  return texts.join('\n');
}

/** `data:<media type>;base64,<data>` split up; undefined for anything else. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const [, mediaType, data] = /^data:([^;,]+);base64,(.*)$/s.exec(url) ?? [];
  return mediaType === undefined || data === undefined ? undefined : { mediaType: mediaType.toLowerCase(), data };
}

/** The URL of an `image_url` part, checked. */
export function imageUrlOf(part: ContentPart, param: string): string {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === 'string' ? imageUrl : isRecord(imageUrl) ? imageUrl.url : undefined;
  if (typeof url !== 'string' || url === '') {
    throw invalidValue(`${param}.image_url.url`, 'must_be_url');
  }
  return url;
}

/**
 * The `cache_control` of a message, content part or tool, checked to be an object and
 * otherwise unchanged (`{type: "ephemeral", ttl?: "5m" | "1h"}`, PRODUCT.md decision 21);
 * undefined when absent.
 */
export function cacheControlOf(holder: Record<string, unknown>, param: string): Record<string, unknown> | undefined {
  const value = holder.cache_control;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    throw invalidParameter(`${param}.cache_control`, 'cache_control_shape');
  }
  return value;
}

/** The inline data of a `file` part (`file.file_data`, a base64 data URL); a file by id cannot be sent to a node of another protocol. */
export function fileDataOf(
  part: ContentPart,
  param: string,
  protocol: string,
): { mediaType: string; data: string; filename: string | undefined } {
  const file = isRecord(part.file) ? part.file : {};
  const filename = typeof file.filename === 'string' && file.filename !== '' ? file.filename : undefined;
  if (typeof file.file_data === 'string') {
    const data = parseDataUrl(file.file_data);
    if (data !== undefined) return { ...data, filename };
    throw invalidValue(`${param}.file.file_data`, 'must_be_base64_data_url');
  }
  if (file.file_id !== undefined) throw notExpressible(param, protocol, 'a file by id (send it as base64 file_data)');
  throw invalidValue(`${param}.file`, 'needs_file_data');
}

/** The `input_audio` of a part: base64 data and its format (`wav`, `mp3`, …). */
export function inputAudioOf(part: ContentPart, param: string): { data: string; format: string } {
  const audio = isRecord(part.input_audio) ? part.input_audio : {};
  if (typeof audio.data !== 'string' || audio.data === '' || typeof audio.format !== 'string') {
    throw invalidParameter(`${param}.input_audio`, 'input_audio_shape');
  }
  return { data: audio.data, format: audio.format };
}

/** An assistant tool call as clients send it back. */
export interface ToolCallInput {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The whole object, for protocol extensions (e.g. Gemini's thought signature). */
  readonly raw: Record<string, unknown>;
}

/** Reads `tool_calls[]` of an assistant message: function calls whose arguments are a JSON object. */
export function readToolCalls(value: unknown, param: string, protocol: string): ToolCallInput[] {
  if (!Array.isArray(value)) return [];
  return value.map((call: unknown, index) => {
    const where = `${param}[${index}]`;
    if (!isRecord(call) || (call.type !== undefined && call.type !== 'function') || !isRecord(call.function)) {
      throw notExpressible(where, protocol, 'a tool call that is not a function call');
    }
    const name = call.function.name;
    if (typeof name !== 'string' || name === '') {
      throw invalidValue(`${where}.function.name`, 'must_be_non_empty_string');
    }
    const text = call.function.arguments;
    let parsed: unknown = {};
    if (typeof text === 'string' && text.trim() !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!isRecord(parsed)) {
      throw invalidValue(`${where}.function.arguments`, 'must_be_json_object_string');
    }
    return { id: typeof call.id === 'string' ? call.id : `call_${index}`, name, arguments: parsed, raw: call };
  });
}

/** A function tool of the request, checked. */
export interface FunctionTool {
  readonly name: string;
  readonly description: string | undefined;
  readonly parameters: Record<string, unknown> | undefined;
  /** The tool's prompt-cache breakpoint, for protocols that have them (Anthropic). */
  readonly cacheControl: Record<string, unknown> | undefined;
}

/** Reads `tools[]`: only `{type: "function"}` tools can be translated. */
export function readFunctionTools(tools: unknown, protocol: string): FunctionTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool: unknown, index) => {
    const fn = isRecord(tool) ? tool.function : undefined;
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(fn) || typeof fn.name !== 'string') {
      throw notExpressible(`tools[${index}]`, protocol, 'a tool that is not a function');
    }
    return {
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : undefined,
      parameters: isRecord(fn.parameters) ? fn.parameters : undefined,
      cacheControl: cacheControlOf(tool, `tools[${index}]`),
    };
  });
}

/** `tool_choice` normalised: auto | none | required | a function name. */
export type ToolChoice =
  { readonly kind: 'auto' | 'none' | 'required' } | { readonly kind: 'function'; readonly name: string };

export function readToolChoice(value: unknown, protocol: string): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { kind: value };
  if (
    isRecord(value) &&
    value.type === 'function' &&
    isRecord(value.function) &&
    typeof value.function.name === 'string'
  ) {
    return { kind: 'function', name: value.function.name };
  }
  throw notExpressible('tool_choice', protocol, 'this tool_choice');
}

/** `stop` as a list. */
export function stopSequences(stop: string | string[] | null | undefined): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  return list.length === 0 ? undefined : list;
}
