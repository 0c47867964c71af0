import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';

// pino-pretty (with its colour and date helpers) is required only when a pretty logger is
// made, so a gateway logging JSON never loads it; require keeps createLogger synchronous.
const requireModule = createRequire(import.meta.url);

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
    const pinoPretty = requireModule('pino-pretty') as typeof import('pino-pretty');
    return pino(options, pinoPretty({ colorize: isTty, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
  }
  return pino(options);
}

export type { Logger };
