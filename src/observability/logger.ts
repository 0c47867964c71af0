import { createRequire } from 'node:module';
import { destination, pino, symbols, type DestinationStream, type Logger } from 'pino';
import { requestLineMembers, type RequestLineSource } from './request-line.js';

// pino-pretty (with its colour and date helpers) is required only when a pretty logger is
// made, so a gateway logging JSON never loads it; require keeps createLogger synchronous.
const requireModule = createRequire(import.meta.url);

/** `auto`: human-readable when stdout is a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

const REDACT = {
  paths: [
    '*.authorization',
    '*.headers.authorization',
    '*.headers["x-api-key"]',
    '*.headers["x-goog-api-key"]',
    'api_key',
    '*.api_key',
  ],
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
    return pino(
      options,
      pinoPretty({ colorize: isTty, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }),
    );
  }
  return pino(options, new BatchedStdout());
}

const STDOUT_FD = 1;

/** Longest a line waits before it is handed to stdout. */
const HAND_OVER_MS = 20;
/** Text collected beyond this is handed over at once. */
const HAND_OVER_BYTES = 64 * 1024;

/** Batches waiting to be handed over, written synchronously if the process exits first. */
const unflushed = new Set<BatchedStdout>();
process.on('exit', () => {
  for (const batch of unflushed) batch.flushSync();
});

/**
 * JSON lines to stdout, handed over every 20 ms (or at 64 KB). pino's own stdout stream
 * (sonic-boom, asynchronous) adds each line to the text still waiting for a write and
 * takes that text's byte length every time, copying all of it: under load several
 * kilobytes per line, the largest allocation per request. Joining the lines first makes
 * that one step per batch. Each hand-over is an asynchronous `fs.write`, whose fixed cost
 * on the event loop was ~3% of the CPU under load when it ran once per event-loop turn;
 * a line now waits up to 20 ms. What sonic-boom holds is flushed at exit as before, and
 * the lines still collected after it.
 */
class BatchedStdout implements DestinationStream {
  private readonly target = destination({ dest: STDOUT_FD, sync: false });
  private entries: string[] = [];
  private collected = 0;
  private timer: NodeJS.Timeout | undefined;

  write(line: string): void {
    if (this.entries.length === 0) {
      unflushed.add(this);
      this.timer = setTimeout(this.handOver, HAND_OVER_MS);
    }
    this.entries.push(line);
    this.collected += line.length;
    if (this.collected >= HAND_OVER_BYTES) this.handOver();
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
    } catch {
      // What sonic-boom held could not be written; the lines collected since still can.
    }
    try {
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
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.entries;
    if (entries.length === 0) return '';
    this.entries = [];
    this.collected = 0;
    return entries.join('');
  }
}

/** Writes the one line per request at info (or debug, for probes). */
export interface RequestLineLogger {
  /** The request is over: its line is written from `source` now, if the logger's level lets it through. */
  write(level: 'info' | 'debug', source: RequestLineSource): void;
}

/** What pino keeps on a logger to write a record: its stream, its timestamp and its bindings, as serialized. */
interface PinoWriteState {
  readonly [symbols.streamSym]: DestinationStream;
  readonly [symbols.timeSym]: () => string;
  readonly [symbols.chindingsSym]: string;
}

/**
 * The per-request line, for every logger alike (JSON lines, pretty, tests' own): the line's
 * fields serialized by requestLineMembers and written to the logger's own stream as the record
 * pino would write, `{"level":…,"time":…,<bindings>,<fields>,"msg":"request"}`, with the
 * logger's timestamp and bindings. The fields are fixed (ids, status, model, node,
 * attempts, usage, timings; the body only with `log.bodies`), none of them a header or a
 * key, so no redaction runs. Departure from pino's public logging calls, through the
 * state `pino.symbols` exposes for integrations: `logger.info(fields, 'request')` cost
 * 1,097,820 instructions per chat request against 1,021,335 for this write (-7 %,
 * `bash bench/door-instructions.sh chat json`, with the fields then still an object for
 * JSON.stringify; requestLineMembers took a few per cent more off).
 */
export function requestLineLogger(logger: Logger): RequestLineLogger {
  const state = logger as unknown as PinoWriteState;
  return {
    write: (level, source) => {
      if (!logger.isLevelEnabled(level)) return;
      const head = `{"level":${logger.levels.values[level]}${state[symbols.timeSym]()}${state[symbols.chindingsSym]}`;
      state[symbols.streamSym].write(`${head},${requestLineMembers(source)},"msg":"request"}\n`);
    },
  };
}

export type { Logger };
