import { destination, pino, type DestinationStream, type Logger } from 'pino';
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
  return pino(options, new BatchedStdout());
}

const STDOUT_FD = 1;

/** Batches waiting for the next event-loop turn, written synchronously if the process exits first. */
const unflushed = new Set<BatchedStdout>();
process.on('exit', () => {
  for (const batch of unflushed) batch.flushSync();
});

/**
 * JSON lines to stdout, handed over once per event-loop turn. pino's own stdout stream
 * (sonic-boom, asynchronous) adds each line to the text still waiting for a write and
 * takes that text's byte length every time, copying all of it: under load several
 * kilobytes per line, the largest allocation per request. Joining a turn's lines first
 * makes that one step per turn. Writes stay asynchronous; what sonic-boom holds is
 * flushed at exit as before, and the lines of the current turn after it.
 */
class BatchedStdout implements DestinationStream {
  private readonly target = destination({ dest: STDOUT_FD, sync: false });
  private lines: string[] = [];

  write(line: string): void {
    if (this.lines.length === 0) {
      unflushed.add(this);
      setImmediate(this.handOver);
    }
    this.lines.push(line);
  }

  /** For `logger.flush()`: hands over what is collected, then flushes sonic-boom. */
  flush(callback?: (error?: Error) => void): void {
    this.handOver();
    this.target.flush(callback);
  }

  flushSync(): void {
    const text = this.take();
    try {
      this.target.flushSync();
      // A synchronous sonic-boom retries a full pipe (EAGAIN) and partial writes.
      if (text !== '') destination({ dest: STDOUT_FD, sync: true }).write(text);
    } catch {
      // stdout closed (EPIPE) or not writable: nothing more can be done at exit.
    }
  }

  private readonly handOver = (): void => {
    const text = this.take();
    if (text !== '') this.target.write(text);
  };

  private take(): string {
    unflushed.delete(this);
    const lines = this.lines;
    if (lines.length === 0) return '';
    this.lines = [];
    return lines.length === 1 ? (lines[0] as string) : lines.join('');
  }
}

/**
 * The logger of the per-request line: the process logger without redaction. Redaction
 * with wildcard paths runs a censor over every field of every line (measured ~15 µs on
 * top of the ~2.5 µs the line costs without it). The request line's fields are fixed
 * (ids, status, model, node, attempts, usage, timings; the body only with `log.bodies`),
 * none of them a header or a key, so there is nothing in it to redact.
 */
export function requestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}

export type { Logger };
