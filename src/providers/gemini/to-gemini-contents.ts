import type { ChatMessage } from '../../protocol/openai/chat-request-schema.js';
import { invalidValue } from '../../errors/gateway-error.js';
import {
  contentParts,
  fileDataOf,
  imageUrlOf,
  inputAudioOf,
  isRecord,
  notExpressible,
  parseDataUrl,
  readToolCalls,
  textOnly,
} from '../translate-content.js';

const PROTOCOL = 'gemini';

type Part = Record<string, unknown>;

/** `input_audio.format` → the MIME type Gemini takes for inline audio. */
const AUDIO_MIME_TYPES: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  aiff: 'audio/aiff',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
};

/** One Gemini `Content`. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: Part[];
}

/**
 * OpenAI messages → Gemini `systemInstruction` and `contents` (provider-protocols 5.2,
 * 6.1): system/developer text goes to `systemInstruction`; assistant turns are `model`
 * turns; a tool message becomes a `functionResponse` part (named after the call it
 * answers) in a user turn; consecutive turns of one role are merged. Images must be data
 * URLs: Gemini cannot fetch arbitrary URLs, and an adapter does no I/O. `file` parts
 * (base64 `file_data`) and `input_audio` become `inlineData`.
 */
export function toGeminiContents(messages: readonly ChatMessage[]): {
  systemTexts: string[];
  contents: GeminiContent[];
} {
  const systemTexts: string[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const push = (role: GeminiContent['role'], parts: Part[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOnly(message.content, `${param}.content`, PROTOCOL);
        if (text !== '') systemTexts.push(text);
        break;
      }
      case 'user':
        push('user', userParts(message.content, `${param}.content`));
        break;
      case 'assistant': {
        const parts: Part[] = [];
        contentParts(message.content).forEach((part, partIndex) => {
          const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
          if (typeof text !== 'string')
            throw notExpressible(
              `${param}.content[${partIndex}]`,
              PROTOCOL,
              `a "${part.type}" part in an assistant message`,
            );
          if (text !== '') parts.push({ text });
        });
        for (const call of readToolCalls(message.tool_calls, `${param}.tool_calls`, PROTOCOL)) {
          callNames.set(call.id, call.name);
          const part: Part = { functionCall: { name: call.name, args: call.arguments } };
          const google = isRecord(call.raw.extra_content) ? call.raw.extra_content.google : undefined;
          if (isRecord(google) && typeof google.thought_signature === 'string')
            part.thoughtSignature = google.thought_signature;
          parts.push(part);
        }
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = typeof message.tool_call_id === 'string' ? callNames.get(message.tool_call_id) : undefined;
        if (name === undefined) {
          throw invalidValue(`${param}.tool_call_id`, 'must_name_earlier_call');
        }
        push('user', [
          {
            functionResponse: { name, response: toolResponse(textOnly(message.content, `${param}.content`, PROTOCOL)) },
          },
        ]);
        break;
      }
      default:
        throw notExpressible(`${param}.role`, PROTOCOL, `the role "${message.role}"`);
    }
  });
  return { systemTexts, contents };
}

/** `functionResponse.response` must be an object: a JSON object result as is, anything else wrapped as `{result}`. */
function toolResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
    return { result: parsed };
  } catch {
    return { result: text };
  }
}

function userParts(content: unknown, param: string): Part[] {
  return contentParts(content).flatMap((part, index): Part[] => {
    const where = `${param}[${index}]`;
    if (part.type === 'text') return typeof part.text === 'string' && part.text !== '' ? [{ text: part.text }] : [];
    if (part.type === 'image_url') {
      const data = parseDataUrl(imageUrlOf(part, where));
      if (data === undefined)
        throw notExpressible(`${where}.image_url.url`, PROTOCOL, 'an image by URL (send it as a base64 data URL)');
      return [{ inlineData: { mimeType: data.mediaType, data: data.data } }];
    }
    if (part.type === 'file') {
      const file = fileDataOf(part, where, PROTOCOL);
      return [{ inlineData: { mimeType: file.mediaType, data: file.data } }];
    }
    if (part.type === 'input_audio') {
      const audio = inputAudioOf(part, where);
      const mimeType = AUDIO_MIME_TYPES[audio.format];
      if (mimeType === undefined)
        throw notExpressible(`${where}.input_audio.format`, PROTOCOL, `audio of format "${audio.format}"`);
      return [{ inlineData: { mimeType, data: audio.data } }];
    }
    throw notExpressible(where, PROTOCOL, `a "${part.type}" content part`);
  });
}
