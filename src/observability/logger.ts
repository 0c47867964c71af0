import { pino, type Logger } from 'pino';

/**
 * The process logger: JSON lines on stdout. Authorization-like headers are redacted
 * wherever they appear; request bodies and keys are never logged.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'switchyard' },
    redact: { paths: ['*.authorization', '*.headers.authorization', '*.headers["x-api-key"]', '*.headers["x-goog-api-key"]', 'api_key', '*.api_key'], censor: '[redacted]' },
  });
}

export type { Logger };
