import { gatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { SseRecord } from '../providers/types.js';

/** Default for `node_replies.max_event_bytes`: 8 MiB. */
export const DEFAULT_MAX_EVENT_LENGTH = 8 * 1024 * 1024;

/**
 * Called instead of `onRecord` for an event in the plain framing nearly every node uses,
 * `data: <data>\n\n` with nothing else: the event is `text[eventStart, eventEnd)` and its
 * data `text[eventStart + 6, eventEnd - 2)`, left in place for the caller to read (no
 * line or data string is cut out of the text).
 */
export type OnPlainEvent = (text: string, eventStart: number, eventEnd: number) => void;

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
   * Feeds decoded text; calls `onRecord` for every complete event, or `onPlainEvent` (when
   * given) for one in the plain framing (see OnPlainEvent). Linear in the text fed: a line
   * split over many pushes is searched for its end only in each new piece and joined once.
   * Throws `sseEventTooLarge` when an event outgrows the limit.
   */
  push(text: string, onRecord: (record: SseRecord) => void, onPlainEvent?: OnPlainEvent): void {
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
      if (lineFeedOnly && this.data === undefined && this.eventName === undefined && buffer.startsWith('data: ', start)) {
        // A whole `data: …\n\n` event, no event in progress: handed over where it lies.
        const lineEnd = buffer.indexOf('\n', start + PLAIN_EVENT_HEAD);
        if (lineEnd !== -1 && buffer.charCodeAt(lineEnd + 1) === 10) {
          const eventEnd = lineEnd + PLAIN_EVENT_TAIL;
          if (eventEnd - start > this.maxEventLength) throw sseEventTooLarge(this.maxEventLength);
          if (onPlainEvent !== undefined) onPlainEvent(buffer, start, eventEnd);
          else onRecord({ event: undefined, data: buffer.slice(start + PLAIN_EVENT_HEAD, lineEnd) });
          start = eventEnd;
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
          start = length;
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

  private keepPending(piece: string): void {
    if (piece === '') return;
    this.pendingLength += piece.length;
    if (this.pendingLength + (this.data?.length ?? 0) > this.maxEventLength) throw sseEventTooLarge(this.maxEventLength);
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

function hasLineEnd(text: string): boolean {
  return text.indexOf('\n') !== -1 || text.indexOf('\r') !== -1;
}

/** A node's stream event over the limit: the node's fault (retryable, counted against it). */
export function sseEventTooLarge(limit: number): GatewayError {
  return gatewayError('bad_gateway', { retryable: true, params: { reason: `the node sent a stream event of more than ${limit} characters` } });
}
