/** The OpenAI error envelope: `{"error": {"message", "type", "param", "code"}}`. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error the simulator answers with an OpenAI error body and the given HTTP status. */
export class SimulatorError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;

  constructor(
    status: number,
    message: string,
    details: { type?: string; param?: string | null; code?: string | null } = {},
  ) {
    super(message);
    this.name = 'SimulatorError';
    this.status = status;
    this.type = details.type ?? 'invalid_request_error';
    this.param = details.param ?? null;
    this.code = details.code ?? null;
  }

  /** The OpenAI wire body for this error. */
  toBody(): OpenAiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}
