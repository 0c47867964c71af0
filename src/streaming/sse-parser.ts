import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { SseRecord } from './stream-mapper.js';

/** Default for `node_replies.max_event_bytes`: 8 MiB. */
export const DEFAULT_MAX_EVENT_LENGTH = 8 * 1024 * 1024;

/**
 * Called instead of `onRecord` for a run of events in the plain framing nearly every node
 * uses, `data: <data>\n\n` each with nothing else (no event name, one data line, LF line
 * ends): `events` is the run as it stood in the node's text, whole events only.
 */
export type OnPlainEvents = (events: string) => void;

/** Length of `data: `, the start of a plain event. */
export const PLAIN_EVENT_HEAD = 6;
/** Length of `\n\n`, the end of a plain event. */
export const PLAIN_EVENT_TAIL = 2;

/**
 * Incremental Server-Sent Events parser (provider-protocols 1, WHATWG event-stream
 * rules): lines end in CRLF, LF or CR, possibly split across chunks; `:` lines are
 * comments; `data:` lines of one event are joined with "\n"; a blank line dispatches.
 */
export class SseParser {
  /** An incomplete line carried over between pushes, in pieces (joined once, when its end arrives). */
  private pendingParts: string[] = [];
  private pendingLength = 0;
  private skipLeadingLineFeed = false;
  private eventName: string | undefined = undefined;
  private data: string | undefined = undefined;

  /** @param maxEventLength the most characters one event may hold (its lines and data); more → `sseEventTooLarge`. */
  constructor(private readonly maxEventLength: number = DEFAULT_MAX_EVENT_LENGTH) {}

  /**
   * Feeds decoded text; calls `onRecord` for every complete event, or `onPlainEvents` (when
   * given) for runs of events in the plain framing (see OnPlainEvents). Linear in the text fed: a line
   * split over many pushes is searched for its end only in each new piece and joined once.
   * Throws `sseEventTooLarge` when an event outgrows the limit.
   */
  push(text: string, onRecord: (record: SseRecord) => void, onPlainEvents?: OnPlainEvents): void {
    let start = 0;
    if (this.skipLeadingLineFeed) {
      this.skipLeadingLineFeed = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    let buffer = text;
    if (this.pendingLength > 0) {
      if (!hasLineEnd(text)) {
        this.keepPending(text);
        return;
      }
      this.pendingParts.push(text);
      buffer = this.pendingParts.join('');
      start = 0;
      this.pendingParts = [];
      this.pendingLength = 0;
    }
    const length = buffer.length;
    // Nearly every node ends lines with LF alone: then the native indexOf finds them.
    const lineFeedOnly = buffer.indexOf('\r', start) === -1;
    while (start < length) {
      if (
        lineFeedOnly &&
        this.data === undefined &&
        this.eventName === undefined &&
        buffer.startsWith('data: ', start)
      ) {
        // Whole `data: …\n\n` events, no event in progress: handed over as one run where they lie.
        const runEnd = this.plainRunEnd(buffer, start);
        if (runEnd !== start) {
          if (onPlainEvents !== undefined)
            onPlainEvents(runEnd === length && start === 0 ? buffer : buffer.slice(start, runEnd));
          else this.recordsOf(buffer, start, runEnd, onRecord);
          start = runEnd;
          continue;
        }
      }
      let end = start;
      let code = 0;
      if (lineFeedOnly) {
        end = buffer.indexOf('\n', start);
        if (end === -1) end = length;
        else code = 10;
      } else {
        while (end < length) {
          code = buffer.charCodeAt(end);
          if (code === 10 || code === 13) break;
          end++;
        }
      }
      if (end === length) {
        this.keepPending(buffer.slice(start));
        return;
      }
      this.processLine(buffer.slice(start, end), onRecord);
      if (code === 13) {
        if (end + 1 === length) {
          this.skipLeadingLineFeed = true;
          break;
        }
        start = buffer.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
  }

  /** The body ended: dispatch an event that was not followed by a blank line. */
  end(onRecord: (record: SseRecord) => void): void {
    if (this.pendingLength > 0) this.processLine(this.pendingParts.join(''), onRecord);
    this.pendingParts = [];
    this.pendingLength = 0;
    this.processLine('', onRecord);
  }

  /** Where the run of whole plain events starting at `start` ends (`start`: none is whole). */
  private plainRunEnd(buffer: string, start: number): number {
    let end = start;
    while (buffer.startsWith('data: ', end)) {
      const lineEnd = buffer.indexOf('\n', end + PLAIN_EVENT_HEAD);
      if (lineEnd === -1 || buffer.charCodeAt(lineEnd + 1) !== 10) break;
      const eventEnd = lineEnd + PLAIN_EVENT_TAIL;
      if (eventEnd - end > this.maxEventLength) throw sseEventTooLarge(this.maxEventLength);
      end = eventEnd;
    }
    return end;
  }

  private recordsOf(buffer: string, start: number, end: number, onRecord: (record: SseRecord) => void): void {
    eachPlainEvent(buffer, (data) => onRecord({ event: undefined, data }), start, end);
  }

  private keepPending(piece: string): void {
    if (piece === '') return;
    this.pendingLength += piece.length;
    if (this.pendingLength + (this.data?.length ?? 0) > this.maxEventLength)
      throw sseEventTooLarge(this.maxEventLength);
    this.pendingParts.push(piece);
  }

  private processLine(line: string, onRecord: (record: SseRecord) => void): void {
    if (line === '') {
      if (this.data !== undefined) onRecord({ event: this.eventName, data: this.data });
      this.eventName = undefined;
      this.data = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
      if (this.data.length > this.maxEventLength) throw sseEventTooLarge(this.maxEventLength);
    } else if (field === 'event') this.eventName = value;
  }
}

/**
 * Calls `onData` with the data of each event of a run in the plain framing (see
 * OnPlainEvents) between `from` and `to`, in order; stops early when it returns `true`
 * (and says so). The one way a run the parser handed over is cut into events again.
 */
export function eachPlainEvent(
  events: string,
  onData: (data: string) => boolean | void,
  from = 0,
  to = events.length,
): boolean {
  for (let at = from; at < to;) {
    const lineEnd = events.indexOf('\n', at + PLAIN_EVENT_HEAD);
    if (onData(events.slice(at + PLAIN_EVENT_HEAD, lineEnd)) === true) return true;
    at = lineEnd + PLAIN_EVENT_TAIL;
  }
  return false;
}

/**
 * Where the event of a run in the plain framing that holds position `at` starts, and
 * where it ends (past its `\n\n`): for reading one event found by a search over the run.
 */
export function plainEventAround(events: string, at: number): { readonly start: number; readonly end: number } {
  const previousEnd = events.lastIndexOf('\n\n', at);
  return {
    start: previousEnd === -1 ? 0 : previousEnd + PLAIN_EVENT_TAIL,
    end: events.indexOf('\n\n', at) + PLAIN_EVENT_TAIL,
  };
}

/** The data of the plain event from `start` to `end` (past its `\n\n`), as plainEventAround gives them. */
export function plainEventData(events: string, start: number, end: number): string {
  return events.slice(start + PLAIN_EVENT_HEAD, end - PLAIN_EVENT_TAIL);
}

/** How many events a run of SSE text framed by the gateway or a node (LF line ends) holds. */
export function countSseEvents(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n', at + PLAIN_EVENT_TAIL)) count += 1;
  return count;
}

function hasLineEnd(text: string): boolean {
  return text.indexOf('\n') !== -1 || text.indexOf('\r') !== -1;
}

/** A node's stream event over the limit: the node's fault (retryable, counted against it). */
export function sseEventTooLarge(limit: number): GatewayError {
  return gatewayError('bad_gateway', {
    retryable: true,
    params: { reason: `the node sent a stream event of more than ${limit} characters` },
  });
}
