import type { IncomingMessage } from 'node:http';
import { validationFailed } from '../../protocol/openai/validate-chat-request.js';
import { readBody } from '../read-body.js';

/** Reads a small JSON object body (admin API); 400 validation_failed when it is not one. */
export async function readJsonObject(request: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const text = await readBody(request, limit);
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw validationFailed(null, `The request body is not valid JSON: ${detail}.`, `Тело запроса не является корректным JSON: ${detail}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationFailed(null, 'The request body must be a JSON object.', 'Тело запроса должно быть JSON-объектом.');
  }
  return value as Record<string, unknown>;
}
