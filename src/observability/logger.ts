import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

/** `auto`: human-readable when stdout is a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

const REDACT = {
  paths: ['*.authorization', '*.headers.authorization', '*.headers["x-api-key"]', '*.headers["x-goog-api-key"]', 'api_key', '*.api_key'],
  censor: '[redacted]',
};

/**
 * The process logger: JSON lines on stdout, or, when stdout is a terminal (format `auto`)
 * or `pretty` is asked for, the same records formatted by pino-pretty in-process (no
 * worker thread). Authorization-like headers are redacted wherever they appear; keys are
 * never logged, request bodies only with `log.bodies`.
 */
export function createLogger(level: string, format: LogFormat = 'auto', isTty = process.stdout.isTTY === true): Logger {
  const options = { level, base: { service: 'switchyard' }, redact: REDACT };
  if (format === 'pretty' || (format === 'auto' && isTty)) {
    return pino(options, pinoPretty({ colorize: isTty, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
  }
  return pino(options);
}

/**
 * The logger of the per-request line: the process logger without redaction. Redaction
 * with wildcard paths runs a censor over every field of every line (measured ~15 µs of
 * a ~2.5 µs line). The request line's fields are fixed (ids, status, model, node,
 * attempts, usage, timings; the body only with `log.bodies`), none of them a header or
 * a key, so there is nothing in it to redact.
 */
export function requestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}

export type { Logger };
