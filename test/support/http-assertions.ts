import assert from 'node:assert/strict';

/** The spec's error body (spec 7.1). */
export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null; request_id: string | null };
}

/** What an error response must look like, beyond the envelope checks every error gets. */
export interface ExpectedError {
  status: number;
  code: string;
  type: string;
  /** Checked only when given; `null` means "param is null". */
  param?: string | null;
}

/**
 * Reads an error response and checks the spec 7.1 contract: JSON body with
 * error.{message,type,code,param,request_id}, request_id equal to X-Request-Id, and an
 * X-Correlation-Id header. Returns the parsed body.
 */
export async function expectError(response: Response, expected: ExpectedError): Promise<ErrorBody> {
  const text = await response.text();
  assert.equal(response.status, expected.status, `status (body: ${text})`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as ErrorBody;
  assert.ok(body.error !== null && typeof body.error === 'object', `an error object (body: ${text})`);
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'request_id', 'type']);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0, 'a non-empty message');
  assert.equal(body.error.code, expected.code, `code (body: ${text})`);
  assert.equal(body.error.type, expected.type, `type (body: ${text})`);
  if (expected.param !== undefined) assert.equal(body.error.param, expected.param, `param (body: ${text})`);
  const requestId = response.headers.get('x-request-id');
  assert.match(requestId ?? '', /^req_/, 'X-Request-Id header');
  assert.equal(body.error.request_id, requestId, 'request_id equals X-Request-Id');
  assert.ok(response.headers.get('x-correlation-id'), 'X-Correlation-Id header');
  return body;
}
