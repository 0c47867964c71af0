import type { IncomingMessage } from 'node:http';
import { validationFailed } from '../../errors/gateway-error.js';
import { parseJsonBody } from '../../validation/parse-json-body.js';
import { readBody } from '../read-body.js';
import { isRecord } from '../../validation/is-record.js';

/** Reads a small JSON object body (admin API); 400 validation_failed when it is not one or nests deeper than `maxDepth`. */
export async function readJsonObject(
  request: IncomingMessage,
  limit: number,
  maxDepth: number,
  idleTimeoutMs = 0,
): Promise<Record<string, unknown>> {
  const text = await readBody(request, limit, idleTimeoutMs);
  const value = text.trim() === '' ? {} : parseJsonBody(text, maxDepth);
  if (!isRecord(value)) throw validationFailed(null, 'body_not_object');
  return value;
}
